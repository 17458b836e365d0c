/* Run-time choice of backend: CPU detection (cpuid + xgetbv on x86), the
 * CROWDSTEER_ISA override, one atomically published choice, and the tables
 * of compiled-in backends (the behaviours' and the neighbour machinery's). Compiled with
 * the baseline flags only, so it runs on any CPU of the architecture. */
#if defined(__AVX__) || defined(__AVX2__) || defined(__AVX512F__)
#error "dispatch.c must be compiled without AVX flags: it has to run on any x86-64"
#endif

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "neighbours/neighbours.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define CS_X86 1
#endif

/* Compiled-in backends, indexed by crowdsteer_isa; NULL when not built. */
static const cs_backend *const backends[CROWDSTEER_ISA_COUNT] = {
    [CROWDSTEER_ISA_SCALAR] = &cs_backend_scalar,
#ifdef CROWDSTEER_HAVE_SSE4
    [CROWDSTEER_ISA_SSE4] = &cs_backend_sse4,
#endif
#ifdef CROWDSTEER_HAVE_AVX2
    [CROWDSTEER_ISA_AVX2] = &cs_backend_avx2,
#endif
#ifdef CROWDSTEER_HAVE_AVX512
    [CROWDSTEER_ISA_AVX512] = &cs_backend_avx512,
#endif
#ifdef CROWDSTEER_HAVE_NEON
    [CROWDSTEER_ISA_NEON] = &cs_backend_neon,
#endif
#ifdef CROWDSTEER_HAVE_SIMD128
    [CROWDSTEER_ISA_SIMD128] = &cs_backend_simd128,
#endif
};

static const char *const isa_names[] = {
    [CROWDSTEER_ISA_SCALAR] = "scalar", [CROWDSTEER_ISA_SSE4] = "sse4",
    [CROWDSTEER_ISA_AVX2] = "avx2",     [CROWDSTEER_ISA_AVX512] = "avx512",
    [CROWDSTEER_ISA_NEON] = "neon",     [CROWDSTEER_ISA_SIMD128] = "simd128",
};

_Static_assert(sizeof isa_names / sizeof isa_names[0] == CROWDSTEER_ISA_COUNT,
               "one name per ISA");

#ifdef CS_X86
/* XCR0 says which register states the OS saves on a context switch. */
static unsigned long long read_xcr0(void) {
  unsigned lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return ((unsigned long long)hi << 32) | lo;
}
#endif

static int cpu_supports(crowdsteer_isa isa) {
  switch (isa) {
  case CROWDSTEER_ISA_SCALAR: return 1;
#ifdef CS_X86
  case CROWDSTEER_ISA_SSE4:
  case CROWDSTEER_ISA_AVX2:
  case CROWDSTEER_ISA_AVX512: {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    const int sse41 = (c >> 19) & 1, osxsave = (c >> 27) & 1, avx = (c >> 28) & 1;
    /* -msse4.1 also lets the compiler use SSSE3 (pshufb packs lanes) */
    if (isa == CROWDSTEER_ISA_SSE4) return sse41 && ((c >> 9) & 1);
    if (!sse41 || !osxsave || !avx) return 0;
    unsigned long long xcr0 = read_xcr0();
    if ((xcr0 & 0x6) != 0x6) return 0; /* XMM and YMM state */
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    const int avx2 = (b >> 5) & 1;
    if (isa == CROWDSTEER_ISA_AVX2) return avx2;
#ifdef CROWDSTEER_AVX512_EMULATED
    return avx2; /* the 16-lane backend was built for AVX2 (tests only) */
#endif
    const unsigned avx512_fdqbwvl = (1u << 16) | (1u << 17) | (1u << 30) | (1u << 31);
    return avx2 && (b & avx512_fdqbwvl) == avx512_fdqbwvl &&
           (xcr0 & 0xE6) == 0xE6; /* opmask, upper ZMM, ZMM16-31 state */
  }
#endif
#if defined(__aarch64__)
  case CROWDSTEER_ISA_NEON: return 1; /* Advanced SIMD is mandatory on aarch64 */
#endif
#ifdef CROWDSTEER_HAVE_SIMD128
  /* A module with SIMD instructions only loads on an engine that has them:
   * the choice between the SIMD and the scalar build is the loader's
   * (js/src/load.js, WebAssembly.validate). */
  case CROWDSTEER_ISA_SIMD128: return 1;
#endif
  default: return 0;
  }
}

int crowdsteer_isa_supported(crowdsteer_isa isa) {
  return (unsigned)isa < CROWDSTEER_ISA_COUNT && backends[isa] && cpu_supports(isa);
}

const char *crowdsteer_isa_name(crowdsteer_isa isa) {
  return (unsigned)isa < CROWDSTEER_ISA_COUNT ? isa_names[isa] : "unknown";
}

crowdsteer_status crowdsteer_isa_from_name(const char *name, crowdsteer_isa *isa) {
  if (!name || !isa) return CROWDSTEER_ERROR_NULL_POINTER;
  for (int i = 0; i < CROWDSTEER_ISA_COUNT; i++) {
    if (strcmp(name, isa_names[i]) == 0) {
      *isa = (crowdsteer_isa)i;
      return CROWDSTEER_OK;
    }
  }
  return CROWDSTEER_ERROR_UNKNOWN_ISA;
}

static crowdsteer_isa best_isa(void) {
  for (int i = CROWDSTEER_ISA_COUNT - 1; i > 0; i--)
    if (crowdsteer_isa_supported((crowdsteer_isa)i)) return (crowdsteer_isa)i;
  return CROWDSTEER_ISA_SCALAR;
}

