import type { sml } from '@sml/proto';
import { routeContext } from '../src/dispatch';
import { routes } from '../src/routes';

// POST predict/{m}: the frame travels as numeric columns when the fast reader takes it and
// every column is C or B, else as the JSON rows; both within SML_MAX_PREDICT_CELLS, and a body
// that is not a DataFrame gets the errors of a JSON route.
describe('predict request', () => {
  const route = routes.find((r) => r.operationId === 'predict')!;
  const limits = { maxPredictCells: 12, maxJsonBodyBytes: 1_000_000 };
  const request = async (body: unknown) => {
    const raw = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
    const ctx = routeContext(route, { caller: { user: 'alice' }, params: { user: 'alice', pid: 'p', m: 'm' }, query: {}, body: raw, headers: {}, limits });
    return (await route.toRequest(ctx)) as sml.v1.IPredictRequest;
  };
  const frame = (names: string[], types: string[], data: unknown[][]) => ({ attributeNames: names, attributeTypes: types, data });

  it('a frame of C and B columns goes as columns (no rows); missing cells stay missing', async () => {
    const r = await request(frame(['a', 'b'], ['C', 'B'], [['1.5', '1'], ['', '0'], ['NA', '1']]));
    expect(r.frame).toBeUndefined();
    expect(r.columns).toEqual(expect.objectContaining({ names: ['a', 'b'], rowCount: 3, categorical: [] }));
    expect(r.columns!.numeric!.map((c) => c.name)).toEqual(['a', 'b']);
  });

  it.each([
    ['a T column', frame(['a', 't'], ['C', 'T'], [['1', 'x'], ['2', 'y']])],
    ['an S column (an encoder\'s key)', frame(['a', 's'], ['C', 'S'], [['1', 'x'], ['2', 'y']])],
    ['an X column', frame(['a', 'x'], ['C', 'X'], [['1', 'x'], ['2', 'y']])],
    ['a cell that is not a number', frame(['a'], ['C'], [['1'], ['abc']])],
    ['a ragged row', frame(['a', 'b'], ['C', 'C'], [['1', '2'], ['3']])],
  ])('%s: the JSON rows', async (_what, body) => {
    const r = await request(body);
    expect(r.columns).toBeUndefined();
    expect(r.frame!.data!.length).toBe(2);
  });

  it('more cells than SML_MAX_PREDICT_CELLS: 400 naming the count, as columns and as rows', async () => {
    const message = (rows: number) => `A predict takes at most 12 cells per request (SML_MAX_PREDICT_CELLS); this frame has ${rows * 2} in ${rows} rows: predict fewer rows at a time, or score a data source with dss/predict`;
    await expect(request(frame(['a', 'b'], ['C', 'C'], Array.from({ length: 7 }, () => ['1', '2'])))).rejects.toThrow(message(7));
    await expect(request(frame(['a', 't'], ['C', 'T'], Array.from({ length: 7 }, () => ['1', 'x'])))).rejects.toThrow(message(7));
    expect((await request(frame(['a', 'b'], ['C', 'C'], Array.from({ length: 6 }, () => ['1', '2'])))).columns!.rowCount).toBe(6);
  });

  it('a body that is not a DataFrame: the errors of a JSON route', async () => {
    await expect(request('{"attributeNames": [')).rejects.toEqual(expect.objectContaining({ code: 'MALFORMED_JSON' }));
    await expect(request({ attributeNames: ['a'], attributeTypes: ['C'], data: 'x' })).rejects.toEqual(expect.objectContaining({ code: 'INVALID_REQUEST', message: expect.stringContaining('data must be an array of rows') }));
  });
});
