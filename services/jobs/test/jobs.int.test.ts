import { connect } from 'nats';
import pino from 'pino';
import { loadConfig } from '@sml/core';
import { sml } from '@sml/proto';
import { BusClient, BusService, subjects, unwrap, type ServiceRuntime } from '@sml/bus';
import { BoundedExecutor, JobRunner, jobResult } from '@sml/jobs-client';
import { startJobs } from '@sml/jobs';
import { startNatsServer, type NatsServer } from '@sml/testkit';

const log = pino({ level: 'silent' });
const alice = { user: 'alice', root: false, requestId: 'ra' };
const bob = { user: 'bob', root: false, requestId: 'rb' };
const root = { user: 'root', root: true, requestId: 'rr' };

async function runtime(url: string, name: string): Promise<ServiceRuntime & { close(): Promise<void> }> {
  const nc = await connect({ servers: url });
  const service = await BusService.start(nc, { name, log });
  const client = new BusClient(nc, { timeoutMs: 5000, resetMs: 500 });
  return { config: loadConfig({}), log, nc, service, client, close: async () => { client.close(); await service.stop(); await nc.close(); } };
}

describe('jobs service', () => {
  let nats: NatsServer;
  let jobs: Awaited<ReturnType<typeof runtime>>;
  let stopJobs: () => Promise<void>;
  let worker: Awaited<ReturnType<typeof runtime>>;
  let runner: JobRunner;

  const get = (caller: typeof alice, jobId: number) =>
    worker.client.request('jobs', subjects.jobs.get, sml.v1.JobGetRequest, { caller, jobId }, sml.v1.JobGetReply);
  const waitDone = async (caller: typeof alice, jobId: number) => {
    for (let i = 0; i < 200; i++) {
      const r = await get(caller, jobId);
      if (r.status?.code !== 202) return r;
      await new Promise((res) => setTimeout(res, 20));
    }
    throw new Error(`job ${jobId} never finished`);
  };

  beforeAll(async () => {
    nats = await startNatsServer();
    jobs = await runtime(nats.url, 'jobs');
    stopJobs = (await startJobs(jobs)).onStop;
    await jobs.nc.flush();
    worker = await runtime(nats.url, 'worker');
    runner = new JobRunner(worker.nc, worker.client, new BoundedExecutor('worker', 1, 3), 'worker', log);
    runner.start();
  });

  afterAll(async () => {
    runner.stop();
    await stopJobs();
    await jobs.close();
    await worker.close();
    await nats.stop();
  });

  it('a finished job reads 200 "Job is finished" with its result; ids increase', async () => {
    const work = async () => jobResult(sml.v1.StringList, { values: ['done'] });
    const a = await runner.submit(alice, 'projectInfo', { p_id: 'p' }, work);
    const b = await runner.submit(alice, 'projectInfo', { p_id: 'p' }, work);
    expect(b).toBeGreaterThan(a);
    const r = await waitDone(alice, b);
    expect(r.status).toEqual(expect.objectContaining({ code: 200, message: 'Job is finished' }));
    expect(r.result?.typeName).toBe('sml.v1.StringList');
    expect(sml.v1.StringList.decode(r.result!.payload!).values).toEqual(['done']);
  });

  it('a failing job reads 500 with its failure message and code; a crash reads 500 without internals', async () => {
    const { smlError } = await import('@sml/core');
    const failed = await runner.submit(alice, 'explore', {}, async () => { throw smlError('GENERIC_EXCEPTION', { detail: 'no values' }); });
    expect((await waitDone(alice, failed)).status).toEqual(expect.objectContaining({ code: 500, message: 'Generic Exception [java.lang.Exception: no values]' }));
    // A failure answered 400 or 413 when synchronous reads 500 as a job, its message and code kept (issue 29).
    const bad = await runner.submit(alice, 'dsUpdate', {}, async () => { throw smlError('DS_LEARN_FAILED', { ds: 'd', detail: '[f.csv] line 30001, column [x]: bad' }); });
    expect((await waitDone(alice, bad)).status).toEqual(expect.objectContaining({
      code: 500, errorCode: 'DS_LEARN_FAILED', message: 'Learning from data source [d] failed, nothing was learned: [f.csv] line 30001, column [x]: bad',
    }));
    const large = await runner.submit(alice, 'explore', {}, async () => { throw smlError('JOB_RESULT_TOO_LARGE', { jobType: 'explore', bytes: 9, limit: 8 }); });
    expect((await waitDone(alice, large)).status).toEqual(expect.objectContaining({ code: 500, errorCode: 'JOB_RESULT_TOO_LARGE' }));
    const crashed = await runner.submit(alice, 'explore', {}, async () => { throw new RangeError('secret detail'); });
    const r = await waitDone(alice, crashed);
    expect(r.status?.code).toBe(500);
    expect(r.status?.message).not.toContain('secret detail');
  });

  it("another customer's job is 'No such job'; list shows only the caller's jobs unless root asks for all", async () => {
    const id = await runner.submit(alice, 'projectInfo', {}, async () => jobResult(sml.v1.StringList, { values: [] }));
    await waitDone(alice, id);
    expect((await get(bob, id)).status).toEqual(expect.objectContaining({ code: 400, message: 'No such job' }));
    const list = (caller: typeof alice, all: boolean) =>
      worker.client.request('jobs', subjects.jobs.list, sml.v1.JobListRequest, { caller, all }, sml.v1.JobListReply);
    expect((await list(bob, false)).jobinfolist).toEqual([]);
    const mine = (await list(alice, false)).jobinfolist!;
    expect(mine.map((j) => Number(j.jobId))).toContain(id);
    expect(mine.every((j) => j.owner === 'alice')).toBe(true);
    expect((await list(bob, true)).status?.errorCode).toBe('JOBS_ALL_NOT_ROOT');
    expect((await list(root, true)).jobinfolist!.map((j) => Number(j.jobId))).toContain(id);
  });

  it('a running job reads 202 with jobinfo and queue details; cancel stops it', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => { release = r; });
    const running = await runner.submit(alice, 'learn', {}, async ({ signal, progress }) => {
      progress(5, 10);
      await Promise.race([gate, new Promise((r) => signal.addEventListener('abort', r))]);
      return jobResult(sml.v1.StringList, { values: [] });
    });
    const queued = await runner.submit(alice, 'learn', {}, async () => jobResult(sml.v1.StringList, { values: ['second'] }));
    let info: sml.v1.IJobInfo | null | undefined;
    for (let i = 0; i < 100; i++) {
      info = (await get(alice, queued)).jobinfo;
      if (info?.details?.bounded_executor_queue_position) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(info).toEqual(expect.objectContaining({ jobType: 'learn', owner: 'alice', isStarted: false, isDone: false, isOnBoundedExecutor: true }));
    expect(info?.details).toEqual(expect.objectContaining({ bounded_executor_queue_position: '1', bounded_executor_queue_size: '1' }));

    const cancel = await worker.client.request('jobs', subjects.jobs.cancel, sml.v1.JobCancelRequest, { caller: alice, jobId: running }, sml.v1.Empty);
    expect(cancel.status?.code).toBe(200);
    expect((await waitDone(alice, running)).status).toEqual(expect.objectContaining({ code: 500, message: 'Job was cancelled' }));
    expect((await waitDone(alice, queued)).status?.code).toBe(200);
    release();
    const again = await worker.client.request('jobs', subjects.jobs.cancel, sml.v1.JobCancelRequest, { caller: alice, jobId: running }, sml.v1.Empty);
    expect(again.status?.code).toBe(400);
  });

  it('ids keep increasing across a restart of the jobs service', async () => {
    const before = await runner.submit(alice, 'learn', {}, async () => jobResult(sml.v1.StringList, { values: [] }));
    await waitDone(alice, before);
    await stopJobs();
    await jobs.close();
    jobs = await runtime(nats.url, 'jobs');
    stopJobs = (await startJobs(jobs)).onStop;
    await jobs.nc.flush(); // the new endpoints' subscriptions are on the server
    const after = await runner.submit(alice, 'learn', {}, async () => jobResult(sml.v1.StringList, { values: [] }));
    expect(after).toBeGreaterThan(before);
    expect(unwrap(await waitDone(alice, before)).status?.code).toBe(200);
  });
});
