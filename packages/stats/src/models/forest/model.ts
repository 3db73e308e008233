import { type ForestTreeView, type ForestType, MAX_FOREST_DEPTH, MAX_FOREST_MODEL_NUMBERS, MAX_FOREST_TREES, type MondrianForest } from './mondrian';
import type { Summary } from '../../summary';
import { SnapshotModel, type SnapshotState } from '../classifiers/model';
import { num } from '../rows';
import { type Algorithm, ModelInputError, type ModelSpec } from '../types';
import { as, choice, integer, ModelStateError, number, readSnapshotState, texts } from '../state-read';

/**
 * The three models of a project's online Mondrian forest (mondrian.ts, STATS.md §4):
 * `rf_classifier`, `rf_regressor`, `rf_anomaly`, each built from the forest of a project
 * created with the same `rf_type`. A model is a snapshot of the trees as they are when it is
 * built (later rows change the forest, not the model), packed per tree as one Float64Array
 * (base64 in the JSON state) of `stride` numbers per node.
 *
 * Classifier and regressor predict by the aggregation of the Aggregated Mondrian Forest
 * (Mourtada, Gaïffas & Scornet 2021): along the path of x from the root, node j's own
 * prediction p_j (class probabilities (n_c + α)/(n + αK), α = `rf_dirichlet`, or the target
 * mean) is mixed with its subtree's by the weight a_j = ½e^(w_j − W_j) the node earned by its
 * prequential loss: pred_j = a_j·p_j + (1 − a_j)·pred_child, a leaf's pred its own. The forest
 * averages its trees. This is neither the leaf posterior nor the hierarchical (Pitman-Yor)
 * smoothing of Lakshminarayanan et al.: it is what SymetryML's rf_step and rf_dirichlet set.
 *
 * Anomaly: an isolation score from the Mondrian trees. Going down a tree, x leaves the path
 * at node j with the probability that the Mondrian process separates it from j's box before
 * j splits, 1 − e^(−η_j(x)·(τ_split − τ_j)) (η = how far x lies outside the box; a leaf never
 * splits, so any η > 0 separates there), at path length depth_j + 1; staying inside to a leaf
 * of n rows it gets depth + c(n), c the average path length of Isolation Forest. The score is
 * 2^(−E[h]/c(N)), E[h] averaged over the trees, N the rows learned: ∈ (0, 1], ≈ 1 for outliers.
 */

interface ForestState extends SnapshotState {
  forestType: ForestType;
  /** Numbers per node in `trees`. */
  stride: number;
  /** Per tree, its packed nodes (see pack*), base64 of the Float64Array's bytes. */
  trees: string[];
  /** Classifier: the class names, p_<class> keys. */
  classes: string[];
  /** Anomaly: c(N), the normalizer of the expected path length. */
  norm: number;
}

