/**
 * A data-source learn job's batches into its staging summary (datasources/staging.ts),
 * without NATS or a source: what is learned, what is counted in the job's run, and how a
 * malformed row fails the job or is skipped. Reading real sources runs in dss*.e2e.test.ts.
 */
import { Summary } from '@sml/stats';
import { DsStaging } from '../src/datasources/staging';
import type { DsColumns, DsRun } from '../src/datasources/types';

function job(columns: Partial<DsColumns> = {}) {
  const staging = new Summary({ histogram: 'streaming', categorySeparator: '$' });
  const run: DsRun = { jobId: 1, ds: 'iris', op: 'learn', rowsRead: 0, rowsLearned: 0, rowsSkipped: 0, bytesRead: 0, started: 0 };
  const batches = new DsStaging({
    staging, limits: {}, run, where: 'iris.csv',
    info: { type: 'localfile', name: 'iris', info: {}, extra: [] },
    columns: { attributeNames: [], attributeTypes: [], lenient: false, ...columns },
  });
  return { staging, run, batches };
}

describe('a data-source learn job\'s batches', () => {
  it('every column, typed as guessed, learned and counted batch after batch', () => {
    const { staging, run, batches } = job();
    batches.rows(['x', 'y'], [['1', 'a'], ['2', 'b']], [2, 3], 0);
    batches.rows(['x', 'y'], [['3', 'a']], [4], 0);
    expect(staging.attributeNames).toEqual(['x', 'y$a', 'y$b']);
    expect(run).toMatchObject({ rowsRead: 3, rowsLearned: 3, rowsSkipped: 0 });
    expect(batches.errors).toEqual([]);
  });

  it('a row of the wrong length fails the job naming the file and line; lenient, it is skipped and counted', () => {
    const strict = job();
    expect(() => strict.batches.rows(['x', 'y'], [['1', '2'], ['3']], [2, 3], 0))
      .toThrow(expect.objectContaining({ code: 'DS_LEARN_FAILED', message: expect.stringContaining('[iris.csv] line 3: 1 fields, the header has 2') }));
    const lenient = job({ lenient: true });
    lenient.batches.rows(['x', 'y'], [['1', '2'], ['3']], [2, 3], 0);
    expect(lenient.run).toMatchObject({ rowsRead: 2, rowsLearned: 1, rowsSkipped: 1 });
    expect(lenient.batches.errors).toEqual(['[iris.csv] line 3: 1 fields, the header has 2']);
  });

  it('a cell its column cannot read fails the job naming the table row and the column', () => {
    const { batches } = job({ attributeNames: ['x'], attributeTypes: ['C'] });
    expect(() => batches.rows(['x'], [['1'], ['two']], undefined, 10))
      .toThrow(expect.objectContaining({ code: 'DS_LEARN_FAILED', message: expect.stringMatching(/\[iris\.csv\] row 12, column \[x\]/) }));
  });
});
