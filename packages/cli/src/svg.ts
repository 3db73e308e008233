/**
 * Standalone SVG 1.1 charts for `--plot`, without dependencies: a title, axes with ticks
 * and labels, then bars (a histogram, linear or log-scale counts), step lines (survival
 * curves), lines and points (ROC curves, residuals, a PCA scree) with a legend, or ranked
 * horizontal bars (a leaderboard).
 */

export interface Bar {
  lower: number;
  upper: number;
  value: number;
}

export interface BarChart {
  title: string;
  xLabel: string;
  yLabel: string;
  bars: Bar[];
  /**
   * Log-scale y axis (ticks at powers of ten): small bins stay visible beside large ones.
   * A bin of value 0 has no bar (log 0 is −∞); its tooltip-less gap says so.
   */
  yLog?: boolean;
}

export interface XyPoint {
  x: number;
  y: number;
}

export interface XySeries {
  name: string;
  points: XyPoint[];
  /** `line`: a polyline with a marker at every point; `points`: markers only (a scatter). */
  kind: 'line' | 'points';
}

export interface XyChart {
  title: string;
  xLabel: string;
  yLabel: string;
  series: XySeries[];
  /** Dashed reference segments (a ROC chance diagonal, a residual's zero line), in data units. */
  references?: Array<{ from: XyPoint; to: XyPoint; label?: string }>;
  xDomain?: [number, number];
  yDomain?: [number, number];
}

export interface RankChart {
  title: string;
  /** What the bars measure, e.g. `score (AUC)`. */
  xLabel: string;
  /** Best first: drawn top to bottom. */
  items: Array<{ label: string; value: number }>;
}

export interface StepPoint {
  x: number;
  y: number;
  /** A confidence band around y, drawn as a lighter area when both ends are finite. */
  lower?: number;
  upper?: number;
}

export interface StepSeries {
  name: string;
  points: StepPoint[];
}

export interface StepChart {
  title: string;
  xLabel: string;
  yLabel: string;
  series: StepSeries[];
  /** Fixed y range (e.g. [0, 1] for probabilities); default 0 to the largest value. */
  yDomain?: [number, number];
  /** Legend entry of the bands, e.g. '95% confidence band'. */
  bandLabel?: string;
}

const WIDTH = 720;
const HEIGHT = 440;
const FONT_SIZE = 12;
/** Rough advance of one character at FONT_SIZE in a sans-serif font, to lay out labels. */
const CHAR_WIDTH = 7;
const MAX_LEGEND_CHARS = 24;
/** The title is bold and larger: about this many characters fit across the chart. */
const MAX_TITLE_CHARS = 72;
// Okabe-Ito: distinguishable with the common colour-vision deficiencies; yellow last (faint on white).
const PALETTE = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000', '#F0E442'];

/** Text for XML content or a quoted attribute; drops the control characters XML 1.0 forbids. */
export function escapeXml(text: string): string {
  return text
    // XML 1.0 forbids these characters outright: drop them rather than escape them.
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

const round = (v: number) => Math.round(v * 100) / 100;

const truncate = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

function attrs(a: Record<string, string | number>): string {
  return Object.entries(a).map(([k, v]) => ` ${k}="${typeof v === 'number' ? round(v) : escapeXml(v)}"`).join('');
}

const tag = (name: string, a: Record<string, string | number>, text?: string) =>
  (text === undefined ? `<${name}${attrs(a)}/>` : `<${name}${attrs(a)}>${escapeXml(text)}</${name}>`);

interface Scale {
  /** The domain, widened to whole ticks. */
  min: number;
  max: number;
  ticks: number[];
  format(v: number): string;
  /** Where v lies between min (0) and max (1). */
  position(v: number): number;
}

/** 1, 2 or 5 × 10^k: the smallest such step that splits `span` into at most `count` parts. */
function niceStep(span: number, count: number): number {
  const raw = span / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(raw));
  return ([1, 2, 5, 10].find((m) => m * power >= raw) ?? 10) * power;
}

