// Commit subjects stay readable in `git log --oneline` (CONTRIBUTING.md "Commits"): at most 72
// characters. History before the rule (issue 30; subjects of up to 1 357 characters) is left as
// it is: rewriting published history would break every clone. Integration tier: it runs `git`.
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(__dirname, '..', '..');
/** The last commit before the rule: commits after it are checked. */
const RULE_SINCE = 'e1c1bac';
const MAX_SUBJECT = 72;

const git = (...args: string[]): string => execFileSync('git', args, { cwd: root, encoding: 'utf8' });

function isRepository(): boolean {
  try { return git('rev-parse', '--is-inside-work-tree').trim() === 'true'; } catch { return false; }
}

function knows(commit: string): boolean {
  try { git('cat-file', '-e', `${commit}^{commit}`); return true; } catch { return false; }
}

const describeInRepository = isRepository() ? describe : describe.skip;

describeInRepository('commit subjects', () => {
  it(`are at most ${MAX_SUBJECT} characters since the rule`, () => {
    // A shallow clone may not hold RULE_SINCE: then the commits it holds are checked.
    const range = knows(RULE_SINCE) ? [`${RULE_SINCE}..HEAD`] : ['HEAD'];
    const subjects = git('log', '--format=%h %s', ...range).split('\n').filter(Boolean);
    const long = subjects
      .map((line) => ({ hash: line.slice(0, line.indexOf(' ')), subject: line.slice(line.indexOf(' ') + 1) }))
      .filter((c) => [...c.subject].length > MAX_SUBJECT)
      .map((c) => `${c.hash} (${[...c.subject].length}): ${c.subject}`);
    expect(long).toEqual([]);
  });
});
