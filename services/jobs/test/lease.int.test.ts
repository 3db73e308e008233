import { connect } from 'nats';
import pino from 'pino';
import { loadConfig } from '@sml/core';
import { sml } from '@sml/proto';
import { BusClient, BusService, JOB_EVENTS_STREAM, subjects, type ServiceRuntime } from '@sml/bus';
import { BoundedExecutor, JobRunner, jobResult } from '@sml/jobs-client';
import { startJobs } from '@sml/jobs';
import { startNatsServer, type NatsServer } from '@sml/testkit';

const log = pino({ level: 'silent' });
const alice = { user: 'alice', root: false, requestId: 'ra' };
const LEASE_MS = 1500;
const HEARTBEAT_MS = 250;
const env = { SML_JOB_LEASE_MS: String(LEASE_MS), SML_JOB_HEARTBEAT_MS: String(HEARTBEAT_MS) };
const EXPIRED = "The worker process running the job stopped (no heartbeat for 1.5 s) before the job finished; the job's changes were not applied";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const gate = () => {
  let open!: () => void;
  const opened = new Promise<void>((r) => { open = r; });
  return { opened, open };
};

async function runtime(url: string, name: string): Promise<ServiceRuntime & { close(): Promise<void> }> {
  const nc = await connect({ servers: url });
  const service = await BusService.start(nc, { name, log });
  const client = new BusClient(nc, { timeoutMs: 5000, resetMs: 500 });
  return { config: loadConfig(env), log, nc, service, client, close: async () => { client.close(); await service.stop(); await nc.close(); } };
}

