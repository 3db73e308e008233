import { ConfigError } from '@sml/core';
import { SmlClient, type SmlResponse } from '@sml/sdk';

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
  return `${res.body.statusString}: job ${res.headers['sym-job-id'] ?? ''} (sml jobs get <id> --wait)`;
}
