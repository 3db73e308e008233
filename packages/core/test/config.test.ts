import { Writable } from 'node:stream';
import { ConfigError, STATS_KERNEL_CONFIG, createLogger, loadConfig, statsKernels } from '@sml/core';

describe('config from the environment', () => {
  it('fills defaults', () => {
    const c = loadConfig({});
    expect(c).toEqual(expect.objectContaining({ SML_PORT: 8080, SML_BASE_PATH: '/symetry/rest', SML_ROOT_USER: 'root', SML_MAX_BODY_BYTES: 256 * 1024 * 1024 }));
    expect(c.SML_ROOT_SECRET).toBeUndefined();
    expect(c.SML_ONLINE_MODEL_THREADS).toBe(1);
  });

  it.each([
    ['SML_PORT', 'eighty'],
    ['SML_PORT', '70000'],
    ['SML_ROOT_SECRET', 'short'],
    ['SML_BASE_PATH', 'no-slash'],
    ['SML_LOG_LEVEL', 'loud'],
    ['SML_ONLINE_MODEL_THREADS', '0'],
    ['SML_ONLINE_MODEL_THREADS', '17'],
  ])('a bad %s=%s stops boot with a message naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`^Invalid environment: ${name}: `));
  });
});

describe('limit names (SML_MAX_<WHAT>[_<UNIT>]) and their old names', () => {
  it.each([
    ['SML_MAX_BODY_BYTES', 'SML_BODY_LIMIT'],
    ['SML_MAX_IN_FLIGHT_BODY_BYTES', 'SML_MAX_BODY_BYTES_IN_FLIGHT'],
  ] as const)('%s is read under its old name %s too', (name, alias) => {
    expect(loadConfig({ [alias]: '12345' })[name]).toBe(12345);
    expect(loadConfig({ [name]: '12345' })[name]).toBe(12345);
    // The same value under both names is no conflict.
    expect(loadConfig({ [name]: '12345', [alias]: '12345' })[name]).toBe(12345);
    expect(loadConfig({ [alias]: '12345' }, [name])).toEqual({ [name]: 12345 });
  });

  it('the old name is validated as the new one is, and named with it when the two disagree', () => {
    expect(() => loadConfig({ SML_BODY_LIMIT: '0' })).toThrow(/^Invalid environment: SML_MAX_BODY_BYTES: /);
    expect(() => loadConfig({ SML_MAX_BODY_BYTES: '100', SML_BODY_LIMIT: '200' })).toThrow(ConfigError);
    expect(() => loadConfig({ SML_MAX_BODY_BYTES: '100', SML_BODY_LIMIT: '200' })).toThrow(/SML_MAX_BODY_BYTES and SML_BODY_LIMIT \(its old name\) are both set, to different values/);
    expect(() => loadConfig({ SML_MAX_IN_FLIGHT_BODY_BYTES: '100', SML_MAX_BODY_BYTES_IN_FLIGHT: '200' }, ['SML_MAX_IN_FLIGHT_BODY_BYTES'])).toThrow(/SML_MAX_IN_FLIGHT_BODY_BYTES and SML_MAX_BODY_BYTES_IN_FLIGHT/);
  });
});

describe('a slice of the configuration', () => {
  it('reads and validates only the variables it names', () => {
    // Another process's bad variable does not stop this one.
    expect(loadConfig({ SML_PORT: 'eighty', SML_JOB_TTL_MS: '5' }, ['SML_JOB_TTL_MS', 'SML_LOG_LEVEL'])).toEqual({ SML_JOB_TTL_MS: 5, SML_LOG_LEVEL: 'info' });
    expect(() => loadConfig({ SML_JOB_TTL_MS: '0' }, ['SML_JOB_TTL_MS'])).toThrow(/^Invalid environment: SML_JOB_TTL_MS: /);
  });

  it('SML_SOURCE_TIMEOUT_MS brings the request timeout it is checked against', () => {
    expect(loadConfig({ SML_REQUEST_TIMEOUT_MS: '3000' }, ['SML_SOURCE_TIMEOUT_MS'])).toEqual({ SML_SOURCE_TIMEOUT_MS: 2000, SML_REQUEST_TIMEOUT_MS: 3000 });
    expect(() => loadConfig({ SML_SOURCE_TIMEOUT_MS: '30000' }, ['SML_SOURCE_TIMEOUT_MS'])).toThrow(/must be less than SML_REQUEST_TIMEOUT_MS/);
  });
});

