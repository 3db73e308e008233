import { connect, type NatsConnection } from 'nats';
import { nameToken } from '@sml/core';
import { sml } from '@sml/proto';
import type { SmlClient } from '@sml/sdk';
import { newCustomer, sharedSystem, startSystem, type RunningSystem, type SharedSystem } from '@sml/testkit';
import { customer, frame, SummaryReader } from './helpers';

// Issue 9: one customer cannot take the service down, stall another customer, or lose or
// corrupt data through the parameters and batches it sends. Real processes throughout.

describe('tenant isolation: limits, quarantine, idempotency, magnitudes', () => {
  let sys: RunningSystem;
  let alice: SmlClient;
  let bob: SmlClient;
  let reader: SummaryReader;
  /** A connection with the projects service's own bus identity: it may write the project log and metadata. */
  let owner: NatsConnection;

  beforeAll(async () => {
    sys = await startSystem({
      services: ['users', 'jobs', 'projects'],
      env: { SML_MAX_SEQUENCE_NGRAMS: '60', SML_MAX_PARTITIONS: '3', SML_SELECTION_TIME_BUDGET_MS: '4000', SML_MAX_PROJECTS_PER_CUSTOMER: '40' },
    });
    alice = await customer(sys, 'alice');
    bob = await customer(sys, 'bob');
    reader = await SummaryReader.open(sys.nats);
    owner = await connect({ servers: sys.nats.url, ...sys.nats.connectOptions('projects') });
  });
  afterAll(async () => {
    if (process.env.SHOW_LOGS) console.log(sys.logs('projects'));
    await owner?.close();
    await reader?.close();
    await sys?.stop();
  });

  /** The projects process still answers (it did not die of the previous request). */
  const alive = async () => expect((await bob.request('GET', '/projects')).status).toBe(200);

  it('a sequence order of 1e9 is refused at create, naming the parameter and its limit', async () => {
    const r = await alice.createProject('s', { type: 'sequence', params: { sml_project_order: '1000000000' } });
    expect(r.status).toBe(400);
    expect(r.body.statusString).toBe('Invalid parameter [sml_project_order] = [1000000000]: expected an integer in [1, 10] (SML_MAX_SEQUENCE_ORDER)');
    // The seed's own message for a non-positive order is unchanged.
    const seed = await alice.createProject('s', { type: 'sequence', params: { sml_project_order: '-2' } });
    expect(seed.body.statusString).toBe('Invalid sequence project order: -2; it must be an integer greater than 0');
    await alive();
  });

  it('metadata written with an order over the limit (an older build) fails to load with 409; the service lives on', async () => {
    const meta = sml.v1.ProjectMeta.encode({
      pid: 'old', user: 'alice', type: 'sequence', persist: true, histogramType: 'streaming', categorySeparator: '$',
      params: { sml_project_order: '1000000000', sml_sequence_layout: 'steps' }, creationDate: Date.now(), lastModificationDate: Date.now(),
    }).finish();
    const kv = await owner.jetstream().views.kv('sml_projects');
    await kv.put(`${nameToken('alice')}.${nameToken('old')}`, meta);
    const r = await alice.learn('old', frame(['v'], ['T'], [['a'], ['b'], ['c']]));
    expect(r.status).toBe(409);
    expect(r.body.statusString).toMatch(/^Project \[old\] cannot be loaded: Invalid parameter \[sml_project_order\]/);
    await alive();
    // It can still be deleted (deleting does not load).
    expect((await alice.deleteProject('old')).status).toBe(200);
  });

  it('sequence counts are bounded: a batch that would pass SML_MAX_SEQUENCE_NGRAMS is refused whole', async () => {
    expect((await alice.createProject('seq', { type: 'sequence', params: { sml_project_order: '3' } })).status).toBe(201);
    expect((await alice.learn('seq', frame(['v'], ['T'], [['a'], ['b'], ['a'], ['b']]))).status).toBe(200);
    const before = await reader.parts('alice', 'seq', { full: true });
    const many = Array.from({ length: 40 }, (_, k) => [`state${k}`]);
    const r = await alice.learn('seq', frame(['v'], ['T'], many));
    expect(r.status).toBe(400);
    expect(r.body.statusString).toMatch(/^Project \[seq\]: learning this batch would keep \d+ sequence counts .* over the limit of 60 \(SML_MAX_SEQUENCE_NGRAMS\); nothing was learned$/);
    const after = await reader.parts('alice', 'seq', { full: true });
    expect(Buffer.from(after.summary).equals(Buffer.from(before.summary))).toBe(true);
    expect((await alice.learn('seq', frame(['v'], ['T'], [['a'], ['b']]))).status).toBe(200);
  });

  it('partitions are bounded by SML_MAX_PARTITIONS', async () => {
    expect((await alice.createProject('parts', { type: 'partition', params: { partitionSplit: 'g' } })).status).toBe(201);
    const rows = (groups: string[]) => frame(['g', 'x'], ['S', 'C'], groups.map((g, k) => [g, k]));
    expect((await alice.learn('parts', rows(['a', 'b', 'c', 'a']))).status).toBe(200);
    const r = await alice.learn('parts', rows(['a', 'd']));
    expect(r.status).toBe(400);
    expect(r.body.statusString).toMatch(/would keep 4 partitions of \[g\], over the limit of 3 \(SML_MAX_PARTITIONS\)/);
  });

  it('a customer has at most SML_MAX_PROJECTS_PER_CUSTOMER projects', async () => {
    const carl = await customer(sys, 'carl');
    for (let k = 0; k < 40; k++) expect((await carl.createProject(`p${k}`, { persist: k % 2 === 0 })).status).toBe(201);
    const r = await carl.createProject('one-more');
    expect(r.status).toBe(400);
    expect(r.body.statusString).toBe('Customer [carl] already has 40 projects, the limit (SML_MAX_PROJECTS_PER_CUSTOMER = 40); delete one first');
    expect((await carl.deleteProject('p0')).status).toBe(200);
    expect((await carl.createProject('one-more')).status).toBe(201);
  });

  describe('model parameters', () => {
    const rows = Array.from({ length: 60 }, (_, r) => [Math.sin(r), Math.cos(r * 0.7), Math.sin(r) * 2 + Math.cos(r * 0.7) + (r % 3) * 0.01]);
    beforeAll(async () => {
      await alice.createProject('m');
      expect((await alice.learn('m', frame(['a', 'b', 'y'], ['C', 'C', 'C'], rows))).status).toBe(200);
    });

    it.each([
      ['hba', { hba_bins: '1000000000' }, 'Invalid parameter [hba_bins] = [1000000000]: expected an integer in [1, 10000] (SML_MAX_HISTOGRAM_BINS)'],
      ['mlr', { selector_type: 'selector_type_iteration', selector_iterations: '2e7' }, 'Invalid parameter [selector_iterations] = [2e7]: expected an integer in [1, 10000] (SML_MAX_SELECTION_CANDIDATES)'],
      ['lasso', { max_iter: '1e12' }, 'Invalid parameter [max_iter] = [1e12]: expected an integer in [1, 100000] (SML_MAX_ITERATIONS)'],
      ['mlr', { lambda: 'Infinity' }, 'Invalid parameter [lambda] = [Infinity]: expected a number in [-1000000000000, 1000000000000]'],
    ])('%s with %j → 400 before any job starts', async (algo, extraParameters, message) => {
      const r = await alice.request('POST', '/projects/m/selectModel', {
        query: { modelid: 'x', algo },
        json: { mlcontext: { inputAttributeNames: ['a', 'b'], targetAttributeNames: algo === 'hba' ? [] : ['y'], extraParameters }, dataframe: frame(['a', 'b', 'y'], ['C', 'C', 'C'], rows) },
      });
      expect([r.status, r.body.statusString]).toEqual([400, message]);
      expect(r.headers['sym-job-id']).toBeUndefined();
      await alive();
    });

    it('an EVT wrapper window over its limit is refused', async () => {
      const built = await alice.request('POST', '/projects/m/build', { query: { modelid: 'h', algo: 'hba' }, json: { inputAttributeNames: ['a', 'b'], extraParameters: {} } });
      expect((await alice.waitForJob(built)).status).toBe(200);
      const r = await alice.request('POST', '/projects/m/h/evtwrapper', { json: { evt_window_size: '999999999999' } });
      expect([r.status, r.body.statusString]).toEqual([400, 'Invalid parameter [evt_window_size] = [999999999999]: expected an integer in [0, 1000000] (SML_MAX_EVT_WINDOW)']);
    });
  });

  it("a long feature selection neither holds another customer's learns nor outlives its time budget", async () => {
    const inputs = Array.from({ length: 14 }, (_, k) => `x${k}`);
    const row = (r: number) => [...inputs.map((_, k) => Math.sin(r * (k + 1) * 0.37) + k), Math.cos(r * 0.11) * 3];
    await alice.createProject('wide');
    expect((await alice.learn('wide', frame([...inputs, 'y'], inputs.map(() => 'C').concat('C'), Array.from({ length: 300 }, (_, r) => row(r))))).status).toBe(200);
    await bob.createProject('small');
    const job = await alice.request('POST', '/projects/wide/selectModel', {
      query: { modelid: 'sel', algo: 'mlr' },
      json: {
        mlcontext: { inputAttributeNames: inputs, targetAttributeNames: ['y'], extraParameters: { selector_type: 'selector_type_iteration', selector_iterations: '10000' } },
        dataframe: frame([...inputs, 'y'], inputs.map(() => 'C').concat('C'), Array.from({ length: 3000 }, (_, r) => row(r + 1000))),
      },
    });
    expect(job.status).toBe(202);
    const id = job.headers['sym-job-id'];
    // Learn as bob: each learn must be answered while alice's selection is still running
    // (before this fix the selection held the process until it was done).
    for (let k = 0; k < 3; k++) {
      expect((await bob.learn('small', frame(['v'], ['C'], [[k]]))).status).toBe(200);
      const state = await alice.request('GET', `/jobs/${id}`);
      expect([state.status, state.body.statusString]).toEqual([202, 'Job still running']);
    }
    const done = await alice.waitForJob(job, { timeoutMs: 60_000 });
    expect(done.status).toBe(500);
    expect(done.body.statusString).toMatch(/^Feature selection stopped after \d+ candidate subsets: over its time budget of 4000 ms \(SML_SELECTION_TIME_BUDGET_MS\)/);
  });

  it('a batch that cannot be replayed is quarantined: the project loads, reports it, and keeps learning', async () => {
    expect((await alice.createProject('q')).status).toBe(201);
    expect((await alice.learn('q', frame(['x'], ['C'], [[1], [2]]))).status).toBe(200);
    // A logged batch this build refuses (as after a limit was lowered): |x| > 1e64.
    const entry = sml.v1.ProjectLogEntry.encode({ op: 'learn', frameJson: Buffer.from(JSON.stringify(frame(['x'], ['C'], [['1e300']]))) }).finish();
    await owner.jetstream().publish(`sml.plog.${nameToken('alice')}.${nameToken('q')}`, entry);
    expect((await alice.request('GET', '/projects/q/unload')).status).toBe(200);
    // Before: the replay swallowed the failure silently. Now: loaded, reported, counted.
    expect((await alice.learn('q', frame(['x'], ['C'], [[3]]))).status).toBe(200);
    const log = await alice.request<{ quarantined: Array<{ seq: number; op: string; reason: string; bytes: number }> }>('GET', '/projects/q/getDsLog');
    expect(log.status).toBe(200);
    expect(log.body.values!.quarantined).toHaveLength(1);
    expect(log.body.values!.quarantined[0]).toMatchObject({ op: 'learn', bytes: entry.length });
    expect(log.body.values!.quarantined[0].reason).toMatch(/row 1, column \[x\]: value 1e\+300 is larger in magnitude than 1e\+64/);
    const parts = await reader.parts('alice', 'q', { attributeNames: ['x'], moments: true });
    expect([Number(parts.rowCount), parts.moments[0].sum]).toEqual([3, 6]);
    // And after a restart of the service the quarantine is still there (it is durable), not re-added.
    await sys.kill('projects');
    await sys.start('projects');
    const again = await alice.request<{ quarantined: unknown[] }>('GET', '/projects/q/getDsLog');
    expect(again.body.values!.quarantined).toHaveLength(1);
    const stats = await owner.request('$SRV.STATS.projects', new Uint8Array(0), { timeout: 2000 }).catch(() => undefined);
    if (stats) expect(JSON.stringify(stats.json())).toMatch(/"quarantinedBatches":\d+/);
  });

  it('the same Idempotency-Key with a different batch is refused (422), with the same batch answers as the first time', async () => {
    await alice.createProject('idem');
    const first = { json: frame(['x'], ['C'], [[1], [2], [3]]), headers: { 'Idempotency-Key': 'batch-1' } };
    expect((await alice.request('POST', '/projects/idem/learn', first)).status).toBe(200);
    const other = await alice.request('POST', '/projects/idem/learn', { json: frame(['x'], ['C'], [[100]]), headers: { 'Idempotency-Key': 'batch-1' } });
    expect([other.status, other.body.statusString]).toEqual([422, 'Idempotency-Key [batch-1] was already used for a different batch of this project; send a new key with a new batch']);
    expect((await alice.request('POST', '/projects/idem/learn', first)).status).toBe(200);
    const parts = await reader.parts('alice', 'idem', { attributeNames: ['x'], moments: true });
    expect([Number(parts.rowCount), parts.moments[0].sum]).toEqual([3, 6]);
  });

  it('values whose power sums would overflow are refused naming row and column; forget stays the inverse of learn', async () => {
    await alice.createProject('big');
    const r = await alice.learn('big', frame(['x', 'y'], ['C', 'C'], [[1, 2], [3, '1e308']]));
    expect(r.status).toBe(400);
    expect(r.body.statusString).toMatch(/^Invalid DataFrame at row 2, column \[y\]: value 1e\+308 is larger in magnitude than 1e\+64/);
    const big = frame(['x'], ['C'], [['1e64'], ['-1e64'], ['1e64']]);
    expect((await alice.learn('big', big)).status).toBe(200);
    expect((await alice.learn('big', big)).status).toBe(200);
    expect((await alice.forget('big', big)).status).toBe(200);
    expect((await alice.forget('big', big)).status).toBe(200);
    const parts = await reader.parts('alice', 'big', { attributeNames: ['x'], moments: true });
    expect(Number(parts.rowCount)).toBe(0);
    for (const v of Object.values(parts.moments[0])) if (typeof v === 'number') expect(Number.isNaN(v)).toBe(false);
  });
});

