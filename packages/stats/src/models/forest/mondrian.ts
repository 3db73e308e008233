import { ByteReader, ByteWriter } from '../../binary';
import { SummaryError } from '../../errors';
import type { ParsedFrame } from '../../frame';
import type { Sign, SummaryPart } from '../../parts';

/** What the online models (forest, micro-clusters) read of a batch: its C/B and categorical columns. */
export type OnlineFrame = Pick<ParsedFrame, 'numeric' | 'categorical'>;

/** What a project's forest learns (`rf_type`): one forest per project. */
export const FOREST_TYPES = ['rf_classifier', 'rf_regressor', 'rf_anomaly'] as const;
export type ForestType = (typeof FOREST_TYPES)[number];

/**
 * The `rf_*` create parameters of a project (SymetryML's names, `modeling-api.md` "About
 * Random Forest"), resolved: `features` empty means `*` (the C and B columns of the first
 * frame learned, target aside, in name order); `lifetime` is `rf_max_split_time` when given.
 */
export interface ForestOptions {
  type: ForestType;
  /** `rf_target_name`; '' for rf_anomaly (no target). */
  target: string;
  features: string[];
  trees: number;
  /** `rf_num_classes`: classes the classifier tells apart (first seen, first numbered). */
  classes: number;
  /** `rf_complexity`: the largest depth of a tree (the root is at depth 0). */
  maxDepth: number;
  lifetime?: number;
  /** `rf_step`: learning rate of the exponential weights that aggregate a path's nodes. */
  step: number;
  /** `rf_dirichlet`: prior count of each class in a node's class probabilities. */
  dirichlet: number;
  /** `rf_always_split`: split nodes whose rows are all of one class too. */
  alwaysSplit: boolean;
  /** `rf_missing_value`: the value a missing feature is learned as. */
  missing: number;
  /** `rf_rnd_seed`. */
  seed: number;
}

/**
 * SymetryML's documented defaults (`rf_dirichlet`: 0.5 for two classes, 1/classes otherwise),
 * but one: `rf_always_split` is true here, where SymetryML documents false. Not splitting pure
 * nodes lets a node that saw one class only widen its box over the whole region without
 * splitting; a row of another class arriving inside the box then cannot split it (a Mondrian
 * split needs the box extended), so a stream that starts with a run of one class is learned as
 * that class: on the e2e disc data (13 % positives) false gives 0.916 training accuracy (the
 * majority rate is 0.87) and true 1.0; on the accuracy fixture 0.915 vs 0.920.
 */
export const FOREST_DEFAULTS = { trees: 10, classes: 2, maxDepth: 16, step: 1, missing: 0, seed: 126, alwaysSplit: true };

/** Bounds of the parameters: each sizes state or work per learned row. */
export const MAX_FOREST_TREES = 100;
export const MAX_FOREST_CLASSES = 64;
export const MAX_FOREST_DEPTH = 64;

/**
 * Numbers the forest may hold (64 MB), and numbers a model built from it may hold (its state
 * is one NATS KV value, at most 8 MB once base64-encoded). Together they cap the nodes of a
 * tree (forestNodeCap): a tree at its cap stops splitting and its leaves keep learning.
 */
export const MAX_FOREST_CELLS = 8_000_000;
export const MAX_FOREST_MODEL_NUMBERS = 500_000;

/** Numbers per node of the forest itself: bounding box, class counts or mean, and 9 scalars. */
function cellsPerNode(type: ForestType, d: number, classes: number): number {
  return 2 * d + statsPerNode(type, classes) + 9;
}

/** Numbers per node of a model built from the forest (see model.ts). */
export function modelNumbersPerNode(type: ForestType, d: number, classes: number): number {
  return type === 'rf_anomaly' ? 7 + 2 * d : 5 + statsPerNode(type, classes);
}

function statsPerNode(type: ForestType, classes: number): number {
  return type === 'rf_classifier' ? classes : type === 'rf_regressor' ? 1 : 0;
}

