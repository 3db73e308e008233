import { hmacWithSuffixes, signature, wsSignatures, wsStringToSign } from '../src';

// The WebSocket string to sign (API.md §12, SymetryML's websocket-api.md example) and the
// one-pass HMAC the gateway checks its accepted forms with.
describe('WebSocket signing', () => {
  const secret = 'VLmAm+WkpnA5zp2wXiSYkw==';
  const body = '{"attributeNames":["sepal_length","sepal_width","petal_length"],"data":[["4.3","3","1.1"]],"attributeTypes":["C","C","C"]}';
  const parts = { contentMd5: 'H47KwjgTU5G7v8BJS+ttgg==', secret, symDate: '2014-10-24 17:24:04', customerId: 'c1', body, extraKeys: ['irisTest', 'testLDA'] };

  it("is the documentation's example line by line, the last key without newline", () => {
    expect(wsStringToSign({ ...parts, servicePath: '/symetry/ws/predict' }))
      .toBe(`H47KwjgTU5G7v8BJS+ttgg==\n${secret}\n2014-10-24 17:24:04\nc1\n${body}\n/symetry/ws/predict\nirisTest\ntestLDA`);
  });

  it("in the Rust client's form ends every key with a newline", () => {
    expect(wsStringToSign({ ...parts, servicePath: 'ws://h:8080/symetry/ws/predict', trailingNewline: true }).endsWith('\ntestLDA\n')).toBe(true);
  });

  it('hmacWithSuffixes is HMAC-SHA256 of prefix ‖ suffix, for every suffix', () => {
    const got = hmacWithSuffixes(secret, ['abc\n', Buffer.from('déf')], ['x', '', 'yz\n']);
    expect(got).toEqual(['abc\ndéfx', 'abc\ndéf', 'abc\ndéfyz\n'].map((m) => signature(secret, m)));
  });

  it('wsSignatures covers each service path with and without the last newline', () => {
    const paths = ['/symetry/ws/predict', 'ws://h:8080/symetry/ws/predict'];
    const expected = paths.flatMap((servicePath) => [false, true].map((trailingNewline) => signature(secret, wsStringToSign({ ...parts, servicePath, trailingNewline }))));
    expect(wsSignatures(parts, paths)).toEqual(expected);
  });
});
