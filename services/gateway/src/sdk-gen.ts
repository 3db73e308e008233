import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openApiDocument } from './openapi';
import type { AnyRoute } from './route';
import { routes } from './routes';

/** Where the generated SDK operations are committed (packages/sdk; test/sdk-gen.test.ts checks they are current). */
export const SDK_OPERATIONS_FILE = join(__dirname, '../../../packages/sdk/src/operations.ts');

/** The Python client's operations, generated from the same table (clients/python; the same test checks them). */
export const PYTHON_OPERATIONS_FILE = join(__dirname, '../../../clients/python/sml/operations.py');

const HEADER = `// Generated from the gateway's route table by services/gateway/src/sdk-gen.ts: do not edit.
// After changing a route: npm run build && npm run gen:sdk (services/gateway/test/sdk-gen.test.ts
// fails while this file is not current).
import type { RequestOptions, SmlResponse } from './types';

/** What the operations send through: SmlClient.request. */
export interface OperationSender {
  request<V>(method: string, path: string, options?: RequestOptions): Promise<SmlResponse<V>>;
}

/**
 * A route's options: its query parameters (\`Q\`, by name; the required ones required), its
 * JSON body (\`B\`) or a raw one (text such as an encrypted DSInfo), and the call's options
 * (timeout, signal, retries, Idempotency-Key).
 */
export type OperationOptions<Q extends object = Record<never, string>, B = never> = Omit<RequestOptions, 'query' | 'json'> & { query?: Q; json?: B };

/** The options of a route with a required query parameter: its query must be given. */
export type RequiredQuery<Q extends object, B = never> = OperationOptions<Q, B> & { query: Q };

const seg = encodeURIComponent;
`;

const CLASS_HEADER = `
/**
 * One method per REST route of the gateway, named by its operationId, path parameters in path
 * order (the customer is the client's). SmlClient.operations; SmlClient's own methods are
 * shorthands over these. A method's \`V\` defaults to the route's documented \`values\`.
 */
export class Operations {
  constructor(private readonly client: OperationSender) {}
`;

/** The path's parameters after \`:user\`, in order. */
const pathParams = (path: string): string[] => [...path.matchAll(/:(\w+)/g)].map((m) => m[1]).filter((p) => p !== 'user');

/** The part of an OpenAPI 3.0 schema the route table's zod schemas produce. */
interface Schema {
  $ref?: string;
  type?: string;
  enum?: unknown[];
  nullable?: boolean;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: Schema | boolean;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
}

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema: Schema;
}

interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
/** A string as a single-quoted TypeScript literal (the repository's style). */
const quoted = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const key = (name: string) => (IDENTIFIER.test(name) ? name : quoted(name));
const literal = (value: unknown) => (typeof value === 'string' ? quoted(value) : JSON.stringify(value));

/** The TypeScript type of a schema; `unknown` for what it does not say (never `any`). */
export function tsType(s: Schema, indent = ''): string {
  const t = tsTypeOf(s, indent);
  return s.nullable && t !== 'unknown' ? `${t} | null` : t;
}

function tsTypeOf(s: Schema, indent: string): string {
  if (s.$ref) return s.$ref.replace('#/components/schemas/', '');
  if (s.enum) return s.enum.map(literal).join(' | ');
  const union = s.anyOf ?? s.oneOf;
  if (union) {
    const members = union.map((u) => tsType(u, indent));
    return members.includes('unknown') ? 'unknown' : members.join(' | ');
  }
  if (s.allOf) return s.allOf.map((u) => tsType(u, indent)).join(' & ');
  switch (s.type) {
    case 'string': return 'string';
    case 'integer':
    case 'number': return 'number';
    case 'boolean': return 'boolean';
    case 'array': return `Array<${s.items ? tsType(s.items, indent) : 'unknown'}>`;
    case 'object':
    case undefined: {
      if (!s.properties && s.type === undefined) return 'unknown';
      const extra = typeof s.additionalProperties === 'object' ? tsType(s.additionalProperties, indent) : s.additionalProperties === true ? 'unknown' : undefined;
      if (!s.properties || Object.keys(s.properties).length === 0) return `Record<string, ${extra ?? 'unknown'}>`;
      const inner = `${indent}  `;
      const required = new Set(s.required ?? []);
      const lines = Object.entries(s.properties).map(([name, p]) => `${inner}${key(name)}${required.has(name) ? '' : '?'}: ${tsType(p, inner)};`);
      if (extra) lines.push(`${inner}[key: string]: unknown;`);
      return `{\n${lines.join('\n')}\n${indent}}`;
    }
    default: return 'unknown';
  }
}

const typeName = (operationId: string, part: string) => `${operationId[0].toUpperCase()}${operationId.slice(1)}${part}`;

/** The OpenAPI operation of each route, by operationId (the document the gateway serves, generated from the same table). */
function operationsOf(table: readonly AnyRoute[]): { byId: Map<string, Operation>; schemas: Record<string, Schema> } {
  const doc = openApiDocument([...table], '') as { paths: Record<string, Record<string, Operation>>; components?: { schemas?: Record<string, Schema> } };
  const byId = new Map(Object.values(doc.paths).flatMap((p) => Object.values(p)).map((op) => [op.operationId, op]));
  return { byId, schemas: doc.components?.schemas ?? {} };
}