/** The most nodes a tree of this forest keeps over d features (at least 3: a root and one split). */
export function forestNodeCap(o: ForestOptions, d: number): number {
  const byState = Math.floor(MAX_FOREST_CELLS / (o.trees * cellsPerNode(o.type, d, o.classes)));
  const byModel = Math.floor(MAX_FOREST_MODEL_NUMBERS / (o.trees * modelNumbersPerNode(o.type, d, o.classes)));
  // A full binary tree of depth maxDepth has 2^(maxDepth+1) − 1 nodes.
  const byDepth = 2 ** (o.maxDepth + 1) - 1;
  return Math.max(3, Math.min(byState, byModel, byDepth));
}

/** Why `o` is not a valid set of forest options, or null. */
export function forestOptionsProblem(o: ForestOptions): string | null {
  if (!(FOREST_TYPES as readonly string[]).includes(o.type)) return `rf_type must be one of ${FOREST_TYPES.join(', ')}`;
  if (o.type !== 'rf_anomaly' && (typeof o.target !== 'string' || o.target.trim() === '')) return `rf_target_name is mandatory for ${o.type}`;
  if (!Array.isArray(o.features) || o.features.some((f) => typeof f !== 'string' || f.trim() === '')) return 'rf_features must be attribute names separated by colons, or *';
  if (new Set(o.features).size !== o.features.length) return 'rf_features names an attribute twice';
  if (o.features.includes(o.target)) return 'rf_features cannot include the target rf_target_name';
  const integer = (v: number, min: number, max: number) => Number.isSafeInteger(v) && v >= min && v <= max;
  if (!integer(o.trees, 1, MAX_FOREST_TREES)) return `rf_num_trees must be an integer in [1, ${MAX_FOREST_TREES}]`;
  if (!integer(o.classes, 2, MAX_FOREST_CLASSES)) return `rf_num_classes must be an integer in [2, ${MAX_FOREST_CLASSES}]`;
  if (!integer(o.maxDepth, 1, MAX_FOREST_DEPTH)) return `rf_complexity must be an integer in [1, ${MAX_FOREST_DEPTH}]`;
  if (o.lifetime !== undefined && !(Number.isFinite(o.lifetime) && o.lifetime > 0)) return 'rf_max_split_time must be a number greater than 0';
  if (!(Number.isFinite(o.step) && o.step > 0 && o.step <= 1e6)) return 'rf_step must be a number in (0, 1e6]';
  if (!(Number.isFinite(o.dirichlet) && o.dirichlet > 0 && o.dirichlet <= 1e6)) return 'rf_dirichlet must be a number in (0, 1e6]';
  if (typeof o.alwaysSplit !== 'boolean') return 'rf_always_split must be true or false';
  if (!Number.isFinite(o.missing)) return 'rf_missing_value must be a finite number';
  if (!Number.isSafeInteger(o.seed)) return 'rf_rnd_seed must be an integer';
  return null;
}

/**
 * The forest options of the project parameters `rf_*`, or null when none is given. Values
 * are parsed, not checked: forestOptionsProblem says what is wrong.
 */
export function forestOptionsOf(params: Readonly<Record<string, string>>): ForestOptions | null {
  if (!Object.keys(params).some((k) => k.startsWith('rf_'))) return null;
  const text = (name: string) => params[name]?.trim() ?? '';
  const number = (name: string, fallback: number) => (text(name) === '' ? fallback : Number(text(name)));
  const features = text('rf_features');
  const classes = number('rf_num_classes', FOREST_DEFAULTS.classes);
  // SymetryML calls rf_type mandatory but its own example omits it: "rf_classifier permitted for now".
  const type = (text('rf_type') || 'rf_classifier') as ForestType;
  const always = text('rf_always_split').toLowerCase();
  const options: ForestOptions = {
    type,
    target: type === 'rf_anomaly' ? '' : text('rf_target_name'),
    features: features === '' || features === '*' ? [] : features.split(':').map((f) => f.trim()),
    trees: number('rf_num_trees', FOREST_DEFAULTS.trees),
    classes,
    maxDepth: number('rf_complexity', FOREST_DEFAULTS.maxDepth),
    step: number('rf_step', FOREST_DEFAULTS.step),
    dirichlet: number('rf_dirichlet', classes === 2 ? 0.5 : 1 / classes),
    alwaysSplit: always === '' ? FOREST_DEFAULTS.alwaysSplit : always === 'true' ? true : always === 'false' ? false : (NaN as unknown as boolean),
    missing: number('rf_missing_value', FOREST_DEFAULTS.missing),
    seed: number('rf_rnd_seed', FOREST_DEFAULTS.seed),
  };
  if (text('rf_max_split_time') !== '') options.lifetime = Number(text('rf_max_split_time'));
  return options;
}

