/*
 * The native kernels of @sml/stats (kernels/native.ts loads them), for CPUs with AVX2 and FMA.
 * Built by scripts/native.mjs into build/kernels.node (Node-API, so one binary serves every
 * Node version of the machine); where it is not built or the CPU lacks AVX2/FMA, each caller
 * uses its WebAssembly or JavaScript way instead.
 *
 * Each checks its arguments against its arrays' lengths: a wrong call throws, never reads or
 * writes outside them.
 *
 * strip: the cross-product kernel of kernels/gram.ts (four rows per 256-bit lane, fused
 * multiply-adds), the same contract as gram.wat's strip:
 *   strip(x, stride, b, out): for the columns a in [0, b + 4) and j in [0, 4):
 *     out[4a + j] = Σ_r X[a][r] · X[b + j][r]
 * X is column-major in the Float64Array x, a column every `stride` doubles (a multiple of 4,
 * the padding rows zero); b is a multiple of 4 and the columns up to b + 3 exist. Tiles of
 * 2 × 4 columns: eight accumulators and six operands in the sixteen vector registers.
 */
#define NAPI_VERSION 8
#include <node_api.h>
#include <immintrin.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

__attribute__((target("avx2,fma"))) static double lanes(__m256d v) {
  __m128d low = _mm256_castpd256_pd128(v);
  __m128d high = _mm256_extractf128_pd(v, 1);
  __m128d pair = _mm_add_pd(low, high);
  return _mm_cvtsd_f64(_mm_add_sd(pair, _mm_unpackhi_pd(pair, pair)));
}

__attribute__((target("avx2,fma"))) static void strip(const double *x, size_t stride, size_t b, double *out) {
  const double *v0 = x + b * stride, *v1 = v0 + stride, *v2 = v1 + stride, *v3 = v2 + stride;
  for (size_t a = 0; a < b + 4; a += 2) {
    const double *u = x + a * stride, *w = u + stride;
    __m256d s0 = _mm256_setzero_pd(), s1 = _mm256_setzero_pd(), s2 = _mm256_setzero_pd(), s3 = _mm256_setzero_pd();
    __m256d t0 = _mm256_setzero_pd(), t1 = _mm256_setzero_pd(), t2 = _mm256_setzero_pd(), t3 = _mm256_setzero_pd();
    for (size_t r = 0; r < stride; r += 4) {
      __m256d ur = _mm256_loadu_pd(u + r), wr = _mm256_loadu_pd(w + r);
      __m256d x0 = _mm256_loadu_pd(v0 + r), x1 = _mm256_loadu_pd(v1 + r), x2 = _mm256_loadu_pd(v2 + r), x3 = _mm256_loadu_pd(v3 + r);
      s0 = _mm256_fmadd_pd(ur, x0, s0);
      s1 = _mm256_fmadd_pd(ur, x1, s1);
      s2 = _mm256_fmadd_pd(ur, x2, s2);
      s3 = _mm256_fmadd_pd(ur, x3, s3);
      t0 = _mm256_fmadd_pd(wr, x0, t0);
      t1 = _mm256_fmadd_pd(wr, x1, t1);
      t2 = _mm256_fmadd_pd(wr, x2, t2);
      t3 = _mm256_fmadd_pd(wr, x3, t3);
    }
    double *o = out + 4 * a;
    o[0] = lanes(s0); o[1] = lanes(s1); o[2] = lanes(s2); o[3] = lanes(s3);
    o[4] = lanes(t0); o[5] = lanes(t1); o[6] = lanes(t2); o[7] = lanes(t3);
  }
}

static napi_value fail(napi_env env, const char *message) {
  napi_throw_range_error(env, NULL, message);
  return NULL;
}

/* The doubles of a Float64Array argument, or NULL (an exception pending) when it is not one. */
static double *doubles(napi_env env, napi_value value, size_t *length) {
  napi_typedarray_type type;
  void *data;
  if (napi_get_typedarray_info(env, value, &type, length, &data, NULL, NULL) != napi_ok || type != napi_float64_array) {
    fail(env, "kernels.node: expected a Float64Array");
    return NULL;
  }
  return (double *)data;
}

