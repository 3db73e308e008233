import { startSystem, type RunningSystem } from '@sml/testkit';
import { BIG_FRAME, learnBigSource, SummaryReader } from './helpers';

// Job leases (services/jobs README "Leases") end to end: the projects process is SIGKILLed
// in the middle of a data-source learn and nobody restarts it; the job does not stay
// "Job still running" but fails with the lease message once its lease (1.5 s here) expires,
// the project is as it was, and a learn on a restarted projects service succeeds.
describe('a data-source learn whose process dies', () => {
  let sys: RunningSystem;
  let reader: SummaryReader;
  beforeAll(async () => {
    sys = await startSystem({
      services: ['users', 'jobs', 'projects'],
      env: { SML_JOB_LEASE_MS: '1500', SML_JOB_HEARTBEAT_MS: '300' },
    });
    reader = await SummaryReader.open(sys.nats);
  });
  afterAll(async () => {
    await reader?.close();
    await sys?.stop();
  });

  it('SIGKILL mid-learn: the job fails with the lease message, the project is unchanged, a new learn succeeds', async () => {
    const ROWS = 2_000_000;
    const { client: alice, jobId: id } = await learnBigSource(sys, 'alice', ROWS);
    await sys.kill('projects', 'SIGKILL');

    // Nobody restarts projects: the job still ends, failed, within a few lease periods.
    const failed = await alice.waitForJob(id, { timeoutMs: 30_000 });
    expect(failed.status).toBe(500);
    expect(failed.body.statusString).toBe("The projects process running the job stopped (no heartbeat for 1.5 s) before the job finished; the job's changes were not applied");
    const listed = (await alice.listJobs()).body.values?.jobinfolist.find((j) => String(j.jobId) === id);
    expect(listed).toEqual(expect.objectContaining({ isDone: true }));

    await sys.start('projects');
    expect((await reader.full('alice', 'p')).rowCount).toBe(0);
    // The failure stays: the restarted process does not bring the job back.
    expect((await alice.getJob(id)).status).toBe(500);
    const again = await alice.waitForJob(await alice.request('POST', '/projects/p/dss/big/learn', { json: BIG_FRAME }), { timeoutMs: 120_000 });
    expect(again.status).toBe(200);
    expect(Number((await reader.parts('alice', 'p', { attributeNames: ['x'] })).rowCount)).toBe(ROWS);
  }, 180_000);
});
