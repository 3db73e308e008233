/**
 * Every test file is in the tier its name says (jest.config.js): `*.e2e.test.ts` exactly when
 * it starts SML services as processes (or uses the ones its jest worker shares), `*.int.test.ts` exactly when it starts one real server
 * or tool (and no SML service), a plain `*.test.ts` neither. A file is read with the local
 * helpers it imports from a test folder (services/streams/test/helpers.ts starts a system for
 * its callers). The patterns are the starters of @sml/testkit and node's own ways to start a
 * process or listen; scripts/jest-tier.js enforces the unit tier again at run time.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(__dirname, '..');

/** Starts SML services as processes. */
const SYSTEM: [RegExp, string][] = [
  [/\bstartSystem\s*\(/, 'startSystem'],
  [/\bsharedSystem\s*\(/, 'sharedSystem (a system shared by the files of a jest worker)'],
  [/\bstartFederationLab\s*\(/, 'startFederationLab (several systems)'],
  [/scripts\/(run\.mjs|up\.sh)\b/, 'scripts/run.mjs (npm run up)'],
  [/\bservices\/\w+\/dist\//, "a service's dist"],
];
/** Starts a real server or process of another kind, or opens a listening socket. */
const SERVER: [RegExp, string][] = [
  [/\b(startNatsServer|startNatsCluster|natsProcess|startPostgres|startS3|startKafkaMock)\s*\(/, '@sml/testkit starter'],
  [/['"](node:)?child_process['"]/, 'child_process'],
  [/\bcreateServer\s*\(|\.listen\s*\(/, 'a listening server'],
  [/\bfreePort\s*\(/, 'freePort (listens on a port)'],
  [/scripts\/supervisor\.cjs/, 'scripts/supervisor.cjs (starts child processes)'],
];

type Tier = 'unit' | 'integration' | 'system';
const tierOfName = (file: string): Tier => (file.endsWith('.e2e.test.ts') ? 'system' : file.endsWith('.int.test.ts') ? 'integration' : 'unit');

/** The lines that are code: comment lines (`//`, `/*`, ` *`) say what a test does, they do not do it. */
const code = (text: string): string => text.split('\n').filter((l) => !/^\s*(\/\/|\/\*|\*)/.test(l)).join('\n');

const hits = (text: string, patterns: [RegExp, string][]): string[] => patterns.filter(([re]) => re.test(text)).map(([, name]) => name);

/** Which tier a file's text belongs to, and why. */
function tierOfText(text: string): { tier: Tier; because: string[] } {
  const body = code(text);
  const system = hits(body, SYSTEM);
  if (system.length > 0) return { tier: 'system', because: system };
  const server = hits(body, SERVER);
  return server.length > 0 ? { tier: 'integration', because: server } : { tier: 'unit', because: [] };
}

/** A problem with a file's name, or undefined. */
function misnamed(file: string, text: string): string | undefined {
  const named = tierOfName(file);
  const { tier, because } = tierOfText(text);
  if (named === tier) return undefined;
  const want = { unit: '*.test.ts', integration: '*.int.test.ts', system: '*.e2e.test.ts' }[tier];
  const why = because.length > 0 ? `it uses ${because.join(', ')}` : 'it starts no server and no process';
  return `${relative(root, file)} is named as ${named} but is ${tier}: ${why}; rename it ${want}`;
}

function testFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) testFiles(path, out);
    else if (entry.name.endsWith('.test.ts') && path.split('/').includes('test')) out.push(path);
  }
  return out;
}

/** A file's text followed by that of the helpers it imports (transitively) from test folders. */
function withHelpers(file: string, seen = new Set<string>()): string {
  if (seen.has(file)) return '';
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  const helpers = [...text.matchAll(/from '(\.\.?\/[^']+)'/g)]
    .map((m) => resolve(dirname(file), m[1]) + '.ts')
    .filter((p) => p.split('/').includes('test') && !p.endsWith('.test.ts') && existsSync(p));
  return [text, ...helpers.map((h) => withHelpers(h, seen))].join('\n');
}

// This file holds the patterns' examples as data, not as calls.
const files = ['packages', 'services', 'test', 'clients'].flatMap((d) => testFiles(join(root, d))).filter((f) => f !== __filename);

test('every test file is named for its tier', () => {
  expect(files.length).toBeGreaterThan(150);
  const problems = files.map((f) => misnamed(f, withHelpers(f))).filter((p) => p !== undefined);
  expect(problems).toEqual([]);
});

test('every tier has files (the patterns still find what they look for)', () => {
  const tiers = new Set(files.map(tierOfName));
  expect([...tiers].sort()).toEqual(['integration', 'system', 'unit']);
});

describe('a misnamed file is named', () => {
  it('a plain test that starts nats-server', () => {
    expect(misnamed(join(root, 'packages/bus/test/x.test.ts'), "import { startNatsServer } from '@sml/testkit';\nconst n = await startNatsServer();"))
      .toMatch(/x\.test\.ts is named as unit but is integration: it uses @sml\/testkit starter; rename it \*\.int\.test\.ts/);
  });
  it('a plain or integration test that starts a system', () => {
    expect(misnamed('/r/a.test.ts', 'sys = await startSystem({ services: [] });')).toMatch(/unit but is system.*\*\.e2e\.test\.ts/);
    expect(misnamed('/r/a.int.test.ts', 'sys = await startSystem();')).toMatch(/integration but is system/);
    expect(misnamed('/r/a.test.ts', "sys = await sharedSystem('default');")).toMatch(/unit but is system: it uses sharedSystem/);
  });
  it('a plain test with a child process or a listening server', () => {
    expect(misnamed('/r/a.test.ts', "import { spawnSync } from 'node:child_process';")).toMatch(/child_process/);
    expect(misnamed('/r/a.test.ts', 'server.listen(0, "127.0.0.1");')).toMatch(/a listening server/);
  });
  it('an e2e or integration test that starts nothing', () => {
    expect(misnamed('/r/a.e2e.test.ts', 'expect(1).toBe(1);')).toMatch(/system but is unit: it starts no server/);
    expect(misnamed('/r/a.int.test.ts', 'expect(1).toBe(1);')).toMatch(/integration but is unit/);
  });
  it('but not a comment that mentions a starter', () => {
    expect(misnamed('/r/a.test.ts', '// unlike startSystem(), this needs nothing\n * or startNatsServer()')).toBeUndefined();
  });
});
