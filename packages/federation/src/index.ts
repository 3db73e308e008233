/**
 * @sml/federation — the federation's rules that need no socket:
 * schedule, contracts, privacy gate, keys, roster, sealed sync messages, invitations.
 * services/federation does the I/O around them.
 */
export { type Schedule, type ScheduleUnit, type Tick, DEFAULT_MIN_INTERVAL_MS, MAX_SCHEDULE_COUNT, MAX_TICK_DELAY_MS, ScheduleError, nextTick, parseSchedule } from './schedule';
export { type GateDecision, type GateInput, PRIVACY_MARGIN, gateInputOf, privacyGate } from './privacy';
export { canonicalBytes, canonicalJson } from './canonical';
export {
  type FederationKeys, type NodeKeyPair, FederationKeyError, SECRET_KEY_BYTES, base32, deriveFederationKeys, hkdfSha256, newNodeKey, newSecretKey, nodeKeyFromSeed,
  signBytes, verifyBytes,
} from './keys';
export { type Roster, type RosterRejection, type SignedRoster, RosterError, newRoster, signRoster, verifyRoster, withMember, withoutMember } from './roster';
export {
  type Checked, type GroupPurpose, type ReceiveContext, type SealInput, type SyncHeader, type SyncMessage, type SyncRejection, DEFAULT_CLOCK_SKEW_MS,
  DEFAULT_MAX_SUMMARY_BYTES, SYNC_VERSION, checkSyncHeader, openGroup, openSync, openSyncBlob, sealGroup, sealSync,
} from './envelope';
export {
  type RedeemDecision, type RedeemRefusal, type TokenRecord, DEFAULT_TOKEN_HOURS, INVITATION_PREFIX, InvitationError, MAX_TOKEN_HOURS, PBKDF2_ITERATIONS,
  decryptInvitation, encryptInvitation, isInvitationToken, newInvitationToken, newTokenRecord, redeemToken, tokenDigest, tokenLifetimeMs,
} from './invitation';
export { type ArgumentType, type ContractFunction, CONTRACT_FUNCTIONS, canonicalFunction } from './contract/functions';
export { type Call, type Comparison, type ContractLine, type ContractProblem, type Expr, type ParsedContract, callsOf, contractError, parseContract } from './contract/syntax';
export { type AttributeSchema, schemaOf, schemaProblems, validateContract } from './contract/validate';
export { type ContractResult, type LineResult, evaluateContract } from './contract/evaluate';
export { type ContractAction, type ContractDecision, contractActionOf, contractDecision, schemaConflicts } from './actions';
export {
  type LogEntry, type PeerStatus, MAX_LOG_AGE_MS, MAX_LOG_ENTRIES, boundedLog, foldedMessage, logLine, peerInfo, rejectedMessage, sentMessage,
} from './logs';
