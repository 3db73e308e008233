// globalTeardown of the jest `system` project: stops every shared system the run started (each
// host stops its services and nats-server on SIGTERM) and waits for the hosts to exit, so that
// no nats-server or service process outlives `npm test`. A host that does not exit in time is
// killed; its services then stop through their IPC lifeline.
const { readdirSync, readFileSync, rmSync } = require('node:fs');
const { join } = require('node:path');

const GRACE_MS = 30_000;

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

module.exports = async () => {
  const dir = process.env.SML_SHARED_SYSTEMS_DIR;
  if (!dir) return;
  const pids = readdirSync(dir).filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')).pid)
    .filter(alive);
  for (const pid of pids) process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + GRACE_MS;
  while (pids.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  for (const pid of pids.filter(alive)) process.kill(pid, 'SIGKILL');
  rmSync(dir, { recursive: true, force: true });
};
