import { SmlError } from '@sml/core';
import { kafkaSecurity, kafkaSettings, startsEarliest } from '../src/kafka-source';

// The sml.kafka.* passthrough (SymetryML's stream-data-source-api.md: Java client properties
// prefixed sml.kafka.) read into kafkajs' ssl and sasl options.
const base = { 'bootstrap.servers': 'broker:9092', 'kafka.topic': 't' };
const refused = (info: Record<string, string>): SmlError => {
  try {
    kafkaSecurity(info, 's');
  } catch (err) {
    expect(err).toBeInstanceOf(SmlError);
    return err as SmlError;
  }
  throw new Error('accepted');
};

describe('kafkaSecurity', () => {
  it('plaintext without sml.kafka keys, as before', () => {
    expect(kafkaSecurity(base, 's')).toEqual({});
    expect(kafkaSettings({ name: 's', info: base }, 'i')).toEqual({ brokers: ['broker:9092'], topic: 't', partitions: undefined, groupId: 'sml-stream-i' });
  });

  it('SASL_SSL with the Java JAAS line (PLAIN and SCRAM), quotes and backslashes unescaped', () => {
    const jaas = 'org.apache.kafka.common.security.plain.PlainLoginModule required username="api-key" password="s3c\\"r\\\\et";';
    expect(kafkaSecurity({ ...base, 'sml.kafka.security.protocol': 'SASL_SSL', 'sml.kafka.sasl.mechanism': 'PLAIN', 'sml.kafka.sasl.jaas.config': jaas }, 's'))
      .toEqual({ ssl: true, sasl: { mechanism: 'plain', username: 'api-key', password: 's3c"r\\et' } });
    expect(kafkaSecurity({ ...base, 'sml.kafka.security.protocol': 'sasl_plaintext', 'sml.kafka.sasl.mechanism': 'SCRAM-SHA-512', 'sml.kafka.sasl.username': 'u', 'sml.kafka.sasl.password': 'p' }, 's'))
      .toEqual({ sasl: { mechanism: 'scram-sha-512', username: 'u', password: 'p' } });
  });

  it('SSL with a private CA (PEM)', () => {
    const ca = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----';
    expect(kafkaSecurity({ ...base, 'sml.kafka.security.protocol': 'SSL', 'sml.kafka.ssl.truststore.certificates': ca }, 's')).toEqual({ ssl: { ca } });
  });

  it('refuses what it would otherwise drop or get wrong, 400 naming the key, never echoing a secret', () => {
    expect(refused({ ...base, 'sml.kafka.fetch.min.bytes': '1024' }).message).toContain('sml.kafka.fetch.min.bytes is not supported');
    expect(refused({ ...base, 'sml.kafka.security.protocol': 'KERBEROS' }).message).toContain('sml.kafka.security.protocol must be one of');
    expect(refused({ ...base, 'sml.kafka.security.protocol': 'SASL_SSL', 'sml.kafka.sasl.mechanism': 'GSSAPI', 'sml.kafka.sasl.username': 'u', 'sml.kafka.sasl.password': 'p' }).message).toContain('mechanism must be one of');
    const missing = refused({ ...base, 'sml.kafka.security.protocol': 'SASL_SSL', 'sml.kafka.sasl.jaas.config': 'PlainLoginModule required username="only-user-TOPSECRET";' });
    expect(missing.status).toBe(400);
    expect(missing.message).toContain('needs the SASL credentials');
    expect(missing.message).not.toContain('TOPSECRET');
    expect(refused({ ...base, 'sml.kafka.sasl.username': 'u' }).message).toContain('security.protocol is PLAINTEXT');
  });
});

describe('auto.offset.reset', () => {
  it('earliest asks for the earliest records; latest or absent, new ones only; anything else is 400', () => {
    expect(startsEarliest({ info: { ...base, 'auto.offset.reset': 'Earliest' } })).toBe(true);
    expect(startsEarliest({ info: { ...base, 'auto.offset.reset': 'latest' } })).toBe(false);
    expect(startsEarliest({ info: base })).toBe(false);
    expect(() => kafkaSettings({ name: 's', info: { ...base, 'auto.offset.reset': 'none' } }, 'i')).toThrow('auto.offset.reset must be earliest or latest');
  });
});
