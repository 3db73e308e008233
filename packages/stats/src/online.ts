import { type ClusterOptions, type ClusterParts, MicroClusters } from './models/kmeans/micro-clusters';
import { type ForestOptions, type ForestParts, MondrianForest, type OnlineFrame } from './models/forest/mondrian';

/**
 * The online models of a summary (the Mondrian forest, the micro-clusters) out of it
 * (Summary.takeOnline), as plain data a worker thread can be sent: their update costs per row
 * (up to trees × depth × features for a forest) what the rest of the summary costs per batch,
 * so a service updates them off its event loop (Summary.prepare's `deferOnline`).
 */
export interface OnlineState {
  forest: ForestParts | null;
  clusters: ClusterParts | null;
}

/** The options the online models were made with (Summary.onlineOptions): what a thread needs to rebuild them. */
export interface OnlineOptions {
  forest?: ForestOptions;
  clusters?: ClusterOptions;
}

/**
 * Learns frames into online models given as data, in order, and hands them back as data:
 * what the rows would have done to them in Summary.learn, bit for bit (same code, same order).
 */
export function learnOnline(options: OnlineOptions, state: OnlineState, frames: readonly OnlineFrame[]): OnlineState {
  const forest = options.forest !== undefined && state.forest !== null ? new MondrianForest(options.forest) : null;
  const clusters = options.clusters !== undefined && state.clusters !== null ? new MicroClusters(options.clusters) : null;
  forest?.attach(state.forest!);
  clusters?.attach(state.clusters!);
  for (const frame of frames) {
    // The order of Summary.prepareParsed's commit.
    clusters?.learn(frame, 1);
    forest?.learn(frame, 1);
  }
  return { forest: forest?.detach() ?? null, clusters: clusters?.detach() ?? null };
}

/**
 * The buffers to transfer with a state (postMessage's transfer list): the forest's arrays,
 * each a buffer of its own. The micro-clusters' sums are copied (at most MAX_CLUSTER_CELLS
 * numbers): read from a snapshot they are views into its chunks, which must not move.
 */
export function onlineTransferList(state: OnlineState): ArrayBuffer[] {
  const out = new Set<ArrayBuffer>();
  for (const t of state.forest?.trees ?? []) {
    for (const a of [t.parent, t.left, t.right, t.feature, t.height, t.threshold, t.time, t.count, t.weight, t.lo, t.hi, t.stats]) {
      if (a.byteOffset === 0 && a.byteLength === a.buffer.byteLength && a.buffer instanceof ArrayBuffer) out.add(a.buffer);
    }
  }
  return [...out];
}

/**
 * The columns of a batch the online models read (copied: the batch's own columns may be views
 * into its request): a forest's features (every C/B column while `*` is unresolved) and
 * target, the micro-clusters' features.
 */
export function onlineFrame(parsed: OnlineFrame, forest: MondrianForest | null, clusters: MicroClusters | null): OnlineFrame {
  const wanted = new Set<string>();
  const allNumeric = forest !== null && forest.options.features.length === 0;
  if (forest !== null) {
    for (const f of forest.options.features) wanted.add(f);
    if (forest.options.target !== '') wanted.add(forest.options.target);
  }
  for (const f of clusters?.options.features ?? []) wanted.add(f);
  return {
    numeric: parsed.numeric.filter((c) => allNumeric || wanted.has(c.name)).map((c) => ({ ...c, values: c.values.slice() })),
    categorical: parsed.categorical.filter((c) => wanted.has(c.name)).map((c) => ({ ...c, codes: c.codes.slice(), levels: [...c.levels] })),
  };
}
