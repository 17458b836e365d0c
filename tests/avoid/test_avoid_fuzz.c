/* Replays the avoidance fuzz cases (fuzz/fuzz_avoid.c) without libFuzzer:
 * every "AV" input of the seed corpus and of the saved findings, and a
 * fixed batch of pseudo-random inputs, on the ISA ctest forces or with each
 * supported ISA first (each case compares every ISA with its first). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/splitmix64.h"
#include "../common/check.h"
#include "fuzz_avoid.h"

static crowdsteer_isa isas[CROWDSTEER_ISA_COUNT];
static int isa_count;

static void replay(const uint8_t *data, size_t size, const char *what) {
  for (int n = 0; n < isa_count; n++)
    CHECK_MSG(cs_fuzz_avoid(data + 2, size - 2, (int)isas[n]) == 0, "%s on %s", what,
              crowdsteer_isa_name(isas[n]));
}

/* The "AV" files of `dir`; returns how many were replayed. */
static int replay_dir(const char *dir) {
  DIR *d = opendir(dir);
  CHECK_MSG(d != NULL, "cannot open %s", dir);
  if (!d) return 0;
  int files = 0;
  static uint8_t data[1 << 16];
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    FILE *f = fopen(path, "rb");
    if (!f) continue;
    const size_t size = fread(data, 1, sizeof data, f);
    fclose(f);
    if (size < 2 || data[0] != 'A' || data[1] != 'V') continue;
    replay(data, size, path);
    files++;
  }
  closedir(d);
  return files;
}

int main(void) {
  if ((isa_count = isas_to_test(CROWDSTEER_ISA_SCALAR, isas)) < 0) return 77;
  const int corpus = replay_dir(CS_FUZZ_CORPUS_DIR);
  const int findings = replay_dir(CS_RELIABILITY_INPUTS_DIR);
  CHECK(corpus >= 8);
  uint64_t state = 0xA701Dull;
  static uint8_t data[1024];
  enum { GENERATED = 300 };
  for (int t = 0; t < GENERATED; t++) {
    const size_t size = 2 + (size_t)(t * 37 % 1000);
    data[0] = 'A', data[1] = 'V';
    for (size_t i = 2; i < size; i++)
      data[i] = (uint8_t)(splitmix64_next(&state) >> 56);
    char what[64];
    snprintf(what, sizeof what, "generated input %d", t);
    replay(data, size, what);
  }
  const cs_fuzz_avoid_stats *s = &cs_fuzz_avoid_counters;
  printf("replayed %d corpus files, %d findings, %d generated inputs on %d ISA(s): %lu "
         "cases; %lu adds, %lu accepted; %lu avoid calls, %lu accepted, %lu sane; %lu "
         "steps, %lu accepted; %lu moves checked against the walls, %lu wall stops, %lu "
         "inside, %lu crowded; %lu reversed, %lu grid/no grid\n",
         corpus, findings, GENERATED, isa_count, s->cases, s->adds, s->adds_accepted,
         s->avoids, s->avoids_accepted, s->sane_checked, s->steps, s->steps_accepted,
         s->moves_checked, s->wall_stops, s->insides, s->crowded, s->reversed_checked,
         s->grid_checked);
  /* The inputs reach what the properties are about. */
  CHECK(s->adds_accepted > 0 && s->adds_accepted < s->adds);
  CHECK(s->avoids_accepted > s->avoids / 10 && s->steps_accepted > s->steps / 20);
  CHECK(s->moves_checked > 0 && s->wall_stops > 0 && s->insides > 0 && s->crowded > 0);
  CHECK(s->reversed_checked > 0 && s->grid_checked > 0 && s->sane_checked > 0);
  return check_report("test_avoid_fuzz");
}
