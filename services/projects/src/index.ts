export { startProjects } from './projects';
export { projectMetaFromCreate, PROJECT_TYPES } from './lifecycle/create';
export { ProjectState, summaryOptions } from './lifecycle/project';
export type * from './ports';