/** The options with keys in a fixed order (they are part of the summary's serialized options). */
export function canonicalForestOptions(o: ForestOptions): ForestOptions {
  return {
    type: o.type, target: o.target, features: [...o.features], trees: o.trees, classes: o.classes, maxDepth: o.maxDepth,
    ...(o.lifetime !== undefined ? { lifetime: o.lifetime } : {}),
    step: o.step, dirichlet: o.dirichlet, alwaysSplit: o.alwaysSplit, missing: o.missing, seed: o.seed,
  };
}

/** mulberry32 with its state exposed, so a tree's generator is part of the serialized forest. */
class Rng {
  constructor(public state: number) {}

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
}

const NONE = -1;

/** log((e^a + e^b) / 2) without overflow: the weight of "stop here" vs "go on" under a ½ prior. */
function logMeanExp(a: number, b: number): number {
  const m = Math.max(a, b);
  return m + Math.log((Math.exp(a - m) + Math.exp(b - m)) / 2);
}

/**
 * One Mondrian tree learned online (Lakshminarayanan, Roy & Teh 2014, "Mondrian Forests:
 * Efficient Online Random Forests", Algorithm "extend Mondrian block"), with the exponential
 * weights of the Aggregated Mondrian Forests of Mourtada, Gaïffas & Scornet (2021), which
 * SymetryML's `rf_step` and `rf_dirichlet` parametrize.
 *
 * Each node keeps the bounding box of its rows, its creation time τ (the root's is 0) and,
 * for the models, its class counts (classifier) or target mean (regressor) and a log-weight
 * w = −step·Σ prequential loss of its own prediction over its rows (but its first). The
 * log-weight of a subtree, W = log(½e^w + ½e^(W_left + W_right)) (W = w for a leaf), is a
 * function of the current weights: it is computed when a model reads the tree (treeViews),
 * not kept up to date on every row.
 *
 * A row x goes down from the root. At each node the extension of the box x asks for,
 * e = Σ_f max(0, lo_f − x_f, x_f − hi_f), draws a split time τ + Exp(e): when it comes before
 * the node's children were created (for a leaf: always, but not beyond `rf_max_split_time`),
 * a new split is inserted there: a feature drawn with probability ∝ its extension, a threshold
 * uniform in the extended gap, the node's old content moved one level down and x in a new
 * leaf beside it. Otherwise the node learns x and x goes on to the child its split sends it to.
 * A classifier node whose rows are all of x's class is not split (unless `rf_always_split`).
 *
 * Bounds: a split needs depth ≤ `rf_complexity` for every node below (heights are kept) and
 * room for two nodes under the tree's cap (forestNodeCap); past them leaves keep learning.
 */
class MondrianTree {
  size = 0;
  /** Rows learned. */
  rows = 0;
  private capacity = 0;
  parent = new Int32Array(0);
  left = new Int32Array(0);
  right = new Int32Array(0);
  feature = new Int32Array(0);
  /** Height of the subtree below the node (0 for a leaf). */
  height = new Int32Array(0);
  threshold = new Float64Array(0);
  time = new Float64Array(0);
  count = new Float64Array(0);
  weight = new Float64Array(0);
  lo = new Float64Array(0);
  hi = new Float64Array(0);
  /** Per node: class counts (classifier), the target mean (regressor), nothing (anomaly). */
  stats = new Float64Array(0);
  private readonly extension: Float64Array;

  constructor(
    private readonly o: ForestOptions,
    readonly d: number,
    readonly k: number,
    readonly maxNodes: number,
    readonly rng: Rng,
  ) {
    this.extension = new Float64Array(d);
  }

  isLeaf(j: number): boolean {
    return this.left[j] === NONE;
  }

