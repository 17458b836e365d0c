/* What the neighbour kernel needs beyond vec.h: integer lane compares, mask
 * counting, a float's bits, and float -> int32 conversions (round to
 * nearest even, and truncation of values that are integers already), per
 * lane width. Native x86 conversions round by MXCSR, which every call keeps
 * at nearest-even; elsewhere rounding is done in float (adding and removing
 * 2^23, exact in round-to-nearest-even), because SIMDe's portable
 * conversions round ties away from zero. */
#ifndef CROWDSTEER_VEC_NB_H
#define CROWDSTEER_VEC_NB_H

#include "kernels/vec.h"

#if CS_LANES == 4
CS_INLINE vmask m_or(vmask a, vmask b) { return simde_mm_or_ps(a, b); }
CS_INLINE vmask m_andnot(vmask a, vmask b) {
  return simde_mm_andnot_ps(b, a);
} /* a & ~b */
CS_INLINE int m_count(vmask m) { return __builtin_popcount((unsigned)CS_MOVEMASK(m)); }
CS_INLINE unsigned m_bits(vmask m) { return (unsigned)CS_MOVEMASK(m); }
CS_INLINE vmask i_eq(vi a, vi b) {
  return simde_mm_castsi128_ps(simde_mm_cmpeq_epi32(a, b));
}
CS_INLINE vmask i_any_common(vi a, vi b) {
  return m_not(i_eq(simde_mm_and_si128(a, b), simde_mm_setzero_si128()));
}
CS_INLINE vi i_from_float_trunc(vf a) { return CS_WASM_TRUNC(a); }
CS_INLINE vi v_bits(vf a) { return simde_mm_castps_si128(a); }
/* Shifts by a count in 0 .. 31 known only at run time. */
CS_INLINE vi i_shr_by(vi a, int n) {
  return simde_mm_srl_epi32(a, simde_mm_cvtsi32_si128(n));
}
CS_INLINE vi i_shl_by(vi a, int n) {
  return simde_mm_sll_epi32(a, simde_mm_cvtsi32_si128(n));
}
CS_INLINE vi i_or(vi a, vi b) { return simde_mm_or_si128(a, b); }
CS_INLINE vi i_sub(vi a, vi b) { return simde_mm_sub_epi32(a, b); }
#define i_shl(a, n) simde_mm_slli_epi32((a), (n))
CS_INLINE vmask i_gt(vi a, vi b) { /* signed */
  return simde_mm_castsi128_ps(simde_mm_cmpgt_epi32(a, b));
}
#if defined(__SSE2__)
CS_INLINE vi i_round_even(vf a) { return simde_mm_cvtps_epi32(a); }
#elif defined(__wasm_simd128__)
/* nearest is round-to-nearest-even, as cvtps_epi32 under the MXCSR the
 * calls keep; then cvttps_epi32's bits of an integer. */
CS_INLINE vi i_round_even(vf a) { return cs_wasm_trunc(wasm_f32x4_nearest(a)); }
#else
CS_INLINE vi i_round_even(vf a) {
  const vf sign = simde_mm_castsi128_ps(simde_mm_set1_epi32((int32_t)0x80000000u));
  const vf magic = simde_mm_or_ps(simde_mm_and_ps(a, sign), v_set1(0x1p23f));
  const vf rounded = v_sub(v_add(a, magic), magic);
  const vmask small = v_lt(simde_mm_andnot_ps(sign, a), v_set1(0x1p23f));
  return simde_mm_cvttps_epi32(v_select(small, rounded, a));
}
#endif

