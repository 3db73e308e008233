// globalSetup of the jest `system` project (jest.config.js): one directory per jest run where
// the hosts of shared systems (packages/testkit/src/shared-host.ts) record their state, one
// file per worker and profile. Workers are started after this and inherit the variable.
const { mkdtempSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

module.exports = async () => {
  process.env.SML_SHARED_SYSTEMS_DIR = mkdtempSync(join(tmpdir(), 'sml-shared-'));
};
