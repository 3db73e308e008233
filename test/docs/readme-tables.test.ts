// Docs that stay true: the README tables name what the tree holds, so a new workspace, source
// file or folder without its row fails here instead of going stale unnoticed. Files only (no
// process, no socket). The rules (CONTRIBUTING.md "Documentation"):
// - the root README's "## Layout" table names every workspace (root package.json `workspaces`)
//   and every top-level directory of the repository;
// - a workspace with a `src/` has a README.md whose file tables (tables whose first header cell
//   is `File` or `Export`) name, in backticks in their first column, every top-level entry of
//   `src/` (a folder as `name/`), `index.ts` (the exports) excepted;
// - and every file or folder such a first column names exists (no row for a removed file);
// - a folder whose files a table names by path (`lifecycle/create.ts`) has every file named.
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '..', '..');
const read = (file: string): string => fs.readFileSync(path.join(root, file), 'utf8');

interface Table { header: string[]; rows: string[][] }

/** Markdown tables of a document: consecutive `|` lines, the delimiter row left out. */
function markdownTables(markdown: string): Table[] {
  const tables: Table[] = [];
  let current: Table | null = null;
  for (const line of markdown.split('\n')) {
    if (!line.startsWith('|')) { current = null; continue; }
    const body = line.trimEnd().replace(/^\|/, '').replace(/\|$/, '');
    const cells = body.split(/(?<!\\)\|/).map((c) => c.trim());
    if (current === null) tables.push(current = { header: cells, rows: [] });
    else if (!/^:?-+:?$/.test(cells[0] ?? '')) current.rows.push(cells);
  }
  return tables;
}

const backticked = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '');

/** The section of a markdown document under `## <title>`, up to the next `## `. */
function section(markdown: string, title: string): string {
  const start = markdown.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`no "## ${title}" section`);
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, end < 0 ? undefined : end);
}

function workspaces(): string[] {
  const globs = (JSON.parse(read('package.json')) as { workspaces: string[] }).workspaces;
  return globs.flatMap((glob) => {
    if (!glob.endsWith('/*')) return [glob];
    const parent = glob.slice(0, -2);
    return fs.readdirSync(path.join(root, parent), { withFileTypes: true })
      .filter((e) => e.isDirectory() && fs.existsSync(path.join(root, parent, e.name, 'package.json')))
      .map((e) => `${parent}/${e.name}`);
  }).sort();
}

