import { projectSubject } from '@sml/bus';
import type { RouteContext } from '../route';

/**
 * The subject of a projects operation, on the shard of the request's project (path `:pid`,
 * else query `pid`); an operation without a project (list, data sources) goes to shard 0.
 */
export const projectOp = (op: string) => ({ caller, params, query }: RouteContext): string =>
  projectSubject(op, caller.user ?? '', params.pid ?? (typeof query.pid === 'string' ? query.pid : undefined));