/* The call's `n` arguments into argv; false (a RangeError naming `usage` pending) when it has another count. */
static bool arguments(napi_env env, napi_callback_info info, size_t n, napi_value *argv, const char *usage) {
  size_t argc = n;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) == napi_ok && argc == n) return true;
  fail(env, usage);
  return false;
}

static napi_value strip_js(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  if (!arguments(env, info, 4, argv, "kernels.node: strip(x, stride, b, out)")) return NULL;
  size_t xs, outs;
  double *x = doubles(env, argv[0], &xs);
  if (x == NULL) return NULL;
  double *out = doubles(env, argv[3], &outs);
  if (out == NULL) return NULL;
  int64_t stride, b;
  if (napi_get_value_int64(env, argv[1], &stride) != napi_ok || napi_get_value_int64(env, argv[2], &b) != napi_ok) return fail(env, "kernels.node: stride and b are integers");
  // Every access in bounds, whatever the caller passes: a wrong call throws, it never reads past the arrays.
  if (stride <= 0 || stride % 4 != 0 || b < 0 || b % 4 != 0) return fail(env, "kernels.node: stride a positive multiple of 4, b a multiple of 4");
  if ((size_t)(b + 4) * (size_t)stride > xs || (size_t)(b + 4) * 4 > outs) return fail(env, "kernels.node: the columns up to b + 3 must exist");
  strip(x, (size_t)stride, (size_t)b, out);
  return NULL;
}

/*
 * fromMantissas(mantissas, scale, out): out[r] = mantissas[r] / 10^scale, NaN for the missing
 * mark (INT32_MIN), four at a time; each quotient is the correctly rounded one, as JavaScript's
 * division gives (frame-columns.ts).
 */
__attribute__((target("avx2,fma"))) static void from_mantissas(const int32_t *m, size_t n, double p, double *out) {
  const __m256d divisor = _mm256_set1_pd(p);
  const __m128i missing = _mm_set1_epi32(INT32_MIN);
  const __m256d nan = _mm256_set1_pd(__builtin_nan(""));
  size_t r = 0;
  for (; r + 4 <= n; r += 4) {
    __m128i q = _mm_loadu_si128((const __m128i *)(m + r));
    __m256d v = _mm256_div_pd(_mm256_cvtepi32_pd(q), divisor);
    __m256d absent = _mm256_castsi256_pd(_mm256_cvtepi32_epi64(_mm_cmpeq_epi32(q, missing)));
    _mm256_storeu_pd(out + r, _mm256_blendv_pd(v, nan, absent));
  }
  for (; r < n; r++) out[r] = m[r] == INT32_MIN ? __builtin_nan("") : (double)m[r] / p;
}

static const double POW10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};

static napi_value from_mantissas_js(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  if (!arguments(env, info, 3, argv, "kernels.node: fromMantissas(mantissas, scale, out)")) return NULL;
  napi_typedarray_type type;
  size_t n, outs;
  void *data;
  if (napi_get_typedarray_info(env, argv[0], &type, &n, &data, NULL, NULL) != napi_ok || type != napi_int32_array) return fail(env, "kernels.node: expected an Int32Array");
  double *out = doubles(env, argv[2], &outs);
  if (out == NULL) return NULL;
  int64_t scale;
  if (napi_get_value_int64(env, argv[1], &scale) != napi_ok || scale < 0 || scale > 9) return fail(env, "kernels.node: scale an integer from 0 to 9");
  if (outs != n) return fail(env, "kernels.node: out must have one double per mantissa");
  from_mantissas((const int32_t *)data, n, POW10[scale], out);
  return NULL;
}

/*
 * binColumn(values, t, count, counts, state): the tight loop of a streaming histogram's
 * addColumn (histogram.ts) for a column read whole with an exact inverse width: from row t,
 * counts each present value whose bin k = floor(v · inverse) lies strictly between `low` and
 * `high`, moving them as the occupied span [kmin, kmax] widens, exactly as that loop does.
 * Stops at the first value that does not fit, at −0 and at a negative value whose quotient
 * underflows to zero (the general add() places those), and returns its row (count when done).
 * state: [inverse, lo, bins, kmin, kmax, added]; kmin, kmax and added are written back.
 */
#define INDEX_LIMIT 4503599627370496.0 /* 2^52, as histogram.ts */

