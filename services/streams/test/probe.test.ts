import { SmlError } from '@sml/core';
import { allowPrivateAddresses, checkServers, guardedSocketFactory, hostOf } from '../src/guard';
import { sampleFrame } from '../src/frame';

// The SSRF guard of broker connections (guard.ts) and the DataFrame of sampled records (frame.ts).
describe('broker SSRF guard', () => {
  afterEach(() => allowPrivateAddresses(false));

  it('reads the host of host:port, [v6]:port and URLs', () => {
    expect(['10.0.0.1:9092', '[::1]:9092', 'nats://127.0.0.1:4222', 'tls://example.com', 'broker', 'example.com:1'].map(hostOf))
      .toEqual(['10.0.0.1', '::1', '127.0.0.1', 'example.com', 'broker', 'example.com']);
  });

  it('refuses private, loopback and link-local servers unless SML_SOURCES_ALLOW_PRIVATE', async () => {
    for (const server of ['127.0.0.1:9092', 'localhost:9092', 'nats://169.254.169.254:4222', '[::1]:4222', '10.1.2.3:9092']) {
      const err = await checkServers('s', 'bootstrap.servers', ['203.0.113.9:9092', server]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SmlError);
      expect((err as SmlError).code).toBe('STREAM_INVALID');
      expect((err as SmlError).message).toMatch(/private\/loopback\/link-local; set SML_SOURCES_ALLOW_PRIVATE=true/);
    }
    await expect(checkServers('s', 'nats_hosts', ['nats://203.0.113.9:4222', 'no-such-host.invalid:1'])).resolves.toBeUndefined();
    allowPrivateAddresses(true);
    await expect(checkServers('s', 'bootstrap.servers', ['127.0.0.1:9092'])).resolves.toBeUndefined();
  });

  it('every Kafka socket goes through the guard: IP literals at once, names by the guarded lookup', async () => {
    const factory = guardedSocketFactory();
    expect(() => factory({ host: '127.0.0.1', port: 9092, ssl: false as never, onConnect: () => undefined })).toThrow(/Kafka broker 127.0.0.1:9092: address 127.0.0.1/);
    const socket = factory({ host: 'localhost', port: 9, ssl: false as never, onConnect: () => undefined });
    const err = await new Promise<Error>((resolve) => socket.on('error', resolve));
    expect(err.message).toMatch(/Kafka broker localhost:9: address (127\.0\.0\.1|::1) is private/);
  });
});

describe('sampleFrame', () => {
  const b = (s: string) => Buffer.from(s);
  it('JSON records without attributeNames: their keys, first seen first, types guessed; unreadable ones left out', () => {
    expect(sampleFrame([b('{"a":1,"b":"x"}'), b('not json'), b('{"c":true,"a":2.5}'), null, b('[1]')], { info: {} }, 1000)).toEqual({
      attributeNames: ['a', 'b', 'c'], attributeTypes: ['C', 'S', 'C'],
      data: [{ entries: ['1', 'x', ''] }, { entries: ['2.5', '', '1'] }], errorHandling: 0,
    });
  });
  it('CSV records without attributeNames: f1 … fn; with attributeNames and extra: read as a stream reads them', () => {
    expect(sampleFrame([b('1,a'), b('2,b,3')], { info: { format: 'csv' } }, 1000)).toMatchObject({ attributeNames: ['f1', 'f2', 'f3'], attributeTypes: ['C', 'S', 'C'], data: [{ entries: ['1', 'a', ''] }, { entries: ['2', 'b', '3'] }] });
    expect(sampleFrame([b('1;a'), b('2;b;3')], { info: { format: 'csv', csv_entry_separator: ';', attributeNames: 'n,s' }, extra: ['C', 'S'] }, 1000))
      .toMatchObject({ attributeNames: ['n', 's'], attributeTypes: ['C', 'S'], data: [{ entries: ['1', 'a'] }] });
  });
});
