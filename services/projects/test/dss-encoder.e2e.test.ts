import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SmlClient } from '@sml/sdk';
import { nameToken } from '@sml/core';
import { newCustomer, sharedSystem, type SharedSystem } from '@sml/testkit';
import { SummaryReader } from './helpers';

// Issue 11: a project with an encoder (encoderAssign) learns a data source's S/L columns
// encoded, exactly as it learns the same rows sent inline.

describe('data-source learn into a project with an encoder', () => {
  let sys: SharedSystem;
  let alice: SmlClient;
  let reader: SummaryReader;

  beforeAll(async () => {
    sys = await sharedSystem();
    alice = (await newCustomer(sys, 'alice')).sdk;
    reader = await SummaryReader.open(sys.nats);
    const files = join(sys.dataDir, 'files', nameToken(alice.user));
    mkdirSync(files, { recursive: true });
    writeFileSync(join(files, 'clicks.csv'), 'site,tags,clicked\na,x,1\nb,x|y,0\nzz,y,1\n');
  }, 60_000);
  afterAll(async () => {
    await reader?.close();
    alice?.close();
  });

  it('encodes S/L columns as the inline learn does', async () => {
    await alice.request('POST', '/encoders/create', { query: 'encodername=e&targetName=clicked' });
    const rows = [['a', 'x', '1'], ['a', 'x|y', '0'], ['a', 'y', '1'], ['b', 'y', '0']];
    expect((await alice.request('POST', '/encoders/e/learn', { json: { attributeNames: ['site', 'tags', 'clicked'], attributeTypes: ['S', 'L', 'B'], data: rows } })).status).toBe(200);
    for (const p of ['inline', 'ds']) {
      await alice.createProject(p);
      expect((await alice.request('GET', `/projects/${p}/encoderAssign`, { query: 'encoderName=e' })).status).toBe(200);
    }
    const frame = { attributeNames: ['site', 'tags', 'clicked'], attributeTypes: ['S', 'L', 'B'] };
    expect((await alice.learn('inline', { ...frame, data: [['a', 'x', '1'], ['b', 'x|y', '0'], ['zz', 'y', '1']] })).status).toBe(200);
    expect((await alice.createDataSource({ type: 'localfile', name: 'clicks', info: { path: 'clicks.csv' } })).status).toBe(201);
    const done = await alice.waitForJob(await alice.learnDataSource('ds', 'clicks', frame));
    expect(done.status).toBe(200);
    const [a, b] = [await reader.full(alice.user, 'ds'), await reader.full(alice.user, 'inline')];
    expect(a.attributeNames).toEqual(['site', 'tags', 'clicked']);
    expect(a.attributeTypes).toEqual(b.attributeTypes);
    for (const n of ['site', 'tags', 'clicked']) expect(a.mean(n)).toBeCloseTo(b.mean(n), 12);
  });
});