#elif CS_LANES == 8
CS_INLINE vmask m_or(vmask a, vmask b) { return simde_mm256_or_ps(a, b); }
CS_INLINE vmask m_andnot(vmask a, vmask b) { return simde_mm256_andnot_ps(b, a); }
CS_INLINE int m_count(vmask m) {
  return __builtin_popcount((unsigned)simde_mm256_movemask_ps(m));
}
CS_INLINE unsigned m_bits(vmask m) { return (unsigned)simde_mm256_movemask_ps(m); }
CS_INLINE vmask i_eq(vi a, vi b) {
  return simde_mm256_castsi256_ps(simde_mm256_cmpeq_epi32(a, b));
}
CS_INLINE vmask i_any_common(vi a, vi b) {
  return m_not(i_eq(simde_mm256_and_si256(a, b), simde_mm256_setzero_si256()));
}
CS_INLINE vi i_from_float_trunc(vf a) { return simde_mm256_cvttps_epi32(a); }
CS_INLINE vi v_bits(vf a) { return simde_mm256_castps_si256(a); }
CS_INLINE vi i_shr_by(vi a, int n) {
  return simde_mm256_srl_epi32(a, simde_mm_cvtsi32_si128(n));
}
CS_INLINE vi i_shl_by(vi a, int n) {
  return simde_mm256_sll_epi32(a, simde_mm_cvtsi32_si128(n));
}
CS_INLINE vi i_or(vi a, vi b) { return simde_mm256_or_si256(a, b); }
CS_INLINE vi i_sub(vi a, vi b) { return simde_mm256_sub_epi32(a, b); }
#define i_shl(a, n) simde_mm256_slli_epi32((a), (n))
CS_INLINE vmask i_gt(vi a, vi b) { /* signed */
  return simde_mm256_castsi256_ps(simde_mm256_cmpgt_epi32(a, b));
}
CS_INLINE vi i_round_even(vf a) { return simde_mm256_cvtps_epi32(a); }

#elif CS_LANES == 16
CS_INLINE vmask m_or(vmask a, vmask b) { return (vmask)(a | b); }
CS_INLINE vmask m_andnot(vmask a, vmask b) { return (vmask)(a & ~b); }
CS_INLINE int m_count(vmask m) { return __builtin_popcount(m_word(m)); }
CS_INLINE unsigned m_bits(vmask m) { return m_word(m); }
CS_INLINE vmask i_eq(vi a, vi b) { return simde_mm512_cmpeq_epi32_mask(a, b); }
CS_INLINE vmask i_any_common(vi a, vi b) { return simde_mm512_test_epi32_mask(a, b); }
CS_INLINE vi v_bits(vf a) { return simde_mm512_castps_si512(a); }
CS_INLINE vi i_shr_by(vi a, int n) {
  return simde_mm512_srl_epi32(a, simde_mm_cvtsi32_si128(n));
}
CS_INLINE vi i_shl_by(vi a, int n) {
  return simde_mm512_sll_epi32(a, simde_mm_cvtsi32_si128(n));
}
CS_INLINE vi i_or(vi a, vi b) { return simde_mm512_or_si512(a, b); }
CS_INLINE vi i_sub(vi a, vi b) { return simde_mm512_sub_epi32(a, b); }
#define i_shl(a, n) simde_mm512_slli_epi32((a), (n))
CS_INLINE vmask i_gt(vi a, vi b) {
  return simde_mm512_cmpgt_epi32_mask(a, b);
} /* signed */
#if defined(__AVX512F__)
CS_INLINE vi i_from_float_trunc(vf a) { return _mm512_cvttps_epi32(a); }
CS_INLINE vi i_round_even(vf a) { return _mm512_cvtps_epi32(a); }
#else
/* The emulated 16-lane build (tests only): per lane, as the scalar code. */
CS_INLINE vi i_from_float_trunc(vf a) {
  float in[16];
  int32_t out[16];
  simde_mm512_storeu_ps(in, a);
  for (int k = 0; k < 16; k++)
    out[k] = (int32_t)in[k];
  return simde_mm512_loadu_si512((const void *)out);
}
CS_INLINE vi i_round_even(vf a) {
  float in[16];
  int32_t out[16];
  simde_mm512_storeu_ps(in, a);
  for (int k = 0; k < 16; k++) {
    float x = in[k];
    if (x < 0x1p23f && x > -0x1p23f) {
      const float magic = x < 0.0f ? -0x1p23f : 0x1p23f;
      x = (x + magic) - magic;
    }
    out[k] = (int32_t)x;
  }
  return simde_mm512_loadu_si512((const void *)out);
}
#endif
#endif

/* i_round_even of lanes known finite and below 2^31 in magnitude (the
 * neighbours' scaled contributions; lanes left out are +0): there
 * WebAssembly's saturating conversion gives x86's bits with no select for
 * x86's overflow lanes. */
#if defined(__wasm_simd128__)
CS_INLINE vi i_round_even_small(vf a) {
  return wasm_i32x4_trunc_sat_f32x4(wasm_f32x4_nearest(a));
}
#else
CS_INLINE vi i_round_even_small(vf a) { return i_round_even(a); }
#endif

