/* The vector layer the kernels are written against: float and int32 lanes,
 * masks, partial loads/stores and gathers, for CS_LANES = 4 (SSE4.1, or NEON
 * through SIMDe on ARM), 8 (AVX2) or 16 (AVX-512). Every float operation is
 * the IEEE operation of the scalar reference: no FMA, no estimates. */
#ifndef CROWDSTEER_VEC_H
#define CROWDSTEER_VEC_H

#include <stdint.h>
#include <string.h>

#if !defined(CS_LANES)
#error "define CS_LANES (4, 8 or 16) when compiling a kernel object"
#endif

#define CS_INLINE static inline __attribute__((always_inline))
#define CS_NOINLINE __attribute__((noinline))

#if CS_LANES == 4
#include <simde/x86/sse4.1.h>
#if defined(__wasm_simd128__)
/* WebAssembly SIMD: SIMDe's vectors are v128_t there; where its mapping of
 * an x86 instruction is a lane loop or a longer sequence than needed, the
 * WebAssembly instruction of the same bits is written out (CS_WASM_*). */
#include <wasm_simd128.h>
#endif
typedef simde__m128 vf;
typedef simde__m128i vi;
typedef simde__m128 vmask; /* all-ones lanes where true */

CS_INLINE vf v_load(const float *p) { return simde_mm_loadu_ps(p); }
CS_INLINE void v_store(float *p, vf a) { simde_mm_storeu_ps(p, a); }
/* Non-temporal store; p must be 16-byte aligned. */
CS_INLINE void v_stream(float *p, vf a) { simde_mm_stream_ps(p, a); }
CS_INLINE vf v_set1(float x) { return simde_mm_set1_ps(x); }
CS_INLINE vf v_add(vf a, vf b) { return simde_mm_add_ps(a, b); }
CS_INLINE vf v_sub(vf a, vf b) { return simde_mm_sub_ps(a, b); }
CS_INLINE vf v_mul(vf a, vf b) { return simde_mm_mul_ps(a, b); }
CS_INLINE vf v_div(vf a, vf b) { return simde_mm_div_ps(a, b); }
CS_INLINE vf v_sqrt(vf a) { return simde_mm_sqrt_ps(a); }
CS_INLINE vmask v_lt(vf a, vf b) { return simde_mm_cmplt_ps(a, b); }
CS_INLINE vmask v_le(vf a, vf b) { return simde_mm_cmple_ps(a, b); }
CS_INLINE vmask v_gt(vf a, vf b) { return simde_mm_cmpgt_ps(a, b); }
CS_INLINE vmask v_ne(vf a, vf b) { return simde_mm_cmpneq_ps(a, b); }
CS_INLINE vmask m_and(vmask a, vmask b) { return simde_mm_and_ps(a, b); }
CS_INLINE vmask m_not(vmask a) {
  return simde_mm_xor_ps(a, simde_mm_castsi128_ps(simde_mm_set1_epi32(-1)));
}
/* mask ? a : b. Masks are whole lanes, so WebAssembly selects by one
 * bitselect (SIMDe's blendv maps to four instructions that test the sign
 * bits). */
#if defined(__wasm_simd128__)
CS_INLINE vf v_select(vmask m, vf a, vf b) { return wasm_v128_bitselect(a, b, m); }
CS_INLINE simde__m128i i_select(vmask m, simde__m128i a, simde__m128i b) {
  return wasm_v128_bitselect(a, b, m);
}
#else
CS_INLINE vf v_select(vmask m, vf a, vf b) { return simde_mm_blendv_ps(b, a, m); }
CS_INLINE simde__m128i i_select(vmask m, simde__m128i a, simde__m128i b) {
  return simde_mm_castps_si128(
      simde_mm_blendv_ps(simde_mm_castsi128_ps(b), simde_mm_castsi128_ps(a), m));
}
#endif
/* mask ? a : +0 */
CS_INLINE vf v_keep(vmask m, vf a) { return simde_mm_and_ps(m, a); }
/* The lanes' sign bits (movemask_ps: a loop over the lanes in SIMDe's
 * WebAssembly mapping, one bitmask instruction here). */
#if defined(__wasm_simd128__)
#define CS_MOVEMASK(m) ((int)wasm_i32x4_bitmask(m))
#else
#define CS_MOVEMASK(m) simde_mm_movemask_ps(m)
#endif
CS_INLINE int m_any(vmask m) { return CS_MOVEMASK(m) != 0; }

