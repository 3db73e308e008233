/**
 * Learn batches as their own summary (@sml/stats/batch, README "Batch summaries"): the gateway
 * summarises a long batch for a project that gave it its recipe (at create, or in a learn's
 * reply), the project adds (or removes) the summary and logs it, so the rows reach neither the
 * bus past the gateway nor the log; a load replays it; what the project refuses as a summary is
 * sent again as the frame and refused in the frame's words. Statistics are compared with the
 * same rows learned in this process (moments to 1e-12, histograms exactly).
 */
import { sml } from '@sml/proto';
import type { SmlClient } from '@sml/sdk';
import { Summary } from '@sml/stats';
import { startSystem, type RunningSystem } from '@sml/testkit';
import { connect, type NatsConnection } from 'nats';
import { PROJECT_LOG_STREAM, ProjectStore } from '../src/store/store';
import { customer, expectClose, frame, SummaryReader } from './helpers';

const NAMES = ['x', 'y', 'flag', 'color'];
const TYPES = ['C', 'C', 'B', 'T'];
const COLORS = ['red', 'blue', 'green'];
/** Rows first..first+count: decimals, integers, a binary and a categorical column, a few cells missing. */
const rows = (first: number, count: number) => Array.from({ length: count }, (_, k) => {
  const i = first + k;
  return [i % 97 === 0 ? '' : (((i * 37) % 1000) / 8).toFixed(3), String(i % 7), String(i % 2), i % 89 === 0 ? '' : COLORS[i % 3]];
});
const rowsFrame = (data: string[][]) => ({ attributeNames: NAMES, attributeTypes: TYPES, data, errorHandling: 0 });