/** A linear scale over [min, max] with about `count` ticks at round numbers. */
function scale(min: number, max: number, count: number): Scale {
  if (!Number.isFinite(min) || !Number.isFinite(max)) [min, max] = [0, 1];
  if (max <= min) {
    const pad = Math.abs(min) * 0.1 || 1;
    [min, max] = [min - pad, max + pad];
  }
  const step = niceStep(max - min, count);
  // Snap before floor/ceil so that 0.30000000000000004 / 0.1 does not gain a tick.
  const lo = Math.floor(Number((min / step).toPrecision(12))) * step;
  const hi = Math.ceil(Number((max / step).toPrecision(12))) * step;
  const n = Math.round((hi - lo) / step);
  const decimals = Math.min(12, Math.max(0, -Math.floor(Math.log10(step))));
  const ticks = Array.from({ length: n + 1 }, (_, i) => Number((lo + i * step).toFixed(decimals)));
  const exponential = Math.max(Math.abs(lo), Math.abs(hi)) >= 1e6 || step < 1e-4;
  const format = (v: number) => {
    if (!exponential) return v.toFixed(decimals);
    return v === 0 ? '0' : v.toExponential(Math.min(6, Math.max(0, Math.floor(Math.log10(Math.abs(v))) - Math.floor(Math.log10(step)))));
  };
  return { min: ticks[0], max: ticks[n], ticks, format, position: (v) => (v - ticks[0]) / (ticks[n] - ticks[0]) };
}

/**
 * A log10 scale over the positive [min, max], widened to whole powers of ten, one tick at
 * each (1, 10, 100 …; 0.01, 0.1 …; 1e-5, 1e+6 beyond). Without a positive value: [1, 10].
 */
function logScale(min: number, max: number): Scale {
  if (!(min > 0) || !Number.isFinite(max) || max < min) [min, max] = [1, 10];
  const lo = Math.floor(Math.log10(min) + 1e-9);
  const hi = Math.max(lo + 1, Math.ceil(Math.log10(max) - 1e-9));
  const ticks = Array.from({ length: hi - lo + 1 }, (_, i) => Number(`1e${lo + i}`));
  const format = (v: number) => {
    const k = Math.round(Math.log10(v));
    return k >= -4 && k <= 5 ? String(v) : `1e${k >= 0 ? '+' : ''}${k}`;
  };
  return { min: ticks[0], max: ticks[ticks.length - 1], ticks, format, position: (v) => (Math.log10(v) - lo) / (hi - lo) };
}

interface Legend {
  items: Array<{ label: string; color: string; kind: 'line' | 'band' | 'dash' }>;
}

/** The plot area inside the margins, with its two scales mapped to pixels. */
class Frame {
  readonly left: number;
  readonly top = 44;
  readonly right: number;
  readonly bottom = HEIGHT - 56;
  readonly x: Scale;
  readonly y: Scale;

  constructor(xRange: [number, number], yRange: [number, number], legend: Legend | undefined, yLog = false) {
    const legendChars = Math.max(0, ...(legend?.items ?? []).map((i) => truncate(i.label, MAX_LEGEND_CHARS).length));
    this.right = WIDTH - (legend ? 52 + legendChars * (CHAR_WIDTH + 1) : 32);
    this.y = yLog ? logScale(yRange[0], yRange[1]) : scale(yRange[0], yRange[1], Math.floor((this.bottom - this.top) / 50));
    const yLabelChars = Math.max(...this.y.ticks.map((t) => this.y.format(t).length));
    this.left = 36 + yLabelChars * CHAR_WIDTH;
    this.x = scale(xRange[0], xRange[1], Math.floor((this.right - this.left) / 70));
  }

  px(v: number): number {
    return this.left + this.x.position(v) * (this.right - this.left);
  }

  py(v: number): number {
    return this.bottom - this.y.position(v) * (this.bottom - this.top);
  }

