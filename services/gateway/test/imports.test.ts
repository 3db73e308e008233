import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// The gateway reads learn bodies but computes nothing: it may import the frame reader
// (`@sml/stats/frames`), never the whole of @sml/stats (summary, models, ml-matrix, jstat).
describe('gateway imports', () => {
  const src = join(__dirname, '..', 'src');
  const files = (readdirSync(src, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts'));

  it('the gateway imports from @sml/stats only its frames entry', () => {
    const offenders = files.filter((f) => /from '@sml\/stats(\/(?!frames')[^']*)?'/.test(readFileSync(join(src, f), 'utf8')));
    expect(offenders).toEqual([]);
    expect(files.some((f) => readFileSync(join(src, f), 'utf8').includes("from '@sml/stats/frames'"))).toBe(true);
  });
});
