import { startSystem } from '@sml/testkit';
import { SmlClient } from '@sml/sdk';
it('smoke', async () => {
  const sys = await startSystem({ services: ['users', 'jobs'] });
  try {
    const root = new SmlClient({ url: sys.url, user: 'root', secret: sys.rootSecret });
    const r = await root.request('POST', '/users', { query: 'cid=alice' });
    console.log(r.status, JSON.stringify(r.body));
    const a = new SmlClient({ url: sys.url, user: 'alice', secret: (r.body.values as any).secretKey });
    console.log(JSON.stringify((await a.listJobs()).body));
    console.log(JSON.stringify((await a.listJobs({ all: true })).body));
    console.log(JSON.stringify((await a.getJob(5)).body));
    console.log(JSON.stringify((await root.listJobs({ all: true })).body));
  } finally { console.log(sys.logs('users').slice(0, 2000)); await sys.stop(); }
});
