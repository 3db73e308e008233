import { existsSync } from 'node:fs';
import { connect, type NatsConnection } from 'nats';
import { ensureStream, jetStreamReplicas, kvBucket, objectStore, setJetStreamReplicas } from '@sml/bus';
import { startNatsCluster, type NatsCluster } from '@sml/testkit';

// The testkit's 3-server NATS cluster (loopback routes, JetStream on each), and the bus
// helpers' replica count (SML_JETSTREAM_REPLICAS) on it: R3 resources keep every
// acknowledged message when the server leading them is SIGKILLed, and the server catches
// up when it comes back.
describe('startNatsCluster', () => {
  let cluster: NatsCluster;
  let nc: NatsConnection;
  const enc = new TextEncoder();

  beforeAll(async () => {
    cluster = await startNatsCluster();
    nc = await connect({ servers: cluster.servers, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  });
  afterAll(async () => {
    await nc?.close();
    await cluster?.stop();
  });

  it('forms one cluster of three JetStream servers with a route to each other', async () => {
    expect(cluster.nodes.map((n) => n.name)).toEqual(['n0', 'n1', 'n2']);
    expect(cluster.url.split(',')).toEqual(cluster.servers);
    for (const node of cluster.nodes) {
      const routez = (await (await fetch(`http://127.0.0.1:${node.monitorPort}/routez`)).json()) as { num_routes: number };
      expect(routez.num_routes).toBe(2);
    }
    const info = await (await nc.jetstreamManager()).getAccountInfo();
    expect(info.api.errors).toBe(0);
  });

  it('the bus helpers create R3 streams, KV buckets and object stores, and move an R1 stream to R3', async () => {
    expect(jetStreamReplicas(nc)).toBe(1);
    await ensureStream(nc, { name: 'T_SCALE', subjects: ['t.scale'] });
    const jsm = await nc.jetstreamManager();
    expect((await jsm.streams.info('T_SCALE')).config.num_replicas).toBe(1);
    setJetStreamReplicas(nc, 3);
    await ensureStream(nc, { name: 'T_SCALE', subjects: ['t.scale'] });
    expect((await jsm.streams.info('T_SCALE')).config.num_replicas).toBe(3);
    await kvBucket(nc, 't_kv');
    await objectStore(nc, 't_os');
    for (const s of ['KV_t_kv', 'OBJ_t_os']) expect((await jsm.streams.info(s)).config.num_replicas).toBe(3);
    expect(() => setJetStreamReplicas(nc, 0)).toThrow(/1 to 5/);
  });

  it('an R3 stream keeps every acknowledged message when its leader is SIGKILLed, and the server catches up when it is back', async () => {
    await ensureStream(nc, { name: 'T_R3', subjects: ['t.r3'] });
    const jsm = await nc.jetstreamManager();
    const js = nc.jetstream();
    let acked = 0;
    const publish = async (n: number) => {
      for (let i = 0; i < n; i++) {
        // Retried until acknowledged (a leader election takes a moment); the id makes a retry of a stored message a duplicate.
        for (let attempt = 0; ; attempt++) {
          const ok = await js.publish('t.r3', enc.encode(String(acked)), { msgID: `m${acked}`, timeout: 1000 }).then(() => true, () => false);
          if (ok) break;
          expect(attempt).toBeLessThan(100);
          await new Promise((r) => setTimeout(r, 100));
        }
        acked++;
      }
    };
    await publish(50);
    const leaderName = (await jsm.streams.info('T_R3')).cluster!.leader!;
    const leader = cluster.nodes.find((n) => n.name === leaderName)!;
    await leader.kill();
    expect(leader.running()).toBe(false);
    await publish(50);
    const info = await jsm.streams.info('T_R3');
    expect(info.state.messages).toBe(100);
    expect(info.cluster!.leader).not.toBe(leaderName);
    await leader.start();
    // The restarted server is a current replica again.
    for (const deadline = Date.now() + 20_000; ; await new Promise((r) => setTimeout(r, 100))) {
      const replicas = (await jsm.streams.info('T_R3')).cluster!.replicas ?? [];
      if (replicas.some((r) => r.name === leaderName && r.current)) break;
      expect(Date.now()).toBeLessThan(deadline);
    }
    expect((await jsm.streams.info('T_R3')).state.messages).toBe(100);
  });

  it('stop() kills every server and removes the stores', async () => {
    const other = await startNatsCluster({ size: 3 });
    await other.stop();
    expect(other.nodes.some((n) => n.running())).toBe(false);
    expect(existsSync(other.storeDir)).toBe(false);
  });
});
