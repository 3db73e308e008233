export { startProjects } from './projects';
export { projectMetaFromCreate, PROJECT_TYPES } from './create';
export { ProjectState, summaryOptions } from './project';
export type * from './ports';