describe('stats kernels', () => {
  it('SML_STATS_KERNEL and SML_STATS_NATIVE are validated and become selectKernels options', () => {
    expect(statsKernels(loadConfig({}, STATS_KERNEL_CONFIG))).toEqual({ kernel: 'auto', native: true });
    expect(statsKernels(loadConfig({ SML_STATS_KERNEL: 'js', SML_STATS_NATIVE: '0' }, STATS_KERNEL_CONFIG))).toEqual({ kernel: 'js', native: false });
    expect(() => loadConfig({ SML_STATS_KERNEL: 'gpu' }, STATS_KERNEL_CONFIG)).toThrow(/^Invalid environment: SML_STATS_KERNEL: /);
  });
});

describe('data-source timeouts', () => {
  it('SML_SOURCE_TIMEOUT_MS follows the request timeout unless set, and must be less than it', () => {
    expect(loadConfig({}).SML_SOURCE_TIMEOUT_MS).toBe(20_000);
    expect(loadConfig({ SML_REQUEST_TIMEOUT_MS: '3000' }).SML_SOURCE_TIMEOUT_MS).toBe(2000);
    expect(loadConfig({ SML_SOURCE_TIMEOUT_MS: '1500', SML_REQUEST_TIMEOUT_MS: '3000' }).SML_SOURCE_TIMEOUT_MS).toBe(1500);
    expect(() => loadConfig({ SML_SOURCE_TIMEOUT_MS: '30000' })).toThrow(/^Invalid environment: SML_SOURCE_TIMEOUT_MS: must be less than SML_REQUEST_TIMEOUT_MS \(30000\)/);
    expect(loadConfig({})).toEqual(expect.objectContaining({ SML_SOURCE_READ_DEADLINE_MS: 21_600_000, SML_SOURCE_MIN_BYTES_PER_S: 1024, SML_SOURCE_RATE_WINDOW_MS: 60_000 }));
  });
});

describe('logger', () => {
  it('redacts secrets and credentials from every log line', () => {
    const lines: string[] = [];
    const sink = new Writable({ write(chunk, _enc, done) { lines.push(chunk.toString()); done(); } });
    const log = createLogger('t', 'info', sink);
    log.info({ req: { headers: { authorization: 'SIGNATURE' } }, secretKey: 'S3CRET', dsinfo: { info: { s3secretKey: 'AWSKEY', rspasswd: 'PGPASS', path: 'data.csv' } } }, 'hello');
    const out = lines.join('');
    for (const secret of ['SIGNATURE', 'S3CRET', 'AWSKEY', 'PGPASS']) expect(out).not.toContain(secret);
    expect(out).toContain('data.csv');
    expect(out).toContain('[REDACTED]');
  });

  it('redacts bus credentials (config, connection options)', () => {
    const lines: string[] = [];
    const sink = new Writable({ write(chunk, _enc, done) { lines.push(chunk.toString()); done(); } });
    const log = createLogger('t', 'info', sink);
    log.info({ config: { SML_NATS_USER: 'explore', SML_NATS_PASSWORD: 'NATSPW1' }, SML_NATS_PASSWORD: 'NATSPW2', opts: { user: 'explore', pass: 'NATSPW3' }, password: 'NATSPW4' }, 'boot');
    const out = lines.join('');
    for (const secret of ['NATSPW1', 'NATSPW2', 'NATSPW3', 'NATSPW4']) expect(out).not.toContain(secret);
    expect(out).toContain('explore');
  });

  it('reads the bus identity from SML_NATS_USER / SML_NATS_PASSWORD', () => {
    expect(loadConfig({ SML_NATS_USER: 'jobs', SML_NATS_PASSWORD: 'pw' })).toEqual(expect.objectContaining({ SML_NATS_USER: 'jobs', SML_NATS_PASSWORD: 'pw' }));
    expect(() => loadConfig({ SML_NATS_USER: 'a b' })).toThrow(/^Invalid environment: SML_NATS_USER: /);
  });
});
