import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contentMd5, signParts } from '@sml/core';
import { readFrameColumns } from '@sml/stats/frames';
import { Summary } from '@sml/stats';
import { BodyThreads, bodyDigests, readFrameHere, type DigestTask } from '../src/body-threads';

// The gateway's body threads (body-threads.ts, on the built body-worker.js): the digests and
// frame columns a thread computes are those computed inline, the body comes back whole, and
// small or pooled bodies never leave the event loop.
describe('BodyThreads', () => {
  const secret = 'VLmAm+WkpnA5zp2wXiSYkw==';
  const frameText = JSON.stringify({
    attributeNames: ['x', 'y'], attributeTypes: ['C', 'C'],
    data: Array.from({ length: 20_000 }, (_, i) => [String(i % 97), (i / 7).toFixed(4)]),
  });
  /** A body that owns its memory, as express.raw hands a large one (Buffer.concat). */
  const owned = (text: string) => {
    const b = Buffer.from(new ArrayBuffer(Buffer.byteLength(text)));
    b.write(text);
    return b;
  };
  const task = (body: Uint8Array, claimedMd5 = contentMd5(body)): DigestTask => ({
    body, claimedMd5, secret, method: 'POST', symDate: '2024-01-02 03:04:05;1', customerId: 'c1', query: 'async=true',
    resources: ['/symetry/rest/c1/projects/p/learn', 'http://h:1/symetry/rest/c1/projects/p/learn'],
  });
  const threads = new BodyThreads({ threads: 2, minBytes: 1024, script: join(__dirname, '../dist/body-worker.js') });
  afterAll(() => threads.stop());

  it('a large body is hashed on a thread: the MD5 and each form\'s signature are those signed by a client', async () => {
    const body = owned(frameText);
    const got = await threads.digest(task(body));
    expect(body.length).toBe(0); // transferred to the thread ...
    expect(got.body.toString()).toBe(frameText); // ... and back
    expect(got.md5).toBe(contentMd5(Buffer.from(frameText)));
    const parts = { method: 'POST', contentMd5: got.md5, secret, symDate: '2024-01-02 03:04:05;1', customerId: 'c1', body: frameText, query: 'async=true' };
    expect(got.signatures).toEqual([
      signParts({ ...parts, resource: '/symetry/rest/c1/projects/p/learn' }),
      signParts({ ...parts, resource: 'http://h:1/symetry/rest/c1/projects/p/learn' }),
    ]);
  });

  it('a Content-MD5 that is not the body\'s: no signature is computed (the request fails on the MD5)', async () => {
    const got = await threads.digest(task(owned(frameText), contentMd5(Buffer.from('other'))));
    expect(got.md5).toBe(contentMd5(Buffer.from(frameText)));
    expect(got.signatures).toEqual([]);
  });

  it('small bodies and bodies sharing their memory (pooled Buffers) stay on the event loop, untouched', async () => {
    const small = owned('{"a":1}');
    expect(await threads.digest(task(small))).toEqual({ ...bodyDigests(task(small)), body: small });
    const pooled = Buffer.from(frameText); // Buffer.from(string) of this size owns its memory ...
    const shared = pooled.subarray(10); // ... a view into it does not
    const got = await threads.digest(task(shared));
    expect(got.body).toBe(shared);
    expect(pooled.length).toBe(frameText.length);
  });

  it('a learn frame is read on a thread into the columns read inline; its body comes back', async () => {
    const got = await threads.readFrame(owned(frameText));
    expect(got.body.toString()).toBe(frameText);
    const inline = readFrameColumns(Buffer.from(frameText))!;
    expect(got.columns).not.toBeNull();
    expect(got.columns!.names).toEqual(inline.names);
    expect(got.columns!.numeric.map((c) => [c.name, c.scale, Buffer.from(c.values).toString('base64')]))
      .toEqual(inline.numeric.map((c) => [c.name, c.scale, Buffer.from(c.values).toString('base64')]));
    // A frame the fast reader does not take: null, as inline.
    const odd = JSON.stringify({ attributeNames: ['x'], attributeTypes: ['C'], data: [['1', '2']] }).padEnd(2000, ' ');
    expect(readFrameColumns(Buffer.from(odd))).toBeNull();
    expect((await threads.readFrame(owned(odd))).columns).toBeNull();
  });

  it('given a project\'s recipe, a long frame comes back as its summary, the one made inline; a wide short one as columns', async () => {
    const recipe = new Summary({ histogram: 'streaming' }).batchRecipe!;
    const got = await threads.readFrame(owned(frameText), recipe);
    expect(got.body.toString()).toBe(frameText);
    expect(got.columns).toBeNull();
    const inline = readFrameHere(Buffer.from(frameText), recipe);
    expect(inline.batchSummary).toBeDefined();
    expect(Buffer.from(got.batchSummary!).equals(Buffer.from(inline.batchSummary!))).toBe(true);
    expect(Summary.deserialize(got.batchSummary!).rowCount).toBe(20_000);
    const names = Array.from({ length: 80 }, (_, j) => `x${j}`);
    const wide = JSON.stringify({ attributeNames: names, attributeTypes: names.map(() => 'C'), data: Array.from({ length: 40 }, (_, i) => names.map((_, j) => String(i * j))) });
    const read = await threads.readFrame(owned(wide), recipe);
    expect([read.columns?.names.length, read.batchSummary]).toEqual([80, undefined]);
  });

  it('a learn body proved signed is also read in the trip that hashes it; one that is not is never read', async () => {
    const recipe = new Summary({ histogram: 'streaming' }).batchRecipe!;
    const parts = { method: 'POST', contentMd5: contentMd5(Buffer.from(frameText)), secret, symDate: '2024-01-02 03:04:05;1', customerId: 'c1', body: frameText, query: 'async=true' };
    const authorization = `Bearer ${signParts({ ...parts, resource: 'http://h:1/symetry/rest/c1/projects/p/learn' })}`;
    const signed = await threads.digest({ ...task(owned(frameText)), frame: { authorization, recipe } });
    expect(signed.body.toString()).toBe(frameText);
    expect(Buffer.from(signed.frame!.batchSummary!).equals(Buffer.from(readFrameHere(Buffer.from(frameText), recipe).batchSummary!))).toBe(true);
    const columns = await threads.digest({ ...task(owned(frameText)), frame: { authorization } });
    expect(columns.frame!.columns!.names).toEqual(['x', 'y']);
    const forged = await threads.digest({ ...task(owned(frameText)), frame: { authorization: signParts({ ...parts, secret: 'other', resource: '/x' }), recipe } });
    expect([forged.signatures.length, forged.frame]).toEqual([2, undefined]);
  });

  it('a thread that dies fails what it held, and the next body gets a new thread', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sml-body-threads-'));
    try {
      const script = join(dir, 'dies-once.js');
      // Dies on its first task, in the first thread only; threads started later work.
      writeFileSync(script, `
        const { parentPort, workerData } = require('node:worker_threads');
        const { existsSync, writeFileSync } = require('node:fs');
        const mark = ${JSON.stringify(join(dir, 'died'))};
        if (!existsSync(mark)) { writeFileSync(mark, ''); parentPort.on('message', () => process.exit(3)); }
        else require(${JSON.stringify(join(__dirname, '../dist/body-worker.js'))});
      `);
      const one = new BodyThreads({ threads: 1, minBytes: 1024, script });
      try {
        await expect(one.digest(task(owned(frameText)))).rejects.toThrow('body thread exited (3)');
        const got = await one.digest(task(owned(frameText)));
        expect(got.md5).toBe(contentMd5(Buffer.from(frameText)));
      } finally {
        await one.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
