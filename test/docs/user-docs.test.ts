// The user documentation in docs/ stays complete and self-contained. Files only (no process,
// no socket). What is checked, each list derived from the code rather than copied:
// - every algorithm of ALGORITHMS (packages/stats) and every parameter of parameterBounds
//   (packages/core limits.ts) is named, in backticks, in docs/algorithms.md;
// - every statistic key the exploration metrics return (the object literals returned by
//   packages/stats/src/explore/*.ts, and the `obs$` cell prefix of chi2) is named, in
//   backticks, in docs/glossary.md;
// - so is every other key an answer can carry: every property of every success answer's
//   schema in the OpenAPI document (the envelope, `values` and what it holds, its components
//   followed), which the gateway generates from the routes' zod schemas;
// - no user-facing text cites the design documents, which are not part of the repository:
//   docs/, the root README, the OpenAPI strings (openapi.ts and the gateway routes) and the CLI's
//   strings (help). Comments in code are not user-facing and are left out of the check.
import fs from 'node:fs';
import path from 'node:path';
import { parameterBounds } from '@sml/core';
import { ALGORITHMS } from '@sml/stats';
import { openApiDocument } from '../../services/gateway/src/openapi';
import { routes } from '../../services/gateway/src/routes';

const root = path.resolve(__dirname, '..', '..');
const read = (file: string): string => fs.readFileSync(path.join(root, file), 'utf8');

/** The names a markdown document writes in backticks (`a`, `b c` counts as one name). */
function backticked(markdown: string): Set<string> {
  return new Set([...markdown.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]));
}

/** Keys of the object literals a source returns (`return {…}` and `MetricMap = {…}`), shorthand included, computed keys left out. */
function returnedKeys(source: string): string[] {
  const keys: string[] = [];
  for (const start of source.matchAll(/(?:return|MetricMap =) \{/g)) {
    let depth = 0;
    let expectKey = true;
    for (let i = start.index + start[0].length; i < source.length; i++) {
      const ch = source[i];
      if ('([{'.includes(ch)) { depth++; expectKey = false; continue; }
      if (')]}'.includes(ch)) { if (depth === 0) break; depth--; continue; }
      if (depth > 0) continue;
      if (ch === ',') { expectKey = true; continue; }
      if (expectKey && /\w/.test(ch)) {
        const id = /^\w+/.exec(source.slice(i))![0];
        const next = source.slice(i + id.length).trimStart()[0];
        if (next === ':' || next === ',' || next === '}') keys.push(id);
        expectKey = false;
        i += id.length - 1;
      } else if (!/\s/.test(ch)) expectKey = false;
    }
  }
  return keys;
}

/** Every statistic key of the exploration metrics, from their sources. */
function exploreKeys(): string[] {
  const dir = 'packages/stats/src/explore';
  const keys = new Set<string>();
  for (const file of fs.readdirSync(path.join(root, dir)).filter((f) => f.endsWith('.ts'))) {
    const source = read(`${dir}/${file}`).replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
    // Only the metric functions' maps: a file that returns a MetricMap.
    if (!/\): MetricMap(\[\])? \{/.test(source)) continue;
    for (const k of returnedKeys(source)) keys.add(k);
    for (const m of source.matchAll(/`(\w+\$)\$\{/g)) keys.add(m[1]);
  }
  return [...keys].sort();
}

interface JsonSchema { $ref?: string; properties?: Record<string, JsonSchema>; items?: JsonSchema; additionalProperties?: JsonSchema | boolean; anyOf?: JsonSchema[]; oneOf?: JsonSchema[]; allOf?: JsonSchema[] }
type Operation = { responses: Record<string, { content?: Record<string, { schema: JsonSchema }> }> };

/** Every property name of the success answers (2xx) of the OpenAPI document, components followed. */
function answerKeys(): string[] {
  const doc = openApiDocument(routes, '/symetry/rest') as { paths: Record<string, Record<string, Operation>>; components?: { schemas?: Record<string, JsonSchema> } };
  const keys = new Set<string>();
  const seen = new Set<string>();
  const walk = (schema: JsonSchema | boolean | undefined): void => {
    if (typeof schema !== 'object') return;
    if (schema.$ref !== undefined) {
      const name = schema.$ref.slice(schema.$ref.lastIndexOf('/') + 1);
      if (!seen.has(name)) { seen.add(name); walk(doc.components?.schemas?.[name]); }
      return;
    }
    for (const [key, value] of Object.entries(schema.properties ?? {})) { keys.add(key); walk(value); }
    for (const sub of [schema.items, schema.additionalProperties, ...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]) walk(sub);
  };
  for (const op of Object.values(doc.paths).flatMap((p) => Object.values(p))) {
    for (const [status, answer] of Object.entries(op.responses)) if (status.startsWith('2')) walk(answer.content?.['application/json']?.schema);
  }
  return [...keys].sort();
}

/** A TypeScript source without its comments: what remains is code and its strings. */
function withoutComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, '')).replace(/(^|[^:'"`\w])\/\/.*$/gm, '$1');
}

function filesUnder(dir: string, ext: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) out.push(...filesUnder(rel, ext));
    else if (e.name.endsWith(ext)) out.push(rel);
  }
  return out;
}