/* The first n lanes (n >= 0); the first n but lane k (k < n <= W). */
#if CS_LANES == 16
CS_INLINE vmask m_first(size_t n) { return (vmask)(n >= 16 ? 0xFFFFu : (1u << n) - 1u); }
CS_INLINE vmask m_first_but(size_t n, size_t k) {
  return (vmask)(((1u << n) - 1u) & ~(1u << k));
}
#else
CS_INLINE vmask m_first(size_t n) {
  return i_gt(i_set1(n >= W ? (uint32_t)W : (uint32_t)n), i_iota());
}
CS_INLINE vmask m_first_but(size_t n, size_t k) {
  return m_andnot(m_first(n), i_eq(i_iota(), i_set1((uint32_t)k)));
}
#endif

/* a > b lane by lane, unsigned (i_gt on both with their sign bits flipped). */
CS_INLINE vmask i_gt_unsigned(vi a, vi b) {
  const vi sign = i_set1(0x80000000u);
  return i_gt(i_xor(a, sign), i_xor(b, sign));
}

/* The largest lane, unsigned. */
#if CS_LANES == 16 && defined(__AVX512F__)
CS_INLINE uint32_t i_max_lane(vi a) { return _mm512_reduce_max_epu32(a); }
#else
CS_INLINE uint32_t i_max_lane(vi a) {
  uint32_t lanes[W], most = 0;
  i_store(lanes, a);
  for (int k = 0; k < W; k++)
    most = lanes[k] > most ? lanes[k] : most;
  return most;
}
#endif

