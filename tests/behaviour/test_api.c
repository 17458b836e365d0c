/* API odds and ends: status strings, version, ISA names, forcing ISAs, and
 * the statistical shape of crowdsteer_random. Forces ISAs itself. */
#include "../common/small_world.h"

static void test_status_strings(void) {
  enum { CODES = CROWDSTEER_ERROR_GEOMETRY + 1 };
  const char *s[CODES];
  for (int i = 0; i < CODES; i++) {
    s[i] = crowdsteer_status_string((crowdsteer_status)i);
    CHECK_MSG(s[i] != NULL && s[i][0] != '\0', "status %d has no string", i);
  }
  for (int i = 0; i < CODES; i++)
    for (int j = i + 1; j < CODES; j++)
      CHECK_MSG(!s[i] || !s[j] || strcmp(s[i], s[j]) != 0,
                "statuses %d and %d share the string \"%s\"", i, j, s[i]);
  /* unknown values still get a usable string, not one of a real code */
  static const int unknown[] = {CODES, 99, -1};
  for (size_t u = 0; u < sizeof unknown / sizeof unknown[0]; u++) {
    const char *x = crowdsteer_status_string((crowdsteer_status)unknown[u]);
    CHECK_MSG(x != NULL && x[0] != '\0', "status %d has no string", unknown[u]);
    for (int i = 0; x && i < CODES; i++)
      CHECK(!s[i] || strcmp(x, s[i]) != 0);
  }
}

static void test_version(void) {
  CHECK(crowdsteer_version() == CROWDSTEER_VERSION_NUMBER);
  CHECK(CROWDSTEER_VERSION_NUMBER == CROWDSTEER_VERSION_MAJOR * 10000 +
                                         CROWDSTEER_VERSION_MINOR * 100 +
                                         CROWDSTEER_VERSION_PATCH);
  char want[64];
  snprintf(want, sizeof want, "%d.%d.%d", CROWDSTEER_VERSION_MAJOR,
           CROWDSTEER_VERSION_MINOR, CROWDSTEER_VERSION_PATCH);
  const char *got = crowdsteer_version_string();
  CHECK_MSG(got && strcmp(got, want) == 0, "version string \"%s\", expected \"%s\"",
            got ? got : "(null)", want);
}

static void test_isa_names(void) {
  for (int i = 0; i < CROWDSTEER_ISA_COUNT; i++) {
    const char *name = crowdsteer_isa_name((crowdsteer_isa)i);
    CHECK_MSG(name && strcmp(name, "unknown") != 0, "ISA %d has no name", i);
    crowdsteer_isa back = CROWDSTEER_ISA_COUNT;
    CHECK_STATUS(crowdsteer_isa_from_name(name, &back), CROWDSTEER_OK);
    CHECK_MSG(back == (crowdsteer_isa)i, "\"%s\" parsed as %d, expected %d", name,
              (int)back, i);
    for (int j = 0; j < i; j++)
      CHECK(strcmp(name, crowdsteer_isa_name((crowdsteer_isa)j)) != 0);
  }
  static const char *const expected[CROWDSTEER_ISA_COUNT] = {"scalar", "sse4", "avx2",
                                                             "avx512", "neon", "simd128"};
  for (int i = 0; i < CROWDSTEER_ISA_COUNT; i++)
    CHECK(strcmp(crowdsteer_isa_name((crowdsteer_isa)i), expected[i]) == 0);
  CHECK(strcmp(crowdsteer_isa_name(CROWDSTEER_ISA_COUNT), "unknown") == 0);
  CHECK(strcmp(crowdsteer_isa_name((crowdsteer_isa)-1), "unknown") == 0);
  CHECK(strcmp(crowdsteer_isa_name((crowdsteer_isa)1000), "unknown") == 0);
  crowdsteer_isa isa = CROWDSTEER_ISA_AVX2;
  CHECK_STATUS(crowdsteer_isa_from_name("avx3", &isa), CROWDSTEER_ERROR_UNKNOWN_ISA);
  CHECK_STATUS(crowdsteer_isa_from_name("", &isa), CROWDSTEER_ERROR_UNKNOWN_ISA);
  CHECK_STATUS(crowdsteer_isa_from_name("sse", &isa), CROWDSTEER_ERROR_UNKNOWN_ISA);
  CHECK_STATUS(crowdsteer_isa_from_name("sse41", &isa), CROWDSTEER_ERROR_UNKNOWN_ISA);
  CHECK(isa == CROWDSTEER_ISA_AVX2); /* untouched on failure */
  CHECK_STATUS(crowdsteer_isa_from_name(NULL, &isa), CROWDSTEER_ERROR_NULL_POINTER);
  CHECK_STATUS(crowdsteer_isa_from_name("scalar", NULL), CROWDSTEER_ERROR_NULL_POINTER);
}

