export { startJobs } from './jobs';
export { JobStore } from './store';
