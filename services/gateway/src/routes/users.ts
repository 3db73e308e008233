import { contracts } from '@sml/bus';
import { defineRoute } from '../route';
import { name, userParam, z } from '../schemas';

const ops = contracts.users;

export const userRoutes = [
  defineRoute({
    method: 'post', path: '/:user/users', operationId: 'addUser', tags: ['users'],
    summary: 'Create a customer (root only); answers its secret key once',
    contract: ops.add,
    params: userParam, query: z.object({ cid: name('customer') }),
    values: z.object({ secretKey: z.string().openapi({ description: 'base64 of 16 random bytes: HMAC and AES key' }) }),
    success: { status: 201, description: 'customer created' },
    toRequest: ({ caller, query }) => ({ caller, cid: String(query.cid), root: false }),
  }),
  defineRoute({
    method: 'delete', path: '/:user/users/:cid', operationId: 'deleteUser', tags: ['users'],
    summary: 'Delete a customer (root only)',
    contract: ops.delete,
    params: userParam.extend({ cid: name('customer') }),
    success: { status: 200, description: 'customer deleted' },
    toRequest: ({ caller, params }) => ({ caller, cid: params.cid }),
  }),
];
