import { okStatus, subjects, type BusService } from '@sml/bus';
import { checkName, checkParameters, smlError, SmlError, type ParameterBound } from '@sml/core';
import { sml } from '@sml/proto';
import { EvtWrapper, ModelInputError } from '@sml/stats';
import type { ModelStore } from './models';
import type { ProjectRegistry } from './registry';

/**
 * EVT wrappers (API.md §7): synchronous, no job. Afterwards predict adds evt_is_anomaly,
 * evt_threshold and evt_anomaly_confidence computed from `sml_evt_wrapper_res_key`.
 */
export function registerEvtEndpoints(deps: { service: BusService; registry: ProjectRegistry; models: ModelStore; bounds: Readonly<Record<string, ParameterBound>> }): void {
  const { service, registry, models, bounds } = deps;
  const s = (op: string) => subjects.projects(op);

  const project = async (user: string, pid: string) => {
    try {
      await registry.with(user, pid, () => undefined);
    } catch (err) {
      // The seed's own wording for this endpoint.
      if (err instanceof SmlError && err.code === 'PROJECT_NOT_FOUND') throw smlError('EVT_PROJECT_NOT_FOUND', { pid, user });
      throw err;
    }
  };

  service.endpoint(s('evtWrapper'), sml.v1.EvtWrapperRequest, sml.v1.Empty, async (req, { caller }) => {
    const user = caller.user!;
    const pid = checkName('project', req.pid);
    const model = checkName('model', req.modelid);
    await project(user, pid);
    const params = { ...(req.params ?? {}) };
    checkParameters(params, bounds);
    try {
      await models.info(user, pid, model);
    } catch (err) {
      // The seed's 500 for an unknown model; any other failure is not "not found".
      if (err instanceof SmlError && err.code === 'MODEL_NOT_FOUND') throw smlError('GENERIC_EXCEPTION', { detail: `Cannot find model [${model}] in project [${pid}]` });
      throw err;
    }
    let wrapper: EvtWrapper;
    try {
      wrapper = new EvtWrapper(params);
    } catch (err) {
      if (err instanceof ModelInputError) throw smlError('MODEL_INPUT', { detail: err.message }, err);
      throw err;
    }
    await registry.with(user, pid, () => models.setEvt(user, pid, model, params.sml_evt_wrapper_res_key || 'res', wrapper));
    return { status: okStatus('EVT_CREATED', { model }) };
  });

  service.endpoint(s('evtDelete'), sml.v1.ModelRequest, sml.v1.Empty, async (req, { caller }) => {
    const user = caller.user!;
    const pid = checkName('project', req.pid);
    const model = checkName('model', req.modelid);
    await project(user, pid);
    if (!(await models.hasEvt(user, pid, model))) throw smlError('EVT_NOT_FOUND', { model });
    await registry.with(user, pid, () => models.setEvt(user, pid, model, '', null));
    return { status: okStatus('EVT_DELETED', { model }) };
  });
}
