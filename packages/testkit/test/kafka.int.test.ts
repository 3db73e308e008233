import { connect } from 'node:net';
import { startKafkaMock } from '../src/kafka';

/** Resolves true when a TCP connection to host:port is accepted, false when refused. */
function accepts(address: string): Promise<boolean> {
  const [host, port] = address.split(':') as [string, string];
  return new Promise((resolve) => {
    const socket = connect({ host, port: Number(port) });
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

describe('startKafkaMock', () => {
  it('prints a loopback bootstrap address that accepts connections until stop()', async () => {
    const kafka = await startKafkaMock();
    try {
      expect(kafka.bootstrap).toMatch(/^127\.0\.0\.1:\d+$/);
      expect(await accepts(kafka.bootstrap)).toBe(true);
    } finally {
      await kafka.stop();
    }
    expect(await accepts(kafka.bootstrap)).toBe(false);
  });

  it('starts a multi-broker cluster with one address per broker', async () => {
    const kafka = await startKafkaMock({ brokers: 3 });
    try {
      const brokers = kafka.bootstrap.split(',');
      expect(brokers).toHaveLength(3);
      for (const b of brokers) expect(await accepts(b)).toBe(true);
    } finally {
      await kafka.stop();
    }
  });

  it('reports the script failing to start', async () => {
    const saved = process.env.SML_KAFKA_MOCK;
    process.env.SML_KAFKA_MOCK = '/bin/false';
    try {
      await expect(startKafkaMock()).rejects.toThrow(/kafka-mock exited \(1\) before printing an address/);
    } finally {
      if (saved === undefined) delete process.env.SML_KAFKA_MOCK;
      else process.env.SML_KAFKA_MOCK = saved;
    }
  });
});