  /** The tree's state as plain data whose arrays can be transferred to another thread (attach takes it back). */
  parts(): TreeParts {
    return {
      size: this.size, rows: this.rows, capacity: this.capacity, rng: this.rng.state,
      parent: this.parent, left: this.left, right: this.right, feature: this.feature, height: this.height,
      threshold: this.threshold, time: this.time, count: this.count, weight: this.weight, lo: this.lo, hi: this.hi, stats: this.stats,
    };
  }

  /** Takes the state parts() gave (on this thread or another): the arrays themselves, not copies. */
  attach(p: TreeParts): void {
    this.size = p.size;
    this.rows = p.rows;
    this.capacity = p.capacity;
    this.rng.state = p.rng;
    this.parent = p.parent;
    this.left = p.left;
    this.right = p.right;
    this.feature = p.feature;
    this.height = p.height;
    this.threshold = p.threshold;
    this.time = p.time;
    this.count = p.count;
    this.weight = p.weight;
    this.lo = p.lo;
    this.hi = p.hi;
    this.stats = p.stats;
  }

  /** Learns one row: x (d values), y a class index (classifier), a value (regressor) or NaN (anomaly). */
  learn(x: Float64Array, y: number): void {
    this.rows++;
    if (this.size === 0) {
      const root = this.add(NONE, 0);
      this.setBox(root, x);
      this.learnNode(root, y, false);
      return;
    }
    let j = 0;
    let depth = 0;
    for (;;) {
      const sum = this.extend(j, x);
      const t = this.splitTime(j, y, depth, sum);
      if (t > 0) {
        this.split(j, x, y, t, sum);
        this.raise(j);
        return;
      }
      this.widen(j, x, sum);
      this.learnNode(j, y, true);
      if (this.isLeaf(j)) return;
      j = x[this.feature[j]] <= this.threshold[j] ? this.left[j] : this.right[j];
      depth++;
    }
  }

  /** How far x lies outside node j's box, per feature (into this.extension) and in all. */
  private extend(j: number, x: Float64Array): number {
    const d = this.d;
    const lo = this.lo;
    const hi = this.hi;
    const ext = this.extension;
    const base = j * d;
    let sum = 0;
    for (let f = 0; f < d; f++) {
      const v = x[f];
      const e = v < lo[base + f] ? lo[base + f] - v : v > hi[base + f] ? v - hi[base + f] : 0;
      ext[f] = e;
      sum += e;
    }
    return sum;
  }

  /** The split time x draws at node j (its extension `sum` computed), or 0 for no split. */
  private splitTime(j: number, y: number, depth: number, sum: number): number {
    if (!(sum > 0) || this.size + 2 > this.maxNodes || depth + this.height[j] + 1 > this.o.maxDepth) return 0;
    const o = this.o;
    if (o.type === 'rf_classifier' && !o.alwaysSplit && this.stats[j * this.k + y] === this.count[j]) return 0;
    const t = this.time[j] - Math.log(1 - this.rng.next()) / sum;
    if (this.isLeaf(j)) return o.lifetime === undefined || t <= o.lifetime ? t : 0;
    return t < this.time[this.left[j]] ? t : 0;
  }

  /** Inserts a split at node j at time t (see the class comment), x in a new leaf under it. */
  private split(j: number, x: Float64Array, y: number, t: number, sum: number): void {
    const d = this.d;
    let u = this.rng.next() * sum;
    let f = 0;
    for (; f < d - 1; f++) {
      u -= this.extension[f];
      if (u < 0 && this.extension[f] > 0) break;
    }
    while (this.extension[f] === 0) f--; // rounding left u ≥ 0 past the last extended feature
    const lo = this.lo[j * d + f];
    const hi = this.hi[j * d + f];
    const right = x[f] > hi;
    const r = this.rng.next();
    const threshold = right ? hi + r * (x[f] - hi) : x[f] + r * (lo - x[f]);
    const a = this.add(j, t);
    const b = this.add(j, t);
    const moved = right ? a : b;
    const fresh = right ? b : a;
    this.copy(j, moved);
    this.parent[moved] = j;
    this.time[moved] = t;
    if (!this.isLeaf(j)) {
      this.parent[this.left[j]] = moved;
      this.parent[this.right[j]] = moved;
    }
    this.feature[j] = f;
    this.threshold[j] = threshold;
    this.left[j] = a;
    this.right[j] = b;
    this.height[j] = this.height[moved] + 1;
    this.widen(j, x, sum);
    this.learnNode(j, y, true);
    this.setBox(fresh, x);
    this.learnNode(fresh, y, false);
  }

