/* A tiny assertion kit for the C tests: failures print file, line and the
 * values involved, keep counting, and make main() return non-zero. */
#ifndef CROWDSTEER_TEST_CHECK_H
#define CROWDSTEER_TEST_CHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crowdsteer.h"

static int check_failures;

#define CHECK(cond)                                                                      \
  do {                                                                                   \
    if (!(cond)) {                                                                       \
      check_failures++;                                                                  \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);           \
    }                                                                                    \
  } while (0)

#define CHECK_MSG(cond, ...)                                                             \
  do {                                                                                   \
    if (!(cond)) {                                                                       \
      check_failures++;                                                                  \
      fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond);           \
      fprintf(stderr, __VA_ARGS__);                                                      \
      fputc('\n', stderr);                                                               \
    }                                                                                    \
  } while (0)

#define CHECK_STATUS(expr, expected)                                                     \
  do {                                                                                   \
    crowdsteer_status got_ = (expr);                                                     \
    if (got_ != (expected)) {                                                            \
      check_failures++;                                                                  \
      fprintf(stderr, "%s:%d: %s returned %d (%s), expected %d (%s)\n", __FILE__,        \
              __LINE__, #expr, (int)got_, crowdsteer_status_string(got_),                \
              (int)(expected), crowdsteer_status_string(expected));                      \
    }                                                                                    \
  } while (0)

/* |got - want| <= tol, printing both on failure. */
#define CHECK_NEAR(got, want, tol)                                                       \
  do {                                                                                   \
    double g_ = (got), w_ = (want);                                                      \
    if (!(fabs(g_ - w_) <= (tol))) {                                                     \
      check_failures++;                                                                  \
      fprintf(stderr, "%s:%d: %s = %.9g, expected %.9g (tol %g)\n", __FILE__, __LINE__,  \
              #got, g_, w_, (double)(tol));                                              \
    }                                                                                    \
  } while (0)

/* Same bits (any two NaNs count as equal: payloads are not part of the
 * contract). */
static inline int same_bits(float a, float b) {
  if (a != a && b != b) return 1;
  unsigned ua, ub;
  memcpy(&ua, &a, sizeof ua);
  memcpy(&ub, &b, sizeof ub);
  return ua == ub;
}

/* When ctest runs a binary with CROWDSTEER_ISA set to an ISA this machine
 * cannot run, the library falls back; the test reports "skipped" (77). */
static inline int skip_if_forced_isa_unavailable(void) {
  const char *requested = getenv("CROWDSTEER_ISA");
  if (!requested || !*requested) return 0;
  crowdsteer_isa isa;
  if (crowdsteer_isa_from_name(requested, &isa) != CROWDSTEER_OK ||
      !crowdsteer_isa_supported(isa)) {
    printf("skipped: CROWDSTEER_ISA=%s is not available here\n", requested);
    return 1;
  }
  return 0;
}

/* The ISAs a test should cover: the one CROWDSTEER_ISA forces, or every
 * supported one from `first` on. Returns -1 when the forced ISA is not
 * available here (the test should then exit 77, "skipped"). */
static inline int isas_to_test(crowdsteer_isa first,
                               crowdsteer_isa out[CROWDSTEER_ISA_COUNT]) {
  int count = 0;
  const char *forced = getenv("CROWDSTEER_ISA");
  if (forced && *forced) {
    if (skip_if_forced_isa_unavailable()) return -1;
    crowdsteer_isa_from_name(forced, &out[count++]);
    return count;
  }
  for (int i = (int)first; i < CROWDSTEER_ISA_COUNT; i++)
    if (crowdsteer_isa_supported((crowdsteer_isa)i)) out[count++] = (crowdsteer_isa)i;
  return count;
}

/* Runs `body` once on each ISA isas_to_test(SCALAR) gives, forcing it
 * first. Returns 0 when the forced ISA is not available here (the test
 * should then exit 77, "skipped"). */
static inline int on_every_isa(void (*body)(void)) {
  crowdsteer_isa isas[CROWDSTEER_ISA_COUNT];
  int isa_count = isas_to_test(CROWDSTEER_ISA_SCALAR, isas);
  if (isa_count < 0) return 0;
  for (int i = 0; i < isa_count; i++) {
    CHECK(crowdsteer_force_isa(isas[i]) == CROWDSTEER_OK);
    body();
  }
  return 1;
}

static inline int check_report(const char *name) {
  if (check_failures) {
    fprintf(stderr, "%s: %d check(s) failed\n", name, check_failures);
    return 1;
  }
  printf("%s: all checks passed (isa %s)\n", name,
         crowdsteer_isa_name(crowdsteer_active_isa()));
  return 0;
}

#endif
