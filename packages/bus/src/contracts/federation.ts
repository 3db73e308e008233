import { sml } from '@sml/proto';
import { defineContracts } from './contract';

const REFUSED_KEYS = ['FED_AWS', 'FED_SMPC', 'FED_HIPAA', 'FED_MISSING_KEY', 'FED_INVALID_KEY'] as const;

/** The federation service (services/federation): /fedml. */
export const federation = defineContracts('federation', {
  create: { request: sml.v1.FedRequest, reply: sml.v1.Empty, errors: ['PROJECT_EXISTS', 'INVALID_NAME', 'FED_BACKBONE_UNREACHABLE', 'FED_INVALID_SCHEDULE', ...REFUSED_KEYS] },
  info: { request: sml.v1.FedRequest, reply: sml.v1.FedReply, errors: ['PROJECT_NOT_FOUND', 'FED_NOT_FEDERATED', 'FED_NO_FEDERATION'] },
  getInvitation: { request: sml.v1.FedRequest, reply: sml.v1.FedReply, errors: ['PROJECT_NOT_FOUND', 'FED_NOT_FEDERATED', 'FED_NO_FEDERATION', 'FED_ADMIN_ONLY', 'FED_MISSING_KEY', 'FED_INVALID_KEY'] },
  createJoin: {
    request: sml.v1.FedRequest, reply: sml.v1.Empty,
    errors: ['PROJECT_EXISTS', 'INVALID_NAME', 'FED_INVALID_INVITATION', 'FED_TOKEN_REFUSED', 'FED_ADMIN_NO_ANSWER', 'FED_BACKBONE_UNREACHABLE', ...REFUSED_KEYS],
  },
  awsinfo: { request: sml.v1.FedRequest, reply: sml.v1.Empty, errors: ['FED_AWS'] },
});

/** The operations of the federation service. */
export type FederationOp = keyof typeof federation;
