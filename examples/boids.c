/* crowdsteer-boids: OpenSteer's Boids plugin (plugins/Boids.cpp) written
 * with crowdsteer: its parameters (separation 5 / -0.707 / 12, alignment
 * 7.5 / 0.7 / 8, cohesion 9 / -0.15 / 8, all-round within 1.5, top speed
 * 9, force 27, 60 Hz, smoothing 0.15, turn limit 0.2, start at 0.3 of top
 * speed in a ball of radius 20) and its wrap-around sphere of radius 50,
 * in 3D. One grid build and one step a frame; it prints the flock's
 * statistics (polarisation, mean nearest-neighbour distance, mean
 * neighbours within 5) from the neighbour queries.
 * Usage: crowdsteer-boids [boids (200)] [frames (600)] [seed (1)]
 *   [check | time R [threads (1)]]
 * ("check": exit 3 unless the statistics lie in the documented ranges;
 * "time R": after the frames, R more runs of as many frames, printing the
 * best in ns per boid-step, as bench/opensteer's driver does; grid builds
 * and steps on `threads` threads, 0 for every OpenMP thread). Sizes above
 * 200 scale both radii by (boids / 200)^(1/3): the same density. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "crowdsteer.h"

enum { SEPARATION, ALIGNMENT, COHESION };

static const float radius[3] = {5.0f, 7.5f, 9.0f};
static const float cosine[3] = {-0.707f, 0.7f, -0.15f};
static const float weight[3] = {12.0f, 8.0f, 8.0f};
static const crowdsteer_behaviour kind[3] = {CROWDSTEER_SEPARATION, CROWDSTEER_ALIGNMENT,
                                             CROWDSTEER_COHESION};
static float world_radius = 50.0f, start_radius = 20.0f;

/* A uniform float in [0, 1) from a 64-bit LCG (the same on every machine). */
static float uniform(uint64_t *state) {
  *state = *state * 6364136223846793005ull + 1442695040888963407ull;
  return (float)(*state >> 40) * 0x1p-24f;
}

/* A point in the unit ball, by rejection. */
static void in_ball(uint64_t *state, float p[3]) {
  float d;
  do {
    d = 0.0f;
    for (int k = 0; k < 3; k++) {
      p[k] = 2.0f * uniform(state) - 1.0f;
      d += p[k] * p[k];
    }
  } while (d > 1.0f || d == 0.0f);
}

typedef struct stats {
  double polarisation, local, nearest, within_5;
} stats;

enum { LOCAL_K = 8 };

static stats measure(const crowdsteer_agents *a, crowdsteer_grid *grid, uint32_t *count,
                     uint32_t *index, float *dd) {
  stats s = {0.0, 0.0, 0.0, 0.0};
  const size_t n = a->count;
  double h[3] = {0.0, 0.0, 0.0};
  for (size_t i = 0; i < n; i++) {
    const double v[3] = {a->vx[i], a->vy[i], a->vz[i]};
    const double l = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int k = 0; l > 0.0 && k < 3; k++)
      h[k] += v[k] / l;
  }
  s.polarisation = sqrt(h[0] * h[0] + h[1] * h[1] + h[2] * h[2]) / (double)n;
  crowdsteer_neighbours all = {0};
  all.grid = grid;
  all.radius = radius[COHESION];
  crowdsteer_neighbours near = all;
  near.radius = 5.0f;
  if (crowdsteer_neighbour_nearest(a, &all, 1, index, dd, count, 0, n) != CROWDSTEER_OK)
    exit(1);
  size_t seen = 0;
  for (size_t i = 0; i < n; i++)
    if (count[i]) {
      s.nearest += sqrt((double)dd[i]);
      seen++;
    }
  s.nearest = seen ? s.nearest / (double)seen : 0.0;
  if (crowdsteer_neighbour_count(a, &near, count, 0, n) != CROWDSTEER_OK) exit(1);
  for (size_t i = 0; i < n; i++)
    s.within_5 += count[i];
  s.within_5 /= (double)n;
  /* Local alignment: the mean cosine between a boid's heading and each of
   * its LOCAL_K nearest flockmates' within the alignment radius. */
  crowdsteer_neighbours mates = all;
  mates.radius = radius[ALIGNMENT];
  if (crowdsteer_neighbour_nearest(a, &mates, LOCAL_K, index, dd, count, 0, n) !=
      CROWDSTEER_OK)
    exit(1);
  size_t pairs = 0;
  const float *const v[3] = {a->vx, a->vy, a->vz};
  for (size_t i = 0; i < n; i++)
    for (uint32_t j = 0; j < count[i]; j++) {
      const uint32_t q = index[i * LOCAL_K + j];
      double dot = 0.0, li = 0.0, lq = 0.0;
      for (int k = 0; k < 3; k++) {
        dot += (double)v[k][i] * v[k][q];
        li += (double)v[k][i] * v[k][i];
        lq += (double)v[k][q] * v[k][q];
      }
      if (li > 0.0 && lq > 0.0) {
        s.local += dot / sqrt(li * lq);
        pairs++;
      }
    }
  s.local = pairs ? s.local / (double)pairs : 0.0;
  return s;
}

