import { connect, type NatsConnection } from 'nats';
import pino from 'pino';
import { SmlError, smlError } from '@sml/core';
import { sml } from '@sml/proto';
import { BusClient, BusService, unwrap, type MessageType, type WithStatus } from '@sml/bus';
import { startNatsServer, type NatsServer } from '@sml/testkit';

const bigReply = sml.v1.JobCreateRequest as unknown as MessageType<sml.v1.IJobCreateRequest & WithStatus>;

const log = pino({ level: 'silent' });
const caller = { user: 'c1', root: false, requestId: 'r1' };

describe('bus over a real nats-server', () => {
  let nats: NatsServer;
  let nc: NatsConnection;
  let service: BusService;
  let client: BusClient;

  beforeAll(async () => {
    nats = await startNatsServer({ maxPayload: '256KB' });
    nc = await connect({ servers: nats.url });
    service = await BusService.start(nc, { name: 'echo', log });
    // Echo the caller back as a job list so both directions are typed protobuf.
    service.endpoint('sml.echo.get', sml.v1.JobGetRequest, sml.v1.JobListReply, (req, ctx) => {
      if (Number(req.jobId) === 400) throw smlError('NO_SUCH_JOB');
      if (Number(req.jobId) === 500) throw new TypeError('boom');
      return { jobinfolist: [{ jobId: req.jobId, owner: ctx.caller.user ?? '', jobType: ctx.requestId }] };
    });
    // A message without a status field, echoed as the reply: it only needs to be big.
    service.endpoint('sml.echo.big', sml.v1.JobCreateRequest, bigReply, (req) => ({ ...req, jobType: `${req.jobType}!` }));
    client = new BusClient(nc, { timeoutMs: 2000, resetMs: 200 });
  });

  afterAll(async () => {
    client.close();
    await service.stop();
    await nc.close();
    await nats.stop();
  });

  it('a typed request reaches the handler with caller and request id', async () => {
    const reply = unwrap(await client.request('echo', 'sml.echo.get', sml.v1.JobGetRequest, { caller, jobId: 7 }, sml.v1.JobListReply));
    expect(reply.status).toEqual(expect.objectContaining({ code: 200, message: 'OK' }));
    expect(reply.jobinfolist![0]).toEqual(expect.objectContaining({ jobId: 7, owner: 'c1', jobType: 'r1' }));
  });

  it('an SmlError crosses the bus as a Status and is rebuilt into the same error', async () => {
    const reply = await client.request('echo', 'sml.echo.get', sml.v1.JobGetRequest, { caller, jobId: 400 }, sml.v1.JobListReply);
    expect(reply.status).toEqual(expect.objectContaining({ code: 400, message: 'No such job', errorCode: 'NO_SUCH_JOB' }));
    expect(() => unwrap(reply)).toThrow(expect.objectContaining({ code: 'NO_SUCH_JOB', status: 400 }));
  });

  it('a crashing handler answers 500 without its stack, is counted, and the service keeps serving', async () => {
    const reply = await client.request('echo', 'sml.echo.get', sml.v1.JobGetRequest, { caller, jobId: 500 }, sml.v1.JobListReply);
    expect(reply.status?.code).toBe(500);
    expect(reply.status?.message).toBe('Internal error (request id r1)');
    expect(reply.status?.message).not.toMatch(/boom|TypeError/);
    const again = await client.request('echo', 'sml.echo.get', sml.v1.JobGetRequest, { caller, jobId: 1 }, sml.v1.JobListReply);
    expect(again.status?.code).toBe(200);
    const stats = await service.service.stats();
    expect(stats.endpoints?.find((e) => e.subject === 'sml.echo.get')?.data).toEqual(expect.objectContaining({ crashes: 1 }));
  });

  it("handler crashes never open the caller's circuit breaker (one tenant's bad requests must not cut off everyone)", async () => {
    const c = new BusClient(nc, { timeoutMs: 2000, resetMs: 60_000 });
    for (let i = 0; i < 12; i++) {
      const reply = await c.request('echo', 'sml.echo.get', sml.v1.JobGetRequest, { caller, jobId: 500 }, sml.v1.JobListReply);
      expect(reply.status?.code).toBe(500);
    }
    expect(c.breakerOpen('sml.echo.get')).toBe(false);
    expect((await c.request('echo', 'sml.echo.get', sml.v1.JobGetRequest, { caller, jobId: 1 }, sml.v1.JobListReply)).status?.code).toBe(200);
    c.close();
  });

  it('the service is discoverable through $SRV.PING', async () => {
    const seen: string[] = [];
    for await (const p of await nc.services.client().ping()) seen.push(p.name);
    expect(seen).toContain('echo');
  });

  it('payloads above max_payload travel in chunks through the object store, both ways', async () => {
    const details = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`k${i}`, 'x'.repeat(200)]));
    const req = { caller, jobType: 'big', details };
    expect(sml.v1.JobCreateRequest.encode(req).finish().length).toBeGreaterThan(256 * 1024);
    const reply = await client.request('echo', 'sml.echo.big', sml.v1.JobCreateRequest, req, bigReply);
    expect(reply.jobType).toBe('big!');
    expect(Object.keys(reply.details!)).toHaveLength(2000);
    expect(reply.details!.k1999).toBe('x'.repeat(200));
  });

  it('no responders → 503 naming the service (after the retry window), and the breaker stays closed', async () => {
    const c = new BusClient(nc, { timeoutMs: 1000, resetMs: 60_000, noRespondersRetryMs: 100 });
    for (let i = 0; i < 6; i++) {
      const err = await c.request('ghost', 'sml.ghost.get', sml.v1.JobGetRequest, { caller }, sml.v1.JobGetReply).catch((e) => e);
      expect(err).toBeInstanceOf(SmlError);
      expect(err).toEqual(expect.objectContaining({ status: 503, message: 'Service [ghost] is unavailable' }));
    }
    expect(c.breakerOpen('sml.ghost.get')).toBe(false);
    c.close();
  });

  it('a suspended service answers nothing and leaves discovery; resumed, it serves every endpoint again, also ones added meanwhile', async () => {
    const other = await BusService.start(nc, { name: 'standby', log });
    other.endpoint('sml.standby.get', sml.v1.JobGetRequest, sml.v1.JobListReply, (req) => ({ jobinfolist: [{ jobId: req.jobId }] }));
    const c = new BusClient(nc, { timeoutMs: 1000, resetMs: 50, noRespondersRetryMs: 0 });
    const ask = (subject: string) => c.request('standby', subject, sml.v1.JobGetRequest, { caller, jobId: 3 }, sml.v1.JobListReply).then((r) => r.status?.code, (e: SmlError) => e.code);
    const discovered = async () => {
      let n = 0;
      try {
        for await (const _p of await nc.services.client().ping('standby')) n++;
      } catch {
        // No responders: nobody to discover.
      }
      return n;
    };
    try {
      expect(await ask('sml.standby.get')).toBe(200);
      await other.suspend();
      expect({ serving: other.serving, answer: await ask('sml.standby.get'), discovered: await discovered() }).toEqual({ serving: false, answer: 'SERVICE_UNAVAILABLE', discovered: 0 });
      other.endpoint('sml.standby.list', sml.v1.JobGetRequest, sml.v1.JobListReply, () => ({ jobinfolist: [] }));
      await new Promise((r) => setTimeout(r, 60)); // past the client's breaker reset
      expect(await ask('sml.standby.list')).toBe('SERVICE_UNAVAILABLE');
      await new Promise((r) => setTimeout(r, 60));
      await other.resume();
      expect({ serving: other.serving, get: await ask('sml.standby.get'), list: await ask('sml.standby.list'), discovered: await discovered() }).toEqual({ serving: true, get: 200, list: 200, discovered: 1 });
    } finally {
      c.close();
      await other.stop();
    }
  });
});
