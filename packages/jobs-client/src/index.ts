/**
 * @sml/jobs-client — how a service runs long operations as jobs (ARCHITECTURE.md §4): the
 * bounded, fair executor of one process and the runner that creates the job, queues it and
 * publishes its events. The transport (@sml/bus) knows nothing of jobs.
 */
export * from './executor';
export * from './runner';
export * from './workers';