describe('learn batches as summaries', () => {
  let sys: RunningSystem;
  let alice: SmlClient;
  let reader: SummaryReader;
  let nc: NatsConnection;

  beforeAll(async () => {
    // No snapshots: a load replays every batch from the log.
    sys = await startSystem({ services: ['users', 'jobs', 'projects'], env: { SML_SNAPSHOT_EVERY_BATCHES: '1000' } });
    alice = await customer(sys, 'alice');
    reader = await SummaryReader.open(sys.nats);
    nc = await connect({ servers: sys.nats.url, ...sys.nats.connectOptions('projects') });
  });
  afterAll(async () => {
    await nc?.close();
    await reader?.close();
    await sys?.stop();
  });

  /** The project's log entries, oldest first. */
  async function logEntries(user: string, pid: string): Promise<sml.v1.ProjectLogEntry[]> {
    const jsm = await nc.jetstreamManager();
    const subject = `sml.plog.${ProjectStore.key(user, pid)}`;
    const out: sml.v1.ProjectLogEntry[] = [];
    const info = await jsm.streams.info(PROJECT_LOG_STREAM);
    for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
      const m = await jsm.streams.getMessage(PROJECT_LOG_STREAM, { seq }).catch(() => null);
      if (m?.subject === subject) out.push(sml.v1.ProjectLogEntry.decode(m.data));
    }
    return out;
  }

  async function expectStatisticsOf(pid: string, expected: Summary, when: string): Promise<void> {
    const actual = await reader.full('alice', pid);
    expect({ when, rows: actual.rowCount, names: actual.attributeNames }).toEqual({ when, rows: expected.rowCount, names: expected.attributeNames });
    for (const name of expected.attributeNames) {
      const [a, e] = [actual.moments(name), expected.moments(name)];
      expect({ when, name, count: a.count, min: a.min, max: a.max }).toEqual({ when, name, count: e.count, min: e.min, max: e.max });
      for (const k of ['sum', 'sumSquares', 'sumCubes', 'sumFourths'] as const) expectClose(a[k], e[k], 1e-12);
      expect({ when, name, bins: actual.histogram(name)?.toBins() }).toEqual({ when, name, bins: expected.histogram(name)?.toBins() });
      for (const other of expected.attributeNames) expectClose(actual.comoments(name, other).sumXY, expected.comoments(name, other).sumXY, 1e-12);
    }
  }

  it('long batches travel and are logged as summaries, learn and forget alike, and the statistics are those of the rows, also after a load', async () => {
    expect((await alice.createProject('bs', { enableHistogram: true })).body.values).toEqual({});
    const [a, b] = [rows(0, 8000), rows(8000, 7000)];
    const learned = await alice.learn('bs', rowsFrame(a));
    // The recipe is between gateway and project: the customer's answer is unchanged.
    expect(learned.body).toEqual({ statusCode: 200, statusString: 'OK', values: {} });
    expect((await alice.learn('bs', rowsFrame(b))).status).toBe(200);
    expect((await alice.request('POST', '/projects/bs/forget', { json: rowsFrame(a) })).status).toBe(200);

    const entries = await logEntries('alice', 'bs');
    expect(entries.map((e) => [e.op, e.batchSummary.length > 0, e.columns === null, e.frameJson.length])).toEqual([
      ['learn', true, true, 0], ['learn', true, true, 0], ['forget', true, true, 0],
    ]);
    // The project's own options (histograms with conditional ones, as a project created with histograms enabled).
    const options = Summary.deserialize(entries[0].batchSummary).options;
    expect(options).toEqual(expect.objectContaining({ histogram: 'streaming' }));
    const expected = new Summary(options);
    expected.learn(rowsFrame(a));
    expected.learn(rowsFrame(b));
    expected.forget(rowsFrame(a));
    await expectStatisticsOf('bs', expected, 'in memory');

    await sys.kill('projects', 'SIGKILL');
    await sys.start('projects');
    await expectStatisticsOf('bs', expected, 'replayed from the log');
  });

  it('short batches, keyed batches and projects that need the rows keep sending frames', async () => {
    await alice.createProject('short');
    expect((await alice.learn('short', rowsFrame(rows(0, 50)))).status).toBe(200);
    await alice.createProject('keyed');
    expect((await alice.request('POST', '/projects/keyed/learn', { json: rowsFrame(rows(0, 6000)), headers: { 'Idempotency-Key': 'k-1' } })).status).toBe(200);
    await alice.createProject('parts', { type: 'partition', params: { partitionSplit: 'color' } });
    expect((await alice.learn('parts', rowsFrame(rows(0, 6000)))).status).toBe(200);
    const forms = async (pid: string) => (await logEntries('alice', pid)).map((e) => (e.batchSummary.length > 0 ? 'summary' : e.columns ? 'columns' : 'json'));
    expect(await forms('short')).toEqual(['columns']);
    expect(await forms('keyed')).toEqual(['columns']);
    expect(await forms('parts')).toEqual(['json']);
    const parts = await reader.full('alice', 'parts');
    expect([parts.rowCount, parts.partitionValues().length]).toEqual([6000, 3]);
  });

  it('a project created before this gateway knew it gives its recipe with its first learn', async () => {
    await alice.createProject('later');
    await sys.kill('users', 'SIGKILL'); // the gateway forgets every recipe
    await sys.start('users');
    expect((await alice.learn('later', rowsFrame(rows(0, 6000)))).status).toBe(200);
    expect((await alice.learn('later', rowsFrame(rows(6000, 6000)))).status).toBe(200);
    expect((await logEntries('alice', 'later')).map((e) => e.batchSummary.length > 0)).toEqual([false, true]);
  });

  it('a memory-only project takes summaries too; forgetting rows it never learned is refused in the frame\'s words', async () => {
    await alice.createProject('mem', { persist: false });
    expect((await alice.learn('mem', rowsFrame(rows(0, 8000)))).status).toBe(200);
    const expected = new Summary((await reader.full('alice', 'mem')).options);
    expected.learn(rowsFrame(rows(0, 8000)));
    await expectStatisticsOf('mem', expected, 'memory only');
    const other = rowsFrame(rows(100_000, 8000));
    const asSummary = await alice.request('POST', '/projects/mem/forget', { json: other });
    const asColumns = await alice.request('POST', '/projects/mem/forget', { json: other, headers: { 'Idempotency-Key': 'k-3' } });
    expect(asSummary.status).toBe(400);
    expect(asSummary.body).toEqual(asColumns.body);
    await expectStatisticsOf('mem', expected, 'after the refused forget');
  });

  it('a batch the project refuses as a summary is sent again as the frame, and refused in the frame\'s words', async () => {
    await alice.createProject('clash');
    // `color` is continuous here; the long batch below has it categorical.
    expect((await alice.learn('clash', frame(['color'], ['C'], [[1], [2]]))).status).toBe(200);
    const asSummary = await alice.learn('clash', rowsFrame(rows(0, 6000)));
    const asColumns = await alice.request('POST', '/projects/clash/learn', { json: rowsFrame(rows(0, 6000)), headers: { 'Idempotency-Key': 'k-2' } });
    expect(asSummary.status).toBe(400);
    expect(asSummary.body).toEqual(asColumns.body);
    expect(String(asSummary.body.statusString)).toMatch(/color/);
    expect((await logEntries('alice', 'clash')).length).toBe(1);
    expect((await reader.full('alice', 'clash')).rowCount).toBe(2);
  });
});
