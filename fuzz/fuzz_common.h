/* The layer every fuzz case sits on (fuzz_common.c): the byte reader, the
 * value decoders, host modes, overlap picking, the ASan hooks and the
 * counters. It includes no other fuzz file, so the cases depend on it one way. */
#ifndef CROWDSTEER_FUZZ_COMMON_H
#define CROWDSTEER_FUZZ_COMMON_H

#include <float.h>
#include <stddef.h>
#include <stdint.h>

/* Under AddressSanitizer the elements a call must not touch are poisoned
 * during the call, so reading one (not only writing) is a report. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CS_FUZZ_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define CS_FUZZ_ASAN 1
#endif
#ifdef CS_FUZZ_ASAN
#include <sanitizer/asan_interface.h>
#endif

#include "../util/splitmix64.h"

/* Past the end of the input the reader continues with a splitmix64 stream
 * seeded by the input length, so short inputs still fill big batches and the
 * same bytes always decode to the same call. */
typedef struct reader {
  const uint8_t *p;
  size_t n, pos;
  uint64_t state;
} reader;

static inline uint8_t rd_u8(reader *r) {
  if (r->pos < r->n) return r->p[r->pos++];
  return (uint8_t)(splitmix64_next(&r->state) >> 56);
}

static inline uint32_t rd_u32(reader *r) {
  uint32_t x = 0;
  for (int k = 0; k < 4; k++)
    x = x << 8 | rd_u8(r);
  return x;
}

/* Any float, biased to the contract's edges (see fuzz_common.c). */
float cs_fuzz_float(reader *r);
/* A uniform parameter: mostly 0 (default) or non-negative, sometimes any. */
float cs_fuzz_param(reader *r);
/* A per-agent parameter element: almost always non-negative. */
float cs_fuzz_param_element(reader *r);
/* A range over n agents: usually valid, sometimes begin > end, end > n or
 * near SIZE_MAX; `split` lies in a valid range. */
void cs_fuzz_range(reader *r, size_t n, size_t *begin, size_t *end, size_t *split);
/* Bit equality, except that any two NaNs are equal (payloads unspecified). */
int cs_fuzz_same_bits(float a, float b);

/* Host floating-point modes a call under test runs in: 0 is the default
 * (round to nearest, no FTZ/DAZ), 1..6 are FE_UPWARD, FE_DOWNWARD,
 * FE_TOWARDZERO, FTZ, DAZ and FTZ+DAZ (FZ on aarch64 for the last three).
 * Every result is compared with calls made in mode 0. */
enum { CS_FUZZ_HOST_MODES = 7 };
void cs_fuzz_set_host_mode(int mode);
/* This thread's mode bits (MXCSR without flags, FPCR, or the rounding). */
unsigned long long cs_fuzz_host_mode(void);

/* Overlap cases. The elements of one array a call touches, from
 * docs/guarantees.md ("Memory"): up to three intervals of element indices,
 * and whether the call writes them; `id` is the caller's name for the array. */
typedef struct cs_fuzz_extent {
  int id, written, n;
  uintptr_t base;
  size_t first[3], last[3];
} cs_fuzz_extent;
/* Adds [first, last) of `array` (nothing for NULL or an empty interval). */
void cs_fuzz_add_extent(cs_fuzz_extent *e, int *n, int id, const void *array, int written,
                        size_t first, size_t last);
/* Picks (from the three bytes) a written array of e and another array of e,
 * and a shift such that the written array moved to start `shift` elements
 * from the other one's start meets what that one touches with its
 * [begin, end), while every index the call may read it at,
 * [reach_first, reach_last) (covering [begin, end)), stays inside the
 * other's `count` elements (so the call's accesses stay in bounds whatever
 * it does). Returns 0 when no such pair exists; else the written array's
 * id, the address to move it to. */
int cs_fuzz_pick_overlap(const cs_fuzz_extent *e, int n, size_t begin, size_t end,
                         size_t reach_first, size_t reach_last, size_t count,
                         const uint8_t bytes[3], int *moved_id, uintptr_t *moved_to);

/* Counters over all cs_fuzz_one calls (fuzz_case.h), for the replay test's
 * summary; crowdsteer_step cases (fuzz_step.c) count into them too. */
typedef struct cs_fuzz_stats {
  unsigned long calls, rejected, accepted, finite_checked, nan_probes;
  unsigned long steps, steps_accepted;       /* crowdsteer_step cases (fuzz_step.c) */
  unsigned long overlaps, steps_overlapping; /* calls, steps with an array moved */
} cs_fuzz_stats;
extern cs_fuzz_stats cs_fuzz_counters;

/* The oracles' status masks and parameter rules (docs/behaviours.md §9). */
#define ERR(code) (1u << (code))

static inline int nonneg(float x) { return x >= 0.0f; }
static inline int nonneg_finite(float x) { return x >= 0.0f && x <= FLT_MAX; }
static inline int positive(float x) { return x > 0.0f; }
static inline int finite(float x) { return x >= -FLT_MAX && x <= FLT_MAX; }

#endif
