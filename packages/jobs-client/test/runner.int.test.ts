import { connect, type NatsConnection } from 'nats';
import { smlError } from '@sml/core';
import { sml } from '@sml/proto';
import { BusClient, BusService, JOB_EVENTS_STREAM, ensureStream, subjects } from '@sml/bus';
import { BoundedExecutor, JobRunner, jobResult, type JobContext } from '@sml/jobs-client';
import { startNatsServer, type NatsServer } from '@sml/testkit';
import { log, until } from '../../bus/test/helpers';

const Kind = sml.v1.JobEventKind;
const alice = { user: 'alice', root: false, requestId: 'ra' };

const deferred = () => {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => { resolve = r; });
  return { promise, resolve };
};

// The runner against a stand-in for the jobs service (it only hands out ids) and the real
// job events stream: what a service's jobs publish, not how the jobs service folds it.
describe('JobRunner over a real nats-server', () => {
  let nats: NatsServer;
  let jobsNc: NatsConnection;
  let workerNc: NatsConnection;
  let jobsService: BusService;
  let client: BusClient;
  /** Ids handed out by the stand-in `sml.jobs.create`, in order. */
  const created: number[] = [];
  let nextId = 100;

  beforeAll(async () => {
    nats = await startNatsServer();
    jobsNc = await connect({ servers: nats.url });
    workerNc = await connect({ servers: nats.url });
    await ensureStream(jobsNc, { name: JOB_EVENTS_STREAM, subjects: [subjects.jobEvents] });
    jobsService = await BusService.start(jobsNc, { name: 'jobs', log });
    jobsService.endpoint(subjects.jobs.create, sml.v1.JobCreateRequest, sml.v1.JobCreateReply, (req) => {
      expect(req.cancelSubject).toBe(subjects.jobCancel('worker'));
      created.push(++nextId);
      return { jobId: nextId };
    });
    await jobsNc.flush();
    client = new BusClient(workerNc, { timeoutMs: 5000, resetMs: 1000 });
  });

  afterAll(async () => {
    client.close();
    await jobsService.stop();
    await jobsNc.close();
    await workerNc.close();
    await nats.stop();
  });

  /** A runner on its own executor (`concurrency` running, `queue` waiting). */
  const runnerWith = (concurrency: number, queue: number, opts: { startedAfterMs?: number } = {}) => {
    const runner = new JobRunner(workerNc, client, new BoundedExecutor('worker', concurrency, queue), 'worker', log, opts);
    runner.start();
    return runner;
  };

  /** Every event of the job stored in SML_JOB_EVENTS, in stream order. */
  async function events(jobId: number): Promise<sml.v1.JobEvent[]> {
    const jsm = await jobsNc.jetstreamManager();
    const { state } = await jsm.streams.info(JOB_EVENTS_STREAM);
    const out: sml.v1.JobEvent[] = [];
    for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) {
      const m = await jsm.streams.getMessage(JOB_EVENTS_STREAM, { seq });
      if (m.subject === subjects.jobEvent(jobId)) out.push(sml.v1.JobEvent.decode(m.data));
    }
    return out;
  }

  /** The job's events once its last one is FINISHED or FAILED. */
  const finalEvents = (jobId: number) => until(`job ${jobId} done`, async () => {
    const all = await events(jobId);
    const last = all.at(-1)?.kind;
    return last === Kind.FINISHED || last === Kind.FAILED ? all : undefined;
  });

  const kinds = (evs: sml.v1.JobEvent[]) => evs.map((e) => e.kind);

  it('a finished job publishes started, progress and finished with its result, in order', async () => {
    const runner = runnerWith(1, 1);
    const jobId = await runner.submit(alice, 'learn', { p_id: 'p' }, async ({ progress }: JobContext) => {
      progress(1, 10);
      progress(2, 10);
      progress(10, 10);
      return jobResult(sml.v1.StringList, { values: ['done'] });
    });
    expect(created).toContain(jobId);
    const evs = await finalEvents(jobId);
    expect(kinds(evs)[0]).toBe(Kind.STARTED);
    expect(kinds(evs).at(-1)).toBe(Kind.FINISHED);
    const progress = evs.filter((e) => e.kind === Kind.PROGRESS).map((e) => [Number(e.current), Number(e.maximum)]);
    // Throttled, but the first report and the last (current = maximum) always go out, in order.
    expect(progress[0]).toEqual([1, 10]);
    expect(progress.at(-1)).toEqual([10, 10]);
    expect(evs.every((e) => Number(e.jobId) === jobId && e.user === 'alice')).toBe(true);
    const finished = evs.at(-1)!;
    expect(finished.status?.code).toBe(200);
    expect(finished.result?.typeName).toBe('sml.v1.StringList');
    expect(sml.v1.StringList.decode(finished.result!.payload!).values).toEqual(['done']);
    runner.stop();
  });

  it('a result too large for a job record fails the job 413 naming its size and the limit (it would never be stored)', async () => {
    const runner = runnerWith(1, 1);
    const limit = workerNc.info!.max_payload - 64 * 1024;
    const huge = await runner.submit(alice, 'explore', {}, async () => jobResult(sml.v1.StringList, { values: ['x'.repeat(limit)] }));
    const status = (await finalEvents(huge)).at(-1)!.status!;
    const bytes = sml.v1.StringList.encode({ values: ['x'.repeat(limit)] }).finish().length;
    expect(status).toEqual(expect.objectContaining({
      code: 413, errorCode: 'JOB_RESULT_TOO_LARGE',
      message: `The result of this explore job takes ${bytes} bytes, over the limit of ${limit} for a job result (the NATS server max_payload): ask for less at a time (fewer attributes or rows)`,
    }));
    // At the limit it is stored.
    const fits = await runner.submit(alice, 'explore', {}, async () => jobResult(sml.v1.StringList, { values: ['x'.repeat(limit - 8)] }));
    expect((await finalEvents(fits)).at(-1)!.kind).toBe(Kind.FINISHED);
    runner.stop();
  });

  it('a failing job publishes failed with its error status; a crash publishes a 500 without internals', async () => {
    const runner = runnerWith(1, 1);
    const failed = await runner.submit(alice, 'explore', {}, async () => { throw smlError('GENERIC_EXCEPTION', { detail: 'no values' }); });
    expect(kinds(await finalEvents(failed))).toEqual([Kind.STARTED, Kind.FAILED]);
    expect((await finalEvents(failed)).at(-1)!.status).toEqual(expect.objectContaining({ code: 500, errorCode: 'GENERIC_EXCEPTION', message: 'Generic Exception [java.lang.Exception: no values]' }));
    const crashed = await runner.submit(alice, 'explore', {}, async () => { throw new RangeError('secret detail'); });
    const status = (await finalEvents(crashed)).at(-1)!.status!;
    expect(status).toEqual(expect.objectContaining({ code: 500, errorCode: 'INTERNAL' }));
    expect(status.message).not.toContain('secret detail');
    runner.stop();
  });

  it('a job submitted while the executor is full is refused 503 EXECUTOR_FULL before any job id is allocated', async () => {
    const runner = runnerWith(1, 1);
    const gate = deferred();
    const running = await runner.submit(alice, 'learn', {}, async () => { await gate.promise; return jobResult(sml.v1.StringList, { values: [] }); });
    const queued = await runner.submit(alice, 'learn', {}, async () => jobResult(sml.v1.StringList, { values: [] }));
    const before = [...created];
    const err = await runner.submit(alice, 'learn', {}, async () => jobResult(sml.v1.StringList, { values: [] })).catch((e) => e);
    expect(err).toEqual(expect.objectContaining({ code: 'EXECUTOR_FULL', status: 503, retryable: true }));
    expect(created).toEqual(before);
    // The queued job was told its place; both still run to the end once the first finishes.
    expect(kinds(await until('queued event', async () => ((await events(queued)).length ? events(queued) : undefined)))).toEqual([Kind.QUEUED]);
    gate.resolve();
    expect(kinds(await finalEvents(running)).at(-1)).toBe(Kind.FINISHED);
    // Done at once when its turn came: FINISHED alone says it ran (no STARTED, see the next test).
    expect(kinds(await finalEvents(queued))).toEqual([Kind.QUEUED, Kind.FINISHED]);
    runner.stop();
  });

  it('STARTED goes out once a job has run startedAfterMs, or before its first progress or its failure; a job done sooner publishes FINISHED alone', async () => {
    // Done long before its STARTED is due: FINISHED alone.
    const patient = runnerWith(1, 1, { startedAfterMs: 60_000 });
    const quick = await patient.submit(alice, 'projectInfo', {}, async () => jobResult(sml.v1.StringList, { values: ['quick'] }));
    const quickEvents = await finalEvents(quick);
    expect(kinds(quickEvents)).toEqual([Kind.FINISHED]);
    expect(sml.v1.StringList.decode(quickEvents[0].result!.payload!).values).toEqual(['quick']);
    // Progress or a failure brings STARTED forward, in order.
    const reporting = await patient.submit(alice, 'learn', {}, async ({ progress }) => {
      progress(1, 2);
      return jobResult(sml.v1.StringList, { values: [] });
    });
    expect(kinds(await finalEvents(reporting))).toEqual([Kind.STARTED, Kind.PROGRESS, Kind.FINISHED]);
    const failing = await patient.submit(alice, 'explore', {}, async () => { throw smlError('GENERIC_EXCEPTION', { detail: 'no values' }); });
    expect(kinds(await finalEvents(failing))).toEqual([Kind.STARTED, Kind.FAILED]);
    patient.stop();

    // Still running when STARTED is due: it goes out while the work runs (the work waits for it here).
    const eager = runnerWith(1, 1, { startedAfterMs: 1 });
    const gate = deferred();
    const long = await eager.submit(alice, 'learn', {}, async () => { await gate.promise; return jobResult(sml.v1.StringList, { values: [] }); });
    expect(kinds(await until('STARTED while running', async () => ((await events(long)).length ? events(long) : undefined)))).toEqual([Kind.STARTED]);
    gate.resolve();
    expect(kinds(await finalEvents(long))).toEqual([Kind.STARTED, Kind.FINISHED]);
    eager.stop();
  });

  it('submits racing for the last places: each refused one leaves no job id behind', async () => {
    const runner = runnerWith(1, 1);
    const gate = deferred();
    const before = created.length;
    const outcomes = await Promise.allSettled([1, 2, 3, 4].map(() =>
      runner.submit(alice, 'learn', {}, async () => { await gate.promise; return jobResult(sml.v1.StringList, { values: [] }); })));
    const accepted = outcomes.filter((o): o is PromiseFulfilledResult<number> => o.status === 'fulfilled').map((o) => o.value);
    const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected').map((o) => o.reason);
    expect(accepted).toHaveLength(2);
    expect(refused).toEqual([expect.objectContaining({ code: 'EXECUTOR_FULL' }), expect.objectContaining({ code: 'EXECUTOR_FULL' })]);
    expect(created.slice(before)).toEqual(accepted);
    gate.resolve();
    for (const id of accepted) expect(kinds(await finalEvents(id)).at(-1)).toBe(Kind.FINISHED);
    runner.stop();
  });

  it('cancelling a running job aborts its work and publishes failed "Job was cancelled"; a queued one never starts', async () => {
    const runner = runnerWith(1, 1);
    const started = deferred();
    let sawAbort = false;
    const running = await runner.submit(alice, 'selectModel', {}, async ({ signal }) => {
      started.resolve();
      await new Promise((r) => signal.addEventListener('abort', r));
      sawAbort = true;
      // Work that ignores the abort and returns anyway is still a cancelled job.
      return jobResult(sml.v1.StringList, { values: ['too late'] });
    });
    let queuedRan = false;
    const queued = await runner.submit(alice, 'selectModel', {}, async () => { queuedRan = true; return jobResult(sml.v1.StringList, { values: [] }); });
    await started.promise;
    // What the jobs service does on DELETE /jobs/{id}: the id on the runner's cancel subject.
    for (const id of [queued, running]) workerNc.publish(subjects.jobCancel('worker'), new TextEncoder().encode(String(id)));
    const evs = await finalEvents(running);
    expect(sawAbort).toBe(true);
    expect(kinds(evs)).toEqual([Kind.STARTED, Kind.FAILED]);
    expect(evs.at(-1)!.status).toEqual(expect.objectContaining({ code: 500, errorCode: 'JOB_CANCELLED', message: 'Job was cancelled' }));
    const q = await finalEvents(queued);
    expect(kinds(q)).toEqual([Kind.QUEUED, Kind.FAILED]);
    expect(q.at(-1)!.status?.errorCode).toBe('JOB_CANCELLED');
    expect(queuedRan).toBe(false);
    runner.stop();
  });
});
