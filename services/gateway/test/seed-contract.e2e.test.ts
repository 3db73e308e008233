import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot, startKafkaMock, startSystem, type KafkaMock, type RunningSystem } from '@sml/testkit';

// The customer's black-box checks (vendored: test/conformance/README.md)
// for the capabilities built so far.
const GROUPS = ['auth', 'jobs', 'projects', 'explore', 'density', 'svdfs', 'survival', 'models', 'evt', 'dss', 'streams'];
// The script names its customers c<run id><tag>, and its `explore` and `encoders` checks both
// use the tag `en`: in one run the second cannot create its customer. Each run has its own id,
// so `encoders` runs on its own.
const RUNS = [GROUPS, ['encoders']];
const script = join(repoRoot(), 'test', 'conformance', 'seed-contract.mjs');

describe('seed contract', () => {
  let sys: RunningSystem;
  // The `streams` group's kafka-poll check needs a broker (--kafka): the testkit's kafka-mock.
  let kafka: KafkaMock;
  beforeAll(async () => {
    [kafka, sys] = await Promise.all([startKafkaMock(), startSystem({ services: ['users', 'jobs', 'projects', 'explore', 'encoders', 'streams'] })]);
  }, 60_000);
  afterAll(async () => {
    await sys?.stop();
    await kafka?.stop();
  });

  it.each(RUNS.map((groups): [string, string[]] => [groups.join(', '), groups]))('groups %s pass', async (_names, groups) => {
    const child = spawn(process.execPath, [script, '--url', sys.url, '--user', sys.rootUser, '--secret', sys.rootSecret, '--groups', groups.join(','), '--kafka', kafka.bootstrap]);
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    const last = out.trim().split('\n').pop() ?? '';
    expect({ code, last, failures: out.split('\n').filter((l) => l.startsWith('FAIL')) }).toEqual({ code: 0, last: expect.stringMatching(/^\d+ passed, 0 failed$/), failures: [] });
  });
});
