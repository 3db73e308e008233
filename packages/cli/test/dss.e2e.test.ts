import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { nameToken } from '@sml/core';
import { SmlClient } from '@sml/sdk';
import { startSystem, type RunningSystem } from '@sml/testkit';
import { sml } from './run';

// `sml dss …` end to end against nats-server, the gateway, the jobs and projects services as
// real processes (needs a prior build). The projects service runs with the default
// SML_SOURCES_ALLOW_PRIVATE=false here, so a source on 127.0.0.1 is refused.
describe('sml dss end to end', () => {
  let sys: RunningSystem;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    sys = await startSystem({ services: ['users', 'jobs', 'projects'], env: { SML_SOURCES_ALLOW_PRIVATE: 'false' } });
    const root = new SmlClient({ url: sys.url, user: sys.rootUser, secret: sys.rootSecret });
    const secret = String((await root.addUser('dana')).body.values!.secretKey);
    env = { SML_URL: sys.url, SML_USER: 'dana', SML_SECRET: secret };
    const files = join(sys.dataDir, 'files', nameToken('dana'));
    mkdirSync(join(files, 'sales', '2026'), { recursive: true });
    writeFileSync(join(files, 'sales', 'fares.csv'), 'x,y,b\n1,2.5,0\n2,3.5,1\n3,oops,1\n4,5.5,0\n');
  }, 60_000);
  afterAll(() => sys?.stop());

  it('create, list, show, sample, browse, attach, learn --wait, log, forget --wait, detach, delete', async () => {
    let r = await sml(['dss', 'create', 'fares', '--type', 'localfile', '--info', 'path=sales/fares.csv', '--extra', 'C,C,B'], env);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    r = await sml(['dss', 'list'], env);
    expect(r.stdout).toMatch(/^NAME +TYPE\nfares +localfile\n$/);
    r = await sml(['dss', 'show', 'fares'], env);
    expect(r.stdout).toMatch(/^FIELD +VALUE\nname +fares\ntype +localfile\ninfo\.path +sales\/fares\.csv\nextra +C,C,B\n$/);
    r = await sml(['dss', 'sample', 'fares'], env);
    expect(r.stdout.split('\n')[0]).toMatch(/^x \(C\) +y \(C\) +b \(B\)$/);
    expect(r.stdout.split('\n')).toHaveLength(6);
    r = await sml(['dss', 'browse', '--type', 'localfile', '--info', 'path=sales'], env);
    expect(r).toEqual({ code: 0, stdout: '2026/\nfares.csv\n', stderr: '' });

    expect((await new SmlClient({ url: sys.url, user: 'dana', secret: env.SML_SECRET! }).createProject('p')).status).toBe(201);
    expect((await sml(['dss', 'attach', 'p', 'fares'], env)).code).toBe(0);
    r = await sml(['dss', 'learn', 'p', 'fares', '--lenient', '--wait'], env);
    expect(r).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Learned 3 rows of data source fares into project p \(1 row skipped\)\n/) });
    r = await sml(['dss', 'log', 'p'], env);
    expect(r.stdout).toMatch(/^JOB +DS +OP +STATE +READ +LEARNED +SKIPPED +BYTES .*\n\d+ +fares +learn +done +4 +3 +1 +\d+ /);
    r = await sml(['dss', 'forget', 'p', 'fares', '--lenient', '--wait'], env);
    expect(r).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Forgot 3 rows of data source fares from project p \(1 row skipped\)\n/) });
    expect((await sml(['dss', 'detach', 'p', 'fares'], env)).code).toBe(0);

    r = await sml(['dss', 'delete', 'fares'], env);
    expect(r.code).toBe(0);
    r = await sml(['dss', 'show', 'fares'], env);
    expect(r).toMatchObject({ code: 1, stdout: '' });
    expect((await sml(['dss', 'list'], env)).stdout).toBe('No data sources\n');
  });

  it('a strict learn of a malformed file answers 1 naming the line, and the log keeps it as failed', async () => {
    await sml(['dss', 'create', 'strict', '--type', 'localfile', '--info', 'path=sales/fares.csv', '--extra', 'C,C,B'], env);
    const r = await sml(['dss', 'learn', 'p', 'strict', '--wait'], env);
    // Progress lines (job N: …) may come first, depending on how long the job ran.
    expect(r).toEqual({ code: 1, stdout: '', stderr: expect.stringMatching(/^(job \d+: .*\n)*Learning from data source \[strict\] failed, nothing was learned: \[sales\/fares\.csv\] line 4, column \[y\]: \[oops\] is not a number\n$/) });
    expect((await sml(['dss', 'log', 'p'], env)).stdout).toMatch(/\n\d+ +strict +learn +failed +/);
  });

  it('an http source on 127.0.0.1 is refused by the SSRF guard (SML_SOURCES_ALLOW_PRIVATE=false)', async () => {
    const r = await sml(['dss', 'preview', '--type', 'http', '--info', 'path=http://127.0.0.1:9/data.csv'], env);
    expect(r).toEqual({
      code: 1, stdout: '',
      stderr: 'Data source [preview] cannot be read: http://127.0.0.1:9/data.csv: address 127.0.0.1 is loopback, not a public address; set SML_SOURCES_ALLOW_PRIVATE=true to allow\n',
    });
  });
});
