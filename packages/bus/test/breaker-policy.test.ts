import { Breakers } from '@sml/bus';

// The breaker policy alone (issue 29, item 14): what opens a breaker, what it refuses, and what
// closes it — the caller says what happened and when, so no clock or socket is involved.
describe('circuit breaker policy', () => {
  const RESET = 1000;
  const opened = (b: Breakers, key: string, at = 0) => {
    for (let i = 0; i < 5; i++) {
      expect(b.admit(key, at)).toBe('go');
      b.timedOut(key, at);
    }
  };

  it('five timeouts in a row open it; an answer between them starts the count again', () => {
    const b = new Breakers({ resetMs: RESET });
    for (let i = 0; i < 4; i++) b.timedOut('k', 0);
    b.answered('k');
    for (let i = 0; i < 4; i++) b.timedOut('k', 0);
    expect({ open: b.isOpen('k'), admit: b.admit('k', 0) }).toEqual({ open: false, admit: 'go' });
    b.timedOut('k', 0);
    expect({ open: b.isOpen('k'), admit: b.admit('k', 0) }).toEqual({ open: true, admit: 'refused' });
  });

  it('no responders (released) never counts: a shard handed over for a moment opens nothing', () => {
    const b = new Breakers({ resetMs: RESET });
    for (let i = 0; i < 1000; i++) {
      expect(b.admit('k', i)).toBe('go');
      b.released('k');
    }
    expect(b.isOpen('k')).toBe(false);
  });

  it('keys are independent: one operation or shard open leaves the others going', () => {
    const b = new Breakers({ resetMs: RESET });
    opened(b, 'sml.projects.3.learn');
    expect(b.admit('sml.projects.3.learn', 10)).toBe('refused');
    expect(b.admit('sml.projects.3.predict', 10)).toBe('go');
    expect(b.admit('sml.projects.4.learn', 10)).toBe('go');
    expect(b.open).toEqual(['sml.projects.3.learn']);
  });

  it('half-open: after resetMs one trial goes; the others are refused while it is out, for at most resetMs', () => {
    const b = new Breakers({ resetMs: RESET });
    opened(b, 'k');
    expect(b.admit('k', RESET - 1)).toBe('refused');
    expect(b.admit('k', RESET)).toBe('trial');
    expect(b.admit('k', RESET + 1)).toBe('refused');
    expect(b.admit('k', 2 * RESET - 1)).toBe('refused');
    // A trial waiting for its (longer) request timeout: another goes.
    expect(b.admit('k', 2 * RESET)).toBe('trial');
    expect(b.admit('k', 2 * RESET + 1)).toBe('refused');
  });

  it('an answered trial closes it with a clean count: one later timeout does not open it again', () => {
    const b = new Breakers({ resetMs: RESET });
    opened(b, 'k');
    expect(b.admit('k', RESET)).toBe('trial');
    b.answered('k');
    expect({ open: b.isOpen('k'), admit: b.admit('k', RESET + 1) }).toEqual({ open: false, admit: 'go' });
    b.timedOut('k', RESET + 2);
    expect({ open: b.isOpen('k'), admit: b.admit('k', RESET + 3) }).toEqual({ open: false, admit: 'go' });
  });

  it('a timed-out trial opens it for another resetMs', () => {
    const b = new Breakers({ resetMs: RESET });
    opened(b, 'k');
    expect(b.admit('k', RESET)).toBe('trial');
    b.timedOut('k', RESET + 100);
    expect(b.admit('k', 2 * RESET + 99)).toBe('refused');
    expect(b.admit('k', 2 * RESET + 100)).toBe('trial');
  });

  it('a trial that met no responders lets the next call be the trial', () => {
    const b = new Breakers({ resetMs: RESET });
    opened(b, 'k');
    expect(b.admit('k', RESET)).toBe('trial');
    b.released('k');
    expect(b.isOpen('k')).toBe(true);
    expect(b.admit('k', RESET + 1)).toBe('trial');
  });

  it('the threshold is configurable', () => {
    const b = new Breakers({ resetMs: RESET, failures: 2 });
    b.timedOut('k', 0);
    expect(b.isOpen('k')).toBe(false);
    b.timedOut('k', 0);
    expect(b.isOpen('k')).toBe(true);
  });
});
