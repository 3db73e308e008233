import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MALLOC_ENV } from '../src/malloc';

// The image sets the same glibc malloc settings as `npm run up` and the testkit (MALLOC_ENV).
describe('MALLOC_ENV', () => {
  it('deploy/Dockerfile sets the same values', () => {
    const dockerfile = readFileSync(join(__dirname, '../../../deploy/Dockerfile'), 'utf8');
    for (const [key, value] of Object.entries(MALLOC_ENV)) expect(dockerfile).toMatch(new RegExp(`^ENV .*\\b${key}=${value}\\b`, 'm'));
  });
});
