/* Replays the fuzz seed corpus, every saved finding (tests/reliability/inputs)
 * and a fixed batch of pseudo-random inputs through the fuzzer's property
 * checks (fuzz/fuzz_case.c), on the forced ISA or on every supported one. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/splitmix64.h"
#include "../common/check.h"
#include "fuzz_case.h"

static crowdsteer_isa isas[CROWDSTEER_ISA_COUNT];
static int isa_count;

static void replay(const uint8_t *data, size_t size, const char *what) {
  for (int n = 0; n < isa_count; n++)
    CHECK_MSG(cs_fuzz_one(data, size, (int)isas[n]) == 0, "%s on %s", what,
              crowdsteer_isa_name(isas[n]));
}

/* Every regular file of `dir`; returns how many were replayed. */
static int replay_dir(const char *dir) {
  DIR *d = opendir(dir);
  CHECK_MSG(d != NULL, "cannot open %s", dir);
  if (!d) return 0;
  int files = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    FILE *f = fopen(path, "rb");
    if (!f) continue;
    uint8_t *data = (uint8_t *)malloc(1 << 16);
    size_t size = data ? fread(data, 1, 1 << 16, f) : 0;
    fclose(f);
    if (!data) continue;
    replay(data, size, path);
    free(data);
    files++;
  }
  closedir(d);
  return files;
}

/* Inputs from splitmix64: the same on every run, so a failure reproduces. */
static void replay_generated(int cases) {
  uint64_t state = 0xC0FFEEull;
  uint8_t data[512];
  for (int c = 0; c < cases; c++) {
    size_t size = (size_t)(c * 37 % 512);
    for (size_t i = 0; i < size; i++) {
      data[i] = (uint8_t)(splitmix64_next(&state) >> 56);
    }
    char what[64];
    snprintf(what, sizeof what, "generated case %d", c);
    replay(data, size, what);
  }
}

int main(void) {
  const char *forced = getenv("CROWDSTEER_ISA");
  if (forced && *forced) {
    if (skip_if_forced_isa_unavailable()) return 77;
    crowdsteer_isa_from_name(forced, &isas[isa_count++]);
  } else {
    for (int i = 0; i < CROWDSTEER_ISA_COUNT; i++)
      if (crowdsteer_isa_supported((crowdsteer_isa)i))
        isas[isa_count++] = (crowdsteer_isa)i;
  }
  int corpus = replay_dir(CS_FUZZ_CORPUS_DIR);
  int findings = replay_dir(CS_RELIABILITY_INPUTS_DIR);
  replay_generated(1500);
  printf("replayed %d corpus files, %d findings, 1500 generated inputs on %d ISA(s): "
         "%lu calls, %lu rejected, %lu accepted, %lu finite checks, %lu NaN probes, "
         "%lu overlaps; %lu steps, %lu accepted, %lu overlapping\n",
         corpus, findings, isa_count, cs_fuzz_counters.calls, cs_fuzz_counters.rejected,
         cs_fuzz_counters.accepted, cs_fuzz_counters.finite_checked,
         cs_fuzz_counters.nan_probes, cs_fuzz_counters.overlaps, cs_fuzz_counters.steps,
         cs_fuzz_counters.steps_accepted, cs_fuzz_counters.steps_overlapping);
  /* The overlap cases were generated at all (the oracle requires OVERLAP in
   * each, so none would pass unnoticed). */
  CHECK(cs_fuzz_counters.overlaps > 0 && cs_fuzz_counters.steps_overlapping > 0);
  return check_report("test_fuzz_replay");
}
