import { randomUUID } from 'node:crypto';
import type { NatsConnection, Subscription } from 'nats';
import { SmlError, configSchema, smlError, type Logger } from '@sml/core';
import { sml } from '@sml/proto';
import { errorStatus, okStatus, subjects, unwrap, type BusClient, type MessageType } from '@sml/bus';
import type { BoundedExecutor, ExecutorTask } from './executor';

/** What a job's work function sees. */
export interface JobContext {
  jobId: number;
  signal: AbortSignal;
  log: Logger;
  /** Reports progress; throttled, so call it as often as convenient. */
  progress(current: number, maximum: number): void;
}

/** A finished job's reply message, carried to the jobs service opaquely. */
export function jobResult<T>(type: MessageType<T> & { getTypeUrl(prefix?: string): string }, message: T): sml.v1.IJobResult {
  return { typeName: type.getTypeUrl('').replace(/^\//, ''), payload: type.encode(message).finish() };
}

const PROGRESS_INTERVAL_MS = 250;

/**
 * Room a job's record keeps besides its result: the record (result, info, details) is one
 * JetStream KV value and its FINISHED event one message, both under the server's max_payload.
 */
const RECORD_HEADROOM = 64 * 1024;

/** A job that finishes (successfully) within this long after it starts publishes no STARTED event (JobRunner). */
export const STARTED_AFTER_MS = 100;
/** SML_JOB_HEARTBEAT_MS's default, for a runner its service gave no heartbeat. */
const DEFAULT_HEARTBEAT_MS = configSchema.shape.SML_JOB_HEARTBEAT_MS.parse(undefined);

export interface JobRunnerOptions {
  /** How often each queued or running job's lease is renewed: the service's SML_JOB_HEARTBEAT_MS (default: that variable's default). */
  heartbeatMs?: number;
  /** STARTED goes out once a job has run this long (default STARTED_AFTER_MS), or at its first progress or failure. */
  startedAfterMs?: number;
}

/** A job this process holds: it renews the job's lease until the job's last event is out. */
interface HeldJob {
  emit: (event: sml.v1.IJobEvent) => Promise<unknown>;
  /** When the job's latest event was handed to JetStream (a heartbeat is due HEARTBEAT_MS later). */
  lastEmit: number;
  /** Events handed over and not yet acknowledged: while one is, a heartbeat would only queue behind it. */
  inFlight: number;
}

/**
 * Runs long operations as jobs (ARCHITECTURE.md §4): asks `jobs` for an id, queues the work
 * on the service's bounded executor and publishes started/progress/finished/failed events to
 * JetStream, in order (one chain per job); the last one (finished or failed) is awaited, so
 * that a finished job's result is durable before the runner forgets it.
 *
 * STARTED is published once the job has run for `startedAfterMs` (100 ms), or before its
 * first progress or its failure, whichever comes first, and the work never waits for it: a
 * job done sooner (a small model build, a project info) publishes FINISHED alone, which the
 * jobs service folds as started and finished. That spares such a job an event, its fold and
 * its record write (one JetStream round trip of each side, on the path of every short job),
 * at the price of a record reading "queued" for at most `startedAfterMs` of running.
 * Cancellation notices arrive on `sml.jobcancel.<service>`.
 *
 * Lease: from its creation until its last event, each job is held by this runner (this
 * process, `instance`), which renews the job's lease every `heartbeatMs` with a HEARTBEAT
 * event unless another event of the job went out meanwhile. The jobs service fails a job whose
 * lease expires (its process died), so no job stays "running" for ever.
 */
export class JobRunner {
  /** This process's identity as the holder of its jobs' leases. */
  readonly instance = randomUUID();
  private cancelSub?: Subscription;
  private readonly held = new Map<number, HeldJob>();
  private heartbeat?: NodeJS.Timeout;
  private readonly heartbeatMs: number;
  private readonly startedAfterMs: number;
  /**
   * Admissions run one at a time: between the capacity check and the executor taking the
   * task, a concurrent submit could take the last place, and the job id created meanwhile
   * would be refused by the executor and left "queued" for ever.
   */
  private admission: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly nc: NatsConnection,
    private readonly bus: BusClient,
    private readonly executor: BoundedExecutor,
    private readonly service: string,
    private readonly log: Logger,
    opts: JobRunnerOptions = {},
  ) {
    this.heartbeatMs = opts.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
    this.startedAfterMs = opts.startedAfterMs ?? STARTED_AFTER_MS;
  }

  start(): void {
    this.heartbeat = setInterval(() => this.renewLeases(), this.heartbeatMs);
    this.heartbeat.unref();
    this.cancelSub = this.nc.subscribe(subjects.jobCancel(this.service), {
      callback: (_err, msg) => {
        const id = new TextDecoder().decode(msg.data);
        if (this.executor.cancel(id)) this.log.info({ jobId: id }, 'job cancelled');
      },
    });
  }

  stop(): void {
    clearInterval(this.heartbeat);
    this.cancelSub?.unsubscribe();
  }

  /** One HEARTBEAT per held job that sent nothing for a heartbeat period and has nothing on its way. */
  private renewLeases(): void {
    const due = Date.now() - this.heartbeatMs;
    for (const job of this.held.values()) {
      if (job.inFlight === 0 && job.lastEmit <= due) void job.emit({ kind: sml.v1.JobEventKind.HEARTBEAT });
    }
  }

  /**
   * Creates the job and queues it; resolves to the job id as soon as it is queued. A full
   * executor refuses it (503 EXECUTOR_FULL) before any job id is created.
   */
  submit(
    caller: sml.v1.ICaller,
    jobType: string,
    details: Record<string, string>,
    work: (ctx: JobContext) => Promise<sml.v1.IJobResult>,
  ): Promise<number> {
    const admitted = this.admission.then(() => this.admit(caller, jobType, details, work));
    this.admission = admitted.catch(() => undefined);
    return admitted;
  }

  private async admit(
    caller: sml.v1.ICaller,
    jobType: string,
    details: Record<string, string>,
    work: (ctx: JobContext) => Promise<sml.v1.IJobResult>,
  ): Promise<number> {
    if (!this.executor.canAccept(caller.user ?? '')) throw smlError('EXECUTOR_FULL', { service: this.service, queueSize: this.executor.queueSize });
    const created = unwrap(await this.bus.request('jobs', subjects.jobs.create, sml.v1.JobCreateRequest, {
      caller, jobType, details, isOnBoundedExecutor: true, cancelSubject: subjects.jobCancel(this.service),
      runner: this.service, runnerInstance: this.instance,
    }, sml.v1.JobCreateReply));
    const jobId = Number(created.jobId);
    const user = caller.user ?? '';
    const log = this.log.child({ jobId, jobType, requestId: caller.requestId });
    let chain: Promise<unknown> = Promise.resolve();
    const job: HeldJob = {
      lastEmit: Date.now(),
      inFlight: 0,
      emit: (event) => {
        const data = sml.v1.JobEvent.encode({ jobId, user, time: Date.now(), ...event }).finish();
        const heartbeat = event.kind === sml.v1.JobEventKind.HEARTBEAT;
        job.lastEmit = Date.now();
        job.inFlight++;
        chain = chain.then(() => this.nc.jetstream().publish(subjects.jobEvent(jobId), data))
          // A lost heartbeat is followed by the next one; a lost event is worth an error.
          .catch((err) => (heartbeat ? log.warn({ err }, 'job heartbeat not published') : log.error({ err }, 'job event not published')))
          .finally(() => { job.inFlight--; });
        return chain;
      },
    };
    const emit = job.emit;
    // Held from now: a process dying before the job's first event still leaves it to expire.
    this.held.set(jobId, job);
    const release = () => this.held.delete(jobId);
    let lastProgress = 0;
    const task: ExecutorTask = {
      id: String(jobId),
      owner: user,
      onQueued: (queuePosition, queueSize) => void emit({ kind: sml.v1.JobEventKind.QUEUED, queuePosition, queueSize }),
      run: (signal) => this.holding(release, async () => {
        if (signal.aborted) {
          await emit({ kind: sml.v1.JobEventKind.FAILED, status: errorStatus(smlError('JOB_CANCELLED')) });
          return;
        }
        // Not awaited: the work need not wait for it, and the events stay in order (`chain`),
        // so FINISHED or FAILED, awaited below, is acknowledged only after it.
        let started = false;
        const start = () => {
          if (started) return;
          started = true;
          clearTimeout(startTimer);
          void emit({ kind: sml.v1.JobEventKind.STARTED });
        };
        const startTimer = setTimeout(start, this.startedAfterMs);
        const progress = (current: number, maximum: number) => {
          const now = Date.now();
          if (now - lastProgress < PROGRESS_INTERVAL_MS && current < maximum) return;
          lastProgress = now;
          start();
          void emit({ kind: sml.v1.JobEventKind.PROGRESS, current, maximum });
        };
        try {
          const result = await work({ jobId, signal, log, progress });
          if (signal.aborted) throw smlError('JOB_CANCELLED');
          clearTimeout(startTimer);
          // Larger, its FINISHED event would never be stored, and the job would read running
          // until its lease expired: it fails now, saying why.
          const bytes = result.payload?.length ?? 0;
          const limit = (this.nc.info?.max_payload ?? 1024 * 1024) - RECORD_HEADROOM;
          if (bytes > limit) throw smlError('JOB_RESULT_TOO_LARGE', { jobType, bytes, limit });
          await emit({ kind: sml.v1.JobEventKind.FINISHED, status: okStatus(), result });
        } catch (err) {
          const e = err instanceof SmlError ? err : signal.aborted ? smlError('JOB_CANCELLED') : smlError('INTERNAL', { requestId: caller.requestId ?? randomUUID() });
          if (!(err instanceof SmlError)) log.error({ err }, 'job failed');
          // A job that ran reads started, whatever its end (only a job cancelled in the queue never started).
          start();
          await emit({ kind: sml.v1.JobEventKind.FAILED, status: errorStatus(e) });
        }
      }),
    };
    try {
      this.executor.submit(task);
    } catch (err) {
      release();
      throw err;
    }
    return jobId;
  }

  /** Runs a job's task; the lease is held until its last event is out, whatever happens. */
  private async holding(release: () => void, task: () => Promise<void>): Promise<void> {
    try {
      await task();
    } finally {
      release();
    }
  }
}
