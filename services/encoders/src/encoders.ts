import { isKeyExists, okStatus } from '@sml/bus';
import { checkName, clip, SmlError, smlError, toSmlError, type ErrorCode } from '@sml/core';
import { sml } from '@sml/proto';
import { CapacityError, Encoder, type EncoderFrame, FrameError } from '@sml/stats';
import type { EncoderStore } from './store';

export interface EncoderLimits {
  /** Distinct (key, value) pairs per encoder (SML_MAX_ENCODER_VALUES). */
  maxValues: number;
  /** Encoders per customer (SML_MAX_ENCODERS_PER_CUSTOMER). */
  maxEncoders: number;
  /** Rows of one keyvals answer (SML_MAX_ENCODER_PAGE_ROWS): the default and largest page. */
  maxPageRows: number;
  /** Characters of a key (an attribute name: SML_MAX_NAME_LENGTH), and of the target's name. */
  maxKeyLength: number;
}

/**
 * Refuses a key (a column's name, a setValues key) longer than an attribute name may be: a
 * key is kept, stored and answered with every value of it, so it is bounded as the projects
 * bound attribute names (SML_MAX_NAME_LENGTH, in characters), before anything is learned.
 */
export function checkKeyLength(keys: Iterable<string>, max: number): void {
  for (const key of keys) {
    if (key.length <= max) continue;
    const n = [...key].length;
    if (n > max) throw new FrameError(-1, key, `the key has ${n} characters, over the limit of ${max} (SML_MAX_NAME_LENGTH)`);
  }
}

/** A number as Java's Double.toString writes it (SymetryML's stats cells): `1.0`, `2153.25`, `3.4243127E7`. */
export function javaDouble(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const abs = Math.abs(x);
  if (abs >= 1e-3 && abs < 1e7) {
    const s = String(x);
    return s.includes('.') ? s : `${s}.0`;
  }
  const [mantissa, exponent] = x.toExponential().split('e');
  return `${mantissa.includes('.') ? mantissa : `${mantissa}.0`}E${Number(exponent)}`;
}

const STATS_COLUMNS = ['key', 'type', 'count', 'mean', 'stddev', 'variance'];
const KEYVAL_COLUMNS = ['Value', 'Count', 'Sum'];

interface Loaded {
  record: sml.v1.IEncoderRecord;
  revision: number;
  encoder: Encoder;
}

/** Writes retried after a concurrent write (another replica) changed the record meanwhile. */
const WRITE_ATTEMPTS = 5;
/** Deltas kept before the next write stores the whole statistics again (also: when they hold half the values). */
const MAX_DELTAS = 16;

/** What a change made: its result and, when it only added counts, those counts as an encoder of their own. */
interface Change<T> {
  result: T;
  delta?: Encoder;
}

/** Merges `delta` into `e` as learning its rows would (same checks: key types, SML_MAX_ENCODER_VALUES). */
function mergeChecked(e: Encoder, delta: Encoder, maxValues: number): void {
  for (const key of delta.keyNames()) {
    const held = e.keyType(key);
    if (held !== undefined && held !== delta.keyType(key)) throw new FrameError(-1, key, `the encoder keeps this key as type ${held}, not ${delta.keyType(key)}`);
  }
  const count = e.mergedValueCount(delta);
  if (count > maxValues) throw new CapacityError('encoder-values', 'distinct key values', count, maxValues);
  e.merge(delta);
}

/** The column index of `name` in a frame (case-insensitive), or a 400 naming the columns needed. */
function column(frame: EncoderFrame, name: string, needed: string[]): number {
  const i = frame.attributeNames.findIndex((n) => n.toLowerCase() === name.toLowerCase());
  if (i < 0) throw smlError('ENCODER_INPUT', { detail: `the DataFrame needs the columns ${needed.join(', ')}; [${name}] is missing` });
  return i;
}

function number(text: unknown, what: string): number {
  const v = Number(typeof text === 'string' ? text.trim() : text);
  if (typeof text !== 'string' && typeof text !== 'number' || text === '' || !Number.isFinite(v)) {
    throw smlError('ENCODER_INPUT', { detail: `${what} [${String(text)}] is not a number` });
  }
  return v;
}

/** A cell as text: the DataFrame's cells are strings (numbers kept as their text). */
function cellString(cell: unknown): string {
  return typeof cell === 'string' ? cell : typeof cell === 'number' ? String(cell) : '';
}

