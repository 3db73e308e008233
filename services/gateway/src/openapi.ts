import { OpenAPIRegistry, OpenApiGeneratorV3 } from '@asteasolutions/zod-to-openapi';
import { catalogue, type ErrorCode, type ParameterBound } from '@sml/core';
import { operationExamples } from './openapi-examples';
import type { AnyRoute } from './route';
import { z } from './schemas';

const COMMON_ERRORS: ErrorCode[] = ['AUTH_HEADER_NULL', 'SYM_DATE_NULL', 'INVALID_DATE_FORMAT', 'CLOCK_SKEW', 'INVALID_USER', 'CUSTOMER_ID_MISMATCH',
  'MD5_MISMATCH', 'INVALID_SIGNATURE', 'REPLAYED_REQUEST', 'MALFORMED_JSON', 'INVALID_REQUEST', 'BODY_TOO_LARGE', 'SERVICE_UNAVAILABLE',
  'SERVICE_TIMEOUT', 'INTERNAL',
  // What the edge answers for any route (http-edge.ts, body-budget.ts, inflate.ts, BusHealth): before the route is known, or whatever it is.
  'HEADERS_TOO_LARGE', 'URL_TOO_LONG', 'TOO_MANY_QUERY_PARAMETERS', 'MALFORMED_HTTP', 'HTTP_REQUEST_TIMEOUT', 'BODY_BUDGET', 'NATS_UNAVAILABLE',
  'UNSUPPORTED_CONTENT_ENCODING', 'BAD_CONTENT_ENCODING', 'INFLATED_TOO_LARGE', 'INFLATE_RATIO'];

const DESCRIPTION = `SML REST API (SymetryML-compatible). Every response body is the envelope
{statusCode, statusString, values}. Requests are HMAC-signed (headers Customer-ID, Sym-date,
Authorization, Content-MD5, sym-version). NaN and ±Infinity are written as the strings "NaN",
"Infinity", "-Infinity". Job-creating operations answer 202 with headers sym-job-id, Job-Id and
Location. Every error message is listed in x-sml-error-catalogue (code, status, message template); the bound of every numeric parameter (create params, extraParameters, EVT wrapper body) in x-sml-parameter-bounds.
Approximate values are named in an added key "approximate" (explore: one key list per map of values.KSVDMap.values; a density's
approximate; kmeansOptimize's silhouette), absent when every value is exact: docs/concepts.md "What is approximate, and how much".
The keys of every answer: docs/glossary.md.`;

/** The values of a job's 202. */
const JOB_CREATED_VALUES = z.object({ jobId: z.number().int().openapi({ description: 'the job: GET jobs/{jobId} answers its result when done' }) });

/** The name of the one security scheme: every operation is signed (auth.ts). */
export const SIGNATURE_SCHEME = 'smlSignature';

// The string to sign as packages/core/src/signing.ts builds it; docs/quickstart.md "Signing a request" has a worked curl example.
const SIGNATURE_DESCRIPTION = `HMAC-SHA256 request signature. Authorization = base64(HMAC-SHA256(key = base64decode(secret key),
stringToSign)), bare or as "Bearer <signature>". stringToSign is one line per part, each ending with \n:
METHOD (upper case), Content-MD5 (base64 MD5 of the body bytes; empty line without a body), the secret key (its base64 text),
Sym-date (verbatim), Customer-ID, the body (only when there is one), the resource (path such as /symetry/rest/{user}/projects,
or the full URL), the raw query string without "?" (only when there is one).
Headers sent with it: Customer-ID (= the {user} of the path), Sym-date (UTC "yyyy-MM-dd HH:mm:ss;N", N = nanoseconds, unpadded;
at most 5 minutes behind or 1 minute ahead of the server), Content-MD5. A signature is accepted once (a replay answers 401).
A wrong signature answers 401 with values.stringToSign, the server's string with the secret redacted. See docs/quickstart.md.`;

/** The OpenAPI document, generated from the route table and the error catalogue only. */
export function openApiDocument(routes: AnyRoute[], basePath: string, bounds: Readonly<Record<string, ParameterBound>> = {}): Record<string, unknown> {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', SIGNATURE_SCHEME, { type: 'apiKey', in: 'header', name: 'Authorization', description: SIGNATURE_DESCRIPTION });
  const envelope = (values?: z.ZodType) => z.object({ statusCode: z.number().int(), statusString: z.string(), values: values ?? z.object({}) });
  for (const r of routes) {
    // Bodies other than learn frames and imports have their own bound (SML_MAX_JSON_BODY_BYTES, checked in routeContext).
    const bodyErrors: ErrorCode[] = r.body && !r.largeBody ? ['JSON_BODY_TOO_LARGE'] : [];
    // The contract's codes (what the service answers), then the route's own (its edge).
    const codes = new Set([...COMMON_ERRORS, ...bodyErrors, ...r.contract.errors, ...(r.errors ?? [])]);
    const byStatus = new Map<number, string[]>();
    for (const c of codes) {
      const e = catalogue[c];
      byStatus.set(e.status, [...(byStatus.get(e.status) ?? []), `${c}: ${e.message}`]);
    }
    // The examples (openapi-examples.ts) on the request body and the success answer.
    const example = operationExamples[r.operationId];
    const responses: Record<string, { description: string; content?: Record<string, { schema: z.ZodType; example?: unknown }> }> = {
      [r.success.status]: { description: r.success.description, content: { 'application/json': { schema: envelope(r.values), example: example?.response } } },
    };
    // A job's 202 replaces the success answer when that is the 202 (its values are the job's id; the job's result comes with GET jobs/{id}).
    const jobExample = r.success.status === 202 ? { example: example?.response } : {};
    if (r.createsJob) responses[202] = { description: 'Job Created: headers sym-job-id, Job-Id, Location', content: { 'application/json': { schema: envelope(JOB_CREATED_VALUES), ...jobExample } } };
    for (const [status, lines] of byStatus) {
      responses[status] ??= { description: lines.join('\n'), content: { 'application/json': { schema: envelope() } } };
    }
    registry.registerPath({
      method: r.method,
      path: basePath + r.path.replace(/:(\w+)/g, '{$1}'),
      operationId: r.operationId,
      summary: r.summary,
      description: r.description,
      tags: r.tags,
      security: [{ [SIGNATURE_SCHEME]: [] }],
      request: {
        params: r.params,
        query: r.query,
        ...(r.body ? { body: { content: { 'application/json': { schema: r.body, example: example?.body } } } } : {}),
      },
      responses,
    });
  }
  const doc = new OpenApiGeneratorV3(registry.definitions).generateDocument({
    openapi: '3.0.3',
    info: { title: 'SML', version: '0.1.0', description: DESCRIPTION },
  }) as unknown as Record<string, unknown>;
  doc['x-sml-error-catalogue'] = Object.entries(catalogue).map(([code, e]) => ({ code, status: e.status, message: e.message }));
  doc['x-sml-parameter-bounds'] = bounds;
  return doc;
}
