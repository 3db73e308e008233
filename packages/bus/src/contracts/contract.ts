import type { ErrorCode } from '@sml/core';
import { subjects } from '../subjects';
import type { MessageType, WithCaller, WithStatus } from '../types';
import type { ProjectsOp } from './projects';

/** The services that answer on the bus, as in their subjects (`sml.<service>.<op>`). */
export type ServiceName = 'projects' | 'explore' | 'encoders' | 'streams' | 'jobs' | 'users' | 'federation';

/**
 * One bus operation, declared once (contracts/<service>.ts): the gateway route that calls it
 * and the service that answers it both take it, so neither repeats its subject or messages.
 * `errors` are the catalogue codes its handler answers besides the common ones; a route adds
 * the codes of its own edge (decryption, body bounds). `internal`: no REST route calls it.
 */
export interface Contract<Req extends WithCaller = WithCaller, Rep extends WithStatus = WithStatus, Op extends string = string> {
  readonly service: ServiceName;
  readonly op: Op;
  readonly request: MessageType<Req>;
  readonly reply: MessageType<Rep>;
  readonly errors: readonly ErrorCode[];
  readonly internal?: boolean;
}

/** What a contract file declares per operation: the rest (service, op) comes from where it is declared. */
interface Spec {
  readonly request: unknown;
  readonly reply: unknown;
  readonly errors: readonly ErrorCode[];
  readonly internal?: boolean;
}

type Message<T> = T extends MessageType<infer M> ? M : never;

export type Contracts<D extends Record<string, Spec>> = {
  readonly [K in keyof D & string]: Contract<Message<D[K]['request']> & WithCaller, Message<D[K]['reply']> & WithStatus, K>;
};

/** The contracts of one service, keyed by operation. */
export function defineContracts<const D extends Record<string, Spec>>(service: ServiceName, specs: D): Contracts<D> {
  const out: Record<string, Contract> = {};
  for (const [op, spec] of Object.entries(specs)) {
    out[op] = { service, op, ...(spec as Omit<Contract, 'service' | 'op'>) };
  }
  return out as Contracts<D>;
}

/**
 * The subject of an operation: `sml.<service>.<op>`, a projects one on `shard` (registered on
 * shard 0, BusServiceOptions.shard moves it; callers use projectSubject for a project's shard).
 */
export function subjectOf(contract: Contract, shard = 0): string {
  // A projects contract is declared in contracts/projects.ts: its op is a ProjectsOp.
  return contract.service === 'projects' ? subjects.projects(contract.op as ProjectsOp, shard) : `sml.${contract.service}.${contract.op}`;
}
