/** Subjects of the bus (ARCHITECTURE.md §2): `sml.<service>.<operation>`. */
export const subjects = {
  jobs: {
    create: 'sml.jobs.create',
    get: 'sml.jobs.get',
    list: 'sml.jobs.list',
    cancel: 'sml.jobs.cancel',
  },
  users: {
    add: 'sml.users.add',
    list: 'sml.users.list',
    rotate: 'sml.users.rotate',
    delete: 'sml.users.delete',
  },
  /** Job events, captured by the JetStream stream SML_JOB_EVENTS. */
  jobEvent: (jobId: number | string) => `sml.events.job.${jobId}`,
  jobEvents: 'sml.events.job.>',
  /** Cancellation notices for the jobs a service runs (every replica listens). */
  jobCancel: (service: string) => `sml.jobcancel.${service}`,
  /** Project-scoped operations carry a partition token (P = 1 until sharding lands). */
  projects: (op: string, partition = 0) => `sml.projects.${partition}.${op}`,
} as const;

export const JOB_EVENTS_STREAM = 'SML_JOB_EVENTS';
export const JOB_IDS_STREAM = 'SML_JOB_IDS';
