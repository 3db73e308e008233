import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { invalidName, isValidName } from '@sml/core';

extendZodWithOpenApi(z);

export { z };

/**
 * API.md §1 names: 1–128 of [A-Za-z0-9_.-], not starting with ".", no "..". Refused with the
 * message a name in a body gets (packages/core checkName): the name shown, a control character
 * escaped and named by position (`%0D` in a URL arrives here as a carriage return).
 */
export const name = (kind: string) =>
  z.string().refine(isValidName, { error: (issue) => invalidName(kind, issue.input).message });

export const boolParam = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

export const userParam = z.object({ user: name('customer').openapi({ description: 'Customer id (must equal the Customer-ID header)' }) });

export const jobInfo = z.object({
  jobId: z.number().int(),
  jobType: z.string(),
  owner: z.string(),
  startingDate: z.number().int().openapi({ description: 'epoch ms' }),
  maximum: z.number().int(),
  current: z.number().int(),
  isOnBoundedExecutor: z.boolean(),
  isStarted: z.boolean(),
  isDone: z.boolean(),
  details: z.record(z.string(), z.string()).openapi({ description: 'ds_name, update_type, p_id, bounded_executor_queue_position (only while queued), bounded_executor_queue_size' }),
}).openapi('JobInfo');

export const dataFrame = z.object({
  attributeNames: z.array(z.string()),
  attributeTypes: z.array(z.string()).openapi({ description: 'C continuous, B binary 0/1, T categorical, S string key, L list, X ignore' }),
  // A hand-written check: zod element-by-element validation of millions of cells would cost
  // more than learning them. Numbers, booleans and null are turned into their text; an array
  // or object is no cell.
  data: z.custom<string[][]>((v) => Array.isArray(v) && v.every((r) => Array.isArray(r) && r.every((c) => typeof c !== 'object' || c === null)), { message: 'data must be an array of rows (arrays of strings)' })
    .transform((rows) => rows.map((r) => (r.every((c) => typeof c === 'string') ? r : r.map((c) => (c === null || c === undefined ? '' : String(c))))))
    .optional().default([])
    .openapi({ type: 'array', items: { type: 'array', items: { type: 'string' } } }),
  errorHandling: z.coerce.number().int().min(0).max(1).default(0).openapi({ description: '0 strict (reject the whole frame), 1 lenient (skip bad rows, report)' }),
}).openapi('DataFrame');

const text = z.union([z.string(), z.number(), z.boolean()]).transform(String);

export const mlContext = z.object({
  inputAttributes: z.array(text).optional().default([]).openapi({ description: 'attribute indexes (smlInfo.attributeIndexes) as strings' }),
  inputAttributeNames: z.array(z.string()).optional().default([]),
  targets: z.array(text).optional().default([]),
  targetAttributeNames: z.array(z.string()).optional().default([]),
  extraParameters: z.record(z.string(), text).optional().default({}),
}).openapi('MLContext');

/**
 * An unknown key of an ExploreContext is refused rather than dropped: a flat MLContext (its keys
 * at the top level, not under `values`) would otherwise read as no context and answer 200 with
 * empty results.
 */
function unknownExploreKeys(keys: string[]): string {
  const flat = keys.filter((k) => k in mlContext.shape);
  const wrap = flat.length ? ` (${flat.join(', ')} ${flat.length === 1 ? 'is a key' : 'are keys'} of an MLContext: wrap the MLContext as {"values": [{…}]})` : '';
  return `an ExploreContext is {"values": [MLContext, …]}; unknown key${keys.length === 1 ? '' : 's'} ${keys.map((k) => JSON.stringify(k)).join(', ')}${wrap}`;
}

export const exploreContext = z.strictObject({ values: z.array(mlContext).optional() }, {
  error: (issue) => (issue.code === 'unrecognized_keys' ? unknownExploreKeys(issue.keys) : undefined),
}).openapi('ExploreContext', { description: 'MLContexts under values; any other key (a flat MLContext) answers 400 naming it' });
