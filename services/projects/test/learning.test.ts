/**
 * The learning module's pure parts, without NATS: the log entry a batch becomes, the
 * Idempotency-Key record (KV key and batch fingerprint, README "Idempotency-Key"), what a
 * retried key answers, and when a project asks the gateway for the batch's JSON. The batch
 * path itself (log append, commit, reload) runs on the in-memory storage in domain.test.ts,
 * and against nats-server in projects.e2e.test.ts and crash.e2e.test.ts.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { parameterBounds, SmlError } from '@sml/core';
import { sml } from '@sml/proto';
import { frameToColumns, parseFrameJson } from '@sml/stats/frames';
import { idempotencyRecord, isRetry, messageId, splitMessageId } from '../src/learning/idempotency';
import { logEntry, needsJson, refusesSummary } from '../src/learning/learning';
import { ProjectState } from '../src/lifecycle/project';

const json = (text: string) => new TextEncoder().encode(text);
const body = json('{"attributeNames":["x","y"],"attributeTypes":["C","C"],"data":[["1","2"],["3","4"]]}');
const columns = frameToColumns(parseFrameJson(body)!);
const frame: sml.v1.IDataFrame = { attributeNames: ['x'], attributeTypes: ['C'], data: [{ entries: ['1'] }] };

const limits = {
  maxAttributes: 2000,
  state: { maxSequenceEntries: 1_000_000, maxPartitions: 1000, maxNameLength: 256 },
  bounds: parameterBounds({
    SML_MAX_SEQUENCE_ORDER: 10, SML_MAX_HISTOGRAM_BINS: 10_000, SML_MAX_SELECTION_CANDIDATES: 10_000,
    SML_MAX_ITERATIONS: 100_000, SML_MAX_CENTROIDS: 10_000, SML_MAX_EVT_WINDOW: 1_000_000,
  }),
};
const project = (type: string, params: Record<string, string> = {}) =>
  ProjectState.fresh({ pid: 'p', user: 'alice', type, persist: true, histogramType: 'streaming', params, categorySeparator: '$' }, limits);

describe('log entry', () => {
  it('keeps the batch in the form the request carried it: columns, else the JSON, else the DataFrame', () => {
    expect(logEntry('learn', { columns, frameJson: body, frame })).toEqual({ op: 'learn', columns });
    expect(logEntry('forget', { frameJson: body, frame })).toEqual({ op: 'forget', frameJson: body });
    expect(logEntry('learn', { frameJson: new Uint8Array(), frame })).toEqual({ op: 'learn', frame });
  });
});

describe('Idempotency-Key record', () => {
  const entry = logEntry('learn', { frameJson: body });

  it('the fingerprint is the SHA-256 of the encoded log entry', () => {
    const expected = createHash('sha256').update(sml.v1.ProjectLogEntry.encode(entry).finish()).digest('hex');
    expect(idempotencyRecord('alice', 'p', 'k1', entry).fingerprint).toBe(expected);
  });

  it('the same key with the same batch gives the same record', () => {
    expect(idempotencyRecord('alice', 'p', 'k1', entry)).toEqual(idempotencyRecord('alice', 'p', 'k1', logEntry('learn', { frameJson: body.slice() })));
  });

  it('another batch under the same key: same KV key, another fingerprint (forget of the same rows included)', () => {
    const first = idempotencyRecord('alice', 'p', 'k1', entry);
    for (const other of [logEntry('forget', { frameJson: body }), logEntry('learn', { frameJson: json('{"attributeNames":["x"],"attributeTypes":["C"],"data":[["1"]]}') }), logEntry('learn', { columns })]) {
      const r = idempotencyRecord('alice', 'p', 'k1', other);
      expect(r.name).toBe(first.name);
      expect(r.fingerprint).not.toBe(first.fingerprint);
    }
  });

  it('keys are per customer and project: the same Idempotency-Key elsewhere is another record', () => {
    const names = [['alice', 'p'], ['bob', 'p'], ['alice', 'q'], ['alice.p', 'q'], ['alice', 'p.q']].map(([u, p]) => idempotencyRecord(u, p, 'k1', entry).name);
    expect(new Set(names).size).toBe(names.length);
  });

  it('any Idempotency-Key becomes a KV-safe key of bounded length, distinct keys distinct names', () => {
    fc.assert(fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), fc.string({ unit: 'grapheme', maxLength: 300 }), (a, b) => {
      const ra = idempotencyRecord('alice', 'p', a, entry);
      expect(ra.name).toMatch(/^alice\.p\.[0-9a-f]{32}$/);
      if (a !== b) expect(idempotencyRecord('alice', 'p', b, entry).name).not.toBe(ra.name);
    }));
  });
});

describe('the message id of a keyed batch in the log', () => {
  it('gives back the record it was made from; other ids give nothing', () => {
    const record = idempotencyRecord('alice.x', 'p', 'k1', logEntry('learn', { frameJson: body }));
    expect(splitMessageId(messageId(record))).toEqual(record);
    for (const other of ['', 'abc', `alice.p.${'0'.repeat(63)}`, `.${'0'.repeat(64)}`, `alice.p.${'g'.repeat(64)}`]) expect(splitMessageId(other)).toBeUndefined();
  });
});

describe('a retried Idempotency-Key', () => {
  const record = idempotencyRecord('alice', 'p', 'k1', logEntry('learn', { frameJson: body }));

  it('a key not remembered is a new batch', () => {
    expect(isRetry(undefined, record, 'k1')).toBe(false);
  });

  it('the same key with the same batch answers as the first time', () => {
    expect(isRetry(record.fingerprint, record, 'k1')).toBe(true);
  });

  it('the same key with another batch is refused 422, naming the key (clipped)', () => {
    const key = 'k'.repeat(100);
    let err: unknown;
    try {
      isRetry('another fingerprint', record, key);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SmlError);
    expect({ code: (err as SmlError).code, status: (err as SmlError).status }).toEqual({ code: 'IDEMPOTENCY_KEY_REUSED', status: 422 });
    expect((err as SmlError).message).toContain(`[${'k'.repeat(64)}…]`);
  });
});

describe('needsJson', () => {
  it('columns for a project that reads the rows\' cells (partitions, survival, sequences) ask for the JSON', () => {
    for (const p of [project('partition', { partitionSplit: 'y' }), project('cpu', { km_time_column: 'x', km_event_column: 'y' }), project('sequence', { sml_project_order: '1', sml_sequence_layout: 'steps' })]) {
      expect(needsJson(p, { columns })).toBe(true);
      expect(needsJson(p, { frameJson: body })).toBe(false);
    }
  });

  it('a project of moments only learns the columns', () => {
    expect(needsJson(project('cpu'), { columns })).toBe(false);
  });
});

describe('batch summaries', () => {
  const recipe = project('cpu').batchRecipe!;
  const batchSummary = new Uint8Array([1, 2, 3]);

  it('a project of moments gives its summary options as the recipe; one that needs the rows, or encodes them, none', () => {
    expect(JSON.parse(recipe)).toEqual(expect.objectContaining({ histogram: 'streaming', maxAttributes: 2000, categorySeparator: '$' }));
    for (const p of [project('partition', { partitionSplit: 'y' }), project('cpu', { km_time_column: 'x', km_event_column: 'y' }), project('sequence', { sml_project_order: '1' })]) {
      expect(p.batchRecipe).toBeNull();
    }
    const encoded = ProjectState.fresh({ pid: 'p', user: 'alice', type: 'cpu', persist: true, histogramType: 'streaming', params: {}, categorySeparator: '$', encoder: 'e1' }, limits);
    expect(encoded.batchRecipe).toBeNull();
  });

  it('the log keeps the summary as it came', () => {
    expect(logEntry('forget', { batchSummary, columns, frameJson: body })).toEqual({ op: 'forget', batchSummary });
  });

  it("is sent again as the frame when the recipe is not the project's, or the batch is a job's, a keyed one or a stream's", () => {
    const p = project('cpu');
    expect(refusesSummary(p, { batchSummary, summaryRecipe: recipe })).toBe(false);
    expect(refusesSummary(p, { batchSummary, summaryRecipe: project('cpu', {}).batchRecipe!.replace('"streaming"', '"exact"') })).toBe(true);
    expect(refusesSummary(p, { batchSummary, summaryRecipe: recipe, async: true })).toBe(true);
    expect(refusesSummary(p, { batchSummary, summaryRecipe: recipe, idempotencyKey: 'k' })).toBe(true);
    expect(refusesSummary(p, { batchSummary, summaryRecipe: recipe, streamPosition: { stream: 's', partition: 'p' } })).toBe(true);
    expect(refusesSummary(project('partition', { partitionSplit: 'y' }), { batchSummary, summaryRecipe: recipe })).toBe(true);
    expect(refusesSummary(p, { columns })).toBe(false);
  });
});

describe('power columns (sml_project_power_*)', () => {
  const power = { sml_project_power_column: 'y', sml_project_power_min: '-1', sml_project_power_max: '1', sml_project_power_steps: '4' };

  it('a project created with them keeps pt_<col>^<p> for each power and learns them from the columns too', () => {
    const p = project('cpu', { ...power, sml_project_power_ntot: '5' });
    expect(p.summary.power?.names).toEqual(['pt_y^-1.0', 'pt_y^-0.5', 'pt_y^0.0', 'pt_y^0.5', 'pt_y^1.0']);
    expect(needsJson(p, { columns })).toBe(false);
  });

  it('stored by a build before power regression (no sml_project_power_ntot), they keep none', () => {
    expect(project('cpu', power).summary.power).toBeUndefined();
  });
});

describe('stream marks in the log', () => {
  it("a dropMarks entry removes one stream's marks (every partition) when replayed, and nothing else", () => {
    const p = project('default');
    const batch = (stream: string, partition: string, first: number, last: number) =>
      ({ ...logEntry('learn', { frameJson: body }), streamPosition: { stream, partition, firstOffset: first, lastOffset: last } });
    [batch('s1', '0', 0, 9), batch('s1', '1', 0, 4), batch('s2', '0', 0, 2)].forEach((e, i) => expect(p.replay(e, i + 1)).toBeUndefined());
    const rows = p.summary.rowCount;
    expect(rows).toBe(6);
    expect(p.replay({ op: 'dropMarks', streamPosition: { stream: 's1' } }, 4)).toBeUndefined();
    expect(p.streamMarks.list().map((m) => [m.stream, m.partition, Number(m.lastOffset)])).toEqual([['s2', '0', 2]]);
    expect(p.summary.rowCount).toBe(rows);
    expect(p.logSeq).toBe(4);
    // The dropped stream's batches are no longer covered; the other's still are.
    expect(p.streamMarks.covering({ stream: 's1', partition: '0', firstOffset: 3, lastOffset: 5 })).toBeUndefined();
    expect(p.streamMarks.covering({ stream: 's2', partition: '0', firstOffset: 1, lastOffset: 5 })).toBe(2);
  });
});
