import { randomUUID } from 'node:crypto';
import type { NatsConnection, Subscription } from 'nats';
import { SmlError, smlError, type Logger } from '@sml/core';
import { sml } from '@sml/proto';
import { errorStatus, okStatus, subjects, unwrap, type BusClient, type MessageType } from '@sml/bus';
import type { BoundedExecutor } from './executor';

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
 * Runs long operations as jobs (ARCHITECTURE.md §4): asks `jobs` for an id, queues the work
 * on the service's bounded executor and publishes started/progress/finished/failed events to
 * JetStream, in order, each awaited so that a finished job's result is durable before the
 * runner forgets it. Cancellation notices arrive on `sml.jobcancel.<service>`.
 */
export class JobRunner {
  private cancelSub?: Subscription;
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
  ) {}

  start(): void {
    this.cancelSub = this.nc.subscribe(subjects.jobCancel(this.service), {
      callback: (_err, msg) => {
        const id = new TextDecoder().decode(msg.data);
        if (this.executor.cancel(id)) this.log.info({ jobId: id }, 'job cancelled');
      },
    });
  }

  stop(): void {
    this.cancelSub?.unsubscribe();
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
    }, sml.v1.JobCreateReply));
    const jobId = Number(created.jobId);
    const user = caller.user ?? '';
    const log = this.log.child({ jobId, jobType, requestId: caller.requestId });
    let chain: Promise<unknown> = Promise.resolve();
    const emit = (event: sml.v1.IJobEvent): Promise<unknown> => {
      const data = sml.v1.JobEvent.encode({ jobId, user, time: Date.now(), ...event }).finish();
      chain = chain.then(() => this.nc.jetstream().publish(subjects.jobEvent(jobId), data)).catch((err) => log.error({ err }, 'job event not published'));
      return chain;
    };
    let lastProgress = 0;
    this.executor.submit({
      id: String(jobId),
      owner: user,
      onQueued: (queuePosition, queueSize) => void emit({ kind: sml.v1.JobEventKind.QUEUED, queuePosition, queueSize }),
      run: async (signal) => {
        if (signal.aborted) {
          await emit({ kind: sml.v1.JobEventKind.FAILED, status: errorStatus(smlError('JOB_CANCELLED')) });
          return;
        }
        await emit({ kind: sml.v1.JobEventKind.STARTED });
        const progress = (current: number, maximum: number) => {
          const now = Date.now();
          if (now - lastProgress < PROGRESS_INTERVAL_MS && current < maximum) return;
          lastProgress = now;
          void emit({ kind: sml.v1.JobEventKind.PROGRESS, current, maximum });
        };
        try {
          const result = await work({ jobId, signal, log, progress });
          if (signal.aborted) throw smlError('JOB_CANCELLED');
          await emit({ kind: sml.v1.JobEventKind.FINISHED, status: okStatus(), result });
        } catch (err) {
          const e = err instanceof SmlError ? err : signal.aborted ? smlError('JOB_CANCELLED') : smlError('INTERNAL', { requestId: caller.requestId ?? randomUUID() });
          if (!(err instanceof SmlError)) log.error({ err }, 'job failed');
          await emit({ kind: sml.v1.JobEventKind.FAILED, status: errorStatus(e) });
        }
      },
    });
    return jobId;
  }
}