/* A tiny seek whose result every backend must produce bit for bit. */
static void seek_probe(float out[2]) {
  float px[3] = {0, 1, 2}, py[3] = {0, 1, 2}, vx[3] = {1, 0, -1}, vy[3] = {0, 1, 0};
  float ox[3], oy[3];
  crowdsteer_agents a = {3, 2, px, py, NULL, vx, vy, NULL, NULL};
  crowdsteer_target t;
  memset(&t, 0, sizeof t);
  t.point[0] = 3, t.point[1] = 4;
  crowdsteer_output o;
  memset(&o, 0, sizeof o);
  o.steering.x = ox, o.steering.y = oy;
  CHECK_STATUS(crowdsteer_seek(&a, &t, NULL, &o, 0, 3), CROWDSTEER_OK);
  out[0] = ox[0], out[1] = oy[0];
}

static void test_force_isa(void) {
  /* With CROWDSTEER_ISA set (and runnable, see main), that ISA is active. */
  const char *env = getenv("CROWDSTEER_ISA");
  crowdsteer_isa start = crowdsteer_active_isa();
  if (env && *env) {
    crowdsteer_isa want;
    CHECK_STATUS(crowdsteer_isa_from_name(env, &want), CROWDSTEER_OK);
    CHECK_MSG(start == want, "CROWDSTEER_ISA=%s but %s is active", env,
              crowdsteer_isa_name(start));
  }
  CHECK(crowdsteer_isa_supported(start));
  CHECK(crowdsteer_isa_supported(CROWDSTEER_ISA_SCALAR));
  CHECK(!crowdsteer_isa_supported(CROWDSTEER_ISA_COUNT));
  CHECK(!crowdsteer_isa_supported((crowdsteer_isa)-1));

  static const int bad[] = {CROWDSTEER_ISA_COUNT, 99, -1};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    CHECK_STATUS(crowdsteer_force_isa((crowdsteer_isa)bad[i]),
                 CROWDSTEER_ERROR_UNKNOWN_ISA);
    CHECK(crowdsteer_active_isa() == start);
  }
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
  CHECK(!crowdsteer_isa_supported(CROWDSTEER_ISA_SIMD128)); /* WebAssembly's only */
  CHECK_STATUS(crowdsteer_force_isa(CROWDSTEER_ISA_SIMD128),
               CROWDSTEER_ERROR_UNSUPPORTED_ISA);
#endif
#if defined(__x86_64__) || defined(__i386__)
  CHECK(!crowdsteer_isa_supported(CROWDSTEER_ISA_NEON));
  CHECK_STATUS(crowdsteer_force_isa(CROWDSTEER_ISA_NEON),
               CROWDSTEER_ERROR_UNSUPPORTED_ISA);
#elif defined(__aarch64__)
  CHECK(!crowdsteer_isa_supported(CROWDSTEER_ISA_AVX2));
  CHECK_STATUS(crowdsteer_force_isa(CROWDSTEER_ISA_AVX2),
               CROWDSTEER_ERROR_UNSUPPORTED_ISA);
