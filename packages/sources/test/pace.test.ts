import { pacedSource, ReadPace, SourceError, type ByteSource, type ReadLimits, type RowSource } from '@sml/sources';

// The bounds of one read (pace.ts), on sources made here: no socket, no process.

const limits = (over: Partial<ReadLimits> = {}): ReadLimits => ({ deadlineMs: 60_000, deadlineVariable: 'SML_SOURCE_READ_DEADLINE_MS', minBytesPerS: 0, windowMs: 1000, ...over });
const never = () => new Promise<never>(() => undefined);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function bytes(what: string, chunks: () => AsyncIterable<Uint8Array>, size: () => Promise<number | undefined> = async () => undefined): ByteSource {
  return { kind: 'bytes', describe: () => what, size, open: chunks };
}

async function drain<T>(iterable: AsyncIterable<T>, each: (item: T) => Promise<void> = async () => undefined): Promise<number> {
  let n = 0;
  for await (const item of iterable) {
    n++;
    await each(item);
  }
  return n;
}

describe('ReadPace', () => {
  it('a row source that stops sending after its first rows fails naming it and the least rate, though it ignores the abort', async () => {
    const rows: RowSource = {
      kind: 'rows', describe: () => 'redshift db:5439/x/t', columns: async () => ['a'], size: async () => undefined,
      async *open() {
        yield [['1'], ['2']];
        await never();
      },
    };
    const pace = new ReadPace(limits({ minBytesPerS: 100, windowMs: 300 }));
    const source = pacedSource(rows, pace) as RowSource;
    expect(await source.columns()).toEqual(['a']);
    const failure = await drain(source.open(10)).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(SourceError);
    // The window slides a tick at a time: on a loaded machine a late tick may already have moved
    // its base past the first rows, so the bytes it names are those rows (4) or none since (0).
    expect((failure as Error).message).toMatch(/^redshift db:5439\/x\/t: sent [04] bytes in \d+\.\d s of waiting, under the least rate of 100 bytes\/s \(SML_SOURCE_MIN_BYTES_PER_S, over SML_SOURCE_RATE_WINDOW_MS = 300 ms\)$/);
  });

  it('the whole-read deadline covers size() too, and names its variable', async () => {
    const pace = new ReadPace(limits({ deadlineMs: 200, deadlineVariable: 'SML_SOURCE_TIMEOUT_MS' }));
    const source = pacedSource(bytes('http://h/f.csv', async function* () { yield Buffer.from('x'); }, never), pace);
    await expect(source.size()).rejects.toThrow(/^http:\/\/h\/f\.csv: the read did not end within 200 ms \(SML_SOURCE_TIMEOUT_MS\)$/);
    // The source made with the pace's signal sees the bound too.
    expect(pace.signal.aborted).toBe(true);
  });

  it('counts only the time spent waiting on the source: a slow consumer never fails a fast source', async () => {
    const pace = new ReadPace(limits({ minBytesPerS: 1_000_000, windowMs: 100 }));
    const source = pacedSource(bytes('f.csv', async function* () {
      for (let i = 0; i < 6; i++) yield Buffer.from('x');
    }), pace) as ByteSource;
    // 6 chunks, 60 ms of consumer work after each: far over the window on the wall clock.
    expect(await drain(source.open(), async () => { await sleep(60); })).toBe(6);
  });

  it("the caller's cancel and the source's own failures pass through as they are", async () => {
    const cancel = new AbortController();
    const pace = new ReadPace(limits(), cancel.signal);
    const source = pacedSource(bytes('f.csv', async function* () {
      yield Buffer.from('x');
      await never();
    }), pace) as ByteSource;
    setTimeout(() => cancel.abort(new Error('cancelled')), 50);
    await expect(drain(source.open())).rejects.toThrow(/^cancelled$/);

    const own = new SourceError('not-found', 'f.csv: not found (HTTP 404)');
    const failing = pacedSource(bytes('f.csv', async function* () {
      if (own) throw own;
      yield Buffer.from('');
    }), new ReadPace(limits())) as ByteSource;
    await expect(drain(failing.open())).rejects.toBe(own);
  });
});