CS_INLINE vi i_load(const uint32_t *p) { return simde_mm_loadu_si128((const void *)p); }
CS_INLINE vi i_set1(uint32_t x) { return simde_mm_set1_epi32((int32_t)x); }
CS_INLINE vi i_add(vi a, vi b) { return simde_mm_add_epi32(a, b); }
CS_INLINE vi i_xor(vi a, vi b) { return simde_mm_xor_si128(a, b); }
CS_INLINE vi i_and(vi a, vi b) { return simde_mm_and_si128(a, b); }
CS_INLINE vi i_max_u(vi a, vi b) { return simde_mm_max_epu32(a, b); }
CS_INLINE vi i_mul(vi a, vi b) { return simde_mm_mullo_epi32(a, b); }
#define i_shr(a, n) simde_mm_srli_epi32((a), (n))
CS_INLINE vf i_to_float(vi a) { return simde_mm_cvtepi32_ps(a); }
#if defined(__wasm_simd128__)
/* cvttps_epi32's bits: the saturating conversion, then 0x80000000 where x86
 * gives it and the conversion does not (NaN, 2^31 and up; below -2^31 it
 * saturates to 0x80000000 itself). SIMDe tests NaN apart, once too many. */
CS_INLINE vi cs_wasm_trunc(vf a) {
  return wasm_v128_bitselect(wasm_i32x4_trunc_sat_f32x4(a), wasm_i32x4_splat(INT32_MIN),
                             wasm_f32x4_lt(a, wasm_f32x4_splat(0x1p31f)));
}
#define CS_WASM_TRUNC(a) cs_wasm_trunc(a)
#else
#define CS_WASM_TRUNC(a) simde_mm_cvttps_epi32(a)
#endif
/* Truncation towards zero; meaningful for lanes in [0, 2^31) only. */
CS_INLINE vi v_to_index(vf a) { return CS_WASM_TRUNC(a); }
CS_INLINE void i_store(uint32_t *p, vi a) { simde_mm_storeu_si128((void *)p, a); }
/* Lanes where (bits & bit) != 0, for a single-bit `bit`. */
CS_INLINE vmask m_bit_set(vi bits, uint32_t bit) {
  vi b = i_set1(bit);
  return simde_mm_castsi128_ps(simde_mm_cmpeq_epi32(simde_mm_and_si128(bits, b), b));
}

#elif CS_LANES == 8
#include <simde/x86/avx2.h>
typedef simde__m256 vf;
typedef simde__m256i vi;
typedef simde__m256 vmask;

CS_INLINE vf v_load(const float *p) { return simde_mm256_loadu_ps(p); }
CS_INLINE void v_store(float *p, vf a) { simde_mm256_storeu_ps(p, a); }
/* Non-temporal store; p must be 32-byte aligned. */
CS_INLINE void v_stream(float *p, vf a) { simde_mm256_stream_ps(p, a); }
CS_INLINE vf v_set1(float x) { return simde_mm256_set1_ps(x); }
CS_INLINE vf v_add(vf a, vf b) { return simde_mm256_add_ps(a, b); }
CS_INLINE vf v_sub(vf a, vf b) { return simde_mm256_sub_ps(a, b); }
CS_INLINE vf v_mul(vf a, vf b) { return simde_mm256_mul_ps(a, b); }
CS_INLINE vf v_div(vf a, vf b) { return simde_mm256_div_ps(a, b); }
CS_INLINE vf v_sqrt(vf a) { return simde_mm256_sqrt_ps(a); }
CS_INLINE vmask v_lt(vf a, vf b) { return simde_mm256_cmp_ps(a, b, SIMDE_CMP_LT_OQ); }
CS_INLINE vmask v_le(vf a, vf b) { return simde_mm256_cmp_ps(a, b, SIMDE_CMP_LE_OQ); }
CS_INLINE vmask v_gt(vf a, vf b) { return simde_mm256_cmp_ps(a, b, SIMDE_CMP_GT_OQ); }
CS_INLINE vmask v_ne(vf a, vf b) { return simde_mm256_cmp_ps(a, b, SIMDE_CMP_NEQ_UQ); }
CS_INLINE vmask m_and(vmask a, vmask b) { return simde_mm256_and_ps(a, b); }
CS_INLINE vmask m_not(vmask a) {
  return simde_mm256_xor_ps(a, simde_mm256_castsi256_ps(simde_mm256_set1_epi32(-1)));
}
CS_INLINE vf v_select(vmask m, vf a, vf b) { return simde_mm256_blendv_ps(b, a, m); }
CS_INLINE vf v_keep(vmask m, vf a) { return simde_mm256_and_ps(m, a); }
CS_INLINE int m_any(vmask m) { return simde_mm256_movemask_ps(m) != 0; }
CS_INLINE simde__m256i i_select(vmask m, simde__m256i a, simde__m256i b) {
  return simde_mm256_castps_si256(
      simde_mm256_blendv_ps(simde_mm256_castsi256_ps(b), simde_mm256_castsi256_ps(a), m));
}

