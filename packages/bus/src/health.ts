import { ErrorCode as NatsErrorCode, Events, type NatsConnection } from 'nats';
import { SmlError, smlError, type Logger } from '@sml/core';

interface Resource {
  /** How /readyz names it: `kv sml_users`, `stream SML_JOB_IDS`, `consumer SML_JOB_EVENTS/jobs-fold` … */
  label: string;
  /** Creates the resource when it is missing (idempotent). */
  ensure(): Promise<unknown>;
  /** Resolves when it exists; rejects otherwise. */
  exists(): Promise<unknown>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * What one process depends on in NATS: the connection, and every JetStream resource
 * (stream, KV bucket, object store, durable consumer) it ensured through the helpers of
 * `jetstream.ts`. After a reconnect each of them is ensured again, in the order they were
 * first ensured (a nats-server restart loses memory-storage streams, a lost store loses
 * them all), retrying until all exist; `/readyz` asks `missing()`.
 */
export class BusHealth {
  private static readonly all = new WeakMap<NatsConnection, BusHealth>();
  private up = true;
  private readonly resources = new Map<string, Resource>();
  private readonly ensuredHooks = new Set<() => void>();
  private ensuring?: Promise<void>;

  private constructor(private readonly nc: NatsConnection, private log?: Logger) {
    void (async () => {
      for await (const s of nc.status()) {
        if (s.type === Events.Disconnect) this.up = false;
        else if (s.type === Events.Reconnect) {
          this.up = true;
          if (this.resources.size > 0) {
            this.log?.info({ resources: this.labels() }, 'reconnected to NATS; ensuring JetStream resources again');
            void this.ensureAll();
          }
        }
      }
    })();
  }

  /** The health of `nc` (one per connection); `log` is kept for the re-ensure messages. */
  static of(nc: NatsConnection, log?: Logger): BusHealth {
    let h = BusHealth.all.get(nc);
    if (!h) {
      h = new BusHealth(nc, log);
      BusHealth.all.set(nc, h);
    }
    if (log) h.log = log;
    return h;
  }

  /** Connected to a server now (false from a `disconnect` until the `reconnect`). */
  get connected(): boolean {
    return this.up && !this.nc.isClosed();
  }

  /** Throws the 503 to answer while NATS is unreachable. */
  assertConnected(): void {
    if (!this.connected) throw smlError('NATS_UNAVAILABLE', { cause: 'connection lost' });
  }

  labels(): string[] {
    return [...this.resources.values()].map((r) => r.label);
  }

  /**
   * Calls `hook` each time the resources were ensured again (after a reconnect, or after one
   * was found missing): what lived on the server only (a KV watch's ephemeral consumer) is
   * gone and must be started again. Returns the unsubscribe.
   */
  onEnsured(hook: () => void): () => void {
    this.ensuredHooks.add(hook);
    return () => this.ensuredHooks.delete(hook);
  }

  /** Registers a resource under `key` (re-registering replaces it) and ensures it now. */
  async track<T>(key: string, label: string, ensure: () => Promise<T>, exists: () => Promise<unknown>): Promise<T> {
    this.resources.set(key, { label, ensure, exists });
    return ensure();
  }

  /**
   * Ensures every registered resource again, in registration order, until all succeed or
   * the connection is closed (waiting while it is disconnected). One run at a time: a caller
   * during a run gets that run.
   */
  ensureAll(): Promise<void> {
    this.ensuring ??= (async () => {
      let delay = 250;
      let warned = false;
      try {
        while (!this.nc.isClosed()) {
          if (!this.connected) {
            await sleep(250);
            continue;
          }
          const failed: string[] = [];
          let cause: unknown;
          for (const r of this.resources.values()) {
            try {
              await r.ensure();
            } catch (err) {
              failed.push(r.label);
              cause = err;
            }
          }
          if (failed.length === 0) {
            this.log?.info({ resources: this.labels() }, 'JetStream resources ensured');
            for (const hook of this.ensuredHooks) hook();
            return;
          }
          if (!warned) this.log?.warn({ failed, err: cause }, 'could not ensure JetStream resources yet; retrying');
          warned = true;
          await sleep(delay);
          delay = Math.min(delay * 2, 2000);
        }
      } finally {
        this.ensuring = undefined;
      }
    })();
    return this.ensuring;
  }

  /**
   * Labels of the registered resources that do not exist now (all of them while
   * disconnected). Finding one missing starts ensuring them again in the background.
   */
  async missing(): Promise<string[]> {
    if (!this.connected) return this.labels();
    const checks = await Promise.all([...this.resources.values()].map(async (r) => {
      try {
        await r.exists();
        return undefined;
      } catch {
        return r.label;
      }
    }));
    const missing = checks.filter((l): l is string => l !== undefined);
    if (missing.length > 0) void this.ensureAll();
    return missing;
  }

  /**
   * The 503 to answer for a failure that is NATS being unreachable or a JetStream resource
   * being missing (then ensuring them again starts in the background); undefined for
   * anything else, which stays what it is.
   */
  failure(err: unknown): SmlError | undefined {
    const cause = natsCause(err);
    if (cause === undefined) return undefined;
    if (cause.missing) void this.ensureAll();
    return smlError('NATS_UNAVAILABLE', { cause: cause.text }, err);
  }
}

/** Why a NATS error means "NATS or JetStream unavailable", or undefined when it does not. */
export function natsCause(err: unknown): { text: string; missing: boolean } | undefined {
  if (err instanceof SmlError || !(err instanceof Error) || err.name !== 'NatsError') return undefined;
  const code = (err as { code?: string }).code;
  const message = err.message.toLowerCase();
  if (code === NatsErrorCode.Disconnect || code === NatsErrorCode.ConnectionClosed || code === NatsErrorCode.ConnectionRefused
    || code === NatsErrorCode.ConnectionDraining) return { text: 'connection lost', missing: false };
  if (code === NatsErrorCode.Timeout) return { text: 'request timed out', missing: false };
  if (message.includes('jetstream not enabled')) return { text: 'JetStream not enabled', missing: false };
  if (code === NatsErrorCode.NoResponders || message.includes('no responders')) return { text: 'no JetStream responder: stream missing or JetStream not ready', missing: true };
  for (const what of ['stream', 'bucket', 'consumer']) {
    if (message.includes(`${what} not found`)) return { text: `JetStream ${what} not found`, missing: true };
  }
  return undefined;
}
