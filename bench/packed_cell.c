/* A crowd packed into one grid cell under a nearest-k cap: what separation,
 * cohesion and alignment cost when every agent sees every other, with the
 * cap binding or not (docs/benchmarks.md, "A crowd packed into one cell").
 * Public API only; the ISA is the dispatcher's (CROWDSTEER_ISA forces one).
 *   crowdsteer-packed-cell AGENTS CAP [point] [reps]
 * CAP 0 is the built-in CROWDSTEER_MAX_NEIGHBOURS; "point" puts every agent
 * at one point (else uniformly in a square of side 2, the cell of side 4). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "crowdsteer.h"

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s AGENTS CAP [point] [reps]\n", argv[0]);
    return 2;
  }
  const size_t n = (size_t)strtoull(argv[1], NULL, 10);
  const uint32_t cap = (uint32_t)strtoul(argv[2], NULL, 10);
  const int point = argc > 3 && strcmp(argv[3], "point") == 0;
  const int reps = argc > 4 ? atoi(argv[4]) : 3;
  float *a[6], *out[2];
  for (int k = 0; k < 6; k++)
    a[k] = (float *)calloc(n + 64, sizeof(float));
  for (int k = 0; k < 2; k++)
    out[k] = (float *)calloc(n + 64, sizeof(float));
  uint64_t s = 12345u;
  for (size_t i = 0; i < n; i++)
    for (int k = 0; k < 4; k++) {
      s = s * 6364136223846793005u + 1442695040888963407u;
      const float u = (float)(s >> 40) * 0x1p-24f;
      a[k][i] = k >= 2 ? u - 0.5f : point ? 5.0f : 4.0f + 2.0f * u;
    }
  crowdsteer_agents agents;
  memset(&agents, 0, sizeof agents);
  agents.count = n;
  agents.dims = 2;
  agents.px = a[0];
  agents.py = a[1];
  agents.vx = a[2];
  agents.vy = a[3];
  crowdsteer_grid *grid = NULL;
  crowdsteer_grid_desc desc;
  memset(&desc, 0, sizeof desc);
  desc.cell_size = 4.0f;
  desc.threads = 1;
  if (crowdsteer_grid_create(&grid) != CROWDSTEER_OK ||
      crowdsteer_grid_build(grid, &agents, &desc) != CROWDSTEER_OK) {
    fprintf(stderr, "grid build failed\n");
    return 1;
  }
  crowdsteer_neighbours nb;
  memset(&nb, 0, sizeof nb);
  nb.grid = grid;
  nb.radius = 4.0f;
  nb.max_neighbours = cap;
  crowdsteer_params params;
  memset(&params, 0, sizeof params);
  params.max_speed = 1.0f;
  params.time_to_target = 1.0f;
  crowdsteer_output o;
  memset(&o, 0, sizeof o);
  o.steering.x = out[0];
  o.steering.y = out[1];
  double best = 1e30;
  uint64_t hash = 0;
  for (int r = 0; r < reps; r++) {
    const double t0 = seconds();
    hash = 0;
    for (int b = 0; b < 3; b++) {
      const crowdsteer_status st =
          (b == 0   ? crowdsteer_separation
           : b == 1 ? crowdsteer_cohesion
                    : crowdsteer_alignment)(&agents, &nb, &params, &o, 0, n);
      if (st != CROWDSTEER_OK) {
        fprintf(stderr, "%s\n", crowdsteer_status_string(st));
        return 1;
      }
      for (size_t i = 0; i < n; i++) /* the bits, to compare builds */
        for (int k = 0; k < 2; k++) {
          uint32_t bits;
          memcpy(&bits, &out[k][i], sizeof bits);
          hash = (hash * 1000003u) ^ bits;
        }
    }
    const double t = seconds() - t0;
    best = t < best ? t : best;
  }
  printf("%s: %zu agents %s, cap %u: %.4f s for separation, cohesion and alignment "
         "(best of %d), bits %016llx\n",
         crowdsteer_isa_name(crowdsteer_active_isa()), n,
         point ? "at one point" : "in one cell", cap, best, reps,
         (unsigned long long)hash);
  crowdsteer_grid_destroy(grid);
  for (int k = 0; k < 6; k++)
    free(a[k]);
  for (int k = 0; k < 2; k++)
    free(out[k]);
  return 0;
}