export function frameOf(frame: sml.v1.IDataFrame | null | undefined): EncoderFrame {
  return {
    attributeNames: frame?.attributeNames ?? [],
    attributeTypes: frame?.attributeTypes ?? [],
    data: (frame?.data ?? []).map((r) => r.entries ?? []),
  };
}

/**
 * The encoders (API.md §3). Each operation on one encoder runs under its lock: read the
 * record (the deserialized statistics are reused while the KV revision is unchanged), apply,
 * write back naming the revision read. A write another replica made meanwhile makes the
 * update fail; the operation then runs again on the fresh record. The deserialized
 * statistics kept between operations hold at most SML_MAX_ENCODER_VALUES values
 * (least recently used first out).
 */
export class Encoders {
  private readonly cache = new Map<string, Loaded>();
  private cachedValues = 0;
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(private readonly store: EncoderStore, private readonly limits: EncoderLimits) {}

  async create(user: string, req: sml.v1.IEncoderCreateRequest): Promise<sml.v1.IStatus> {
    const name = checkName('encoder', req.encoderName);
    const target = (req.targetName ?? '').trim();
    if (target === '') throw smlError('INVALID_PARAMETER', { name: 'targetName', value: '', reason: 'the target attribute name is required' });
    if ([...target].length > this.limits.maxKeyLength) {
      throw smlError('INVALID_PARAMETER', { name: 'targetName', value: clip(target), reason: `an attribute name of at most ${this.limits.maxKeyLength} characters (SML_MAX_NAME_LENGTH)` });
    }
    const type = (req.encoderType ?? '').trim().toUpperCase() || 'B';
    if (type !== 'B' && type !== 'C') throw smlError('ENCODER_TYPE', { type: req.encoderType });
    const trimText = (req.minTrimSize ?? '').trim();
    const minTrimSize = trimText === '' ? 1 : Number(trimText);
    if (!Number.isSafeInteger(minTrimSize) || minTrimSize < 0 || minTrimSize > 2 ** 31 - 1) {
      throw smlError('INVALID_PARAMETER', { name: 'minTrimSize', value: trimText, reason: 'an integer from 0 to 2147483647' });
    }
    const count = (await this.store.list(user)).length;
    if (count >= this.limits.maxEncoders) throw smlError('ENCODER_COUNT_LIMIT', { user, count, variable: 'SML_MAX_ENCODERS_PER_CUSTOMER' });
    const encoder = new Encoder({ target, targetType: type, minTrimSize });
    await this.store.create(user, { name, target, encoderType: type, minTrimSize, creationDate: Date.now(), projects: [], state: encoder.serialize(), valueCount: 0 });
    return okStatus('ENCODER_CREATED', { encoder: name, target, user });
  }

  list(user: string): Promise<string[]> {
    return this.store.list(user);
  }

  /**
   * Learns a DataFrame: the target column gives each row's target, every other column is a
   * key. The rows are learned into an encoder of their own, then merged (what is stored is
   * that delta, so the statistics read back are the same merges in the same order).
   */
  learn(user: string, name: string, frame: EncoderFrame): Promise<number> {
    return this.mutate(user, name, 'ENCODER_NOT_FOUND', (e) => {
      checkKeyLength(frame.attributeNames, this.limits.maxKeyLength);
      const delta = new Encoder(e.options);
      const result = delta.learn(frame);
      mergeChecked(e, delta, this.limits.maxValues);
      return { result, delta };
    });
  }

  /** setValues (one key, columns Value, Count, Sum: replaces) and createKeyValues (Key, Value, Count, Sum: adds). */
  setValues(user: string, name: string, frame: EncoderFrame, key?: string): Promise<void> {
    const needed = key === undefined ? ['Key', ...KEYVAL_COLUMNS] : KEYVAL_COLUMNS;
    const k = key === undefined ? column(frame, 'Key', needed) : -1;
    const [v, c, s] = KEYVAL_COLUMNS.map((n) => column(frame, n, needed));
    const entries = frame.data.map((row, r) => ({
      key: key ?? cellString(row[k]),
      value: cellString(row[v]),
      count: number(row[c], `row ${r + 1}: Count`),
      sum: number(row[s], `row ${r + 1}: Sum`),
    }));
    return this.mutate(user, name, 'ENCODER_NOT_FOUND', (e) => {
      checkKeyLength(key === undefined ? entries.map((x) => x.key) : [key], this.limits.maxKeyLength);
      return { result: e.setValues(entries, key === undefined, this.limits.maxValues) };
    });
  }

