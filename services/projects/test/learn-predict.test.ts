import { smlError, SmlError } from '@sml/core';
import type { sml } from '@sml/proto';
import { learnPredict } from '../src/predict/learn-predict';
import type { Learning } from '../src/learning/learning';
import type { Models } from '../src/models/models';

// learnpredict's order and errors, with its collaborators replaced by recorders: what is learned
// and predicted end to end is in autoselect.e2e and models.e2e.
describe('learnpredict', () => {
  const frame: sml.v1.IDataFrame = { attributeNames: ['x'], attributeTypes: ['C'], data: [{ entries: ['1'] }, { entries: ['2'] }] };
  const setup = (predictError?: SmlError) => {
    const calls: string[] = [];
    const deps = {
      learning: { batch: async () => { calls.push('learn'); return {}; } } as unknown as Learning,
      models: {
        info: async () => ({ modelId: 'm', algo: 'mlr' }),
        checkPredictCost: async () => { calls.push('check'); },
      } as unknown as Models,
      predict: async () => {
        calls.push('predict');
        if (predictError) throw predictError;
        return [{ res: '1' }, { res: '2' }];
      },
    };
    return { calls, deps };
  };

  it('checks, then predicts and learns in the order asked', async () => {
    for (const [predictBeforeLearn, order] of [[true, ['check', 'predict', 'learn']], [false, ['check', 'learn', 'predict']]] as const) {
      const { calls, deps } = setup();
      expect(await learnPredict(deps, 'u', 'p', 'm', { frame, predictBeforeLearn })).toEqual([{ res: '1' }, { res: '2' }]);
      expect(calls).toEqual(order);
    }
  });

  it('a predict failing after the frame was learned says the frame was learned, not retryable, status and code kept', async () => {
    const { deps } = setup(smlError('MODEL_CHANGED', { model: 'm', pid: 'p' }));
    const err = await learnPredict(deps, 'u', 'p', 'm', { frame, predictBeforeLearn: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SmlError);
    expect(err).toMatchObject({ code: 'MODEL_CHANGED', status: 409, retryable: false });
    expect((err as SmlError).message).toBe('The frame was learned; then its predict failed: Model [m] of project [p] changed while this request used it (rebuilt, or written by another replica): send the request again. '
      + 'Predict it with predict/{m}: sending this learnpredict again learns it again (unless with the same Idempotency-Key)');
  });

  it('a rebuild failing after the learn says the frame was learned, in either order', async () => {
    for (const predictBeforeLearn of [true, false]) {
      const { calls, deps } = setup();
      (deps.models as unknown as { plan: () => Promise<unknown> }).plan = async () => ({ run: async () => { calls.push('rebuild'); throw smlError('SINGULAR_SYSTEM', { detail: 'x' }); } });
      const err = await learnPredict(deps, 'u', 'p', 'm', { frame, predictBeforeLearn, rebuildModel: true }).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'SINGULAR_SYSTEM', retryable: false });
      expect((err as SmlError).message).toMatch(/^The frame was learned; then the model's rebuild failed: .*\. Rebuild the model with build: sending this learnpredict again learns it again/);
      expect(calls).toEqual(predictBeforeLearn ? ['check', 'predict', 'learn', 'rebuild'] : ['check', 'learn', 'rebuild']);
    }
  });

  it('a predict failing before the learn is its own error: nothing was learned', async () => {
    const { calls, deps } = setup(smlError('MODEL_CHANGED', { model: 'm', pid: 'p' }));
    await expect(learnPredict(deps, 'u', 'p', 'm', { frame, predictBeforeLearn: true })).rejects.toMatchObject({ code: 'MODEL_CHANGED', retryable: true });
    expect(calls).toEqual(['check', 'predict']);
  });
});
