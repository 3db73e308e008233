// Keeps the unit tier what it claims: no process, no socket. In a `*.test.ts` file (jest
// project `unit`) starting a child process or listening on a port throws, naming the file and
// the tier it belongs to, so a test that needs nats-server (or any real server) cannot hide
// among the unit tests and slow the inner loop down.
//
// Node's built-in modules are shared by every test file a jest worker runs (jest gives each
// file its own registry, not its own `child_process`), so the patch is installed once per
// worker and switched on or off for each file by its tier (jest.config.js `globals`), before
// the file's own code runs; worker threads have modules of their own and stay allowed.
// Outgoing connections are not refused: with no server of its own a unit test has nothing to
// reach, and some check a guard that refuses the address before any connection is made
// (services/streams/test/probe.test.ts).
/* global expect, afterAll -- jest's globals: this file is in setupFilesAfterEnv */
const childProcess = require('node:child_process');
const net = require('node:net');
const path = require('node:path');
const { promisify } = require('node:util');

const STATE = Symbol.for('sml.jest.unitGuard');
const guard = (childProcess[STATE] ??= install());
guard.file = path.relative(path.join(__dirname, '..'), expect.getState().testPath ?? '');
guard.active = globalThis.SML_TEST_TIER === 'unit';
afterAll(() => {
  guard.active = false;
});

function install() {
  const state = { active: false, file: '' };
  const refuse = (what) => {
    throw new Error(
      `${state.file} is a unit test (named *.test.ts), which runs no process and opens no socket, `
      + `but it ${what}. Rename it *.int.test.ts if it starts one real server or tool `
      + '(nats-server, PostgreSQL, s3rver, the Kafka mock, an HTTP stand-in, a child process), '
      + 'or *.e2e.test.ts if it starts SML services (startSystem); see CONTRIBUTING.md "Test tiers".',
    );
  };
  const guarded = (original, what) => function (...args) {
    if (state.active) refuse(typeof what === 'function' ? what(args) : what);
    return original.apply(this, args);
  };
  const wrap = (owner, name, what) => {
    const original = owner[name];
    owner[name] = guarded(original, what);
    // exec and execFile carry their own promisified form ({ stdout, stderr }), which
    // util.promisify returns: keep it, guarded too (testkit's postgres.ts relies on it).
    const custom = original[promisify.custom];
    if (custom) owner[name][promisify.custom] = guarded(custom, what);
  };
  const command = (name) => (args) => `started a child process (child_process.${name} ${typeof args[0] === 'string' ? args[0] : ''})`.replace(' )', ')');
  for (const name of ['spawn', 'spawnSync', 'fork', 'exec', 'execSync', 'execFile', 'execFileSync']) wrap(childProcess, name, command(name));
  wrap(net.Server.prototype, 'listen', 'listened on a socket (net.Server.listen: an HTTP, WebSocket or TCP server)');
  return state;
}
