import { startNatsServer, type NatsServer } from './nats';
import { startSystem, type RunningSystem } from './system';

export interface FederationLabOptions {
  /** Service processes of each instance; default: gateway (users), jobs, projects, explore, federation. */
  services?: string[];
  /** Extra environment of every instance (after the lab's own settings). */
  env?: Record<string, string>;
}

export interface FederationLab {
  /** The shared backbone: a `nats-server -js` of its own, no bus authentication, its own store. */
  backbone: NatsServer;
  /** The SML instances, each with its own internal nats-server, data dir, gateway port and root user. */
  instances: RunningSystem[];
  stop(): Promise<void>;
}

/** What every lab instance runs with: short federation and fusion intervals, loopback cells and backbones allowed. */
export const FEDERATION_LAB_ENV: Readonly<Record<string, string>> = {
  SML_FED_MIN_INTERVAL_MS: '500',
  SML_FUSION_MIN_REFRESH_MS: '200',
  // Every instance listens on 127.0.0.1: cells and backbones are loopback addresses here.
  SML_SOURCES_ALLOW_PRIVATE: 'true',
};

/**
 * `n` SML instances on one machine and a backbone nats-server between them.
 * Each instance is a `startSystem` of its own, so nothing but the backbone is shared; they
 * start one after the other (the machine's cores are few). `stop` stops everything.
 */
export async function startFederationLab(n: number, opts: FederationLabOptions = {}): Promise<FederationLab> {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`a federation lab has at least one instance, got ${n}`);
  const backbone = await startNatsServer();
  const instances: RunningSystem[] = [];
  const stop = async () => {
    await Promise.all(instances.map((i) => i.stop()));
    await backbone.stop();
  };
  try {
    for (let i = 0; i < n; i++) {
      instances.push(await startSystem({
        services: opts.services ?? ['users', 'jobs', 'projects', 'explore', 'federation'],
        env: { ...FEDERATION_LAB_ENV, ...opts.env },
      }));
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { backbone, instances, stop };
}
