import { smlError } from '@sml/core';
import type { sml } from '@sml/proto';
import type { ProjectState } from './project';

/**
 * A sub-summary request names at most `max` attributes (SML_MAX_SUMMARY_ATTRIBUTES), each a
 * non-negative integer: checked before the project is loaded or anything is logged, since
 * the reply's co-moments grow with the square of their number.
 */
export function checkSummaryRequest(req: sml.v1.ISummaryRequest, max: number): void {
  const indexes = req.indexes ?? [];
  if (indexes.length > max) {
    throw smlError('INVALID_PARAMETER', { name: 'indexes', value: `${indexes.length} attributes`, reason: `a sub-summary names at most ${max} attributes (SML_MAX_SUMMARY_ATTRIBUTES)` });
  }
  for (const i of indexes) {
    if (!Number.isSafeInteger(i) || i < 0) throw smlError('INVALID_PARAMETER', { name: 'indexes', value: String(i), reason: 'not an attribute index' });
  }
}

/** The parts of a project's summary a `sml.projects.<shard>.summary` request asks for. */
export function summaryParts(p: ProjectState, req: sml.v1.ISummaryRequest): sml.v1.ISummaryReply {
  if (req.restricted || req.schema) return summaryView(p, req);
  const summary = p.summary;
  const names = req.attributeNames?.length ? req.attributeNames : summary.attributeNames;
  const types = summary.attributeTypes;
  const indexes = names.map((n) => {
    const i = summary.indexOf(n);
    // A bad parameter of this request, answered as the index checks below answer theirs.
    if (i < 0) throw smlError('INVALID_PARAMETER', { name: 'attributeNames', value: n, reason: 'unknown attribute' });
    return i;
  });
  const reply: sml.v1.ISummaryReply = { rowCount: summary.rowCount, meta: p.meta };
  if (req.moments) {
    reply.moments = indexes.map((i) => ({ name: names[indexes.indexOf(i)], type: types[i], ...summary.moments(i) }));
  }
  if (req.comoments) {
    reply.comoments = [];
    for (let a = 0; a < indexes.length; a++) {
      for (let b = a; b < indexes.length; b++) reply.comoments.push({ x: names[a], y: names[b], ...summary.comoments(indexes[a], indexes[b]) });
    }
  }
  if (req.histograms) {
    reply.histograms = indexes.map((i, k) => {
      const h = summary.histogram(i);
      const bins = h?.toBins() ?? [];
      return {
        name: names[k],
        mode: h?.mode ?? '',
        lower: bins.map((b) => b.lower),
        upper: bins.map((b) => b.upper),
        count: bins.map((b) => b.count),
        missing: summary.missing(i),
      };
    });
  }
  const survival = summary.survival;
  if (req.survival && survival) {
    reply.survival = survival.groups().map((group) => ({ group, rows: survival.table(group).map((r) => ({ time: r.time, censored: r.censored, events: r.events })) }));
  }
  const sequences = summary.sequences;
  if (req.sequences && sequences) {
    reply.sequenceOrder = sequences.order;
    reply.sequences = sequences.variableNames().map((name) => ({
      name,
      unigrams: stateCounts(sequences.unigrams(name)),
      starts: stateCounts(sequences.starts(name)),
      lagPairs: Array.from({ length: sequences.order }, (_, k) => k + 1).flatMap((lag) =>
        [...sequences.lagPairs(name, lag)].flatMap(([from, tos]) => [...tos].map(([to, count]) => ({ lag, from, to, count })))),
    }));
  }
  reply.etag = p.etag;
  if (req.full) {
    if (req.ifNoneMatch && req.ifNoneMatch === p.etag) reply.notModified = true;
    else reply.summary = summary.serialize();
  }
  return reply;
}

/**
 * The attribute table (`schema`) or a sub-summary (`restricted`): explore resolves names on
 * the first and reads only the attributes it uses from the second. An unknown index is 400.
 * The etag names the whole summary, so it validates either.
 */
function summaryView(p: ProjectState, req: sml.v1.ISummaryRequest): sml.v1.ISummaryReply {
  const summary = p.summary;
  const reply: sml.v1.ISummaryReply = { rowCount: summary.rowCount, meta: p.meta, etag: p.etag };
  const size = summary.attributeNames.length;
  const indexes = req.restricted ? [...new Set(req.indexes ?? [])].sort((a, b) => a - b) : [];
  const unknown = indexes.find((i) => i >= size);
  if (unknown !== undefined) throw smlError('INVALID_PARAMETER', { name: 'indexes', value: String(unknown), reason: `unknown attribute index (the project has ${size} attributes)` });
  if (req.ifNoneMatch && req.ifNoneMatch === p.etag) return { ...reply, notModified: true };
  if (req.schema) {
    reply.attributeNames = summary.attributeNames;
    reply.attributeTypes = summary.attributeTypes;
  }
  if (req.restricted) {
    reply.summary = summary.restrict(indexes).serialize();
    reply.attributeIndexes = indexes;
  }
  return reply;
}

function stateCounts(counts: Map<string, number>): sml.v1.IStateCount[] {
  return [...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([state, count]) => ({ state, count }));
}
