import { connect, type NatsConnection } from 'nats';
import { smlError } from '@sml/core';
import { sml } from '@sml/proto';
import { BusClient, BusService } from '@sml/bus';
import { startNatsServer, type NatsServer } from '@sml/testkit';
import { log, until } from './helpers';

const caller = { user: 'c1', root: false, requestId: 'r1' };
const RESET_MS = 500;

/** The code of a failed call's cause: EOPENBREAKER when the breaker refused it without sending. */
const causeCode = (err: unknown) => ((err as { cause?: { code?: string } }).cause?.code);

// Issue 29, item 14: a projects shard unanswered for 130 ms opened the gateway's one breaker of
// "projects" and made every request of every customer answer 503 for ≈ 20 s. Breakers are per
// subject now (an operation of a service; a shard's operation of the projects), only timeouts
// count, and "no responders" is sent again for a while instead.
describe('circuit breakers per subject', () => {
  let nats: NatsServer;
  let serviceNc: NatsConnection;
  let clientNc: NatsConnection;
  let client: BusClient;
  /** Requests the client handed to NATS, per subject. */
  const sent: Record<string, number> = {};

  beforeAll(async () => {
    nats = await startNatsServer();
    serviceNc = await connect({ servers: nats.url });
    clientNc = await connect({ servers: nats.url });
    const request = clientNc.request.bind(clientNc);
    jest.spyOn(clientNc, 'request').mockImplementation((subject, ...rest) => {
      sent[subject] = (sent[subject] ?? 0) + 1;
      return request(subject, ...rest);
    });
    client = new BusClient(clientNc, { timeoutMs: 300, resetMs: RESET_MS, noRespondersRetryMs: 1000 });
  });

  afterAll(async () => {
    client.close();
    for (const nc of [serviceNc, clientNc]) await nc.close();
    await nats.stop();
  });

  const get = (subject: string, jobId = 1, c = client) =>
    c.request(subject.split('.')[1], subject, sml.v1.JobGetRequest, { caller, jobId }, sml.v1.JobGetReply);
  const failure = (subject: string) => get(subject).then(() => undefined, (e: unknown) => e);
  const sentTo = (subject: string) => sent[subject] ?? 0;

  it('no responders: sent again until a responder subscribes — a short gap is not an error', async () => {
    const service = await BusService.start(serviceNc, { name: 'late', log });
    await service.suspend();
    service.endpoint('sml.late.get', sml.v1.JobGetRequest, sml.v1.JobGetReply, () => ({}));
    const asked = get('sml.late.get');
    setTimeout(() => void service.resume(), 150);
    expect((await asked).status?.code).toBe(200);
    expect(sentTo('sml.late.get')).toBeGreaterThan(1);
    expect(client.breakerOpen('sml.late.get')).toBe(false);
    await service.stop();
  });

  it('no responders for longer than the retry window: 503 naming the service, and never an open breaker', async () => {
    const patient = new BusClient(clientNc, { timeoutMs: 5000, resetMs: RESET_MS, noRespondersRetryMs: 1000 });
    for (let i = 0; i < 6; i++) {
      const t0 = Date.now();
      const err = await get('sml.ghost.get', 1, patient).catch((e: unknown) => e);
      expect(err).toEqual(expect.objectContaining({ code: 'SERVICE_UNAVAILABLE', status: 503, retryable: true, message: 'Service [ghost] is unavailable' }));
      expect(Date.now() - t0).toBeGreaterThanOrEqual(500);
    }
    expect(patient.breakerOpen('sml.ghost.get')).toBe(false);
  });

  it('timeouts open the breaker of that subject only: another operation of the same service still answers', async () => {
    const service = await BusService.start(serviceNc, { name: 'slow', log });
    // get never answers within the client's 300 ms; list answers at once.
    service.endpoint('sml.slow.get', sml.v1.JobGetRequest, sml.v1.JobGetReply, () => new Promise(() => undefined));
    service.endpoint('sml.slow.list', sml.v1.JobGetRequest, sml.v1.JobGetReply, () => ({}));
    await serviceNc.flush();
    for (let i = 0; i < 5; i++) {
      const err = await failure('sml.slow.get');
      expect(err).toEqual(expect.objectContaining({ code: 'SERVICE_TIMEOUT', status: 503, message: 'Service [slow] did not answer within 300 ms' }));
      expect(causeCode(err)).not.toBe('EOPENBREAKER');
    }
    expect(client.breakerOpen('sml.slow.get')).toBe(true);
    const before = sentTo('sml.slow.get');
    // Open: the same 503, but nothing reaches NATS.
    const refused = await failure('sml.slow.get');
    expect(refused).toEqual(expect.objectContaining({ code: 'SERVICE_UNAVAILABLE', status: 503 }));
    expect(causeCode(refused)).toBe('EOPENBREAKER');
    expect(sentTo('sml.slow.get')).toBe(before);
    expect((await get('sml.slow.list')).status?.code).toBe(200);
    expect(client.breakerOpen('sml.slow.list')).toBe(false);

    // After resetMs one trial is sent (half-open); it times out, so the breaker opens again.
    const trial = await until('a half-open trial', async () => {
      const err = await failure('sml.slow.get');
      return causeCode(err) === 'EOPENBREAKER' ? undefined : err;
    });
    expect(trial).toEqual(expect.objectContaining({ code: 'SERVICE_TIMEOUT' }));
    expect(sentTo('sml.slow.get')).toBe(before + 1);
    expect(causeCode(await failure('sml.slow.get'))).toBe('EOPENBREAKER');
    await service.stop();
  });

  it('an answered half-open trial closes it with a clean count: the next timeout alone does not open it', async () => {
    const service = await BusService.start(serviceNc, { name: 'flaky', log });
    let slow = true;
    service.endpoint('sml.flaky.get', sml.v1.JobGetRequest, sml.v1.JobGetReply, () => (slow ? new Promise(() => undefined) : {}));
    await serviceNc.flush();
    for (let i = 0; i < 5; i++) await failure('sml.flaky.get');
    expect(client.breakerOpen('sml.flaky.get')).toBe(true);
    slow = false;
    const first = await until('the trial that reaches the service', async () => {
      try {
        return await get('sml.flaky.get');
      } catch (err) {
        if (causeCode(err) !== 'EOPENBREAKER') throw err;
        return undefined;
      }
    });
    expect(first.status?.code).toBe(200);
    expect(client.breakerOpen('sml.flaky.get')).toBe(false);
    slow = true;
    expect(await failure('sml.flaky.get')).toEqual(expect.objectContaining({ code: 'SERVICE_TIMEOUT' }));
    expect(client.breakerOpen('sml.flaky.get')).toBe(false);
    slow = false;
    expect((await get('sml.flaky.get')).status?.code).toBe(200);
    await service.stop();
  });

  it('an error Status in a reply is data: 4xx and even 503 statuses never open the breaker', async () => {
    const service = await BusService.start(serviceNc, { name: 'grumpy', log });
    service.endpoint('sml.grumpy.get', sml.v1.JobGetRequest, sml.v1.JobGetReply, (req) => {
      throw Number(req.jobId) === 400 ? smlError('NO_SUCH_JOB') : smlError('NATS_UNAVAILABLE', { cause: 'connection lost' });
    });
    await serviceNc.flush();
    for (let i = 0; i < 10; i++) {
      const reply = await get('sml.grumpy.get', i % 2 ? 400 : 503);
      expect(reply.status?.code).toBe(i % 2 ? 400 : 503);
    }
    expect(client.breakerOpen('sml.grumpy.get')).toBe(false);
    expect(sentTo('sml.grumpy.get')).toBe(10);
    await service.stop();
  });
});
