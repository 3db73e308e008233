import { once } from 'node:events';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { networkInterfaces } from 'node:os';
import { SmlClient } from '@sml/sdk';
import { freePort, startSystem, type RunningSystem } from '@sml/testkit';

// Issue 29, items 1 and 2, through the built services: stream addresses (nats_hosts) and
// data-source addresses (http) that reach this host. The bus port comes from the testkit's
// nats-server; the other listeners are this test's own, counting every connection they accept.

/** This host's first non-loopback IPv4 address (undefined on a machine without one). */
const OWN_IPV4 = Object.values(networkInterfaces()).flatMap((list) => list ?? []).find((a) => a.family === 'IPv4' && !a.internal)?.address;

/** The four nats_hosts forms that got past the guard to the bus on main (issue 29), for a port. */
const FORMS = (port: number) => [
  { server: `nats://127.0.0.%31:${port}`, address: /127\.0\.0\.1/ },
  { server: `nats://%6cocalhost:${port}`, address: /(127\.0\.0\.1|::1)/ },
  { server: `nats://127.0.0.1.:${port}`, address: /127\.0\.0\.1/ },
  { server: `nats://x.invalid/y://127.0.0.1:${port}`, address: /127\.0\.0\.1/ },
];

const quoted = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** A TCP listener that counts connections and never says a word (a silent server). */
async function silentListener(host: string): Promise<{ server: Server; port: number; accepted: () => number; close: () => Promise<void> }> {
  let accepted = 0;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, host);
  await once(server, 'listening');
  return {
    server, port: (server.address() as AddressInfo).port, accepted: () => accepted,
    close: async () => {
      for (const s of sockets) s.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}

async function customer(sys: RunningSystem): Promise<SmlClient> {
  const root = new SmlClient({ url: sys.url, user: sys.rootUser, secret: sys.rootSecret });
  const secret = String(((await root.addUser('alice')).body.values as { secretKey: string }).secretKey);
  const alice = new SmlClient({ url: sys.url, user: 'alice', secret });
  expect((await alice.createProject('p')).status).toBe(201);
  return alice;
}

/** browse, create and preview of a Kafka DSInfo naming `broker`. */
function kafkaCalls(alice: SmlClient, broker: string) {
  const ds = (name: string) => ({ type: 'kafka', name, info: { 'bootstrap.servers': broker, 'kafka.topic': 't', format: 'csv', attributeNames: 'a,b' } });
  return [
    { call: 'browse', answer: () => alice.browseStreams(ds('b')) },
    { call: 'create', answer: () => alice.createStream('p', ds('c')) },
    { call: 'preview', answer: () => alice.previewStream(ds('v')) },
  ];
}

/** browse, create and preview of a NATS DSInfo naming `server`. */
function natsCalls(alice: SmlClient, server: string) {
  const ds = (name: string) => ({ type: 'nats', name, info: { nats_hosts: server, 'nats.subject': 'events.x', format: 'csv', attributeNames: 'a,b' } });
  return [
    { call: 'browse', answer: () => alice.browseStreams(ds('b')) },
    { call: 'create', answer: () => alice.createStream('p', ds('c')) },
    { call: 'preview', answer: () => alice.previewStream(ds('v')) },
  ];
}

describe('stream and source addresses with SML_SOURCES_ALLOW_PRIVATE=false', () => {
  let sys: RunningSystem;
  let alice: SmlClient;
  let busPort: number;
  let listener: Awaited<ReturnType<typeof silentListener>>;
  let web: HttpServer;
  let webPort: number;
  let webAccepted = 0;

  beforeAll(async () => {
    sys = await startSystem({ services: ['users', 'jobs', 'projects', 'streams'], env: { SML_SOURCES_ALLOW_PRIVATE: 'false' } });
    busPort = Number(new URL(sys.nats.url).port);
    alice = await customer(sys);
    listener = await silentListener('127.0.0.1');
    // On every IPv4 address of the host: what an http source aimed at the host's own address reaches.
    web = createHttpServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('metric,value\nup,1\n'));
    web.on('connection', () => webAccepted++);
    web.listen(0, '0.0.0.0');
    await once(web, 'listening');
    webPort = (web.address() as AddressInfo).port;
  }, 120_000);

  afterAll(async () => {
    await listener?.close();
    web?.closeAllConnections();
    web?.close();
    await sys?.stop();
  });

  it('browse, create and preview refuse the four nats_hosts forms that reached the bus: 400 naming the refused address', async () => {
    for (const { server, address } of FORMS(busPort)) {
      for (const { call, answer } of natsCalls(alice, server)) {
        const r = await answer();
        expect({ call, server, status: r.status }).toEqual({ call, server, status: 400 });
        expect(r.body.statusString).toMatch(new RegExp(`nats_hosts ${quoted(server)}: address ${address.source} is loopback, not a public address; set SML_SOURCES_ALLOW_PRIVATE=true to allow`));
      }
    }
    // The same forms aimed at this test's own listener: not one connection.
    for (const { server } of FORMS(listener.port)) for (const { answer } of natsCalls(alice, server)) expect((await answer()).status).toBe(400);
    expect(listener.accepted()).toBe(0);
    expect(sys.unexpectedExits()).toEqual([]);
  });

  it('refuses a NATS or Kafka host that does not resolve (400), rather than leaving it to the system resolver', async () => {
    for (const { answer } of natsCalls(alice, 'nats://no-such-host.invalid:4222')) {
      const r = await answer();
      expect(r.status).toBe(400);
      expect(r.body.statusString).toMatch(/nats_hosts nats:\/\/no-such-host\.invalid:4222: host no-such-host\.invalid does not resolve$/);
    }
    for (const { answer } of kafkaCalls(alice, 'no-such-host.invalid:9092')) {
      const r = await answer();
      expect(r.status).toBe(400);
      expect(r.body.statusString).toMatch(/bootstrap\.servers no-such-host\.invalid:9092: host no-such-host\.invalid does not resolve$/);
    }
  });

  it('refuses Kafka brokers spelled as the bus address in other bases (400 naming the address)', async () => {
    for (const broker of [`0x7f.1:${busPort}`, `2130706433:${busPort}`, `017700000001:${busPort}`, `localhost:${busPort}`]) {
      for (const { call, answer } of kafkaCalls(alice, broker)) {
        const r = await answer();
        expect({ call, broker, status: r.status }).toEqual({ call, broker, status: 400 });
        expect(r.body.statusString).toMatch(new RegExp(`bootstrap\\.servers ${quoted(broker)}: address (127\\.0\\.0\\.1|::1) is loopback, not a public address`));
      }
    }
  });

  (OWN_IPV4 ? it : it.skip)(`an http source to this host's own non-loopback address (${OWN_IPV4 ?? 'none'}) is refused: 400 naming the address, no connection`, async () => {
    webAccepted = 0;
    for (const url of [`http://${OWN_IPV4!}:${webPort}/metrics`, `http://[::ffff:${OWN_IPV4!}]:${webPort}/metrics`]) {
      const r = await alice.previewDataSource({ type: 'http', name: 'own', info: { path: url } });
      expect({ url, status: r.status }).toEqual({ url, status: 400 });
      expect(r.body.statusString).toMatch(/^Data source \[own\] cannot be read: .*: address \S+ is .+, not a public address; set SML_SOURCES_ALLOW_PRIVATE=true to allow$/);
    }
    const s3 = await alice.previewDataSource({ type: 's3', name: 'own', info: { path: 'x.csv', s3bucket: 'b', s3accessKey: 'k', s3secretKey: 's', s3endpoint: `http://${OWN_IPV4!}:${webPort}` } });
    expect(s3.status).toBe(400);
    expect(s3.body.statusString).toContain(`address ${OWN_IPV4!} is `);
    const pg = await alice.previewDataSource({ type: 'redshift', name: 'own', info: { rsurl: `postgres://${OWN_IPV4!}:${webPort}/db`, rsuser: 'u', rspasswd: 'p', path: 't' } });
    expect(pg.status).toBe(400);
    expect(pg.body.statusString).toContain(`address ${OWN_IPV4!} is `);
    expect(webAccepted).toBe(0);
  });

  it('refuses http sources in the reserved ranges (192.0.2/24, 198.18/15, 240/4): 400 naming the address', async () => {
    for (const ip of ['192.0.2.1', '198.18.0.1', '198.19.255.1', '240.0.0.1']) {
      const r = await alice.previewDataSource({ type: 'http', name: 'res', info: { path: `http://${ip}:${webPort}/x.csv` } });
      expect({ ip, status: r.status, statusString: r.body.statusString }).toEqual({
        ip, status: 400, statusString: `Data source [res] cannot be read: http://${ip}:${webPort}/x.csv: address ${ip} is reserved, not a public address; set SML_SOURCES_ALLOW_PRIVATE=true to allow`,
      });
    }
  });
});

