import { ConfigError } from '@sml/core';
import { SmlClient, type SmlResponse } from '@sml/sdk';
import type { Output } from './io';
import { onJob } from './progress';

/**
 * The signed REST client of SML_USER. Checks SML_URL here, because a URL such as
 * `localhost:8080` (no scheme) would only fail later, obscurely.
 */
export function restClient(env: NodeJS.ProcessEnv): SmlClient {
  const client = SmlClient.fromEnv(env);
  const protocol = URL.canParse(client.url) ? new URL(client.url).protocol : '';
  if (protocol !== 'http:' && protocol !== 'https:') throw new ConfigError(`SML_URL must be an http(s) URL, got '${client.url}'`);
  return client;
}

/** What a command prints for a 202: the job to follow with `sml jobs get`. */
export function jobCreated(res: SmlResponse<unknown>): string {
  const id = res.headers['sym-job-id'] ?? '';
  return `${res.body.statusString}: job ${id} (sml jobs get ${id} --wait)`;
}

/** `waitForJob` with its progress shown on stderr while the job runs. */
export async function followJob<V>(out: Output, client: SmlClient, job: SmlResponse<unknown> | string, timeoutSeconds: number): Promise<SmlResponse<V>> {
  const id = typeof job === 'string' ? job : job.headers['sym-job-id'] ?? '';
  const bar = out.progress(`job ${id}`);
  try {
    return await client.waitForJob<V>(job, { timeoutMs: timeoutSeconds * 1000, onRunning: onJob(bar) });
  } finally {
    bar.stop();
  }
}
