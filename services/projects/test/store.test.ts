import { connect, type NatsConnection } from 'nats';
import { sml } from '@sml/proto';
import { startNatsServer, type NatsServer } from '@sml/testkit';
import { ProjectStore } from '../src/store';

const entry = (x: number): sml.v1.IProjectLogEntry => ({ op: 'learn', frame: { attributeNames: ['x'], attributeTypes: ['C'], data: [{ entries: [String(x)] }] } });
const xs = (entries: { entry: sml.v1.ProjectLogEntry }[]) => entries.map((e) => Number(e.entry.frame!.data![0].entries![0]));

describe('ProjectStore against a real JetStream', () => {
  let nats: NatsServer;
  let nc: NatsConnection;
  let store: ProjectStore;
  beforeAll(async () => {
    nats = await startNatsServer();
    nc = await connect({ servers: nats.url });
    store = await ProjectStore.open(nc);
  });
  afterAll(async () => {
    await nc.close();
    await nats.stop();
  });

  const replayAll = async (user: string, pid: string, after: number) => {
    const out: { seq: number; entry: sml.v1.ProjectLogEntry }[] = [];
    for await (const e of store.replay(user, pid, after)) out.push(e);
    return out;
  };

  it("replays only this project's entries after a sequence, in order", async () => {
    const seqs: number[] = [];
    for (let i = 1; i <= 5; i++) {
      seqs.push((await store.append('u', 'p', entry(i))).seq);
      await store.append('u', 'other', entry(100 + i));
      await store.append('v', 'p', entry(200 + i));
    }
    expect(xs(await replayAll('u', 'p', 0))).toEqual([1, 2, 3, 4, 5]);
    expect(xs(await replayAll('u', 'p', seqs[2]))).toEqual([4, 5]);
    expect(await replayAll('u', 'p', seqs[4])).toEqual([]);
    expect(await replayAll('u', 'nothing', 0)).toEqual([]);
  });

  it('a snapshot trims the log up to its sequence; replay continues after it', async () => {
    const a = await store.append('w', 'p', entry(1));
    const b = await store.append('w', 'p', entry(2));
    await store.snapshot('w', 'p', new Uint8Array([1, 2, 3]), a.seq);
    const snap = await store.loadSnapshot('w', 'p');
    expect(Number(snap!.logSeq)).toBe(a.seq);
    expect(xs(await replayAll('w', 'p', a.seq))).toEqual([2]);
    await store.snapshot('w', 'p', new Uint8Array([4]), b.seq);
    expect(await replayAll('w', 'p', b.seq)).toEqual([]);
  });

  it('a retried batch with the same message id is stored once', async () => {
    const first = await store.append('d', 'p', entry(1), 'key-1');
    const again = await store.append('d', 'p', entry(1), 'key-1');
    expect(again).toEqual({ seq: first.seq, duplicate: true });
    expect(xs(await replayAll('d', 'p', 0))).toEqual([1]);
  });
});
