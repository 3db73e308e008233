import { lookup } from 'node:dns/promises';
import { readFileSync } from 'node:fs';
import { SmlError } from '@sml/core';
import { isPrivateAddress } from '@sml/sources';
import { allowPrivateAddresses, checkServers, guardedSocketFactory, natsServers } from '../src/guard';
import { sampleFrame } from '../src/frame';
import { kafkaFailureText } from '../src/kafka-source';

// The SSRF guard of broker connections (guard.ts) and the DataFrame of sampled records (frame.ts).
describe('broker SSRF guard', () => {
  afterEach(() => allowPrivateAddresses(false));

  it('refuses private, loopback and link-local servers unless SML_SOURCES_ALLOW_PRIVATE', async () => {
    for (const server of ['127.0.0.1:9092', 'localhost:9092', '169.254.169.254:4222', ':9092', '10.1.2.3:9092', '0x7f.1:9092', '2130706433:9092', '198.18.0.1:9092']) {
      const err = await checkServers('s', 'bootstrap.servers', ['1.1.1.1:9092', server]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SmlError);
      expect((err as SmlError).code).toBe('STREAM_INVALID');
      expect((err as SmlError).message).toMatch(/is (loopback|link-local|private|reserved), not a public address; set SML_SOURCES_ALLOW_PRIVATE=true/);
    }
    // A host that does not resolve is refused too, as kafkajs reads it ([::1]:9092 is host `[`).
    for (const server of ['no-such-host.invalid:1', '[::1]:9092', 'localhost.invalid:1']) {
      await expect(checkServers('s', 'bootstrap.servers', ['1.1.1.1:9092', server])).rejects.toThrow(/does not resolve$/);
    }
    await expect(checkServers('s', 'bootstrap.servers', ['1.1.1.1:9092', '8.8.8.8'])).resolves.toBeUndefined();
    allowPrivateAddresses(true);
    await expect(checkServers('s', 'bootstrap.servers', ['127.0.0.1:9092'])).resolves.toBeUndefined();
  });

  it('every Kafka socket goes through the guard: IP literals at once, names by the guarded lookup', async () => {
    const factory = guardedSocketFactory();
    expect(() => factory({ host: '127.0.0.1', port: 9092, ssl: false as never, onConnect: () => undefined })).toThrow(/Kafka broker 127.0.0.1:9092: address 127.0.0.1/);
    const socket = factory({ host: 'localhost', port: 9, ssl: false as never, onConnect: () => undefined });
    const err = await new Promise<Error>((resolve) => socket.on('error', resolve));
    expect(err.message).toMatch(/Kafka broker localhost:9: address (127\.0\.0\.1|::1) is loopback, not a public address/);
  });
});

