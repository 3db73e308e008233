/**
 * `km` as a model (STATS.md §4, §6). Reference: R `survival` (fixtures/gen_km_model.R):
 * survfit's survival and Nelson-Aalen cumulative hazard at the event times per group and
 * pooled, and summary(fit, times) at requested times, on the rows of the Kaplan-Meier
 * fixture (tied times, censoring, two event types, missing cells, mixed-case groups).
 * Closed forms: 1e-9 relative.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type DataFrame, ModelInputError, Summary } from '@sml/stats';
import { km, survivalModels, TOTAL_GROUP } from '../../src/survival';
import { close } from '../models/classifiers/conformance';

interface Curve {
  time: number[];
  survival: number[];
  hazard: number[];
  at: { time: number[]; survival: number[]; hazard: number[] };
}
const fixture: { frame: DataFrame; groups: Record<string, Curve>; Total: Curve } = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'km_model_r.json'), 'utf8'));
const summary = new Summary({ km_time_column: 'time', km_event_column: 'event', km_group_column: 'arm' });
summary.learn(fixture.frame);
const model = km.build(summary, { algo: 'km', inputs: [], targets: [], params: {} });
const curves: [string, Curve][] = [...Object.entries(fixture.groups), [TOTAL_GROUP, fixture.Total]];

/** "t:v,t:v" → [[t, v], …] */
const parseSteps = (text: string) => text.split(',').map((pair) => pair.split(':').map(Number));

describe.each(curves)('km curve of %s equals R survfit', (group, curve) => {
  test('modelInfo.extra survival_<g> and hazard_<g>: "time:value" pairs at the event times', () => {
    for (const [key, values] of [[`survival_${group}`, curve.survival], [`hazard_${group}`, curve.hazard]] as const) {
      const steps = parseSteps(model.extra()[key]);
      expect(steps.map(([t]) => t)).toEqual(curve.time);
      steps.forEach(([, v], i) => close(v, values[i], 1e-9, 1e-12, `${key} at ${curve.time[i]}`));
    }
  });

  test('predict: survival and hazard at the row\'s time (steps carried, S = 1 and H = 0 before the first event)', () => {
    const rows = curve.at.time.map((t) => [String(t), group === TOTAL_GROUP ? '' : ` ${group.toUpperCase()}`]);
    const predictions = model.predict({ names: ['time', 'arm'], rows });
    predictions.forEach((p, i) => {
      expect(Object.keys(p).sort()).toEqual(['hazard', 'survival']);
      close(Number(p.survival), curve.at.survival[i], 1e-9, 1e-12, `survival at ${curve.at.time[i]}`);
      close(Number(p.hazard), curve.at.hazard[i], 1e-9, 1e-12, `hazard at ${curve.at.time[i]}`);
    });
  });
});

describe('km: the model', () => {
  test('info, names, and the extra keys', () => {
    expect([model.inputNames, model.targetNames]).toEqual([['time', 'event', 'arm'], []]);
    expect(model.info().groups).toBe('2');
    expect(model.info().event_times).toBe(String(fixture.Total.time.length));
    expect(Object.keys(model.extra()).sort()).toEqual(['hazard_Total', 'hazard_control', 'hazard_treated', 'survival_Total', 'survival_control', 'survival_treated']);
  });

  test('rows without a usable time, or of an unknown group, predict an empty map; a frame without the group column uses Total', () => {
    const p = model.predict({ names: ['time', 'arm'], rows: [['', 'control'], ['-1', 'control'], ['x', 'control'], ['5', 'placebo'], ['5', 'NA']] });
    expect(p.slice(0, 4)).toEqual([{}, {}, {}, {}]);
    expect(p[4]).toEqual(model.predict({ names: ['time'], rows: [['5']] })[0]);
    expect(model.predict({ names: ['age'], rows: [['40'], ['50']] })).toEqual([{}, {}]);
  });

  test('a project without a group column has only the Total curve', () => {
    const s = new Summary({ km_time_column: 't', km_event_column: 'e' });
    s.learn({ attributeNames: ['t', 'e'], attributeTypes: ['C', 'C'], data: [['1', '1'], ['2', '0'], ['3', '1'], ['3', '1']] });
    const m = km.build(s, { algo: 'km', inputs: [], targets: [], params: {} });
    // n = 4, 3, 2 at t = 1, 2, 3: S = 3/4, then 3/4 · (1 − 2/2) = 0; H = 1/4, 1/4 + 2/2.
    expect(m.extra()).toEqual({ survival_Total: '1:0.75,3:0', hazard_Total: '1:0.25,3:1.25' });
    expect(m.predict({ names: ['t'], rows: [['0.5'], ['2'], ['3']] })).toEqual([{ survival: '1', hazard: '0' }, { survival: '0.75', hazard: '0.25' }, { survival: '0', hazard: '1.25' }]);
  });

  test('the state survives a JSON round trip', () => {
    const restored = km.restore(JSON.parse(JSON.stringify(model.state())));
    const frame = { names: ['time', 'arm'], rows: fixture.Total.at.time.map((t, i) => [String(t), ['control', 'treated', ''][i % 3]]) };
    expect(restored.predict(frame)).toEqual(model.predict(frame));
    expect([restored.info(), restored.extra(), restored.inputNames, restored.targetNames]).toEqual([model.info(), model.extra(), model.inputNames, model.targetNames]);
  });

  test('refuses a project without survival counts', () => {
    const plain = new Summary();
    expect(() => km.build(plain, { algo: 'km', inputs: [], targets: [], params: {} })).toThrow(ModelInputError);
    expect(() => km.build(plain, { algo: 'km', inputs: [], targets: [], params: {} })).toThrow('km needs a survival project (created with km_time_column and km_event_column)');
    expect(survivalModels).toEqual({ km });
  });
});
