import { shardOf, subjects, unwrap, type BusClient } from '@sml/bus';
import { smlError } from '@sml/core';
import { sml } from '@sml/proto';
import { Summary } from '@sml/stats';

/**
 * The shards of the projects as one replica sees them (SML_PROJECT_SHARDS, ownership.ts):
 * which shard a project is on, whether this replica serves it, and how to read a project of
 * a shard served elsewhere — through its holder over the bus, never by loading it here (a
 * copy loaded by a replica that does not serve it would not see later batches).
 */
export class Shards {
  constructor(
    readonly count: number,
    private readonly held: (shard: number) => boolean,
    private readonly client: BusClient,
  ) {}

  of(user: string, pid: string): number {
    return shardOf(user, pid, this.count);
  }

  /** Whether this replica serves the project's shard now. */
  serves(user: string, pid: string): boolean {
    return this.held(this.of(user, pid));
  }

  /** A project's whole summary, from the replica serving its shard (as explore reads it). */
  async summary(caller: sml.v1.ICaller, pid: string): Promise<Summary> {
    const reply = unwrap(await this.client.request('projects', subjects.projects('summary', this.of(caller.user!, pid)), sml.v1.SummaryRequest,
      { caller, pid, full: true }, sml.v1.SummaryReply));
    return Summary.deserialize(reply.summary ?? new Uint8Array());
  }

  /** A project's smlInfo, from the replica serving its shard. */
  async info(caller: sml.v1.ICaller, pid: string): Promise<sml.v1.ISmlInfo> {
    const reply = unwrap(await this.client.request('projects', subjects.projects('info', this.of(caller.user!, pid)), sml.v1.ProjectRequest,
      { caller, pid }, sml.v1.ProjectInfoReply));
    if (!reply.smlInfo) throw smlError('PROJECT_NOT_FOUND', { pid, user: caller.user });
    return reply.smlInfo;
  }
}
