// Runs the whole system in the foreground: a local nats-server with JetStream under
// $SML_DATA_DIR (unless NATS_URL is set), then every built service process. Service logs
// (pino JSON) are shown one readable line each. Every process, nats-server included, is
// supervised (scripts/supervisor.cjs): one that dies is restarted after a back-off while the
// others keep running. Ctrl-C / SIGTERM stops everything cleanly. Each service connects to
// NATS as its own bus identity (README "Bus security").
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Supervisor } from './supervisor.cjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// glibc malloc settings for every process (packages/core/src/malloc.ts says why); the environment may override them.
const { MALLOC_ENV } = createRequire(import.meta.url)(join(root, 'packages/core/dist/index.js'));
const env = { ...MALLOC_ENV, ...process.env };
env.SML_DATA_DIR = resolve(env.SML_DATA_DIR ?? join(root, '.sml'));
env.SML_PORT ??= '8080';
env.SML_FILES_ROOT ??= join(env.SML_DATA_DIR, 'files');
// SML_SOURCES_ALLOW_PRIVATE keeps its default (false): http, s3 and redshift data sources
// cannot reach loopback, private or link-local addresses (README "Data sources"); set it to
// true to read, say, a MinIO or PostgreSQL on this machine.
const natsPort = env.SML_NATS_PORT ?? '4222';
if (!/^\d{1,5}$/.test(natsPort) || Number(natsPort) > 65535) {
  console.error(`Invalid environment: SML_NATS_PORT: must be a port number, got ${JSON.stringify(natsPort)}`);
  process.exit(1);
}
mkdirSync(env.SML_FILES_ROOT, { recursive: true });
const bus = createRequire(import.meta.url)(join(root, 'packages/bus/dist/index.js'));
// <identity>.env files: generated here for the embedded server, supplied by the operator
// (scripts/nats-auth.mjs) for an external NATS_URL.
const authDir = bus.localBusCredentialsDir(env.SML_DATA_DIR);

let stopping = false;

function natsBinary() {
  for (const p of ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server']) if (existsSync(p)) return p;
  return 'nats-server';
}

const LEVELS = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
function show(name, line) {
  let text = line;
  try {
    const { level, time, msg, svc: _svc, name: _n, pid: _p, hostname: _h, v: _v, ...rest } = JSON.parse(line);
    const extra = Object.keys(rest).length ? ' ' + JSON.stringify(rest) : '';
    text = `${new Date(time).toISOString().slice(11, 23)} ${(LEVELS[level] ?? level).padEnd(5)} ${msg ?? ''}${extra}`;
  } catch { /* not JSON: show as is */ }
  process.stdout.write(`[${name.padEnd(8)}] ${text}\n`);
}

const supervisor = new Supervisor({
  log: (name, line, level) => show(name, JSON.stringify({ level: level === 'warn' ? 40 : 30, time: Date.now(), msg: line })),
});

/** Starts `cmd args` as `name` under supervision: restarted with a back-off whenever it dies. */
function start(name, cmd, args, childEnv = env) {
  supervisor.start(name, cmd, args, {
    env: childEnv,
    last: name === 'nats', // stopped after the services
    onStart: (child) => { for (const s of [child.stdout, child.stderr]) createInterface({ input: s }).on('line', (l) => show(name, l)); },
  });
}

async function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  // Services first (they snapshot and drain), nats-server last; no restart after this.
  await supervisor.stop();
  process.exit(code);
}
process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));

if (!env.NATS_URL) {
  const conf = join(env.SML_DATA_DIR, 'nats.conf');
  // One user per bus identity: passwords generated once and kept in $SML_DATA_DIR/nats-auth
  // (0600); nats.conf gets their bcrypt hashes and the permissions of packages/bus/src/permissions.ts.
  const authorization = bus.busAuthorizationConf(bus.ensureBusCredentials(authDir));
  writeFileSync(conf, `listen: 127.0.0.1:${natsPort}\nmax_payload: 8MB\njetstream { store_dir: "${join(env.SML_DATA_DIR, 'jetstream')}" }\n${authorization}`, { mode: 0o600 });
  chmodSync(conf, 0o600);
  if (spawnSync(natsBinary(), ['--version']).status !== 0) {
    console.error('nats-server not found: run `bash scripts/prereqs.sh` (installs the Debian package)');
    process.exit(1);
  }
  phase(`starting nats-server on 127.0.0.1:${natsPort} (JetStream store ${join(env.SML_DATA_DIR, 'jetstream')})`);
  start('nats', natsBinary(), ['-c', conf]);
  env.NATS_URL = `nats://127.0.0.1:${natsPort}`;
  await waitFor(async () => {
    const net = await import('node:net');
    return new Promise((ok) => { const s = net.connect(Number(natsPort), '127.0.0.1', () => { s.end(); ok(true); }); s.on('error', () => ok(false)); });
  }, 'nats-server');
} else {
  phase(`using the NATS server at ${env.NATS_URL} (NATS_URL)`);
}