  /** Node j's box grows to hold x (this.extension is x's extension of it, `sum` in all). */
  private widen(j: number, x: Float64Array, sum: number): void {
    if (sum === 0) return;
    const base = j * this.d;
    for (let f = 0; f < this.d; f++) {
      if (this.extension[f] === 0) continue;
      if (x[f] < this.lo[base + f]) this.lo[base + f] = x[f];
      else this.hi[base + f] = x[f];
    }
  }

  /** A new node's box: the point x. */
  private setBox(j: number, x: Float64Array): void {
    this.lo.set(x, j * this.d);
    this.hi.set(x, j * this.d);
  }

  /** Node j learns y: its weight (the loss of its prediction before y, when asked), its statistics and count. */
  private learnNode(j: number, y: number, weigh: boolean): void {
    const n = this.count[j];
    const type = this.o.type;
    if (type === 'rf_classifier') {
      const at = j * this.k;
      if (weigh) {
        const p = (this.stats[at + y] + this.o.dirichlet) / (n + this.o.dirichlet * this.k);
        this.weight[j] += this.o.step * Math.log(p);
      }
      this.stats[at + y] += 1;
    } else if (type === 'rf_regressor') {
      const mean = this.stats[j];
      if (weigh) this.weight[j] -= (this.o.step * (mean - y) * (mean - y)) / 2;
      this.stats[j] = mean + (y - mean) / (n + 1);
    }
    this.count[j] = n + 1;
  }

  /** After a split at j (whose subtree grew one level), the heights of j's ancestors. */
  private raise(j: number): void {
    for (let a = this.parent[j]; a !== NONE; a = this.parent[a]) {
      const h = 1 + Math.max(this.height[this.left[a]], this.height[this.right[a]]);
      if (h === this.height[a]) return;
      this.height[a] = h;
    }
  }

  /** The log-weight W of every node's subtree (see the class comment), children before parents. */
  logWeightTrees(): Float64Array {
    const out = new Float64Array(this.size);
    if (this.size === 0 || this.o.type === 'rf_anomaly') return out;
    const order: number[] = [0];
    for (let i = 0; i < order.length; i++) {
      const j = order[i];
      if (!this.isLeaf(j)) order.push(this.left[j], this.right[j]);
    }
    for (let i = order.length - 1; i >= 0; i--) {
      const j = order[i];
      out[j] = this.isLeaf(j) ? this.weight[j] : logMeanExp(this.weight[j], out[this.left[j]] + out[this.right[j]]);
    }
    return out;
  }

  private add(parent: number, time: number): number {
    if (this.size === this.capacity) this.grow(Math.min(this.maxNodes, Math.max(16, 2 * this.capacity)));
    const j = this.size++;
    this.parent[j] = parent;
    this.left[j] = NONE;
    this.right[j] = NONE;
    this.feature[j] = 0;
    this.height[j] = 0;
    this.threshold[j] = 0;
    this.time[j] = time;
    this.count[j] = 0;
    this.weight[j] = 0;
    this.stats.fill(0, j * this.k, (j + 1) * this.k);
    return j;
  }

  /** Node `to` takes node `from`'s content (children, split, box, statistics, weights). */
  private copy(from: number, to: number): void {
    this.left[to] = this.left[from];
    this.right[to] = this.right[from];
    this.feature[to] = this.feature[from];
    this.height[to] = this.height[from];
    this.threshold[to] = this.threshold[from];
    this.count[to] = this.count[from];
    this.weight[to] = this.weight[from];
    this.lo.copyWithin(to * this.d, from * this.d, (from + 1) * this.d);
    this.hi.copyWithin(to * this.d, from * this.d, (from + 1) * this.d);
    this.stats.copyWithin(to * this.k, from * this.k, (from + 1) * this.k);
  }

