import { barChart, escapeXml, rankChart, stepChart, xyChart } from '../src/svg';
import { findAll, parseXml, type Element } from './xml';

const byClass = (root: Element, cls: string) => findAll(root, (e) => e.attrs.class === cls);
const texts = (root: Element) => findAll(root, (e) => e.name === 'text').map((t) => t.text);
/** The vertices of a path written as `M x,y` followed by `H x V y` steps. */
const vertices = (d: string) => [...d.matchAll(/M([\d.-]+),([\d.-]+)|H([\d.-]+)V([\d.-]+)/g)].map((m) => [Number(m[1] ?? m[3]), Number(m[2] ?? m[4])]);

describe('svg', () => {
  it('escapeXml escapes markup characters and drops the control characters XML forbids', () => {
    expect(escapeXml(`a<b>&"c"'d'\u0001\te`)).toBe('a&lt;b&gt;&amp;&quot;c&quot;&apos;d&apos;\te');
  });

  describe('barChart', () => {
    const bins = [0, 3, 0, 7, 2].map((value, i) => ({ lower: i * 0.5, upper: (i + 1) * 0.5, value }));
    const svg = barChart({ title: 'Density of <x> & "y"', xLabel: 'x<1', yLabel: 'rows', bars: bins });
    const root = parseXml(svg);

    it('is a standalone SVG 1.1 document with width, height and viewBox', () => {
      expect(svg.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<svg ')).toBe(true);
      expect(root.name).toBe('svg');
      expect(root.attrs).toMatchObject({ xmlns: 'http://www.w3.org/2000/svg', version: '1.1', width: '720', height: '440', viewBox: '0 0 720 440' });
    });

    it('draws one bar per bin, empty bins included, side by side, heights proportional to the values', () => {
      const bars = byClass(root, 'bar');
      expect(bars).toHaveLength(5);
      const n = (e: Element, k: string) => Number(e.attrs[k]);
      for (let i = 1; i < bars.length; i++) expect(n(bars[i], 'x')).toBeCloseTo(n(bars[i - 1], 'x') + n(bars[i - 1], 'width'), 1);
      expect(bars.map((b) => n(b, 'height') / n(bars[3], 'height'))).toEqual([0, 3 / 7, 0, 1, 2 / 7].map((r) => expect.closeTo(r, 2)));
      expect(bars[1].children[0]).toMatchObject({ name: 'title', text: '[0.5, 1]: 3' });
    });

    it('escapes the title and axis labels, which read back unchanged', () => {
      expect(svg).toContain('Density of &lt;x&gt; &amp; &quot;y&quot;');
      expect(texts(root)).toEqual(expect.arrayContaining(['Density of <x> & "y"', 'x<1', 'rows']));
    });

    it('labels the axes with round ticks covering the data', () => {
      const labels = texts(root);
      expect(labels).toEqual(expect.arrayContaining(['0', '2', '4', '6', '8']));
      expect(labels).toEqual(expect.arrayContaining(['0.0', '0.5', '1.0', '1.5', '2.0', '2.5']));
    });

    it('no bins still makes a valid chart', () => {
      expect(byClass(parseXml(barChart({ title: 't', xLabel: 'x', yLabel: 'y', bars: [] })), 'bar')).toEqual([]);
    });
  });

  describe('stepChart', () => {
    const times = [1, 2, 5, 10];
    const curve = (s: number[]) => times.map((x, i) => ({ x, y: s[i], lower: s[i] - 0.1, upper: Math.min(1, s[i] + 0.1) }));
    const chart = {
      title: 'Kaplan-Meier',
      xLabel: 'time',
      yLabel: 'S(t)',
      yDomain: [0, 1] as [number, number],
      series: [{ name: 'a<b', points: curve([1, 0.9, 0.7, 0.5]) }, { name: 'Total', points: curve([0.95, 0.8, 0.6, 0.3]) }],
      bandLabel: '95% confidence',
    };
    const root = parseXml(stepChart(chart));

    it('draws one step line per series through one vertex per time, with a marker at each', () => {
      const steps = byClass(root, 'step');
      expect(steps.map((s) => s.attrs['data-series'])).toEqual(['a<b', 'Total']);
      for (const s of steps) expect(vertices(s.attrs.d)).toHaveLength(times.length);
      expect(byClass(root, 'point')).toHaveLength(2 * times.length);
    });

    it('the line holds each value until the next time, then steps down', () => {
      const [path] = byClass(root, 'step');
      const v = vertices(path.attrs.d);
      expect(path.attrs.d).toMatch(/^M[\d.]+,[\d.]+(H[\d.]+V[\d.]+){3}$/);
      for (let i = 1; i < v.length; i++) {
        expect(v[i][0]).toBeGreaterThan(v[i - 1][0]);
        expect(v[i][1]).toBeGreaterThanOrEqual(v[i - 1][1]);
      }
    });

    it('shades the confidence band of each series and names it in the legend', () => {
      const bands = byClass(root, 'band');
      expect(bands.map((b) => b.attrs['data-series'])).toEqual(['a<b', 'Total']);
      // Upper and lower steps: 2 × (2 × times − 1) corners.
      expect(bands[0].attrs.points.split(' ')).toHaveLength(2 * (2 * times.length - 1));
      expect(texts(root)).toEqual(expect.arrayContaining(['a<b', 'Total', '95% confidence']));
    });

    it('a missing value breaks the line and the band instead of drawing through it', () => {
      const points = [{ x: 1, y: 1 }, { x: 2, y: NaN }, { x: 3, y: 0.5 }, { x: 4, y: 0.4 }];
      const r = parseXml(stepChart({ ...chart, series: [{ name: 'g', points }] }));
      expect(byClass(r, 'step').map((s) => vertices(s.attrs.d).length)).toEqual([1, 2]);
      expect(byClass(r, 'band')).toEqual([]);
      expect(texts(r)).not.toContain('95% confidence');
    });

    it('x tick labels are spaced wider than they are long, even for long numbers', () => {
      const wide = parseXml(stepChart({ ...chart, series: [{ name: 'g', points: [{ x: 1_000_000.5, y: 1 }, { x: 1_000_007.25, y: 0.5 }] }] }));
      const xLabels = findAll(wide, (e) => e.name === 'text' && e.attrs['text-anchor'] === 'middle' && Number(e.attrs.y) > 400 && Number(e.attrs.y) < 420);
      expect(xLabels.length).toBeGreaterThan(1);
      for (let i = 1; i < xLabels.length; i++) {
        const gap = Number(xLabels[i].attrs.x) - Number(xLabels[i - 1].attrs.x);
        expect(gap).toBeGreaterThan(7 * Math.max(xLabels[i].text.length, xLabels[i - 1].text.length));
      }
    });
  });

  describe('barChart with a log-scale y axis', () => {
    const bins = [0, 3, 0, 7000, 20].map((value, i) => ({ lower: i, upper: i + 1, value }));
    const root = parseXml(barChart({ title: 'log', xLabel: 'x', yLabel: 'rows (log scale)', bars: bins, yLog: true }));
    const yTicks = findAll(root, (e) => e.name === 'text' && e.attrs['text-anchor'] === 'end');

    it('ticks at every power of ten from below the smallest to above the largest value', () => {
      expect(yTicks.map((t) => t.text)).toEqual(['1', '10', '100', '1000', '10000']);
      const ys = yTicks.map((t) => Number(t.attrs.y));
      // Equal spacing: a log scale.
      for (let i = 2; i < ys.length; i++) expect(ys[i - 1] - ys[i]).toBeCloseTo(ys[0] - ys[1], 1);
    });

    it('a bar per non-empty bin, heights proportional to log10 of the value from the lowest tick', () => {
      const bars = byClass(root, 'bar');
      expect(bars).toHaveLength(3);
      const h = bars.map((b) => Number(b.attrs.height));
      // log10 3 : log10 7000 : log10 20 over 4 decades.
      expect(h[0] / h[1]).toBeCloseTo(Math.log10(3) / Math.log10(7000), 2);
      expect(h[2] / h[1]).toBeCloseTo(Math.log10(20) / Math.log10(7000), 2);
    });

    it('fractions below 1 tick at 0.001, 0.01 …; far decades in exponent form', () => {
      const small = parseXml(barChart({ title: 't', xLabel: 'x', yLabel: 'y', yLog: true, bars: [{ lower: 0, upper: 1, value: 0.002 }, { lower: 1, upper: 2, value: 0.5 }] }));
      expect(findAll(small, (e) => e.name === 'text' && e.attrs['text-anchor'] === 'end').map((t) => t.text)).toEqual(['0.001', '0.01', '0.1', '1']);
      const huge = parseXml(barChart({ title: 't', xLabel: 'x', yLabel: 'y', yLog: true, bars: [{ lower: 0, upper: 1, value: 5e6 }, { lower: 1, upper: 2, value: 2e5 }] }));
      expect(findAll(huge, (e) => e.name === 'text' && e.attrs['text-anchor'] === 'end').map((t) => t.text)).toEqual(['100000', '1e+6', '1e+7']);
    });
  });

  describe('xyChart', () => {
    const roc = xyChart({
      title: 'ROC', xLabel: 'false positive rate', yLabel: 'true positive rate', xDomain: [0, 1], yDomain: [0, 1],
      series: [{ name: 'a (AUC 0.9)', kind: 'line', points: [{ x: 0, y: 0 }, { x: 0, y: 0.5 }, { x: 0.5, y: 1 }, { x: 1, y: 1 }] },
        { name: 'b', kind: 'line', points: [{ x: 0, y: 0 }, { x: 1, y: 1 }] }],
      references: [{ from: { x: 0, y: 0 }, to: { x: 1, y: 1 }, label: 'chance' }],
    });
    const root = parseXml(roc);

    it('a polyline per line series through every point, a marker at each, a dashed reference and a legend', () => {
      const lines = byClass(root, 'line');
      expect(lines.map((l) => l.attrs['data-series'])).toEqual(['a (AUC 0.9)', 'b']);
      expect(lines[0].attrs.points.split(' ')).toHaveLength(4);
      expect(byClass(root, 'point')).toHaveLength(6);
      const [ref] = byClass(root, 'reference');
      expect(ref.attrs['stroke-dasharray']).toBe('5 4');
      expect(texts(root)).toEqual(expect.arrayContaining(['ROC', 'false positive rate', 'true positive rate', 'a (AUC 0.9)', 'b', 'chance', '0.0', '1.0']));
    });

    it('the fixed domain maps (0,0) and (1,1) to the corners of the plot area, y upwards', () => {
      const [x0, y0, x1, y1] = ['x1', 'y1', 'x2', 'y2'].map((k) => Number(byClass(root, 'reference')[0].attrs[k]));
      expect(x1).toBeGreaterThan(x0);
      expect(y1).toBeLessThan(y0);
    });

    it('a points series is a scatter: markers only; non-finite points left out', () => {
      const r = parseXml(xyChart({ title: 't', xLabel: 'x', yLabel: 'y', series: [{ name: 's', kind: 'points', points: [{ x: 1, y: 2 }, { x: NaN, y: 1 }, { x: 3, y: -1 }] }] }));
      expect(byClass(r, 'line')).toEqual([]);
      expect(byClass(r, 'point')).toHaveLength(2);
    });
  });

  describe('rankChart', () => {
    const root = parseXml(rankChart({ title: 'leaderboard', xLabel: 'score (AUC), higher is better', items: [
      { label: 'lr', value: 0.9 }, { label: 'elasticnet eta=0.5,lambda=0.01', value: 0.45 }, { label: 'bayes', value: NaN },
    ] }));

    it('a bar per ranked entry, best at the top, lengths proportional to the values, labelled with rank and name', () => {
      const bars = byClass(root, 'rank');
      expect(bars).toHaveLength(2);
      expect(Number(bars[0].attrs.y)).toBeLessThan(Number(bars[1].attrs.y));
      expect(Number(bars[1].attrs.width) / Number(bars[0].attrs.width)).toBeCloseTo(0.5, 2);
      expect(texts(root)).toEqual(expect.arrayContaining(['1. lr', '2. elasticnet eta=0.5,lambda=0.01', 'score (AUC), higher is better', '0.9', '0.45']));
      expect(bars[0].children[0]).toMatchObject({ name: 'title', text: 'lr: 0.9' });
    });
  });
});
