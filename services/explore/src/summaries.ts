import { subjects, unwrap, type BusClient } from '@sml/bus';
import { sml } from '@sml/proto';
import { Summary } from '@sml/stats';

export interface ProjectView {
  summary: Summary;
  /** The summary as serialized by projects (what the density workers are sent). */
  bytes: Uint8Array;
  meta: sml.v1.ProjectMeta;
}

/** Projects whose summary is kept between requests (the oldest is dropped first). */
const CACHED_PROJECTS = 16;

/**
 * Reads projects' statistics from the projects service (explore owns no state). The whole
 * summary is fetched, unless the one cached here is still current: projects answers
 * `notModified` when the etag it was given still names the summary's content.
 */
export class SummaryCache {
  private readonly entries = new Map<string, { etag: string; summary: Summary; bytes: Uint8Array }>();

  constructor(private readonly client: BusClient) {}

  async project(caller: sml.v1.ICaller, pid: string): Promise<ProjectView> {
    const key = `${caller.user}\u0000${pid}`;
    const cached = this.entries.get(key);
    const reply = unwrap(await this.client.request('projects', subjects.projects('summary'), sml.v1.SummaryRequest,
      { caller, pid, full: true, ifNoneMatch: cached?.etag ?? '' }, sml.v1.SummaryReply));
    const meta = sml.v1.ProjectMeta.fromObject(reply.meta ?? {});
    this.entries.delete(key);
    if (reply.notModified && cached) {
      this.entries.set(key, cached);
      return { summary: cached.summary, bytes: cached.bytes, meta };
    }
    const bytes = reply.summary ?? new Uint8Array();
    const fresh = { etag: reply.etag ?? '', summary: Summary.deserialize(bytes), bytes };
    this.entries.set(key, fresh);
    if (this.entries.size > CACHED_PROJECTS) this.entries.delete(this.entries.keys().next().value!);
    return { summary: fresh.summary, bytes, meta };
  }
}

export async function fetchInfo(client: BusClient, caller: sml.v1.ICaller, pid: string): Promise<sml.v1.ISmlInfo | null | undefined> {
  return unwrap(await client.request('projects', subjects.projects('info'), sml.v1.ProjectRequest, { caller, pid }, sml.v1.ProjectInfoReply)).smlInfo;
}
