/**
 * A throw-away PostgreSQL server for tests: a fresh cluster (initdb) in a temp directory,
 * trust authentication, listening on a free loopback port only. stop() kills it and
 * deletes the directory.
 */
import { execFile, spawnSync } from 'node:child_process';
import { accessSync, constants, readdirSync } from 'node:fs';
import { appendFile, chown, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './ports';

const run = promisify(execFile);

export interface Postgres {
  /** `postgresql://postgres@127.0.0.1:<port>/postgres` */
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** Only the server's own settings; the port is given at start so a port clash can retry. */
const SERVER_CONF = `
listen_addresses = '127.0.0.1'
unix_socket_directories = ''
fsync = off
synchronous_commit = off
full_page_writes = off
`;

const START_ATTEMPTS = 3;

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** PATH first, then Debian's versioned directories, newest version first. */
function findBinary(name: string): string {
  const debian = (() => {
    try {
      return readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a)).map((v) => `/usr/lib/postgresql/${v}/bin`);
    } catch {
      return [];
    }
  })();
  const dirs = [...(process.env.PATH ?? '').split(delimiter).filter(Boolean), '/usr/local/bin', ...debian];
  const found = dirs.map((d) => join(d, name)).find(isExecutable);
  if (!found) throw new Error(`${name} not found on PATH or under /usr/lib/postgresql/*/bin (apt-get install postgresql)`);
  return found;
}

/**
 * PostgreSQL refuses to run as root, so as root every command runs as the `postgres`
 * system user (Debian's package creates it) and the temp directory is handed to it.
 */
async function runAs(): Promise<{ wrap: (argv: string[]) => string[]; owner?: { uid: number; gid: number } }> {
  if (process.getuid?.() !== 0) return { wrap: (argv) => argv };
  try {
    const uid = Number((await run('id', ['-u', 'postgres'])).stdout);
    const gid = Number((await run('id', ['-g', 'postgres'])).stdout);
    return { wrap: (argv) => ['runuser', '-u', 'postgres', '--', ...argv], owner: { uid, gid } };
  } catch (cause) {
    throw new Error('running as root needs a "postgres" system user to run PostgreSQL as', { cause });
  }
}

export async function startPostgres(): Promise<Postgres> {
  const initdb = findBinary('initdb');
  const pgCtl = findBinary('pg_ctl');
  const { wrap, owner } = await runAs();
  const dir = await mkdtemp(join(tmpdir(), 'sml-pg-'));
  if (owner) await chown(dir, owner.uid, owner.gid);
  const data = join(dir, 'data');
  const log = join(dir, 'server.log');
  // cwd = dir: as `postgres`, the caller's working directory may not be readable.
  const exec = (argv: string[]) => {
    const [file, ...args] = wrap(argv);
    return run(file, args, { cwd: dir });
  };
  const stopArgv = [pgCtl, '-D', data, '-m', 'immediate', 'stop'];
  const stopNow = () => {
    const [file, ...args] = wrap(stopArgv);
    spawnSync(file, args, { cwd: dir, stdio: 'ignore' });
  };

  try {
    await exec([initdb, '-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C', '--no-sync']);
    await appendFile(join(data, 'postgresql.conf'), SERVER_CONF);
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      try {
        await exec([pgCtl, '-D', data, '-l', log, '-o', `-p ${port}`, '-w', '-t', '30', 'start']);
      } catch (error) {
        const serverLog = await readFile(log, 'utf8').catch(() => '');
        if (attempt < START_ATTEMPTS && /could not bind|already in use/i.test(serverLog)) continue;
        throw new Error(`PostgreSQL did not start:\n${serverLog.slice(-2000)}`, { cause: error });
      }
      // A test process that dies without stop() must not leave a postmaster behind.
      process.once('exit', stopNow);
      let stopped = false;
      return {
        url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
        port,
        async stop() {
          if (stopped) return;
          stopped = true;
          process.removeListener('exit', stopNow);
          // Fails only when the server is already gone, which is the state stop() wants.
          await exec(stopArgv).catch(() => undefined);
          await rm(dir, { recursive: true, force: true });
        },
      };
    }
  } catch (error) {
    stopNow();
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}
