import { readFileSync } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import fc from 'fast-check';
import { SmlClient } from '@sml/sdk';
import { startSystem, type RunningSystem } from '@sml/testkit';
import { wsMessage, type WsSigner } from '../../services/gateway/test/ws-client';
import { RawWs, clientFrame, frameHeader } from '../../services/gateway/test/ws-raw';

/**
 * The adversarial suite's WebSocket half (issue 29): generated sessions of raw WebSocket
 * traffic thrown at a running system, one connection each: messages signed, forged, stale,
 * without or with broken headers, of every size around SML_WS_UNAUTHENTICATED_MAX_BYTES, text
 * or binary, cut into continuation frames with pings between them; frame headers announcing up
 * to 2⁶⁴ − 1 bytes and then little or nothing; reserved bits, unknown opcodes, unmasked frames,
 * bad control frames. A model of the protocol says what each session must get:
 * - every complete message before the connection closes is answered, in order, with an
 *   envelope, and no envelope is a 5xx but the contract's;
 * - the connection is closed only for a reason the session gave (an unauthenticated message
 *   over the bound or a message over SML_BODY_LIMIT: 1009 after the replies owed; a protocol
 *   error: 1002/1007; a close frame), never left hanging;
 * and over the whole run: no process exits, the body budget drains back to 0 (no
 * reservation leaks), the gateway's memory stays under the suite's bound throughout.
 * Seeded (FC_SEED, FC_RUNS) like the rest of the suite.
 */
const SEED = Number(process.env.FC_SEED ?? 20261129);
const RUNS = Number(process.env.FC_RUNS_WS ?? 500);
const MEMORY_BOUND_MB = 400;
const MiB = 1024 * 1024;
const UNAUTHENTICATED_MAX = 64 * 1024;
const BODY_LIMIT = 256 * MiB;
const MESSAGE_LIMIT = BODY_LIMIT + 64 * 1024;
/** A 5xx the contract itself answers with (test/adversarial/adversarial.e2e.test.ts). */
const CONTRACT_5XX = [/^Generic Exception \[/, /^Job was cancelled$/, /^Job queue of service \[\w+\] is full/];

type Op = 'learn' | 'forget' | 'predict';
const keysOf = (op: Op) => (op === 'predict' ? ['p', 'm'] : ['p']);

type HeaderKind = 'alice' | 'bob' | 'forged' | 'stale' | 'none' | 'zero' | 'prefix' | 'header' | 'keys' | 'raw';
interface MessageAction {
  type: 'message';
  kind: HeaderKind;
  body: Body;
  raw: Uint8Array;
  prefix: string;
  badHeader: string;
  binary: boolean;
  /** Where the message is cut into frames (fractions of its length) and whether a ping goes between two frames. */
  cuts: number[];
  pings: boolean;
}
interface HugeAction { type: 'huge'; length: bigint; sent: number; binary: boolean }
interface ControlAction { type: 'control'; opcode: 0x9 | 0xa; payload: Uint8Array }
interface BadAction { type: 'bad'; what: 'rsv' | 'opcode' | 'continuation' | 'unmasked' | 'longPing' | 'fragmentedPing' | 'newMessageInside' | 'badClose'; n: number }
interface CloseAction { type: 'close'; code: number }
type Action = MessageAction | HugeAction | ControlAction | BadAction | CloseAction;

const frameJson = (rows: number, seed: number) => JSON.stringify({
  attributeNames: ['x', 'y'], attributeTypes: ['C', 'C'],
  data: Array.from({ length: rows }, (_, i) => [String((seed + i) % 11), String(((seed + i) * 7) % 5)]),
});
/** A body: a frame of `rows` rows (kept as its size, so that a counterexample reads short), or a text. */
type Body = { rows: number; seed: number } | { text: string };
const body: fc.Arbitrary<Body> = fc.oneof(
  { arbitrary: fc.record({ rows: fc.integer({ min: 1, max: 20 }), seed: fc.nat() }), weight: 4 },
  // Around SML_WS_UNAUTHENTICATED_MAX_BYTES and well over it (≈ 15 bytes a row).
  { arbitrary: fc.record({ rows: fc.integer({ min: 4_000, max: 14_000 }), seed: fc.nat() }), weight: 2 },
  { arbitrary: fc.record({ text: fc.string({ maxLength: 200 }) }), weight: 1 },
  { arbitrary: fc.record({ text: fc.constantFrom('', '{}', '[]', 'null', '{"attributeNames":[],"attributeTypes":[],"data":[]}', '{"data":[[' + '['.repeat(5000)) }), weight: 1 },
);
const bodyText = (b: Body) => ('text' in b ? b.text : frameJson(b.rows, b.seed));
const message: fc.Arbitrary<MessageAction> = fc.record({
  type: fc.constant('message' as const),
  kind: fc.oneof(
    { arbitrary: fc.constant('alice' as const), weight: 6 },
    { arbitrary: fc.constantFrom<HeaderKind>('bob', 'forged', 'stale', 'none', 'zero', 'prefix', 'header', 'keys', 'raw'), weight: 5 },
  ),
  body,
  raw: fc.uint8Array({ maxLength: 300 }),
  prefix: fc.constantFrom('99999999999,', 'abc,', ',', '-1,', '1e3,', '00000000001,{', '4294967296,', ' 5,'),
  badHeader: fc.constantFrom('{"headers":"x"}', '{"headers":[1,2]}', '[]', 'null', '{"headers":[],"extraKeys":[1]}', '{', '{"headers":["a","b","c","alice"],"extraKeys":["p"]}', '"\\ud800"'),
  binary: fc.boolean(),
  cuts: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 4 }),
  pings: fc.boolean(),
});
const huge: fc.Arbitrary<HugeAction> = fc.record({
  type: fc.constant('huge' as const),
  length: fc.constantFrom(BigInt(UNAUTHENTICATED_MAX + 1), BigInt(MiB), BigInt(64 * MiB), BigInt(200 * MiB), BigInt(MESSAGE_LIMIT + 1), 2n ** 32n, 2n ** 53n - 1n, 2n ** 63n, 2n ** 64n - 1n),
  sent: fc.integer({ min: 0, max: 32 * 1024 }),
  binary: fc.boolean(),
});
const control: fc.Arbitrary<ControlAction> = fc.record({ type: fc.constant('control' as const), opcode: fc.constantFrom<0x9 | 0xa>(0x9, 0xa), payload: fc.uint8Array({ maxLength: 125 }) });
const bad: fc.Arbitrary<BadAction> = fc.record({
  type: fc.constant('bad' as const),
  what: fc.constantFrom<BadAction['what']>('rsv', 'opcode', 'continuation', 'unmasked', 'longPing', 'fragmentedPing', 'newMessageInside', 'badClose'),
  n: fc.nat(),
});
const close: fc.Arbitrary<CloseAction> = fc.record({ type: fc.constant('close' as const), code: fc.constantFrom(1000, 1001, 3000, 4999) });
const action: fc.Arbitrary<Action> = fc.oneof(
  { arbitrary: message, weight: 12 },
  { arbitrary: huge, weight: 2 },
  { arbitrary: control, weight: 2 },
  { arbitrary: bad, weight: 1 },
  { arbitrary: close, weight: 1 },
);
const session = fc.record({ op: fc.constantFrom<Op>('learn', 'forget', 'predict'), actions: fc.array(action, { minLength: 1, maxLength: 6 }) });

