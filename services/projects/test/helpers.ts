import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect, type NatsConnection } from 'nats';
import { BusClient, shardOf, subjects, unwrap } from '@sml/bus';
import { encryptDsInfo, nameToken } from '@sml/core';
import { sml } from '@sml/proto';
import { Summary } from '@sml/stats';
import { SmlClient } from '@sml/sdk';
import { dataFile, type NatsServer, type RunningSystem } from '@sml/testkit';

export function readCsv(name: string): { names: string[]; rows: string[][] } {
  const text = readFileSync(dataFile(name), 'utf8');
  const lines = text.split(/\r\n|\r|\n/).filter((l) => l.length > 0);
  return { names: lines[0].split(','), rows: lines.slice(1).map((l) => l.split(',')) };
}

export async function customer(sys: RunningSystem, user: string): Promise<SmlClient> {
  const root = new SmlClient({ url: sys.url, user: sys.rootUser, secret: sys.rootSecret });
  const r = await root.addUser(user);
  if (r.status !== 201) throw new Error(`cannot create ${user}: ${JSON.stringify(r.body)}`);
  return new SmlClient({ url: sys.url, user, secret: String((r.body.values as { secretKey: string }).secretKey) });
}

/** The columns a big-source learn asks for. */
export const BIG_FRAME = { attributeNames: ['x', 'y'], attributeTypes: ['C', 'C'] };

/**
 * A customer with a localfile data source `big` of `rows` rows (x = i mod 97, y = i mod 13)
 * and an empty project `p`, and the started learn of `big` into `p` once it has read part of
 * the file (its progress reached the job record, not yet the end): what the crash tests kill.
 */
export async function learnBigSource(sys: RunningSystem, user: string, rows: number): Promise<{ client: SmlClient; jobId: string }> {
  const root = new SmlClient({ url: sys.url, user: sys.rootUser, secret: sys.rootSecret });
  const secret = String(((await root.addUser(user)).body.values as { secretKey: string }).secretKey);
  const client = new SmlClient({ url: sys.url, user, secret });
  const files = join(sys.dataDir, 'files', nameToken(user));
  mkdirSync(files, { recursive: true });
  const lines = ['x,y'];
  for (let i = 0; i < rows; i++) lines.push(`${i % 97},${i % 13}`);
  writeFileSync(join(files, 'big.csv'), lines.join('\n'));
  const created = await client.request('POST', '/dss/create', { raw: encryptDsInfo({ type: 'localfile', name: 'big', info: { path: 'big.csv' } }, secret) });
  if (created.status !== 201 || (await client.createProject('p')).status !== 201) throw new Error('cannot create the big source or project p');
  const job = await client.request('POST', '/projects/p/dss/big/learn', { json: BIG_FRAME });
  if (job.status !== 202) throw new Error(`learn not accepted: ${JSON.stringify(job.body)}`);
  const jobId = job.headers['sym-job-id'];
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 20))) {
    const info = (await client.request<{ jobinfo?: { current: number; maximum: number } }>('GET', `/jobs/${jobId}`)).body.values?.jobinfo;
    if (info && info.current > 0) {
      if (info.current >= info.maximum) throw new Error('the learn read the whole file before the test could interrupt it: make the file larger');
      return { client, jobId };
    }
  }
  throw new Error('the learn reported no progress within 20 s');
}

/**
 * Learns one batch under a fresh Idempotency-Key, sent again after each 503 or lost answer
 * (`pauseMs` apart) until the gateway answers 200: what a careful client does while the
 * system fails over. Every answer that is not a 200 is counted in `answers` by status and
 * message; any status other than 503 fails at once, and so does no 200 within `withinMs`
 * (`context` adds what the caller wants in that error).
 */
export async function learnUntilAcknowledged(
  sdk: SmlClient,
  pid: string,
  json: unknown,
  opts: { withinMs: number; pauseMs: number; answers: Map<string, number>; what: string; context?: () => string },
): Promise<void> {
  const key = randomUUID();
  const deadline = Date.now() + opts.withinMs;
  for (let attempt = 0; ; attempt++) {
    const r = await sdk.request('POST', `/projects/${pid}/learn`, { json, headers: { 'Idempotency-Key': key } }).catch(() => undefined);
    if (r?.status === 200) return;
    const what = r === undefined ? 'no answer' : `${r.status} ${String(r.body.statusString).slice(0, 60)}`;
    opts.answers.set(what, (opts.answers.get(what) ?? 0) + 1);
    if (r !== undefined && r.status !== 503) throw new Error(`${opts.what}: ${what}`);
    if (Date.now() > deadline) throw new Error(`${opts.what} not acknowledged in ${opts.withinMs / 1000} s (${attempt} attempts): ${[...opts.answers.keys()].join('; ')}${opts.context ? `\n${opts.context()}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, opts.pauseMs));
  }
}

/** Reads a project's summary the way other services do: over the bus, as explore (with its identity). */
export class SummaryReader {
  private constructor(private readonly nc: NatsConnection, private readonly client: BusClient, private readonly shards: number) {}

  /** `shards`: the system's SML_PROJECT_SHARDS (each project is asked of its shard). */
  static async open(nats: NatsServer, shards = 1): Promise<SummaryReader> {
    const nc = await connect({ servers: nats.url.split(','), ...nats.connectOptions('explore') });
    return new SummaryReader(nc, new BusClient(nc, { timeoutMs: 10_000, resetMs: 200 }), shards);
  }

  async parts(user: string, pid: string, req: Partial<sml.v1.ISummaryRequest>): Promise<sml.v1.SummaryReply> {
    // decode gives the class; the client's signature only knows the reply's interface.
    return unwrap(await this.client.request('projects', subjects.projects('summary', shardOf(user, pid, this.shards)), sml.v1.SummaryRequest,
      { caller: { user, root: false, requestId: 'test' }, pid, ...req }, sml.v1.SummaryReply)) as sml.v1.SummaryReply;
  }

  async full(user: string, pid: string): Promise<Summary> {
    return Summary.deserialize((await this.parts(user, pid, { full: true })).summary);
  }

  async close(): Promise<void> {
    this.client.close();
    await this.nc.close();
  }
}

export function expectClose(actual: number, expected: number, rel = 1e-9): void {
  const scale = Math.max(1, Math.abs(expected));
  if (!(Math.abs(actual - expected) <= rel * scale)) throw new Error(`expected ${expected}, got ${actual} (relative tolerance ${rel})`);
}

/** A REST DataFrame with every cell as text. */
export type Frame = { attributeNames: string[]; attributeTypes: string[]; data: string[][]; errorHandling: number };
export const frame = (names: string[], types: string[], rows: (string | number)[][], errorHandling = 0): Frame =>
  ({ attributeNames: names, attributeTypes: types, data: rows.map((r) => r.map(String)), errorHandling });