  /** A fresh encoder with the options of `name` (learnds learns into it, then merges: nothing is kept from a failed job). */
  async staging(user: string, name: string): Promise<Encoder> {
    const { encoder } = await this.load(user, name, 'ENCODER_UNKNOWN');
    return new Encoder(encoder.options);
  }

  /** Adds what `staging` learned to the encoder, whole or not at all (SML_MAX_ENCODER_VALUES). */
  merge(user: string, name: string, staging: Encoder): Promise<void> {
    return this.mutate(user, name, 'ENCODER_NOT_FOUND', (e) => {
      mergeChecked(e, staging, this.limits.maxValues);
      return { result: undefined, delta: staging };
    });
  }

  async stats(user: string, name: string): Promise<sml.v1.IEncoderFrameReply> {
    const { record, encoder } = await this.load(user, name, 'ENCODER_NOT_FOUND');
    return {
      dataframe: {
        attributeNames: STATS_COLUMNS,
        attributeTypes: ['S', 'S', 'C', 'C', 'C', 'C'],
        data: encoder.stats().map((s) => ({ entries: [s.key, s.type, javaDouble(s.count), javaDouble(s.mean), javaDouble(s.stddev), javaDouble(s.variance)] })),
      },
      encoderInfo: { target: record.target, minTrimSize: String(record.minTrimSize), encoderType: record.encoderType },
    };
  }

  /** One page of a key's values, sorted: rows offset … offset + limit − 1 (limit 0 or over SML_MAX_ENCODER_PAGE_ROWS: that many). */
  async keyValues(user: string, name: string, key: string, offset = 0, limit = 0): Promise<sml.v1.IEncoderFrameReply> {
    const { encoder } = await this.load(user, name, 'ENCODER_NOT_FOUND');
    const values = encoder.keyValues(key);
    if (!values) throw smlError('ENCODER_KEY_NOT_FOUND', { encoder: name, key });
    const from = Math.max(0, offset);
    const rows = limit > 0 ? Math.min(limit, this.limits.maxPageRows) : this.limits.maxPageRows;
    return {
      dataframe: {
        attributeNames: KEYVAL_COLUMNS,
        attributeTypes: ['S', 'C', 'C'],
        data: values.slice(from, from + rows).map((v) => ({ entries: [v.value, String(v.count), javaDouble(v.sum)] })),
      },
      valueCount: values.length,
    };
  }

  /** Deletes an encoder; 409 while a project uses it. */
  delete(user: string, name: string): Promise<void> {
    return this.locked(user, name, async () => {
      const { record } = await this.load(user, name, 'ENCODER_NOT_FOUND');
      const projects = record.projects ?? [];
      if (projects.length > 0) throw smlError('ENCODER_IN_USE', { encoder: name, pids: projects.map((p) => `[${p}]`).join(', ') });
      await this.store.delete(user, name);
      this.forget(`${user}\u0000${name}`);
    });
  }

  /** Every encoder of a deleted customer, assigned or not (its projects go too); returns how many. */
  async purge(user: string): Promise<number> {
    for (const id of [...this.cache.keys()]) if (id.startsWith(`${user}\u0000`)) this.forget(id);
    return this.store.purge(user);
  }

  /** Lists (or, detaching, unlists) a project among the encoder's users. */
  assign(user: string, name: string, pid: string, detach: boolean): Promise<void> {
    return this.locked(user, name, async () => {
      for (let attempt = 0; ; attempt++) {
        const { record, revision } = await this.load(user, name, 'ENCODER_NOT_FOUND');
        const projects = (record.projects ?? []).filter((p) => p !== pid);
        if (!detach) projects.push(pid);
        try {
          await this.store.update(user, { ...record, projects: projects.sort() }, revision);
          return;
        } catch (err) {
          if (!isKeyExists(err) || attempt + 1 >= WRITE_ATTEMPTS) throw err;
        }
      }
    });
  }

  /**
   * The encoder's statistics (Encoder.serialize) and the revision they are at: none when the
   * caller already holds `knownRevision`; only the listed values when `only` is given (what
   * one frame needs, whatever the encoder's size).
   */
  async state(user: string, name: string, knownRevision = 0, only: sml.v1.IEncoderKeyValues[] = []): Promise<{ state: Uint8Array; revision: number }> {
    const { encoder, revision } = await this.load(user, name, 'ENCODER_NOT_FOUND');
    if (knownRevision === revision) return { state: new Uint8Array(), revision };
    if (only.length === 0) return { state: encoder.serialize(), revision };
    return { state: encoder.subset(new Map(only.map((k) => [k.key ?? '', k.values ?? []]))).serialize(), revision };
  }

