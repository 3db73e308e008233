/**
 * Extreme value theory (STATS.md §5): the `evt` algorithm and the `EvtWrapper` that the
 * evtwrapper endpoint (API.md §7) puts around any model's predictions. Register with
 * `{ ...ALGORITHMS, evt }` (models/registry.ts). Decisions: README.md.
 */
export { evt } from './evt';
export { extremeQuantile, type GpdFit, grimshaw, momentsFit, tailProbability } from './gpd';
export { EVT_DEFAULTS, type EvtParams, evtParams } from './params';
export { DEFAULT_TDIGEST_COMPRESSION, TDigest, type TDigestState } from './tdigest';
export { DEFAULT_SCORE_KEYS, EVT_KEYS, type EvtResult, type EvtState, EvtWrapper } from './wrapper';
