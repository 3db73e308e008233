import { connect, type NatsConnection } from 'nats';
import { consumeDurable, ensureStream } from '@sml/bus';
import { startNatsServer, type NatsServer } from '@sml/testkit';
import { log, until } from './helpers';

const enc = new TextEncoder();
const dec = new TextDecoder();

describe('JetStream helpers', () => {
  let nats: NatsServer;
  let nc: NatsConnection;

  beforeAll(async () => {
    nats = await startNatsServer();
    nc = await connect({ servers: nats.url });
  });

  afterAll(async () => {
    await nc.close();
    await nats.stop();
  });

  const publish = async (subject: string, ...bodies: string[]) => {
    for (const b of bodies) await nc.jetstream().publish(subject, enc.encode(b));
  };

  it('ensureStream creates a stream, and later changes its subjects without losing what it holds', async () => {
    await ensureStream(nc, { name: 'T_ENSURE', subjects: ['t.a'], maxAgeMs: 60_000 });
    const jsm = await nc.jetstreamManager();
    expect((await jsm.streams.info('T_ENSURE')).config).toEqual(expect.objectContaining({ subjects: ['t.a'], max_age: 60_000 * 1e6 }));
    await publish('t.a', 'one');
    await ensureStream(nc, { name: 'T_ENSURE', subjects: ['t.a'], maxAgeMs: 60_000 });
    await ensureStream(nc, { name: 'T_ENSURE', subjects: ['t.a', 't.b'], maxAgeMs: 60_000 });
    await publish('t.b', 'two');
    const info = await jsm.streams.info('T_ENSURE');
    expect(info.config.subjects).toEqual(['t.a', 't.b']);
    expect(info.state.messages).toBe(2);
  });

  it('consumeDurable handles messages in stream order; a failed one comes again before the next', async () => {
    await ensureStream(nc, { name: 'T_FOLD', subjects: ['t.fold'] });
    await publish('t.fold', 'm1', 'm2', 'm3');
    const handled: string[] = [];
    let failOnce = true;
    const consumer = await consumeDurable(nc, { stream: 'T_FOLD', durable: 'fold', log }, async (m) => {
      const body = dec.decode(m.data);
      handled.push(`${body}@${m.seq}`);
      if (body === 'm2' && failOnce) {
        failOnce = false;
        throw new Error('handler failure');
      }
    });
    await until('every message handled', () => (handled.includes('m3@3') ? true : undefined));
    expect(handled).toEqual(['m1@1', 'm2@2', 'm2@2', 'm3@3']);
    await consumer.stop();
  });

  it('a durable consumer started again resumes after the last acknowledged message', async () => {
    await publish('t.fold', 'm4');
    const handled: string[] = [];
    const consumer = await consumeDurable(nc, { stream: 'T_FOLD', durable: 'fold', log }, async (m) => { handled.push(dec.decode(m.data)); });
    await until('the new message handled', () => (handled.includes('m4') ? true : undefined));
    expect(handled).toEqual(['m4']);
    await consumer.stop();
  });
});
