/* The web tests' golden files: lines "agents frames state-hash" that a C
 * crowd must reproduce here and the npm package in Node and the browser. */
#ifndef CROWDSTEER_TEST_WEB_GOLDEN_H
#define CROWDSTEER_TEST_WEB_GOLDEN_H

#include <inttypes.h>

#include "../common/check.h"

/* The pointer's path round a square (js/src/scenario.js's pointerAt):
 * integers, so C and JavaScript agree on every bit. */
static inline void web_pointer_at(int frame, float *x, float *y) {
  const int t = 3 * (frame % 40), side = frame / 40 % 4;
  const int xs[4] = {-60 + t, 60, 60 - t, -60}, ys[4] = {-60, -60 + t, 60, 60 - t};
  *x = (float)xs[side];
  *y = (float)ys[side];
}

typedef uint64_t (*web_run)(size_t count, int frames);
typedef struct web_size {
  size_t count;
  int frames;
} web_size;

/* main() of a web golden test: `--record` prints the file's lines (after
 * `title`) for `sizes`; otherwise every line of the file (argv[1] or
 * `path`) must give its hash, and there must be `n` of them. */
static inline int web_golden_main(int argc, char **argv, const char *path,
                                  const char *title, const char *name, web_run run,
                                  const web_size *sizes, int n) {
  if (skip_if_forced_isa_unavailable()) return 77;
  if (argc > 1 && strcmp(argv[1], "--record") == 0) {
    printf("# agents frames state-hash: %s\n", title);
    for (int r = 0; r < n; r++)
      printf("%zu %d %016" PRIx64 "\n", sizes[r].count, sizes[r].frames,
             run(sizes[r].count, sizes[r].frames));
    return 0;
  }
  if (argc > 1) path = argv[1];
  FILE *file = fopen(path, "r");
  CHECK_MSG(file != NULL, "cannot open %s", path);
  if (!file) return check_report(name);
  char line[256];
  int checked = 0;
  while (fgets(line, sizeof line, file)) {
    size_t count;
    int frames;
    uint64_t want;
    if (line[0] == '#' || sscanf(line, "%zu %d %" SCNx64, &count, &frames, &want) != 3)
      continue;
    const uint64_t got = run(count, frames);
    CHECK_MSG(got == want,
              "%zu agents, %d frames: hash %016" PRIx64 ", recorded %016" PRIx64, count,
              frames, got, want);
    checked++;
  }
  fclose(file);
  CHECK(checked == n);
  printf("%d hashes of %s match on %s\n", checked, path,
         crowdsteer_isa_name(crowdsteer_active_isa()));
  return check_report(name);
}

#endif
