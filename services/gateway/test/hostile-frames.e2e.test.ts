import { SmlClient } from '@sml/sdk';
import { startSystem, type RunningSystem } from '@sml/testkit';

// Bad learn bodies against the real processes (issue 9, "bad input that still gets 500"):
// each answers 400 naming the problem, whichever reader takes the frame (the gateway's fast
// reader, or the projects service's general path when it declines), and nothing crashes.
const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
const body = (names: string, types: string, data: string, extra = '') => `{"attributeNames":${names},"attributeTypes":${types},"data":${data}${extra}}`;
const bytes = (...parts: (string | number[])[]) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));

describe('hostile learn bodies', () => {
  let sys: RunningSystem;
  let alice: SmlClient;

  beforeAll(async () => {
    sys = await startSystem({ services: ['users', 'jobs', 'projects'], env: { SML_MAX_NAME_LENGTH: '64' } });
    const root = new SmlClient({ url: sys.url, user: sys.rootUser, secret: sys.rootSecret });
    const r = await root.addUser('alice');
    alice = new SmlClient({ url: sys.url, user: 'alice', secret: String((r.body.values as { secretKey: string }).secretKey) });
    expect((await alice.createProject('h')).status).toBe(201);
    // A partition project reads cells: its learns take the projects service's general path.
    expect((await alice.createProject('parts', { type: 'partition', params: { partitionSplit: 'p' } })).status).toBe(201);
  });
  afterAll(() => sys?.stop());

  const learn = (raw: Buffer | string, pid = 'h') => alice.request('POST', `/projects/${pid}/learn`, { raw, headers: { 'content-type': 'application/json' } });

  it.each([
    ['a raw U+0001 in a categorical cell', body('["a","t"]', '["C","T"]', '[["1","x\u0001y"]]'), /^Malformed JSON body: Bad control character in string literal/],
    ['a raw newline in a numeric cell', body('["a"]', '["C"]', '[["1\n"]]'), /^Malformed JSON body: Bad control character in string literal/],
    ['a raw U+0001 in an attribute name', body('["a\u0001"]', '["C"]', '[["1"]]'), /^Malformed JSON body: Bad control character in string literal/],
    ['an unpaired surrogate in an attribute name', body('["\\ud800"]', '["C"]', '[["1"]]'),
      /^Invalid DataFrame at column \[\\ud800\]: the attribute name is not valid Unicode text \(an unpaired surrogate\)$/],
    ['an unpaired surrogate in a categorical value', body('["a","t"]', '["C","T"]', '[["1","\\udc00"]]'),
      /^Invalid DataFrame at row 1, column \[t\]: the cell is not valid Unicode text \(an unpaired surrogate\)$/],
    ['a numeric cell nested 10⁵ arrays deep', body('["a"]', '["C"]', `[[${deep(100_000)}]]`),
      /^Invalid DataFrame at row 1, column \[a\]: a cell must be a string, a number or null, not an array$/],
    ['a categorical cell nested 10⁵ arrays deep', body('["a","t"]', '["C","T"]', `[["1",${deep(100_000)}]]`),
      /^Invalid DataFrame at row 1, column \[t\]: a cell must be a string, a number or null, not an array$/],
    ['data nested 10⁵ arrays deep', body('["a"]', '["C"]', deep(100_000)), /^Invalid DataFrame at row 1, column \[a\]: a cell must be a string, a number or null, not an array$/],
    ['an attribute name nested 10⁵ arrays deep', body(`[${deep(100_000)}]`, '["C"]', '[["1"]]'), /^attribute names must be non-empty strings, not an array \(attribute 1\)$/],
    ['errorHandling 2', body('["a"]', '["C"]', '[["1"]]', ',"errorHandling":2'), /^errorHandling must be 0 \(strict\) or 1 \(lenient\), not \[2\]$/],
    ['errorHandling "1"', body('["a"]', '["C"]', '[["1"]]', ',"errorHandling":"1"'), /^errorHandling must be 0 \(strict\) or 1 \(lenient\), not \[1\]$/],
    ['the type code " C"', body('["a"]', '[" C"]', '[["1"]]'), /^Invalid DataFrame at column \[a\]: unknown attribute type code \[ C\]: expected exactly one of C, B, T, S, L, X \(no spaces\)$/],
    ['an attribute name over SML_MAX_NAME_LENGTH', body(`["${'n'.repeat(65)}"]`, '["C"]', '[["1"]]'),
      /^Invalid DataFrame at column \[n{65}\]: the attribute name has 65 characters, over the limit of 64$/],
    ['a categorical value making a name over SML_MAX_NAME_LENGTH', body('["a","t"]', '["C","T"]', `[["1","${'v'.repeat(63)}"]]`),
      /^Invalid DataFrame at column \[t\]: the value \[v{63}\] makes an attribute name of 65 characters, over the limit of 64$/],
    ['bytes that are not UTF-8 in a cell', bytes('{"attributeNames":["a","t"],"attributeTypes":["C","T"],"data":[["1","x', [0xff, 0xfe], '"]]}'), /^Malformed JSON body: invalid UTF-8 at byte 70$/],
    ['bytes that are not UTF-8 in a name', bytes('{"attributeNames":["a', [0xc3], '"],"attributeTypes":["C"],"data":[["1"]]}'), /^Malformed JSON body: invalid UTF-8 at byte 21$/],
    ['an encoded surrogate (CESU-8) in an ignored cell', bytes('{"attributeNames":["a","x"],"attributeTypes":["C","X"],"data":[["1","', [0xed, 0xa0, 0x80], '"]]}'), /^Malformed JSON body: invalid UTF-8 at byte 69$/],
  ])('%s → 400 naming the problem', async (_what, sent, message) => {
    for (const pid of ['h', 'parts']) {
      const r = await learn(sent, pid);
      expect({ pid, status: r.status, statusCode: r.body.statusCode }).toEqual({ pid, status: 400, statusCode: 400 });
      expect(r.body.statusString).toMatch(message);
    }
  });

  it('a lenient frame skips a row holding 10⁵ nested arrays and learns the others', async () => {
    const r = await learn(body('["a"]', '["C"]', `[[${deep(100_000)}],["2"]]`, ',"errorHandling":1'));
    expect(r.status).toBe(200);
    expect(r.body.values).toEqual({ learnReport: { rowsLearned: 1, rowsSkipped: 1, errors: ['Invalid DataFrame at row 1, column [a]: a cell must be a string, a number or null, not an array'] } });
  });

  it('other JSON bodies: nesting deeper than 64, unpaired surrogates and non-UTF-8 bytes → 400 naming them', async () => {
    const cases: [string, Buffer | string, RegExp][] = [
      ['/projects/h/predict/m', `{"attributeNames":["a"],"attributeTypes":["C"],"data":[[${deep(100_000)}]]}`, /^Malformed JSON body: nested deeper than 64 arrays and objects \(at byte 117\)$/],
      ['/projects/h/predict/m', '{"attributeNames":["a"],"attributeTypes":["C"],"data":[[["1"]]]}', /^Invalid request: body.data: data must be an array of rows/],
      ['/projects/h/build?modelid=m&algo=mlr', '{"inputAttributeNames":["\\ud800"],"targetAttributeNames":["b"]}', /^Malformed JSON body: "\\ud800" is not valid Unicode text \(an unpaired surrogate\)$/],
      ['/projects?pid=q', '{"\\udfff":"1"}', /^Malformed JSON body: "\\udfff" is not valid Unicode text/],
      ['/projects?pid=q', bytes('{"x":"', [0xed, 0xa0, 0x80], '"}'), /^Malformed JSON body: invalid UTF-8 at byte 6$/],
    ];
    for (const [path, sent, message] of cases) {
      const [p, query] = path.split('?');
      const r = await alice.request('POST', p, { raw: sent, query, headers: { 'content-type': 'application/json' } });
      expect({ path, status: r.status }).toEqual({ path, status: 400 });
      expect(r.body.statusString).toMatch(message);
    }
  });

  it('after all of it every process is up and the project learns and answers', async () => {
    expect(sys.unexpectedExits()).toEqual([]);
    const ok = await alice.learn('h', { attributeNames: ['a', '😀'.repeat(64)], attributeTypes: ['C', 'C'], data: [['1', '2'], ['3', '4']] });
    expect(ok.status).toBe(200);
    const info = await alice.projectInfo('h');
    expect(info.status).toBe(200);
    expect((info.body.values as { smlInfo: { attributeNames: string[] } }).smlInfo.attributeNames).toEqual(['a', '😀'.repeat(64)]);
  });
});