/** Top-level directories of the repository: not hidden, not ignored by a top-level .gitignore entry. */
function topDirectories(): string[] {
  const ignored = new Set(read('.gitignore').split('\n').map((l) => l.trim().replace(/^\//, '').replace(/\/$/, '')));
  return fs.readdirSync(root, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith('.') && !ignored.has(e.name))
    .map((e) => e.name).sort();
}

function layoutPaths(): Set<string> {
  const [table] = markdownTables(section(read('README.md'), 'Layout'));
  if (table === undefined) throw new Error('the README\'s Layout section has no table');
  return new Set(table.rows.flatMap((r) => backticked(r[0] ?? '')).map((p) => p.replace(/\/$/, '')));
}

const isFileName = (token: string): boolean => /^[\w.-]+(\.[cm]?[jt]s|\/)$/.test(token);
/** `folder/file.ts` (any depth): a file inside a folder of src/, named by its path. */
const isNestedPath = (token: string): boolean => /^[\w.-]+(\/[\w.-]+)+\.[cm]?[jt]s$/.test(token);

/** The first-column tokens of a workspace README's file tables. */
function firstColumnTokens(markdown: string): string[] {
  return markdownTables(markdown)
    .filter((t) => /^(File|Export)\b/.test(t.header[0] ?? ''))
    .flatMap((t) => t.rows.flatMap((r) => backticked(r[0] ?? '')));
}

/** What a workspace README's file tables name in their first column: top-level entries of src/. */
function namedFiles(markdown: string): string[] {
  return firstColumnTokens(markdown).filter(isFileName);
}

/** Files inside src/ folders that the tables name by path (`lifecycle/create.ts`). */
function namedNestedFiles(markdown: string): string[] {
  return firstColumnTokens(markdown).filter(isNestedPath);
}

/** Every file under src/<folder>, as `folder/…/file.ts`. */
function folderFiles(workspace: string, folder: string): string[] {
  const walk = (rel: string): string[] => fs.readdirSync(path.join(root, workspace, 'src', rel), { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? walk(`${rel}/${e.name}`) : [`${rel}/${e.name}`]));
  return walk(folder).filter((f) => /\.[cm]?[jt]s$/.test(f)).sort();
}

function srcEntries(workspace: string): string[] {
  return fs.readdirSync(path.join(root, workspace, 'src'), { withFileTypes: true })
    .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
    .filter((name) => name !== 'index.ts' && !name.startsWith('.'))
    .sort();
}

describe('the root README\'s Layout table', () => {
  const named = layoutPaths();

  it.each(workspaces())('names workspace %s', (workspace) => {
    expect(named.has(workspace) || named.has(`${workspace}/`)).toBe(true);
  });

  it.each(topDirectories())('names top-level directory %s/', (dir) => {
    const covered = named.has(dir) || [...named].some((p) => p.startsWith(`${dir}/`));
    expect(covered).toBe(true);
  });
});

const withSrc = workspaces().filter((w) => fs.existsSync(path.join(root, w, 'src')));

describe.each(withSrc)('%s/README.md', (workspace) => {
  it('exists', () => {
    expect(fs.existsSync(path.join(root, workspace, 'README.md'))).toBe(true);
  });

  it('has a file table naming every top-level entry of src/', () => {
    const named = new Set(namedFiles(read(`${workspace}/README.md`)));
    expect(srcEntries(workspace).filter((e) => !named.has(e))).toEqual([]);
  });

  it('names no file or folder that src/ does not hold', () => {
    const present = new Set(srcEntries(workspace).concat('index.ts'));
    expect(namedFiles(read(`${workspace}/README.md`)).filter((n) => !present.has(n))).toEqual([]);
    const nested = namedNestedFiles(read(`${workspace}/README.md`));
    expect(nested.filter((n) => !fs.existsSync(path.join(root, workspace, 'src', n)))).toEqual([]);
  });

  // A folder the README lists file by file (`lifecycle/create.ts`) is listed whole: a new file
  // in it needs its row as a new top-level file does.
  it('lists every file of a folder it lists file by file', () => {
    const nested = namedNestedFiles(read(`${workspace}/README.md`));
    const folders = [...new Set(nested.map((n) => n.slice(0, n.indexOf('/'))))];
    const listed = new Set(nested);
    const missing = folders.flatMap((folder) => folderFiles(workspace, folder)).filter((f) => !listed.has(f) && !f.endsWith('/index.ts'));
    expect(missing).toEqual([]);
  });
});

describe('the table reader', () => {
  it('reads the first column of File and Export tables only', () => {
    const md = [
      '| File | Concern |', '|---|---|', '| `a.ts`, `b/` | x `c.ts` |', '',
      '| Test | Covers |', '|---|---|', '| `d.ts` | y |', '',
      '| Export | What |', '|---|---|', '| `f()` (`e.ts`) | z |',
    ].join('\n');
    expect(namedFiles(md)).toEqual(['a.ts', 'b/', 'e.ts']);
  });

  it('tells a nested path from a top-level entry', () => {
    const md = ['| File | Concern |', '|---|---|', '| `a/b.ts`, `a/`, `c.ts`, `a/d/e.ts` | x |'].join('\n');
    expect(namedFiles(md)).toEqual(['a/', 'c.ts']);
    expect(namedNestedFiles(md)).toEqual(['a/b.ts', 'a/d/e.ts']);
  });
});
