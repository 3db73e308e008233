import { sml } from './run';
import { StandInGateway } from './standin';

// `sml drift` against a stand-in gateway that checks each signature: the request it sends and the table it prints.
describe('sml drift (against a stand-in gateway)', () => {
  let gw: StandInGateway;

  beforeAll(async () => {
    gw = await StandInGateway.start();
  });
  beforeEach(() => gw.reset());
  afterAll(() => gw.close());

  it('both projects and the metric go in extraParameters, --inputs in inputAttributeNames; one table', async () => {
    gw.answer = () => ({ status: 200, statusString: 'OK', values: { KSVDMap: { values: [{ driftScore: 0.2, x_drift: 0.2 }] } } });
    const r = await sml(['drift', 'global', 'jan', 'feb', '--inputs', 'x', '--param', 'k=v'], gw.env);
    expect(r).toEqual({ code: 0, stdout: 'KEY         VALUE\ndriftScore  0.2\nx_drift     0.2\n', stderr: '' });
    const [s] = gw.seen;
    expect([s.method, s.path]).toEqual(['POST', '/symetry/rest/c1/projects/dataDrift']);
    expect(s.body).toEqual({ inputAttributeNames: ['x'], extraParameters: { k: 'v', driftPreferenceProjectName: 'jan', driftAnalysisProjectName: 'feb', driftMetric: 'global' } });
  });

  it('without --inputs, no attributes are named (every attribute both projects have)', async () => {
    await sml(['drift', 'marginal_stat', 'jan', 'feb'], gw.env);
    expect(gw.seen[0].body).toEqual({ extraParameters: { driftPreferenceProjectName: 'jan', driftAnalysisProjectName: 'feb', driftMetric: 'marginal_stat' } });
  });
});