static double lower_bound(double lo, double kmax, double bins) {
  double low = lo - 1 > kmax - bins ? lo - 1 : kmax - bins;
  return low > -INDEX_LIMIT ? low : -INDEX_LIMIT;
}

static double upper_bound(double end, double kmin, double bins) {
  double high = end < kmin + bins ? end : kmin + bins;
  return high < INDEX_LIMIT ? high : INDEX_LIMIT;
}

__attribute__((target("avx2,fma"))) static size_t bin_column(const double *values, size_t t, size_t count, double *counts, size_t slots, double *state) {
  const double inverse = state[0], lo = state[1], bins = state[2], end = lo + (double)slots;
  double kmin = state[3], kmax = state[4], added = 0;
  double low = lower_bound(lo, kmax, bins), high = upper_bound(end, kmin, bins);
  for (; t < count; t++) {
    const double v = values[t];
    if (v != v) continue;
    const double q = v * inverse;
    if (q == 0 && (v < 0 || __builtin_signbit(v))) break;
    const double k = __builtin_floor(q);
    if (k <= low || k >= high) break;
    counts[(int64_t)(k - lo)] += 1;
    added++;
    if (k < kmin) { kmin = k; high = upper_bound(end, kmin, bins); }
    if (k > kmax) { kmax = k; low = lower_bound(lo, kmax, bins); }
  }
  state[3] = kmin;
  state[4] = kmax;
  state[5] = added;
  return t;
}

static napi_value bin_column_js(napi_env env, napi_callback_info info) {
  napi_value argv[5];
  if (!arguments(env, info, 5, argv, "kernels.node: binColumn(values, t, count, counts, state)")) return NULL;
  size_t n, slots, states;
  double *values = doubles(env, argv[0], &n);
  if (values == NULL) return NULL;
  double *counts = doubles(env, argv[3], &slots);
  if (counts == NULL) return NULL;
  double *state = doubles(env, argv[4], &states);
  if (state == NULL) return NULL;
  int64_t t, count;
  if (napi_get_value_int64(env, argv[1], &t) != napi_ok || napi_get_value_int64(env, argv[2], &count) != napi_ok) return fail(env, "kernels.node: t and count are integers");
  if (states != 6 || t < 0 || count < t || (size_t)count > n) return fail(env, "kernels.node: binColumn needs 0 <= t <= count <= values.length and a state of 6");
  /*
   * Every bin counted lies strictly between low ≥ lo − 1 and high ≤ lo + slots, so its index
   * k − lo is in [0, slots) once lo, bins and the span are finite numbers (NaN compares false).
   */
  if (!(state[3] <= state[4]) || !(state[1] - 1 <= state[3]) || !(state[4] < state[1] + (double)slots) ||
      !__builtin_isfinite(state[0]) || !__builtin_isfinite(state[2]) || !(state[2] >= 1) || !__builtin_isfinite(state[1])) {
    return fail(env, "kernels.node: binColumn's state must be finite and its span lie in its window");
  }
  napi_value result;
  napi_create_int64(env, (int64_t)bin_column(values, (size_t)t, (size_t)count, counts, slots, state), &result);
  return result;
}

/*
 * learnAttributes(columns, offsets, attrs, layout, block, out): moments.ts learnAttribute for
 * q columns of equal length, four columns at a time, one per 256-bit lane, each lane doing
 * exactly the scalar operations in the scalar order (no FMA: adds, subtracts and multiplies
 * round as JavaScript's), so every sum is the one learnAttribute makes, bit for bit. A missing
 * value (NaN) counts as 0 in every sum of its lane: adding +0 to a sum that started at +0 leaves
 * it and its compensation as they were (neither can become −0), which is skipping it.
 *   attrs at offsets[c] + layout[i] (layout: N, S1, S2, S3, S4, MIN, MAX): the stored count,
 *   compensated power sums (sum, compensation) and extremes, updated per block of `block` rows;
 *   out[9c .. 9c + 8]: the count and the column's own compensated sums, as learnAttribute returns.
 */
__attribute__((target("avx2,fma"))) static inline __m256d two_sum_error(__m256d s, __m256d v, __m256d t) {
  __m256d vv = _mm256_sub_pd(t, s);
  return _mm256_add_pd(_mm256_sub_pd(s, _mm256_sub_pd(t, vv)), _mm256_sub_pd(v, vv));
}