  private grow(capacity: number): void {
    const ints = (a: Int32Array, per = 1) => {
      const b = new Int32Array(capacity * per);
      b.set(a.subarray(0, this.size * per));
      return b;
    };
    const floats = (a: Float64Array, per = 1) => {
      const b = new Float64Array(capacity * per);
      b.set(a.subarray(0, this.size * per));
      return b;
    };
    this.parent = ints(this.parent);
    this.left = ints(this.left);
    this.right = ints(this.right);
    this.feature = ints(this.feature);
    this.height = ints(this.height);
    this.threshold = floats(this.threshold);
    this.time = floats(this.time);
    this.count = floats(this.count);
    this.weight = floats(this.weight);
    this.lo = floats(this.lo, this.d);
    this.hi = floats(this.hi, this.d);
    this.stats = floats(this.stats, this.k);
    this.capacity = capacity;
  }

  write(w: ByteWriter): void {
    w.u32(this.rng.state);
    w.f64(this.rows);
    w.u32(this.size);
    const n = this.size;
    const ints = Float64Array.from({ length: 5 * n }, (_, i) => [this.parent, this.left, this.right, this.feature, this.height][Math.floor(i / n)][i % n]);
    w.f64s(ints);
    for (const a of [this.threshold, this.time, this.count, this.weight]) w.f64s(a.subarray(0, n));
    w.f64s(this.lo.subarray(0, n * this.d));
    w.f64s(this.hi.subarray(0, n * this.d));
    w.f64s(this.stats.subarray(0, n * this.k));
  }

  read(r: ByteReader, bad: (what: string) => SummaryError): void {
    this.rng.state = r.u32();
    this.rows = r.f64();
    const n = r.u32();
    if (n > this.maxNodes || !(this.rows >= (n > 0 ? 1 : 0))) throw bad('node count');
    this.size = 0;
    this.grow(Math.max(n, 1));
    this.size = n;
    const sized = (a: Float64Array, per: number) => {
      if (a.length !== n * per) throw bad('array size');
      return a;
    };
    const ints = sized(r.f64s(), 5);
    [this.parent, this.left, this.right, this.feature, this.height].forEach((a, k) => {
      for (let i = 0; i < n; i++) a[i] = ints[k * n + i];
    });
    for (const a of [this.threshold, this.time, this.count, this.weight]) a.set(sized(r.f64s(), 1));
    this.lo.set(sized(r.f64s(), this.d));
    this.hi.set(sized(r.f64s(), this.d));
    this.stats.set(sized(r.f64s(), this.k));
    // Each child names its parent back and only the root has none: descending from the root
    // and climbing back from a leaf then always end.
    if (n > 0 && this.parent[0] !== NONE) throw bad('links');
    for (let i = 0; i < n; i++) {
      const [l, r] = [this.left[i], this.right[i]];
      if ((l === NONE) !== (r === NONE) || (i > 0 && !(this.parent[i] >= 0 && this.parent[i] < n))) throw bad('links');
      if (l !== NONE && !(l > 0 && l < n && r > 0 && r < n && l !== r && this.parent[l] === i && this.parent[r] === i)) throw bad('links');
      if (!(this.feature[i] >= 0 && this.feature[i] < this.d)) throw bad('feature');
    }
  }
}

/** A tree's state as MondrianTree.parts gives it: plain data a worker thread can be sent (arrays transferred, not copied). */
export interface TreeParts {
  size: number;
  rows: number;
  capacity: number;
  rng: number;
  parent: Int32Array<ArrayBuffer>;
  left: Int32Array<ArrayBuffer>;
  right: Int32Array<ArrayBuffer>;
  feature: Int32Array<ArrayBuffer>;
  height: Int32Array<ArrayBuffer>;
  threshold: Float64Array<ArrayBuffer>;
  time: Float64Array<ArrayBuffer>;
  count: Float64Array<ArrayBuffer>;
  weight: Float64Array<ArrayBuffer>;
  lo: Float64Array<ArrayBuffer>;
  hi: Float64Array<ArrayBuffer>;
  stats: Float64Array<ArrayBuffer>;
}

/** A forest's state as MondrianForest.detach gives it. */
export interface ForestParts {
  features: string[];
  classes: string[];
  trees: TreeParts[];
}

