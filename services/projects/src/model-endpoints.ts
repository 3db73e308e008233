import { jobResult, okStatus, subjects, type BusService, type JobRunner } from '@sml/bus';
import { checkName, checkParameters, dataFrameFromProto, smlError, type ParameterBound } from '@sml/core';
import { sml } from '@sml/proto';
import {
  ALGORITHM_NAMES, ALGORITHMS, ModelInputError, SingularSystemError, SELECTOR_TYPES, SummaryError, checkSelection, resolveAttributes, selectFeatures,
  type PredictFrame, type SelectionOptions, type SelectorType,
} from '@sml/stats';
import type { ModelStore } from './models';
import type { ProjectRegistry } from './registry';

/** mc: `variable` = the input's name; hmm: `observed` = the input's, `hidden` = the target's. */
function sequenceParams(algo: string, ctx: sml.v1.IMLContext): Record<string, string> {
  const input = ctx.inputAttributeNames?.[0];
  const target = ctx.targetAttributeNames?.[0];
  if (algo === 'mc') return input ? { variable: input } : {};
  return { ...(input ? { observed: input } : {}), ...(target ? { hidden: target } : {}) };
}

function frameOf(df: sml.v1.IDataFrame | null | undefined): PredictFrame {
  const f = dataFrameFromProto(df ?? {});
  return { names: f.attributeNames, rows: f.data };
}

/** An integer extraParameter, or undefined when absent; INVALID_PARAMETER when it is not an integer (≥ `min`). */
function integerParam(params: Record<string, string>, name: string, min?: number): number | undefined {
  const text = params[name]?.trim();
  if (text === undefined || text === '') return undefined;
  const v = Number(text);
  if (!Number.isSafeInteger(v) || (min !== undefined && v < min)) {
    throw smlError('INVALID_PARAMETER', { name, value: params[name], reason: min === undefined ? 'expected an integer' : `expected an integer ≥ ${min}` });
  }
  return v;
}

/**
 * selectModel's feature selection from the MLContext's extraParameters (STATS.md §4):
 * `selector_type`, `sml_model_assessment_type`, `selector_iterations` and `selector_seed`.
 */
function selectionOptions(params: Record<string, string>): SelectionOptions {
  const selector = params.selector_type?.trim() || 'selector_type_none';
  if (!(SELECTOR_TYPES as readonly string[]).includes(selector)) {
    throw smlError('INVALID_PARAMETER', { name: 'selector_type', value: selector, reason: `expected one of ${SELECTOR_TYPES.join(', ')}` });
  }
  return {
    selector: selector as SelectorType,
    criterion: params.sml_model_assessment_type,
    iterations: integerParam(params, 'selector_iterations', 1),
    seed: integerParam(params, 'selector_seed'),
  };
}

/** Model build, info, delete and predict (API.md §7); models belong to their project. */
export function registerModelEndpoints(deps: {
  service: BusService; registry: ProjectRegistry; runner: JobRunner; models: ModelStore;
  bounds: Readonly<Record<string, ParameterBound>>;
  /** Wall-clock budget of one feature selection (SML_SELECTION_TIME_BUDGET_MS). */
  selectionBudgetMs: number;
}): void {
  const { service, registry, runner, models, bounds, selectionBudgetMs } = deps;
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
    checkParameters(params, bounds);
    // build takes the given inputs and scores nothing; selectModel selects and assesses.
    const selection = req.buildOnly ? undefined : selectionOptions(params);
    if (selection) {
      try {
        checkSelection(algorithm, selection);
      } catch (err) {
        if (err instanceof ModelInputError) throw smlError('MODEL_INPUT', { detail: err.message }, err);
        throw err;
      }
    }
    await registry.with(user, pid, () => undefined); // 400 now for an unknown project

    const jobId = await runner.submit(caller, req.buildOnly ? 'build' : 'selectModel', { p_id: pid, model_id: modelId }, async ({ signal }) => {
      const deadline = Date.now() + selectionBudgetMs;
      // Between candidates: let other requests run, stop when cancelled or over budget.
      const checkpoint = async (tried: number) => {
        await new Promise((resolve) => setImmediate(resolve));
        if (signal.aborted) throw smlError('JOB_CANCELLED');
        if (Date.now() > deadline) throw smlError('SELECTION_BUDGET', { tried, budgetMs: selectionBudgetMs });
      };
      // Under the project's lock: every candidate subset is built from the same summary.
      const { model, assessment, tried, criterion } = await registry.with(user, pid, async (p) => {
        try {
          const ctx = req.mlcontext ?? {};
          const separator = p.meta.categorySeparator || '$';
          const inputRefs = [...(ctx.inputAttributes ?? []), ...(ctx.inputAttributeNames ?? [])];
          const targetRefs = [...(ctx.targets ?? []), ...(ctx.targetAttributeNames ?? [])];
          // Sequence models name sequence variables, which are not summary attributes.
          const sequence = algo === 'mc' || algo === 'hmm';
          const spec = sequence
            ? { algo, inputs: [], targets: [], params: { ...sequenceParams(algo, ctx), ...params } }
            : { algo, inputs: resolveAttributes(p.summary, inputRefs, separator), targets: resolveAttributes(p.summary, targetRefs, separator), params };
          if (!selection) return { model: algorithm.build(p.summary, spec), assessment: {}, tried: 1, criterion: undefined };
          return await selectFeatures(algorithm, p.summary, spec, frameOf(req.dataframe), { ...selection, checkpoint });
        } catch (err) {
          if (err instanceof SingularSystemError) throw smlError('SINGULAR_SYSTEM', { detail: err.message }, err);
          if (err instanceof ModelInputError) throw smlError('MODEL_INPUT', { detail: err.message }, err);
          if (err instanceof SummaryError) throw smlError('UNKNOWN_ATTRIBUTE', { name: err.attribute, pid }, err);
          throw err;
        }
      });
      const selected: Record<string, string> = selection
        ? { selector_type: selection.selector, selector_tried: String(tried), ...(criterion ? { sml_model_assessment_type: criterion } : {}) }
        : {};
      const info: sml.v1.IModelInfo = {
        modelId,
        algo,
        inputAttributeNames: [...model.inputNames],
        targetAttributeNames: [...model.targetNames],
        info: { ...model.info(), ...selected },
        extra: model.extra(),
        assessment,
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
    const user = caller.user!;
    const pid = checkName('project', req.pid);
    const modelId = checkName('model', req.modelid);
    // Under the project lock: stateful models and EVT wrappers must see predictions in order.
    const predictions = await registry.with(user, pid, async () => {
      const model = await models.model(user, pid, modelId);
      let out;
      try {
        out = model.predict(frameOf(req.frame));
      } catch (err) {
        if (err instanceof ModelInputError) throw smlError('MODEL_INPUT', { detail: err.message }, err);
        throw err;
      }
      if (model.stateful) await models.saveState(user, pid, modelId, model);
      await models.applyEvt(user, pid, modelId, out);
      return out;
    });
    return { KSVSMap: { values: predictions.map((entries) => ({ entries })) } };
  });
}
