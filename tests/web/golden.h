/* The web tests' golden files: lines "agents frames state-hash" that a C
 * crowd must reproduce here and the npm package in Node and the browser. */
#ifndef CROWDSTEER_TEST_WEB_GOLDEN_H
#define CROWDSTEER_TEST_WEB_GOLDEN_H

#include <inttypes.h>

#include "../common/check.h"
#include "../common/hash.h"

/* The pointer's path round a square (js/src/scenario.js's pointerAt):
 * integers, so C and JavaScript agree on every bit. */
static inline void web_pointer_at(int frame, float *x, float *y) {
  const int t = 3 * (frame % 40), side = frame / 40 % 4;
  const int xs[4] = {-60 + t, 60, 60 - t, -60}, ys[4] = {-60, -60 + t, 60, 60 - t};
  *x = (float)xs[side];
  *y = (float)ys[side];
}

/* A 2D crowd of `count` agents at rest at the origin, in one zeroed block
 * of `arrays` (at least 4) arrays: positions, velocities, then the rest
 * (web_array); free(a.px) frees it. */
static inline crowdsteer_agents web_crowd(size_t count, int arrays) {
  float *block = (float *)calloc((size_t)arrays * count + 1, sizeof(float));
  CHECK(block != NULL);
  const crowdsteer_agents a = {.count = count,
                               .dims = 2,
                               .px = block,
                               .py = block + count,
                               .vx = block + 2 * count,
                               .vy = block + 3 * count};
  return a;
}

/* Array k (4, 5, ...) of web_crowd's block. */
static inline float *web_array(const crowdsteer_agents *a, int k) {
  return a->px + (size_t)k * a->count;
}

/* FNV-1a over the bits of the positions and velocities, then of arrays
 * [4, arrays) of the block (the js/src crowd's hash(), or _hash(arrays)). */
static inline uint64_t web_hash(const crowdsteer_agents *a, int arrays) {
  uint64_t h = FNV_OFFSET;
  const float *const state[4] = {a->px, a->py, a->vx, a->vy};
  for (int k = 0; k < 4; k++)
    h = hash_floats(h, state[k], a->count);
  for (int k = 4; k < arrays; k++)
    h = hash_floats(h, web_array(a, k), a->count);
  return h;
}

/* A built obstacle set of walls (x0, y0, x1, y1) and square pillars of
 * half-side `half` round the centres, in that order. */
static inline crowdsteer_obstacles *web_obstacles(const float (*walls)[4],
                                                  size_t wall_count,
                                                  const float (*centres)[2],
                                                  size_t pillars, float half) {
  crowdsteer_obstacles *o = NULL;
  CHECK_STATUS(crowdsteer_obstacles_create(&o), CROWDSTEER_OK);
  for (size_t w = 0; w < wall_count; w++) {
    const float x[2] = {walls[w][0], walls[w][2]}, y[2] = {walls[w][1], walls[w][3]};
    CHECK_STATUS(crowdsteer_obstacles_add(o, x, y, 2), CROWDSTEER_OK);
  }
  for (size_t k = 0; k < pillars; k++) {
    const float cx = centres[k][0], cy = centres[k][1];
    const float x[4] = {cx - half, cx + half, cx + half, cx - half},
                y[4] = {cy - half, cy - half, cy + half, cy + half};
    CHECK_STATUS(crowdsteer_obstacles_add(o, x, y, 4), CROWDSTEER_OK);
  }
  CHECK_STATUS(crowdsteer_obstacles_build(o, 0.0f), CROWDSTEER_OK);
  return o;
}

/* `frames` steps, each after the grid's build from the crowd (one thread,
 * as the npm package steps: cells of `cell_size`, velocities kept). */
static inline void web_steps(crowdsteer_agents *a, const crowdsteer_step_desc *step,
                             crowdsteer_grid *grid, float cell_size, int frames) {
  const crowdsteer_grid_desc gd = {.cell_size = cell_size, .threads = 1};
  for (int f = 0; f < frames; f++) {
    CHECK_STATUS(crowdsteer_grid_build(grid, a, &gd), CROWDSTEER_OK);
    CHECK_STATUS(crowdsteer_step(a, step, 0, a->count), CROWDSTEER_OK);
  }
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