CS_INLINE vi i_load(const uint32_t *p) {
  return simde_mm256_loadu_si256((const void *)p);
}
CS_INLINE vi i_set1(uint32_t x) { return simde_mm256_set1_epi32((int32_t)x); }
CS_INLINE vi i_add(vi a, vi b) { return simde_mm256_add_epi32(a, b); }
CS_INLINE vi i_xor(vi a, vi b) { return simde_mm256_xor_si256(a, b); }
CS_INLINE vi i_and(vi a, vi b) { return simde_mm256_and_si256(a, b); }
CS_INLINE vi i_max_u(vi a, vi b) { return simde_mm256_max_epu32(a, b); }
CS_INLINE vi i_mul(vi a, vi b) { return simde_mm256_mullo_epi32(a, b); }
#define i_shr(a, n) simde_mm256_srli_epi32((a), (n))
CS_INLINE vf i_to_float(vi a) { return simde_mm256_cvtepi32_ps(a); }
CS_INLINE vi v_to_index(vf a) { return simde_mm256_cvttps_epi32(a); }
CS_INLINE void i_store(uint32_t *p, vi a) { simde_mm256_storeu_si256((void *)p, a); }
CS_INLINE vmask m_bit_set(vi bits, uint32_t bit) {
  vi b = i_set1(bit);
  return simde_mm256_castsi256_ps(
      simde_mm256_cmpeq_epi32(simde_mm256_and_si256(bits, b), b));
}
#if defined(__AVX2__)
/* The field's words (follow_field), where cs_gather_instruction_pays. */
#define CS_HAVE_NATIVE_I_GATHER 1
CS_INLINE vi i_gather_native(const uint32_t *base, vi idx) {
  return _mm256_i32gather_epi32((const int *)(const void *)base, idx, 4);
}
#endif
/* No vgatherdps: on AMD Zen it is slower than eight scalar loads (measured
 * -20% on pursuit with agent targets), and Intel gains little from it. (The
 * 16-lane gather is used on Intel only: cs_gather_instruction_pays.) */

#elif CS_LANES == 16
#include <simde/x86/avx512.h>
typedef simde__m512 vf;
typedef simde__m512i vi;
typedef simde__mmask16 vmask;

CS_INLINE vf v_load(const float *p) { return simde_mm512_loadu_ps(p); }
CS_INLINE void v_store(float *p, vf a) { simde_mm512_storeu_ps(p, a); }
/* Non-temporal store; p must be 64-byte aligned. SIMDe 0.7.4 has no 512-bit
 * stream: the emulated build stores normally (same values). */
