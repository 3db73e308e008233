import { sml } from '@sml/proto';
import { toJson } from '@sml/core';
import { envelopeWithRawValues, replyValues } from '../src/envelope';
import { routes } from '../src/routes';

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
    const raw = route.present!(sml.v1.PredictReply.create({ predictionsJson: json }));
    expect(Buffer.from(raw.rawValues!).toString()).toBe('{"KSVSMap":{"values":[{"res":"2"}]}}');
    const plain = route.present!(sml.v1.PredictReply.create({ KSVSMap: { values: [{ entries: { res: '2' } }] } }));
    expect(plain).toEqual({ status: { code: 200, message: 'OK' }, values: { KSVSMap: { values: [{ res: '2' }] } } });
  });
});
