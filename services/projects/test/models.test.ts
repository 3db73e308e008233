/**
 * The models module's request checks, without NATS: algorithm names, feature selection
 * options (STATS.md §4) and the parameters of sequence models. Building, selecting and
 * predicting run against nats-server in models.e2e.test.ts; the algorithms in packages/stats.
 */
import { SmlError } from '@sml/core';
import { ALGORITHM_NAMES, ALGORITHMS } from '@sml/stats';
import { algorithmOf, integerParam, jobModelInfo, MAX_JOB_EXTRA_BYTES, selectionOptions, sequenceParams, taskOf } from '../src/models/models';

function failure(fn: () => unknown): { code: string; message: string } | undefined {
  try {
    fn();
  } catch (err) {
    if (err instanceof SmlError) return { code: err.code, message: err.message };
    throw err;
  }
  return undefined;
}

describe('algorithm', () => {
  it('a built algorithm by name', () => {
    expect(algorithmOf('mlr')).toBe(ALGORITHMS.mlr);
  });

  it('a name API.md does not know is UNKNOWN_ALGORITHM; a known one not built yet is ALGORITHM_NOT_AVAILABLE', () => {
    expect(failure(() => algorithmOf('gbm'))?.code).toBe('UNKNOWN_ALGORITHM');
    // The names API.md lists that this build does not implement yet (none once issue 13 is done).
    for (const algo of ALGORITHM_NAMES.filter((name) => !(name in ALGORITHMS))) expect(failure(() => algorithmOf(algo))?.code).toBe('ALGORITHM_NOT_AVAILABLE');
    expect(algorithmOf('powerreg')).toBe(ALGORITHMS.powerreg);
    for (const algo of ['rf_classifier', 'rf_regressor', 'rf_anomaly']) expect(algorithmOf(algo)).toBe(ALGORITHMS[algo]);
    // Issue 13's acceptance: the registry has no 'not available' entry left.
    expect(ALGORITHM_NAMES.filter((name) => !(name in ALGORITHMS))).toEqual([]);
    expect(failure(() => algorithmOf(''))?.code).toBe('UNKNOWN_ALGORITHM');
  });
});

describe('selection options', () => {
  it('no selector means selector_type_none; the rest is read as given', () => {
    expect(selectionOptions({})).toEqual({ selector: 'selector_type_none', criterion: undefined, iterations: undefined, seed: undefined });
    expect(selectionOptions({ selector_type: ' selector_type_fw_bw ', sml_model_assessment_type: 'rmse', selector_iterations: ' 50 ', selector_seed: '-7' }))
      .toEqual({ selector: 'selector_type_fw_bw', criterion: 'rmse', iterations: 50, seed: -7 });
  });

  it('an unknown selector is a 400 naming selector_type and the choices', () => {
    const f = failure(() => selectionOptions({ selector_type: 'genetic' }));
    expect(f?.code).toBe('INVALID_PARAMETER');
    expect(f?.message).toContain('selector_type');
    expect(f?.message).toContain('selector_type_brute');
  });

  it('selector_iterations is an integer ≥ 1, selector_seed an integer', () => {
    const bad: Record<string, string>[] = [{ selector_iterations: '0' }, { selector_iterations: '2.5' }, { selector_iterations: 'many' }, { selector_seed: '1e400' }, { selector_seed: '0.5' }];
    for (const params of bad) {
      expect(failure(() => selectionOptions(params))?.code).toBe('INVALID_PARAMETER');
    }
  });

  it('an absent or blank integer parameter is undefined; one past 2^53 is refused', () => {
    expect(integerParam({}, 'n')).toBeUndefined();
    expect(integerParam({ n: '  ' }, 'n', 1)).toBeUndefined();
    expect(failure(() => integerParam({ n: '9007199254740992' }, 'n'))?.code).toBe('INVALID_PARAMETER');
  });
});

describe('sequence model parameters', () => {
  it('mc reads its variable from the input; hmm its observed input and hidden target', () => {
    expect(sequenceParams('mc', { inputAttributeNames: ['weather'], targetAttributeNames: ['x'] })).toEqual({ variable: 'weather' });
    expect(sequenceParams('hmm', { inputAttributeNames: ['obs'], targetAttributeNames: ['state'] })).toEqual({ observed: 'obs', hidden: 'state' });
    expect(sequenceParams('hmm', {})).toEqual({});
  });
});

describe('a build job\'s modelInfo', () => {
  it('carries the extra tables up to MAX_JOB_EXTRA_BYTES, else says where they are', () => {
    const small = { modelId: 'm', algo: 'covest', extra: { covariance: '[[1]]' } };
    expect(jobModelInfo(small)).toBe(small);
    const wide = { modelId: 'w', algo: 'covest', info: { n: '3' }, extra: { covariance: 'x'.repeat(MAX_JOB_EXTRA_BYTES) } };
    const answered = jobModelInfo(wide);
    expect(answered).toEqual({ modelId: 'w', algo: 'covest', info: { n: '3' }, extra: { extraOmitted: expect.stringMatching(/^modelInfo\.extra is 10485\d\d bytes, more than a job result carries \(1048576\): GET models\/w answers it whole$/) } });
  });
});

describe('a model job\'s build-worker task', () => {
  const base = { bytes: new Uint8Array([1, 2]), pid: 'p', spec: { algo: 'mlr', inputs: [0], targets: [1], params: {} } };
  const frame = { names: ['a', 'b'], rows: [['1', '2']] };

  it('a build reads no frame; a selection carries its frame and budget; an autoSelect its search too', () => {
    let read = 0;
    const scoring = () => {
      read++;
      return frame;
    };
    expect(taskOf({ kind: 'build', algo: 'mlr' }, base, scoring, 5)).toEqual({ ...base, kind: 'build', algo: 'mlr' });
    expect(read).toBe(0);
    const selection = selectionOptions({ selector_type: 'selector_type_fw_bw' });
    expect(taskOf({ kind: 'select', algo: 'mlr', selection }, base, scoring, 5))
      .toEqual({ ...base, kind: 'select', algo: 'mlr', selection: { options: selection, frame, budgetMs: 5 } });
    const search = { task: 'regression', maxCandidates: 10 };
    expect(taskOf({ kind: 'autoSelect', selection, search }, base, scoring, 7))
      .toEqual({ ...base, kind: 'autoSelect', selection: { options: selection, frame, budgetMs: 7 }, search });
    expect(read).toBe(2);
  });
});
