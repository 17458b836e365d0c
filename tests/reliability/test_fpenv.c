/* Results never depend on the host's floating-point mode: with the host (the
 * calling thread and every OpenMP worker) in FE_UPWARD, FE_DOWNWARD,
 * FE_TOWARDZERO, FTZ, DAZ or FTZ+DAZ, every entry point and crowdsteer_step
 * (threads 1, 2, 3, every tile size test_step uses) give the bits of the
 * default mode, on every ISA, and leave the host's mode as they found it.
 * The crowds carry denormal state and parameters, which is where FTZ and DAZ
 * change results. */
#include <fenv.h>

#ifdef _OPENMP
#include <omp.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define FPENV_X86 1
#endif

#include "../common/all_kinds.h"
#include "../common/check.h"

/* Beyond the largest team the step runs here, so every worker is set. */
enum { WORKERS = 4, AGENTS = 203, STEP_AGENTS = 4099 };

typedef struct host_mode {
  const char *name;
  int rounding;
  int flush_to_zero, denormals_are_zero;
} host_mode;

static const host_mode default_mode = {"default", FE_TONEAREST, 0, 0};
static const host_mode hostile_modes[] = {
    {"upward", FE_UPWARD, 0, 0},         {"downward", FE_DOWNWARD, 0, 0},
    {"towardzero", FE_TOWARDZERO, 0, 0}, {"ftz", FE_TONEAREST, 1, 0},
    {"daz", FE_TONEAREST, 0, 1},         {"ftz+daz", FE_TONEAREST, 1, 1},
};
enum { MODE_COUNT = sizeof hostile_modes / sizeof hostile_modes[0] };

#if defined(__aarch64__)
static uint64_t read_fpcr(void) {
  uint64_t fpcr;
  __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
  return fpcr;
}
static void write_fpcr(uint64_t fpcr) { __asm__ volatile("msr fpcr, %0" : : "r"(fpcr)); }
#endif

static void set_mode(const host_mode *m) {
  CHECK(fesetround(m->rounding) == 0);
#ifdef FPENV_X86
  unsigned csr = _mm_getcsr() & ~0x8040u; /* FTZ is bit 15, DAZ bit 6 */
  _mm_setcsr(csr | (m->flush_to_zero ? 0x8000u : 0u) |
             (m->denormals_are_zero ? 0x40u : 0u));
#elif defined(__aarch64__)
  /* FPCR.FZ (bit 24) flushes inputs and outputs: both FTZ and DAZ. */
  const uint64_t fz = 1u << 24;
  uint64_t fpcr = read_fpcr() & ~fz;
  write_fpcr(fpcr | (m->flush_to_zero || m->denormals_are_zero ? fz : 0u));
#endif
}

/* The mode bits of this thread (not the sticky exception flags). */
static uint64_t read_mode(void) {
#ifdef FPENV_X86
  return _mm_getcsr() & ~0x3Fu;
#elif defined(__aarch64__)
  return read_fpcr();
#else
  return (uint64_t)fegetround();
#endif
}

/* The calling thread and every worker of the OpenMP pool. */
static void set_mode_everywhere(const host_mode *m) {
#ifdef _OPENMP
#pragma omp parallel num_threads(WORKERS)
  set_mode(m);
#endif
  set_mode(m);
}

/* Every worker is still in `want` (its mode before the call). */
static int workers_in_mode(uint64_t want) {
  int all = 1;
#ifdef _OPENMP
#pragma omp parallel num_threads(WORKERS) reduction(&& : all)
  all = read_mode() == want;
#else
  (void)want;
#endif
  return all;
}

/* Denormal state and parameters in one agent of three. */
static void add_denormals(scenario *s) {
  for (size_t i = 1; i < s->count; i += 3) {
    for (int k = 0; k < 3; k++) {
      const float tiny = 1e-39f * (float)(k + 1) * (i % 2 ? 1.0f : -1.0f);
      s->v[k][i] = tiny;
      s->tv[k][i] = -tiny;
      s->out[k][i] = tiny;
      s->wander[k][i] = tiny;
      if (i % 9 == 1) s->p[k][i] = s->tp[k][i] + tiny;
    }
    s->max_speed[i] = 3e-39f;
    s->weight[i] = -2e-39f;
    if (i % 6 == 1) s->mass[i] = 1e-39f;
  }
}

