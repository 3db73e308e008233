/**
 * The README's first session, as written (issue 33): the shell block of README "A first
 * signed request" is read from README.md (never copied here), `npm run up` is started as a
 * user starts it but on free (non-default) ports and a temporary SML_DATA_DIR, the `export`
 * lines it prints are pasted in front of every other command of the block, and each command
 * is run with bash, in a shell that has nothing else of SML in its environment: each must
 * exit 0 and print what the README says it prints.
 * `SML_SKIP_BUILD=1`: the tree the system tier runs is built already (no install, no build).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, repoRoot } from '@sml/testkit';

const root = repoRoot();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The commands of README "A first signed request"'s shell block: its lines but blank and comment ones. */
function firstSessionBlock(): string[] {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.split(/^## /m).find((s) => s.startsWith('A first signed request\n'));
  const block = section && /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('README.md: no ```sh block under "## A first signed request"');
  return block.split('\n').filter((l) => l.trim() !== '' && !l.trimStart().startsWith('#'));
}

/** The variable names an `export A=… B=…` line sets, in order. */
const exportedNames = (line: string) => [...line.matchAll(/(?:^export|\s)([A-Z_][A-Z0-9_]*)=/g)].map((m) => m[1]);

/** What each command of the block must print, by what it runs; a command not named here fails the test. */
const EXPECTED: { command: RegExp; prints: RegExp }[] = [
  { command: /sml -- admin user add \w+/, prints: /secret key \(shown only once\): [A-Za-z0-9+/]{22}==/ },
  { command: /sml -- jobs list/, prints: /.*/ },
  { command: /\/readyz/, prints: /^\{"ready":true,.* HTTP 200$/m },
  { command: /\/openapi\.json/, prints: /^\{"openapi":"3\.\d/ },
];

/** The environment of a fresh shell: nothing of SML or NATS but what the test sets. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(SML_|NATS_)/.test(k)) env[k] = v;
  return { ...env, ...extra };
}

function bash(script: string, env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('bash', ['-c', script], { cwd: root, env, timeout: 30_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

describe('README "A first signed request" works as written on non-default ports', () => {
  const commands = firstSessionBlock();
  let up: ChildProcess;
  let out = '';
  let dataDir: string;
  let natsPort: number;
  let port: number;

  beforeAll(async () => {
    expect(commands[0]).toMatch(/^npm run up\b/);
    dataDir = mkdtempSync(join(tmpdir(), 'sml-first-session-'));
    [port, natsPort] = [await freePort(), await freePort()];
    // Its own process group, so that the test's Ctrl-C (SIGINT to the group) reaches npm, bash and node as a terminal's would.
    up = spawn('npm', ['run', 'up'], {
      cwd: root, detached: true, stdio: ['ignore', 'pipe', 'pipe'],
      env: cleanEnv({ SML_PORT: String(port), SML_NATS_PORT: String(natsPort), SML_DATA_DIR: dataDir, SML_SKIP_BUILD: '1' }),
    });
    const keep = (d: Buffer) => { out += d.toString(); };
    up.stdout!.on('data', keep);
    up.stderr!.on('data', keep);
    const t0 = Date.now();
    while (!/^export NATS_URL=.*$/m.test(out)) {
      if (Date.now() - t0 > 40_000 || up.exitCode !== null) throw new Error(`npm run up did not come up\n${out.slice(-4000)}`);
      await sleep(100);
    }
  }, 60_000);

  afterAll(async () => {
    if (up?.pid !== undefined && up.exitCode === null && up.signalCode === null) {
      const stopped = new Promise<boolean>((r) => {
        const late = setTimeout(() => r(false), 20_000);
        up.once('exit', () => { clearTimeout(late); r(true); });
      });
      process.kill(-up.pid, 'SIGINT');
      if (!await stopped) process.kill(-up.pid, 'SIGKILL');
    }
    rmSync(dataDir, { recursive: true, force: true });
  }, 30_000);

  /** The `export` lines `npm run up` printed once ready. */
  const printedExports = () => out.slice(out.indexOf('SML is up')).split('\n').filter((l) => l.startsWith('export '));

  it('npm run up prints a line per phase, then export lines naming what the README exports, with this run\'s ports and data dir', () => {
    expect(out).toMatch(/^==> install and build skipped \(SML_SKIP_BUILD=1\)/m);
    expect(out).toContain(`==> starting nats-server on 127.0.0.1:${natsPort}`);
    expect(out).toMatch(/^==> starting gateway, jobs, projects, explore, encoders, streams/m);
    expect(out).toContain(`==> waiting for the gateway: GET http://127.0.0.1:${port}/readyz`);
    const readmeExports = commands.filter((c) => c.startsWith('export '));
    expect(readmeExports.length).toBeGreaterThan(0);
    expect(printedExports().map(exportedNames)).toEqual(readmeExports.map(exportedNames));
    const printed = printedExports().join('\n');
    expect(printed).toContain(`SML_URL=http://127.0.0.1:${port} `);
    expect(printed).toContain(`NATS_URL=nats://127.0.0.1:${natsPort} `);
    expect(printed).toContain(`SML_DATA_DIR=${dataDir}`);
  });

  it('every other command of the block, after the printed exports, exits 0 and prints what the README says', async () => {
    const exports = printedExports().join('\n');
    const runs = commands.slice(1).filter((c) => !c.startsWith('export '));
    expect(runs.length).toBeGreaterThanOrEqual(EXPECTED.length);
    for (const command of runs) {
      const expected = EXPECTED.find((e) => e.command.test(command));
      if (!expected) throw new Error(`README first-session command without an expectation in this test: ${command}`);
      const r = await bash(`${exports}\n${command}`, cleanEnv({}));
      expect({ command, code: r.code, stderr: r.stderr }).toEqual({ command, code: 0, stderr: expect.any(String) });
      expect({ command, stdout: r.stdout }).toEqual({ command, stdout: expect.stringMatching(expected.prints) });
    }
  }, 45_000);
});