CS_INLINE void v_stream(float *p, vf a) {
#if defined(__AVX512F__)
  _mm512_stream_ps(p, a);
#else
  simde_mm512_storeu_ps(p, a);
#endif
}
CS_INLINE vf v_set1(float x) { return simde_mm512_set1_ps(x); }
CS_INLINE vf v_add(vf a, vf b) { return simde_mm512_add_ps(a, b); }
CS_INLINE vf v_sub(vf a, vf b) { return simde_mm512_sub_ps(a, b); }
CS_INLINE vf v_mul(vf a, vf b) { return simde_mm512_mul_ps(a, b); }
CS_INLINE vf v_div(vf a, vf b) { return simde_mm512_div_ps(a, b); }
CS_INLINE vf v_sqrt(vf a) { return simde_mm512_sqrt_ps(a); }
CS_INLINE vmask v_lt(vf a, vf b) {
  return simde_mm512_cmp_ps_mask(a, b, SIMDE_CMP_LT_OQ);
}
CS_INLINE vmask v_le(vf a, vf b) {
  return simde_mm512_cmp_ps_mask(a, b, SIMDE_CMP_LE_OQ);
}
CS_INLINE vmask v_gt(vf a, vf b) {
  return simde_mm512_cmp_ps_mask(a, b, SIMDE_CMP_GT_OQ);
}
CS_INLINE vmask v_ne(vf a, vf b) {
  return simde_mm512_cmp_ps_mask(a, b, SIMDE_CMP_NEQ_UQ);
}
CS_INLINE vmask m_and(vmask a, vmask b) { return (vmask)(a & b); }
CS_INLINE vmask m_not(vmask a) { return (vmask)~a; }
CS_INLINE vf v_select(vmask m, vf a, vf b) { return simde_mm512_mask_blend_ps(m, b, a); }
CS_INLINE vf v_keep(vmask m, vf a) { return simde_mm512_maskz_mov_ps(m, a); }
CS_INLINE int m_any(vmask m) { return m != 0; }
CS_INLINE simde__m512i i_select(vmask m, simde__m512i a, simde__m512i b) {
  return simde_mm512_mask_blend_epi32(m, b, a);
}

CS_INLINE vi i_load(const uint32_t *p) {
  return simde_mm512_loadu_si512((const void *)p);
}
CS_INLINE vi i_set1(uint32_t x) { return simde_mm512_set1_epi32((int32_t)x); }
CS_INLINE vi i_add(vi a, vi b) { return simde_mm512_add_epi32(a, b); }
CS_INLINE vi i_xor(vi a, vi b) { return simde_mm512_xor_si512(a, b); }
CS_INLINE vi i_and(vi a, vi b) { return simde_mm512_and_si512(a, b); }
CS_INLINE vi i_max_u(vi a, vi b) { return simde_mm512_max_epu32(a, b); }
#if defined(__AVX512F__)
CS_INLINE vi i_mul(vi a, vi b) { return simde_mm512_mullo_epi32(a, b); }
#else
/* SIMDe's portable mullo multiplies signed lanes (overflow is undefined
 * behaviour); the hash needs wrapping unsigned products. */
CS_INLINE vi i_mul(vi a, vi b) {
  uint32_t x[16], y[16];
  simde_mm512_storeu_si512((void *)x, a);
  simde_mm512_storeu_si512((void *)y, b);
  for (int k = 0; k < 16; k++)
    x[k] *= y[k];
  return simde_mm512_loadu_si512((const void *)x);
}
#endif
#define i_shr(a, n) simde_mm512_srli_epi32((a), (n))
CS_INLINE void i_store(uint32_t *p, vi a) { simde_mm512_storeu_si512((void *)p, a); }
CS_INLINE vmask m_bit_set(vi bits, uint32_t bit) {
  return simde_mm512_test_epi32_mask(bits, i_set1(bit));
}
/* SIMDe 0.7.4 lacks the int->float conversion, the gather and the masked
 * moves for 512 bits: use the instructions when compiled for AVX-512, and
 * plain loops otherwise (the emulated build that tests the 16-lane logic on
 * machines without AVX-512, see CROWDSTEER_AVX512_EMULATED). */
#if defined(__AVX512F__)
CS_INLINE vf i_to_float(vi a) { return _mm512_cvtepi32_ps(a); }
CS_INLINE vi v_to_index(vf a) { return _mm512_cvttps_epi32(a); }
#define CS_HAVE_NATIVE_GATHER 1
#define CS_HAVE_NATIVE_I_GATHER 1
CS_INLINE vf v_gather(const float *base, vi idx) {
  return _mm512_i32gather_ps(idx, base, 4);
}
CS_INLINE vi i_gather_native(const uint32_t *base, vi idx) {
  return _mm512_i32gather_epi32(idx, (const void *)base, 4);
}
#define CS_HAVE_MASKED_TAIL 1
CS_INLINE vf v_load_n(const float *p, size_t n) {
  return _mm512_maskz_loadu_ps((__mmask16)((1u << n) - 1u), p);
}
CS_INLINE void v_store_n(float *p, vf a, size_t n) {
  _mm512_mask_storeu_ps(p, (__mmask16)((1u << n) - 1u), a);
}
CS_INLINE vi i_load_n(const uint32_t *p, size_t n) {
  return _mm512_maskz_loadu_epi32((__mmask16)((1u << n) - 1u), p);
}
#else
CS_INLINE vf i_to_float(vi a) {
  int32_t in[16];
  float out[16];
  simde_mm512_storeu_si512((void *)in, a);
  for (int k = 0; k < 16; k++)
    out[k] = (float)in[k];
  return simde_mm512_loadu_ps(out);
}
/* Lanes outside [0, 2^31) (NaN too) give 0 here, a value the caller
 * selects away, as it does the instruction's. */