/* addBlock of moments.ts: a[k] += sum compensated, then a[k + 1] += compensation. */
static void add_block(double *a, size_t k, double sum, double compensation) {
  double s = a[k], t = s + sum, vv = t - s;
  a[k + 1] += (s - (t - vv)) + (sum - vv);
  a[k] = t;
  a[k + 1] += compensation;
}

__attribute__((target("avx2,fma"))) static void learn_four(const double *x[4], size_t lanes, size_t rows, double *attrs, const int64_t *offsets, const int32_t *layout, size_t block, double *out) {
  const size_t N = layout[0], S[4] = {layout[1], layout[2], layout[3], layout[4]}, MIN = layout[5], MAX = layout[6];
  double lo[4], hi[4];
  for (size_t l = 0; l < 4; l++) {
    size_t c = l < lanes ? l : 0;
    lo[l] = attrs[offsets[c] + MIN];
    hi[l] = attrs[offsets[c] + MAX];
  }
  __m256d min = _mm256_loadu_pd(lo), max = _mm256_loadu_pd(hi), n = _mm256_setzero_pd();
  const __m256d one = _mm256_set1_pd(1), zero = _mm256_setzero_pd();
  double sums[4][8] = {{0}};
  for (size_t start = 0; start < rows; start += block) {
    size_t end = start + block < rows ? start + block : rows;
    __m256d s1 = zero, c1 = zero, s2 = zero, c2 = zero, s3 = zero, c3 = zero, s4 = zero, c4 = zero, t;
    for (size_t r = start; r < end; r++) {
      __m256d v = _mm256_set_pd(x[3][r], x[2][r], x[1][r], x[0][r]);
      __m256d present = _mm256_cmp_pd(v, v, _CMP_ORD_Q);
      n = _mm256_add_pd(n, _mm256_and_pd(present, one));
      min = _mm256_blendv_pd(min, v, _mm256_cmp_pd(v, min, _CMP_LT_OQ));
      max = _mm256_blendv_pd(max, v, _mm256_cmp_pd(v, max, _CMP_GT_OQ));
      v = _mm256_and_pd(v, present);
      __m256d v2 = _mm256_mul_pd(v, v), v3 = _mm256_mul_pd(v2, v), v4 = _mm256_mul_pd(v2, v2);
      t = _mm256_add_pd(s1, v); c1 = _mm256_add_pd(c1, two_sum_error(s1, v, t)); s1 = t;
      t = _mm256_add_pd(s2, v2); c2 = _mm256_add_pd(c2, two_sum_error(s2, v2, t)); s2 = t;
      t = _mm256_add_pd(s3, v3); c3 = _mm256_add_pd(c3, two_sum_error(s3, v3, t)); s3 = t;
      t = _mm256_add_pd(s4, v4); c4 = _mm256_add_pd(c4, two_sum_error(s4, v4, t)); s4 = t;
    }
    double b[8][4];
    _mm256_storeu_pd(b[0], s1); _mm256_storeu_pd(b[1], c1); _mm256_storeu_pd(b[2], s2); _mm256_storeu_pd(b[3], c2);
    _mm256_storeu_pd(b[4], s3); _mm256_storeu_pd(b[5], c3); _mm256_storeu_pd(b[6], s4); _mm256_storeu_pd(b[7], c4);
    for (size_t l = 0; l < lanes; l++) {
      for (size_t p = 0; p < 4; p++) add_block(attrs, offsets[l] + S[p], b[2 * p][l], b[2 * p + 1][l]);
      for (size_t p = 0; p < 4; p++) add_block(sums[l], 2 * p, b[2 * p][l], b[2 * p + 1][l]);
    }
  }
  double counts[4];
  _mm256_storeu_pd(counts, n);
  _mm256_storeu_pd(lo, min);
  _mm256_storeu_pd(hi, max);
  for (size_t l = 0; l < lanes; l++) {
    attrs[offsets[l] + N] += counts[l];
    attrs[offsets[l] + MIN] = lo[l];
    attrs[offsets[l] + MAX] = hi[l];
    out[9 * l] = counts[l];
    for (size_t p = 0; p < 8; p++) out[9 * l + 1 + p] = sums[l][p];
  }
}

