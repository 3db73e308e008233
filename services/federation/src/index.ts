export { Backbones } from './backbone';
export { backboneNames, federationInfo, peersInfoOf, startFederation } from './federation';
export { backboneOf, checkSchedule, createOptionsOf, joinOptionsOf, refuseUnsupported } from './keymap';
export { FedStore, type FedRecord } from './store';