// nats_hosts as nats.js reads them (its own hostPort: scheme stripped up to the last `://`,
// %-escapes decoded, IPv4 numbers in any base), resolved and checked here, dialed as literals.
describe('NATS servers: read as nats.js reads them, resolved once, every address checked', () => {
  afterEach(() => allowPrivateAddresses(false));

  const refusal = async (server: string): Promise<string> => {
    const err = await natsServers('s', ['nats://1.1.1.1:4222', server]).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(SmlError);
    expect((err as SmlError).code).toBe('STREAM_INVALID');
    expect((err as SmlError).status).toBe(400);
    return (err as SmlError).message;
  };

  it.each([
    // The four forms that reached the bus (issue 29), then every other spelling of loopback.
    ['nats://127.0.0.%31:4222', '127.0.0.1', 'loopback'], ['nats://%6cocalhost:4222', '(127.0.0.1|::1)', 'loopback'],
    ['nats://127.0.0.1.:4222', '127.0.0.1', 'loopback'], ['nats://x.invalid/y://127.0.0.1:4222', '127.0.0.1', 'loopback'],
    ['nats://2130706433:4222', '127.0.0.1', 'loopback'], ['0x7f.1:4222', '127.0.0.1', 'loopback'], ['nats://017700000001', '127.0.0.1', 'loopback'],
    ['nats://0x7f000001:1', '127.0.0.1', 'loopback'], ['nats://0177.0.0.1:1', '127.0.0.1', 'loopback'], ['127.1', '127.0.0.1', 'loopback'],
    ['nats://localhost:4222', '(127.0.0.1|::1)', 'loopback'], ['tls://LOCALHOST', '(127.0.0.1|::1)', 'loopback'],
    ['[::1]:4222', '::1', 'loopback'], ['nats://[::1]', '::1', 'loopback'], ['::1', '::1', 'loopback'], ['nats://[::ffff:127.0.0.1]:4222', '127.0.0.1', 'loopback'],
    ['nats://[::ffff:7f00:1]:4222', '::ffff:7f00:1', 'loopback (127.0.0.1)'], ['nats://[64:ff9b::7f00:1]:4222', '64:ff9b::7f00:1', 'loopback (127.0.0.1)'],
    ['nats://[64:ff9b::10.0.0.1]:4222', '64:ff9b::a00:1', 'private (10.0.0.1)'], ['nats://[::127.0.0.1]:4222', '::7f00:1', 'IPv4-compatible'],
    ['nats://[2002:7f00:1::]:4222', '2002:7f00:1::', 'loopback (127.0.0.1)'], ['nats://[2002:c0a8:101::1]:1', '2002:c0a8:101::1', 'private (192.168.1.1)'],
    ['nats://[fe80::1]:1', 'fe80::1', 'link-local'], ['nats://[fd00::2]:1', 'fd00::2', 'unique-local'],
    ['nats://169.254.169.254:4222', '169.254.169.254', 'link-local'], ['nats://10.0.0.1:4222', '10.0.0.1', 'private'], ['nats://0.0.0.0:4222', '0.0.0.0', 'unspecified'],
    ['nats://192.0.2.2:4222', '192.0.2.2', 'reserved'], ['nats://198.18.0.1:4222', '198.18.0.1', 'reserved'], ['nats://240.0.0.1:4222', '240.0.0.1', 'reserved'],
    ['nats://224.0.0.1:4222', '224.0.0.1', 'multicast'], ['nats://100.64.0.1:4222', '100.64.0.1', 'shared (100.64/10)'],
  ])('refuses %s: address %s (%s)', async (server, address, why) => {
    const message = await refusal(server);
    const quoted = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    expect(message).toMatch(new RegExp(`^Invalid stream \\[s\\]: nats_hosts ${quoted(server)}: address ${address} is ${quoted(why)}, not a public address; set SML_SOURCES_ALLOW_PRIVATE=true to allow$`));
  });

  it('refuses a name that does not resolve (nats.js would hand it to the system resolver) and a server nats.js cannot read', async () => {
    expect(await refusal('nats://no-such-host.invalid:4222')).toBe('Invalid stream [s]: nats_hosts nats://no-such-host.invalid:4222: host no-such-host.invalid does not resolve');
    expect(await refusal('nats://sub.localhost.invalid')).toMatch(/does not resolve$/);
    // A trailing dot: refused whether or not this system's resolver reads it.
    expect(await refusal('nats://localhost.:4222')).toMatch(/(does not resolve|is loopback, not a public address; set SML_SOURCES_ALLOW_PRIVATE=true to allow)$/);
    expect(await refusal('nats://u:p@h:4222')).toBe('Invalid stream [s]: nats_hosts nats://u:p@h:4222: not a NATS server URL (nats://host:port)');
  });

  it("refuses every name of this host's /etc/hosts that resolves to a refused address", async () => {
    const names = readFileSync('/etc/hosts', 'utf8').split('\n').map((l) => l.replace(/#.*/, '').trim().split(/\s+/)).filter((f) => f.length > 1).flatMap((f) => f.slice(1));
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) {
      const addresses = (await lookup(name, { all: true })).map((a) => a.address);
      if (addresses.some((a) => isPrivateAddress(a))) expect(await refusal(`nats://${name}:4222`)).toMatch(/not a public address/);
    }
  });

  it('hands nats.js the checked IP literals (port kept, default 4222), never a name to resolve again', async () => {
    expect(await natsServers('s', ['nats://1.1.1.1:4333', '8.8.8.8', 'tls://[2606:4700:4700::1111]:80', 'nats://0x01010101:5', '1.1.1.1:4333'])).toEqual([
      '1.1.1.1:4333', '8.8.8.8:4222', '[2606:4700:4700::1111]:80', '1.1.1.1:5',
    ]);
    // With SML_SOURCES_ALLOW_PRIVATE the servers go to nats.js as given.
    allowPrivateAddresses(true);
    expect(await natsServers('s', ['nats://localhost:4222', 'nats://no-such-host.invalid'])).toEqual(['nats://localhost:4222', 'nats://no-such-host.invalid']);
  });
});

describe('kafkaFailureText', () => {
  const named = (name: string, message: string, cause?: Error) => Object.assign(new Error(message, { cause }), { name });
  it('reduces a failure to connect to the brokers as given; keeps the guard\'s refusal and the cluster\'s own answers', () => {
    const brokers = ['kafka.example.com:9092', '1.1.1.1:9092'];
    expect(kafkaFailureText(named('KafkaJSConnectionError', 'Connection error: connect ECONNREFUSED 1.1.1.1:9092'), brokers)).toBe('cannot connect to kafka.example.com:9092, 1.1.1.1:9092');
    expect(kafkaFailureText(named('KafkaJSNumberOfRetriesExceeded', 'Connection timeout', named('KafkaJSConnectionError', 'Connection timeout')), brokers)).toBe('cannot connect to kafka.example.com:9092, 1.1.1.1:9092');
    expect(kafkaFailureText(named('KafkaJSConnectionClosedError', 'Closed connection'), brokers)).toBe('cannot connect to kafka.example.com:9092, 1.1.1.1:9092');
    const refusal = 'Kafka broker 10.0.0.7:9092: address 10.0.0.7 is private, not a public address; set SML_SOURCES_ALLOW_PRIVATE=true to allow';
    expect(kafkaFailureText(named('KafkaJSConnectionError', `Failed to connect: ${refusal}`), brokers)).toBe(refusal);
    expect(kafkaFailureText(named('KafkaJSProtocolError', 'This server does not host this topic-partition'), brokers)).toBe('This server does not host this topic-partition');
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
