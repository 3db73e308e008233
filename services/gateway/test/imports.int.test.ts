import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// The gateway reads learn bodies and summarises long batches, nothing more: it may import the
// frame reader (`@sml/stats/frames`) and the batch summary (`@sml/stats/batch`), never the whole
// of @sml/stats (the models, jstat).
describe('gateway imports', () => {
  const src = join(__dirname, '..', 'src');
  const files = (readdirSync(src, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts'));

  it('the gateway imports from @sml/stats only its frames and batch entries', () => {
    const offenders = files.filter((f) => /from '@sml\/stats(\/(?!(frames|batch)')[^']*)?'/.test(readFileSync(join(src, f), 'utf8')));
    expect(offenders).toEqual([]);
    expect(files.some((f) => readFileSync(join(src, f), 'utf8').includes("from '@sml/stats/frames'"))).toBe(true);
  });

  it('the batch entry loads the summary, not the models nor jstat', () => {
    const script = "require('@sml/stats/batch'); console.log(JSON.stringify(Object.keys(require.cache)))";
    const loaded = JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: join(__dirname, '..'), encoding: 'utf8' })) as string[];
    expect(loaded.some((f) => f.includes('summary.js'))).toBe(true);
    // The summary's own parts live beside their model families (models/<family>/): those the
    // batch summary needs, and nothing else under models/ or explore/.
    const summaryParts = /[/\\]models[/\\](kmeans[/\\]micro-clusters|forest[/\\]mondrian|powerreg[/\\]power-columns|sequence[/\\]counts)\.js$/;
    expect(loaded.filter((f) => /[/\\](models|explore)[/\\]|jstat/.test(f) && !summaryParts.test(f))).toEqual([]);
  });
});
