import type { sml } from '@sml/proto';
import type { ProjectState } from './project';

/** smlInfo (API.md §4) of a project; `hash` = -1 unless asked for (hash=1). */
export function smlInfo(p: ProjectState, opts: { hash: boolean; wasLoaded: boolean; models: sml.v1.IModelInfo[] }): sml.v1.ISmlInfo {
  const names = p.summary.attributeNames;
  const m = p.meta;
  return {
    pid: m.pid,
    isDirty: p.isDirty,
    modelsList: opts.models.map((m) => m.modelId!),
    modelTypeList: opts.models.map((m) => m.algo!),
    attributeNames: names,
    attributeIndexes: names.map((_, i) => i),
    attributeTypes: p.summary.attributeTypes,
    modelAssessments: Object.fromEntries(opts.models.map((m) => [m.modelId!, { scores: m.assessment ?? {} }])),
    modelPredictions: {},
    params: { ...m.params, sml_project_is_freeze: String(m.frozen) },
    autoSave: !p.memoryOnly,
    hash: opts.hash ? p.summary.hash() : -1,
    categorySeparator: m.categorySeparator || '$',
    type: m.type,
    creationDate: Number(m.creationDate),
    lastModificationDate: Number(m.lastModificationDate),
    loaded: opts.wasLoaded,
    persisted: p.persisted,
    histogramEnabled: m.histogramEnabled,
    dsList: m.dsList,
  };
}
