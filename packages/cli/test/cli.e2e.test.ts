import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startSystem, type RunningSystem } from '@sml/testkit';
import { SmlClient } from '@sml/sdk';
import { sml } from './run';

// End to end against nats-server, the gateway, the jobs and projects services as real
// processes (needs a prior build). projects.int.test.ts pins the transfer details against a stand-in.
describe('sml command line', () => {
  let sys: RunningSystem;
  let adminEnv: NodeJS.ProcessEnv;
  const restEnv = (user: string, secret: string): NodeJS.ProcessEnv => ({ SML_URL: sys.url, SML_USER: user, SML_SECRET: secret });

  /** Adds a customer with `--json` and returns its secret key. */
  const addCustomer = async (user: string): Promise<string> => {
    const r = await sml(['--json', 'admin', 'user', 'add', user], adminEnv);
    expect(r.code).toBe(0);
    return JSON.parse(r.stdout).values.secretKey;
  };

  beforeAll(async () => {
    sys = await startSystem({ services: ['users', 'jobs', 'projects'] });
    // The bus identity `admin` (README "Bus security"): the only one, with the gateway, that may call sml.users.*.
    const admin = sys.nats.credentials!.admin;
    adminEnv = { NATS_URL: sys.nats.url, SML_ROOT_USER: sys.rootUser, SML_NATS_USER: admin.user, SML_NATS_PASSWORD: admin.password };
  });
  afterAll(() => sys?.stop());

  describe('admin user (over the bus)', () => {
    it('add prints the new secret key once, and the key signs requests', async () => {
      const r = await sml(['admin', 'user', 'add', 'alice'], adminEnv);
      expect(r).toEqual({ code: 0, stdout: expect.stringMatching(/^Customer \[alice\] created\nsecret key \(shown only once\): [A-Za-z0-9+/]{22}==\n$/), stderr: '' });
      const secret = r.stdout.trim().split(' ').pop()!;
      const jobs = await new SmlClient({ url: sys.url, user: 'alice', secret }).listJobs();
      expect(jobs.status).toBe(200);
    });

    it('--json prints the envelope with statusCode 201 and values.secretKey', async () => {
      const r = await sml(['--json', 'admin', 'user', 'add', 'bob', '--root'], adminEnv);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({ statusCode: 201, statusString: 'Customer [bob] created', values: { secretKey: expect.stringMatching(/^[A-Za-z0-9+/]{22}==$/) } });
    });

    it('adding an existing customer exits 1 with the statusString on stderr', async () => {
      await addCustomer('carol');
      const r = await sml(['admin', 'user', 'add', 'carol'], adminEnv);
      expect(r).toEqual({ code: 1, stdout: '', stderr: 'Customer [carol] already exists\n' });
    });

    it('list shows every customer with its root flag', async () => {
      await addCustomer('dave');
      const r = await sml(['admin', 'user', 'list'], adminEnv);
      expect(r.code).toBe(0);
      const lines = r.stdout.trim().split('\n');
      expect(lines[0]).toMatch(/^CUSTOMER\s+ROOT\s+CREATED$/);
      expect(lines).toContainEqual(expect.stringMatching(/^dave\s+no\s+\d{4}-\d\d-\d\dT/));
      expect(lines).toContainEqual(expect.stringMatching(/^root\s+yes\s+/));
      const json = JSON.parse((await sml(['--json', 'admin', 'user', 'list'], adminEnv)).stdout);
      expect(json.values.users).toContainEqual({ cid: 'dave', root: false, created: expect.any(Number) });
    });

    it('rotate prints a new key; the old key then gets 401 and the new one 200', async () => {
      const old = await addCustomer('erin');
      const r = await sml(['--json', 'admin', 'user', 'rotate', 'erin'], adminEnv);
      expect(r.code).toBe(0);
      const rotated: string = JSON.parse(r.stdout).values.secretKey;
      expect(rotated).not.toBe(old);
      const withOld = await new SmlClient({ url: sys.url, user: 'erin', secret: old }).listJobs();
      expect(withOld.status).toBe(401);
      const withNew = await new SmlClient({ url: sys.url, user: 'erin', secret: rotated }).listJobs();
      expect(withNew.status).toBe(200);
    });

    it('delete removes the customer from the list and from authentication', async () => {
      const secret = await addCustomer('frank');
      const r = await sml(['admin', 'user', 'delete', 'frank'], adminEnv);
      expect(r).toEqual({ code: 0, stdout: 'Customer [frank] deleted\n', stderr: '' });
      expect((await sml(['admin', 'user', 'list'], adminEnv)).stdout).not.toMatch(/^frank\s/m);
      expect((await new SmlClient({ url: sys.url, user: 'frank', secret }).listJobs()).status).toBe(401);
    });

    it('deleting an unknown customer exits 1 naming it', async () => {
      const r = await sml(['admin', 'user', 'delete', 'nobody'], adminEnv);
      expect(r).toEqual({ code: 1, stdout: '', stderr: 'Unknown customer [nobody]\n' });
    });

    it('without credentials NATS refuses the connection: one clear line, exit 1', async () => {
      const empty = mkdtempSync(join(tmpdir(), 'sml-cli-'));
      try {
        const r = await sml(['admin', 'user', 'list'], { NATS_URL: sys.nats.url, SML_DATA_DIR: empty });
        expect(r).toEqual({ code: 1, stdout: '', stderr: `sml: NATS at ${sys.nats.url} refused a connection without credentials (set SML_NATS_USER and SML_NATS_PASSWORD to the admin identity)\n` });
      } finally {
        rmSync(empty, { recursive: true, force: true });
      }
    });

    it("another identity's credentials may not call sml.users.*", async () => {
      const explore = sys.nats.credentials!.explore;
      const r = await sml(['admin', 'user', 'add', 'mallory', '--root'], { ...adminEnv, SML_NATS_USER: explore.user, SML_NATS_PASSWORD: explore.password, SML_REQUEST_TIMEOUT_MS: '1000' });
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect((await sml(['admin', 'user', 'list'], adminEnv)).stdout).not.toMatch(/^mallory\s/m);
    });

    it('reads the admin identity that `npm run up` keeps in $SML_DATA_DIR/nats-auth/admin.env', async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'sml-cli-'));
      try {
        const admin = sys.nats.credentials!.admin;
        mkdirSync(join(dataDir, 'nats-auth'));
        writeFileSync(join(dataDir, 'nats-auth', 'admin.env'), `SML_NATS_USER=${admin.user}\nSML_NATS_PASSWORD=${admin.password}\n`);
        const r = await sml(['admin', 'user', 'list'], { NATS_URL: sys.nats.url, SML_DATA_DIR: dataDir });
        expect(r.code).toBe(0);
        expect(r.stdout).toMatch(/^alice\s/m);
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    });

    it('an unreachable NATS_URL is one clear line and exit 1, without waiting', async () => {
      const url = `nats://127.0.0.1:${await freePort()}`;
      const r = await sml(['admin', 'user', 'list'], { NATS_URL: url });
      expect(r).toEqual({ code: 1, stdout: '', stderr: `sml: cannot reach NATS at ${url} (set NATS_URL)\n` });
    });
  });

  describe('jobs (over REST)', () => {
    let env: NodeJS.ProcessEnv;
    beforeAll(async () => {
      env = restEnv('gina', await addCustomer('gina'));
    });

    it('list of a customer without jobs says so', async () => {
      expect(await sml(['jobs', 'list'], env)).toEqual({ code: 0, stdout: 'No jobs\n', stderr: '' });
    });

    it('--json list prints the raw envelope', async () => {
      const r = await sml(['--json', 'jobs', 'list'], env);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({ statusCode: 200, statusString: 'OK', values: { jobinfolist: [] } });
    });

    it('get of an unknown job exits 1 with No such job on stderr', async () => {
      expect(await sml(['jobs', 'get', '987654'], env)).toEqual({ code: 1, stdout: '', stderr: 'No such job\n' });
    });

    it('--json get of an unknown job still prints the envelope on stdout', async () => {
      const r = await sml(['--json', 'jobs', 'get', '987654'], env);
      expect(r.code).toBe(1);
      expect(JSON.parse(r.stdout)).toEqual({ statusCode: 400, statusString: 'No such job', values: {} });
      expect(r.stderr).toBe('No such job\n');
    });

    it('list --all is refused for a customer that is not root', async () => {
      const r = await sml(['jobs', 'list', '--all'], env);
      expect(r).toEqual({ code: 1, stdout: '', stderr: 'Generic Exception [java.lang.Exception: Cannot specify all=true for non root user]\n' });
    });

    it('list --all is allowed for root', async () => {
      const r = await sml(['jobs', 'list', '--all'], restEnv(sys.rootUser, sys.rootSecret));
      expect(r.code).toBe(0);
    });

    it('a wrong secret exits 1 with the 401 statusString', async () => {
      const r = await sml(['jobs', 'list'], restEnv('gina', 'VLmAm+WkpnA5zp2wXiSYkw=='));
      // The values say what to check: the measured skew (none here) and the canonical string's lines.
      expect(r).toEqual({ code: 1, stdout: '', stderr: expect.stringMatching(/^Invalid Signature\nclock skew: your Sym-date is -?[01] s from the server's clock\nCompare stringToSign .*SECRETKEY/) });
      expect(r.stderr).not.toContain('VLmAm+WkpnA5zp2wXiSYkw==');
    });
  });

  describe('projects (over REST)', () => {
    let env: NodeJS.ProcessEnv;
    let dir: string;
    let path: string;
    beforeAll(async () => {
      env = restEnv('hank', await addCustomer('hank'));
      dir = mkdtempSync(join(tmpdir(), 'sml-cli-e2e-'));
      path = join(dir, 'data.csv');
      writeFileSync(path, 'x,y,flag\r\n1,2,0\r\n2,4.5,1\r\n3,abc,1\r\n4,8,0\r\n5,10,1\r\n');
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('create, then create again exits 1 with the 409 statusString', async () => {
      expect(await sml(['projects', 'create', 'p1', '--histogram'], env)).toEqual({ code: 0, stdout: 'Project Created with id:p1\n', stderr: '' });
      expect(await sml(['projects', 'create', 'p1'], env)).toEqual({ code: 1, stdout: '', stderr: 'Customer [hank] already have pid with id[p1], \n' });
    });

    it('strict learn stops at the batch with a malformed cell and names the rows learned before it', async () => {
      const r = await sml(['projects', 'learn', 'p1', path, '--types', 'C,C,B', '--batch', '2'], env);
      expect(r.code).toBe(1);
      expect(r.stderr.split('\n')).toEqual([
        expect.stringContaining('[abc]'),
        'stopped at the request with data rows 3-4: rows 1-2 had already been learned (2 accepted)',
        '',
      ]);
    });

    it('lenient learn and forget skip the malformed row and report it with its rows', async () => {
      const learned = await sml(['projects', 'learn', 'p1', path, '--types', 'C,C,B', '--batch', '2', '--lenient'], env);
      expect(learned.code).toBe(0);
      expect(learned.stdout).toMatch(/^Learned 4 rows into project p1 \(3 requests, 1 row skipped\)\nrows 3-4: .*\[abc\].*\n$/);
      const forgot = await sml(['projects', 'forget', 'p1', path, '--types', 'C,C,B', '--lenient'], env);
      expect(forgot.code).toBe(0);
      expect(forgot.stdout).toMatch(/^Forgot 4 rows from project p1 \(1 request, 1 row skipped\)\n/);
    });

    it('list and info show the project and its learned schema', async () => {
      expect(await sml(['projects', 'list'], env)).toEqual({ code: 0, stdout: 'p1\n', stderr: '' });
      const info = await sml(['projects', 'info', 'p1'], env);
      expect(info.code).toBe(0);
      expect(info.stdout).toMatch(/^attributeNames\s+\["x","y","flag"\]$/m);
      expect(info.stdout).toMatch(/^histogramEnabled\s+true$/m);
    });

    it('delete removes the project; a second delete exits 1', async () => {
      expect(await sml(['projects', 'delete', 'p1'], env)).toEqual({ code: 0, stdout: expect.any(String), stderr: '' });
      const again = await sml(['projects', 'delete', 'p1'], env);
      expect(again).toEqual({ code: 1, stdout: '', stderr: 'Cannot Find Project id[p1] for Customer id [hank]\n' });
    });
  });

  describe('configuration errors', () => {
    it('missing SML_URL/SML_USER/SML_SECRET is one line naming them, exit 1', async () => {
      const r = await sml(['jobs', 'list'], {});
      expect(r).toEqual({ code: 1, stdout: '', stderr: 'sml: Missing environment variable(s): SML_URL, SML_USER, SML_SECRET\n' });
    });

    it('an SML_URL without scheme is named, exit 1', async () => {
      const r = await sml(['jobs', 'list'], { SML_URL: 'localhost:8080', SML_USER: 'a', SML_SECRET: 'b' });
      expect(r).toEqual({ code: 1, stdout: '', stderr: "sml: SML_URL must be an http(s) URL, got 'localhost:8080'\n" });
    });

    it('a gateway that does not listen is one line with the network cause, exit 1', async () => {
      const r = await sml(['jobs', 'list'], { SML_URL: `http://127.0.0.1:${await freePort()}`, SML_USER: 'a', SML_SECRET: 'b' });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^sml: cannot reach the gateway \(SML_URL\): .*ECONNREFUSED.*\n$/);
    });

    it('an unknown command is a usage error with exit 1', async () => {
      const r = await sml(['jobz'], {});
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/unknown command 'jobz'/);
    });
  });
});