/** One route's types (query, body, values) and method. */
function method(r: AnyRoute, op: Operation): { types: string; method: string } {
  if (!r.path.startsWith('/:user')) throw new Error(`${r.operationId}: a path starts with /:user`);
  const params = pathParams(r.path);
  const path = r.path.slice('/:user'.length).replace(/:(\w+)/g, (_, p: string) => `\${seg(${p})}`);
  const types: string[] = [];
  const query = (op.parameters ?? []).filter((p) => p.in === 'query');
  const queryType = query.length > 0 ? typeName(r.operationId, 'Query') : 'Record<never, string>';
  if (query.length > 0) {
    // On the wire every query value is text: a number or a flag is sent as its string.
    const text = (p: Parameter) => (p.schema.enum ? p.schema.enum.map(literal).join(' | ') : 'string');
    types.push(`/** The query parameters of ${r.operationId}. */\nexport type ${queryType} = {\n${query.map((p) => `  ${key(p.name)}${p.required ? '' : '?'}: ${text(p)};`).join('\n')}\n};`);
  }
  const body = op.requestBody?.content['application/json']?.schema;
  const bodyType = body ? typeName(r.operationId, 'Body') : 'never';
  if (body) types.push(`/** The body of ${r.operationId}. */\nexport type ${bodyType} = ${tsType(body)};`);
  const values = op.responses[r.success.status]?.content?.['application/json']?.schema.properties?.values;
  const documented = values !== undefined && (values.$ref !== undefined || Object.keys(values.properties ?? {}).length > 0);
  const valuesType = documented ? typeName(r.operationId, 'Values') : 'Record<string, unknown>';
  if (documented) types.push(`/** \`values\` of a successful ${r.operationId}. */\nexport type ${valuesType} = ${tsType(values)};`);
  const requiredQuery = query.some((p) => p.required);
  const options = requiredQuery
    ? `options: RequiredQuery<${queryType}, ${bodyType}>`
    : `options: OperationOptions<${queryType}, ${bodyType}> = {}`;
  const args = [...params.map((p) => `${p}: string`), options].join(', ');
  const doc = `${r.method.toUpperCase()} ${r.path.slice('/:user'.length) || '/'}: ${r.summary}`.replace(/\*\//g, '*\\/');
  return {
    types: types.join('\n\n'),
    method: [
      '',
      `  /** ${doc} */`,
      `  ${r.operationId}<V = ${valuesType}>(${args}): Promise<SmlResponse<V>> {`,
      `    return this.client.request<V>('${r.method.toUpperCase()}', \`${path}\`, options);`,
      '  }',
    ].join('\n'),
  };
}

/** The text of packages/sdk/src/operations.ts for these routes: the document's shared schemas, each route's types, the Operations class. */
export function renderSdkOperations(table: readonly AnyRoute[]): string {
  const { byId, schemas } = operationsOf(table);
  const shared = Object.entries(schemas).map(([name, s]) => `/** The OpenAPI schema ${name}. */\nexport type ${name} = ${tsType(s)};`);
  const parts = table.map((r) => {
    const op = byId.get(r.operationId);
    if (!op) throw new Error(`${r.operationId}: not in the OpenAPI document`);
    return method(r, op);
  });
  const types = [...shared, ...parts.map((p) => p.types).filter((t) => t !== '')];
  return `${HEADER}\n${types.join('\n\n')}\n${CLASS_HEADER}${parts.map((p) => p.method).join('\n')}\n}\n`;
}

const PYTHON_HEADER = `# Generated from the gateway's route table by services/gateway/src/sdk-gen.ts: do not edit.
# After changing a route: npm run build && npm run gen:sdk (services/gateway/test/sdk-gen.test.ts
# fails while this file is not current).
"""One method per REST route of the gateway, named by its operationId (as in the TypeScript SDK)."""
from typing import Any
from urllib.parse import quote


def _seg(value: str) -> str:
    # encodeURIComponent's set, so that both clients send (and sign) the same path.
    return quote(str(value), safe="!*'()")


class Operations:
    """Path parameters in path order (the customer is the client's); keyword options go to
    SmlClient.request: query (a dict of the route's query parameters), json_body, raw, headers,
    check."""

    def __init__(self, client: Any) -> None:
        self._client = client
`;

/** One route's Python method. */
function pythonMethod(r: AnyRoute): string {
  const params = pathParams(r.path);
  const path = r.path.slice('/:user'.length).replace(/:(\w+)/g, (_, p: string) => `{_seg(${p})}`);
  const query = Object.keys(r.query?.shape ?? {});
  const doc = `${r.method.toUpperCase()} ${r.path.slice('/:user'.length) || '/'}: ${r.summary}${query.length > 0 ? ` (query: ${query.join(', ')})` : ''}`
    .replace(/\\/g, '\\\\').replace(/"/g, '\\"');
  return [
    '',
    `    def ${r.operationId}(self, ${[...params.map((p) => `${p}: str`), '**options: Any'].join(', ')}) -> Any:`,
    `        """${doc}"""`,
    `        return self._client.request("${r.method.toUpperCase()}", f"${path}", **options)`,
  ].join('\n');
}

/** The text of clients/python/sml/operations.py for these routes. */
export function renderPythonOperations(table: readonly AnyRoute[]): string {
  return `${PYTHON_HEADER}${table.map(pythonMethod).join('\n')}\n`;
}

if (require.main === module) {
  writeFileSync(SDK_OPERATIONS_FILE, renderSdkOperations(routes));
  writeFileSync(PYTHON_OPERATIONS_FILE, renderPythonOperations(routes));
  console.log(`${SDK_OPERATIONS_FILE}, ${PYTHON_OPERATIONS_FILE}: ${routes.length} operations`);
}
