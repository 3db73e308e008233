import { decryptDsInfo } from '@sml/core';
import { reflection } from '@sml/proto';
import { EXAMPLE_SECRET, operationExamples } from '../src/openapi-examples';
import { openApiDocument } from '../src/openapi';
import type { AnyRoute } from '../src/route';
import { routes } from '../src/routes';
import { z } from '../src/schemas';

/** The envelope the OpenAPI document declares for a route's success answer. */
const envelope = (values?: z.ZodType) => z.object({ statusCode: z.number().int(), statusString: z.string(), values: values ?? z.object({}) });

/** The fields of a route's bus reply (`status` aside): what `values` carries when the route declares no schema of its own. */
function replyFields(route: AnyRoute): string[] {
  const url = (route.contract.reply as unknown as { getTypeUrl(prefix: string): string }).getTypeUrl('');
  return Object.keys(reflection.lookupType(url.slice(1)).fields).filter((f) => f !== 'status');
}

/** Zod's complaints, readable in a failed expectation. */
const issues = (r: z.ZodSafeParseResult<unknown>) => (r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));

// Every operation of the OpenAPI document has examples (openapi-examples.ts), and each passes
// the route's own schemas: the zod schemas the gateway validates requests with and the
// document is generated from. A new route without its entry fails here.
describe('OpenAPI examples', () => {
  const byId = new Map(routes.map((r) => [r.operationId, r]));

  it('every route has an entry, and every entry names a route', () => {
    expect(routes.map((r) => r.operationId).filter((id) => operationExamples[id] === undefined)).toEqual([]);
    expect(Object.keys(operationExamples).filter((id) => !byId.has(id))).toEqual([]);
  });

  it.each(routes.map((r) => [r.operationId, r] as const))('%s: a request body example where there is a body, valid against its schema', (_id, route) => {
    const { body } = operationExamples[route.operationId] ?? {};
    expect(body !== undefined).toBe(route.body !== undefined);
    if (route.body !== undefined) expect(issues(route.body.safeParse(body))).toEqual([]);
  });

  it.each(routes.map((r) => [r.operationId, r] as const))('%s: a success answer example, valid against the envelope and its values', (_id, route) => {
    const { response } = operationExamples[route.operationId] ?? {};
    expect(response?.statusCode).toBe(route.success.status);
    // A route whose success is a job's 202 answers the job's id; its values schema is the job's result.
    const values = route.createsJob && route.success.status === 202 ? undefined : route.values;
    expect(issues(envelope(values).safeParse(response))).toEqual([]);
    // Zod lets unknown keys through: the top-level keys of `values` are those the route declares
    // (its values schema), else those its bus reply has; a route that presents its reply
    // itself (`present`) answers other keys.
    const declared = values instanceof z.ZodObject ? Object.keys(values.shape) : route.present ? undefined : replyFields(route);
    if (declared) expect(Object.keys(response?.values ?? {}).filter((k) => !declared.includes(k))).toEqual([]);
  });

  it('encrypted DSInfo examples decrypt with the example secret', () => {
    const encrypted = Object.values(operationExamples).map((e) => e.body).filter((b): b is string => typeof b === 'string' && b.startsWith('v2:'));
    expect(encrypted.length).toBeGreaterThan(5);
    // A DSInfo, a FusionCellInfoList (the fusion routes) or a federation key map (the /fedml routes: flat, string → string).
    const cellList = { values: expect.arrayContaining([expect.objectContaining({ host: expect.any(String), cid: expect.any(String), sk: expect.any(String), pid: expect.any(String) })]) };
    for (const body of encrypted) {
      const plain = decryptDsInfo(body, EXAMPLE_SECRET) as Record<string, unknown>;
      if ('values' in plain) expect(plain).toEqual(cellList);
      else if ('type' in plain) expect(plain).toEqual(expect.objectContaining({ type: expect.any(String), info: expect.any(Object) }));
      else expect(Object.values(plain).every((v) => typeof v === 'string')).toBe(true);
    }
  });

  it('the document carries them on every operation', () => {
    const doc = openApiDocument(routes, '/symetry/rest') as {
      paths: Record<string, Record<string, { operationId: string; requestBody?: { content: Record<string, { example?: unknown }> }; responses: Record<string, { content?: Record<string, { example?: unknown }> }> }>>;
    };
    for (const op of Object.values(doc.paths).flatMap((p) => Object.values(p))) {
      const route = byId.get(op.operationId)!;
      expect(op.responses[route.success.status].content?.['application/json'].example).toEqual(operationExamples[op.operationId].response);
      if (route.body) expect(op.requestBody?.content['application/json'].example).toEqual(operationExamples[op.operationId].body);
    }
  });
});
