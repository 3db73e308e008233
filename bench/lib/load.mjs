// One autocannon run, with latencies kept at full resolution: autocannon's own histogram
// stores whole milliseconds, too coarse for a sub-millisecond overhead.
import autocannon from 'autocannon';

const WARMUP_SECONDS = 1;

/** Runs `connections` keep-alive connections for `seconds` against `url`; latencies in ms. */
export async function measure({ url, connections, seconds, setupRequest }) {
  const latencies = [];
  let non2xx = 0;
  const instance = autocannon({
    url,
    connections,
    duration: seconds,
    warmup: { connections, duration: WARMUP_SECONDS },
    requests: [{ setupRequest }],
  });
  instance.on('response', (_client, statusCode, _bytes, responseTimeMs) => {
    if (statusCode >= 200 && statusCode < 300) latencies.push(responseTimeMs);
    else non2xx++;
  });
  const result = await instance;
  const sorted = Float64Array.from(latencies).sort();
  const pct = (p) => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]);
  return {
    connections,
    requests: latencies.length,
    reqPerSec: latencies.length / seconds,
    p50: pct(50),
    p90: pct(90),
    p99: pct(99),
    non2xx,
    errors: result.errors + result.timeouts,
  };
}