describe('deleting a customer', () => {
  let sys: SharedSystem;
  beforeAll(async () => {
    sys = await sharedSystem();
  });

  it("retires the id: a new customer can never read the old one's projects, which are purged", async () => {
    const { SmlClient } = await import('@sml/sdk');
    const root = new SmlClient({ url: sys.url, user: sys.rootUser, secret: sys.rootSecret });
    const { user, sdk: carol } = await newCustomer(sys, 'carol');
    expect((await carol.createProject('secret')).status).toBe(201);
    expect((await carol.learn('secret', frame(['x'], ['C'], [[42]]))).status).toBe(200);
    expect((await root.deleteUser(user)).status).toBe(200);
    // The old secret authenticates nobody.
    expect((await carol.request('GET', '/projects')).status).toBe(401);
    const again = await root.addUser(user);
    expect([again.status, again.body.statusString]).toEqual([409, `Customer id [${user}] belonged to a deleted customer and is never reused; choose another id`]);
    const users = await root.request<{ users: Array<{ cid: string }> }>('GET', '/users');
    if (users.status === 200) expect(users.body.values!.users.map((u) => u.cid)).not.toContain(user);
    // Purged: nothing of carol's is left in the project metadata.
    const nc = await connect({ servers: sys.nats.url, ...sys.nats.connectOptions('projects') });
    const kv = await nc.jetstream().views.kv('sml_projects');
    const keys: string[] = [];
    for await (const k of await kv.keys(`${nameToken(user)}.*`)) keys.push(k);
    await nc.close();
    root.close();
    expect(keys).toEqual([]);
  });
});