/** A tree as the models read it (plain arrays, copied: the models are snapshots). */
export interface ForestTreeView {
  rows: number;
  size: number;
  feature: Int32Array;
  threshold: Float64Array;
  left: Int32Array;
  right: Int32Array;
  time: Float64Array;
  count: Float64Array;
  weight: Float64Array;
  logWeightTree: Float64Array;
  lo: Float64Array;
  hi: Float64Array;
  stats: Float64Array;
}

/**
 * The online forest of a project (STATS.md §1 "online models"): `rf_num_trees` Mondrian trees
 * (MondrianTree), each with its own generator seeded from `rf_rnd_seed` and the tree's index,
 * learning every complete row in learn order. So the forest is a deterministic function of
 * the rows in learn order and of the options: learning in chunks, or snapshot + replay of the
 * learn log, gives the identical forest, bit for bit.
 *
 * Rows: the classifier's class is the target's text (a categorical level, or the number as
 * text), numbered in order of first appearance up to `rf_num_classes`; rows of a further class,
 * rows with a missing target and frames without the target column are not learned (by the
 * forest). A missing feature is learned as `rf_missing_value`.
 *
 * Forget does not apply: a tree cannot take a row back, so forget and subtract leave the
 * forest as it is. Merge (merging projects): a forest that learned no row takes the other's
 * (as if it had learned those rows); otherwise it is kept as it is and the other's rows are
 * not in it — forests do not add up. A data-source learn does not merge forests: its staging
 * summary starts from a copy of the project's forest and, when the project did not change
 * meanwhile, its forest replaces the project's (Summary.takeForest).
 */
export class MondrianForest implements SummaryPart<MondrianForest> {
  /** The features, resolved (rf_features, or the first frame's C/B columns for `*`). */
  private resolved: string[];
  private trees: MondrianTree[] = [];
  /** Class names, in order of first appearance (classifier). */
  private classNames: string[] = [];

  constructor(readonly options: ForestOptions) {
    this.resolved = [...options.features];
    if (this.resolved.length > 0) this.plant();
  }

  get features(): readonly string[] {
    return this.resolved;
  }

  get classes(): readonly string[] {
    return this.classNames;
  }

  /**
   * Whether the forest's state is out (detach) and not yet back (attach): it is being updated
   * on another thread, and reading it now would read nothing (Summary.takeOnline).
   */
  private away = false;

  /** Rows the forest learned. */
  get rowCount(): number {
    this.here();
    return this.trees[0]?.rows ?? 0;
  }

  /**
   * Hands the forest's state out as plain data, its arrays not copied (a worker thread is sent
   * them as transferables): until attach() gives it back the forest may not be read or changed.
   */
  detach(): ForestParts {
    this.here();
    this.away = true;
    // A tree's arrays are its own (grow allocates each one), so transferring them moves nothing else.
    return { features: [...this.resolved], classes: [...this.classNames], trees: this.trees.map((t) => t.parts()) };
  }

  /** Takes back the state detach() gave (updated on another thread, or as it was). */
  attach(parts: ForestParts): void {
    this.away = false;
    this.resolved = [...parts.features];
    this.classNames = [...parts.classes];
    if (parts.trees.length === 0) {
      this.trees = [];
      return;
    }
    this.plant();
    this.trees.forEach((t, i) => t.attach(parts.trees[i]));
  }

  private here(): void {
    if (this.away) throw new Error('the forest is being updated on another thread: wait for its update before reading it');
  }

  get nodeCap(): number {
    return this.trees[0]?.maxNodes ?? 0;
  }

