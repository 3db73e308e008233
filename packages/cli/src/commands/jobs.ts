import type { Command } from 'commander';
import type { JobInfo, SmlClient } from '@sml/sdk';
import { positiveSeconds } from '../args';
import { percent } from '../progress';
import { action, type CommandContext } from '../command';
import { followJob, restClient } from '../rest';
import { cell, fields, table } from '../table';

/**
 * A job's state as `jobs list` shows it. A JobInfo says only that a job is done, not how it
 * ended, so a done job's own answer is read: 200 finished, anything else (500) failed.
 */
async function jobStates(client: SmlClient, list: JobInfo[]): Promise<string[]> {
  return Promise.all(list.map(async (j) => {
    if (!j.isDone) return j.isStarted ? 'running' : 'queued';
    return (await client.getJob(j.jobId)).status === 200 ? 'done' : 'failed';
  }));
}

/** `sml jobs list|get|cancel`: the jobs of SML_USER, over REST (API.md §10). */
export function registerJobs(program: Command, ctx: CommandContext): void {
  const jobs = program.command('jobs').description('jobs of SML_USER (REST: SML_URL, SML_USER, SML_SECRET)');

  jobs
    .command('list')
    .description('list jobs')
    .option('--all', "every customer's jobs (root only)")
    .action(action(ctx, async (out, opts: { all?: boolean }) => {
      const client = restClient(ctx.io.env);
      const res = await client.listJobs({ all: opts.all === true });
      // --json prints the list as answered: no job is read for a state the table alone shows.
      const states = out.json ? [] : await jobStates(client, res.body.values?.jobinfolist ?? []);
      return out.envelope(res.body, (v) => (v.jobinfolist.length === 0 ? 'No jobs' : table(
        ['JOB', 'TYPE', 'OWNER', 'STARTED', 'PROGRESS', 'STATE', 'PROJECT'],
        v.jobinfolist.map((j, i) => [
          String(j.jobId), j.jobType, j.owner, j.startingDate > 0 ? new Date(j.startingDate).toISOString() : '',
          percent(j.current, j.maximum), states[i], cell(j.details?.p_id),
        ]),
      )));
    }));

  jobs
    .command('get')
    .description("a job's state while it runs, its result once finished")
    .argument('<id>', 'job id')
    .option('--wait', 'poll until the job has finished or failed')
    .option('--timeout <seconds>', 'with --wait: give up after this long', positiveSeconds, 600)
    .action(action(ctx, async (out, id: string, opts: { wait?: boolean; timeout: number }) => {
      const client = restClient(ctx.io.env);
      const res = opts.wait ? await followJob(out, client, id, opts.timeout) : await client.getJob(id);
      return out.envelope(res.body, (v) => {
        const { jobinfo, ...result } = v as { jobinfo?: Record<string, unknown> };
        const detail = jobinfo ? fields(jobinfo) : Object.keys(result).length > 0 ? JSON.stringify(result, null, 2) : '';
        return [res.body.statusString, detail].filter(Boolean).join('\n');
      });
    }));

  jobs
    .command('cancel')
    .description('cancel a queued or running job')
    .argument('<id>', 'job id')
    .action(action(ctx, async (out, id: string) => {
      const res = await restClient(ctx.io.env).cancelJob(id);
      return out.envelope(res.body, () => res.body.statusString);
    }));
}
