// Lets `npm test` run two jest workers while timing-sensitive files still run alone. A test file
// whose text holds the marker `@sml-run-alone` (with its reason) waits until no other file runs,
// unit files aside (jest.config.js leaves them out of the gate),
// and no file starts while it runs (scripts/run-alone.js: a lock across the workers, kept in the
// run's directory made by scripts/jest-system-setup.js). Without that directory (a run without
// the system tier) there is nothing to wait for. The hook allows a long wait: jest's own timeout
// would fail a file that waits for the files ahead of it to finish.
/* global expect, beforeAll, afterAll -- jest's globals: this file is in setupFilesAfterEnv */
const fs = require('node:fs');
const path = require('node:path');
const { enter } = require('./run-alone');

const MARKER = '@sml-run-alone';
const WAIT_MS = 20 * 60_000;

const dir = process.env.SML_SHARED_SYSTEMS_DIR;
const testPath = expect.getState().testPath;
if (dir && testPath) {
  let release = () => undefined;
  beforeAll(async () => {
    release = await enter(path.join(dir, 'gate'), {
      worker: process.env.JEST_WORKER_ID ?? '1',
      alone: fs.readFileSync(testPath, 'utf8').includes(MARKER),
      what: testPath,
    });
  }, WAIT_MS);
  afterAll(() => release());
}
