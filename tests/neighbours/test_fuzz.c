/* Replays the neighbour fuzz cases (fuzz/fuzz_neighbours.c) without
 * libFuzzer: the seed corpus plus deterministic pseudo-random inputs, on the
 * ISA ctest forces (or each one the bytes choose), so CI runs the fuzzer's
 * properties on every backend even where no fuzzer is built. */
#include <stdio.h>
#include <stdlib.h>

#include "../common/check.h"
#include "../common/scenario.h"
#include "fuzz_neighbours.h"

/* The library's count of nearest-k selections past its kept buffer
 * (src/internal.h): the packed crowds must reach them. */
typedef struct cs_selection_work {
  uint64_t selections, candidates, visits, most_passes;
} cs_selection_work;
void cs_count_selections(int on);
cs_selection_work cs_selection_counts(void);

static int replay_file(const char *path, int isa) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  static uint8_t data[1 << 16];
  const size_t n = fread(data, 1, sizeof data, f);
  fclose(f);
  if (n < 2 || data[0] != 'N' || data[1] != 'B') return 0;
  CHECK_MSG(cs_fuzz_neighbours(data + 2, n - 2, isa) == 0, "%s", path);
  return 1;
}

int main(void) {
  crowdsteer_isa isas[CROWDSTEER_ISA_COUNT];
  const int forced = getenv("CROWDSTEER_ISA") && *getenv("CROWDSTEER_ISA");
  if (isas_to_test(CROWDSTEER_ISA_SCALAR, isas) < 0) return 77;
  const int isa = forced ? (int)isas[0] : -1;
  int files = 0;
  cs_count_selections(1);
  char path[512];
  for (int i = 0; i < 64; i++) {
    snprintf(path, sizeof path, "%s/neighbours-%d", CS_FUZZ_CORPUS_DIR, i);
    files += replay_file(path, isa);
  }
  CHECK(files >= 8);
  rng r = {0xF0221u};
  static uint8_t data[2048];
  /* 2,000: enough for ties in distance among the k nearest to show when
   * the query's tie rule depends on the order agents are visited in. */
  enum { GENERATED = 2000 };
  for (int t = 0; t < GENERATED; t++) {
    const size_t n = 8 + rng_below(&r, sizeof data - 8);
    for (size_t i = 0; i < n; i++)
      data[i] = (uint8_t)rng_below(&r, 256);
    CHECK_MSG(cs_fuzz_neighbours(data, n, isa) == 0, "pseudo-random input %d", t);
  }
  const cs_fuzz_neighbour_stats *st = &cs_fuzz_neighbour_counters;
  printf("replayed %d corpus files and %d generated inputs: %lu cases, %lu grid "
         "queries accepted (%lu in the Reynolds form), %lu steps checked, %lu crowds "
         "checked in cell order, %lu neighbour queries compared\n",
         files, GENERATED, st->cases, st->queries_accepted, st->reynolds_accepted,
         st->steps_checked, st->cell_orders_checked, st->queries_compared);
  CHECK(st->queries_accepted > st->cases / 10 && st->steps_checked > st->cases / 20 &&
        st->cell_orders_checked > st->cases / 100 &&
        st->reynolds_accepted > st->queries_accepted / 10 &&
        st->queries_compared > st->cases / 10);
  const cs_selection_work w = cs_selection_counts();
  cs_count_selections(0);
  printf("%llu nearest-k selections past 64 neighbours\n",
         (unsigned long long)w.selections);
  CHECK(w.selections > 0);
  return check_report("test_neighbours_fuzz");
}
