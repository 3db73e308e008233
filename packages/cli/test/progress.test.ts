import { Writable } from 'node:stream';
import { afterDelay, percent, PLAIN_INTERVAL_MS, progress } from '../src/progress';

describe('percent', () => {
  it('is a whole percentage, capped at 100, and empty before the size is known', () => {
    expect(percent(30408704, 38034490)).toBe('79%');
    expect(percent(7, 7)).toBe('100%');
    expect(percent(9, 7)).toBe('100%');
    expect(percent(0, 0)).toBe('');
  });
});

describe('progress', () => {
  it('without a terminal prints plain lines: the first at once, then at most one per interval, the last at stop', () => {
    let text = '';
    let t = 0;
    const p = progress({ write: (s: string) => (text += s) }, 'job 7', () => t);
    p.update(0, 0);
    p.update(1, 10);
    t += PLAIN_INTERVAL_MS - 1;
    p.update(2, 10);
    t += 1;
    p.update(5, 10);
    p.update(9, 10);
    p.stop();
    expect(text).toBe('job 7: running\njob 7: 50% (5/10)\njob 7: 90% (9/10)\n');
  });

  it('on a terminal draws a cli-progress bar on that stream', () => {
    let text = '';
    const tty = Object.assign(new Writable({ write: (c: Buffer, _e, done) => { text += c.toString(); done(); } }), { isTTY: true, columns: 80 });
    const p = progress(tty, 'job 7');
    p.update(0, 0);
    p.update(5, 10);
    p.stop();
    expect(text).toContain('job 7 [');
    expect(text).toContain('50% 5/10');
  });
});

describe('afterDelay', () => {
  it('passes updates on only once the delay has passed, and from then on every one', () => {
    const seen: string[] = [];
    let t = 0;
    const p = afterDelay({ update: (c, m) => seen.push(`${c}/${m}`), stop: () => seen.push('stop') }, 1000, () => t);
    p.update(1, 9);
    t = 999;
    p.update(2, 9);
    t = 1000;
    p.update(3, 9);
    p.update(4, 9);
    p.stop();
    expect(seen).toEqual(['3/9', '4/9', 'stop']);
  });
});
