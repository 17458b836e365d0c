/* The web page's crowd (js/demo: seek a moving pointer, separation through
 * a grid rebuilt every frame) written in C: its state hashes must be those
 * in js/test/web-scenario.golden, which the npm package's Node tests and
 * the page in headless Chromium compute from WebAssembly (js/test,
 * js/test/page.sh). `--record` prints the file's lines instead; a path
 * argument replaces the file. */
#include <inttypes.h>

#include "../common/check.h"
#include "../common/hash.h"

/* js/src/scenario.js is the same crowd, call for call. */
static void scenario_place(crowdsteer_agents *a) {
  for (uint32_t i = 0; i < a->count; i++) {
    a->px[i] = 100.0f * crowdsteer_random(7, i, 0x51A7, 0);
    a->py[i] = 100.0f * crowdsteer_random(7, i, 0x51A7, 1);
    a->vx[i] = a->vy[i] = 0;
  }
}

/* The pointer's path round a square: integers, so C and JavaScript agree
 * on every bit. */
static void pointer_at(int frame, float *x, float *y) {
  const int t = 3 * (frame % 40), side = frame / 40 % 4;
  const int xs[4] = {-60 + t, 60, 60 - t, -60}, ys[4] = {-60, -60 + t, 60, 60 - t};
  *x = (float)xs[side];
  *y = (float)ys[side];
}

static uint64_t hash_state(const crowdsteer_agents *a) {
  uint64_t h = FNV_OFFSET;
  h = hash_floats(h, a->px, a->count);
  h = hash_floats(h, a->py, a->count);
  h = hash_floats(h, a->vx, a->count);
  return hash_floats(h, a->vy, a->count);
}

static uint64_t run(size_t count, int frames) {
  float *block = calloc(4 * count + 1, sizeof(float));
  crowdsteer_agents a = {.count = count,
                         .dims = 2,
                         .px = block,
                         .py = block + count,
                         .vx = block + 2 * count,
                         .vy = block + 3 * count};
  scenario_place(&a);
  crowdsteer_grid *grid = NULL;
  crowdsteer_workspace *workspace = NULL;
  CHECK_STATUS(crowdsteer_grid_create(&grid), CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_workspace_create(&workspace), CROWDSTEER_OK);
  const crowdsteer_params move = {.max_speed = 12, .max_force = 48, .dt = 0.03125f};
  const crowdsteer_neighbours nb = {.grid = grid, .radius = 1};
  crowdsteer_step_behaviour b[2] = {
      {.behaviour = CROWDSTEER_SEEK, .params = {.max_speed = 12}, .weight = 1},
      {.behaviour = CROWDSTEER_SEPARATION,
       .params = {.max_speed = 12},
       .weight = 4,
       .neighbours = &nb}};
  const crowdsteer_step_desc step = {.behaviours = b,
                                     .behaviour_count = 2,
                                     .integrator = move,
                                     .threads = 1,
                                     .workspace = workspace};
  const crowdsteer_grid_desc gd = {.cell_size = 1, .positions_only = 1, .threads = 1};
  for (int f = 0; f < frames; f++) {
    pointer_at(f, &b[0].target.point[0], &b[0].target.point[1]);
    CHECK_STATUS(crowdsteer_grid_build(grid, &a, &gd), CROWDSTEER_OK);
    CHECK_STATUS(crowdsteer_step(&a, &step, 0, count), CROWDSTEER_OK);
  }
  const uint64_t h = hash_state(&a);
  crowdsteer_grid_destroy(grid);
  crowdsteer_workspace_destroy(workspace);
  free(block);
  return h;
}

int main(int argc, char **argv) {
  if (skip_if_forced_isa_unavailable()) return 77;
  static const struct {
    size_t count;
    int frames;
  } runs[] = {{1000, 120}, {10000, 30}, {100000, 10}};
  if (argc > 1 && strcmp(argv[1], "--record") == 0) {
    puts("# agents frames state-hash: js/demo's crowd (tests/web/test_web_scenario.c "
         "--record)");
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++)
      printf("%zu %d %016" PRIx64 "\n", runs[r].count, runs[r].frames,
             run(runs[r].count, runs[r].frames));
    return 0;
  }
  const char *path = argc > 1 ? argv[1] : WEB_GOLDEN;
  FILE *file = fopen(path, "r");
  CHECK_MSG(file != NULL, "cannot open %s", path);
  if (!file) return check_report("test_web_scenario");
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
  CHECK(checked == 3);
  printf("%d web scenario hashes match on %s\n", checked,
         crowdsteer_isa_name(crowdsteer_active_isa()));
  return check_report("test_web_scenario");
}