  /** 400 'Unknown Encoder [e]' unless the caller has encoder `name` (learnds checks this before scheduling). */
  async require(user: string, name: string): Promise<void> {
    await this.load(user, name, 'ENCODER_UNKNOWN');
  }

  private async load(user: string, name: string, missing: ErrorCode): Promise<Loaded> {
    const id = `${user}\u0000${name}`;
    for (let attempt = 0; ; attempt++) {
      const stored = await this.store.get(user, name);
      if (!stored) {
        this.forget(id);
        throw smlError(missing, { encoder: name, user });
      }
      const cached = this.cache.get(id);
      if (cached && cached.revision === stored.revision) {
        this.remember(id, cached);
        return cached;
      }
      const parts = await this.store.state(stored.record);
      if (parts) {
        const encoder = Encoder.deserialize(parts[0]);
        for (const delta of parts.slice(1)) encoder.merge(Encoder.deserialize(delta));
        const loaded = { ...stored, encoder };
        this.remember(id, loaded);
        return loaded;
      }
      // A write replaced the object after the record was read: the record has moved on.
      if (attempt + 1 >= WRITE_ATTEMPTS) throw new Error(`encoder statistics ${stored.record.statsObject} are missing from sml_encoder_stats`);
    }
  }

  /** Keeps `loaded` as the most recently used, dropping the least recently used beyond SML_MAX_ENCODER_VALUES values. */
  private remember(id: string, loaded: Loaded): void {
    this.forget(id);
    this.cache.set(id, loaded);
    this.cachedValues += loaded.encoder.valueCount;
    for (const [old] of this.cache) {
      if (this.cachedValues <= this.limits.maxValues || old === id) break;
      this.forget(old);
    }
  }

  private forget(id: string): void {
    const cached = this.cache.get(id);
    if (!cached) return;
    this.cachedValues -= cached.encoder.valueCount;
    this.cache.delete(id);
  }

  private mutate<T>(user: string, name: string, missing: ErrorCode, change: (e: Encoder) => Change<T>): Promise<T> {
    return this.locked(user, name, async () => {
      const id = `${user}\u0000${name}`;
      for (let attempt = 0; ; attempt++) {
        const loaded = await this.load(user, name, missing);
        // The change is made in place: the cache's count of values is settled around it.
        this.forget(id);
        let made: Change<T>;
        try {
          made = change(loaded.encoder);
        } catch (err) {
          // Domain errors in the encoders' words (ENCODER_INPUT, ENCODER_LIMIT); anything else is
          // no refusal: the encoder may be half-changed, and is read again next time.
          const refused = toSmlError(err, { encoder: name });
          if (!(refused instanceof SmlError)) throw refused;
          // A refused change changes nothing: the statistics stay as read.
          this.remember(id, loaded);
          throw refused;
        }
        const { record } = loaded;
        const { delta } = made;
        // A delta is stored while the deltas stay small next to the whole; else the whole, alone
        // again (always for a record from before the object store: its inline state moves out).
        const asDelta = delta !== undefined && Boolean(record.statsObject) && (record.deltaObjects ?? []).length < MAX_DELTAS
          && 2 * (Number(record.deltaValues ?? 0) + delta.valueCount) <= loaded.encoder.valueCount;
        try {
          const written = asDelta
            ? await this.store.write(user, record, loaded.revision, delta.serialize(), loaded.encoder.valueCount, { values: delta.valueCount })
            : await this.store.write(user, record, loaded.revision, loaded.encoder.serialize(), loaded.encoder.valueCount);
          this.remember(id, { ...written, encoder: loaded.encoder });
          return made.result;
        } catch (err) {
          // Memory holds a change the store does not: read the store again.
          if (!isKeyExists(err) || attempt + 1 >= WRITE_ATTEMPTS) throw err;
        }
      }
    });
  }

  /** Runs `fn` after every earlier operation on the same encoder of this process. */
  private locked<T>(user: string, name: string, fn: () => Promise<T>): Promise<T> {
    const id = `${user}\u0000${name}`;
    const previous = this.locks.get(id) ?? Promise.resolve();
    const next = previous.then(fn, fn);
    const tail = next.catch(() => undefined);
    this.locks.set(id, tail);
    void tail.then(() => {
      if (this.locks.get(id) === tail) this.locks.delete(id);
    });
    return next;
  }
}
