import { connect, type NatsConnection } from 'nats';
import { smlError } from '@sml/core';
import { sml } from '@sml/proto';
import { BusClient, BusService } from '@sml/bus';
import { startNatsServer, type NatsServer } from '@sml/testkit';
import { log, until } from './helpers';

const caller = { user: 'c1', root: false, requestId: 'r1' };
const RESET_MS = 500;

/** The opossum code of a failed call's cause: EOPENBREAKER when the breaker refused it without sending. */
const causeCode = (err: unknown) => ((err as { cause?: { code?: string } }).cause?.code);

describe('circuit breaker per target service', () => {
  let nats: NatsServer;
  let serviceNc: NatsConnection;
  let clientNc: NatsConnection;
  let client: BusClient;
  /** Requests the client handed to NATS, per service. */
  const sent: Record<string, number> = {};
  let handled = 0;

  beforeAll(async () => {
    nats = await startNatsServer();
    serviceNc = await connect({ servers: nats.url });
    clientNc = await connect({ servers: nats.url });
    // A subscription would be a responder (no "no responders" failure): count at the client instead.
    const request = clientNc.request.bind(clientNc);
    jest.spyOn(clientNc, 'request').mockImplementation((subject, ...rest) => {
      const s = subject.split('.')[1];
      sent[s] = (sent[s] ?? 0) + 1;
      return request(subject, ...rest);
    });
    client = new BusClient(clientNc, { timeoutMs: 300, resetMs: RESET_MS });
  });

  afterAll(async () => {
    client.close();
    for (const nc of [serviceNc, clientNc]) await nc.close();
    await nats.stop();
  });

  const get = (service: string, jobId = 1) =>
    client.request(service, `sml.${service}.get`, sml.v1.JobGetRequest, { caller, jobId }, sml.v1.JobGetReply);
  const failure = (service: string) => get(service).then(() => undefined, (e: unknown) => e);
  const sentTo = (service: string) => sent[service] ?? 0;

  it('opens after repeated transport failures, refuses without sending while open, and a failed half-open trial opens it again', async () => {
    for (let i = 0; i < 5; i++) {
      const err = await failure('flaky');
      expect(err).toEqual(expect.objectContaining({ code: 'SERVICE_UNAVAILABLE', status: 503, retryable: true, message: 'Service [flaky] is unavailable' }));
      expect(causeCode(err)).not.toBe('EOPENBREAKER');
    }
    expect(client.breakerOpen('flaky')).toBe(true);
    const before = sentTo('flaky');
    expect(before).toBe(5);

    // Open: the same 503, but nothing reaches NATS.
    const refused = await failure('flaky');
    expect(refused).toEqual(expect.objectContaining({ code: 'SERVICE_UNAVAILABLE', status: 503 }));
    expect(causeCode(refused)).toBe('EOPENBREAKER');
    expect(sentTo('flaky')).toBe(before);

    // After resetMs one trial is sent (half-open); it fails, so the breaker opens again.
    const trial = await until('a half-open trial', async () => {
      const err = await failure('flaky');
      return causeCode(err) === 'EOPENBREAKER' ? undefined : err;
    });
    expect(trial).toEqual(expect.objectContaining({ code: 'SERVICE_UNAVAILABLE' }));
    expect(sentTo('flaky')).toBe(before + 1);
    expect(client.breakerOpen('flaky')).toBe(true);
    expect(causeCode(await failure('flaky'))).toBe('EOPENBREAKER');
  });

  it('a successful half-open trial closes it: the service answers again through the same client', async () => {
    const service = await BusService.start(serviceNc, { name: 'flaky', log });
    service.endpoint('sml.flaky.get', sml.v1.JobGetRequest, sml.v1.JobGetReply, () => {
      handled++;
      return {};
    });
    await serviceNc.flush();
    // Until the reset delay has passed, calls are still refused and the handler sees none.
    const first = await until('the trial that reaches the service', async () => {
      try {
        return await get('flaky');
      } catch (err) {
        if (causeCode(err) !== 'EOPENBREAKER') throw err;
        expect(handled).toBe(0);
        return undefined;
      }
    });
    expect(first.status?.code).toBe(200);
    expect(handled).toBe(1);
    expect(client.breakerOpen('flaky')).toBe(false);
    for (let i = 0; i < 3; i++) expect((await get('flaky')).status?.code).toBe(200);
    expect(handled).toBe(4);
    await service.stop();
  });

  it('timeouts count as transport failures', async () => {
    const service = await BusService.start(serviceNc, { name: 'slow', log });
    // Never answers within the client's 300 ms.
    service.endpoint('sml.slow.get', sml.v1.JobGetRequest, sml.v1.JobGetReply, () => new Promise(() => undefined));
    await serviceNc.flush();
    for (let i = 0; i < 5; i++) {
      expect(await failure('slow')).toEqual(expect.objectContaining({ code: 'SERVICE_TIMEOUT', status: 503, message: 'Service [slow] did not answer within 300 ms' }));
    }
    expect(client.breakerOpen('slow')).toBe(true);
    expect(causeCode(await failure('slow'))).toBe('EOPENBREAKER');
    await service.stop();
  });

  it('an error Status in a reply is data: even 503 statuses never open the breaker', async () => {
    const service = await BusService.start(serviceNc, { name: 'grumpy', log });
    service.endpoint('sml.grumpy.get', sml.v1.JobGetRequest, sml.v1.JobGetReply, (req) => {
      throw Number(req.jobId) === 400 ? smlError('NO_SUCH_JOB') : smlError('NATS_UNAVAILABLE', { cause: 'connection lost' });
    });
    await serviceNc.flush();
    for (let i = 0; i < 10; i++) {
      const reply = await get('grumpy', i % 2 ? 400 : 503);
      expect(reply.status?.code).toBe(i % 2 ? 400 : 503);
    }
    expect(client.breakerOpen('grumpy')).toBe(false);
    expect(sentTo('grumpy')).toBe(10);
    await service.stop();
  });

  it('breakers are per service: one open breaker leaves another service reachable', async () => {
    const service = await BusService.start(serviceNc, { name: 'healthy', log });
    service.endpoint('sml.healthy.get', sml.v1.JobGetRequest, sml.v1.JobGetReply, () => ({}));
    await serviceNc.flush();
    for (let i = 0; i < 5; i++) await failure('ghost');
    expect(client.breakerOpen('ghost')).toBe(true);
    expect((await get('healthy')).status?.code).toBe(200);
    expect(client.breakerOpen('healthy')).toBe(false);
    await service.stop();
  });
});
