import { join } from 'node:path';
import { ModelInputError, type Model, type PredictFrame, type Prediction } from '@sml/stats';
import { WorkerCalls } from './worker-calls';

/** What a predict thread is asked: a stored model (by key and revision) and a frame. */
export interface PredictTask {
  id: number;
  /** The model's ModelStore key, and the revision of its record. */
  key: string;
  revision: number;
  algo: string;
  /** Model.state(), sent when the thread may not hold this revision. */
  state?: unknown;
}

/** A predict thread's answer: the predictions, that it holds no such model (send its state), or the error as data. */
export type PredictReply = { id: number } & ({ predictions: Prediction[] } | { missing: true } | { error: { name: string; message: string } });

/**
 * Models whose sent revision the pool remembers, least recently used forgotten first. The
 * thread keeps 8 (predict-worker.ts); remembering more only spares a state sent again for one
 * the thread still holds, and the map must not grow with every model ever predicted.
 */
const SENT_REMEMBERED = 64;

/**
 * Threads for the predicts that cost far more than reading their rows (Model.predictionSteps
 * at or above SML_PREDICT_THREAD_STEPS: hmm, kmeans, the covariance models), so that one of
 * them (up to SML_MAX_PREDICT_STEPS, ≈ 0.15–0.9 s) holds a thread, not the event loop every
 * project of the process shares. SML_PREDICT_THREADS of them (default 1): with more, two
 * customers' costly predicts do not wait for each other. A predict goes to the thread with the
 * fewest waiting, among those the one that holds its model. Each thread restores a model once
 * per stored revision (its state is sent only when the thread may not have it) and keeps the
 * latest few; its tasks run one at a time, in order; a thread that dies fails what it held and
 * is started again.
 */
export class PredictPool {
  private readonly threads: PredictThread[];

  constructor(script = join(__dirname, 'predict-worker.js'), threads = 1) {
    this.threads = Array.from({ length: Math.max(1, threads) }, () => new PredictThread(script));
  }

  async predict(key: string, revision: number, model: Model, frame: PredictFrame): Promise<Prediction[]> {
    const thread = this.pick(key, revision);
    const base = { key, revision, algo: model.algo };
    const held = thread.holds(key, revision);
    if (held) thread.used(key, revision);
    let reply = await thread.call(held ? base : thread.withState(base, model), frame);
    if ('missing' in reply) reply = await thread.call(thread.withState(base, model), frame);
    if ('error' in reply) throw reply.error.name === 'ModelInputError' ? new ModelInputError(reply.error.message) : new Error(reply.error.message);
    // Sent with its state, a model is restored: never missing twice.
    if ('missing' in reply) throw new Error('the predict thread did not restore the model it was sent');
    return reply.predictions;
  }

  async stop(): Promise<void> {
    await Promise.all(this.threads.map((t) => t.stop()));
  }

  /** How many models' sent revisions are remembered, over the threads (each bounded by SENT_REMEMBERED). */
  get remembered(): number {
    return this.threads.reduce((n, t) => n + t.remembered, 0);
  }

  /** The thread with the fewest tasks waiting; on a tie, one that holds the model. */
  private pick(key: string, revision: number): PredictThread {
    const cost = (t: PredictThread) => 2 * t.waiting + (t.holds(key, revision) ? 0 : 1);
    return this.threads.reduce((best, t) => (cost(t) < cost(best) ? t : best));
  }
}

/** One predict thread: its worker (started on demand), its tasks waiting, and the model revisions it was sent. */
class PredictThread {
  private readonly calls: WorkerCalls<Omit<PredictTask, 'id'> & { frame: PredictFrame }, PredictReply>;
  /** Revision of each model the thread was last sent the state of (it may have dropped it since: it then says so). */
  private readonly sent = new Map<string, number>();

  constructor(script: string) {
    // A thread that died forgot every model it held.
    this.calls = new WorkerCalls(script, 'the predict thread', () => this.sent.clear());
  }

  get waiting(): number {
    return this.calls.waiting;
  }

  get remembered(): number {
    return this.sent.size;
  }

  /** Whether the thread was sent this revision of the model (and so probably holds it). */
  holds(key: string, revision: number): boolean {
    return this.sent.get(key) === revision;
  }

  withState(task: Omit<PredictTask, 'id'>, model: Model): Omit<PredictTask, 'id'> {
    this.used(task.key, task.revision);
    return { ...task, state: model.state() };
  }

  /** Remembers the model's revision as sent, used last (the least recently used is forgotten past SENT_REMEMBERED). */
  used(key: string, revision: number): void {
    this.sent.delete(key);
    this.sent.set(key, revision);
    if (this.sent.size > SENT_REMEMBERED) this.sent.delete(this.sent.keys().next().value!);
  }

  call(task: Omit<PredictTask, 'id'>, frame: PredictFrame): Promise<PredictReply> {
    return this.calls.call({ ...task, frame });
  }

  stop(): Promise<void> {
    return this.calls.stop();
  }
}
