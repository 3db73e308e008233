import fc from 'fast-check';
import { checkName, formatMessage, isValidName, nameToken, smlError, tokenToName } from '@sml/core';

describe('names', () => {
  it.each(['p1', 'a.b', 'A_b-9', 'x'.repeat(128)])('accepts %s', (n) => expect(isValidName(n)).toBe(true));
  it.each(['', '.hidden', 'a..b', 'a/b', 'a b', 'a*', 'a>', 'x'.repeat(129), 'ü'])('rejects %j', (n) => expect(isValidName(n)).toBe(false));

  it('checkName answers 400 INVALID_NAME naming the kind and value', () => {
    expect(() => checkName('project', 'a/b')).toThrow(expect.objectContaining({ status: 400, code: 'INVALID_NAME', message: expect.stringContaining('project name [a/b]') }));
  });

  it('a control character is named by its position and code point, the name shown escaped on one line', () => {
    expect(() => checkName('attribute', 'Iris_virginica\r')).toThrow(expect.objectContaining({
      status: 400,
      code: 'INVALID_NAME',
      message: 'Invalid attribute name [Iris_virginica\\r]: character 15 is the control character U+000D (a carriage return: a Windows line ending left in the value?); names are 1-128 characters of [A-Za-z0-9_.-], not starting with "." and without ".."',
    }));
    expect(() => checkName('project', 'a\tb')).toThrow(expect.objectContaining({ message: expect.stringMatching(/^Invalid project name \[a\\tb\]: character 2 is the control character U\+0009; names are 1-128/) }));
    expect(() => checkName('project', 'a b')).toThrow(expect.objectContaining({ message: 'Invalid project name [a b]: 1-128 characters of [A-Za-z0-9_.-], not starting with "." and without ".."' }));
  });

  it('a message never carries a parameter\'s control character raw: each is escaped as JSON writes it', () => {
    expect(smlError('ENCODER_KEY_NOT_FOUND', { encoder: 'e', key: 'Iris_virginica\r' }).message).toContain('[Iris_virginica\\r]');
    expect(formatMessage('[{a}] [{b}]', { a: 'x\u0000\n\t', b: 'del\u007f' })).toBe('[x\\u0000\\n\\t] [del\\u007f]');
    const controls = (text: string) => [...text].filter((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (text) => {
      expect(controls(formatMessage('bad metric:[{metric}]', { metric: text }))).toEqual([]);
    }));
  });

  it('name tokens are injective, reversible and contain no subject separators', () => {
    fc.assert(fc.property(fc.stringMatching(/^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,20}$/), (n) => {
      const t = nameToken(n);
      expect(t).not.toMatch(/[.*> ]/);
      expect(tokenToName(t)).toBe(n);
    }));
  });
});
