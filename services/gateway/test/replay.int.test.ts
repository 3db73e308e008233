import { connect } from 'nats';
import { startNatsServer } from '@sml/testkit';
import { ReplayCache } from '../src/replay';

// Two gateway replicas = two connections sharing the KV bucket on a real nats-server.
describe('replay cache shared by gateway replicas', () => {
  it('accepts a signature once across replicas, and again after the window', async () => {
    const nats = await startNatsServer();
    const [a, b] = await Promise.all([connect({ servers: nats.url }), connect({ servers: nats.url })]);
    try {
      const [ra, rb] = await Promise.all([ReplayCache.open(a, 1000), ReplayCache.open(b, 1000)]);
      expect(await ra.remember('sig-1')).toBe(true);
      expect(await rb.remember('sig-1')).toBe(false);
      expect(await ra.remember('sig-1')).toBe(false);
      expect(await rb.remember('sig-2')).toBe(true);
      await new Promise((r) => setTimeout(r, 2500));
      expect(await rb.remember('sig-1')).toBe(true);
    } finally {
      await a.close();
      await b.close();
      await nats.stop();
    }
  });
});
