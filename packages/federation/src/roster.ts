/**
 * The roster: which node uuid holds which Ed25519 public key, signed by the
 * admin, whose public key each member got in its invitation. A sync message is accepted only
 * from a uuid the roster names and only with that uuid's key, so no member can pose as another
 * and nobody the admin did not admit can send.
 */
import { canonicalBytes } from './canonical';
import { signBytes, verifyBytes } from './keys';

export interface Roster {
  /** The federation's subject token T: a roster of one federation cannot be replayed in another. */
  readonly fed: string;
  /** Raised at every change; a node keeps the highest it verified. */
  readonly version: number;
  readonly admin: string;
  /** uuid → public key (base64). */
  readonly members: Readonly<Record<string, string>>;
}

export interface SignedRoster {
  readonly roster: Roster;
  /** The admin's Ed25519 signature of the roster's canonical JSON. */
  readonly signature: string;
}

export type RosterRejection = 'malformed' | 'federation' | 'signature' | 'stale';

/** A roster refused on receipt; `reason` says which check. */
export class RosterError extends Error {
  override readonly name = 'RosterError';
  constructor(readonly reason: RosterRejection, message: string) {
    super(message);
  }
}

/** The first roster: the admin alone, version 1. */
export function newRoster(fed: string, admin: string, adminPublicKey: string): Roster {
  return { fed, version: 1, admin, members: { [admin]: adminPublicKey } };
}

/** The roster with `uuid` (re)bound to `publicKey`, one version up. */
export function withMember(roster: Roster, uuid: string, publicKey: string): Roster {
  return { ...roster, version: roster.version + 1, members: { ...roster.members, [uuid]: publicKey } };
}

/** The roster without `uuid` (a peer that left), one version up; the admin cannot be removed. */
export function withoutMember(roster: Roster, uuid: string): Roster {
  if (uuid === roster.admin) throw new RosterError('malformed', 'the admin cannot leave its own roster');
  const members = { ...roster.members };
  delete members[uuid];
  return { ...roster, version: roster.version + 1, members };
}

export function signRoster(roster: Roster, adminPrivateKey: string): SignedRoster {
  return { roster, signature: signBytes(adminPrivateKey, canonicalBytes(roster)) };
}

function isRoster(value: unknown): value is Roster {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  return typeof r.fed === 'string' && Number.isSafeInteger(r.version) && (r.version as number) >= 1 && typeof r.admin === 'string'
    && typeof r.members === 'object' && r.members !== null && !Array.isArray(r.members)
    && Object.values(r.members).every((k) => typeof k === 'string') && typeof (r.members as Record<string, unknown>)[r.admin] === 'string';
}

/**
 * The roster of `signed` once it is well formed, of federation `fed`, signed by the admin key
 * and newer than `currentVersion` (a replayed older roster could readmit a removed peer).
 * Throws RosterError otherwise.
 */
export function verifyRoster(signed: unknown, adminPublicKey: string, fed: string, currentVersion = 0): Roster {
  const s = signed as Partial<SignedRoster> | null;
  if (typeof s !== 'object' || s === null || !isRoster(s.roster) || typeof s.signature !== 'string') throw new RosterError('malformed', 'malformed roster');
  const roster = s.roster;
  if (!verifyBytes(adminPublicKey, canonicalBytes(roster), s.signature)) throw new RosterError('signature', 'roster not signed by the federation admin');
  if (roster.fed !== fed) throw new RosterError('federation', 'roster of another federation');
  if (roster.version <= currentVersion) throw new RosterError('stale', `roster version ${roster.version} is not newer than ${currentVersion}`);
  return roster;
}
