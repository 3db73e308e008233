/**
 * The federation's logs and peer lines as the REST API shows them: getErrorLog / getSyncLog
 * entries `<ISO time> [<peer uuid|self>] <message>`, oldest first, bounded to 1000 entries and
 * 30 days; the sync log's sentences; `peersInfo` values.
 */
import type { SyncRejection } from './envelope';

export const MAX_LOG_ENTRIES = 1000;
export const MAX_LOG_AGE_MS = 30 * 86_400_000;

export interface LogEntry {
  /** Epoch ms. */
  readonly at: number;
  /** A peer's uuid, or `self`. */
  readonly peer: string;
  readonly message: string;
}

export function logLine(entry: LogEntry): string {
  return `${new Date(entry.at).toISOString()} [${entry.peer}] ${entry.message}`;
}

/** The entries (oldest first) a log keeps at `now`: none older than 30 days, the newest 1000. */
export function boundedLog(entries: readonly LogEntry[], now: number): LogEntry[] {
  const recent = entries.filter((e) => now - e.at <= MAX_LOG_AGE_MS);
  return recent.slice(Math.max(0, recent.length - MAX_LOG_ENTRIES));
}

export const sentMessage = (seq: number, rows: number): string => `sent seq=${seq} rows=${rows}`;
export const foldedMessage = (peer: string, seq: number, rows: number): string => `folded ${peer} seq=${seq} rows=${rows}`;
export const rejectedMessage = (reason: SyncRejection | 'schema', detail: string): string => `rejected (${reason}): ${detail}`;

export type PeerStatus = 'accepted' | 'excluded' | 'silent';

/** A `peersInfo` value: `pid=<p>;status=<accepted|excluded|silent>;rows=<n>;lastSync=<ISO>` (lastSync empty before the first). */
export function peerInfo(peer: { pid: string; status: PeerStatus; rows: number; lastSync?: number }): string {
  const last = peer.lastSync === undefined ? '' : new Date(peer.lastSync).toISOString();
  return `pid=${peer.pid};status=${peer.status};rows=${peer.rows};lastSync=${last}`;
}
