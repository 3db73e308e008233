import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nameToken } from '@sml/core';
import { newCustomer, sharedSystem } from '@sml/testkit';

// The Python client against a running system: its pytest files (clients/python/tests) and the
// tutorial notebook, executed. A customer of their own; the address and credentials in the
// environment (tests/conftest.py and the notebook read them), and the customer's files root for
// the data-source tests (tests/test_datasources.py). Debian's python3 has what they use
// (scripts/prereqs.sh --test installs it).
const PYTHON = process.env.SML_PYTHON ?? '/usr/bin/python3';
const DIR = join(__dirname, '..');

describe('the Python client', () => {
  let env: NodeJS.ProcessEnv;
  let scratch: string;

  beforeAll(async () => {
    const sys = await sharedSystem();
    const customer = await newCustomer(sys, 'python');
    customer.sdk.close();
    scratch = mkdtempSync(join(tmpdir(), 'sml-python-'));
    env = {
      ...process.env, SML_URL: sys.url, SML_USER: customer.user, SML_SECRET: customer.secret, SML_BASE_PATH: sys.basePath,
      SML_FILES_DIR: join(sys.dataDir, 'files', nameToken(customer.user)), PYTHONDONTWRITEBYTECODE: '1',
      // Jupyter's and IPython's state (kernel connection files, history) stay in this run's folder.
      JUPYTER_RUNTIME_DIR: join(scratch, 'runtime'), IPYTHONDIR: join(scratch, 'ipython'),
    };
  }, 120_000);
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  const run = (args: string[]): SpawnSyncReturns<string> => spawnSync(PYTHON, args, { cwd: DIR, encoding: 'utf8', timeout: 240_000, env });

  it('passes its pytest files against a running system', () => {
    const out = run(['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'tests']);
    // pytest's own report is the failure message: which test, which assertion.
    if (out.status !== 0) throw new Error(`pytest exited ${out.status}\n${out.stdout}\n${out.stderr}`);
    expect(out.stdout).toMatch(/passed/);
    expect(out.stdout).not.toMatch(/skipped/);
  }, 300_000);

  it('runs the tutorial notebook to the end (every cell checks its result)', () => {
    const out = run(['-m', 'nbconvert', '--to', 'notebook', '--execute', '--ExecutePreprocessor.timeout=120',
      '--output-dir', scratch, 'tutorial.ipynb']);
    // nbconvert names the failing cell and its traceback on stderr.
    if (out.status !== 0) throw new Error(`nbconvert exited ${out.status}\n${out.stderr}`);
  }, 300_000);
});
