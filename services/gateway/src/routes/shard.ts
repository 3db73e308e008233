import { projectSubject, subjectOf, type Contract, type ProjectsOp } from '@sml/bus';
import type { RouteContext } from '../route';

/**
 * The subject of a route's operation: a projects one on the shard of the request's project
 * (path `:pid`, else query `pid`), or shard 0 for one without a project (list, data sources).
 */
export function routeSubject(contract: Contract, { caller, params, query }: RouteContext): string {
  if (contract.service !== 'projects') return subjectOf(contract);
  // A projects contract is declared in contracts/projects.ts: its op is a ProjectsOp.
  return projectSubject(contract.op as ProjectsOp, caller.user ?? '', params.pid ?? (typeof query.pid === 'string' ? query.pid : undefined));
}
