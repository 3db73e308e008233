import { chunks, readRecord, recordFormat } from '@sml/streams';
import { StreamMarks } from '../../projects/src/learning/stream-marks';

const ds = (info: Record<string, string>, extra: string[] = []) => ({ type: 'kafka', name: 's', info, extra });

describe('stream records', () => {
  it('a JSON record becomes the row of its attributes in attributeNames order; missing fields are missing cells', () => {
    const f = recordFormat(ds({ attributeNames: 'x,y,z' }, ['C', 'T', 'B']));
    expect(readRecord(Buffer.from('{"z":true,"x":1.5,"y":"a"}'), f, 1e6)).toEqual(['1.5', 'a', '1']);
    expect(readRecord(Buffer.from('{"x":2}'), f, 1e6)).toEqual(['2', '', '']);
  });

  it('a CSV line is split with quotes, the separator of the DSInfo, and must have one field per attribute', () => {
    const f = recordFormat(ds({ format: 'csv', attributeNames: 'a,b,c', csv_entry_separator: ';' }));
    expect(readRecord(Buffer.from('1;"x;""y""";\n'), f, 1e6)).toEqual(['1', 'x;"y"', '']);
    expect(() => readRecord(Buffer.from('1;2'), f, 1e6)).toThrow(/2 fields, expected 3/);
    expect(() => readRecord(Buffer.from('"1;2;3'), f, 1e6)).toThrow(/unterminated/);
  });

  it('unreadable records are RecordErrors: not JSON, not an object, too large, empty', () => {
    const f = recordFormat(ds({ attributeNames: 'x' }));
    for (const v of ['{', '[1]', '"x"']) expect(() => readRecord(Buffer.from(v), f, 1e6)).toThrow(/not JSON|not a JSON object/);
    expect(() => readRecord(Buffer.from('{"x":1}'), f, 3)).toThrow(/SML_STREAM_MAX_RECORD_BYTES/);
    expect(() => readRecord(null, f, 10)).toThrow(/empty/);
  });

  it('a DSInfo without attribute names, with mismatched types or an unbuilt format is a 400', () => {
    expect(() => recordFormat(ds({}))).toThrow(/attributeNames/);
    expect(() => recordFormat(ds({ attributeNames: 'x,y' }, ['C']))).toThrow(/1 type codes for 2/);
    expect(() => recordFormat(ds({ attributeNames: 'x', 'data.format': 'protobuf' }))).toThrow(/not available/);
    expect(() => recordFormat(ds({ attributeNames: 'x', 'schema.registry.url': 'http://r' }))).toThrow(/schema registry/);
  });

  it('batches are cut at the record and byte bounds, never empty', () => {
    const recs = [5, 5, 5, 20, 1].map((n, i) => ({ offset: i, value: Buffer.alloc(n) }));
    expect(chunks(recs, { records: 2, bytes: 12, waitMs: 0 }).map((c) => c.map((r) => r.offset))).toEqual([[0, 1], [2], [3], [4]]);
  });
});

describe('project stream marks', () => {
  it('a batch starting at or below the mark of its (stream, partition) is covered; others are not', () => {
    const m = new StreamMarks();
    m.advance({ stream: 's', partition: 't:0', firstOffset: 0, lastOffset: 99 });
    expect(m.covering({ stream: 's', partition: 't:0', firstOffset: 50, lastOffset: 150 })).toBe(99);
    expect(m.covering({ stream: 's', partition: 't:0', firstOffset: 100, lastOffset: 150 })).toBeUndefined();
    expect(m.covering({ stream: 's', partition: 't:1', firstOffset: 0, lastOffset: 9 })).toBeUndefined();
    expect(m.covering({ stream: 'other', partition: 't:0', firstOffset: 0, lastOffset: 9 })).toBeUndefined();
    m.advance({ stream: 's', partition: 't:0', firstOffset: 10, lastOffset: 20 }); // never moves back
    const copy = new StreamMarks();
    copy.load(m.list());
    expect(copy.list()).toEqual([{ stream: 's', partition: 't:0', lastOffset: 99 }]);
  });
});