CS_INLINE vi v_to_index(vf a) {
  float in[16];
  uint32_t out[16];
  simde_mm512_storeu_ps(in, a);
  for (int k = 0; k < 16; k++)
    out[k] = in[k] >= 0.0f && in[k] < 0x1p31f ? (uint32_t)in[k] : 0u;
  return simde_mm512_loadu_si512((const void *)out);
}
#endif
#else
#error "CS_LANES must be 4, 8 or 16"
#endif

#define W CS_LANES

/* a < b ? a : b and a > b ? a : b per lane, NaN and signed zeros included
 * (b unless the comparison holds): what x86's min and max compute, one
 * instruction with no mask on a select's latency (WebAssembly's
 * pseudo-minimum and maximum are the same rule with the operands
 * swapped); compare and select elsewhere. */
CS_INLINE vf v_min_lt(vf a, vf b) {
#if CS_LANES == 4 && defined(__SSE__)
  return _mm_min_ps(a, b);
#elif CS_LANES == 8 && defined(__AVX__)
  return _mm256_min_ps(a, b);
#elif CS_LANES == 16 && defined(__AVX512F__)
  return _mm512_min_ps(a, b);
#elif CS_LANES == 4 && defined(__wasm_simd128__)
  return wasm_f32x4_pmin(b, a); /* a < b ? a : b */
#else
  return v_select(v_lt(a, b), a, b);
#endif
}
CS_INLINE vf v_max_gt(vf a, vf b) {
#if CS_LANES == 4 && defined(__SSE__)
  return _mm_max_ps(a, b);
#elif CS_LANES == 8 && defined(__AVX__)
  return _mm256_max_ps(a, b);
#elif CS_LANES == 16 && defined(__AVX512F__)
  return _mm512_max_ps(a, b);
#elif CS_LANES == 4 && defined(__wasm_simd128__)
  return wasm_f32x4_pmax(b, a); /* b < a ? a : b */
#else
  return v_select(v_gt(a, b), a, b);
#endif
}

#ifndef CS_HAVE_MASKED_TAIL
/* Partial vectors through a zeroed buffer: the tail runs once per call. */
CS_INLINE vf v_load_n(const float *p, size_t n) {
  if (n == W) return v_load(p);
  float buffer[W] = {0};
  memcpy(buffer, p, n * sizeof(float));
  return v_load(buffer);
}
CS_INLINE void v_store_n(float *p, vf a, size_t n) {
  if (n == W) {
    v_store(p, a);
    return;
  }
  float buffer[W];
  v_store(buffer, a);
  memcpy(p, buffer, n * sizeof(float));
}
CS_INLINE vi i_load_n(const uint32_t *p, size_t n) {
  if (n == W) return i_load(p);
  uint32_t buffer[W] = {0};
  memcpy(buffer, p, n * sizeof(uint32_t));
  return i_load(buffer);
}
#endif

#if CS_LANES == 16
/* A mask's bits as a plain integer. gcc 12 may keep a 32-bit value made
 * from a 16-bit mask in a mask register, store it with kmovw and load it
 * back with kmovd, which leaves its upper half undefined (rows_group's
 * `todo` came back as 0x8000ffff: slots past the group, a stack overrun).
 * Through a general register, as an empty asm needs it, the value is
 * zero-extended once and stays an ordinary int. */
CS_INLINE uint32_t m_word(vmask m) {
  uint32_t bits = (uint32_t)m;
  __asm__("" : "+r"(bits));
  return bits;
}
#endif

/* Bit k set where lane k of the mask is true. */
CS_INLINE uint32_t m_lane_bits(vmask m) {
#if CS_LANES == 4
  return (uint32_t)CS_MOVEMASK(m);
#elif CS_LANES == 8
  return (uint32_t)simde_mm256_movemask_ps(m);
#else
  return m_word(m);
#endif
}

#define CS_ALL_LANES ((uint32_t)((1ull << W) - 1u))

