/* The fuzz cases' common layer (fuzz_common.h): value decoders, ranges,
 * host floating-point modes, overlap picking and the counters. */
#include "fuzz_common.h"

#include <fenv.h>
#include <float.h>
#include <math.h>
#include <string.h>

cs_fuzz_stats cs_fuzz_counters;

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

void cs_fuzz_set_host_mode(int mode) {
  static const int rounding[CS_FUZZ_HOST_MODES] = {
      FE_TONEAREST, FE_UPWARD,    FE_DOWNWARD, FE_TOWARDZERO,
      FE_TONEAREST, FE_TONEAREST, FE_TONEAREST};
  const int ftz = mode == 4 || mode == 6, daz = mode == 5 || mode == 6;
  fesetround(rounding[mode]);
#if defined(__x86_64__) || defined(__i386__)
  _mm_setcsr((_mm_getcsr() & ~0x8040u) | (ftz ? 0x8000u : 0u) | (daz ? 0x40u : 0u));
#elif defined(__aarch64__)
  unsigned long long fpcr;
  __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
  fpcr = (fpcr & ~(1ull << 24)) | (ftz || daz ? 1ull << 24 : 0ull);
  __asm__ volatile("msr fpcr, %0" : : "r"(fpcr));
#else
  (void)ftz, (void)daz;
#endif
}

unsigned long long cs_fuzz_host_mode(void) {
#if defined(__x86_64__) || defined(__i386__)
  return _mm_getcsr() & ~0x3Fu;
#elif defined(__aarch64__)
  unsigned long long fpcr;
  __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
  return fpcr;
#else
  return (unsigned long long)fegetround();
#endif
}

/* Values that sit on the edges of the contract: signed zeros, denormals,
 * the 1e18 state bound, the largest floats, infinities and NaN. */
static const float specials[] = {
    0.0f,     -0.0f,     1.0f,     -1.0f,     0.5f,       -0.5f,   2.0f,
    1e-3f,    1e3f,      1e6f,     -1e6f,     1e18f,      -1e18f,  1e-30f,
    1e-20f,   FLT_MIN,   -FLT_MIN, 0x1p-149f, -0x1p-149f, FLT_MAX, -FLT_MAX,
    INFINITY, -INFINITY, NAN,      1e30f,     3.0f,       -0.95f,  1e9f};
enum { SPECIAL_COUNT = sizeof specials / sizeof specials[0] };

/* Small multiples of a few scales make coincident positions (agent on its
 * target), head-on pairs and exact radii common; raw bits cover the rest. */
float cs_fuzz_float(reader *r) {
  static const float scales[16] = {0x1p-6f, 0.125f, 0.25f, 0.5f, 1.0f,  1.0f,
                                   1.0f,    1.0f,   2.0f,  4.0f, 10.0f, 100.0f,
                                   1e4f,    1e9f,   1e15f, 1e16f};
  uint8_t sel = rd_u8(r);
  if (sel < 32) return specials[sel % SPECIAL_COUNT];
  if (sel < 240) return (float)(int8_t)rd_u8(r) * scales[(sel - 32) % 16];
  uint32_t bits = rd_u32(r);
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

/* Parameters: mostly 0 (the default) or non-negative so that valid calls are
 * common; sometimes any value, which the library must reject when bad. */
float cs_fuzz_param(reader *r) {
  uint8_t sel = rd_u8(r);
  if (sel < 96) return 0.0f;
  if (sel < 232) return fabsf(cs_fuzz_float(r));
  return cs_fuzz_float(r);
}

float cs_fuzz_param_element(reader *r) {
  uint8_t sel = rd_u8(r);
  return sel < 250 ? fabsf(cs_fuzz_float(r)) : cs_fuzz_float(r);
}

void cs_fuzz_range(reader *r, size_t n, size_t *begin, size_t *end, size_t *split) {
  uint8_t how = rd_u8(r) % 8;
  *begin = 0;
  *end = n;
  if (how == 4) { /* a valid sub-range */
    *begin = rd_u8(r) % (n + 1);
    *end = *begin + rd_u8(r) % (n - *begin + 1);
  } else if (how == 5) { /* begin > end */
    *end = rd_u8(r) % (n + 1);
    *begin = *end + 1 + rd_u8(r) % 3;
  } else if (how == 6) { /* end > count */
    *end = n + 1 + rd_u8(r) % 4;
    *begin = rd_u8(r) % *end;
  } else if (how == 7) { /* near SIZE_MAX: overflow traps in range arithmetic */
    if (rd_u8(r) & 1) {
      *begin = 0;
      *end = SIZE_MAX - rd_u8(r) % 2;
    } else {
      *end = SIZE_MAX;
      *begin = SIZE_MAX - rd_u8(r) % 17;
    }
  }
  *split = *begin;
  if (*begin <= *end && *end <= n) *split = *begin + rd_u8(r) % (*end - *begin + 1);
}

/* ---- overlapping arrays ------------------------------------------------------*/

void cs_fuzz_add_extent(cs_fuzz_extent *e, int *n, int id, const void *array, int written,
                        size_t first, size_t last) {
  const uintptr_t base = (uintptr_t)array;
  if (!array || first >= last) return;
  cs_fuzz_extent *x = &e[*n];
  for (int j = 0; j < *n; j++) /* another interval of an array listed already */
    if (e[j].base == base && e[j].written == written && e[j].n < 3) x = &e[j];
  if (x == &e[*n]) {
    memset(x, 0, sizeof *x);
    x->id = id;
    x->base = base;
    x->written = written;
    (*n)++;
  }
  x->first[x->n] = first;
  x->last[x->n] = last;
  x->n++;
}

/* Whether [begin, end) of a written array starting `shift` elements from
 * o's start lands on an element o touches. */
static int meets(const cs_fuzz_extent *o, size_t begin, size_t end, long shift) {
  for (int j = 0; j < o->n; j++)
    if ((long)begin + shift < (long)o->last[j] && (long)o->first[j] < (long)end + shift)
      return 1;
  return 0;
}

int cs_fuzz_pick_overlap(const cs_fuzz_extent *e, int n, size_t begin, size_t end,
                         size_t reach_first, size_t reach_last, size_t count,
                         const uint8_t bytes[3], int *moved_id, uintptr_t *moved_to) {
  int written = 0;
  for (int j = 0; j < n; j++)
    written += e[j].written;
  if (!written || n < 2 || begin >= end || end > count) return 0;
  int pick = bytes[0] % written, w = 0;
  for (; w < n; w++)
    if (e[w].written && pick-- == 0) break;
  const cs_fuzz_extent *o = &e[(w + 1 + bytes[1] % (n - 1)) % n];
  if (reach_first > begin || reach_last < end || reach_last > count) return 0;
  const long lo = -(long)reach_first, hi = (long)(count - reach_last);
  long matches = 0;
  for (long s = lo; s <= hi; s++)
    matches += meets(o, begin, end, s);
  long chosen = matches ? bytes[2] % matches : -1;
  for (long s = lo; s <= hi && chosen >= 0; s++) {
    if (!meets(o, begin, end, s) || chosen-- != 0) continue;
    *moved_id = e[w].id;
    *moved_to = o->base + (uintptr_t)(s * (long)sizeof(float));
    return 1;
  }
  return 0;
}

int cs_fuzz_same_bits(float a, float b) {
  if (a != a && b != b) return 1;
  return memcmp(&a, &b, sizeof a) == 0;
}