/** What the model expects of the rest of a session once this action is sent. */
type Expect = { closes?: 'ours' | 'protocol'; codes?: number[]; answered?: boolean };

function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

describe('adversarial WebSocket frames against a running system', () => {
  let sys: RunningSystem;
  let alice: WsSigner;
  let bob: WsSigner;
  let bobSdk: SmlClient;

  beforeAll(async () => {
    sys = await startSystem({ services: ['users', 'jobs', 'projects'], env: { SML_WS_UNAUTHENTICATED_MAX_BYTES: String(UNAUTHENTICATED_MAX) } });
    const root = new SmlClient({ url: sys.url, user: sys.rootUser, secret: sys.rootSecret });
    const add = async (user: string): Promise<WsSigner> => {
      const r = await root.addUser(user);
      return { user, secret: String((r.body.values as { secretKey: string }).secretKey) };
    };
    alice = await add('alice');
    bob = await add('bob');
    const aliceSdk = new SmlClient({ url: sys.url, user: alice.user, secret: alice.secret });
    bobSdk = new SmlClient({ url: sys.url, user: bob.user, secret: bob.secret });
    expect((await aliceSdk.createProject('p')).status).toBe(201);
    expect((await aliceSdk.learn('p', JSON.parse(frameJson(50, 1)))).status).toBe(200);
    expect((await bobSdk.createProject('mine')).status).toBe(201);
    expect((await bobSdk.learn('mine', { attributeNames: ['x'], attributeTypes: ['C'], data: [['1'], ['2']] })).status).toBe(200);
  }, 120_000);
  afterAll(() => sys?.stop());

  /** The bytes of a message action, and whether the connection is authenticated by it (a valid signature). */
  const messageBytes = (op: Op, m: MessageAction): { bytes: Buffer; signs: boolean } => {
    const keys = keysOf(op);
    const body = bodyText(m.body);
    switch (m.kind) {
      case 'alice': return { bytes: Buffer.from(wsMessage(alice, op, body, keys)), signs: true };
      case 'bob': return { bytes: Buffer.from(wsMessage(bob, op, body, keys)), signs: true };
      case 'forged': return { bytes: Buffer.from(wsMessage(alice, op, body, keys, { signWith: bob.secret })), signs: false };
      case 'stale': return { bytes: Buffer.from(wsMessage(alice, op, body, keys, { dateOffsetMs: -10 * 60_000 })), signs: false };
      case 'keys': return { bytes: Buffer.from(wsMessage(alice, op, body, [])), signs: true };
      case 'none': return { bytes: Buffer.from(body), signs: false };
      case 'zero': return { bytes: Buffer.from(`0,${body}`), signs: false };
      case 'prefix': return { bytes: Buffer.from(m.prefix + body), signs: false };
      case 'header': return { bytes: Buffer.from(`${Buffer.byteLength(m.badHeader)},${m.badHeader}${body}`), signs: false };
      case 'raw': return { bytes: Buffer.from(m.raw), signs: false };
    }
  };

  /** The frames of a message: cut at the given fractions, continuation frames after the first, pings between them. */
  const messageFrames = (bytes: Buffer, m: MessageAction): Buffer[] => {
    const at = [...new Set(m.cuts.map((c) => Math.floor(c * bytes.length)))].filter((c) => c > 0 && c < bytes.length).sort((a, b) => a - b);
    const parts = [0, ...at, bytes.length].slice(1).map((end, i, ends) => bytes.subarray(i === 0 ? 0 : ends[i - 1], end));
    const frames: Buffer[] = [];
    parts.forEach((part, i) => {
      if (i > 0 && m.pings) frames.push(clientFrame(0x9, 'ping'));
      frames.push(clientFrame(i === 0 ? (m.binary ? 0x2 : 0x1) : 0x0, part, { fin: i === parts.length - 1 }));
    });
    return frames.length > 0 ? frames : [clientFrame(m.binary ? 0x2 : 0x1, bytes)];
  };

  const badBytes = (b: BadAction): Buffer => {
    switch (b.what) {
      case 'rsv': return clientFrame(0x1, 'x', { rsv: 1 + (b.n % 7) });
      case 'opcode': return clientFrame([3, 4, 5, 6, 7, 0xb, 0xc, 0xd, 0xe, 0xf][b.n % 10], 'x');
      case 'continuation': return clientFrame(0x0, 'x');
      case 'unmasked': return clientFrame(0x1, 'x', { mask: null });
      case 'longPing': return Buffer.concat([frameHeader(0x9, 126), Buffer.alloc(126)]);
      case 'fragmentedPing': return clientFrame(0x9, 'x', { fin: false });
      case 'newMessageInside': return Buffer.concat([clientFrame(0x1, 'a', { fin: false }), clientFrame(0x1, 'b')]);
      case 'badClose': return clientFrame(0x8, Buffer.from([0x03, 0xe7])); // 999: not a valid close code
    }
  };

  it(`${RUNS} generated WebSocket sessions: answered or closed for a reason, no 5xx, no exit, no leaked reservation, memory bounded`, async () => {
    const bobBefore = await bobSdk.projectInfo('mine', { hash: true });
    const gateway = sys.pids().users;
    let peak = rssMb(gateway);
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(gateway))), 50);
    const failures: string[] = [];
    const closes = new Map<number, number>();
    const statuses = new Map<number, number>();
    try {
      await fc.assert(fc.asyncProperty(session, async ({ op, actions }) => {
        const ws = await RawWs.open(sys.url, `/symetry/ws/${op}`);
        let authenticated = false;
        let owed = 0;
        let expect: Expect = {};
        const sent: string[] = [];
        for (const a of actions) {
          if (expect.closes || ws.ended) break;
          if (a.type === 'message') {
            const { bytes, signs } = messageBytes(op, a);
            sent.push(`${a.kind}${a.binary ? ' binary' : ''} ${bytes.length} B in ${a.cuts.length + 1} frames`);
            if (bytes.length > MESSAGE_LIMIT || (!authenticated && bytes.length > UNAUTHENTICATED_MAX)) {
              expect = { closes: 'ours', codes: [1009] };
            } else if (!a.binary && !isUtf8(bytes)) {
              // ws checks a text message's UTF-8 when it is complete, and closes at once.
              expect = { closes: 'protocol', codes: [1007] };
            } else {
              owed++;
              if (signs) authenticated = true;
            }
            for (const f of messageFrames(bytes, a)) if (!(await ws.writeAndDrain(f))) break;
          } else if (a.type === 'huge') {
            sent.push(`header announcing ${a.length} then ${a.sent} B`);
            ws.write(frameHeader(a.binary ? 0x2 : 0x1, a.length));
            if (a.sent > 0) ws.write(Buffer.alloc(a.sent, 0x61));
            const tooBig = a.length > BigInt(MESSAGE_LIMIT) || (!authenticated && a.length > BigInt(UNAUTHENTICATED_MAX));
            // Over 2⁵³ − 1 ws itself refuses the header (1009, at once); otherwise the gateway
            // refuses it (1009, after the replies owed), or reserves it and waits for its payload:
            // the session ends with it.
            expect = a.length > 2n ** 53n - 1n ? { closes: 'protocol', codes: [1009] } : tooBig ? { closes: 'ours', codes: [1009] } : { answered: false };
            break;
          } else if (a.type === 'control') {
            sent.push(a.opcode === 0x9 ? 'ping' : 'pong');
            ws.write(clientFrame(a.opcode, Buffer.from(a.payload)));
          } else if (a.type === 'bad') {
            sent.push(`bad frame: ${a.what}`);
            ws.write(badBytes(a));
            expect = { closes: 'protocol', codes: [1002] };
          } else {
            sent.push(`close ${a.code}`);
            ws.write(clientFrame(0x8, Buffer.from([a.code >> 8, a.code & 0xff])));
            expect = { closes: 'protocol', codes: [a.code, 1000, 1005] };
          }
        }
        const what = `${op}: ${sent.join(' | ')}`;
        // Every message owed is answered (in order) unless the session broke the protocol.
        const replies: string[] = [];
        try {
          while (replies.length < owed) {
            const text = await ws.nextText(10_000);
            if (text === undefined) break;
            replies.push(text);
          }
        } catch (err) {
          failures.push(`no answer (${(err as Error).message}) after ${replies.length} of ${owed} ← ${what}`);
        }
        for (const text of replies) {
          let env: { statusCode?: unknown; statusString?: unknown };
          try {
            env = JSON.parse(text) as typeof env;
          } catch {
            failures.push(`not JSON: ${text.slice(0, 100)} ← ${what}`);
            continue;
          }
          const code = Number(env.statusCode);
          statuses.set(code, (statuses.get(code) ?? 0) + 1);
          if (!Number.isInteger(code) || typeof env.statusString !== 'string') failures.push(`not an envelope: ${text.slice(0, 100)} ← ${what}`);
          else if (code >= 500 && !CONTRACT_5XX.some((re) => re.test(String(env.statusString)))) failures.push(`${code} ${String(env.statusString)} ← ${what}`);
        }
        if (expect.closes) {
          const closed = await ws.whenClosed(10_000).catch(() => undefined);
          if (!closed) failures.push(`not closed ← ${what}`);
          else {
            closes.set(closed.code, (closes.get(closed.code) ?? 0) + 1);
            if (!expect.codes!.includes(closed.code)) failures.push(`closed ${closed.code} '${closed.reason}', expected ${expect.codes!.join('/')} ← ${what}`);
            // Our own refusals come after every reply owed.
            if (expect.closes === 'ours' && replies.length !== owed) failures.push(`closed after ${replies.length} of ${owed} answers ← ${what}`);
          }
        } else if (replies.length < owed) {
          failures.push(`closed (${ws.closed?.code}) after ${replies.length} of ${owed} answers ← ${what}`);
        }
        ws.destroy();
        // The first session that breaks the model ends the run (and names itself).
        if (failures.length > 0) throw new Error(failures.join('\n'));
      }), { seed: SEED, numRuns: RUNS, endOnFailure: true });
    } finally {
      clearInterval(sampler);
    }
    expect(failures).toEqual([]);
    expect(sys.unexpectedExits()).toEqual([]);
    // Every reservation made from a frame header is released once its connection is gone.
    const held = async () => Number(/^sml_request_body_bytes_in_flight (\d+)$/m.exec(await (await fetch(`${sys.url}/metrics`)).text())?.[1]);
    for (const t = Date.now(); (await held()) !== 0 && Date.now() - t < 10_000;) await new Promise((r) => setTimeout(r, 50));
    expect(await held()).toBe(0);
    const now = rssMb(gateway);
    expect({ peakMb: Math.round(peak), underBound: peak < MEMORY_BOUND_MB && now < MEMORY_BOUND_MB }).toEqual({ peakMb: Math.round(peak), underBound: true });
    const bobAfter = await bobSdk.projectInfo('mine', { hash: true });
    expect(bobAfter.status).toBe(200);
    expect(bobAfter.body.values!.smlInfo.hash).toEqual(bobBefore.body.values!.smlInfo.hash);
    console.log(`adversarial ws: ${RUNS} sessions, statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}, close codes ${JSON.stringify(Object.fromEntries([...closes].sort()))}, gateway RSS peak ${Math.round(peak)} MB, now ${Math.round(now)} MB`);
  }, 120_000);
});
