import { createServer, type Server } from 'node:http';
import { bodyBudget, createApp } from './app';
import { BodyThreads } from './body-threads';
import { answerClientErrors } from './http-edge';
import { ReplayCache } from './replay';
import { GatewayMetrics } from './metrics';
import { routes } from './routes';
import { SummaryRecipes } from './summary-recipes';
import { UserDirectory, registerUserEndpoints } from './users';
import { WsGateway } from './ws';
import type { GatewayRuntime } from './main';

/**
 * The gateway process: the users service (it owns the customer registry) plus the REST app.
 * Prints the root credentials once when it had to generate them.
 */
export async function startGateway(rt: GatewayRuntime): Promise<{ server: Server; onStop: () => Promise<void> }> {
  const { config, nc, client, service, log } = rt;
  const users = await UserDirectory.open(nc);
  registerUserEndpoints(service, users, client, log);
  const root = await users.bootstrapRoot(config, log);
  if (root.secretKey) {
    // Shown once on stdout (never through the logger); also in $SML_DATA_DIR/credentials.
    process.stdout.write(`\nSML root user: ${root.user}\nSML root secret: ${root.secretKey}\n\n`);
  }
  const replay = await ReplayCache.open(nc, config.SML_AUTH_PAST_WINDOW_MS + config.SML_AUTH_FUTURE_WINDOW_MS);
  const metrics = new GatewayMetrics();
  const bodies = bodyBudget(config, metrics);
  const bodyThreads = new BodyThreads({
    threads: config.SML_GATEWAY_BODY_THREADS, minBytes: config.SML_GATEWAY_BODY_THREAD_MIN_BYTES,
    onTask: (kind) => metrics.bodyThreadTasks.inc({ kind }),
  });
  const summaryRecipes = new SummaryRecipes(config.SML_GATEWAY_BATCH_SUMMARY_PROJECTS);
  const app = createApp({ config, nc, client, users, log, metrics, routes, replay, bodies, bodyThreads, summaryRecipes });
  // The request line and headers are bounded by node's parser (SML_MAX_HEADER_BYTES); what it
  // refuses is answered with the envelope too (http-edge.ts).
  const server = createServer({ maxHeaderSize: config.SML_MAX_HEADER_BYTES }, app);
  answerClientErrors(server, config);
  await new Promise<void>((resolve) => server.listen(config.SML_PORT, config.SML_HOST, () => resolve()));
  server.keepAliveTimeout = 65_000;
  const ws = new WsGateway({ config, nc, client, users, replay, log, metrics, routes, bodies });
  ws.attach(server);
  const addr = server.address();
  log.info({ port: typeof addr === 'object' && addr ? addr.port : config.SML_PORT, basePath: config.SML_BASE_PATH }, 'gateway listening');
  return {
    server,
    onStop: () => new Promise<void>((resolve) => {
      ws.close();
      server.close(() => resolve());
      server.closeAllConnections();
    }).then(() => bodyThreads.stop()),
  };
}
