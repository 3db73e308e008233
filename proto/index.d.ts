export * from './generated/index';
import type { Root } from 'protobufjs';
/** Reflection of the sml.v1 schemas (from generated/descriptor.json): field kinds for generic walkers. */
export declare const reflection: Root;
