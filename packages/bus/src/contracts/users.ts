import { sml } from '@sml/proto';
import { defineContracts } from './contract';

/** The users service (in the gateway process): customers and their secrets. */
export const users = defineContracts('users', {
  add: { request: sml.v1.UserAddRequest, reply: sml.v1.UserSecretReply, errors: ['ROOT_ONLY', 'USER_EXISTS', 'INVALID_NAME'] },
  delete: { request: sml.v1.UserRequest, reply: sml.v1.Empty, errors: ['ROOT_ONLY', 'USER_NOT_FOUND', 'USER_IS_ROOT'] },
  /** Internal: Root only (the CLI over the bus): a new secret for a customer. */
  rotate: { request: sml.v1.UserRequest, reply: sml.v1.UserSecretReply, errors: ['ROOT_ONLY', 'USER_NOT_FOUND'], internal: true },
  /** Internal: Root only (the CLI over the bus): every customer. */
  list: { request: sml.v1.UserListRequest, reply: sml.v1.UserListReply, errors: ['ROOT_ONLY'], internal: true },
  /** Internal: whether a secret is a customer's (the projects service, for a `local` fusion cell of another customer). */
  checkSecret: { request: sml.v1.SecretCheckRequest, reply: sml.v1.Empty, errors: ['SECRET_MISMATCH'], internal: true },
});

/** The operations of the users service. */
export type UsersOp = keyof typeof users;
