import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { nameToken } from '@sml/core';
import { newCustomer, sharedSystem } from '@sml/testkit';

// The Python client's pytest files (clients/python/tests) against a running system: a customer
// of their own, the address and credentials in the environment (tests/conftest.py reads them),
// and the customer's files root for the data-source tests (tests/test_datasources.py).
// Debian's python3 has pandas and pytest (scripts/prereqs.sh --test installs them).
const PYTHON = process.env.SML_PYTHON ?? '/usr/bin/python3';

describe('the Python client', () => {
  it('passes its pytest files against a running system', async () => {
    const sys = await sharedSystem();
    const customer = await newCustomer(sys, 'python');
    customer.sdk.close();
    const dir = join(__dirname, '..');
    const run = spawnSync(PYTHON, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'tests'], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 240_000,
      env: { ...process.env, SML_URL: sys.url, SML_USER: customer.user, SML_SECRET: customer.secret, SML_BASE_PATH: sys.basePath,
        SML_FILES_DIR: join(sys.dataDir, 'files', nameToken(customer.user)), PYTHONDONTWRITEBYTECODE: '1' },
    });
    // pytest's own report is the failure message: which test, which assertion.
    if (run.status !== 0) throw new Error(`pytest exited ${run.status}\n${run.stdout}\n${run.stderr}`);
    expect(run.stdout).toMatch(/passed/);
    expect(run.stdout).not.toMatch(/skipped/);
  }, 300_000);
});
