import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { catalogue, ok } from '@sml/core';

// The error catalogue against the contract's own words: every status + message API.md quotes
// (extracted by scripts/extract-seed-messages.mjs into fixtures/seed-messages.json) must be
// answered by a catalogue entry with the same status and the same text, placeholders aside.
const fixture = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'seed-messages.json'), 'utf8')) as { messages: Array<{ status: number; message: string }> };

/** `Cannot Find Project id[{pid}]` and `Cannot Find Project id[<p>]` compare equal. */
const shape = (message: string) => message.replace(/\{[A-Za-z]+\}|<[A-Za-z]+>/g, '<>');

/**
 * A template whose placeholder stands for a whole phrase (`Generic Exception [...: {detail}]`)
 * matches the contract's message as a pattern; a bare `{detail}` template matches nothing.
 */
const pattern = (template: string) => {
  const literal = template.replace(/\{[A-Za-z]+\}/g, '');
  if (literal.length < 10) return undefined;
  return new RegExp(`^${template.split(/\{[A-Za-z]+\}/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.+')}$`);
};

describe('error catalogue vs API.md', () => {
  const entries = [...Object.values(catalogue), ...Object.values(ok)];

  it.each(fixture.messages)('$status $message', ({ status, message }) => {
    const same = entries.filter((e) => e.status === status && shape(e.message) === shape(message));
    const generic = entries.filter((e) => e.status === status && pattern(e.message)?.test(message.replace(/<[A-Za-z]+>/g, 'X')));
    expect({ message, found: same.length + generic.length > 0 }).toEqual({ message, found: true });
  });

  it('the fixture covers the seed messages (it is not empty and names its source)', () => {
    expect(fixture.messages.length).toBeGreaterThan(25);
  });
});
