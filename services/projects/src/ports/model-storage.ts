import type { sml } from '@sml/proto';
import type { EvtWrapper, Model, Prediction } from '@sml/stats';

/**
 * Built models (ModelStore over KV `sml_models`; in memory in @sml/testkit): per model its
 * modelInfo, the algorithm's state and an optional EVT wrapper. What is read back is restored
 * from the stored state: changing a returned model changes nothing stored (saveState does).
 */
export interface ModelStorage {
  put(user: string, pid: string, info: sml.v1.IModelInfo, model: Model): Promise<void>;
  /** MODEL_NOT_FOUND when the project has no such model. */
  info(user: string, pid: string, model: string): Promise<sml.v1.IModelInfo>;
  model(user: string, pid: string, model: string): Promise<Model>;
  /** The model, its record's key and the revision it was restored from (what a predict thread caches it by). */
  modelAt(user: string, pid: string, model: string): Promise<{ model: Model; key: string; revision: number }>;
  /** Every model of a project, oldest first. */
  list(user: string, pid: string): Promise<sml.v1.IModelInfo[]>;
  /** Stores a stateful model's state after it changed; MODEL_CHANGED (nothing written) when the record changed since it was read. */
  saveState(user: string, pid: string, model: string, built: Model): Promise<void>;
  /** Attaches (or with null removes) the EVT wrapper of a model; `key` names the prediction it reads. */
  setEvt(user: string, pid: string, model: string, key: string, wrapper: EvtWrapper | null): Promise<void>;
  hasEvt(user: string, pid: string, model: string): Promise<boolean>;
  /** Runs the model's EVT wrapper (if any) over its predictions, adding its keys to each, and stores the wrapper's new state. */
  applyEvt(user: string, pid: string, model: string, predictions: Prediction[]): Promise<void>;
  delete(user: string, pid: string, model: string): Promise<void>;
  deleteAll(user: string, pid: string): Promise<void>;
  /** Every stored record of a project, its state inline, oldest first: what an export carries. */
  records(user: string, pid: string): Promise<sml.v1.ModelRecord[]>;
  /** Stores a record as is (import, rename). */
  putRecord(user: string, pid: string, record: sml.v1.IModelRecord): Promise<void>;
  /** Deletes stored state no record names, older than `graceMs`; the names deleted. */
  sweepOrphans(graceMs: number, now?: number): Promise<string[]>;
}
