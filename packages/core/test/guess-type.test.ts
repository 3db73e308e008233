import { guessType } from '@sml/core';

// The guess a data source's sample/preview shows and the clients' CSV helpers reuse.
describe('guessType', () => {
  it('C for numbers, B for 0/1 only, T for anything else', () => {
    expect(guessType(['1.5', '-2', '3e4'])).toBe('C');
    expect(guessType(['0', '1', '1'])).toBe('B');
    expect(guessType(['0', '2'])).toBe('C');
    expect(guessType(['a', '1'])).toBe('T');
  });

  it('missing cells (empty, NA, NaN, null, ?) do not decide; none left is C', () => {
    expect(guessType(['', 'NA', '1', 'null', '0', '?', ' nan '])).toBe('B');
    expect(guessType(['', 'NA'])).toBe('C');
    expect(guessType([])).toBe('C');
  });

  it('cells are trimmed before they are judged', () => {
    expect(guessType([' 1 ', '0\r'])).toBe('B');
    expect(guessType([' 2.5', 'x '])).toBe('T');
  });
});
