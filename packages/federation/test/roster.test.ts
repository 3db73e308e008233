/** The signed roster: only the admin's signature, for this federation, newer than the one held. */
import { newNodeKey, RosterError, newRoster, signRoster, verifyRoster, withMember, withoutMember } from '@sml/federation';

const admin = newNodeKey();
const peer = newNodeKey();
const first = newRoster('FED', 'admin-uuid', admin.publicKey);
const second = withMember(first, 'peer-uuid', peer.publicKey);

const reason = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return (e as RosterError).reason;
  }
  return 'accepted';
};

test('members are added and removed one version at a time; the admin stays', () => {
  expect(second.version).toBe(2);
  expect(second.members).toEqual({ 'admin-uuid': admin.publicKey, 'peer-uuid': peer.publicKey });
  expect(withoutMember(second, 'peer-uuid')).toEqual({ ...first, version: 3 });
  expect(() => withoutMember(second, 'admin-uuid')).toThrow(RosterError);
});

test('a roster signed by the admin verifies; the receiver gets it back', () => {
  expect(verifyRoster(signRoster(second, admin.privateKey), admin.publicKey, 'FED', 1)).toEqual(second);
});

test('whatever order the keys came in, the signature holds (canonical JSON)', () => {
  const signed = signRoster(second, admin.privateKey);
  const reordered = { signature: signed.signature, roster: { members: { 'peer-uuid': peer.publicKey, 'admin-uuid': admin.publicKey }, admin: 'admin-uuid', version: 2, fed: 'FED' } };
  expect(verifyRoster(JSON.parse(JSON.stringify(reordered)), admin.publicKey, 'FED')).toEqual(second);
});

test.each([
  ['signed by a member, not the admin', () => verifyRoster(signRoster(second, peer.privateKey), admin.publicKey, 'FED'), 'signature'],
  ['a member added after signing', () => {
    const s = signRoster(second, admin.privateKey);
    return verifyRoster({ ...s, roster: withMember(s.roster, 'intruder', peer.publicKey) }, admin.publicKey, 'FED');
  }, 'signature'],
  ['of another federation', () => verifyRoster(signRoster({ ...second, fed: 'OTHER' }, admin.privateKey), admin.publicKey, 'FED'), 'federation'],
  ['an older roster replayed', () => verifyRoster(signRoster(first, admin.privateKey), admin.publicKey, 'FED', 2), 'stale'],
  ['the same version again', () => verifyRoster(signRoster(second, admin.privateKey), admin.publicKey, 'FED', 2), 'stale'],
  ['without the admin among its members', () => verifyRoster(signRoster({ ...second, members: { 'peer-uuid': peer.publicKey } }, admin.privateKey), admin.publicKey, 'FED'), 'malformed'],
  ['not a roster', () => verifyRoster({ roster: 'x', signature: 'y' }, admin.publicKey, 'FED'), 'malformed'],
])('refused: %s', (_what, f, expected) => {
  expect(reason(f)).toBe(expected);
});
