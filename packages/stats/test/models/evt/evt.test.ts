/**
 * The `evt` algorithm (STATS.md §4: SPOT on one attribute's predicted values, stateful across
 * predict calls), the EvtWrapper's parameters and `annotate`, and the t-digest option.
 * References: fixtures/gen_spot.py (via the wrapper it runs), exact sorted quantiles for the
 * t-digest (rank error ≤ 0.5 % overall, ≤ 0.1 % at the 0.98 level).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ModelInputError, type PredictFrame, resolveAttributes, Summary } from '@sml/stats';
import { EVT_DEFAULTS, EVT_KEYS, evt, evtParams, EvtWrapper, TDigest } from '../../../src/models/evt';
import { random } from '../../helpers';

const fixture: { streams: Record<string, number[]>; cases: { params: Record<string, string>; stream: string; anomalies: number[] }[] } = JSON.parse(
  readFileSync(join(__dirname, 'fixtures', 'spot.json'), 'utf8'),
);
const heavy = fixture.streams.heavy;
const INJECTED = [1500, 2300, 3100, 3101, 3600];

const summary = new Summary();
summary.learn({ attributeNames: ['score', 'other'], attributeTypes: ['C', 'C'], data: [['1', '2'], ['3', '4']] });
const spec = (params: Record<string, string> = {}) => ({ algo: 'evt', inputs: resolveAttributes(summary, ['score']), targets: [], params });
const frameOf = (values: readonly (number | string)[]): PredictFrame => ({ names: ['other', 'score'], rows: values.map((v) => ['0', String(v)]) });

describe('evt: SPOT on the predicted values of one attribute', () => {
  test('predictions across several predict calls equal one wrapper over the whole stream; keys exactly as documented', () => {
    const model = evt.build(summary, spec());
    expect(model.stateful).toBe(true);
    const chunks = [heavy.slice(0, 700), heavy.slice(700, 1800), heavy.slice(1800)];
    const predictions = chunks.flatMap((chunk) => model.predict(frameOf(chunk)));
    const wrapper = new EvtWrapper({});
    expect(predictions).toEqual(heavy.map((x) => wrapper.update(x)));
    for (const p of predictions) expect(Object.keys(p).sort()).toEqual([...EVT_KEYS].sort());
    expect(predictions.flatMap((p, i) => (p.evt_is_anomaly === '1' ? [i] : []))).toEqual(fixture.cases[0].anomalies);
  });

  test('state() reflects the updates: a model restored from JSON mid-stream continues the same', () => {
    const model = evt.build(summary, spec({ evt_window_size: '20' }));
    const drift = fixture.streams.drift;
    model.predict(frameOf(drift.slice(0, 2000)));
    const restored = evt.restore(JSON.parse(JSON.stringify(model.state())));
    expect([restored.algo, restored.inputNames, restored.targetNames, restored.info()]).toEqual([model.algo, model.inputNames, model.targetNames, model.info()]);
    expect(restored.predict(frameOf(drift.slice(2000)))).toEqual(model.predict(frameOf(drift.slice(2000))));
    expect(restored.state()).toEqual(model.state());
  });

  test('a missing or non-numeric cell is neither tested nor learned', () => {
    const model = evt.build(summary, spec({ evt_warmup_size: '5' }));
    const out = model.predict(frameOf(['1', 'NA', '2', 'abc', '3', '4', '5', '', '100']));
    expect(out.map((p) => p.evt_threshold === 'NaN')).toEqual([true, true, true, true, true, true, true, false, false]);
    expect(out[8].evt_is_anomaly).toBe('1');
    expect(out[7]).toEqual({ evt_is_anomaly: '0', evt_threshold: out[8].evt_threshold, evt_anomaly_confidence: '0' });
    expect(model.predict({ names: ['other'], rows: [['1']] })).toEqual([{ evt_is_anomaly: '0', evt_threshold: out[8].evt_threshold, evt_anomaly_confidence: '0' }]);
  });

  test('info lists the resolved parameters (evt_quantile 98 read as percent)', () => {
    expect(evt.build(summary, spec({ evt_quantile: '98', evt_tdigest: 'TRUE' })).info()).toEqual({
      evt_warmup_size: '1000', evt_alpha: '0.001', evt_quantile: '0.98', evt_tdigest: 'true', evt_window_size: '0', evt_max_exceedances: '100000', evt_grimshaw: 'true',
    });
  });

  test('refuses bad inputs and parameters, naming them', () => {
    expect(() => evt.build(summary, { ...spec(), inputs: [0, 1] })).toThrow('evt needs exactly one input attribute, got 2');
    expect(() => evt.build(summary, { ...spec(), targets: [1] })).toThrow('evt takes no target attribute');
    const bad: [Record<string, string>, string | RegExp][] = [
      [{ evt_warmup_size: '1' }, 'parameter [evt_warmup_size] must be an integer ≥ 2, got "1"'],
      [{ evt_alpha: '0' }, /parameter \[evt_alpha\] must be a number in \(0, 1\)/],
      [{ evt_alpha: '0.05' }, /parameter \[evt_alpha\] must be below 1 − evt_quantile/],
      [{ evt_quantile: '1' }, /parameter \[evt_quantile\] must be a number in \(0, 1\), or a percent in \(1, 100\)/],
      [{ evt_quantile: '100' }, /parameter \[evt_quantile\]/],
      [{ evt_tdigest: 'yes' }, 'parameter [evt_tdigest] must be true or false, got "yes"'],
      [{ evt_grimshaw: '1' }, /parameter \[evt_grimshaw\]/],
      [{ evt_window_size: '-1' }, /parameter \[evt_window_size\] must be an integer ≥ 0/],
      [{ evt_window_size: '999' }, /parameter \[evt_window_size\] must leave at least 2 warm-up scores/],
      [{ evt_max_exceedances: '0' }, /parameter \[evt_max_exceedances\] must be an integer ≥ 1/],
    ];
    for (const [params, message] of bad) {
      expect(() => evt.build(summary, spec(params))).toThrow(ModelInputError);
      expect(() => evt.build(summary, spec(params))).toThrow(message);
    }
    expect(evtParams({})).toEqual(EVT_DEFAULTS);
  });
});

describe('EvtWrapper.annotate: the evtwrapper endpoint around another model', () => {
  test('adds the EVT keys, reading the score from sml_evt_wrapper_res_key', () => {
    const wrapper = new EvtWrapper({ sml_evt_wrapper_res_key: 'ecodscore', evt_warmup_size: '4' });
    const rows = [1, 2, 3, 4, 50].map((v) => ({ res: '0', ecodscore: String(v), score: '0' }));
    const out = wrapper.annotate(rows);
    expect(Object.keys(out[0]).sort()).toEqual(['ecodscore', 'evt_anomaly_confidence', 'evt_is_anomaly', 'evt_threshold', 'res', 'score']);
    expect(out[4].evt_is_anomaly).toBe('1');
    expect(wrapper.state().scoreKey).toBe('ecodscore');
  });

  test('without the key: the first of score, ecodscore, res present; a row without one teaches nothing', () => {
    const wrapper = new EvtWrapper({ evt_warmup_size: '3' });
    wrapper.annotate([{ score: '1' }, { res: '2' }, { other: '9' }, { score: '3' }]);
    expect(wrapper.state().calibrated).toBe(true);
    expect(wrapper.state().n).toBe(3);
  });
});

describe('t-digest', () => {
  test('quantiles within 0.5 % rank of the exact ones (0.1 % at the 0.98 level), whatever the order', () => {
    const next = random(11);
    const values = Array.from({ length: 20000 }, () => -Math.log(1 - next()) * (next() < 0.5 ? 1 : 3));
    const sorted = [...values].sort((a, b) => a - b);
    const rank = (x: number) => sorted.filter((v) => v <= x).length / sorted.length;
    const digest = new TDigest();
    for (const v of values) digest.add(v);
    for (const p of [0.01, 0.1, 0.5, 0.9, 0.98, 0.99, 0.999]) expect(Math.abs(rank(digest.quantile(p)) - p)).toBeLessThanOrEqual(p === 0.98 ? 0.001 : 0.005);
    expect([digest.quantile(0), digest.quantile(1)]).toEqual([sorted[0], sorted[sorted.length - 1]]);
    expect(digest.count).toBe(20000);
    expect(digest.state().means.length).toBeLessThanOrEqual(100);
  });

  test('the state survives JSON: the restored digest merges and answers the same', () => {
    const next = random(3);
    const digest = new TDigest();
    for (let i = 0; i < 1234; i++) digest.add(next());
    const restored = TDigest.restore(JSON.parse(JSON.stringify(digest.state())));
    for (let i = 0; i < 777; i++) {
      const v = next();
      digest.add(v);
      restored.add(v);
    }
    expect(restored.state()).toEqual(digest.state());
    expect(restored.quantile(0.98)).toBe(digest.quantile(0.98));
    expect(new TDigest().quantile(0.5)).toBeNaN();
  });

  test('SPOT with evt_tdigest=true: t follows the running quantile; the injected anomalies are flagged', () => {
    const wrapper = new EvtWrapper({ evt_tdigest: 'true' });
    const results = heavy.map((x) => wrapper.update(x));
    const flagged = results.flatMap((r, i) => (r.evt_is_anomaly === '1' ? [i] : []));
    for (const i of INJECTED) expect(flagged).toContain(i);
    // Close to exact SPOT: the same threshold level, a similar number of flags.
    expect(flagged.length).toBeLessThanOrEqual(2 * fixture.cases[0].anomalies.length);
    const exactT = [...heavy.slice(0, 1000)].sort((a, b) => a - b)[980];
    const s = wrapper.state();
    expect(Math.abs(s.t - exactT) / exactT).toBeLessThan(0.1);
    const first = new EvtWrapper({ evt_tdigest: 'true' });
    for (const x of heavy.slice(0, 2000)) first.update(x);
    const restarted = EvtWrapper.restore(JSON.parse(JSON.stringify(first.state())));
    expect(heavy.slice(2000).map((x) => restarted.update(x))).toEqual(results.slice(2000));
    expect(restarted.state()).toEqual(s);
  });
});
