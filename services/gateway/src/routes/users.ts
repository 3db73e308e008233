import { subjects } from '@sml/bus';
import { sml } from '@sml/proto';
import { defineRoute } from '../route';
import { name, userParam, z } from '../schemas';

export const userRoutes = [
  defineRoute({
    method: 'post', path: '/:user/users', operationId: 'addUser', tags: ['users'],
    summary: 'Create a customer (root only); answers its secret key once',
    service: 'users', subject: subjects.users.add, request: sml.v1.UserAddRequest, reply: sml.v1.UserSecretReply,
    params: userParam, query: z.object({ cid: name('customer') }),
    values: z.object({ secretKey: z.string().openapi({ description: 'base64 of 16 random bytes: HMAC and AES key' }) }),
    success: { status: 201, description: 'customer created' }, errors: ['ROOT_ONLY', 'USER_EXISTS', 'INVALID_NAME'],
    toRequest: ({ caller, query }) => ({ caller, cid: String(query.cid), root: false }),
  }),
  defineRoute({
    method: 'delete', path: '/:user/users/:cid', operationId: 'deleteUser', tags: ['users'],
    summary: 'Delete a customer (root only)',
    service: 'users', subject: subjects.users.delete, request: sml.v1.UserRequest, reply: sml.v1.Empty,
    params: userParam.extend({ cid: name('customer') }),
    success: { status: 200, description: 'customer deleted' }, errors: ['ROOT_ONLY', 'USER_NOT_FOUND', 'USER_IS_ROOT'],
    toRequest: ({ caller, params }) => ({ caller, cid: params.cid }),
  }),
];
