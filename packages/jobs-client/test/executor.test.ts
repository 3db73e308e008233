/**
 * BoundedExecutor (README "Fair scheduling"): concurrency, queue positions, a full queue
 * refused with 503 EXECUTOR_FULL, fair shares between customers, cancellation. No NATS.
 */
import { BoundedExecutor } from '@sml/jobs-client';

describe('BoundedExecutor', () => {
  const deferred = () => {
    let resolve!: () => void;
    const promise = new Promise<void>((r) => { resolve = r; });
    return { promise, resolve };
  };

  it('runs at most `concurrency` tasks, reports queue positions and refuses a full queue', async () => {
    const ex = new BoundedExecutor('t', 1, 2);
    const gates = [deferred(), deferred(), deferred()];
    const positions: Record<string, number[]> = { a: [], b: [], c: [] };
    const started: string[] = [];
    ['a', 'b', 'c'].forEach((id, i) => ex.submit({
      id,
      onQueued: (p) => positions[id].push(p),
      run: async () => { started.push(id); await gates[i].promise; },
    }));
    expect(started).toEqual(['a']);
    expect(positions).toEqual({ a: [], b: [1], c: [2] });
    expect(() => ex.submit({ id: 'd', run: async () => undefined })).toThrow(expect.objectContaining({ code: 'EXECUTOR_FULL', status: 503 }));
    gates[0].resolve();
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual(['a', 'b']);
    expect(positions.c).toEqual([2, 1]);
    gates[1].resolve();
    gates[2].resolve();
  });

  it('shares slots between customers: one customer\'s backlog cannot starve another', async () => {
    const ex = new BoundedExecutor('t', 2, 10, { perOwner: 1, perOwnerQueue: 5 });
    const gates = new Map<string, ReturnType<typeof deferred>>();
    const started: string[] = [];
    const submit = (id: string, owner: string) => {
      gates.set(id, deferred());
      ex.submit({ id, owner, run: async () => { started.push(id); await gates.get(id)!.promise; } });
    };
    for (const id of ['a1', 'a2', 'a3']) submit(id, 'alice');
    // One slot stays free for others although alice has work waiting.
    expect(started).toEqual(['a1']);
    submit('b1', 'bob');
    expect(started).toEqual(['a1', 'b1']);
    submit('b2', 'bob');
    submit('c1', 'carol');
    // bob's slot frees: carol (who never ran) goes before bob's second and alice's backlog.
    gates.get('b1')!.resolve();
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual(['a1', 'b1', 'c1']);
    gates.get('a1')!.resolve();
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual(['a1', 'b1', 'c1', 'a2']);
    // alice may queue at most 5.
    for (const id of ['a4', 'a5', 'a6', 'a7']) submit(id, 'alice');
    expect(() => submit('a8', 'alice')).toThrow(expect.objectContaining({ code: 'EXECUTOR_FULL' }));
    expect(ex.canAccept('bob')).toBe(true);
    for (const g of gates.values()) g.resolve();
  });

  it('cancel aborts a running task and removes a queued one', async () => {
    const ex = new BoundedExecutor('t', 1, 5);
    const signals: Record<string, AbortSignal> = {};
    const run = (id: string) => async (signal: AbortSignal) => {
      signals[id] = signal;
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
    };
    ex.submit({ id: 'a', run: run('a') });
    ex.submit({ id: 'b', run: run('b') });
    expect(ex.cancel('b')).toBe(true);
    expect(signals.b.aborted).toBe(true);
    expect(ex.queueSize).toBe(0);
    expect(ex.cancel('a')).toBe(true);
    expect(signals.a.aborted).toBe(true);
    expect(ex.cancel('zzz')).toBe(false);
  });
});
