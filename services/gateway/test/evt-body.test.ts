import { evtRoutes } from '../src/routes/models';

// API.md §7 evtwrapper and §12: the body is a flat map, or the same map as a KSVSMap
// {"values":[{…}]}, the form SymetryML clients (sym-rest-rc) send.
describe('evtwrapper body', () => {
  const body = evtRoutes.find((r) => r.operationId === 'createEvtWrapper')!.body!;
  const params = { sml_evt_wrapper_res_key: 'res', evt_warmup_size: 50, evt_grimshaw: true };
  const expected = { sml_evt_wrapper_res_key: 'res', evt_warmup_size: '50', evt_grimshaw: 'true' };

  it('reads a flat map, numbers and booleans as their text', () => {
    expect(body.parse(params)).toEqual(expected);
  });

  it('reads a KSVSMap {"values":[{…}]} as its first entry', () => {
    expect(body.parse({ values: [params] })).toEqual(expected);
    expect(body.parse({ values: [] })).toEqual({});
  });

  it('a flat map may name a parameter "values" only as a string (anything else is refused)', () => {
    expect(body.safeParse({ values: [params], evt_alpha: '0.1' }).success).toBe(false);
    expect(body.safeParse({ values: 'x' }).success).toBe(true);
  });
});
