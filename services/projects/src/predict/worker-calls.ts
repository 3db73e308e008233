import { Worker, type TransferListItem } from 'node:worker_threads';

/**
 * One worker thread, started on demand, whose tasks it answers by id: what the predict and
 * online-model pools share. A thread that errors or exits fails every call it held (after
 * `onDeath`, which forgets what the caller knew of that thread) and is started again on the
 * next call.
 */
export class WorkerCalls<Task extends object, Reply extends { id: number }> {
  private worker?: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (r: Reply) => void; reject: (err: Error) => void }>();

  /** `name` says which thread in the error of one that died ("the predict thread"). */
  constructor(private readonly script: string, private readonly name: string, private readonly onDeath: () => void = () => undefined) {}

  /** Calls sent and not yet answered. */
  get waiting(): number {
    return this.pending.size;
  }

  call(task: Task, transfer: readonly TransferListItem[] = []): Promise<Reply> {
    const worker = this.thread();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ ...task, id }, transfer);
    });
  }

  async stop(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    for (const waiting of this.pending.values()) waiting.reject(new Error('the projects service is stopping'));
    this.pending.clear();
    await worker?.terminate();
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(this.script);
    worker.unref();
    worker.on('message', (reply: Reply) => {
      const waiting = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      waiting?.resolve(reply);
    });
    const fail = (err: Error) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.onDeath();
      for (const waiting of this.pending.values()) waiting.reject(err);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`${this.name} exited (code ${code})`)));
    this.worker = worker;
    return worker;
  }
}
