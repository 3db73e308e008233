import { checkParameters, smlError, SmlError, toSmlError, type ParameterBound } from '@sml/core';
import { EvtWrapper } from '@sml/stats';
import type { ModelStore } from './model-store';
import type { ProjectRegistry } from './registry';

/**
 * EVT wrappers (API.md §7): attached to a model, synchronous, no job. Afterwards predict
 * adds evt_is_anomaly, evt_threshold and evt_anomaly_confidence computed from the prediction
 * named by `sml_evt_wrapper_res_key` (default `res`).
 */
export class EvtWrappers {
  constructor(private readonly deps: { registry: ProjectRegistry; store: ModelStore; bounds: Readonly<Record<string, ParameterBound>> }) {}

  /** Attaches (or replaces) the wrapper of `model`, built from the request's parameters. */
  async create(user: string, pid: string, model: string, body: Record<string, string>): Promise<void> {
    const { registry, store, bounds } = this.deps;
    await this.project(user, pid);
    const params = { ...body };
    checkParameters(params, bounds);
    try {
      await store.info(user, pid, model);
    } catch (err) {
      // The seed's 500 for an unknown model; any other failure is not "not found".
      if (err instanceof SmlError && err.code === 'MODEL_NOT_FOUND') throw smlError('GENERIC_EXCEPTION', { detail: `Cannot find model [${model}] in project [${pid}]` });
      throw err;
    }
    let wrapper: EvtWrapper;
    try {
      wrapper = new EvtWrapper(params);
    } catch (err) {
      throw toSmlError(err);
    }
    await registry.with(user, pid, () => store.setEvt(user, pid, model, params.sml_evt_wrapper_res_key || 'res', wrapper));
  }

  async delete(user: string, pid: string, model: string): Promise<void> {
    const { registry, store } = this.deps;
    await this.project(user, pid);
    if (!(await store.hasEvt(user, pid, model))) throw smlError('EVT_NOT_FOUND', { model });
    await registry.with(user, pid, () => store.setEvt(user, pid, model, '', null));
  }

  /** Loads the project; an unknown one answers in the seed's own wording for these endpoints. */
  private async project(user: string, pid: string): Promise<void> {
    try {
      await this.deps.registry.with(user, pid, () => undefined);
    } catch (err) {
      if (err instanceof SmlError && err.code === 'PROJECT_NOT_FOUND') throw smlError('EVT_PROJECT_NOT_FOUND', { pid, user });
      throw err;
    }
  }
}
