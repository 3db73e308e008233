import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Operations, type DataFrame, type OperationSender, type PredictValues, type SmlResponse } from '@sml/sdk';

// The generated operations are typed from the OpenAPI document of the route table
// (services/gateway/src/sdk-gen.ts): query parameters by name (required ones required), the
// JSON body, the documented `values`. The @ts-expect-error lines are checked by
// `npx tsc -p tsconfig.test.json`: each fails the type check once the type it expects is lost.

const sender: OperationSender = { request: <V>() => Promise.resolve({ status: 200, headers: {}, body: { statusCode: 200, statusString: 'OK' } } as SmlResponse<V>) };
const ops = new Operations(sender);
const frame: DataFrame = { attributeNames: ['x'], attributeTypes: ['C'], data: [['1']] };

describe('typed operations', () => {
  it('query parameters, bodies and values are typed per route', async () => {
    await ops.buildModel('p', { query: { modelid: 'm', algo: 'lsvm' }, json: { targetAttributeNames: ['y'], extraParameters: { kmeans_k: 3 } } });
    // @ts-expect-error buildModel requires its modelid
    await ops.buildModel('p', { query: { algo: 'lsvm' } });
    // @ts-expect-error a query parameter the route does not have
    await ops.listJobs({ query: { nope: '1' } });
    // @ts-expect-error a flag is one of 0, 1, true, false
    await ops.listJobs({ query: { all: 'yes' } });
    // @ts-expect-error a learn body is a DataFrame: attributeNames and attributeTypes
    await ops.learnProject('p', { json: { data: [] } });
    await ops.learnProject('p', { json: frame, idempotencyKey: true, timeoutMs: 1_000 });
    const res = await ops.predict('p', 'm', { json: frame });
    const rows: PredictValues['KSVSMap']['values'] | undefined = res.body.values?.KSVSMap.values;
    expect(rows).toBeUndefined();
    // @ts-expect-error the documented values have no such key
    expect(res.body.values?.nope).toBeUndefined();
  });

  it('no `any` in the generated surface', () => {
    const text = readFileSync(join(__dirname, '../src/operations.ts'), 'utf8');
    expect(text.match(/\bany\b/g)).toBeNull();
    // Every route with a JSON body has its body type, every documented answer its values type.
    expect(text).toMatch(/export type LearnProjectBody = DataFrame;/);
    expect(text).toMatch(/export type BuildModelQuery = \{\n {2}modelid: string;\n {2}algo: string;/);
  });
});