  /** Title, grid, axes, ticks and axis labels: everything but the data. */
  axes(title: string, xLabel: string, yLabel: string): string[] {
    const { left, right, top, bottom, x, y } = this;
    const out = [tag('rect', { x: 0, y: 0, width: WIDTH, height: HEIGHT, fill: '#ffffff' })];
    out.push(tag('text', { x: WIDTH / 2, y: 26, 'text-anchor': 'middle', 'font-size': 15, 'font-weight': 'bold' }, truncate(title, MAX_TITLE_CHARS)));
    out.push(...y.ticks.map((t) => tag('line', { x1: left, y1: this.py(t), x2: right, y2: this.py(t), stroke: '#e6e6e6' })));
    out.push(tag('line', { x1: left, y1: bottom, x2: right, y2: bottom, stroke: '#333333' }));
    out.push(tag('line', { x1: left, y1: top, x2: left, y2: bottom, stroke: '#333333' }));
    // Label every k-th x tick so that the labels never overlap.
    const labelWidth = Math.max(...x.ticks.map((t) => x.format(t).length)) * CHAR_WIDTH + 10;
    const spacing = x.ticks.length > 1 ? (right - left) / (x.ticks.length - 1) : Infinity;
    const every = Math.max(1, Math.ceil(labelWidth / spacing));
    x.ticks.forEach((t, i) => {
      out.push(tag('line', { x1: this.px(t), y1: bottom, x2: this.px(t), y2: bottom + 5, stroke: '#333333' }));
      if (i % every === 0) out.push(tag('text', { x: this.px(t), y: bottom + 19, 'text-anchor': 'middle' }, x.format(t)));
    });
    for (const t of y.ticks) {
      out.push(tag('line', { x1: left - 5, y1: this.py(t), x2: left, y2: this.py(t), stroke: '#333333' }));
      out.push(tag('text', { x: left - 8, y: this.py(t) + 4, 'text-anchor': 'end' }, y.format(t)));
    }
    out.push(tag('text', { x: (left + right) / 2, y: HEIGHT - 14, 'text-anchor': 'middle' }, truncate(xLabel, 80)));
    const midY = (top + bottom) / 2;
    out.push(tag('text', { x: 16, y: midY, 'text-anchor': 'middle', transform: `rotate(-90 16 ${round(midY)})` }, truncate(yLabel, 50)));
    return out;
  }

  legend(legend: Legend): string[] {
    const x = this.right + 16;
    return legend.items.flatMap((item, i) => {
      const y = this.top + 8 + i * 20;
      const swatch = item.kind === 'band'
        ? tag('rect', { x, y: y - 6, width: 18, height: 12, fill: item.color, 'fill-opacity': 0.2 })
        : tag('line', { x1: x, y1: y, x2: x + 18, y2: y, stroke: item.color, 'stroke-width': 2, ...(item.kind === 'dash' ? { 'stroke-dasharray': '5 4' } : {}) });
      return [swatch, tag('text', { x: x + 24, y: y + 4 }, truncate(item.label, MAX_LEGEND_CHARS))];
    });
  }
}

