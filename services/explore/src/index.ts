export { startExplore } from './explore';
export { resolveContext } from './resolve';
