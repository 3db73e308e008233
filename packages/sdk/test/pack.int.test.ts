import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contentMd5, decryptDsInfo, generateSecret, signature, stringToSign, verifySignature } from '@sml/core';

// The SDK as a consumer gets it: `npm pack` (its prepack builds and bundles @sml/core's part,
// scripts/vendor.mjs), the tarball installed offline into an empty project outside the
// repository, a script there that requires it, signs a request and encrypts a DSInfo, and a
// TypeScript file type-checked against its declarations.
const sdkDir = join(__dirname, '..');
const repoRoot = join(sdkDir, '../..');

describe('the packed SDK', () => {
  let tmp: string;
  let app: string;
  let tarball: string;
  beforeAll(() => {
    tmp = mkdtempSync(join(tmpdir(), 'sml-sdk-pack-'));
    execFileSync('npm', ['pack', '--pack-destination', tmp, '--silent'], { cwd: sdkDir, stdio: ['ignore', 'ignore', 'pipe'] });
    tarball = join(tmp, readdirSync(tmp).find((f) => f.endsWith('.tgz'))!);
    app = join(tmp, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }));
    // No registry: the tarball must bring everything it needs.
    execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball], { cwd: app, stdio: ['ignore', 'ignore', 'pipe'] });
  }, 240_000);
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('installs alone: not private, no dependency, only built code and its declarations', () => {
    const pkg = JSON.parse(readFileSync(join(app, 'node_modules/@sml/sdk/package.json'), 'utf8')) as Record<string, unknown>;
    expect(pkg.private).toBeUndefined();
    expect(pkg.dependencies).toBeUndefined();
    expect(pkg).toMatchObject({ name: '@sml/sdk', license: 'UNLICENSED', types: 'dist/index.d.ts', engines: { node: '>=20' } });
    expect(readdirSync(join(app, 'node_modules')).filter((d) => !d.startsWith('.'))).toEqual(['@sml']);
    expect(readdirSync(join(app, 'node_modules/@sml'))).toEqual(['sdk']);
    const files = readdirSync(join(app, 'node_modules/@sml/sdk'), { recursive: true }).map(String);
    expect(files.filter((f) => /\.(map|tsbuildinfo|ts)$/.test(f) && !f.endsWith('.d.ts'))).toEqual([]);
    expect(files).toContain(join('dist', 'vendor', 'core', 'signing.js'));
  });

  it('a script requires it, signs a request the gateway\'s check accepts and encrypts a DSInfo', () => {
    const secret = generateSecret();
    writeFileSync(join(app, 'check.js'), `
      const { SmlClient, encryptDsInfo, frameFromCsv } = require('@sml/sdk');
      const sent = [];
      const client = new SmlClient({ url: 'http://127.0.0.1:9', user: 'c1', secret: process.argv[2],
        transport: async (ex) => { sent.push(ex); return { status: 200, headers: {}, text: '{"statusCode":200,"statusString":"OK","values":{}}' }; } });
      const frame = frameFromCsv('x,flag\\n1.5,1\\n2,0\\n');
      client.learn('p1', frame).then((res) => {
        const ex = sent[0];
        console.log(JSON.stringify({ status: res.status, method: ex.method, path: ex.url.pathname, headers: ex.headers,
          body: Buffer.from(ex.body).toString('utf8'), dsinfo: encryptDsInfo({ type: 'localfile', name: 'd', info: { path: 'a.csv' } }, process.argv[2]) }));
      });
    `);
    const out = JSON.parse(execFileSync('node', ['check.js', secret], { cwd: app, encoding: 'utf8' })) as {
      status: number; method: string; path: string; headers: Record<string, string>; body: string; dsinfo: string;
    };
    expect(out).toMatchObject({ status: 200, method: 'POST', path: '/symetry/rest/c1/projects/p1/learn' });
    expect(JSON.parse(out.body)).toEqual({ attributeNames: ['x', 'flag'], attributeTypes: ['C', 'B'], data: [['1.5', '1'], ['2', '0']], errorHandling: 0 });
    const body = Buffer.from(out.body, 'utf8');
    expect(out.headers['content-md5']).toBe(contentMd5(body));
    const expected = signature(secret, stringToSign({
      method: 'POST', contentMd5: contentMd5(body), secret, symDate: out.headers['sym-date'], customerId: 'c1', body, resource: out.path, query: '',
    }));
    expect(verifySignature(expected, out.headers.authorization)).toBe(true);
    expect(decryptDsInfo(out.dsinfo, secret)).toEqual({ type: 'localfile', name: 'd', info: { path: 'a.csv' } });
  });

  it('its declarations type-check a consumer under strict node16 resolution', () => {
    writeFileSync(join(app, 'use.ts'), `
      import { SmlClient, type LearnProjectValues, type SmlResponse } from '@sml/sdk';
      const client = new SmlClient({ url: 'http://127.0.0.1:9', user: 'c1', secret: 's', timeoutMs: 5_000, retry: { retries: 2 } });
      export async function learned(): Promise<number> {
        const res: SmlResponse<LearnProjectValues> = await client.operations.learnProject('p', { json: { attributeNames: ['a'], attributeTypes: ['C'], data: [['1']] }, idempotencyKey: true });
        return res.status;
      }
    `);
    // Node's own declarations from the repository (the SDK's mention node:http agents); nothing else.
    writeFileSync(join(app, 'node-types.d.ts'), `/// <reference path="${join(repoRoot, 'node_modules/@types/node/index.d.ts')}" />\n`);
    writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, module: 'node16', moduleResolution: 'node16', target: 'es2022', types: [], skipLibCheck: false },
      files: ['node-types.d.ts', 'use.ts'],
    }));
    execFileSync(process.execPath, [join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', app], { cwd: app, encoding: 'utf8' });
  }, 180_000);
});
