import { sml } from '@sml/proto';
import { defineContracts } from './contract';

/** The encoders service (API.md §3): one replica owns them all, no shard token. */
export const encoders = defineContracts('encoders', {
  create: { request: sml.v1.EncoderCreateRequest, reply: sml.v1.Empty, errors: ['ENCODER_EXISTS', 'ENCODER_TYPE', 'INVALID_PARAMETER', 'INVALID_NAME', 'ENCODER_COUNT_LIMIT'] },
  list: { request: sml.v1.EncoderRequest, reply: sml.v1.EncoderListReply, errors: [] },
  learn: { request: sml.v1.EncoderRequest, reply: sml.v1.Empty, errors: ['ENCODER_NOT_FOUND', 'ENCODER_INPUT', 'ENCODER_LIMIT'] },
  learnds: { request: sml.v1.EncoderLearnDsRequest, reply: sml.v1.EncoderJobReply, errors: ['ENCODER_UNKNOWN', 'ENCODER_SPARK', 'DS_NULL', 'EXECUTOR_FULL', 'GENERIC_EXCEPTION'] },
  stats: { request: sml.v1.EncoderRequest, reply: sml.v1.EncoderFrameReply, errors: ['ENCODER_NOT_FOUND'] },
  keyvals: { request: sml.v1.EncoderRequest, reply: sml.v1.EncoderFrameReply, errors: ['ENCODER_NOT_FOUND', 'ENCODER_KEY_NOT_FOUND'] },
  setValues: { request: sml.v1.EncoderRequest, reply: sml.v1.Empty, errors: ['ENCODER_NOT_FOUND', 'ENCODER_INPUT', 'ENCODER_LIMIT'] },
  createKeyValues: { request: sml.v1.EncoderRequest, reply: sml.v1.Empty, errors: ['ENCODER_NOT_FOUND', 'ENCODER_INPUT', 'ENCODER_LIMIT'] },
  delete: { request: sml.v1.EncoderRequest, reply: sml.v1.Empty, errors: ['ENCODER_NOT_FOUND', 'ENCODER_IN_USE'] },
  /** Internal: The projects service: encoderAssign (and release when a project goes). */
  assign: { request: sml.v1.EncoderAssignRequest, reply: sml.v1.Empty, errors: ['ENCODER_NOT_FOUND', 'ENCODER_IN_USE'], internal: true },
  /** Internal: The projects service: the statistics to encode a project's rows with. */
  state: { request: sml.v1.EncoderRequest, reply: sml.v1.EncoderStateReply, errors: ['ENCODER_NOT_FOUND'], internal: true },
  /** Internal: Root only: the users service, when a customer is deleted. */
  purgeCustomer: { request: sml.v1.UserRequest, reply: sml.v1.Empty, errors: ['ROOT_ONLY'], internal: true },
});

/** The operations of the encoders service. */
export type EncodersOp = keyof typeof encoders;
