import http from 'node:http';
import { createLogger, loadConfig, type ConfigKey, type ConfigSlice, type Logger } from '@sml/core';
import { BusClient } from './client';
import { connectBus, type NatsConnection } from './connection';
import { BusHealth } from './health';
import { BusService } from './service';
import { useProjectShards } from './subjects';

/** What runService itself reads of the configuration, for every service. */
export const RUNTIME_CONFIG = [
  'NATS_URL', 'SML_NATS_USER', 'SML_NATS_PASSWORD', 'SML_JETSTREAM_REPLICAS', 'SML_LOG_LEVEL', 'SML_REQUEST_TIMEOUT_MS',
  'SML_BREAKER_RESET_MS', 'SML_NO_RESPONDERS_RETRY_MS', 'SML_HEALTH_PORT', 'SML_PROJECT_SHARDS',
] as const satisfies readonly ConfigKey[];
export type RuntimeConfigKey = (typeof RUNTIME_CONFIG)[number];

/** A service process: its configuration is the runtime's slice and the service's own (K). */
export interface ServiceRuntime<K extends ConfigKey = ConfigKey> {
  config: ConfigSlice<K | RuntimeConfigKey>;
  log: Logger;
  nc: NatsConnection;
  service: BusService;
  client: BusClient;
}

/**
 * The services' shared entry point (every services/<name>/src/main.ts calls it with the
 * variables the service reads): the one place a service reads the environment.
 * Boots a service process: validated config (its slice only), logger, NATS connection, micro-service
 * registration, optional `/livez` + `/readyz` on SML_HEALTH_PORT (Kubernetes probes), and a
 * clean shutdown on SIGTERM/SIGINT that runs `onStop` before draining the connection.
 */
export async function runService<K extends ConfigKey>(
  name: string,
  keys: readonly K[],
  setup: (rt: ServiceRuntime<K>) => Promise<{ onStop?: () => Promise<void> } | void>,
): Promise<ServiceRuntime<K> & { stop(): Promise<void> }> {
  const config = loadConfig(process.env, [...RUNTIME_CONFIG, ...keys]);
  useProjectShards(config.SML_PROJECT_SHARDS);
  const log = createLogger(name, config.SML_LOG_LEVEL);
  const nc = await connectBus({ url: config.NATS_URL, name: `sml-${name}`, log, user: config.SML_NATS_USER, pass: config.SML_NATS_PASSWORD, jetStreamReplicas: config.SML_JETSTREAM_REPLICAS });
  const bus = BusHealth.of(nc, log);
  const service = await BusService.start(nc, { name, log });
  const client = new BusClient(nc, { timeoutMs: config.SML_REQUEST_TIMEOUT_MS, resetMs: config.SML_BREAKER_RESET_MS, noRespondersRetryMs: config.SML_NO_RESPONDERS_RETRY_MS });
  const rt = { config, log, nc, service, client };
  const hooks = (await setup(rt)) ?? {};
  // The server has every endpoint's subscription once a flush returns: only then is the
  // service ready (a request from another connection could otherwise find no responder).
  await nc.flush();

  const healthPort = config.SML_HEALTH_PORT;
  const health = healthPort > 0
    ? http.createServer((req, res) => {
      // Ready = connected to NATS and every JetStream resource the service ensured exists.
      void (async () => {
        const why = req.url === '/livez' ? undefined
          : req.url !== '/readyz' ? 'not ready'
          : !bus.connected ? 'not ready: NATS disconnected'
          : await bus.missing().then((m) => (m.length ? `not ready: missing ${m.join(', ')}` : undefined), (err) => `not ready: ${err}`);
        res.writeHead(why ? 503 : 200, { 'content-type': 'text/plain' }).end(why ?? 'ok');
      })();
    }).listen(healthPort)
    : undefined;

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      log.info('stopping');
      health?.close();
      await service.stop().catch(() => undefined);
      await hooks.onStop?.().catch((err) => log.error({ err }, 'stop hook failed'));
      client.close();
      await nc.drain().catch(() => undefined);
    })();
    return stopping;
  };
  for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => void stop().then(() => process.exit(0)));
  // Started by a parent with an IPC channel (the testkit): stop when that parent is gone,
  // instead of living on as an orphan when a test run is killed.
  if (process.send !== undefined) process.once('disconnect', () => void stop().then(() => process.exit(0)));
  log.info('ready');
  return { ...rt, stop };
}

/** A service's main: runService, and a failed start ends the process with its message (exit 1). */
export function serviceMain<K extends ConfigKey>(name: string, keys: readonly K[], setup: (rt: ServiceRuntime<K>) => Promise<{ onStop?: () => Promise<void> } | void>): void {
  void runService(name, keys, setup).catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