static napi_value learn_attributes_js(napi_env env, napi_callback_info info) {
  napi_value argv[6];
  if (!arguments(env, info, 6, argv, "kernels.node: learnAttributes(columns, offsets, attrs, layout, block, out)")) return NULL;
  uint32_t q;
  if (napi_get_array_length(env, argv[0], &q) != napi_ok) return fail(env, "kernels.node: columns must be an array");
  size_t offsetCount, attrCount, layoutCount, outCount;
  napi_typedarray_type type;
  void *data;
  const double *offsetValues = doubles(env, argv[1], &offsetCount);
  if (offsetValues == NULL) return NULL;
  double *attrs = doubles(env, argv[2], &attrCount);
  if (attrs == NULL) return NULL;
  if (napi_get_typedarray_info(env, argv[3], &type, &layoutCount, &data, NULL, NULL) != napi_ok || type != napi_int32_array || layoutCount != 7) return fail(env, "kernels.node: layout must be an Int32Array of 7");
  const int32_t *layout = (const int32_t *)data;
  int64_t block;
  if (napi_get_value_int64(env, argv[4], &block) != napi_ok || block < 1) return fail(env, "kernels.node: block must be a positive integer");
  double *out = doubles(env, argv[5], &outCount);
  if (out == NULL) return NULL;
  if (offsetCount != q || outCount < 9 * (size_t)q) return fail(env, "kernels.node: one offset and 9 outputs per column");
  // The furthest slot written past an attribute's offset: a sum's compensation follows it.
  int64_t reach = 0;
  for (size_t i = 0; i < 7; i++) {
    if (layout[i] < 0) return fail(env, "kernels.node: layout offsets are non-negative");
    int64_t last = layout[i] + (i >= 1 && i <= 4 ? 1 : 0);
    if (last > reach) reach = last;
  }
  size_t rows = 0;
  const double *x[4];
  int64_t offsets[4];
  for (uint32_t c0 = 0; c0 < q; c0 += 4) {
    size_t lanes = q - c0 < 4 ? q - c0 : 4;
    for (size_t l = 0; l < 4; l++) {
      size_t c = c0 + (l < lanes ? l : 0);
      napi_value column;
      size_t length;
      if (napi_get_element(env, argv[0], (uint32_t)c, &column) != napi_ok) return fail(env, "kernels.node: columns must be an array");
      x[l] = doubles(env, column, &length);
      if (x[l] == NULL) return NULL;
      if (c == 0) rows = length;
      if (length != rows) return fail(env, "kernels.node: every column must have the same length");
      double offset = offsetValues[c];
      // Every attrs index written is at most offsets[c] + reach: within the array.
      if (!(offset >= 0 && offset < (double)attrCount) || offset != (double)(int64_t)offset || (size_t)offset + (size_t)reach >= attrCount) return fail(env, "kernels.node: an offset outside attrs");
      offsets[l] = (int64_t)offset;
    }
    learn_four(x, lanes, rows, attrs, offsets, layout, (size_t)block, out + 9 * (size_t)c0);
  }
  return NULL;
}

/*
 * shiftColumns(columns, start, rows, shift, shifted, squares, stride, totals): the first step of
 * moments.ts accumulateCompleteProducts for one block of rows of complete columns (no missing
 * value): for each column a, d = x − shift[a] and x² into shifted and squares at a · stride, and
 * totals[a] = the compensated Σd in row order, exactly as the JavaScript loop sums it (four
 * columns at a time, one per lane, the scalar operations in the scalar order, no FMA).
 */