/* -1 until the first call decides; then a supported crowdsteer_isa. */
static atomic_int active_isa = -1;

/* Set by the one first call that reports a bad CROWDSTEER_ISA: racing first
 * calls all read the environment, but only one prints. */
static atomic_flag bad_isa_reported = ATOMIC_FLAG_INIT;

/* The environment can only name an ISA the machine runs; anything else is
 * reported once on stderr (the host cannot get a status from getenv) and the
 * best ISA is used, so a typo never crashes a program. */
static crowdsteer_isa initial_isa(void) {
  const char *requested = getenv("CROWDSTEER_ISA");
  if (!requested || !*requested) return best_isa();
  crowdsteer_isa isa;
  crowdsteer_status status = crowdsteer_isa_from_name(requested, &isa);
  if (status == CROWDSTEER_OK && !crowdsteer_isa_supported(isa))
    status = CROWDSTEER_ERROR_UNSUPPORTED_ISA;
  if (status == CROWDSTEER_OK) return isa;
  if (!atomic_flag_test_and_set(&bad_isa_reported))
    fprintf(stderr, "crowdsteer: CROWDSTEER_ISA=%s ignored (%s); using %s\n", requested,
            crowdsteer_status_string(status), isa_names[best_isa()]);
  return best_isa();
}

crowdsteer_isa crowdsteer_active_isa(void) {
  int isa = atomic_load_explicit(&active_isa, memory_order_acquire);
  if (isa >= 0) return (crowdsteer_isa)isa;
  int expected = -1;
  /* Racing first calls compute the same answer; the first store wins. */
  atomic_compare_exchange_strong(&active_isa, &expected, (int)initial_isa());
  return (crowdsteer_isa)atomic_load_explicit(&active_isa, memory_order_acquire);
}

crowdsteer_status crowdsteer_force_isa(crowdsteer_isa isa) {
  if ((unsigned)isa >= CROWDSTEER_ISA_COUNT) return CROWDSTEER_ERROR_UNKNOWN_ISA;
  if (!crowdsteer_isa_supported(isa)) return CROWDSTEER_ERROR_UNSUPPORTED_ISA;
  atomic_store_explicit(&active_isa, (int)isa, memory_order_release);
  return CROWDSTEER_OK;
}

const cs_backend *cs_active_backend(void) { return backends[crowdsteer_active_isa()]; }

/* A CPU-dependent choice, -1 until decided, then decide()'s answer (or a
 * test's override). Racing first calls decide alike. */
static int decided(atomic_int *choice, int (*decide)(void)) {
  int use = atomic_load_explicit(choice, memory_order_relaxed);
  if (use < 0) {
    use = decide();
    atomic_store_explicit(choice, use, memory_order_relaxed);
  }
  return use;
}

/* 1 on Intel, 0 elsewhere (AMD, ARM) or when overridden. */
static atomic_int gather_instruction = -1;

static int intel_cpu(void) {
#ifdef CS_X86
  unsigned a, b, c, d;
  if (!__get_cpuid(0, &a, &b, &c, &d)) return 0;
  return b == 0x756e6547u && d == 0x49656e69u && c == 0x6c65746eu; /* GenuineIntel */
#else
  return 0;
#endif
}

int cs_gather_instruction_pays(void) { return decided(&gather_instruction, intel_cpu); }

void cs_set_gather_instruction(int use) {
  atomic_store_explicit(&gather_instruction, use != 0, memory_order_relaxed);
}

/* Whether to use PREFETCHW (-1 again when a test allows it back). */
static atomic_int write_prefetch = -1;

static int prefetchw_cpu(void) {
#ifdef CS_X86
  unsigned a, b, c, d;
  if (!__get_cpuid(0x80000001u, &a, &b, &c, &d)) return 0;
  return (c >> 8) & 1u; /* PRFCHW (AMD: 3DNowPrefetch) */
#else
  return 0;
#endif
}

int cs_write_prefetch(void) { return decided(&write_prefetch, prefetchw_cpu); }

void cs_set_write_prefetch(int allow) {
  atomic_store_explicit(&write_prefetch, allow ? -1 : 0, memory_order_relaxed);
}

const cs_backend *cs_backend_for(crowdsteer_isa isa) {
  return (unsigned)isa < CROWDSTEER_ISA_COUNT ? backends[isa] : NULL;
}

/* The neighbour machinery's backends, by ISA as the others. */
static const cs_nb_backend scalar_backend = {cs_nb_kernel_scalar, cs_nb_keys_scalar,
                                             cs_nb_ends_scalar, NULL, NULL};

const cs_nb_backend *cs_nb_backend_for(crowdsteer_isa isa) {
  switch (isa) {
#ifdef CROWDSTEER_HAVE_SSE4
  case CROWDSTEER_ISA_SSE4: return &cs_nb_kernel_sse4;
#endif
#ifdef CROWDSTEER_HAVE_AVX2
  case CROWDSTEER_ISA_AVX2: return &cs_nb_kernel_avx2;
#endif
#ifdef CROWDSTEER_HAVE_AVX512
  case CROWDSTEER_ISA_AVX512: return &cs_nb_kernel_avx512;
#endif
#ifdef CROWDSTEER_HAVE_NEON
  case CROWDSTEER_ISA_NEON: return &cs_nb_kernel_neon;
#endif
#ifdef CROWDSTEER_HAVE_SIMD128
  case CROWDSTEER_ISA_SIMD128: return &cs_nb_kernel_simd128;
#endif
  default: return &scalar_backend;
  }
}
