import { barChart, escapeXml, stepChart } from '../src/svg';
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
});
