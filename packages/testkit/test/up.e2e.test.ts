/**
 * `node scripts/run.mjs` (what `npm run up` ends with) as an operator runs it, in a temp data
 * dir on free ports (issue 9, item 9): a service killed with SIGKILL is restarted and the
 * stack stays up; so is the embedded nats-server; Ctrl-C still stops everything.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { SmlClient } from '@sml/sdk';
import { freePort, repoRoot } from '@sml/testkit';
import { alive, sleep } from './processes';

describe('npm run up supervises its processes', () => {
  let run: ChildProcess;
  let out = '';
  let dataDir: string;
  let url: string;
  let root: SmlClient;
  const seen = new Set<number>();

  const readyz = async () => {
    try {
      const r = await fetch(`${url}/readyz`);
      return { status: r.status, body: await r.json() };
    } catch {
      return { status: 0, body: undefined };
    }
  };
  async function until<T>(what: string, get: () => Promise<T> | T, ok: (v: T) => boolean, timeoutMs = 30_000): Promise<T> {
    const t0 = Date.now();
    for (;;) {
      const v = await get();
      if (ok(v)) return v;
      if (Date.now() - t0 > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms (last: ${JSON.stringify(v)})\n${out.slice(-4000)}`);
      await sleep(50);
    }
  }
  /** The child processes of run.mjs now, by name (from /proc: their parent pid and command line). */
  const pids = () => {
    const found: Record<string, number> = {};
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        if (ppid !== run.pid) continue;
        const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ');
        const name = cmd.includes('nats-server') ? 'nats' : /services\/(\w+)\/dist\/main\.js/.exec(cmd)?.[1];
        if (name && !stat.includes(') Z ')) {
          found[name] = Number(entry);
          seen.add(Number(entry));
        }
      } catch { /* gone meanwhile */ }
    }
    return found;
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'sml-up-'));
    const port = await freePort();
    const secret = randomBytes(16).toString('base64');
    url = `http://127.0.0.1:${port}`;
    run = spawn(process.execPath, [join(repoRoot(), 'scripts/run.mjs')], {
      env: {
        ...process.env,
        SML_DATA_DIR: dataDir, SML_PORT: String(port), SML_NATS_PORT: String(await freePort()),
        SML_ROOT_SECRET: secret, SML_REQUEST_TIMEOUT_MS: '3000', SML_LOG_LEVEL: 'info',
        NATS_URL: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (d: Buffer) => { out += d.toString(); };
    run.stdout!.on('data', keep);
    run.stderr!.on('data', keep);
    await until('SML is up', () => out, (o) => o.includes('SML is up'), 60_000);
    root = new SmlClient({ url, user: 'root', secret });
  }, 90_000);

  afterAll(async () => {
    root?.close();
    if (run && run.exitCode === null && run.signalCode === null) {
      const exited = new Promise((r) => run.once('exit', r));
      run.kill('SIGINT');
      await Promise.race([exited, sleep(20_000)]);
      if (run.exitCode === null) run.kill('SIGKILL');
    }
    for (const pid of seen) if (alive(pid)) process.kill(pid, 'SIGKILL'); // only after a failure
    rmSync(dataDir, { recursive: true, force: true });
  }, 30_000);

  it('a service killed with SIGKILL: one line saying so, /readyz 503 naming it, then restarted and 200; the others untouched', async () => {
    expect((await readyz()).status).toBe(200);
    const before = pids();
    expect(Object.keys(before).sort()).toEqual(expect.arrayContaining(['explore', 'gateway', 'jobs', 'nats', 'projects']));

    process.kill(before.jobs, 'SIGKILL');
    const down = await until('/readyz 503', readyz, (r) => r.status === 503);
    expect(down.body).toMatchObject({ ready: false, missing: ['jobs'] });
    await until('/readyz 200 again', readyz, (r) => r.status === 200);

    expect(out).toMatch(/^\[jobs\s*\] \S+ WARN\s+died \(killed by SIGKILL\) after [\d.]+ s up; restarting in 0\.5 s, at \S+ \(restart #1\)$/m);
    const after = pids();
    expect(after.jobs).not.toBe(before.jobs);
    expect(out).toMatch(new RegExp(`^\\[jobs\\s*\\] \\S+ INFO\\s+restarted \\(pid ${after.jobs}\\)$`, 'm'));
    expect(alive(after.jobs)).toBe(true);
    for (const s of ['gateway', 'projects', 'explore', 'nats']) expect(after[s]).toBe(before[s]);
    expect((await root.listJobs()).status).toBe(200);
  }, 60_000);

  it('the embedded nats-server killed: restarted, the services reconnect and signed requests answer 200 again', async () => {
    const before = pids();
    process.kill(before.nats, 'SIGKILL');
    const down = await until('/readyz 503', readyz, (r) => r.status === 503);
    expect(down.body).toMatchObject({ ready: false });
    await until('/readyz 200 again', readyz, (r) => r.status === 200);
    expect(out).toMatch(/^\[nats\s*\] \S+ WARN\s+died \(killed by SIGKILL\) after [\d.]+ s up; restarting in 0\.5 s/m);
    await until('a signed request answers 200', () => root.listJobs().then((r) => r.status, () => 0), (s) => s === 200);
    const after = pids();
    for (const s of ['gateway', 'jobs', 'projects', 'explore']) expect(after[s]).toBe(before[s]);
  }, 60_000);

  it('SIGINT (Ctrl-C) stops everything, and nothing is restarted', async () => {
    expect({ exitCode: run.exitCode, signal: run.signalCode }).toEqual({ exitCode: null, signal: null }); // still up
    const running = pids();
    const mark = out.length;
    const exited = new Promise<number | null>((r) => run.once('exit', (code) => r(code)));
    run.kill('SIGINT');
    expect(await exited).toBe(0);
    for (const pid of Object.values(running)) expect(alive(pid)).toBe(false);
    expect(out.slice(mark)).not.toMatch(/died|started \(pid/);
  }, 30_000);
});
