import { readFileSync } from 'node:fs';
import { connect, type NatsConnection } from 'nats';
import { BusClient, subjects, unwrap } from '@sml/bus';
import { sml } from '@sml/proto';
import { Summary } from '@sml/stats';
import { SmlClient } from '@sml/sdk';
import { dataFile, type NatsServer, type RunningSystem } from '@sml/testkit';

export function readCsv(name: string): { names: string[]; rows: string[][] } {
  const text = readFileSync(dataFile(name), 'utf8');
  const lines = text.split(/\r\n|\r|\n/).filter((l) => l.length > 0);
  return { names: lines[0].split(','), rows: lines.slice(1).map((l) => l.split(',')) };
}

export async function customer(sys: RunningSystem, user: string): Promise<SmlClient> {
  const root = new SmlClient({ url: sys.url, user: sys.rootUser, secret: sys.rootSecret });
  const r = await root.addUser(user);
  if (r.status !== 201) throw new Error(`cannot create ${user}: ${JSON.stringify(r.body)}`);
  return new SmlClient({ url: sys.url, user, secret: String((r.body.values as { secretKey: string }).secretKey) });
}

/** Reads a project's summary the way other services do: over the bus, as explore (with its identity). */
export class SummaryReader {
  private constructor(private readonly nc: NatsConnection, private readonly client: BusClient) {}

  static async open(nats: NatsServer): Promise<SummaryReader> {
    const nc = await connect({ servers: nats.url, ...nats.connectOptions('explore') });
    return new SummaryReader(nc, new BusClient(nc, { timeoutMs: 10_000, resetMs: 200 }));
  }

  async parts(user: string, pid: string, req: Partial<sml.v1.ISummaryRequest>): Promise<sml.v1.SummaryReply> {
    // decode gives the class; the client's signature only knows the reply's interface.
    return unwrap(await this.client.request('projects', subjects.projects('summary'), sml.v1.SummaryRequest,
      { caller: { user, root: false, requestId: 'test' }, pid, ...req }, sml.v1.SummaryReply)) as sml.v1.SummaryReply;
  }

  async full(user: string, pid: string): Promise<Summary> {
    return Summary.deserialize((await this.parts(user, pid, { full: true })).summary);
  }

  async close(): Promise<void> {
    this.client.close();
    await this.nc.close();
  }
}

export function expectClose(actual: number, expected: number, rel = 1e-9): void {
  const scale = Math.max(1, Math.abs(expected));
  if (!(Math.abs(actual - expected) <= rel * scale)) throw new Error(`expected ${expected}, got ${actual} (relative tolerance ${rel})`);
}

/** A REST DataFrame with every cell as text. */
export type Frame = { attributeNames: string[]; attributeTypes: string[]; data: string[][]; errorHandling: number };
export const frame = (names: string[], types: string[], rows: (string | number)[][], errorHandling = 0): Frame =>
  ({ attributeNames: names, attributeTypes: types, data: rows.map((r) => r.map(String)), errorHandling });