function svgDocument(body: string[]): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="${FONT_SIZE}">`,
    ...body.map((line) => `  ${line}`),
    '</svg>',
    '',
  ].join('\n');
}

const finite = (...values: Array<number | undefined>): boolean => values.every((v) => v !== undefined && Number.isFinite(v));

/**
 * A histogram: one bar per bin (empty bins too, with height 0; on a log scale none), each
 * with a tooltip.
 */
export function barChart(chart: BarChart): string {
  const bars = chart.bars.filter((b) => finite(b.lower, b.upper, b.value) && (!chart.yLog || b.value > 0));
  const values = bars.map((b) => b.value);
  const frame = new Frame(
    [Math.min(...bars.map((b) => b.lower)), Math.max(...bars.map((b) => b.upper))],
    chart.yLog ? [Math.min(...values), Math.max(...values)] : [0, Math.max(0, ...values)],
    undefined,
    chart.yLog,
  );
  const rects = bars.map((b) => {
    const x = frame.px(b.lower);
    const y = frame.py(b.value);
    return `<rect class="bar"${attrs({ x, y, width: Math.max(0, frame.px(b.upper) - x), height: frame.bottom - y, fill: PALETTE[0], stroke: '#ffffff', 'stroke-width': 0.5 })}>`
      + `${tag('title', {}, `[${b.lower}, ${b.upper}]: ${b.value}`)}</rect>`;
  });
  return svgDocument([...frame.axes(chart.title, chart.xLabel, chart.yLabel), ...rects]);
}

/** The points of a step function through `points`: hold each value until the next x. */
function stepVertices(points: Array<[number, number]>): Array<[number, number]> {
  return points.flatMap(([x, y], i) => (i === 0 ? [[x, y] as [number, number]] : [[x, points[i - 1][1]] as [number, number], [x, y] as [number, number]]));
}

/** Runs of consecutive points for which `ok` holds: a missing value breaks a line or a band. */
function runs<T>(items: T[], ok: (item: T) => boolean): T[][] {
  const out: T[][] = [[]];
  for (const item of items) {
    if (ok(item)) out[out.length - 1].push(item);
    else if (out[out.length - 1].length > 0) out.push([]);
  }
  return out.filter((r) => r.length > 0);
}

/**
 * Step lines, one per series, with a marker at every given point and, where the points
 * carry lower/upper, a lighter band between them.
 */
export function stepChart(chart: StepChart): string {
  const all = chart.series.flatMap((s) => s.points);
  const xs = all.map((p) => p.x).filter((v) => finite(v));
  const ys = all.flatMap((p) => [p.y, p.lower ?? NaN, p.upper ?? NaN]).filter((v) => finite(v));
  const hasBands = all.some((p) => finite(p.lower, p.upper));
  const color = (i: number) => PALETTE[i % PALETTE.length];
  const legend: Legend = { items: chart.series.map((s, i) => ({ label: s.name, color: color(i), kind: 'line' as const })) };
  if (hasBands && chart.bandLabel) legend.items.push({ label: chart.bandLabel, color: '#000000', kind: 'band' });
  const frame = new Frame([Math.min(...xs), Math.max(...xs)], chart.yDomain ?? [0, Math.max(0, ...ys)], legend);
  const pixels = (vertices: Array<[number, number]>) => vertices.map(([x, y]) => [frame.px(x), frame.py(y)] as [number, number]);

  const bands: string[] = [];
  const lines: string[] = [];
  const markers: string[] = [];
  chart.series.forEach((s, i) => {
    const name = { 'data-series': s.name };
    for (const run of runs(s.points, (p) => finite(p.x, p.lower, p.upper))) {
      const upper = pixels(stepVertices(run.map((p) => [p.x, p.upper!])));
      const lower = pixels(stepVertices(run.map((p) => [p.x, p.lower!]))).reverse();
      const points = [...upper, ...lower].map(([x, y]) => `${round(x)},${round(y)}`).join(' ');
      bands.push(tag('polygon', { class: 'band', ...name, points, fill: color(i), 'fill-opacity': 0.15, stroke: 'none' }));
    }
    for (const run of runs(s.points, (p) => finite(p.x, p.y))) {
      const [first, ...rest] = pixels(run.map((p) => [p.x, p.y]));
      const d = [`M${round(first[0])},${round(first[1])}`, ...rest.map(([x, y]) => `H${round(x)}V${round(y)}`)].join('');
      lines.push(tag('path', { class: 'step', ...name, d, fill: 'none', stroke: color(i), 'stroke-width': 2 }));
      markers.push(...pixels(run.map((p) => [p.x, p.y])).map(([cx, cy]) => tag('circle', { class: 'point', ...name, cx, cy, r: 3, fill: color(i) })));
    }
  });
  return svgDocument([...frame.axes(chart.title, chart.xLabel, chart.yLabel), ...bands, ...lines, ...markers, ...frame.legend(legend)]);
}

/**
 * Lines and scatters in one frame (ROC curves, residuals, a PCA scree): a line series is a
 * polyline with a marker at each point, a points series markers only; reference segments are
 * dashed. Non-finite points are left out.
 */
export function xyChart(chart: XyChart): string {
  const points = chart.series.flatMap((s) => s.points).filter((p) => finite(p.x, p.y));
  const refs = (chart.references ?? []).flatMap((r) => [r.from, r.to]);
  const extent = (values: number[]): [number, number] => [Math.min(...values), Math.max(...values)];
  const color = (i: number) => PALETTE[i % PALETTE.length];
  const legend: Legend = { items: chart.series.map((s, i) => ({ label: s.name, color: color(i), kind: 'line' as const })) };
  for (const r of chart.references ?? []) if (r.label) legend.items.push({ label: r.label, color: '#777777', kind: 'dash' });
  const frame = new Frame(
    chart.xDomain ?? extent([...points, ...refs].map((p) => p.x)),
    chart.yDomain ?? extent([...points, ...refs].map((p) => p.y)),
    legend.items.length > 1 ? legend : undefined,
  );
  const xy = (p: XyPoint) => `${round(frame.px(p.x))},${round(frame.py(p.y))}`;
  const references = (chart.references ?? []).map((r) => tag('line', {
    class: 'reference', x1: frame.px(r.from.x), y1: frame.py(r.from.y), x2: frame.px(r.to.x), y2: frame.py(r.to.y), stroke: '#777777', 'stroke-dasharray': '5 4',
  }));
  const lines: string[] = [];
  const markers: string[] = [];
  chart.series.forEach((s, i) => {
    const name = { 'data-series': s.name };
    const shown = s.points.filter((p) => finite(p.x, p.y));
    if (s.kind === 'line' && shown.length > 1) {
      lines.push(tag('polyline', { class: 'line', ...name, points: shown.map(xy).join(' '), fill: 'none', stroke: color(i), 'stroke-width': 2 }));
    }
    const r = s.kind === 'line' ? 3 : 2.5;
    markers.push(...shown.map((p) => tag('circle', { class: 'point', ...name, cx: frame.px(p.x), cy: frame.py(p.y), r, fill: color(i), 'fill-opacity': s.kind === 'line' ? 1 : 0.6 })));
  });
  return svgDocument([
    ...frame.axes(chart.title, chart.xLabel, chart.yLabel), ...references, ...lines, ...markers, ...(legend.items.length > 1 ? frame.legend(legend) : []),
  ]);
}

/** Rows of a ranked chart: at most this many (the leaderboard keeps 20). */
const MAX_RANKS = 20;
const MAX_RANK_LABEL_CHARS = 34;

/**
 * Ranked horizontal bars, best at the top, each labelled (rank and name) on the left and with
 * its value at its end: a leaderboard. The axis starts at 0 unless a value is negative.
 */
export function rankChart(chart: RankChart): string {
  const items = chart.items.filter((i) => finite(i.value)).slice(0, MAX_RANKS);
  const labels = items.map((item, k) => truncate(`${k + 1}. ${item.label}`, MAX_RANK_LABEL_CHARS));
  const left = 24 + Math.max(0, ...labels.map((l) => l.length)) * CHAR_WIDTH;
  const right = WIDTH - 72;
  const top = 44;
  const bottom = HEIGHT - 56;
  const values = items.map((i) => i.value);
  const x = scale(Math.min(0, ...values), Math.max(0, ...values), Math.floor((right - left) / 70));
  const px = (v: number) => left + x.position(v) * (right - left);
  const row = (bottom - top) / Math.max(1, items.length);
  const out = [
    tag('rect', { x: 0, y: 0, width: WIDTH, height: HEIGHT, fill: '#ffffff' }),
    tag('text', { x: WIDTH / 2, y: 26, 'text-anchor': 'middle', 'font-size': 15, 'font-weight': 'bold' }, truncate(chart.title, MAX_TITLE_CHARS)),
  ];
  for (const t of x.ticks) {
    out.push(tag('line', { x1: px(t), y1: top, x2: px(t), y2: bottom, stroke: '#e6e6e6' }));
    out.push(tag('text', { x: px(t), y: bottom + 19, 'text-anchor': 'middle' }, x.format(t)));
  }
  out.push(tag('line', { x1: left, y1: bottom, x2: right, y2: bottom, stroke: '#333333' }));
  out.push(tag('line', { x1: px(0), y1: top, x2: px(0), y2: bottom, stroke: '#333333' }));
  out.push(tag('text', { x: (left + right) / 2, y: HEIGHT - 14, 'text-anchor': 'middle' }, truncate(chart.xLabel, 80)));
  items.forEach((item, k) => {
    const y = top + k * row;
    const [a, b] = [px(0), px(item.value)].sort((p, q) => p - q);
    const mid = y + row / 2;
    out.push(`<rect class="rank"${attrs({ x: a, y: y + row * 0.15, width: b - a, height: row * 0.7, fill: k === 0 ? PALETTE[1] : PALETTE[0] })}>`
      + `${tag('title', {}, `${item.label}: ${item.value}`)}</rect>`);
    out.push(tag('text', { x: left - 8, y: mid + 4, 'text-anchor': 'end' }, labels[k]));
    out.push(tag('text', { class: 'value', x: b + 4, y: mid + 4 }, String(Number(item.value.toPrecision(4)))));
  });
  return svgDocument(out);
}
