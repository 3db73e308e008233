import { connect, type NatsConnection } from 'nats';
import pino from 'pino';
import { sml } from '@sml/proto';
import { BusClient } from '@sml/bus';
import { BoundedExecutor, JobRunner, jobResult } from '@sml/jobs-client';
import { SmlClient } from '@sml/sdk';
import { startSystem, type RunningSystem } from '@sml/testkit';

// The jobs service is SIGKILLed while job events are being published and restarted later:
// every event sits in JetStream until folded, so no job record or result may be lost.
describe('jobs service crash', () => {
  let sys: RunningSystem;
  let nc: NatsConnection;
  let client: BusClient;

  beforeAll(async () => {
    sys = await startSystem({ services: ['users', 'jobs'] });
    // A job-running service (projects' identity: it may create jobs and publish their events).
    nc = await connect({ servers: sys.nats.url, ...sys.nats.connectOptions('projects') });
    client = new BusClient(nc, { timeoutMs: 5000, resetMs: 200 });
  });
  afterAll(async () => {
    client?.close();
    await nc?.close();
    await sys?.stop();
  });

  it('SIGKILL mid-stream loses no job record, event or result', async () => {
    const root = new SmlClient({ url: sys.url, user: sys.rootUser, secret: sys.rootSecret });
    const added = await root.addUser('crashy');
    const secret = String((added.body.values as { secretKey: string }).secretKey);
    const sdk = new SmlClient({ url: sys.url, user: 'crashy', secret });
    const runner = new JobRunner(nc, client, new BoundedExecutor('projects', 4, 100), 'projects', pino({ level: 'silent' }));
    runner.start();

    const caller = { user: 'crashy', root: false, requestId: 'crash' };
    const ids: number[] = [];
    for (let i = 0; i < 40; i++) {
      ids.push(await runner.submit(caller, 'learn', { p_id: `p${i}` }, async ({ progress }) => {
        for (let step = 1; step <= 5; step++) {
          await new Promise((r) => setTimeout(r, 20 + (i % 7) * 5));
          progress(step, 5);
        }
        return jobResult(sml.v1.StringList, { values: [`job-${i}`] });
      }));
    }
    await sys.kill('jobs', 'SIGKILL');
    // Jobs keep running and publishing while the jobs service is dead.
    await new Promise((r) => setTimeout(r, 1500));
    await sys.start('jobs');

    for (const [i, id] of ids.entries()) {
      const done = await sdk.waitForJob(id, { timeoutMs: 30_000, intervalMs: 50 });
      expect(done.status).toBe(200);
      expect(done.body).toEqual({ statusCode: 200, statusString: 'Job is finished', values: { values: [`job-${i}`] } });
    }
    const list = await sdk.listJobs();
    const infos = (list.body.values as { jobinfolist: Array<{ jobId: number; isDone: boolean; isStarted: boolean; current: number; maximum: number }> }).jobinfolist;
    expect(infos.map((j) => j.jobId)).toEqual(ids);
    for (const j of infos) expect(j).toEqual(expect.objectContaining({ isDone: true, isStarted: true, current: 5, maximum: 5 }));
    runner.stop();
  });
});
