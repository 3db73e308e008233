import http from 'node:http';
import { createLogger, loadConfig, type Config, type Logger } from '@sml/core';
import { BusClient } from './client';
import { connectBus, type NatsConnection } from './connection';
import { BusHealth } from './health';
import { BusService } from './service';

export interface ServiceRuntime {
  config: Config;
  log: Logger;
  nc: NatsConnection;
  service: BusService;
  client: BusClient;
}

/**
 * Boots a service process: validated config, logger, NATS connection, micro-service
 * registration, optional `/livez` + `/readyz` on SML_HEALTH_PORT (Kubernetes probes), and a
 * clean shutdown on SIGTERM/SIGINT that runs `onStop` before draining the connection.
 */
export async function runService(
  name: string,
  setup: (rt: ServiceRuntime) => Promise<{ onStop?: () => Promise<void> } | void>,
): Promise<ServiceRuntime & { stop(): Promise<void> }> {
  const config = loadConfig();
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
