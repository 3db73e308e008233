import { type BusClient, subjects, unwrap } from '@sml/bus';
import { dataFrameFromProto, dataFrameToProto, type RestDataFrame } from '@sml/core';
import { sml } from '@sml/proto';
import { cellValues, Encoder } from '@sml/stats';
import type { ProjectRegistry } from '../lifecycle/registry';

/** Column types an encoder turns into numbers (API.md §1: `S` string key, `L` list). */
const ENCODED = new Set(['S', 'L']);

/**
 * A frame with its `S`/`L` columns replaced by their encodings as `C` columns (API.md §3
 * encoderAssign): a value encodes to its mean target, or to the overall mean when rare or
 * unseen; an `L` cell to the mean of its values' encodings. An encoding that is not a
 * number (an encoder that learned nothing) is a missing cell.
 */
export function encodeFrame(encoder: Encoder, frame: RestDataFrame): RestDataFrame {
  const types = frame.attributeTypes;
  const encoded = types.map((t) => ENCODED.has(t));
  if (!encoded.some(Boolean)) return frame;
  return {
    ...frame,
    attributeTypes: types.map((t, c) => (encoded[c] ? 'C' : t)),
    data: frame.data.map((row) => row.map((cell, c) => {
      if (!encoded[c]) return cell;
      const v = encoder.encodeCell(frame.attributeNames[c], types[c], cell);
      return Number.isFinite(v) ? String(v) : '';
    })),
  };
}

/** The JSON DataFrame of a learn request, or undefined when it is not one (the summary's reader then says why). */
function parseFrame(json: Uint8Array): RestDataFrame | undefined {
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(json.buffer, json.byteOffset, json.byteLength).toString('utf8'));
  } catch {
    return undefined;
  }
  const o = v as Partial<Record<keyof RestDataFrame, unknown>> | null;
  if (!o || !Array.isArray(o.attributeNames) || !Array.isArray(o.attributeTypes) || !Array.isArray(o.data)) return undefined;
  return {
    attributeNames: o.attributeNames.map(String),
    attributeTypes: o.attributeTypes.map(String),
    data: (o.data as unknown[]).map((r) => (Array.isArray(r) ? r.map((c) => (c === null || c === undefined ? '' : typeof c === 'object' ? JSON.stringify(c) : String(c as string | number | boolean))) : [])),
    errorHandling: Number(o.errorHandling ?? 0),
  };
}

/** Per S/L column name, the distinct values a frame holds: all an encoder needs to encode it. */
export function frameValues(frame: RestDataFrame): sml.v1.IEncoderKeyValues[] {
  const wanted = new Map<string, Set<string>>();
  frame.attributeTypes.forEach((type, c) => {
    if (!ENCODED.has(type)) return;
    const key = frame.attributeNames[c];
    let values = wanted.get(key);
    if (!values) wanted.set(key, (values = new Set()));
    for (const row of frame.data) for (const v of cellValues(type, row[c])) values.add(v);
  });
  return [...wanted].map(([key, values]) => ({ key, values: [...values] }));
}

/**
 * The projects service's side of encoders: assigning one to a project (the encoders service
 * lists the project, so the encoder cannot be deleted meanwhile) and reading its statistics
 * to encode frames. A whole encoder (a data-source job, once per job) is fetched again only
 * when its revision changed; an inline learn or predict fetches only the values its frame
 * holds, so its cost follows the batch, not the encoder's size (up to SML_MAX_ENCODER_VALUES).
 */
export class ProjectEncoders {
  private readonly cache = new Map<string, { revision: number; encoder: Encoder }>();

  constructor(private readonly client: BusClient, private readonly registry: ProjectRegistry) {}

  /** The encoder assigned to a project ('' when none); 400 for an unknown project. */
  /** The encoder assigned to a project ('' when none), read without loading the project. */
  async encoderOf(user: string, pid: string): Promise<string> {
    return (await this.registry.metaOf(user, pid))?.encoder ?? '';
  }

  private static caller(user: string): sml.v1.ICaller {
    return { user, root: false, requestId: '' };
  }

  async assign(user: string, pid: string, encoderName: string, detach = false): Promise<void> {
    unwrap(await this.client.request('encoders', subjects.encoders.assign, sml.v1.EncoderAssignRequest,
      { caller: ProjectEncoders.caller(user), encoderName, pid, detach }, sml.v1.Empty));
  }

  async encoder(user: string, encoderName: string): Promise<Encoder> {
    const id = `${user}\u0000${encoderName}`;
    const cached = this.cache.get(id);
    const reply = unwrap(await this.client.request('encoders', subjects.encoders.state, sml.v1.EncoderRequest,
      { caller: ProjectEncoders.caller(user), encoderName, knownRevision: cached?.revision ?? 0 }, sml.v1.EncoderStateReply));
    const revision = Number(reply.revision);
    if (cached && cached.revision === revision) return cached.encoder;
    const encoder = Encoder.deserialize(reply.state ?? new Uint8Array());
    // One encoder held: a data-source job keeps its own reference for as long as it runs.
    this.cache.clear();
    this.cache.set(id, { revision, encoder });
    return encoder;
  }

  /** The part of an encoder that encodes `frame` (its S/L values and the overall counts). */
  private async encoderFor(user: string, encoderName: string, frame: RestDataFrame): Promise<Encoder> {
    const reply = unwrap(await this.client.request('encoders', subjects.encoders.state, sml.v1.EncoderRequest,
      { caller: ProjectEncoders.caller(user), encoderName, only: frameValues(frame) }, sml.v1.EncoderStateReply));
    return Encoder.deserialize(reply.state ?? new Uint8Array());
  }

  /**
   * A learn request with its frame encoded, carried as `frame` (so the log keeps the encoded
   * rows and replay never depends on the encoder's later state). Columns (the gateway's fast
   * path) never reach here: a project with an encoder asks for the JSON (needsJson).
   */
  async encodeRequest<R extends sml.v1.ILearnRequest>(user: string, encoderName: string, req: R): Promise<R> {
    const frame = req.frameJson?.length ? parseFrame(req.frameJson) : req.frame ? dataFrameFromProto(req.frame) : undefined;
    if (!frame) return req;
    const encoded = encodeFrame(await this.encoderFor(user, encoderName, frame), frame);
    return { ...req, columns: null, frameJson: new Uint8Array(), frame: dataFrameToProto(encoded) };
  }

  /** A predict frame with its S/L columns encoded. */
  async encodeProto(user: string, encoderName: string, frame: sml.v1.IDataFrame | null | undefined): Promise<sml.v1.IDataFrame | null | undefined> {
    if (!frame) return frame;
    const rest = dataFrameFromProto(frame);
    return dataFrameToProto(encodeFrame(await this.encoderFor(user, encoderName, rest), rest));
  }
}
