/**
 * What a node does with a summary once it is sealed (send) or opened (receive): the schema check of a peer's summary and the contract-failure actions
 * `…_block` / `…_allow`, one decision each, so the service only carries them out.
 */
import type { AttributeSchema } from './contract/validate';
import type { ContractResult } from './contract/evaluate';

export type ContractAction = 'block' | 'allow';
const ACTION_PREFIX = { snd: 'fed_psr_contract_snd_fail_action_', rcv: 'fed_psr_contract_rcv_fail_action_' } as const;

/**
 * The action a create/join key holds (`fed_psr_contract_<side>_fail_action_block|allow`;
 * absent: block), or null for any other value (the service answers 400 naming the key).
 */
export function contractActionOf(side: 'snd' | 'rcv', value: string | undefined): ContractAction | null {
  if (value === undefined) return 'block';
  if (value === `${ACTION_PREFIX[side]}block`) return 'block';
  if (value === `${ACTION_PREFIX[side]}allow`) return 'allow';
  return null;
}

/**
 * Attributes both summaries hold with different types (C against B): a peer's summary that has
 * any is refused, since merging by name would add a continuous column's sums to a binary's.
 * Attributes only one side holds are fine (the view is their union).
 */
export function schemaConflicts(local: AttributeSchema, peer: AttributeSchema): string[] {
  const binary = (t: 'C' | 'B' | 'T') => t !== 'C';
  return [...peer].filter(([name, type]) => {
    const mine = local.get(name);
    return mine !== undefined && binary(mine) !== binary(type);
  }).map(([name]) => name);
}

export interface ContractDecision {
  /** snd: send; rcv: fold it as the peer's accepted summary (false: exclude the peer, its earlier summary dropped too). */
  readonly proceed: boolean;
  /** Counts in `sndContractError` / `rcvContractError[peer]`. */
  readonly contractError: boolean;
  /** For the error log when the contract failed. */
  readonly log?: string;
}

const WORDS = {
  snd: { block: 'send blocked by the contract', allow: 'sent despite the contract (allow)' },
  rcv: { block: 'peer excluded by the contract', allow: 'folded despite the contract (allow)' },
} as const;

/**
 * The contract's verdict on a summary (`result` null: no contract), own before sending (snd)
 * or a peer's after opening it (rcv). A failure under `block` stops it — the send is withheld
 * and peers keep the last accepted summary; a received one excludes its peer until a later
 * summary passes —, under `allow` it goes on; both count and are logged.
 */
export function contractDecision(side: 'snd' | 'rcv', result: ContractResult | null, action: ContractAction): ContractDecision {
  if (result === null || result.pass) return { proceed: true, contractError: false };
  return { proceed: action === 'allow', contractError: true, log: `${WORDS[side][action]}: ${result.failures.join('; ')}` };
}
