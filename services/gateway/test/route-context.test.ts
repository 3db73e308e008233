import { routeContext } from '../src/dispatch';
import { routes } from '../src/routes';

// SML_MAX_JSON_BODY_BYTES: every body but a learn or forget frame and an import is refused over
// the bound before it is parsed (or decrypted), on the gateway's event loop.
describe('routeContext body bound', () => {
  const all = routes;
  const limits = { maxPredictCells: 1_000_000, maxJsonBodyBytes: 1000 };
  const input = (body: Buffer) => ({ caller: { user: 'alice' }, params: { user: 'alice', pid: 'p', m: 'm', e: 'e' }, query: {}, body, headers: {}, limits });
  const message = 'Request body larger than the limit of 1000 bytes for this operation (SML_MAX_JSON_BODY_BYTES; learn and forget bodies may be larger, up to SML_BODY_LIMIT)';

  it('only learn, forget and the imports take bodies over it', () => {
    expect(all.filter((r) => r.largeBody).map((r) => r.operationId).sort()).toEqual(['forgetProject', 'importModel', 'importProject', 'importProjectAs', 'learnProject']);
  });

  it.each(['predict', 'learnPredict', 'createDataSource', 'learnEncoder'])('%s: one byte over → 413 naming the bound, before the body is read', (operationId) => {
    const route = all.find((r) => r.operationId === operationId)!;
    // Not JSON at all: the bound is checked first.
    expect(() => routeContext(route, input(Buffer.alloc(1001, 'x')))).toThrow(expect.objectContaining({ code: 'JSON_BODY_TOO_LARGE', message }));
    expect(() => routeContext(route, input(Buffer.alloc(1000, 'x')))).not.toThrow(expect.objectContaining({ code: 'JSON_BODY_TOO_LARGE' }));
  });

  it('a learn frame over it is read', () => {
    const route = all.find((r) => r.operationId === 'learnProject')!;
    const frame = Buffer.from(JSON.stringify({ attributeNames: ['x'], attributeTypes: ['C'], data: Array.from({ length: 300 }, (_, i) => [String(i)]) }));
    expect(frame.length).toBeGreaterThan(1000);
    expect(routeContext(route, input(frame)).body).toBe(frame);
  });
});