/* Sum of the int32 lanes, in 64 bits. */
#if CS_LANES == 16 && defined(__AVX512F__)
CS_INLINE int64_t i_sum64(vi a) {
  const __m512i lo = _mm512_cvtepi32_epi64(_mm512_castsi512_si256(a));
  const __m512i hi = _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(a, 1));
  return _mm512_reduce_add_epi64(_mm512_add_epi64(lo, hi));
}
#elif CS_LANES == 8
CS_INLINE int64_t i_sum64(vi a) {
  const simde__m256i wide = simde_mm256_add_epi64(
      simde_mm256_cvtepi32_epi64(simde_mm256_castsi256_si128(a)),
      simde_mm256_cvtepi32_epi64(simde_mm256_extracti128_si256(a, 1)));
  int64_t lanes[4];
  simde_mm256_storeu_si256((void *)lanes, wide);
  return (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
}
#elif CS_LANES == 4 && defined(__wasm_simd128__)
/* SIMDe widens with 64-bit shifts, which WebAssembly engines emulate on x86. */
CS_INLINE int64_t i_sum64(vi a) {
  const v128_t wide =
      wasm_i64x2_add(wasm_i64x2_extend_low_i32x4(a), wasm_i64x2_extend_high_i32x4(a));
  return wasm_i64x2_extract_lane(wide, 0) + wasm_i64x2_extract_lane(wide, 1);
}
#elif CS_LANES == 4
CS_INLINE int64_t i_sum64(vi a) {
  const simde__m128i wide = simde_mm_add_epi64(
      simde_mm_cvtepi32_epi64(a), simde_mm_cvtepi32_epi64(simde_mm_srli_si128(a, 8)));
  int64_t lanes[2];
  simde_mm_storeu_si128((void *)lanes, wide);
  return lanes[0] + lanes[1];
}
#else
CS_INLINE int64_t i_sum64(vi a) {
  int32_t lanes[W];
  i_store((uint32_t *)lanes, a);
  int64_t s = 0;
  for (int k = 0; k < W; k++)
    s += lanes[k];
  return s;
}
#endif

/* Sum of the int32 lanes, wrapping: exact when every partial sum fits. */
#if CS_LANES == 16 && defined(__AVX512F__)
CS_INLINE uint32_t i_sum32(vi a) { return (uint32_t)_mm512_reduce_add_epi32(a); }
#elif CS_LANES == 8
CS_INLINE uint32_t i_sum32(vi a) {
  simde__m128i s = simde_mm_add_epi32(simde_mm256_castsi256_si128(a),
                                      simde_mm256_extracti128_si256(a, 1));
  s = simde_mm_add_epi32(s, simde_mm_shuffle_epi32(s, 0x4E));
  s = simde_mm_add_epi32(s, simde_mm_shuffle_epi32(s, 0xB1));
  return (uint32_t)simde_mm_cvtsi128_si32(s);
}
#else
CS_INLINE uint32_t i_sum32(vi a) {
  uint32_t lanes[W], s = 0;
  i_store(lanes, a);
  for (int k = 0; k < W; k++)
    s += lanes[k];
  return s;
}
#endif

/* Lanes of high * 2^24 + low (int32 each) as floats, correctly rounded
 * (as a conversion of the int64 rounds), for |high| < 2^28: in doubles
 * the value is then exact (below 2^53), and the one rounding is the
 * conversion to float. */
#if CS_LANES == 16 && defined(__AVX512F__)
CS_INLINE __m256 v_from_parts_half(__m256i high, __m256i low) {
  const __m512d exact =
      _mm512_add_pd(_mm512_mul_pd(_mm512_cvtepi32_pd(high), _mm512_set1_pd(0x1p24)),
                    _mm512_cvtepi32_pd(low));
  return _mm512_cvtpd_ps(exact);
}
CS_INLINE vf v_from_parts(vi high, vi low) {
  const __m256 first =
      v_from_parts_half(_mm512_castsi512_si256(high), _mm512_castsi512_si256(low));
  const __m256 second = v_from_parts_half(_mm512_extracti64x4_epi64(high, 1),
                                          _mm512_extracti64x4_epi64(low, 1));
  return _mm512_castpd_ps(_mm512_insertf64x4(
      _mm512_castps_pd(_mm512_castps256_ps512(first)), _mm256_castps_pd(second), 1));
}
#elif CS_LANES == 8
CS_INLINE simde__m128 v_from_parts_half(simde__m128i high, simde__m128i low) {
  const simde__m256d exact = simde_mm256_add_pd(
      simde_mm256_mul_pd(simde_mm256_cvtepi32_pd(high), simde_mm256_set1_pd(0x1p24)),
      simde_mm256_cvtepi32_pd(low));
  return simde_mm256_cvtpd_ps(exact);
}
CS_INLINE vf v_from_parts(vi high, vi low) {
  const simde__m128 first = v_from_parts_half(simde_mm256_castsi256_si128(high),
                                              simde_mm256_castsi256_si128(low));
  const simde__m128 second = v_from_parts_half(simde_mm256_extracti128_si256(high, 1),
                                               simde_mm256_extracti128_si256(low, 1));
  return simde_mm256_insertf128_ps(simde_mm256_castps128_ps256(first), second, 1);
}
#else
CS_INLINE vf v_from_parts(vi high, vi low) {
  int32_t h[W], l[W];
  float out[W];
  i_store((uint32_t *)h, high);
  i_store((uint32_t *)l, low);
  for (int k = 0; k < W; k++)
    out[k] = (float)((double)h[k] * 0x1p24 + (double)l[k]);
  return v_load(out);
}
#endif

/* The sums of the int32 lanes of each of v[0 .. W - 1] (wrapping), in
 * one vector: lane j holds the sum of v[i_sum_each_slot(j)]. With AVX-512
 * a tree of 128-bit block and lane shuffles (45 operations for 16 sums)
 * instead of 16 horizontal reductions; its output order makes
 * i_sum_each_slot a fixed permutation there (an involution), and the
 * identity elsewhere. */
#if CS_LANES == 16 && defined(__AVX512F__)
CS_INLINE unsigned i_sum_each_slot(unsigned j) {
  /* An involution: which input each output lane of the tree reads. */
  static const unsigned char slot[16] = {0, 2, 1, 3, 8,  10, 9,  11,
                                         4, 6, 5, 7, 12, 14, 13, 15};
  return slot[j];
}
CS_INLINE vi i_sum_each(const vi v[16]) {
  __m512i w[8], x[4], y[2];
  for (int j = 0; j < 8; j++)
    w[j] = _mm512_add_epi32(_mm512_shuffle_i64x2(v[j], v[j + 8], 0x44),
                            _mm512_shuffle_i64x2(v[j], v[j + 8], 0xEE));
  for (int j = 0; j < 4; j++)
    x[j] = _mm512_add_epi32(_mm512_shuffle_i64x2(w[j], w[j + 4], 0x88),
                            _mm512_shuffle_i64x2(w[j], w[j + 4], 0xDD));
  for (int j = 0; j < 2; j++)
    y[j] = _mm512_add_epi32(_mm512_unpacklo_epi64(x[j], x[j + 2]),
                            _mm512_unpackhi_epi64(x[j], x[j + 2]));
  const __m512 a = _mm512_castsi512_ps(y[0]), b = _mm512_castsi512_ps(y[1]);
  return _mm512_add_epi32(_mm512_castps_si512(_mm512_shuffle_ps(a, b, 0x88)),
                          _mm512_castps_si512(_mm512_shuffle_ps(a, b, 0xDD)));
}
#else
CS_INLINE unsigned i_sum_each_slot(unsigned j) { return j; }
CS_INLINE vi i_sum_each(const vi v[W]) {
  uint32_t sums[W];
  for (int j = 0; j < W; j++)
    sums[j] = (uint32_t)i_sum64(v[j]);
  return i_load(sums);
}
#endif

/* Inclusive prefix sums of the lanes (lane j: lanes 0 .. j, wrapping), and
 * the last lane in every lane. */
#if CS_LANES == 16 && defined(__AVX512F__)
CS_INLINE vi i_prefix(vi x) {
  const __m512i zero = _mm512_setzero_si512();
  x = _mm512_add_epi32(x, _mm512_alignr_epi32(x, zero, 15));
  x = _mm512_add_epi32(x, _mm512_alignr_epi32(x, zero, 14));
  x = _mm512_add_epi32(x, _mm512_alignr_epi32(x, zero, 12));
  return _mm512_add_epi32(x, _mm512_alignr_epi32(x, zero, 8));
}
CS_INLINE vi i_last_lane(vi x) {
  return _mm512_permutexvar_epi32(_mm512_set1_epi32(15), x);
}
#elif CS_LANES == 8
CS_INLINE vi i_prefix(vi x) {
  const vi zero = simde_mm256_setzero_si256();
  x = i_add(
      x, simde_mm256_blend_epi32(simde_mm256_permutevar8x32_epi32(
                                     x, simde_mm256_setr_epi32(0, 0, 1, 2, 3, 4, 5, 6)),
                                 zero, 0x01));
  x = i_add(
      x, simde_mm256_blend_epi32(simde_mm256_permutevar8x32_epi32(
                                     x, simde_mm256_setr_epi32(0, 0, 0, 1, 2, 3, 4, 5)),
                                 zero, 0x03));
  return i_add(
      x, simde_mm256_blend_epi32(simde_mm256_permutevar8x32_epi32(
                                     x, simde_mm256_setr_epi32(0, 0, 0, 0, 0, 1, 2, 3)),
                                 zero, 0x0F));
}
CS_INLINE vi i_last_lane(vi x) {
  return simde_mm256_permutevar8x32_epi32(x, simde_mm256_set1_epi32(7));
}
#elif CS_LANES == 4
CS_INLINE vi i_prefix(vi x) {
  x = i_add(x, simde_mm_slli_si128(x, 4));
  return i_add(x, simde_mm_slli_si128(x, 8));
}
CS_INLINE vi i_last_lane(vi x) { return simde_mm_shuffle_epi32(x, 0xFF); }
#else
/* The emulated 16-lane build (tests only): lane by lane. */
CS_INLINE vi i_prefix(vi x) {
  uint32_t lanes[W];
  i_store(lanes, x);
  for (int k = 1; k < W; k++)
    lanes[k] += lanes[k - 1];
  return i_load(lanes);
}
CS_INLINE vi i_last_lane(vi x) {
  uint32_t lanes[W];
  i_store(lanes, x);
  return i_set1(lanes[W - 1]);
}
#endif

CS_INLINE vi i_zero(void) { return i_set1(0); }
CS_INLINE vi i_masked(vmask m, vi a) { return i_select(m, a, i_zero()); }

/* count + 1 on the lanes of m: one instruction (a masked add, or the
 * subtraction of the all-ones lanes). */
#if CS_LANES == 16
CS_INLINE vi i_count(vi count, vmask m) {
  return simde_mm512_mask_add_epi32(count, m, count, i_set1(1u));
}
#elif CS_LANES == 8
CS_INLINE vi i_count(vi count, vmask m) {
  return simde_mm256_sub_epi32(count, simde_mm256_castps_si256(m));
}
#else
CS_INLINE vi i_count(vi count, vmask m) {
  return simde_mm_sub_epi32(count, simde_mm_castps_si128(m));
}
#endif

/* The lanes whose bit is set in `bits`. */
CS_INLINE vmask m_from_bits(uint32_t bits) {
  static const uint32_t lane_bit[16] = {
      1u << 0, 1u << 1, 1u << 2,  1u << 3,  1u << 4,  1u << 5,  1u << 6,  1u << 7,
      1u << 8, 1u << 9, 1u << 10, 1u << 11, 1u << 12, 1u << 13, 1u << 14, 1u << 15};
  return i_any_common(i_set1(bits), i_load(lane_bit));
}

/* The lanes of `a` in `m`, in lane order, stored from p on: W elements are
 * written (those past the packed ones unspecified), so p needs room for W.
 * AVX-512 compresses in a register, 4 lanes shuffle bytes by a table;
 * with 8 the lanes are copied one by one (a handful per agent where it is
 * used: still 2.2x faster boids than without packing). */
#if CS_LANES == 16 && defined(__AVX512F__)
#define CS_PACK_IN_REGISTERS 1 /* no branch on the lanes: packing none is cheap */
CS_INLINE void v_pack(float *p, vmask m, vf a) {
  _mm512_storeu_ps(p, _mm512_maskz_compress_ps(m, a));
}
CS_INLINE void i_pack(uint32_t *p, vmask m, vi a) {
  _mm512_storeu_si512((void *)p, _mm512_maskz_compress_epi32(m, a));
}
#elif CS_LANES == 4
/* The bytes of the lanes of each 4-bit mask, in order, then zeros: one
 * byte shuffle packs a vector (a copy lane by lane was 5-9 % slower than
 * not packing at 4 lanes). */
static const uint8_t cs_pack_bytes[16][16] = {
    {128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128},
    {0, 1, 2, 3, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128},
    {4, 5, 6, 7, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128},
    {0, 1, 2, 3, 4, 5, 6, 7, 128, 128, 128, 128, 128, 128, 128, 128},
    {8, 9, 10, 11, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128},
    {0, 1, 2, 3, 8, 9, 10, 11, 128, 128, 128, 128, 128, 128, 128, 128},
    {4, 5, 6, 7, 8, 9, 10, 11, 128, 128, 128, 128, 128, 128, 128, 128},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 128, 128, 128, 128},
    {12, 13, 14, 15, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128},
    {0, 1, 2, 3, 12, 13, 14, 15, 128, 128, 128, 128, 128, 128, 128, 128},
    {4, 5, 6, 7, 12, 13, 14, 15, 128, 128, 128, 128, 128, 128, 128, 128},
    {0, 1, 2, 3, 4, 5, 6, 7, 12, 13, 14, 15, 128, 128, 128, 128},
    {8, 9, 10, 11, 12, 13, 14, 15, 128, 128, 128, 128, 128, 128, 128, 128},
    {0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 15, 128, 128, 128, 128},
    {4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 128, 128, 128, 128},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}};