int main(int argc, char **argv) {
  const size_t n = argc > 1 ? (size_t)strtoul(argv[1], NULL, 10) : 200;
  const int frames = argc > 2 ? atoi(argv[2]) : 600;
  uint64_t seed = argc > 3 ? strtoull(argv[3], NULL, 10) : 1;
  if (n == 0 || frames < 0) return 2;
  const int timed = argc > 5 && strcmp(argv[4], "time") == 0 ? atoi(argv[5]) : 0;
  const int threads = timed && argc > 6 ? atoi(argv[6]) : 1;
  const float scale = cbrtf((float)n / 200.0f);
  world_radius *= scale;
  start_radius *= scale;
  float *f = calloc(9 * n, sizeof(float));
  uint32_t *u = calloc((2 + LOCAL_K) * n, sizeof(uint32_t));
  float *scratch = calloc(LOCAL_K * n, sizeof(float));
  if (!f || !u || !scratch) return 1;
  crowdsteer_agents a = {n,         3,         f,         f + n, f + 2 * n,
                         f + 3 * n, f + 4 * n, f + 5 * n, NULL};
  const float dt = 1.0f / 60.0f, max_speed = 9.0f;
  float *const pos[3] = {a.px, a.py, a.pz}, *const vel[3] = {a.vx, a.vy, a.vz};
  for (size_t i = 0; i < n; i++) {
    float p[3], d[3];
    in_ball(&seed, p);
    in_ball(&seed, d);
    const float l = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    for (int k = 0; k < 3; k++) {
      pos[k][i] = p[k] * start_radius;
      vel[k][i] = d[k] / l * max_speed * 0.3f;
    }
  }
  crowdsteer_grid *grid;
  crowdsteer_workspace *workspace;
  if (crowdsteer_grid_create(&grid) != CROWDSTEER_OK ||
      crowdsteer_workspace_create(&workspace) != CROWDSTEER_OK)
    return 1;
  crowdsteer_neighbours nb[3];
  crowdsteer_step_behaviour behaviours[3];
  memset(nb, 0, sizeof nb);
  memset(behaviours, 0, sizeof behaviours);
  for (int b = 0; b < 3; b++) {
    nb[b].grid = grid;
    nb[b].radius = radius[b];
    nb[b].field_of_view = 1;
    nb[b].cos_field_of_view = cosine[b];
    nb[b].inner_radius = 1.5f;
    nb[b].form = CROWDSTEER_FORM_REYNOLDS;
    behaviours[b].behaviour = kind[b];
    behaviours[b].neighbours = &nb[b];
    behaviours[b].weight = weight[b];
  }
  crowdsteer_motion motion = {0};
  motion.smoothing = 0.15f; /* clip(9 dt, 0.15, 0.4) at 60 Hz */
  motion.turn_limit = 0.2f;
  motion.acceleration = (crowdsteer_vectors){f + 6 * n, f + 7 * n, f + 8 * n};
  crowdsteer_step_desc step = {0};
  step.behaviours = behaviours;
  step.behaviour_count = 3;
  step.integrator.max_speed = max_speed;
  step.integrator.max_force = 27.0f;
  step.integrator.dt = dt;
  step.integrator.motion = &motion;
  step.threads = threads;
  step.workspace = workspace;
  crowdsteer_grid_desc desc = {0};
  /* Cells twice the widest radius: a query box then spans 2 cells an axis
   * (4 runs of candidates) instead of 3 (9 runs), and at the plugin's
   * density (2-3 boids a cell of the radius) fewer, longer runs cost less
   * than the extra candidates: 1,000 boids 1.2x faster, 10,000 within
   * noise. Any cell size gives the same bits. */
  desc.cell_size = 2.0f * radius[COHESION];
  desc.threads = threads;
  double best = 1e300;
  for (int run = 0; run <= timed; run++) {
    struct timespec start, stop;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (int frame = 0; frame < frames; frame++) {
      if (crowdsteer_grid_build(grid, &a, &desc) != CROWDSTEER_OK ||
          crowdsteer_step(&a, &step, 0, n) != CROWDSTEER_OK)
        return 1;
      for (size_t i = 0; i < n; i++) { /* OpenSteer's sphericalWrapAround */
        const float r = sqrtf(a.px[i] * a.px[i] + a.py[i] * a.py[i] + a.pz[i] * a.pz[i]);
        if (!(r > world_radius)) continue;
        for (int k = 0; k < 3; k++)
          pos[k][i] += pos[k][i] / r * world_radius * -2.0f;
      }
    }
    clock_gettime(CLOCK_MONOTONIC, &stop);
    const double seconds = (double)(stop.tv_sec - start.tv_sec) +
                           1e-9 * (double)(stop.tv_nsec - start.tv_nsec);
    if (run > 0 && seconds < best) best = seconds; /* run 0 warms up */
  }
  if (timed)
    printf("crowdsteer boids %zu frames %d ns_per_boid_step %.1f\n", n, frames,
           best * 1e9 / ((double)n * frames));
  if (crowdsteer_grid_build(grid, &a, &desc) != CROWDSTEER_OK) return 1;
  const stats s = measure(&a, grid, u, u + n, scratch);
  printf("boids %zu frames %d polarisation %.3f local_alignment %.3f nearest %.3f "
         "within_5 %.2f\n",
         n, frames, s.polarisation, s.local, s.nearest, s.within_5);
  /* "check": the ranges docs/behaviours.md states for a flock (neither a
   * gas nor a collapse). */
  const int check = argc > 4 && strcmp(argv[4], "check") == 0;
  const int flock = s.polarisation >= 0.05 && s.local >= 0.5 && s.nearest >= 3.5 &&
                    s.nearest <= 6.5 && s.within_5 >= 0.35 && s.within_5 <= 2.0;
  if (check && !flock) {
    fprintf(stderr, "crowdsteer-boids: the statistics are outside the stated ranges\n");
    return 3;
  }
  crowdsteer_grid_destroy(grid);
  crowdsteer_workspace_destroy(workspace);
  free(f);
  free(u);
  free(scratch);
  return 0;
}
