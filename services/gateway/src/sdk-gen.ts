import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
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

/** A route's options: its query parameters by name, and a body (json, or raw text such as an encrypted DSInfo). */
export type OperationOptions<Q extends string = never> = Omit<RequestOptions, 'query'> & { query?: { [K in Q]?: string } };

const seg = encodeURIComponent;

/**
 * One method per REST route of the gateway, named by its operationId, path parameters in path
 * order (the customer is the client's). SmlClient.operations; SmlClient's own methods are
 * shorthands over these.
 */
export class Operations {
  constructor(private readonly client: OperationSender) {}
`;

/** The path's parameters after \`:user\`, in order. */
const pathParams = (path: string): string[] => [...path.matchAll(/:(\w+)/g)].map((m) => m[1]).filter((p) => p !== 'user');

/** One route's method. */
function method(r: AnyRoute): string {
  if (!r.path.startsWith('/:user')) throw new Error(`${r.operationId}: a path starts with /:user`);
  const params = pathParams(r.path);
  const path = r.path.slice('/:user'.length).replace(/:(\w+)/g, (_, p: string) => `\${seg(${p})}`);
  const query = Object.keys(r.query?.shape ?? {}).map((k) => `'${k}'`).join(' | ');
  const args = [...params.map((p) => `${p}: string`), `options: OperationOptions${query ? `<${query}>` : ''} = {}`].join(', ');
  const doc = `${r.method.toUpperCase()} ${r.path.slice('/:user'.length) || '/'}: ${r.summary}`.replace(/\*\//g, '*\\/');
  return [
    '',
    `  /** ${doc} */`,
    `  ${r.operationId}<V = Record<string, unknown>>(${args}): Promise<SmlResponse<V>> {`,
    `    return this.client.request<V>('${r.method.toUpperCase()}', \`${path}\`, options);`,
    '  }',
  ].join('\n');
}

/** The text of packages/sdk/src/operations.ts for these routes. */
export function renderSdkOperations(table: readonly AnyRoute[]): string {
  return `${HEADER}${table.map(method).join('\n')}\n}\n`;
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
