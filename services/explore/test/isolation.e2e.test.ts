import { newCustomer, sharedSystem, type SharedSystem } from '@sml/testkit';

// A matrix exploration runs in a worker thread: a long PCA of one customer does not hold
// another customer's explore requests (before, it ran on the explore service's own thread).
describe('explore: long matrix jobs do not hold other customers', () => {
  let sys: SharedSystem;
  const client = async (cid: string) => (await newCustomer(sys, cid)).sdk;
  beforeAll(async () => {
    sys = await sharedSystem();
  });

  it("bob's explore is answered while alice's PCA of 700 attributes runs; cancelling the PCA stops it", async () => {
    const [alice, bob] = [await client('alice'), await client('bob')];
    const names = Array.from({ length: 700 }, (_, k) => `x${k}`);
    await alice.createProject('wide');
    // Rows of pseudo-random numbers: a full-rank correlation matrix.
    let seed = 7;
    const next = () => ((seed = (seed * 48271) % 2147483647) / 2147483647).toFixed(6);
    for (let batch = 0; batch < 2; batch++) {
      const data = Array.from({ length: 400 }, () => names.map(next));
      expect((await alice.learn('wide', { attributeNames: names, attributeTypes: names.map(() => 'C'), data, errorHandling: 0 })).status).toBe(200);
    }
    await bob.createProject('small');
    await bob.learn('small', { attributeNames: ['x'], attributeTypes: ['C'], data: [['1'], ['2']], errorHandling: 0 });
    const mean = () => bob.request('POST', '/projects/small/explore', { query: { metric: 'uni' }, json: { values: [{ inputAttributeNames: ['x'], extraParameters: {} }] } });
    expect((await mean()).status).toBe(200); // bob's summary is cached before the PCA starts

    const job = await alice.request('POST', '/projects/wide/explorepca', { json: { values: [{ inputAttributeNames: names, extraParameters: {} }] } });
    expect(job.status).toBe(202);
    const id = job.headers['sym-job-id'];
    for (let k = 0; k < 3; k++) {
      expect((await mean()).status).toBe(200);
      expect((await alice.request('GET', `/jobs/${id}`)).body.statusString).toBe('Job still running');
    }
    expect((await alice.cancelJob(id)).status).toBe(200);
    const done = await alice.waitForJob(job, { timeoutMs: 20_000 });
    expect([done.status, done.body.statusString]).toEqual([500, 'Job was cancelled']);
    // The pool lost that worker; the next job gets a new one.
    const small = await alice.request('POST', '/projects/wide/explorepca', { json: { values: [{ inputAttributeNames: names.slice(0, 5), extraParameters: {} }] } });
    expect((await alice.waitForJob(small)).status).toBe(200);
  });
});
