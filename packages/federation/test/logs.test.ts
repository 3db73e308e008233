/** Log lines, their bounds and peer lines. */
import { type LogEntry, boundedLog, foldedMessage, logLine, peerInfo, rejectedMessage, sentMessage } from '@sml/federation';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 29, 12);

test('a log line is <ISO time> [<peer|self>] <message>', () => {
  expect(logLine({ at: NOW, peer: 'self', message: sentMessage(3, 120) })).toBe('2026-11-29T12:00:00.000Z [self] sent seq=3 rows=120');
  expect(logLine({ at: NOW, peer: 'b-uuid', message: foldedMessage('b-uuid', 4, 80) })).toBe('2026-11-29T12:00:00.000Z [b-uuid] folded b-uuid seq=4 rows=80');
  expect(rejectedMessage('replay', 'seq 4 not above the last accepted 4')).toBe('rejected (replay): seq 4 not above the last accepted 4');
});

test('logs keep the newest 1000 entries, none older than 30 days, oldest first', () => {
  // One entry every 48 min over ≈ 50 days: the last 30 days hold 901 of them.
  const spread = (every: number): LogEntry[] => Array.from({ length: 1500 }, (_, i) => ({ at: NOW - (1499 - i) * every, peer: 'self', message: `m${i}` }));
  const old = boundedLog(spread(DAY / 30), NOW);
  expect(old.map((e) => e.message)).toEqual(spread(DAY / 30).slice(599).map((e) => e.message));
  // One every ≈ 15 min: all within 30 days, the newest 1000 kept.
  expect(boundedLog(spread(DAY / 100), NOW).map((e) => e.message)).toEqual(spread(DAY / 100).slice(500).map((e) => e.message));
});

test('peersInfo values', () => {
  expect(peerInfo({ pid: 'p1', status: 'accepted', rows: 50, lastSync: NOW })).toBe('pid=p1;status=accepted;rows=50;lastSync=2026-11-29T12:00:00.000Z');
  expect(peerInfo({ pid: 'p2', status: 'silent', rows: 0 })).toBe('pid=p2;status=silent;rows=0;lastSync=');
});
