import { sml } from '@sml/proto';
import { replyValues } from '../src/envelope';

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
