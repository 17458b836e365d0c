/* Replays the navigation fuzz cases (fuzz/fuzz_navigation.c) without
 * libFuzzer: the seed corpus's NV inputs plus generated ones, so CI checks
 * the fuzzer's properties (refused builds change nothing, builds repeat,
 * every ISA gives the reference's bits) where no fuzzer is built. */
#include <stdio.h>
#include <stdlib.h>

#include "../common/check.h"
#include "../common/scenario.h"
#include "fuzz_navigation.h"

static int replay_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  static uint8_t data[1 << 16];
  const size_t n = fread(data, 1, sizeof data, f);
  fclose(f);
  if (n < 2 || data[0] != 'N' || data[1] != 'V') return 0;
  CHECK_MSG(cs_fuzz_navigation(data + 2, n - 2, -1) == 0, "%s", path);
  return 1;
}

int main(void) {
  int files = 0;
  char path[512];
  for (int i = 0; i < 16; i++) {
    snprintf(path, sizeof path, "%s/navigation-%d", CS_FUZZ_CORPUS_DIR, i);
    files += replay_file(path);
  }
  CHECK(files >= 4);
  enum { GENERATED = 1500 };
  rng r = {0x4E56u};
  static uint8_t data[1024];
  for (int t = 0; t < GENERATED; t++) {
    const size_t n = 16 + rng_below(&r, sizeof data - 16);
    for (size_t i = 0; i < n; i++)
      data[i] = (uint8_t)rng_below(&r, 256);
    CHECK_MSG(cs_fuzz_navigation(data, n, -1) == 0, "generated input %d", t);
  }
  const cs_fuzz_navigation_stats *st = &cs_fuzz_navigation_counters;
  printf("replayed %d corpus files and %d generated inputs: %lu cases, %lu fields built, "
         "%lu refused, %lu pathways made, %lu follow calls accepted\n",
         files, GENERATED, st->cases, st->fields_built, st->fields_refused,
         st->paths_made, st->calls_accepted);
  CHECK(st->fields_built > st->cases / 4 && st->fields_refused > st->cases / 20 &&
        st->calls_accepted > st->cases / 8);
  return check_report("test_nav_fuzz");
}