const DESIGN_CITATION = /\b(STATS|API|ARCHITECTURE|STYLE)\.md\b|\.\.\/shared/;

describe('docs/', () => {
  it('algorithms.md names every algorithm and every bounded parameter', () => {
    const named = backticked(read('docs/algorithms.md'));
    const bounds = parameterBounds({
      SML_MAX_SEQUENCE_ORDER: 1, SML_MAX_HISTOGRAM_BINS: 1, SML_MAX_SELECTION_CANDIDATES: 1, SML_MAX_ITERATIONS: 1, SML_MAX_CENTROIDS: 1, SML_MAX_EVT_WINDOW: 1,
    });
    const missing = [...Object.keys(ALGORITHMS), ...Object.keys(bounds)].filter((n) => !named.has(n));
    expect(Object.keys(ALGORITHMS).length).toBeGreaterThan(20);
    expect(missing).toEqual([]);
  });

  it('glossary.md names every statistic key the exploration metrics return', () => {
    const keys = exploreKeys();
    // The derivation itself: a few keys of each kind of return (literal, shorthand, built map, template prefix).
    expect(keys).toEqual(expect.arrayContaining(['count', 'condCount', 'tdfu', 'Ssgamma', 'chiStat', 'zp', 'obs$']));
    const named = [...backticked(read('docs/glossary.md'))];
    // A prefix key (`obs$`) is named by any name it begins; any other key by its exact name.
    expect(keys.filter((k) => !named.some((n) => n === k || (k.endsWith('$') && n.startsWith(k))))).toEqual([]);
  });

  it('glossary.md names every key of every success answer the OpenAPI document declares', () => {
    const keys = answerKeys();
    // The derivation itself: the envelope, a job's id, nested objects (smlInfo, JobInfo, a density), the approximate mark.
    expect(keys).toEqual(expect.arrayContaining(['statusCode', 'values', 'jobId', 'smlInfo', 'isDirty', 'isOnBoundedExecutor', 'valueForMissing', 'approximate']));
    const named = backticked(read('docs/glossary.md'));
    expect(keys.filter((k) => !named.has(k))).toEqual([]);
  });

  it('no user-facing text cites the design documents (not part of the repository)', () => {
    const texts: [string, string][] = [
      ['README.md', read('README.md')],
      ...filesUnder('docs', '.md').map((f): [string, string] => [f, read(f)]),
      ...['services/gateway/src/openapi.ts', ...filesUnder('services/gateway/src/routes', '.ts')].map((f): [string, string] => [f, withoutComments(read(f))]),
      ...filesUnder('packages/cli/src', '.ts').map((f): [string, string] => [f, withoutComments(read(f))]),
    ];
    const citing = texts.flatMap(([file, text]) => text.split('\n').flatMap((line, i) => (DESIGN_CITATION.test(line) ? [`${file}:${i + 1}: ${line.trim().slice(0, 100)}`] : [])));
    expect(citing).toEqual([]);
  });
});
