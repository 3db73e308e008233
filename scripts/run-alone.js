// A reader-writer lock across jest workers, kept as files in one directory (`gate`): a file
// that runs alone holds it exclusively, every other file shares it. Used by
// scripts/jest-alone.js; test/run-alone.test.ts checks it.
const fs = require('node:fs');
const path = require('node:path');

const POLL_MS = 100;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Waits until the file `what` of worker `worker` may run, and returns its release. `alone`:
 * until no other file runs (and none starts meanwhile); otherwise until no alone file runs.
 */
async function enter(gate, { worker, alone, what = '' }) {
  fs.mkdirSync(gate, { recursive: true });
  const running = path.join(gate, `running-${worker}`);
  const exclusive = path.join(gate, 'alone');
  if (alone) {
    // Take the exclusive mark (one alone file at a time), then let the running files finish.
    for (;;) {
      try {
        fs.writeFileSync(exclusive, what, { flag: 'wx' });
        break;
      } catch {
        await sleep(POLL_MS);
      }
    }
    while (fs.readdirSync(gate).some((f) => f.startsWith('running-') && path.join(gate, f) !== running)) await sleep(POLL_MS);
    return () => fs.rmSync(exclusive, { force: true });
  }
  // Announce first, then look: an alone file that took its mark meanwhile waits for this one.
  for (;;) {
    fs.writeFileSync(running, what);
    if (!fs.existsSync(exclusive)) return () => fs.rmSync(running, { force: true });
    fs.rmSync(running, { force: true });
    while (fs.existsSync(exclusive)) await sleep(POLL_MS);
  }
}

module.exports = { enter };
