import { Kafka, logLevel, type Producer } from 'kafkajs';
import { SmlClient } from '@sml/sdk';
import { startKafkaMock, startSystem, type KafkaMock, type RunningSystem } from '@sml/testkit';
import { SummaryReader } from '../../projects/test/helpers';

/** A running system with the streams service, a Kafka mock, a connected producer and customer alice. */
export interface KafkaStreams {
  sys: RunningSystem;
  kafka: KafkaMock;
  producer: Producer;
  reader: SummaryReader;
  alice: SmlClient;
  secret: string;
  stop(): Promise<void>;
}

export async function startKafkaStreams(opts: { clientId: string; services?: string[]; env?: Record<string, string> }): Promise<KafkaStreams> {
  const kafka = await startKafkaMock();
  const sys = await startSystem({
    services: opts.services ?? ['users', 'jobs', 'projects', 'streams'],
    env: { KAFKAJS_NO_PARTITIONER_WARNING: '1', ...opts.env },
  });
  const reader = await SummaryReader.open(sys.nats);
  const root = new SmlClient({ url: sys.url, user: sys.rootUser, secret: sys.rootSecret });
  const secret = String(((await root.addUser('alice')).body.values as { secretKey: string }).secretKey);
  const alice = new SmlClient({ url: sys.url, user: 'alice', secret });
  const producer = new Kafka({ brokers: kafka.bootstrap.split(','), clientId: opts.clientId, logLevel: logLevel.NOTHING }).producer();
  await producer.connect();
  return {
    sys, kafka, producer, reader, alice, secret,
    stop: async () => {
      await producer.disconnect();
      await reader.close();
      await sys.stop();
      await kafka.stop();
    },
  };
}

/** Rows learned by a project and the sum of its attribute x (zeros before anything is learned). */
export async function totalsOf(reader: SummaryReader, pid: string): Promise<{ rows: number; sum: number }> {
  const parts = await reader.parts('alice', pid, { attributeNames: ['x'], moments: true }).catch(() => undefined);
  return { rows: Number(parts?.rowCount ?? 0), sum: parts?.moments[0]?.sum ?? 0 };
}