const services = [['users', 'services/gateway/dist/main.js']];
for (const s of ['jobs', 'projects', 'explore', 'encoders', 'streams', 'federation']) {
  const entry = `services/${s}/dist/main.js`;
  if (existsSync(join(root, entry))) services.push([s, entry]);
}
env.SML_REQUIRED_SERVICES ??= services.map(([s]) => s).join(',');
// SML_PROJECTS_REPLICAS=3: three projects processes sharing the projects' shards out (16 of
// them unless SML_PROJECT_SHARDS says otherwise), each taking over a dead one's (README "Replicas").
const projectsReplicas = Number(env.SML_PROJECTS_REPLICAS ?? '1');
if (!Number.isInteger(projectsReplicas) || projectsReplicas < 1 || projectsReplicas > 8) {
  console.error(`Invalid environment: SML_PROJECTS_REPLICAS: must be an integer from 1 to 8, got ${JSON.stringify(env.SML_PROJECTS_REPLICAS)}`);
  process.exit(1);
}
if (projectsReplicas > 1) env.SML_PROJECT_SHARDS ??= '16';
phase(`starting ${services.map(([s]) => (s === 'users' ? 'gateway' : s)).join(', ')} (each says "started (pid …)")`);
for (const [name, entry] of services) {
  // Its own credentials only (never logged); without an <identity>.env, whatever SML_NATS_USER /
  // SML_NATS_PASSWORD the environment has (an external NATS_URL).
  const creds = bus.readBusCredentials(authDir, bus.SERVICE_IDENTITY[name]);
  const childEnv = creds ? { ...env, SML_NATS_USER: creds.user, SML_NATS_PASSWORD: creds.password } : env;
  const replicas = name === 'projects' ? projectsReplicas : 1;
  for (let r = 1; r <= replicas; r++) {
    // A replica restarted by the supervisor keeps its name, so it takes its own lease back at once.
    const processName = name === 'users' ? 'gateway' : r === 1 ? name : `${name}#${r}`;
    start(processName, process.execPath, [join(root, entry)], { ...childEnv, SML_REPLICA_ID: processName });
  }
}

const url = `http://127.0.0.1:${env.SML_PORT}`;
phase(`waiting for the gateway: GET ${url}/readyz answers 200 once every service does`);
await waitFor(async () => (await fetch(`${url}/readyz`).catch(() => ({ status: 0 }))).status === 200, 'the gateway /readyz');
const credentials = join(env.SML_DATA_DIR, 'credentials');
const user = env.SML_ROOT_USER ?? 'root';
const secret = env.SML_ROOT_SECRET ?? (existsSync(credentials) ? /SML_SECRET=(.*)/.exec(readFileSync(credentials, 'utf8'))?.[1] : undefined);
process.stdout.write(`\nSML is up: ${url}${env.SML_BASE_PATH ?? '/symetry/rest'}\n  root user:   ${user}\n  root secret: ${secret ?? '(see ' + credentials + ')'}\n`
  + `  bus credentials: ${authDir} (sml admin uses admin.env there)\n`
  + `For the README's next commands, paste these lines into the shell you run them from (in this directory):\n${exportLines(secret).join('\n')}\n`
  + `  Ctrl-C stops everything.\n\n`);

/** A `==>` line per phase, as scripts/up.sh prints its own. */
function phase(text) {
  process.stdout.write(`==> ${text}\n`);
}

/** A value as one shell word: bare when it is safe so, else single-quoted. */
function shellWord(value) {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`;
}

/**
 * The `export` lines a second shell needs for the README's first session on whatever ports
 * this run uses: the REST settings of `sml` and the SDK (SML_URL, SML_USER, SML_SECRET), and
 * what `sml admin` reads to reach the bus (NATS_URL, and SML_DATA_DIR for the admin
 * identity's credentials; with an external NATS_URL, SML_NATS_USER/SML_NATS_PASSWORD instead).
 */
function exportLines(rootSecret) {
  const secretWord = rootSecret === undefined ? `"$(sed -n 's/^SML_SECRET=//p' ${shellWord(credentials)})"` : shellWord(rootSecret);
  const rest = `export SML_URL=${shellWord(url)} SML_USER=${shellWord(user)} SML_SECRET=${secretWord}`;
  const bus = `export NATS_URL=${shellWord(env.NATS_URL)} SML_DATA_DIR=${shellWord(env.SML_DATA_DIR)}`;
  const root = user === 'root' ? '' : ` SML_ROOT_USER=${shellWord(user)}`;
  return [rest, bus + root];
}

async function waitFor(check, what, timeoutMs = 30_000) {
  const t0 = Date.now();
  while (Date.now() - t0 < timeoutMs) {
    if (stopping) return;
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  console.error(`${what} not ready after ${timeoutMs} ms`);
  await stop(1);
}
