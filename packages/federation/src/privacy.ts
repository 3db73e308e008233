/**
 * The privacy gate: a node shares its summary only when it covers enough rows
 * that no single row can be solved for, and only when enough rows changed since the last
 * summary it shared that the difference of two summaries does not expose a few rows either.
 */
import type { Summary } from '@sml/stats';

/** Rows beyond the attribute count a summary must cover (SymetryML's rule n ≥ p + 5). */
export const PRIVACY_MARGIN = 5;

export interface GateInput {
  /** Rows of the summary to send. */
  readonly rows: number;
  /** Attributes of the summary to send (p, after categorical expansion). */
  readonly attributes: number;
  /** Rows learned plus rows forgotten since the last summary sent (all rows before the first). */
  readonly changedSinceLastSend: number;
  /** Rows of each partition sub-summary the summary carries (`partition` projects). */
  readonly partitions?: Readonly<Record<string, number>>;
}

export type GateDecision = { readonly send: true; readonly reason: string } | { readonly send: false; readonly reason: string };

/**
 * Send or withhold, with the sentence for the sync or error log. A summary unchanged since
 * the last send is sent again (it shows nothing new, and a peer that joined or restarted
 * needs it); a change of 1 … p+4 rows is withheld until more rows accumulate.
 */
export function privacyGate(input: GateInput): GateDecision {
  const { rows, attributes: p, changedSinceLastSend: changed } = input;
  const needed = p + PRIVACY_MARGIN;
  if (rows < needed) return { send: false, reason: `withheld: rows=${rows} below p+5=${needed} (p=${p})` };
  // A partition is a summary of its own rows: one of 3 rows would show those rows to every peer.
  for (const [value, n] of Object.entries(input.partitions ?? {})) {
    if (n < needed) return { send: false, reason: `withheld: partition [${value}] has rows=${n} below p+5=${needed} (p=${p})` };
  }
  if (changed === 0) return { send: true, reason: `unchanged since the last send: rows=${rows}` };
  if (changed < needed) return { send: false, reason: `withheld: ${changed} rows changed since the last send, below p+5=${needed} (p=${p})` };
  return { send: true, reason: `rows=${rows}, ${changed} changed since the last send` };
}

/**
 * The gate's input for `shared` — the summary as it would be sent, `Summary.shareable()` of
 * the local part (@sml/stats strips what is never shared) — and the service's change counter.
 */
export function gateInputOf(shared: Summary, changedSinceLastSend: number): GateInput {
  const partitions = Object.fromEntries(shared.partitionValues().map((v) => [v, shared.partition(v)!.rowCount]));
  return { rows: shared.rowCount, attributes: shared.attributeNames.length, changedSinceLastSend, partitions };
}