describe('a NATS server that cannot be connected to reads only "cannot connect to <host>" (SML_SOURCES_ALLOW_PRIVATE=true)', () => {
  let sys: RunningSystem;
  let alice: SmlClient;
  let silent: Awaited<ReturnType<typeof silentListener>>;

  beforeAll(async () => {
    sys = await startSystem({ services: ['users', 'jobs', 'projects', 'streams'] });
    alice = await customer(sys);
    silent = await silentListener('127.0.0.1');
  }, 120_000);

  afterAll(async () => {
    await silent?.close();
    await sys?.stop();
  });

  it('the bus without credentials (Authorization Violation), a closed port (CONNECTION_REFUSED), a silent server (TIMEOUT): the same text', async () => {
    const servers = [
      `nats://127.0.0.1:${new URL(sys.nats.url).port}`,
      `nats://127.0.0.1:${await freePort()}`,
      `127.0.0.1:${silent.port}`,
    ];
    for (const server of servers) {
      for (const { call, answer } of natsCalls(alice, server)) {
        const r = await answer();
        expect({ call, server, status: r.status }).toEqual({ call, server, status: 500 });
        // Nothing of nats.js' reason: only which of the customer's servers could not be reached.
        expect(r.body.statusString).toMatch(new RegExp(`^Generic Exception \\[java\\.lang\\.Exception: Cannot (browse the NATS server|build the NATS consumer of subject \\[events\\.x\\]): cannot connect to ${quoted(server)}\\]$`));
        expect(r.body.statusString).not.toMatch(/authori[sz]ation|violation|timeout|refused|ECONN/i);
      }
    }
    expect(silent.accepted()).toBeGreaterThan(0);
    // Kafka alike (a closed port: ECONNREFUSED).
    const broker = `127.0.0.1:${await freePort()}`;
    for (const { call, answer } of kafkaCalls(alice, broker)) {
      const r = await answer();
      expect({ call, status: r.status }).toEqual({ call, status: 500 });
      expect(r.body.statusString).toMatch(new RegExp(`^Generic Exception \\[java\\.lang\\.Exception: Cannot (browse the Kafka cluster|build the Kafka consumer of topic \\[t\\]): cannot connect to ${quoted(broker)}\\]$`));
    }
    expect(sys.unexpectedExits()).toEqual([]);
  }, 120_000);
});