__attribute__((target("avx2,fma"))) static void shift_columns(const double *const *x, size_t m, size_t rows, const double *shift, double *shifted, double *squares, size_t stride, double *totals) {
  for (size_t a = 0; a < m; a++) {
    const double *col = x[a];
    double *d = shifted + a * stride, *q = squares + a * stride;
    const __m256d s = _mm256_set1_pd(shift[a]);
    size_t r = 0;
    for (; r + 4 <= rows; r += 4) {
      __m256d v = _mm256_loadu_pd(col + r);
      _mm256_storeu_pd(d + r, _mm256_sub_pd(v, s));
      _mm256_storeu_pd(q + r, _mm256_mul_pd(v, v));
    }
    for (; r < rows; r++) {
      d[r] = col[r] - shift[a];
      q[r] = col[r] * col[r];
    }
  }
  for (size_t a0 = 0; a0 < m; a0 += 4) {
    size_t lanes = m - a0 < 4 ? m - a0 : 4;
    const double *dl[4];
    for (size_t l = 0; l < 4; l++) dl[l] = shifted + (a0 + (l < lanes ? l : 0)) * stride;
    __m256d sum = _mm256_setzero_pd(), compensation = _mm256_setzero_pd();
    for (size_t r = 0; r < rows; r++) {
      __m256d d = _mm256_set_pd(dl[3][r], dl[2][r], dl[1][r], dl[0][r]);
      __m256d t = _mm256_add_pd(sum, d);
      compensation = _mm256_add_pd(compensation, two_sum_error(sum, d, t));
      sum = t;
    }
    double total[4];
    _mm256_storeu_pd(total, _mm256_add_pd(sum, compensation));
    for (size_t l = 0; l < lanes; l++) totals[a0 + l] = total[l];
  }
}

static napi_value shift_columns_js(napi_env env, napi_callback_info info) {
  napi_value argv[8];
  if (!arguments(env, info, 8, argv, "kernels.node: shiftColumns(columns, start, rows, shift, shifted, squares, stride, totals)")) return NULL;
  uint32_t m;
  if (napi_get_array_length(env, argv[0], &m) != napi_ok) return fail(env, "kernels.node: columns must be an array");
  int64_t start, rows, stride;
  if (napi_get_value_int64(env, argv[1], &start) != napi_ok || napi_get_value_int64(env, argv[2], &rows) != napi_ok || napi_get_value_int64(env, argv[6], &stride) != napi_ok) return fail(env, "kernels.node: start, rows and stride are integers");
  size_t shifts, shiftedCount, squaresCount, totalsCount;
  double *shift = doubles(env, argv[3], &shifts);
  if (shift == NULL) return NULL;
  double *shifted = doubles(env, argv[4], &shiftedCount);
  if (shifted == NULL) return NULL;
  double *squares = doubles(env, argv[5], &squaresCount);
  if (squares == NULL) return NULL;
  double *totals = doubles(env, argv[7], &totalsCount);
  if (totals == NULL) return NULL;
  if (start < 0 || rows < 0 || stride < rows || shifts < m || totalsCount < m || shiftedCount < (size_t)m * (size_t)stride || squaresCount < (size_t)m * (size_t)stride) {
    return fail(env, "kernels.node: shiftColumns needs rows <= stride, m columns of stride in shifted and squares, m shifts and totals");
  }
  const double *x[256]; /* the columns, 256 at a time */
  for (uint32_t a0 = 0; a0 < m; a0 += 256) {
    uint32_t chunk = m - a0 < 256 ? m - a0 : 256;
    for (uint32_t a = 0; a < chunk; a++) {
      napi_value column;
      size_t length;
      if (napi_get_element(env, argv[0], a0 + a, &column) != napi_ok) return fail(env, "kernels.node: columns must be an array");
      const double *values = doubles(env, column, &length);
      if (values == NULL) return NULL;
      if (length < (size_t)(start + rows)) return fail(env, "kernels.node: a column shorter than start + rows");
      x[a] = values + start;
    }
    shift_columns(x, chunk, (size_t)rows, shift + a0, shifted + (size_t)a0 * (size_t)stride, squares + (size_t)a0 * (size_t)stride, (size_t)stride, totals + a0);
  }
  return NULL;
}

/* Whether this CPU runs the kernels (AVX2 and FMA). */
static napi_value supported_js(napi_env env, napi_callback_info info) {
  (void)info;
  __builtin_cpu_init();
  napi_value result;
  napi_get_boolean(env, __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"), &result);
  return result;
}

NAPI_MODULE_INIT() {
  static const struct { const char *name; napi_callback fn; } entries[] = {
    {"strip", strip_js}, {"fromMantissas", from_mantissas_js}, {"binColumn", bin_column_js},
    {"learnAttributes", learn_attributes_js}, {"shiftColumns", shift_columns_js}, {"supported", supported_js},
  };
  for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
    napi_value fn;
    napi_create_function(env, entries[i].name, NAPI_AUTO_LENGTH, entries[i].fn, NULL, &fn);
    napi_set_named_property(env, exports, entries[i].name, fn);
  }
  return exports;
}