/* The elements of p whose bit is set in `lanes` (the same lanes as `m`),
 * zero elsewhere; the other elements are not touched, so another thread may
 * be writing them. Masked instructions where the ISA has them, otherwise
 * one scalar access per selected lane. */
CS_INLINE vf v_load_lanes(const float *p, vmask m, uint32_t lanes) {
  if (lanes == CS_ALL_LANES) return v_load(p);
#if CS_LANES == 16 && defined(__AVX512F__)
  (void)m;
  return _mm512_maskz_loadu_ps((__mmask16)lanes, p);
#elif CS_LANES == 8
  (void)lanes;
  return simde_mm256_maskload_ps(p, simde_mm256_castps_si256(m));
#else
  (void)m;
  float buffer[W] = {0};
  for (int k = 0; k < W; k++)
    if ((lanes >> k) & 1u) buffer[k] = p[k];
  return v_load(buffer);
#endif
}

/* Stores the lanes whose bit is set in `lanes` (those of `m`), nothing else. */
CS_INLINE void v_store_lanes(float *p, vf a, vmask m, uint32_t lanes) {
  if (lanes == CS_ALL_LANES) {
    v_store(p, a);
    return;
  }
#if CS_LANES == 16 && defined(__AVX512F__)
  (void)m;
  _mm512_mask_storeu_ps(p, (__mmask16)lanes, a);
#elif CS_LANES == 8
  (void)lanes;
  simde_mm256_maskstore_ps(p, simde_mm256_castps_si256(m), a);
#else
  (void)m;
  float buffer[W];
  v_store(buffer, a);
  for (int k = 0; k < W; k++)
    if ((lanes >> k) & 1u) p[k] = buffer[k];
#endif
}

/* A vector of base[lane_index[k]]: scalar loads inserted into a register
 * (building it through memory would stall on store forwarding; 16 lanes as
 * two 8-lane halves). */
CS_INLINE vf v_gather_lanes(const float *base, const uint32_t lane_index[W]) {
#if CS_LANES == 4
  return simde_mm_setr_ps(base[lane_index[0]], base[lane_index[1]], base[lane_index[2]],
                          base[lane_index[3]]);
#elif CS_LANES == 8
  return simde_mm256_setr_ps(
      base[lane_index[0]], base[lane_index[1]], base[lane_index[2]], base[lane_index[3]],
      base[lane_index[4]], base[lane_index[5]], base[lane_index[6]], base[lane_index[7]]);
#else
  const simde__m256 low = simde_mm256_setr_ps(
      base[lane_index[0]], base[lane_index[1]], base[lane_index[2]], base[lane_index[3]],
      base[lane_index[4]], base[lane_index[5]], base[lane_index[6]], base[lane_index[7]]);
  const simde__m256 high = simde_mm256_setr_ps(
      base[lane_index[8]], base[lane_index[9]], base[lane_index[10]],
      base[lane_index[11]], base[lane_index[12]], base[lane_index[13]],
      base[lane_index[14]], base[lane_index[15]]);
  return simde_mm512_insertf32x8(simde_mm512_castps256_ps512(low), high, 1);
#endif
}

/* base[idx[k]] per lane, 32-bit words: the gather instruction where the
 * ISA has one and `instruction` asks for it, else scalar loads. */
CS_INLINE vi i_gather(const uint32_t *base, vi idx, int instruction) {
#ifdef CS_HAVE_NATIVE_I_GATHER
  if (instruction) return i_gather_native(base, idx);
#else
  (void)instruction;
#endif
  uint32_t lane_index[W], lane_word[W];
  i_store(lane_index, idx);
  for (int k = 0; k < W; k++)
    lane_word[k] = base[lane_index[k]];
  return i_load(lane_word);
}

CS_INLINE vf v_zero(void) { return v_set1(0.0f); }

/* 0, 1, ..., W - 1: loaded from a constant (SIMDe builds the 512-bit
 * setr_epi32 from 16 masked broadcasts, in every block that asks). */
CS_INLINE vi i_iota(void) {
  static const uint32_t lanes[16] = {0, 1, 2,  3,  4,  5,  6,  7,
                                     8, 9, 10, 11, 12, 13, 14, 15};
  return i_load(lanes);
}

/* Orders earlier non-temporal stores before any later store, so that another
 * thread that sees the call's return sees its results. */
CS_INLINE void v_stream_fence(void) { simde_mm_sfence(); }

#endif /* CROWDSTEER_VEC_H */
