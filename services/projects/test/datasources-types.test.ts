/**
 * The data-source domain's plain types, converted once from the protobuf messages at the
 * edges (datasources/types.ts): as the bus decodes a request (absent fields at their
 * defaults) and as a project's dsLog keeps its entries. The jobs that use them run in
 * dss*.e2e.test.ts.
 */
import { SmlError } from '@sml/core';
import { sml } from '@sml/proto';
import { redacted } from '../src/datasources/datasources';
import { dsColumnsFromProto, dsInfoFromProto, dsLogEntryFromProto, requestedDsInfo } from '../src/datasources/types';

const decoded = <T>(type: { encode(m: T): { finish(): Uint8Array }; decode(b: Uint8Array): T }, message: T): T => type.decode(type.encode(message).finish());

describe('DsInfo from protobuf', () => {
  it('a decoded DsInfo keeps its fields; absent ones are empty', () => {
    const full = decoded(sml.v1.DsInfo, sml.v1.DsInfo.create({ type: 'localfile', name: 'iris', info: { path: 'iris.csv' }, extra: ['C', 'T'] }));
    expect(dsInfoFromProto(full)).toEqual({ type: 'localfile', name: 'iris', info: { path: 'iris.csv' }, extra: ['C', 'T'] });
    expect(dsInfoFromProto({})).toEqual({ type: '', name: '', info: {}, extra: [] });
  });

  it('its settings are a copy: redacting or changing them leaves the message as it was', () => {
    const message = { type: 's3', name: 'b', info: { s3bucket: 'b', s3secretkey: 'k' } };
    const ds = dsInfoFromProto(message);
    ds.info.s3bucket = 'other';
    expect(redacted(ds).info).toEqual({ s3bucket: 'other' });
    expect(message.info).toEqual({ s3bucket: 'b', s3secretkey: 'k' });
  });

  it('a request without a DsInfo, or marked null, is DS_NULL', () => {
    const code = (req: sml.v1.IDsInfoRequest) => {
      try {
        requestedDsInfo(req);
      } catch (err) {
        return err instanceof SmlError ? err.code : 'other';
      }
      return 'none';
    };
    expect(code({})).toBe('DS_NULL');
    expect(code({ isNull: true, dsInfo: { type: 'localfile', name: 'a' } })).toBe('DS_NULL');
    expect(code({ dsInfo: { type: 'localfile', name: 'a' } })).toBe('none');
  });
});

describe('the columns a job reads', () => {
  it('lenient exactly when errorHandling is 1', () => {
    expect(dsColumnsFromProto({}).lenient).toBe(false);
    expect(dsColumnsFromProto({ errorHandling: 0 }).lenient).toBe(false);
    expect(dsColumnsFromProto({ errorHandling: 1 }).lenient).toBe(true);
    expect(dsColumnsFromProto({ errorHandling: 2 }).lenient).toBe(false);
  });

  it('names and types as sent, none when absent (every column)', () => {
    const frame = decoded(sml.v1.DataFrame, sml.v1.DataFrame.create({ attributeNames: ['a'], attributeTypes: ['C'] }));
    expect(dsColumnsFromProto(frame)).toEqual({ attributeNames: ['a'], attributeTypes: ['C'], lenient: false });
    expect(dsColumnsFromProto({})).toEqual({ attributeNames: [], attributeTypes: [], lenient: false });
  });
});

describe('a dsLog entry', () => {
  it('counts absent from a kept entry read as 0', () => {
    expect(dsLogEntryFromProto({ op: 'learn', state: 'failed' })).toEqual({ op: 'learn', state: 'failed', rowsLearned: 0, rowsSkipped: 0, bytesRead: 0 });
    const kept = decoded(sml.v1.DsLogEntry, sml.v1.DsLogEntry.fromObject({ op: 'forget', state: 'done', rowsLearned: 7, rowsSkipped: 2, bytesRead: 300 }));
    expect(dsLogEntryFromProto(kept)).toEqual({ op: 'forget', state: 'done', rowsLearned: 7, rowsSkipped: 2, bytesRead: 300 });
  });
});
