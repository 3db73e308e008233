import { catalogue, ok } from '@sml/core';

// A person reading an answer cannot open our source tree: messages say what to do, not where
// the code is.
describe('catalogue messages', () => {
  it('name no source file', () => {
    const entries = Object.entries({ ...catalogue, ...ok });
    expect(entries.filter(([, e]) => /\b[\w-]+\.(ts|js)\b/.test(e.message)).map(([code]) => code)).toEqual([]);
  });
});
