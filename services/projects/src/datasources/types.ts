import { smlError } from '@sml/core';
import type { sml } from '@sml/proto';

/*
 * The data-source domain's own types. Protobuf messages stay at the edges — a request as
 * decoded, the KV value (`DsInfo`), a project's `dsLog` in its metadata, a reply — and are
 * converted here once, so the domain never reads an optional or nullable field again.
 */

/** A registered data source: its type (`localfile`, `s3`, `redshift`, `http`, `kafka`, `nats`), name, settings and column types. */
export interface DsInfo {
  type: string;
  name: string;
  /** The type's settings (path, bucket, credentials…): secrets included, `redacted` before answering. */
  info: Record<string, string>;
  /** One attribute type per column (C, B, T, S, L, X), or none: guessed. */
  extra: string[];
}

/** The columns a job reads as attributes (the request's frame), and whether a bad row is skipped or fails it. */
export interface DsColumns {
  /** Empty: every column, typed by the DsInfo's `extra` or guessed. */
  attributeNames: string[];
  attributeTypes: string[];
  /** errorHandling = 1: a malformed row is skipped and counted instead of failing the job. */
  lenient: boolean;
}

/** A learn / forget job as it runs: its counters, kept in the project's dsLog at the end. */
export interface DsRun {
  jobId: number;
  ds: string;
  op: 'learn' | 'forget';
  rowsRead: number;
  rowsLearned: number;
  rowsSkipped: number;
  bytesRead: number;
  started: number;
}

/** A finished job as the project's dsLog keeps it. */
export interface DsLogEntry {
  op: string;
  state: string;
  rowsLearned: number;
  rowsSkipped: number;
  bytesRead: number;
}

export function dsInfoFromProto(d: sml.v1.IDsInfo): DsInfo {
  return { type: d.type ?? '', name: d.name ?? '', info: { ...(d.info ?? {}) }, extra: (d.extra ?? []).map(String) };
}

/** The DsInfo a request carries (DS_NULL when it carries none). */
export function requestedDsInfo(req: sml.v1.IDsInfoRequest): DsInfo {
  if (req.isNull || !req.dsInfo) throw smlError('DS_NULL');
  return dsInfoFromProto(req.dsInfo);
}

export function dsColumnsFromProto(frame: sml.v1.IDataFrame): DsColumns {
  return { attributeNames: frame.attributeNames ?? [], attributeTypes: frame.attributeTypes ?? [], lenient: Number(frame.errorHandling ?? 0) === 1 };
}

export function dsLogEntryFromProto(e: sml.v1.IDsLogEntry): DsLogEntry {
  return { op: e.op ?? '', state: e.state ?? '', rowsLearned: e.rowsLearned ?? 0, rowsSkipped: e.rowsSkipped ?? 0, bytesRead: e.bytesRead ?? 0 };
}
