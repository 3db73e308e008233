/**
 * scripts/supervisor.cjs, the local supervision of `npm run up` (issue 9, item 9), with real
 * child processes and short back-off figures.
 */
import { join } from 'node:path';
import { repoRoot } from '@sml/testkit';
import { alive, sleep } from './processes';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Supervisor, BACKOFF, nextDelay } = require(join(repoRoot(), 'scripts/supervisor.cjs'));

const node = (code: string) => [process.execPath, ['-e', code]] as const;
async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const t0 = Date.now();
  while (!check()) {
    if (Date.now() - t0 > timeoutMs) throw new Error('condition not met in time');
    await sleep(20);
  }
}

describe('back-off', () => {
  it('0.5 s doubling to 30 s, back to 0.5 s after a run of 60 s', () => {
    expect(BACKOFF).toEqual({ initialMs: 500, maxMs: 30_000, resetAfterMs: 60_000 });
    const delays: number[] = [];
    let d: number | undefined;
    for (let i = 0; i < 9; i++) delays.push(d = nextDelay(d, 1000));
    expect(delays).toEqual([500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000]);
    expect(nextDelay(30_000, 59_999)).toBe(30_000);
    expect(nextDelay(30_000, 60_000)).toBe(500);
  });
});

describe('Supervisor', () => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- scripts/supervisor.cjs is untyped JavaScript
  let sup: any;
  let lines: { name: string; line: string; level: string; t: number }[];
  const said = (name: string, re: RegExp) => lines.filter((l) => l.name === name && re.test(l.line));

  beforeEach(() => {
    lines = [];
    sup = new Supervisor({
      backoff: { initialMs: 100, maxMs: 400, resetAfterMs: 5000 },
      stopTimeoutMs: 2000,
      log: (name: string, line: string, level: string) => lines.push({ name, line, level, t: Date.now() }),
    });
  });
  afterEach(() => sup.stop());

  it('restarts a process that dies with a doubling back-off and says why and when; the others keep running', async () => {
    sup.start('crashy', ...node('setTimeout(() => process.exit(3), 30)'));
    sup.start('steady', ...node('setInterval(() => {}, 1000)'));
    const steady = sup.pid('steady');
    await until(() => sup.restarts('crashy') >= 5);
    const died = said('crashy', /^died/);
    expect(died[0].line).toMatch(/^died \(exit code 3\) after \d+\.\d s up; restarting in 0\.1 s, at \d\d:\d\d:\d\d\.\d{3} \(restart #1\)$/);
    expect(died[0].level).toBe('warn');
    expect(died.slice(0, 5).map((l) => /restarting in ([\d.]+) s/.exec(l.line)![1])).toEqual(['0.1', '0.2', '0.4', '0.4', '0.4']);
    // The restart comes after the announced delay.
    const restarted = said('crashy', /^restarted \(pid \d+\)$/);
    expect(restarted.length).toBeGreaterThanOrEqual(4);
    expect(restarted[1].t - died[1].t).toBeGreaterThanOrEqual(190);
    expect(sup.pid('steady')).toBe(steady);
    expect(alive(steady)).toBe(true);
    expect(said('steady', /died/)).toEqual([]);
  });

  it('names the signal of a killed process and starts a new one', async () => {
    sup.start('victim', ...node('setInterval(() => {}, 1000)'));
    const first = sup.pid('victim');
    process.kill(first, 'SIGKILL');
    await until(() => sup.pid('victim') !== undefined && sup.pid('victim') !== first);
    expect(said('victim', /^died/)[0].line).toMatch(/^died \(killed by SIGKILL\) after [\d.]+ s up; restarting in 0\.1 s/);
    expect(alive(sup.pid('victim'))).toBe(true);
  });

  it('goes back to the initial delay after a run longer than resetAfterMs', async () => {
    sup = new Supervisor({
      backoff: { initialMs: 50, maxMs: 1000, resetAfterMs: 200 },
      log: (name: string, line: string, level: string) => lines.push({ name, line, level, t: Date.now() }),
    });
    sup.start('slow', ...node('setTimeout(() => process.exit(1), 300)'));
    await until(() => sup.restarts('slow') >= 3);
    expect(said('slow', /^died/).slice(0, 3).map((l) => /restarting in ([\d.]+) s/.exec(l.line)![1])).toEqual(['0.1', '0.1', '0.1']);
  });

  it('retries a command that cannot be started', async () => {
    sup.start('missing', '/nonexistent/binary', []);
    await until(() => sup.restarts('missing') >= 2);
    expect(said('missing', /^died/)[0].line).toMatch(/^died \(could not start: .*ENOENT.*\); restarting in 0\.1 s/);
  });

  it('stop() stops everything, the `last` ones after the others, and nothing restarts after it', async () => {
    const exits: Record<string, number> = {};
    // A service that takes 300 ms to stop on SIGTERM; the "server" stops at once.
    sup.start('service', ...node("process.on('SIGTERM', () => setTimeout(() => process.exit(0), 300)); setInterval(() => {}, 1000)"));
    sup.start('server', ...node('setInterval(() => {}, 1000)'), { last: true });
    sup.start('crashy', ...node('setTimeout(() => process.exit(3), 30)'));
    const pids = { service: sup.pid('service'), server: sup.pid('server') };
    await until(() => sup.restarts('crashy') >= 1);
    for (const [name, pid] of Object.entries(pids)) {
      void (async () => {
        await until(() => !alive(pid), 10_000).catch(() => undefined);
        exits[name] = Date.now();
      })();
    }
    await sleep(300); // let the child processes install their handlers
    const restarts = sup.restarts('crashy');
    await sup.stop();
    await until(() => exits.service !== undefined && exits.server !== undefined);
    expect(exits.server).toBeGreaterThanOrEqual(exits.service);
    await sleep(500);
    expect(sup.restarts('crashy')).toBeLessThanOrEqual(restarts + 1);
    expect(sup.pid('crashy')).toBeUndefined();
    expect(said('service', /died/)).toEqual([]);
  });
});
