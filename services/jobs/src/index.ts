export { startJobs } from './jobs';
export { JobStore, MAX_WAITING_GETS, MAX_WAITING_GETS_PER_CUSTOMER } from './store';
