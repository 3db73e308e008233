import { subjects, unwrap, type BusClient } from '@sml/bus';
import { sml } from '@sml/proto';
import { Summary } from '@sml/stats';

export interface ProjectView {
  summary: Summary;
  /** The summary as serialized by projects (what the density workers are sent). */
  bytes: Uint8Array;
  meta: sml.v1.ProjectMeta;
}

/**
 * Reads a project's statistics from the projects service (explore owns no state). The
 * whole summary is fetched: its size depends on the attribute count only, and one explore
 * request usually needs several of its parts.
 */
export async function fetchProject(client: BusClient, caller: sml.v1.ICaller, pid: string): Promise<ProjectView> {
  const reply = unwrap(await client.request('projects', subjects.projects('summary'), sml.v1.SummaryRequest, { caller, pid, full: true }, sml.v1.SummaryReply));
  const bytes = reply.summary ?? new Uint8Array();
  return { summary: Summary.deserialize(bytes), bytes, meta: sml.v1.ProjectMeta.fromObject(reply.meta ?? {}) };
}

export async function fetchInfo(client: BusClient, caller: sml.v1.ICaller, pid: string): Promise<sml.v1.ISmlInfo | null | undefined> {
  return unwrap(await client.request('projects', subjects.projects('info'), sml.v1.ProjectRequest, { caller, pid }, sml.v1.ProjectInfoReply)).smlInfo;
}
