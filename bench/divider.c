/* Peak divide and square-root throughput per vector width, measured with
 * independent dependency chains held in registers (no memory traffic). Exact
 * mode forbids reciprocal estimates, so a kernel that needs k divisions and
 * square roots per agent cannot beat k times these figures: this is the
 * compute ceiling next to bandwidth.c's memory ceiling. */
#include "divider.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

/* The chains are unrolled so that they live in registers.
 * acc = acc / d stays normal for any realistic round count (d is just above
 * 1); acc = sqrt(acc + d) converges to a fixed point near 1.6. Both keep the
 * divider busy on ordinary operands, as the kernels do. */
/* clang-format off */
#define DIVIDER_BODY(vec, set1, div, sqrt, add, first)                           \
  vec d = set1(1.0000001f), acc[DIVIDER_CHAINS];                                \
  for (int k = 0; k < DIVIDER_CHAINS; k++)                                      \
    acc[k] = set1(1.0f + (float)k);                                             \
  if (op == DIVIDER_DIV) {                                                      \
    for (long r = 0; r < rounds; r++) {                                         \
      _Pragma("GCC unroll 16")                                                  \
      for (int k = 0; k < DIVIDER_CHAINS; k++) acc[k] = div(acc[k], d);         \
    }                                                                           \
  } else {                                                                      \
    for (long r = 0; r < rounds; r++) {                                         \
      _Pragma("GCC unroll 16")                                                  \
      for (int k = 0; k < DIVIDER_CHAINS; k++) acc[k] = sqrt(add(acc[k], d));   \
    }                                                                           \
  }                                                                             \
  float sum = 0.0f;                                                             \
  for (int k = 0; k < DIVIDER_CHAINS; k++)                                      \
    sum += first(acc[k]);                                                       \
  return sum;
/* clang-format on */

static float run_scalar(divider_op op, long rounds) {
  DIVIDER_BODY(__m128, _mm_set_ss, _mm_div_ss, _mm_sqrt_ss, _mm_add_ss, _mm_cvtss_f32)
}

static float run_sse(divider_op op, long rounds) {
  DIVIDER_BODY(__m128, _mm_set1_ps, _mm_div_ps, _mm_sqrt_ps, _mm_add_ps, _mm_cvtss_f32)
}

__attribute__((target("avx"))) static float run_avx(divider_op op, long rounds) {
  DIVIDER_BODY(__m256, _mm256_set1_ps, _mm256_div_ps, _mm256_sqrt_ps, _mm256_add_ps,
               _mm256_cvtss_f32)
}

__attribute__((target("avx512f"))) static float run_avx512(divider_op op, long rounds) {
  DIVIDER_BODY(__m512, _mm512_set1_ps, _mm512_div_ps, _mm512_sqrt_ps, _mm512_add_ps,
               _mm512_cvtss_f32)
}

int divider_supported(divider_width width) {
  __builtin_cpu_init();
  switch (width) {
  case DIVIDER_SCALAR:
  case DIVIDER_SSE: return 1;
  case DIVIDER_AVX: return __builtin_cpu_supports("avx");
  case DIVIDER_AVX512: return __builtin_cpu_supports("avx512f");
  default: return 0;
  }
}

float divider_run(divider_width width, divider_op op, long rounds) {
  switch (width) {
  case DIVIDER_SCALAR: return run_scalar(op, rounds);
  case DIVIDER_SSE: return run_sse(op, rounds);
  case DIVIDER_AVX: return run_avx(op, rounds);
  case DIVIDER_AVX512: return run_avx512(op, rounds);
  default: return 0.0f;
  }
}

#else /* not x86: no divider baselines */

int divider_supported(divider_width width) {
  (void)width;
  return 0;
}

float divider_run(divider_width width, divider_op op, long rounds) {
  (void)width, (void)op, (void)rounds;
  return 0.0f;
}

#endif

int divider_lanes(divider_width width) {
  static const int lanes[DIVIDER_WIDTH_COUNT] = {1, 4, 8, 16};
  return width < DIVIDER_WIDTH_COUNT ? lanes[width] : 0;
}
