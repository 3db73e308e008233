/**
 * The host of one shared system (`node dist/shared-host.js <profile> <state file> <options>`, started by
 * `sharedSystem()`): starts the profile's system, records it in the state file, prints the same
 * JSON as one stdout line, and stops the system on SIGTERM (the system tier's globalTeardown)
 * or when the jest worker that started it is gone (its IPC channel closes).
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Profile, SharedSystemState } from './shared-system';
import { startSystem, type SystemOptions } from './system';

async function main(): Promise<void> {
  const [profile, file, options] = process.argv.slice(2) as [Profile, string, string];
  const sys = await startSystem(JSON.parse(options) as SystemOptions);
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= sys.stop().finally(() => {
      // Only its own record: a host replaced after its system broke finds its successor's there.
      try {
        if ((JSON.parse(readFileSync(file, 'utf8')) as SharedSystemState).pid === process.pid) rmSync(file, { force: true });
      } catch {
        // no record (never written, or already removed)
      }
      process.exit(0);
    });
  };
  process.on('SIGTERM', stop).on('SIGINT', stop).on('disconnect', stop);
  const state: SharedSystemState = {
    profile, pid: process.pid, url: sys.url, basePath: sys.basePath, rootUser: sys.rootUser, rootSecret: sys.rootSecret, dataDir: sys.dataDir,
    nats: { url: sys.nats.url, port: sys.nats.port, storeDir: sys.nats.storeDir, credentials: sys.nats.credentials },
  };
  writeFileSync(file, JSON.stringify(state));
  process.stdout.write(`${JSON.stringify(state)}\n`);
  // A worker that died before the system was ready: nobody will use or stop it.
  if (!process.connected) stop();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