static void make_crowd(scenario *s, size_t count, int dims, uint64_t seed) {
  scenario_make(s, count, dims, seed, 1);
  add_denormals(s);
}

/* Runs `call` in host mode `m`; checks the host's mode is unchanged after. */
#define IN_MODE(m, call)                                                                 \
  do {                                                                                   \
    set_mode_everywhere(m);                                                              \
    const uint64_t before_ = read_mode();                                                \
    call;                                                                                \
    const uint64_t after_ = read_mode();                                                 \
    CHECK_MSG(after_ == before_ && workers_in_mode(before_),                             \
              "host mode %s changed by the call", (m)->name);                            \
    set_mode_everywhere(&default_mode);                                                  \
  } while (0)

static void check_entry(const variant *va) {
  const uint64_t seed =
      0xF0E7u + (uint64_t)(va->entry * 64 + va->dims * 8 + va->target_kind);
  scenario want, got;
  make_crowd(&want, AGENTS, va->dims, seed);
  CHECK_STATUS(run_entry(&want, va, 0, AGENTS), CROWDSTEER_OK);
  for (int m = 0; m < MODE_COUNT; m++) {
    make_crowd(&got, AGENTS, va->dims, seed);
    IN_MODE(&hostile_modes[m],
            CHECK_STATUS(run_entry(&got, va, 0, AGENTS), CROWDSTEER_OK));
    CHECK_MSG(same_scenario(&want, &got),
              "%s %dd kind %d per_agent %d accumulate %d, isa %s, host %s",
              entry_name(va->entry), va->dims, va->target_kind, va->per_agent,
              va->accumulate, crowdsteer_isa_name(crowdsteer_active_isa()),
              hostile_modes[m].name);
    scenario_free(&got);
  }
  scenario_free(&want);
}

/* A step of every behaviour kind, out of place into `next`. */
static void run_step(scenario *s, scenario *next, int combine, size_t tile, int threads) {
  all_kinds_step c;
  all_kinds_make(&c, s, next, combine);
  c.step.output = &c.other;
  c.step.tile_size = tile;
  c.step.threads = threads;
  CHECK_STATUS(crowdsteer_step(&c.agents, &c.step, 0, s->count), CROWDSTEER_OK);
  all_kinds_free(&c);
}

static void check_step(void) {
  static const size_t tiles[] = {0, 1, 7, 64, 4096};
  static const int threads[] = {1, 2, 3};
  for (int dims = 2; dims <= 3; dims++)
    for (int combine = 0; combine < 2; combine++) {
      const uint64_t seed = 0x57E0u + (uint64_t)(dims * 2 + combine);
      scenario want, want_next, got, got_next;
      make_crowd(&want, STEP_AGENTS, dims, seed);
      make_crowd(&want_next, STEP_AGENTS, dims, seed + 1);
      run_step(&want, &want_next, combine, 0, 1);
      for (int m = 0; m < MODE_COUNT; m++)
        for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; t++)
          for (size_t h = 0; h < sizeof threads / sizeof threads[0]; h++) {
            make_crowd(&got, STEP_AGENTS, dims, seed);
            make_crowd(&got_next, STEP_AGENTS, dims, seed + 1);
            IN_MODE(&hostile_modes[m],
                    run_step(&got, &got_next, combine, tiles[t], threads[h]));
            CHECK_MSG(same_scenario(&want, &got) && same_scenario(&want_next, &got_next),
                      "step %dd combine %d tile %zu threads %d, isa %s, host %s", dims,
                      combine, tiles[t], threads[h],
                      crowdsteer_isa_name(crowdsteer_active_isa()),
                      hostile_modes[m].name);
            scenario_free(&got);
            scenario_free(&got_next);
          }
      scenario_free(&want);
      scenario_free(&want_next);
    }
}

static void check_all(void) {
  for_each_variant(AGENTS, 1, check_entry);
  check_step();
}

int main(void) {
  set_mode_everywhere(&default_mode);
  if (!on_every_isa(check_all)) return 77;
  return check_report("test_fpenv");
}
