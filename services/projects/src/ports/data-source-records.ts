/**
 * The data-source registry's records (KV `sml_dss`, which has this shape: DataSources keeps
 * the DsInfo protobuf under `<customer token>.<ds token>`). A key is deleted or purged by
 * writing a marker: `get` then answers an entry whose operation is not `PUT`, or null.
 */
export interface DataSourceRecords {
  /** Stores `value` under a key that holds none; throws (JetStream's "wrong last sequence") when it does. */
  create(key: string, value: Uint8Array): Promise<unknown>;
  put(key: string, value: Uint8Array): Promise<unknown>;
  get(key: string): Promise<{ operation: 'PUT' | 'DEL' | 'PURGE'; value: Uint8Array } | null>;
  delete(key: string): Promise<void>;
  purge(key: string): Promise<void>;
  /** The keys holding a value that match `filter` (NATS subject wildcards: `<customer token>.*`). */
  keys(filter?: string): Promise<AsyncIterable<string>>;
}
