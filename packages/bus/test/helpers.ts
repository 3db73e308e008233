import pino from 'pino';

export const log = pino({ level: 'silent' });

/**
 * Polls `probe` until it returns something other than undefined, and returns that; fails
 * naming `what` when `deadlineMs` passes first. Tests wait on outcomes this way, never on a
 * fixed sleep.
 */
export async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, deadlineMs = 20_000): Promise<T> {
  const end = Date.now() + deadlineMs;
  let last: unknown;
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    // A probe that hangs must not outlive the deadline.
    const late = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error('probe still pending')), Math.max(0, end - Date.now())); });
    try {
      const v = await Promise.race([probe(), late]);
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    } finally {
      clearTimeout(timer);
    }
    if (Date.now() > end) throw new Error(`${what}: not within ${deadlineMs} ms${last ? ` (last error: ${last instanceof Error ? last.message : JSON.stringify(last)})` : ''}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
