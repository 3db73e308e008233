import { readFileSync } from 'node:fs';
import { Operations } from '@sml/sdk';
import { PYTHON_OPERATIONS_FILE, renderPythonOperations, renderSdkOperations, SDK_OPERATIONS_FILE } from '../src/sdk-gen';
import { routes } from '../src/routes';

// The SDK's operations are generated from the route table (src/sdk-gen.ts): one typed method
// per route. After a route changes: npm run build && npm run gen:sdk.
describe('SDK operations', () => {
  it('the committed packages/sdk/src/operations.ts is what the route table generates', () => {
    expect(readFileSync(SDK_OPERATIONS_FILE, 'utf8')).toBe(renderSdkOperations(routes));
  });

  it('one SDK method per route, named by its operationId', () => {
    const methods = Object.getOwnPropertyNames(Operations.prototype).filter((m) => m !== 'constructor');
    expect(methods.length).toBe(routes.length);
    expect([...methods].sort()).toEqual(routes.map((r) => r.operationId).sort());
  });

  it('a method sends its route\'s method and path, parameters escaped, the customer left to the client', async () => {
    const sent: unknown[] = [];
    const ops = new Operations({ request: (method, path, options) => Promise.resolve(sent.push([method, path, options]) as never) });
    await ops.predict('p 1', 'm/2', { json: { attributeNames: [], attributeTypes: [], data: [] } });
    await ops.listProjects({ query: {} });
    expect(sent).toEqual([['POST', '/projects/p%201/predict/m%2F2', { json: { attributeNames: [], attributeTypes: [], data: [] } }], ['GET', '/projects', { query: {} }]]);
  });
});

// The Python client's clients/python/sml/operations.py comes from the same table.
describe('Python client operations', () => {
  it('the committed clients/python/sml/operations.py is what the route table generates', () => {
    expect(readFileSync(PYTHON_OPERATIONS_FILE, 'utf8')).toBe(renderPythonOperations(routes));
  });

  it('one Python method per route, named by its operationId', () => {
    const methods = [...readFileSync(PYTHON_OPERATIONS_FILE, 'utf8').matchAll(/^ {4}def (\w+)\(self/gm)].map((m) => m[1]).filter((m) => m !== '__init__');
    expect(methods.length).toBe(routes.length);
    expect([...methods].sort()).toEqual(routes.map((r) => r.operationId).sort());
  });
});
