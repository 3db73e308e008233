import { CliError } from '../src/errors';
import { frameBatches, type FrameBatch, type FrameOptions } from '../src/frames';

async function* from(records: string[][]) {
  yield* records;
}

async function collect(records: string[][], options: FrameOptions): Promise<FrameBatch[]> {
  const out: FrameBatch[] = [];
  for await (const b of frameBatches(from(records), options)) out.push(b);
  return out;
}

const rows = (n: number) => Array.from({ length: n }, (_, i) => [String(i + 1), String(i % 2)]);
const strict: FrameOptions = { types: ['C', 'B'], batchSize: 2, errorHandling: 0 };

describe('frame batching', () => {
  it('cuts the data rows into DataFrames of at most batchSize rows, numbering each batch from its first row', async () => {
    const batches = await collect([['x', 'y'], ...rows(5)], strict);
    expect(batches.map((b) => [b.firstRow, b.frame.data.map((r) => r[0])])).toEqual([
      [1, ['1', '2']],
      [3, ['3', '4']],
      [5, ['5']],
    ]);
    for (const { frame } of batches) {
      expect(frame).toEqual(expect.objectContaining({ attributeNames: ['x', 'y'], attributeTypes: ['C', 'B'], errorHandling: 0 }));
    }
  });

  it('an exact multiple of batchSize gives no empty trailing batch', async () => {
    expect((await collect([['x', 'y'], ...rows(4)], strict)).map((b) => b.frame.data.length)).toEqual([2, 2]);
  });

  it('carries errorHandling 1 for lenient transfers', async () => {
    const [batch] = await collect([['x', 'y'], ...rows(1)], { ...strict, errorHandling: 1 });
    expect(batch.frame.errorHandling).toBe(1);
  });

  it('passes rows of the wrong length through, for the server to judge', async () => {
    const [batch] = await collect([['x', 'y'], ['1'], ['1', '0', '9']], strict);
    expect(batch.frame.data).toEqual([['1'], ['1', '0', '9']]);
  });

  it('a header without data rows gives no batch', async () => {
    expect(await collect([['x', 'y']], strict)).toEqual([]);
  });

  it('an empty file is an error: the header row is required', async () => {
    await expect(collect([], strict)).rejects.toThrow(new CliError('the CSV file is empty; its first row must name the columns'));
  });

  it('refuses --types whose count differs from the header columns', async () => {
    await expect(collect([['x', 'y', 'z'], ...rows(1)], strict)).rejects.toThrow(new CliError('--types lists 2 type code(s) but the CSV header has 3 column(s)'));
  });
});
