/**
 * `node scripts/run.mjs` (what `npm run up` ends with) configures bus authentication
 * (issue 9, item 5; README "Bus security"): passwords generated once in
 * $SML_DATA_DIR/nats-auth (0700/0600), nats.conf with bcrypt hashes only, every service
 * connected as its own identity, `sml admin` working from the data dir, anonymous clients
 * refused, and no password in any log line.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { connect } from 'nats';
import { run as sml } from '@sml/cli';
import { BUS_IDENTITIES, readBusCredentials } from '@sml/bus';
import { freePort, repoRoot } from '@sml/testkit';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('npm run up: bus authentication', () => {
  let proc: ChildProcess;
  let out = '';
  let dataDir: string;
  let natsUrl: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'sml-up-auth-'));
    const natsPort = await freePort();
    natsUrl = `nats://127.0.0.1:${natsPort}`;
    proc = spawn(process.execPath, [join(repoRoot(), 'scripts/run.mjs')], {
      env: {
        ...process.env,
        SML_DATA_DIR: dataDir, SML_PORT: String(await freePort()), SML_NATS_PORT: String(natsPort),
        SML_ROOT_SECRET: randomBytes(16).toString('base64'), SML_LOG_LEVEL: 'debug',
        NATS_URL: '', SML_NATS_USER: '', SML_NATS_PASSWORD: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (d: Buffer) => { out += d.toString(); };
    proc.stdout!.on('data', keep);
    proc.stderr!.on('data', keep);
    const t0 = Date.now();
    while (!out.includes('SML is up')) {
      if (Date.now() - t0 > 60_000 || proc.exitCode !== null) throw new Error(`run.mjs did not come up\n${out.slice(-4000)}`);
      await sleep(100);
    }
  }, 90_000);

  afterAll(async () => {
    if (proc && proc.exitCode === null && proc.signalCode === null) {
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGINT');
      await Promise.race([exited, sleep(20_000)]);
      if (proc.exitCode === null) proc.kill('SIGKILL');
    }
    rmSync(dataDir, { recursive: true, force: true });
  }, 30_000);

  it('keeps one password per identity in $SML_DATA_DIR/nats-auth (0700, files 0600); nats.conf (0600) holds only bcrypt hashes', () => {
    const dir = join(dataDir, 'nats-auth');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(readdirSync(dir).sort()).toEqual(BUS_IDENTITIES.map((id) => `${id}.env`).sort());
    const conf = readFileSync(join(dataDir, 'nats.conf'), 'utf8');
    expect(statSync(join(dataDir, 'nats.conf')).mode & 0o777).toBe(0o600);
    for (const id of BUS_IDENTITIES) {
      expect(statSync(join(dir, `${id}.env`)).mode & 0o777).toBe(0o600);
      const creds = readBusCredentials(dir, id)!;
      expect(creds.user).toBe(id);
      expect(conf).toContain(`user: "${id}"`);
      expect(conf).not.toContain(creds.password);
    }
    expect(conf.match(/password: "\$2[aby]\$11\$/g)).toHaveLength(BUS_IDENTITIES.length);
  });

  it('refuses a client without credentials; sml admin works with what the data dir holds', async () => {
    await expect(connect({ servers: natsUrl })).rejects.toMatchObject({ code: 'AUTHORIZATION_VIOLATION' });
    let stdout = '';
    let stderr = '';
    const io = { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } };
    const code = await sml(['admin', 'user', 'add', 'alice'], { ...io, env: { NATS_URL: natsUrl, SML_DATA_DIR: dataDir } });
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toMatch(/^Customer \[alice\] created/);
  });

  it('every service connected as its own identity, and no password reached the output', () => {
    for (const s of ['gateway', 'jobs', 'projects', 'explore']) expect(out).toMatch(new RegExp(`^\\[${s}\\s*\\] .*connected to NATS .*"user":"${s}"`, 'm'));
    expect(out).not.toMatch(/Violation/);
    for (const id of BUS_IDENTITIES) expect(out).not.toContain(readBusCredentials(join(dataDir, 'nats-auth'), id)!.password);
  });
});
