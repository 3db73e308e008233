import { readdirSync, readFileSync } from 'node:fs';
import { newCustomer, sharedSystem } from '@sml/testkit';

/** The pid of the gateway process listening on `port` (its environment names the port). */
function gatewayPid(port: string): number {
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const env = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      if (env.includes(`SML_PORT=${port}`) && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('gateway/dist/main.js')) return Number(pid);
    } catch {
      // a process that exited meanwhile, or another user's
    }
  }
  throw new Error(`no gateway process on port ${port}`);
}

// The system a jest worker shares (CONTRIBUTING.md "Test tiers"): reused by every call, each
// test isolated by a customer of its own, replaced when a file before left it broken.
describe('sharedSystem', () => {
  it('is one running system per worker and profile: the same address on every call', async () => {
    const [a, b] = [await sharedSystem(), await sharedSystem('default')];
    expect(b.url).toBe(a.url);
    expect((await fetch(`${a.url}/readyz`)).status).toBe(200);
    expect((await sharedSystem('limits')).url).not.toBe(a.url);
  });

  it('gives each new customer a name of its own: what one creates the other does not see', async () => {
    const sys = await sharedSystem();
    const [one, two] = [await newCustomer(sys, 'same'), await newCustomer(sys, 'same')];
    expect(one.user).toMatch(/^same-[0-9a-f]{8}$/);
    expect(two.user).not.toBe(one.user);
    expect((await one.sdk.createProject('p')).status).toBe(201);
    expect(((await two.sdk.listProjects()).body.values as { stringList: { values: string[] } }).stringList.values).toEqual([]);
    one.sdk.close();
    two.sdk.close();
  });

  it('a broken system (its gateway gone) is replaced by a new one for the next file', async () => {
    const before = await sharedSystem();
    process.kill(gatewayPid(new URL(before.url).port), 'SIGKILL');
    const after = await sharedSystem();
    expect(after.url).not.toBe(before.url);
    expect((await fetch(`${after.url}/readyz`)).status).toBe(200);
  }, 120_000);
});