CS_INLINE void i_pack(uint32_t *p, vmask m, vi a) {
  const vi order = simde_mm_loadu_si128((const void *)cs_pack_bytes[m_bits(m)]);
  simde_mm_storeu_si128((void *)p, simde_mm_shuffle_epi8(a, order));
}
#define CS_PACK_IN_REGISTERS 1
CS_INLINE void v_pack(float *p, vmask m, vf a) {
  const vi order = simde_mm_loadu_si128((const void *)cs_pack_bytes[m_bits(m)]);
  simde_mm_storeu_si128((void *)p,
                        simde_mm_shuffle_epi8(simde_mm_castps_si128(a), order));
}
#else
#define CS_PACK_IN_REGISTERS 0
CS_INLINE void v_pack(float *p, vmask m, vf a) {
  float lanes[W];
  v_store(lanes, a);
  for (unsigned bits = m_bits(m); bits; bits &= bits - 1)
    *p++ = lanes[__builtin_ctz(bits)];
}
CS_INLINE void i_pack(uint32_t *p, vmask m, vi a) {
  uint32_t lanes[W];
  i_store(lanes, a);
  for (unsigned bits = m_bits(m); bits; bits &= bits - 1)
    *p++ = lanes[__builtin_ctz(bits)];
}
#endif

#endif /* CROWDSTEER_VEC_NB_H */
