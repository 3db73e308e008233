import { catalogue } from '@sml/core';
import { openApiDocument, SIGNATURE_SCHEME } from '../src/openapi';
import { routes } from '../src/routes';

type Operation = { operationId: string; responses: Record<string, { description: string }> };

/** Every operation of the generated document, by operationId. */
function operations(): Map<string, Operation> {
  const doc = openApiDocument(routes, '/symetry/rest') as { paths: Record<string, Record<string, Operation>> };
  return new Map(Object.values(doc.paths).flatMap((p) => Object.values(p)).map((op) => [op.operationId, op]));
}

/** The error codes an operation's responses list (`CODE: message` lines). */
const codesOf = (op: Operation) => Object.values(op.responses).flatMap((r) => [...r.description.matchAll(/^([A-Z_]+): /gm)].map((m) => m[1]));

// The document lists what a route can answer: what the edge answers for any request (its
// status with it: 431, 414, 408, 415), and the errors each route declares.
describe('OpenAPI errors', () => {
  const all = operations();
  const edge = ['HEADERS_TOO_LARGE', 'URL_TOO_LONG', 'TOO_MANY_QUERY_PARAMETERS', 'MALFORMED_HTTP', 'HTTP_REQUEST_TIMEOUT', 'BODY_BUDGET', 'NATS_UNAVAILABLE',
    'UNSUPPORTED_CONTENT_ENCODING', 'BAD_CONTENT_ENCODING', 'INFLATED_TOO_LARGE', 'INFLATE_RATIO'] as const;

  it.each(edge)('every operation lists %s under its status', (code) => {
    expect(all.size).toBe(routes.length);
    for (const op of all.values()) {
      expect({ op: op.operationId, listed: op.responses[catalogue[code].status]?.description.includes(`${code}: `) }).toEqual({ op: op.operationId, listed: true });
    }
  });

  it('predicts list the 400 of a stored state the algorithm cannot read; imports the document errors', () => {
    for (const id of ['predict', 'learnPredict']) expect(codesOf(all.get(id)!)).toContain('MODEL_STATE_INVALID');
    for (const id of ['importProject', 'importProjectAs', 'importModel']) expect(codesOf(all.get(id)!)).toEqual(expect.arrayContaining(['IMPORT_INVALID', 'IMPORT_VERSION', 'IMPORT_TOO_LARGE']));
  });

  it('lists only catalogue codes', () => {
    for (const op of all.values()) for (const code of codesOf(op)) expect(Object.keys(catalogue)).toContain(code);
  });
});

// Tools that read OpenAPI (code generators, API explorers) learn how to authenticate from
// securitySchemes: the signature scheme is declared and every operation requires it.
describe('OpenAPI security', () => {
  const doc = openApiDocument(routes, '/symetry/rest') as {
    components: { securitySchemes: Record<string, { type: string; in: string; name: string; description: string }> };
    paths: Record<string, Record<string, { operationId: string; security?: Record<string, string[]>[] }>>;
  };

  it('declares the signature as an apiKey scheme on the Authorization header, with the string to sign', () => {
    const scheme = doc.components.securitySchemes[SIGNATURE_SCHEME];
    expect(scheme).toMatchObject({ type: 'apiKey', in: 'header', name: 'Authorization' });
    for (const part of ['HMAC-SHA256', 'stringToSign', 'METHOD', 'Content-MD5', 'Sym-date', 'Customer-ID', 'query']) expect(scheme.description).toContain(part);
  });

  it('applies it to every operation', () => {
    const ops = Object.values(doc.paths).flatMap((p) => Object.values(p));
    expect(ops).toHaveLength(routes.length);
    expect(ops.filter((op) => !op.security?.some((s) => SIGNATURE_SCHEME in s)).map((op) => op.operationId)).toEqual([]);
  });
});
