import { sml } from '@sml/proto';
import { smlError, toJson, type Logger, type SmlError } from '@sml/core';
import type { BusHealth } from '@sml/bus';
import { FrameError } from '@sml/stats';
import { envelopeWithRawValues, errorEnvelopeText, failureAnswer, replyValues } from '../src/envelope';
import { GatewayMetrics } from '../src/metrics';
import { routes } from '../src/routes';
import type { RouteContext } from '../src/route';

/** A predict's presentation reads nothing of its request. */
const NO_CONTEXT = {} as RouteContext;

// A reply becomes REST `values` by its schema: messages that only wrap `entries` collapse to
// it, while map keys are data and stay as they are, even when a key is `entries`.
describe('replyValues', () => {
  it('collapses entries wrappers (DoubleMap, Row) into their value', () => {
    const reply = sml.v1.ExploreReply.fromObject({ KSVDMap: { values: [{ entries: { mean: 1.5, sd: 2 } }] } });
    expect(replyValues(sml.v1.ExploreReply, reply)).toEqual({ KSVDMap: { values: [{ mean: 1.5, sd: 2 }] } });
  });

  it('keeps a map key named entries (an attribute, a model) as data', () => {
    const reply = sml.v1.ExploreReply.fromObject({ KSVDMap: { values: [{ entries: { entries: 1.5 } }] } });
    expect(replyValues(sml.v1.ExploreReply, reply).KSVDMap).toEqual({ values: [{ entries: 1.5 }] });
    const info = sml.v1.ProjectInfoReply.fromObject({ smlInfo: { modelAssessments: { entries: { scores: { rmse: 0.5 } } } } });
    const values = replyValues(sml.v1.ProjectInfoReply, info) as { smlInfo: { modelAssessments: unknown } };
    expect(values.smlInfo.modelAssessments).toEqual({ entries: { scores: { rmse: 0.5 } } });
  });
});

// A predict's answer comes as JSON text from the projects service and is spliced into the
// envelope: the bytes must be those of the envelope built from the values.
describe('envelopeWithRawValues', () => {
  it('is the envelope toJson builds around the same values', () => {
    const values = { KSVSMap: { values: [{ res: '1.5', 'q"uote': 'é\n\u2028' }, { res: 'NaN' }] } };
    for (const [status, message] of [[200, 'OK'], [200, 'a "quoted" message']] as const) {
      expect(envelopeWithRawValues(status, message, Buffer.from(JSON.stringify(values))).toString('utf8'))
        .toBe(toJson({ statusCode: status, statusString: message, values }));
    }
  });

  it('a predict route presents the service\'s JSON as it is, and a reply without it as KSVSMap', () => {
    const route = routes.find((r) => r.operationId === 'predict')!;
    const json = Buffer.from('[{"res":"2"}]');
    const raw = route.present!(sml.v1.PredictReply.create({ predictionsJson: json }), NO_CONTEXT);
    expect(Buffer.from(raw.rawValues!).toString()).toBe('{"KSVSMap":{"values":[{"res":"2"}]}}');
    const plain = route.present!(sml.v1.PredictReply.create({ KSVSMap: { values: [{ entries: { res: '2' } }] } }), NO_CONTEXT);
    expect(plain).toEqual({ status: { code: 200, message: 'OK' }, values: { KSVSMap: { values: [{ res: '2' }] } } });
  });
});

// REST and WebSocket answer a failure through one function: the same envelope, the same
// count of refused authentications, the same Internal error for what no rule maps.
describe('failureAnswer', () => {
  const setup = (natsDown?: SmlError) => {
    const metrics = new GatewayMetrics();
    const logged: unknown[] = [];
    const log = { error: (obj: unknown) => logged.push(obj) } as unknown as Logger;
    const bus = { failure: () => natsDown } as unknown as BusHealth;
    const counted = async () => (await metrics.authFailures.get()).values.map((v) => [v.labels.code, v.value]);
    return { deps: { bus, metrics, log }, logged, counted };
  };

  it('counts each refused authentication by its code, and nothing else', async () => {
    const { deps, counted } = setup();
    for (const code of ['AUTH_HEADER_NULL', 'SYM_DATE_NULL', 'INVALID_DATE_FORMAT', 'CLOCK_SKEW', 'INVALID_USER', 'MD5_MISMATCH', 'INVALID_SIGNATURE', 'REPLAYED_REQUEST'] as const) {
      expect(failureAnswer(smlError(code), deps, {}).code).toBe(code);
    }
    for (const code of ['PROJECT_NOT_FOUND', 'BODY_TOO_LARGE', 'MALFORMED_JSON'] as const) failureAnswer(smlError(code), deps, {});
    expect(await counted()).toEqual([['AUTH_HEADER_NULL', 1], ['SYM_DATE_NULL', 1], ['INVALID_DATE_FORMAT', 1], ['CLOCK_SKEW', 1], ['INVALID_USER', 1],
      ['MD5_MISMATCH', 1], ['INVALID_SIGNATURE', 1], ['REPLAYED_REQUEST', 1]]);
  });

  it('answers NATS failures as the bus says, domain errors by their kind, anything else Internal (logged, with its request id)', () => {
    const down = smlError('NATS_UNAVAILABLE', { cause: 'connection lost' });
    expect(failureAnswer(new Error('disconnected'), setup(down).deps, {})).toBe(down);
    const { deps, logged } = setup();
    expect(failureAnswer(new FrameError(1, 'x', 'bad'), deps, {}).message).toBe('Invalid DataFrame at row 1, column [x]: bad');
    expect(logged).toEqual([]);
    const internal = failureAnswer(new TypeError('x is undefined'), deps, { route: '/r' }, 'id-1');
    expect([internal.status, internal.message]).toEqual([500, 'Internal error (request id id-1)']);
    expect(logged).toEqual([expect.objectContaining({ requestId: 'id-1', route: '/r' })]);
  });

  it("an error's envelope: values, or none for the jobs-list 500", () => {
    expect(errorEnvelopeText(smlError('PROJECT_NOT_FOUND', { pid: 'p', user: 'u' }))).toBe('{"statusCode":400,"statusString":"Cannot Find Project id[p] for Customer id [u]","values":{}}');
    expect(errorEnvelopeText(smlError('JOBS_ALL_NOT_ROOT'))).toBe('{"statusCode":500,"statusString":"Generic Exception [java.lang.Exception: Cannot specify all=true for non root user]"}');
  });
});
