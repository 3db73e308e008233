// The project state machine (src/project-states.ts): every state against every event, checked
// against the table in the README ("Project states") so the table stays the machine; and
// the counts the registry reads (batches since the snapshot, fenced) over random event runs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { heldState, ProjectStateError, transition, type ProjectEvent, type ProjectLife } from '../src/lifecycle/project-states';

/** Every event type, with the variants whose outcome differs. */
const EVENTS: Record<ProjectEvent['type'], ProjectEvent[]> = {
  created: [{ type: 'created', persist: true }, { type: 'created', persist: false }],
  load: [{ type: 'load', snapshotted: true }, { type: 'load', snapshotted: false }],
  replayed: [{ type: 'replayed', quarantined: false }, { type: 'replayed', quarantined: true }],
  loaded: [{ type: 'loaded' }],
  logged: [{ type: 'logged', seq: 7 }, { type: 'logged', seq: 0 }],
  changed: [{ type: 'changed' }],
  snapshotted: [{ type: 'snapshotted' }],
  dropped: [{ type: 'dropped', why: 'evicted' }],
};

/** Every state kind, with the variants whose outcome differs. */
const STATES: Record<ProjectLife['kind'], ProjectLife[]> = {
  absent: [{ kind: 'absent' }],
  loading: [{ kind: 'loading', snapshotted: true, replayed: 0, quarantined: 0 }, { kind: 'loading', snapshotted: false, replayed: 2, quarantined: 1 }],
  memoryOnly: [{ kind: 'memoryOnly', changed: false }],
  clean: [{ kind: 'clean', snapshotted: false, fenced: false }, { kind: 'clean', snapshotted: true, fenced: true }],
  dirty: [{ kind: 'dirty', snapshotted: true, fenced: false, batches: 3 }],
  dropped: [{ kind: 'dropped', why: 'unloaded', was: { kind: 'dirty', snapshotted: true, fenced: true, batches: 1 } }],
};

const outcome = (state: ProjectLife, event: ProjectEvent): string => {
  try {
    return transition(state, event).kind;
  } catch (err) {
    if (err instanceof ProjectStateError) return '—';
    throw err;
  }
};

/** The README's transition table: state → event → the cell's kinds ("a / b": either, by the event's or state's data). */
function readmeTable(): Map<string, Map<string, string[]>> {
  const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');
  const start = readme.indexOf('| state \\ event |');
  if (start < 0) throw new Error('README has no "| state \\ event |" table');
  const lines = readme.slice(start).split('\n');
  const rows = lines.slice(0, lines.findIndex((l) => !l.startsWith('|'))).map((l) => l.split('|').slice(1, -1).map((c) => c.trim().replace(/`/g, '')));
  const events = rows[0].slice(1);
  const table = new Map<string, Map<string, string[]>>();
  for (const row of rows.slice(2)) table.set(row[0], new Map(events.map((e, i) => [e, row[i + 1].split(' / ')])));
  return table;
}

describe('project states: transition', () => {
  it('takes exactly the events the README table says, to the states it says, from every state', () => {
    const table = readmeTable();
    expect([...table.keys()].sort()).toEqual(Object.keys(STATES).sort());
    for (const [kind, states] of Object.entries(STATES)) {
      expect([...table.get(kind)!.keys()].sort()).toEqual(Object.keys(EVENTS).sort());
      for (const [type, events] of Object.entries(EVENTS)) {
        const outcomes = new Set(states.flatMap((s) => events.map((e) => outcome(s, e))));
        expect({ kind, type, outcomes: [...outcomes].sort() }).toEqual({ kind, type, outcomes: [...table.get(kind)!.get(type)!].sort() });
      }
    }
  });

  it('a load ends clean when it replayed nothing, else dirty with the replayed batches; its first append is fenced', () => {
    let s = transition({ kind: 'absent' }, { type: 'load', snapshotted: true });
    expect(transition(s, { type: 'loaded' })).toEqual({ kind: 'clean', snapshotted: true, fenced: false });
    s = transition(transition(s, { type: 'replayed', quarantined: false }), { type: 'replayed', quarantined: true });
    expect(s).toEqual({ kind: 'loading', snapshotted: true, replayed: 2, quarantined: 1 });
    expect(transition(s, { type: 'loaded' })).toEqual({ kind: 'dirty', snapshotted: true, fenced: false, batches: 2 });
  });

  it('a dropped state stays dropped (its first reason kept) and keeps tracking what its holder does to it', () => {
    const dropped = transition({ kind: 'clean', snapshotted: true, fenced: false }, { type: 'dropped', why: 'shardDropped' });
    const after = transition(transition(dropped, { type: 'logged', seq: 9 }), { type: 'dropped', why: 'evicted' });
    expect(after).toEqual({ kind: 'dropped', why: 'shardDropped', was: { kind: 'dirty', snapshotted: true, fenced: true, batches: 1 } });
    expect(() => transition(after, { type: 'loaded' })).toThrow(ProjectStateError);
  });

  it('batches since the snapshot count logged and replayed batches, not merges; fenced once a stored append was answered', () => {
    const step = fc.oneof(
      fc.nat({ max: 3 }).map((seq): ProjectEvent => ({ type: 'logged', seq })),
      fc.boolean().map((quarantined): ProjectEvent => ({ type: 'replayed', quarantined })),
      fc.constant<ProjectEvent>({ type: 'changed' }),
      fc.constant<ProjectEvent>({ type: 'snapshotted' }),
    );
    fc.assert(fc.property(fc.boolean(), fc.array(step, { maxLength: 30 }), (drop, events) => {
      let s = transition({ kind: 'absent' }, { type: 'created', persist: true });
      if (drop) s = transition(s, { type: 'dropped', why: 'evicted' });
      let batches = 0;
      let changed = false;
      let fenced = false;
      for (const e of events) {
        s = transition(s, e);
        if (e.type === 'snapshotted') [batches, changed] = [0, false];
        else if (e.type === 'changed') changed = true;
        else batches++;
        if (e.type === 'logged' && e.seq > 0) fenced = true;
      }
      const held = heldState(s)!;
      expect(s.kind).toBe(drop ? 'dropped' : batches > 0 || changed ? 'dirty' : 'clean');
      expect(held.kind === 'dirty' ? held.batches : 0).toBe(batches);
      expect(held.kind !== 'loading' && held.kind !== 'memoryOnly' && held.fenced).toBe(fenced);
    }));
  });
});