const encode = (a: Float64Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64');

function decode(text: string): Float64Array {
  const bytes = Buffer.from(text, 'base64');
  const out = new Float64Array(bytes.length / 8);
  new Uint8Array(out.buffer).set(bytes);
  return out;
}

/** Average path length of an unsuccessful search in a binary search tree of n keys (Isolation Forest's c(n)). */
export function averagePathLength(n: number): number {
  if (n <= 1) return 0;
  if (n === 2) return 1;
  return 2 * (Math.log(n - 1) + 0.5772156649015329) - (2 * (n - 1)) / n;
}

/** The project's forest, checked against the model asked for. */
function forestOf(summary: Summary, spec: ModelSpec): { forest: MondrianForest; inputNames: string[]; means: number[] } {
  const forest = summary.forest;
  const algo = spec.algo as ForestType;
  if (!forest) {
    throw new ModelInputError(`${algo} needs the online forest of a project created with rf_type=${algo}${algo === 'rf_anomaly' ? '' : ' and rf_target_name'} (rf_features, rf_num_trees … optional)`);
  }
  const o = forest.options;
  if (o.type !== algo) throw new ModelInputError(`${algo}: the project's forest is of rf_type ${o.type}; build ${o.type} from it`);
  if (forest.rowCount === 0) throw new ModelInputError(`${algo}: the forest learned no row yet${o.target ? ` (rows need rf_target_name [${o.target}])` : ''}`);
  const names = summary.attributeNames;
  const nameOf = (i: number) => {
    if (!Number.isInteger(i) || i < 0 || i >= names.length) throw new ModelInputError(`${algo}: unknown attribute index [${i}]`);
    return names[i];
  };
  const asked = spec.inputs.map(nameOf);
  const features = forest.features;
  if (asked.length > 0 && (asked.length !== features.length || asked.some((a) => !features.includes(a)))) {
    throw new ModelInputError(`${algo}: the inputs must be the forest's features (rf_features: ${features.join(':')}), or none`);
  }
  if (algo !== 'rf_anomaly') {
    for (const t of spec.targets.map(nameOf)) {
      if (t !== o.target && !t.startsWith(o.target + summary.options.categorySeparator)) throw new ModelInputError(`${algo}: the target must be the forest's rf_target_name [${o.target}], not [${t}]`);
    }
  }
  // Missing inputs are predicted at their mean (API.md §7), as every model does.
  const means = features.map((f) => {
    const m = summary.count(f) > 0 ? summary.mean(f) : NaN;
    return Number.isFinite(m) ? m : o.missing;
  });
  return { forest, inputNames: [...features], means };
}

/** Classifier/regressor nodes: [feature, threshold, left, right, a, p_0 … p_{k−1}]. */
function packSupervised(t: ForestTreeView, type: ForestType, k: number, classes: number, dirichlet: number): Float64Array {
  const stride = 5 + k;
  const out = new Float64Array(t.size * stride);
  for (let j = 0; j < t.size; j++) {
    const at = j * stride;
    out[at] = t.feature[j];
    out[at + 1] = t.threshold[j];
    out[at + 2] = t.left[j];
    out[at + 3] = t.right[j];
    out[at + 4] = t.left[j] < 0 ? 1 : 0.5 * Math.exp(t.weight[j] - t.logWeightTree[j]);
    if (type === 'rf_regressor') {
      out[at + 5] = t.stats[j];
      continue;
    }
    // Probabilities over the classes seen, from the prior over rf_num_classes, renormalized.
    let total = 0;
    for (let c = 0; c < k; c++) total += out[at + 5 + c] = (t.stats[j * classes + c] + dirichlet) / (t.count[j] + dirichlet * classes);
    for (let c = 0; c < k; c++) out[at + 5 + c] /= total;
  }
  return out;
}

/** Anomaly nodes: [feature, threshold, left, right, n, τ, τ_split, lo_0 … lo_{d−1}, hi_0 … hi_{d−1}]. */
function packAnomaly(t: ForestTreeView, d: number, lifetime: number): Float64Array {
  const stride = 7 + 2 * d;
  const out = new Float64Array(t.size * stride);
  for (let j = 0; j < t.size; j++) {
    const at = j * stride;
    const leaf = t.left[j] < 0;
    out.set([t.feature[j], t.threshold[j], t.left[j], t.right[j], t.count[j], t.time[j], leaf ? lifetime : t.time[t.left[j]]], at);
    out.set(t.lo.subarray(j * d, (j + 1) * d), at + 7);
    out.set(t.hi.subarray(j * d, (j + 1) * d), at + 7 + d);
  }
  return out;
}

function build(summary: Summary, spec: ModelSpec): ForestState {
  const { forest, inputNames, means } = forestOf(summary, spec);
  const o = forest.options;
  const views = forest.treeViews();
  const d = inputNames.length;
  const k = o.type === 'rf_classifier' ? forest.classes.length : 1;
  const trees = views.map((t) => (o.type === 'rf_anomaly' ? packAnomaly(t, d, o.lifetime ?? Infinity) : packSupervised(t, o.type, k, o.classes, o.dirichlet)));
  const nodes = views.reduce((a, t) => a + t.size, 0);
  const rows = forest.rowCount;
  return {
    algo: o.type,
    inputNames,
    targetNames: o.type === 'rf_anomaly' ? [] : [o.target],
    means,
    info: {
      n: num(rows), rf_num_trees: num(o.trees), nodes: num(nodes), max_nodes_per_tree: num(forest.nodeCap), rf_complexity: num(o.maxDepth),
      rf_rnd_seed: num(o.seed), forget: 'not applied: a tree cannot take a row back, so forget leaves the forest as it is',
    },
    extra: { features: JSON.stringify(inputNames), ...(o.type === 'rf_classifier' ? { classes: JSON.stringify(forest.classes) } : {}) },
    forestType: o.type,
    stride: o.type === 'rf_anomaly' ? 7 + 2 * d : 5 + k,
    trees: trees.map(encode),
    classes: o.type === 'rf_classifier' ? [...forest.classes] : [],
    norm: averagePathLength(rows),
  };
}

/** Σ over the path of x of (what reaches node j) × a_j × p_j (see the file comment), into `out`. */
function aggregate(nodes: Float64Array, stride: number, x: Float64Array, out: Float64Array): void {
  let reach = 1;
  let j = 0;
  for (;;) {
    const at = j * stride;
    const leaf = nodes[at + 2] < 0;
    const a = leaf ? 1 : nodes[at + 4];
    for (let c = 0; c < out.length; c++) out[c] += reach * a * nodes[at + 5 + c];
    if (leaf) return;
    reach *= 1 - a;
    j = x[nodes[at]] <= nodes[at + 1] ? nodes[at + 2] : nodes[at + 3];
  }
}

/** The expected path length of x in one packed anomaly tree (see the file comment). */
function expectedPath(nodes: Float64Array, stride: number, d: number, x: Float64Array): number {
  let reach = 1;
  let h = 0;
  let depth = 0;
  let j = 0;
  for (;;) {
    const at = j * stride;
    let eta = 0;
    for (let f = 0; f < d; f++) {
      const lo = nodes[at + 7 + f];
      const hi = nodes[at + 7 + d + f];
      eta += x[f] < lo ? lo - x[f] : x[f] > hi ? x[f] - hi : 0;
    }
    const span = nodes[at + 6] - nodes[at + 5];
    const separated = eta > 0 ? (span === Infinity ? 1 : -Math.expm1(-eta * span)) : 0;
    h += reach * separated * (depth + 1);
    reach *= 1 - separated;
    if (nodes[at + 2] < 0) return h + reach * (depth + averagePathLength(nodes[at + 4]));
    j = x[nodes[at]] <= nodes[at + 1] ? nodes[at + 2] : nodes[at + 3];
    depth++;
  }
}

function model(state: ForestState) {
  const trees = state.trees.map(decode);
  const d = state.inputNames.length;
  return new SnapshotModel(state, (x, s) => {
    if (s.forestType === 'rf_anomaly') {
      const h = trees.reduce((sum, t) => sum + expectedPath(t, s.stride, d, x), 0) / trees.length;
      return { score: num(s.norm > 0 ? 2 ** (-h / s.norm) : 0.5) };
    }
    const out = new Float64Array(s.stride - 5);
    for (const t of trees) aggregate(t, s.stride, x, out);
    for (let c = 0; c < out.length; c++) out[c] /= trees.length;
    if (s.forestType === 'rf_regressor') return { res: num(out[0]) };
    let best = 0;
    for (let c = 1; c < out.length; c++) if (out[c] > out[best]) best = c;
    const p: Record<string, string> = { res: s.classes[best] };
    s.classes.forEach((name, c) => (p[`p_${name}`] = num(out[c])));
    return p;
  });
}

/** A ForestState read back (state-read.ts): sizes that agree, and trees every path of which ends at a leaf. */
function readForestState(state: unknown, type: ForestType): ForestState {
  const { s, p } = readSnapshotState(state, type);
  choice(s.forestType, 'state.forestType', [type]);
  const classes = texts(s.classes, 'state.classes').length;
  if (type === 'rf_classifier' && classes === 0) throw new ModelStateError('state.classes is empty');
  const stride = type === 'rf_anomaly' ? 7 + 2 * p : type === 'rf_regressor' ? 6 : 5 + classes;
  integer(s.stride, 'state.stride', stride, stride);
  const trees = texts(s.trees, 'state.trees');
  if (trees.length === 0 || trees.length > MAX_FOREST_TREES) throw new ModelStateError(`state.trees has ${trees.length} trees, not 1 to ${MAX_FOREST_TREES}`);
  // What a build packs at most (5·10⁵ numbers): it bounds a predict's walk as the depth does.
  const numbers = trees.reduce((sum, t) => sum + Math.floor((t.length * 3) / 4 / 8), 0);
  if (numbers > MAX_FOREST_MODEL_NUMBERS) throw new ModelStateError(`state.trees hold ${numbers} numbers, more than a forest model has (${MAX_FOREST_MODEL_NUMBERS})`);
  trees.forEach((t, i) => checkTree(t, stride, p, `state.trees[${i}]`));
  number(s.norm, 'state.norm');
  return as<ForestState>(s);
}

/**
 * A packed tree's nodes as predict walks them from the root (node 0): an inner node names an
 * input and two children that are nodes of the tree reached by no other path, within the
 * depth rf_complexity allows, so that every walk ends at a leaf within MAX_FOREST_DEPTH + 1
 * steps (a loop would hold a predict forever).
 */
function checkTree(text: string, stride: number, d: number, path: string): void {
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length === 0 || bytes.length % (8 * stride) !== 0) throw new ModelStateError(`${path} is not whole nodes of ${stride} numbers`);
  const nodes = decode(text);
  const size = nodes.length / stride;
  const seen = new Uint8Array(size);
  const depth = new Uint8Array(size);
  const stack = [0];
  seen[0] = 1;
  while (stack.length > 0) {
    const j = stack.pop()!;
    const at = j * stride;
    if (nodes[at + 2] < 0) continue;
    if (depth[j] >= MAX_FOREST_DEPTH + 1) throw new ModelStateError(`${path}: node ${j} is deeper than rf_complexity allows (${MAX_FOREST_DEPTH})`);
    const feature = nodes[at];
    if (!(Number.isInteger(feature) && feature >= 0 && feature < d)) throw new ModelStateError(`${path}: node ${j} splits on no input (${feature})`);
    for (const child of [nodes[at + 2], nodes[at + 3]]) {
      if (!(Number.isInteger(child) && child > 0 && child < size) || seen[child] === 1) throw new ModelStateError(`${path}: node ${j} has child ${child}, not a node of its own`);
      seen[child] = 1;
      depth[child] = depth[j] + 1;
      stack.push(child);
    }
  }
}

function forestAlgorithm(name: ForestType, task: Algorithm['task']): Algorithm {
  return {
    name,
    task,
    build: (summary, spec) => model(build(summary, { ...spec, algo: name })),
    restore: (state) => model(readForestState(state, name)),
  };
}

/** Binary assessment (selectModel) reads `res` as the class: a 0/1 target's classes are "0" and "1". */
export const rfClassifier = forestAlgorithm('rf_classifier', 'binary');
export const rfRegressor = forestAlgorithm('rf_regressor', 'regression');
export const rfAnomaly = forestAlgorithm('rf_anomaly', 'anomaly');
export const forests: Record<ForestType, Algorithm> = { rf_classifier: rfClassifier, rf_regressor: rfRegressor, rf_anomaly: rfAnomaly };