#endif
  CHECK(crowdsteer_active_isa() == start);

  float reference[2];
  seek_probe(reference);
  for (int i = 0; i < CROWDSTEER_ISA_COUNT; i++) {
    crowdsteer_isa isa = (crowdsteer_isa)i;
    crowdsteer_isa before = crowdsteer_active_isa();
    if (!crowdsteer_isa_supported(isa)) {
      CHECK_STATUS(crowdsteer_force_isa(isa), CROWDSTEER_ERROR_UNSUPPORTED_ISA);
      CHECK(crowdsteer_active_isa() == before);
      continue;
    }
    CHECK_STATUS(crowdsteer_force_isa(isa), CROWDSTEER_OK);
    CHECK(crowdsteer_active_isa() == isa);
    float got[2];
    seek_probe(got);
    /* agent 0: (0.6,0.8) - (1,0); every backend gives the same bits */
    CHECK_MSG(same_bits(got[0], reference[0]) && same_bits(got[1], reference[1]),
              "%s: seek gave (%.9g, %.9g)", crowdsteer_isa_name(isa), got[0], got[1]);
    CHECK_NEAR(got[0], -0.4, 1e-6);
    CHECK_NEAR(got[1], 0.8, 1e-6);
  }
  CHECK_STATUS(crowdsteer_force_isa(start), CROWDSTEER_OK);
}

static void test_random(void) {
  enum { SAMPLES = 100000, BINS = 10 };
  double sum = 0, sum2 = 0;
  long bins[BINS] = {0};
  int off_grid = 0, out_of_range = 0;
  float lo = 1, hi = -1;
  for (uint32_t n = 0; n < SAMPLES; n++) {
    /* walk all four arguments */
    float x = crowdsteer_random(n / 5000u, n % 1000u, (n / 1000u) % 5u, n % 3u);
    double scaled = (double)x * 8388608.0; /* 2^23 */
    off_grid += scaled != floor(scaled);
    out_of_range += !(x >= -1.0f && x < 1.0f);
    if (x < lo) lo = x;
    if (x > hi) hi = x;
    sum += x;
    sum2 += (double)x * x;
    int b = (int)((x + 1.0) * BINS / 2.0);
    if (b >= 0 && b < BINS) bins[b]++;
  }
  CHECK_MSG(off_grid == 0, "%d values are not multiples of 2^-23", off_grid);
  CHECK_MSG(out_of_range == 0, "%d values outside [-1, 1)", out_of_range);
  double mean = sum / SAMPLES, var = sum2 / SAMPLES - mean * mean;
  /* uniform on [-1,1): mean 0 (sd of the mean 0.0018), variance 1/3 */
  CHECK_MSG(fabs(mean) < 0.01, "mean %g", mean);
  CHECK_MSG(fabs(var - 1.0 / 3.0) < 0.01, "variance %g", var);
  CHECK_MSG(lo < -0.999f && hi > 0.999f, "range [%g, %g]", lo, hi);
  for (int b = 0; b < BINS; b++) /* expected 10000, sd ~95 */
    CHECK_MSG(labs(bins[b] - SAMPLES / BINS) < 600, "bin %d holds %ld", b, bins[b]);

  /* deterministic, and each argument matters */
  int same[4] = {0, 0, 0, 0};
  for (uint32_t n = 0; n < 1000; n++) {
    float x = crowdsteer_random(77, n, 5, 1);
    CHECK(same_bits(x, crowdsteer_random(77, n, 5, 1)));
    same[0] += x == crowdsteer_random(78, n, 5, 1);
    same[1] += x == crowdsteer_random(77, n + 1000, 5, 1);
    same[2] += x == crowdsteer_random(77, n, 6, 1);
    same[3] += x == crowdsteer_random(77, n, 5, 2);
  }
  for (int a = 0; a < 4; a++)
    CHECK_MSG(same[a] < 5, "changing argument %d kept %d of 1000 values", a, same[a]);

  /* neighbouring agents are not correlated: lag-1 correlation near 0 */
  double c = 0, prev = crowdsteer_random(3, 0, 0, 0);
  for (uint32_t n = 1; n < 20000; n++) {
    double x = crowdsteer_random(3, n, 0, 0);
    c += x * prev;
    prev = x;
  }
  c /= 20000.0 / 3.0; /* normalised by the variance */
  CHECK_MSG(fabs(c) < 0.05, "lag-1 correlation %g", c);
}

int main(void) {
  if (skip_if_forced_isa_unavailable()) return 77;
  test_status_strings();
  test_version();
  test_isa_names();
  test_force_isa();
  test_random();
  return check_report("test_behaviour_api");
}
