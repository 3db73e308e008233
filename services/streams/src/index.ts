export { startStreams } from './service';
export { StreamStore } from './store';
export { Streams } from './streams';
export { readRecord, recordFormat, RecordError } from './records';
export { chunks } from './source';
