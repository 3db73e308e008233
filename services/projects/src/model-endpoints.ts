import { jobResult, okStatus, subjects, type BusService, type JobRunner } from '@sml/bus';
import { checkName, dataFrameFromProto, smlError } from '@sml/core';
import { sml } from '@sml/proto';
import { ALGORITHM_NAMES, ALGORITHMS, ModelInputError, SummaryError, assess, resolveAttributes, type PredictFrame } from '@sml/stats';
import type { ModelStore } from './models';
import type { ProjectRegistry } from './registry';

const SELECTORS = ['selector_type_none', 'selector_type_fw_bw', 'selector_type_simple', 'selector_type_brute', 'selector_type_iteration'];

function frameOf(df: sml.v1.IDataFrame | null | undefined): PredictFrame {
  const f = dataFrameFromProto(df ?? {});
  return { names: f.attributeNames, rows: f.data };
}

/** Model build, info, delete and predict (API.md §7); models belong to their project. */
export function registerModelEndpoints(deps: { service: BusService; registry: ProjectRegistry; runner: JobRunner; models: ModelStore }): void {
  const { service, registry, runner, models } = deps;
  const s = (op: string) => subjects.projects(op);

  service.endpoint(s('selectModel'), sml.v1.SelectModelRequest, sml.v1.ModelReply, async (req, { caller }) => {
    const user = caller.user!;
    const pid = checkName('project', req.pid);
    const modelId = checkName('model', req.modelid);
    const algo = req.algo ?? '';
    if (!(ALGORITHM_NAMES as readonly string[]).includes(algo)) throw smlError('UNKNOWN_ALGORITHM', { algo });
    const algorithm = ALGORITHMS[algo];
    if (!algorithm) throw smlError('ALGORITHM_NOT_AVAILABLE', { algo });
    const params = { ...(req.mlcontext?.extraParameters ?? {}) };
    const selector = params.selector_type ?? 'selector_type_none';
    if (!SELECTORS.includes(selector)) throw smlError('INVALID_PARAMETER', { name: 'selector_type', value: selector, reason: `expected one of ${SELECTORS.join(', ')}` });
    if (selector !== 'selector_type_none') throw smlError('SELECTOR_NOT_AVAILABLE', { selector });
    await registry.with(user, pid, () => undefined); // 400 now for an unknown project

    const jobId = await runner.submit(caller, req.buildOnly ? 'build' : 'selectModel', { p_id: pid, model_id: modelId }, async () => {
      const model = await registry.with(user, pid, (p) => {
        try {
          const ctx = req.mlcontext ?? {};
          const separator = p.meta.categorySeparator || '$';
          const inputs = resolveAttributes(p.summary, [...(ctx.inputAttributes ?? []), ...(ctx.inputAttributeNames ?? [])], separator);
          const targets = resolveAttributes(p.summary, [...(ctx.targets ?? []), ...(ctx.targetAttributeNames ?? [])], separator);
          return algorithm.build(p.summary, { algo, inputs, targets, params });
        } catch (err) {
          if (err instanceof ModelInputError) throw smlError('MODEL_INPUT', { detail: err.message }, err);
          if (err instanceof SummaryError) throw smlError('UNKNOWN_ATTRIBUTE', { name: err.attribute, pid }, err);
          throw err;
        }
      });
      const info: sml.v1.IModelInfo = {
        modelId,
        algo,
        inputAttributeNames: [...model.inputNames],
        targetAttributeNames: [...model.targetNames],
        info: model.info(),
        extra: model.extra(),
        assessment: req.buildOnly ? {} : assess(algorithm.task, model, frameOf(req.dataframe)),
        params,
        creationDate: Date.now(),
      };
      await models.put(user, pid, info, model);
      return jobResult(sml.v1.ModelReply, { status: okStatus(), modelInfo: info });
    });
    return { status: okStatus(req.buildOnly ? 'JOB_CREATED' : 'SELECT_MODEL_JOB_CREATED'), jobId };
  });

  service.endpoint(s('modelInfo'), sml.v1.ModelRequest, sml.v1.ModelReply, async (req, { caller }) => {
    const pid = checkName('project', req.pid);
    await registry.with(caller.user!, pid, () => undefined);
    return { modelInfo: await models.info(caller.user!, pid, checkName('model', req.modelid)) };
  });

  service.endpoint(s('modelDelete'), sml.v1.ModelRequest, sml.v1.Empty, async (req, { caller }) => {
    const pid = checkName('project', req.pid);
    const model = checkName('model', req.modelid);
    await registry.with(caller.user!, pid, () => undefined);
    await models.delete(caller.user!, pid, model);
    return { status: okStatus('MODEL_DELETED', { model }) };
  });

  service.endpoint(s('predict'), sml.v1.PredictRequest, sml.v1.PredictReply, async (req, { caller }) => {
    const pid = checkName('project', req.pid);
    await registry.with(caller.user!, pid, () => undefined);
    const model = await models.model(caller.user!, pid, checkName('model', req.modelid));
    const predictions = model.predict(frameOf(req.frame));
    return { KSVSMap: { values: predictions.map((entries) => ({ entries })) } };
  });
}
