export { type EncoderFrame, type EncoderOptions, type EncoderTargetType, type KeyStats, type ValueStats, Encoder, LIST_SEPARATOR, cellValues } from './encoder';