// Leases (services/jobs README "Leases") with the jobs service in-process, a real nats-server
// and real JobRunners: a runner that dies leaves no job running for ever, one that lives keeps
// its jobs however long they take, and a restart of the jobs service fails nobody.
describe('job leases', () => {
  let nats: NatsServer;
  let jobs: Awaited<ReturnType<typeof runtime>>;
  let stopJobs: () => Promise<void>;
  let worker: Awaited<ReturnType<typeof runtime>>;

  const get = (jobId: number) =>
    worker.client.request('jobs', subjects.jobs.get, sml.v1.JobGetRequest, { caller: alice, jobId }, sml.v1.JobGetReply);
  /** The job's reply once it is no longer running (generous: leases take seconds). */
  const settled = async (jobId: number) => {
    for (const deadline = Date.now() + 30_000; Date.now() < deadline; await sleep(50)) {
      const r = await get(jobId);
      if (r.status?.code !== 202) return r;
    }
    throw new Error(`job ${jobId} still running`);
  };
  const startJobsService = async () => {
    jobs = await runtime(nats.url, 'jobs');
    stopJobs = (await startJobs(jobs)).onStop;
    await jobs.nc.flush();
  };
  const runnerOn = (rt: ServiceRuntime, concurrency = 1) => {
    const runner = new JobRunner(rt.nc, rt.client, new BoundedExecutor('worker', concurrency, 5), 'worker', log, { heartbeatMs: HEARTBEAT_MS });
    runner.start();
    return runner;
  };
  /** Every event of the job's folded: a job created after them is folded after them. */
  const folded = async (runner: JobRunner) => {
    const marker = await runner.submit(alice, 'projectInfo', {}, async () => jobResult(sml.v1.StringList, { values: [] }));
    expect((await settled(marker)).status?.code).toBe(200);
  };

  beforeAll(async () => {
    nats = await startNatsServer();
    await startJobsService();
    worker = await runtime(nats.url, 'worker');
  });

  afterAll(async () => {
    await stopJobs();
    await jobs.close();
    await worker.close();
    await nats.stop();
  });

  it('heartbeats keep a job that reports no progress running past several lease periods', async () => {
    const runner = runnerOn(worker);
    const { opened, open } = gate();
    const id = await runner.submit(alice, 'learn', {}, async () => {
      await opened;
      return jobResult(sml.v1.StringList, { values: ['late but alive'] });
    });
    for (const until = Date.now() + 4 * LEASE_MS; Date.now() < until; await sleep(100)) {
      expect((await get(id)).status?.code).toBe(202);
    }
    open();
    const r = await settled(id);
    expect(r.status).toEqual(expect.objectContaining({ code: 200, message: 'Job is finished' }));
    expect(sml.v1.StringList.decode(r.result!.payload!).values).toEqual(['late but alive']);
    runner.stop();
  });

  it('the jobs of a runner that died (running and queued) fail with the lease message', async () => {
    const doomed = await runtime(nats.url, 'worker');
    const runner = runnerOn(doomed);
    const never = new Promise<never>(() => undefined);
    const running = await runner.submit(alice, 'learn', {}, () => never);
    const queued = await runner.submit(alice, 'learn', {}, () => never);
    // The process is gone: no heartbeat, no event, no cancel notice heard.
    runner.stop();
    await doomed.close();
    for (const id of [running, queued]) {
      const r = await settled(id);
      expect(r.status).toEqual(expect.objectContaining({ code: 500, message: EXPIRED, errorCode: 'JOB_LEASE_EXPIRED' }));
    }
    const list = await worker.client.request('jobs', subjects.jobs.list, sml.v1.JobListRequest, { caller: alice }, sml.v1.JobListReply);
    const infos = list.jobinfolist!.filter((j) => [running, queued].includes(Number(j.jobId)));
    expect(infos.map((j) => j.isDone)).toEqual([true, true]);
  });

  it('a finish arriving after the lease expired is ignored: the first terminal state wins', async () => {
    const stalled = runnerOn(worker);
    const { opened, open } = gate();
    let aborted = false;
    const id = await stalled.submit(alice, 'learn', {}, async ({ signal }) => {
      signal.addEventListener('abort', () => { aborted = true; });
      await opened;
      return jobResult(sml.v1.StringList, { values: ['too late'] });
    });
    // Stalled: alive, but neither heartbeats nor hears the cancel notice the expiry sends.
    stalled.stop();
    expect((await settled(id)).status?.message).toBe(EXPIRED);
    open();
    // The runner publishes FINISHED with its result …
    const jsm = await worker.nc.jetstreamManager();
    for (const deadline = Date.now() + 10_000; ; await sleep(50)) {
      const last = await jsm.streams.getMessage(JOB_EVENTS_STREAM, { last_by_subj: subjects.jobEvent(id) });
      if (sml.v1.JobEvent.decode(last.data).kind === sml.v1.JobEventKind.FINISHED) break;
      if (Date.now() > deadline) throw new Error('no FINISHED event');
    }
    expect(aborted).toBe(false);
    // … which the jobs service folds after the expiry, and ignores.
    const other = runnerOn(worker);
    await folded(other);
    other.stop();
    const r = await get(id);
    expect(r.status).toEqual(expect.objectContaining({ code: 500, message: EXPIRED }));
    expect(r.result).toBeFalsy();
  });

  it('an expired job of a live but stalled runner is cancelled there', async () => {
    const runner = runnerOn(worker);
    let aborted!: () => void;
    const abortSeen = new Promise<void>((r) => { aborted = r; });
    const id = await runner.submit(alice, 'learn', {}, ({ signal }) => new Promise((_, reject) => {
      signal.addEventListener('abort', () => { aborted(); reject(new Error('aborted')); });
    }));
    // Stop renewing only (the cancel subscription stays): what a blocked event loop looks like from outside.
    clearInterval((runner as unknown as { heartbeat: NodeJS.Timeout }).heartbeat);
    expect((await settled(id)).status?.message).toBe(EXPIRED);
    await abortSeen;
    runner.stop();
  });

  it('a restart of the jobs service does not fail jobs whose runner was unheard meanwhile', async () => {
    const runner = runnerOn(worker);
    const { opened, open } = gate();
    const id = await runner.submit(alice, 'learn', {}, async () => {
      await opened;
      return jobResult(sml.v1.StringList, { values: ['survived'] });
    });
    await stopJobs();
    await jobs.close();
    // Down for longer than a lease, and the runner silent too (as when NATS itself restarts).
    runner.stop();
    await sleep(2 * LEASE_MS);
    await startJobsService();
    // Heard again only half a lease after the restart: the lease counts from the restart.
    await sleep(LEASE_MS / 2);
    runner.start();
    for (const until = Date.now() + 3 * LEASE_MS; Date.now() < until; await sleep(100)) {
      expect((await get(id)).status?.code).toBe(202);
    }
    open();
    expect((await settled(id)).status?.code).toBe(200);
    runner.stop();
  });
});