  /** Learns the rows of a frame in order (see the class comment for what is skipped); forget (sign -1) does not apply. */
  learn(parsed: OnlineFrame, sign: Sign): void {
    this.here();
    if (sign === -1) return;
    const o = this.options;
    const supervised = o.type !== 'rf_anomaly';
    const numericTarget = supervised ? parsed.numeric.find((c) => c.name === o.target) : undefined;
    const categoricalTarget = supervised && o.type === 'rf_classifier' ? parsed.categorical.find((c) => c.name === o.target) : undefined;
    if (supervised && !numericTarget && !categoricalTarget) return;
    if (this.resolved.length === 0) {
      const names = parsed.numeric.map((c) => c.name).filter((n) => n !== o.target).sort();
      if (names.length === 0) return;
      this.resolved = names;
      this.plant();
    }
    const columns = this.resolved.map((f) => parsed.numeric.find((c) => c.name === f)?.values);
    const rows = parsed.numeric[0]?.values.length ?? parsed.categorical[0]?.codes.length ?? 0;
    const x = new Float64Array(this.resolved.length);
    for (let r = 0; r < rows; r++) {
      let y = NaN;
      if (o.type === 'rf_classifier') {
        const label = numericTarget ? (Number.isNaN(numericTarget.values[r]) ? null : String(numericTarget.values[r]))
          : categoricalTarget!.codes[r] < 0 ? null : categoricalTarget!.levels[categoricalTarget!.codes[r]];
        if (label === null) continue;
        y = this.classNames.indexOf(label);
        if (y < 0) {
          if (this.classNames.length >= o.classes) continue;
          y = this.classNames.push(label) - 1;
        }
      } else if (o.type === 'rf_regressor') {
        y = numericTarget!.values[r];
        if (Number.isNaN(y)) continue;
      }
      columns.forEach((c, f) => {
        const v = c === undefined ? NaN : c[r];
        x[f] = Number.isNaN(v) ? o.missing : v;
      });
      for (const tree of this.trees) tree.learn(x, y);
    }
  }

  /** Takes the other's forest when this one learned nothing (see the class comment); subtracting (sign -1) does not apply. */
  merge(other: MondrianForest, sign: Sign): void {
    if (sign === -1 || this.rowCount > 0 || other.rowCount === 0) return;
    this.copyFrom(other);
  }

  /** Nothing can fail: forests do not add up, and subtraction does not apply. */
  checkMerge(): void {}

  /** Becomes a copy of `other` (same options): a data-source learn's staging forest starts from the project's. */
  copyFrom(other: MondrianForest): void {
    // Summary passes a clone or another summary's forest, never this forest itself.
    const w = new ByteWriter();
    other.write(w);
    this.read(new ByteReader(w.bytes()));
  }

  /** Copies of the trees, as the models read them. */
  treeViews(): ForestTreeView[] {
    this.here();
    return this.trees.map((t) => {
      const n = t.size;
      return {
        rows: t.rows, size: n,
        feature: t.feature.slice(0, n), threshold: t.threshold.slice(0, n), left: t.left.slice(0, n), right: t.right.slice(0, n),
        time: t.time.slice(0, n), count: t.count.slice(0, n), weight: t.weight.slice(0, n), logWeightTree: t.logWeightTrees(),
        lo: t.lo.slice(0, n * t.d), hi: t.hi.slice(0, n * t.d), stats: t.stats.slice(0, n * t.k),
      };
    });
  }

  write(w: ByteWriter): void {
    this.here();
    w.u32(this.resolved.length);
    for (const f of this.resolved) w.string(f);
    w.u32(this.classNames.length);
    for (const c of this.classNames) w.string(c);
    for (const t of this.trees) t.write(w);
  }

  /** Reads what write() wrote, checking the bounds before allocating. */
  read(r: ByteReader): void {
    const bad = (what: string) => new SummaryError('damaged', `damaged summary serialization: forest (${what})`);
    const d = r.u32();
    if (this.options.features.length > 0 && d !== this.options.features.length) throw bad('features');
    if (d > 1_000_000) throw bad('features');
    const features = Array.from({ length: d }, () => r.string());
    if (this.options.features.some((f, i) => f !== features[i])) throw bad('features');
    const c = r.u32();
    if (c > this.options.classes) throw bad('classes');
    this.classNames = Array.from({ length: c }, () => r.string());
    this.resolved = features;
    this.trees = [];
    if (d === 0) return;
    this.plant();
    for (const t of this.trees) t.read(r, bad);
  }

  private plant(): void {
    const o = this.options;
    const d = this.resolved.length;
    const k = statsPerNode(o.type, o.classes);
    const cap = forestNodeCap(o, d);
    // Each tree its own stream: seed and index through a 32-bit mix (splitmix-like).
    this.trees = Array.from({ length: o.trees }, (_, i) => new MondrianTree(o, d, k, cap, new Rng(Math.imul((o.seed >>> 0) ^ Math.imul(i + 1, 0x9e3779b9), 0x85ebca6b) >>> 0)));
  }
}
