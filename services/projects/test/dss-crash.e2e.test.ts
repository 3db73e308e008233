import { startSystem, type RunningSystem } from '@sml/testkit';
import { BIG_FRAME, learnBigSource, SummaryReader } from './helpers';

// Issue 11: a projects service killed (SIGKILL) in the middle of learning a data source never
// counts rows twice: the interrupted learn left nothing (its rows were only in the staging
// summary), and learning the source again counts every row exactly once.
describe('data-source learn and a crash mid-file', () => {
  let sys: RunningSystem;
  let reader: SummaryReader;
  beforeAll(async () => {
    sys = await startSystem({ services: ['users', 'jobs', 'projects'] });
    reader = await SummaryReader.open(sys.nats);
  });
  afterAll(async () => {
    await reader?.close();
    await sys?.stop();
  });

  it('SIGKILL while the job reads: nothing learned; the next learn counts each row once', async () => {
    const ROWS = 2_000_000;
    const { client: alice } = await learnBigSource(sys, 'alice', ROWS);
    await sys.kill('projects', 'SIGKILL');
    await sys.start('projects');

    expect((await reader.full('alice', 'p')).rowCount).toBe(0);
    const again = await alice.waitForJob(await alice.request('POST', '/projects/p/dss/big/learn', { json: BIG_FRAME }), { timeoutMs: 120_000 });
    expect(again.status).toBe(200);
    const parts = await reader.parts('alice', 'p', { attributeNames: ['x'], moments: true });
    expect(Number(parts.rowCount)).toBe(ROWS);
    let sum = 0;
    for (let i = 0; i < ROWS; i++) sum += i % 97;
    expect(parts.moments[0].sum).toBe(sum);
  }, 180_000);
});
