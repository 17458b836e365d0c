/* crowdsteer-validation's two experiments: ORCA agents seeking straight
 * ahead in a periodic corridor (speed against density), and a room
 * emptying through a bottleneck (flow against width). One crowdsteer_step
 * per time step: seek (preferred velocity), then ORCA with the walls. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crossing.h"
#include "spacing.h"
#include "validation.h"

uint64_t val_next(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

double val_uniform(uint64_t *state) { return (double)(val_next(state) >> 11) * 0x1p-53; }

double val_normal(uint64_t *state) { /* Box-Muller */
  const double u = 1.0 - val_uniform(state), w = val_uniform(state);
  return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * w);
}

double val_weidmann(double rho) {
  return 1.34 * (1.0 - exp(-1.913 * (1.0 / rho - 1.0 / 5.4)));
}

/* A crowd and everything one step reuses. Arrays hold `cap` agents: the
 * real ones first, then (corridor) the ghost copies of this step. */
typedef struct vsim {
  size_t n, cap;
  float *px, *py, *vx, *vy, *tx, *ty, *speed, *ox, *oy;
  uint32_t *report;
  crowdsteer_grid *grid;
  crowdsteer_grid_desc grid_desc;
  crowdsteer_neighbours nb;
  crowdsteer_obstacles *obstacles;
  crowdsteer_avoidance avoidance;
  crowdsteer_step_behaviour seek;
  crowdsteer_step_desc step;
  /* The walls as segments, for the independent crossing check. */
  float wall[16][4];
  size_t walls;
} vsim;

static int fail(const char *what, crowdsteer_status st) {
  fprintf(stderr, "crowdsteer-validation: %s: %s\n", what, crowdsteer_status_string(st));
  return -1;
}

static void vsim_free(vsim *s) {
  crowdsteer_grid_destroy(s->grid);
  crowdsteer_obstacles_destroy(s->obstacles);
  free(s->px);
  free(s->report);
  memset(s, 0, sizeof *s);
}

/* Per-agent preferred speeds: the model's, uniform or distributed. */
static void draw_speeds(const val_model *m, vsim *s, uint64_t *rng) {
  for (size_t i = 0; i < s->n; i++) {
    double v = m->v0;
    if (m->v0_sd > 0.0f) {
      v = m->v0 + m->v0_sd * val_normal(rng);
      if (v < m->v0_min) v = m->v0_min;
      if (v > m->v0_max) v = m->v0_max;
    }
    s->speed[i] = (float)v;
  }
}

static int vsim_init(vsim *s, const val_model *m, size_t n, size_t cap) {
  memset(s, 0, sizeof *s);
  s->n = n;
  s->cap = cap;
  s->px = calloc(9 * cap, sizeof(float));
  s->report = calloc(cap, sizeof(uint32_t));
  if (!s->px || !s->report) return fail("memory", CROWDSTEER_ERROR_OUT_OF_MEMORY);
  float *a[9];
  for (int k = 0; k < 9; k++)
    a[k] = s->px + (size_t)k * cap;
  s->py = a[1], s->vx = a[2], s->vy = a[3], s->tx = a[4], s->ty = a[5];
  s->speed = a[6], s->ox = a[7], s->oy = a[8];
  crowdsteer_status st = crowdsteer_grid_create(&s->grid);
  if (st == CROWDSTEER_OK) st = crowdsteer_obstacles_create(&s->obstacles);
  if (st != CROWDSTEER_OK) return fail("create", st);
  s->grid_desc = (crowdsteer_grid_desc){.cell_size = m->neighbour_radius, .threads = 1};
  s->nb = (crowdsteer_neighbours){.grid = s->grid,
                                  .radius = m->neighbour_radius,
                                  .max_neighbours = m->max_neighbours};
  s->avoidance = (crowdsteer_avoidance){.radius = m->radius,
                                        .time_horizon = m->tau,
                                        .obstacle_time_horizon = m->tau_obst,
                                        .neighbours = &s->nb,
                                        .obstacles = s->obstacles,
                                        .report = s->report};
  /* Seek with time_to_target = dt: the integrated velocity is the desired
   * one (speed v0 toward the target), which ORCA then corrects. */
  s->seek = (crowdsteer_step_behaviour){
      .behaviour = CROWDSTEER_SEEK,
      .target = {.kind = CROWDSTEER_TARGET_ARRAYS, .position = {s->tx, s->ty, NULL}},
      .params = {.time_to_target = m->dt}};
  s->step =
      (crowdsteer_step_desc){.behaviours = &s->seek,
                             .behaviour_count = 1,
                             .integrator = {.dt = m->dt, .max_speed_per_agent = s->speed},
                             .threads = 1,
                             .avoidance = &s->avoidance};
  return 0;
}

static int add_wall(vsim *s, float x0, float y0, float x1, float y1) {
  const float x[2] = {x0, x1}, y[2] = {y0, y1};
  s->wall[s->walls][0] = x0, s->wall[s->walls][1] = y0;
  s->wall[s->walls][2] = x1, s->wall[s->walls][3] = y1;
  s->walls++;
  const crowdsteer_status st = crowdsteer_obstacles_add(s->obstacles, x, y, 2);
  return st == CROWDSTEER_OK ? 0 : fail("wall", st);
}

/* A counter-clockwise rectangle; its four edges join the crossing check. */
static int add_block(vsim *s, float x0, float y0, float x1, float y1) {
  const float x[4] = {x0, x1, x1, x0}, y[4] = {y0, y0, y1, y1};
  for (int k = 0; k < 4; k++) {
    float *w = s->wall[s->walls++];
    w[0] = x[k], w[1] = y[k], w[2] = x[(k + 1) % 4], w[3] = y[(k + 1) % 4];
  }
  const crowdsteer_status st = crowdsteer_obstacles_add(s->obstacles, x, y, 4);
  return st == CROWDSTEER_OK ? 0 : fail("block", st);
}

/* One step of agents [0, n) of a batch of `count` (ghosts after n): grid,
 * then seek + ORCA + walls in one crowdsteer_step; then the counts. */
static int vsim_step(vsim *s, size_t count, val_counts *c) {
  crowdsteer_agents agents = {count, 2, s->px, s->py, NULL, s->vx, s->vy, NULL, NULL};
  crowdsteer_status st = crowdsteer_grid_build(s->grid, &agents, &s->grid_desc);
  if (st != CROWDSTEER_OK) return fail("grid build", st);
  memcpy(s->ox, s->px, s->n * sizeof(float));
  memcpy(s->oy, s->py, s->n * sizeof(float));
  st = crowdsteer_step(&agents, &s->step, 0, s->n);
  if (st != CROWDSTEER_OK) return fail("step", st);
  for (size_t i = 0; i < s->n; i++) {
    const uint32_t r = s->report[i];
    c->wall_contacts += (r & CROWDSTEER_REPORT_WALL) != 0;
    c->crowded += (r & CROWDSTEER_REPORT_CROWDED) != 0;
    c->inside += (r & CROWDSTEER_REPORT_INSIDE) != 0;
    for (size_t w = 0; w < s->walls; w++)
      c->walls_crossed +=
          move_crosses_wall(s->wall[w][0], s->wall[w][1], s->wall[w][2], s->wall[w][3],
                            s->ox[i], s->oy[i], s->px[i], s->py[i]);
  }
  c->agent_steps += s->n;
  return 0;
}

static void measure_spacing(const vsim *s, size_t count, val_counts *c) {
  crowdsteer_agents agents = {count, 2, s->px, s->py, NULL, s->vx, s->vy, NULL, NULL};
  spacing_figures f;
  if (spacing_measure(&agents, 0, count, 0.0, &f) == 0 && f.min_nearest < c->min_distance)
    c->min_distance = f.min_nearest;
}

/* ---- Periodic corridor --------------------------------------------------
 * Agents walk along +x in [0, length) x [0, width), walls at y = 0 and
 * y = width. Periodicity: before each step, the agents within the
 * neighbour radius of either end are copied, shifted by -+length, after
 * the real ones (ghosts, ids above the real ones'); the grid and ORCA see
 * them as neighbours, the step moves the real agents only, and positions
 * then wrap into [0, length). A ghost carries its agent's position and
 * velocity, so an agent near the seam sees exactly what it would see in an
 * endless corridor within the neighbour radius. */

/* Start: a staggered lattice of sites filling the corridor, spaced as
 * evenly as the count allows, `n` of its sites taken at random, with a
 * small jitter; never two bodies overlapping. */
static int corridor_start(vsim *s, const val_model *m, float length, float width,
                          uint64_t *rng) {
  const size_t n = s->n;
  const double lo = m->radius + 0.01, hi = width - m->radius - 0.01;
  double best = 0.0;
  size_t rows = 0, cols = 0;
  for (size_t r = 1; r < 64; r++) {
    const size_t c = (n + r - 1) / r;
    const double dx = length / (double)c, dy = r > 1 ? (hi - lo) / (double)(r - 1) : 1e9;
    const double gap = fmin(dx, sqrt(0.25 * dx * dx + dy * dy));
    if (gap > best) best = gap, rows = r, cols = c;
  }
  if (best < 2.0 * m->radius + 0.01) {
    fprintf(stderr, "crowdsteer-validation: %zu agents do not fit the corridor\n", n);
    return -1;
  }
  const size_t sites = rows * cols;
  uint32_t *order = malloc(sites * sizeof *order);
  if (!order) return fail("memory", CROWDSTEER_ERROR_OUT_OF_MEMORY);
  for (size_t k = 0; k < sites; k++)
    order[k] = (uint32_t)k;
  for (size_t k = sites - 1; k > 0; k--) { /* Fisher-Yates */
    const size_t j = (size_t)(val_uniform(rng) * (double)(k + 1));
    const uint32_t t = order[k];
    order[k] = order[j], order[j] = t;
  }
  const double dx = length / (double)cols;
  const double dy = rows > 1 ? (hi - lo) / (double)(rows - 1) : 0.0;
  const double jitter = 0.5 * (best - 2.0 * m->radius - 0.005);
  for (size_t i = 0; i < n; i++) {
    const size_t r = order[i] / cols, c = order[i] % cols;
    double x =
        ((double)c + 0.5 * (double)(r % 2)) * dx + jitter * (val_uniform(rng) - 0.5);
    double y = (rows > 1 ? lo + (double)r * dy : 0.5 * width) +
               jitter * (val_uniform(rng) - 0.5);
    if (y < lo) y = lo;
    if (y > hi) y = hi;
    if (x >= length) x -= length;
    if (x < 0.0) x += length;
    s->px[i] = (float)x, s->py[i] = (float)y, s->vx[i] = 0.0f, s->vy[i] = 0.0f;
  }
  free(order);
  return 0;
}

/* The ghosts of this step after the real agents; returns the batch size. */
static size_t corridor_ghosts(vsim *s, float length, float band) {
  size_t g = s->n;
  for (size_t i = 0; i < s->n && g < s->cap; i++) {
    float shift = 0.0f;
    if (s->px[i] < band)
      shift = length;
    else if (s->px[i] >= length - band)
      shift = -length;
    if (shift == 0.0f) continue;
    s->px[g] = s->px[i] + shift, s->py[g] = s->py[i];
    s->vx[g] = s->vx[i], s->vy[g] = s->vy[i];
    s->tx[g] = s->px[g] + 100.0f, s->ty[g] = s->py[g];
    s->speed[g] = s->speed[i];
    g++;
  }
  return g;
}

int val_corridor(const val_model *m, float length, float width, double density,
                 uint64_t seed, size_t warmup, size_t measure, val_corridor_result *out) {
  memset(out, 0, sizeof *out);
  const size_t n = (size_t)lround(density * (double)length * (double)width);
  out->count = n;
  out->density = (double)n / ((double)length * (double)width);
  out->counts.min_distance = INFINITY;
  if (n < 2) return -1;
  vsim s;
  uint64_t rng = seed;
  /* Ghosts: both bands together never hold more than every agent twice. */
  if (vsim_init(&s, m, n, 3 * n) != 0) return vsim_free(&s), -1;
  const float ext = m->neighbour_radius + 10.0f; /* walls reach past the ghosts */
  if (add_wall(&s, -ext, 0.0f, length + ext, 0.0f) ||
      add_wall(&s, -ext, width, length + ext, width))
    return vsim_free(&s), -1;
  crowdsteer_status st = crowdsteer_obstacles_build(s.obstacles, 0.0f);
  if (st != CROWDSTEER_OK) return vsim_free(&s), fail("obstacles", st);
  draw_speeds(m, &s, &rng);
  if (corridor_start(&s, m, length, width, &rng) != 0) return vsim_free(&s), -1;
  double sum_vx = 0.0, sum_abs = 0.0;
  for (size_t k = 0; k < warmup + measure; k++) {
    for (size_t i = 0; i < n; i++) /* straight ahead: a target 100 m on */
      s.tx[i] = s.px[i] + 100.0f, s.ty[i] = s.py[i];
    const size_t count = corridor_ghosts(&s, length, m->neighbour_radius);
    val_counts *c = &out->counts;
    if (vsim_step(&s, count, c) != 0) return vsim_free(&s), -1;
    for (size_t i = 0; i < n; i++) {
      /* Leaving the corridor across a side is a crossed wall. */
      c->walls_crossed += !(s.py[i] > 0.0f && s.py[i] < width);
      if (s.px[i] >= length) s.px[i] -= length;
      if (s.px[i] < 0.0f) s.px[i] += length;
    }
    if (k >= warmup) {
      for (size_t i = 0; i < n; i++) {
        sum_vx += s.vx[i];
        sum_abs += sqrt((double)s.vx[i] * s.vx[i] + (double)s.vy[i] * s.vy[i]);
      }
      if ((k - warmup) % 20 == 0)
        measure_spacing(&s, corridor_ghosts(&s, length, 2.0f * m->radius), c);
    }
  }
  out->mean_speed = sum_vx / ((double)n * (double)measure);
  out->mean_abs = sum_abs / ((double)n * (double)measure);
  vsim_free(&s);
  return 0;
}

/* ---- Bottleneck ---------------------------------------------------------
 * A room x in [-10, 0], y in [-4, 4] (walls on three sides), a bottleneck
 * corridor x in [0, 4], |y| < b / 2 between two solid blocks, open beyond.
 * Agents start at random in x in [-9.7, -2.5], |y| < 3.7 and seek a point
 * 4 m past the exit (8, 0) when the straight line to it clears the
 * bottleneck's walls by their radius, else the entrance's centre (0, 0);
 * past the exit they walk straight on. Passages are timed at x = 2, the
 * middle of the bottleneck. */

enum { BN_LENGTH = 4 };

/* Whether the segment from (x, y) to (8, 0) stays within |y| <= half - r
 * wherever it is inside the bottleneck (0 <= x <= 4): checked at both ends
 * of that stretch, enough for a straight line. */
static int sees_exit(float x, float y, float clear) {
  const double ex = 8.0, ey = 0.0;
  const double xs[2] = {0.0, BN_LENGTH};
  for (int k = 0; k < 2; k++) {
    if (x >= xs[k]) continue;
    const double t = (xs[k] - x) / (ex - x);
    const double yy = y + t * (ey - y);
    if (fabs(yy) > clear) return 0;
  }
  return 1;
}

static void bottleneck_targets(vsim *s, float half, float radius) {
  for (size_t i = 0; i < s->n; i++) {
    const float x = s->px[i], y = s->py[i];
    if (x >= (float)BN_LENGTH)
      s->tx[i] = x + 100.0f, s->ty[i] = y;
    else if (sees_exit(x, y, half - radius))
      s->tx[i] = 8.0f, s->ty[i] = 0.0f;
    else
      s->tx[i] = 0.0f, s->ty[i] = 0.0f;
  }
}

static int bottleneck_start(vsim *s, const val_model *m, uint64_t *rng) {
  const double d2 = (2.0 * m->radius + 0.02) * (2.0 * m->radius + 0.02);
  for (size_t i = 0; i < s->n; i++) {
    size_t tries = 0;
    for (;;) {
      const double x = -9.7 + 7.2 * val_uniform(rng), y = -3.7 + 7.4 * val_uniform(rng);
      int ok = 1;
      for (size_t j = 0; j < i && ok; j++) {
        const double ddx = x - s->px[j], ddy = y - s->py[j];
        ok = ddx * ddx + ddy * ddy >= d2;
      }
      if (ok) {
        s->px[i] = (float)x, s->py[i] = (float)y, s->vx[i] = 0.0f, s->vy[i] = 0.0f;
        break;
      }
      if (++tries > 100000) {
        fprintf(stderr, "crowdsteer-validation: cannot place %zu agents\n", s->n);
        return -1;
      }
    }
  }
  return 0;
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int val_bottleneck(const val_model *m, float width, size_t count, uint64_t seed,
                   double max_time, val_bottleneck_result *out) {
  memset(out, 0, sizeof *out);
  out->width = width;
  out->count = count;
  out->counts.min_distance = INFINITY;
  vsim s;
  uint64_t rng = seed;
  if (vsim_init(&s, m, count, count) != 0) return vsim_free(&s), -1;
  double *passed = malloc(count * sizeof *passed);
  char *seen = calloc(count, 1); /* passage timed once per agent */
  if (!passed || !seen) {
    free(passed), free(seen), vsim_free(&s);
    return fail("memory", CROWDSTEER_ERROR_OUT_OF_MEMORY);
  }
  const float half = 0.5f * width;
  /* Room: back and side walls; the front wall and the bottleneck's sides
   * are two solid blocks, so the entrance corners are convex obstacle
   * corners as ORCA expects. */
  if (add_wall(&s, -10.0f, -4.0f, -10.0f, 4.0f) ||
      add_wall(&s, -10.0f, 4.0f, 0.0f, 4.0f) ||
      add_wall(&s, -10.0f, -4.0f, 0.0f, -4.0f) ||
      add_block(&s, 0.0f, half, (float)BN_LENGTH, 4.0f) ||
      add_block(&s, 0.0f, -4.0f, (float)BN_LENGTH, -half))
    return free(passed), free(seen), vsim_free(&s), -1;
  crowdsteer_status st = crowdsteer_obstacles_build(s.obstacles, 0.0f);
  if (st != CROWDSTEER_OK)
    return free(passed), free(seen), vsim_free(&s), fail("obstacles", st);
  draw_speeds(m, &s, &rng);
  if (bottleneck_start(&s, m, &rng) != 0)
    return free(passed), free(seen), vsim_free(&s), -1;
  const size_t steps = (size_t)ceil(max_time / m->dt);
  size_t done = 0;
  for (size_t k = 0; k < steps && done < count; k++) {
    bottleneck_targets(&s, half, m->radius);
    if (vsim_step(&s, count, &out->counts) != 0)
      return free(passed), free(seen), vsim_free(&s), -1;
    for (size_t i = 0; i < count; i++) {
      const float x = s.px[i], y = s.py[i];
      /* A centre outside the room, the bottleneck and the open side. */
      const int in_room = x >= -10.0f && x <= 0.0f && y >= -4.0f && y <= 4.0f;
      const int in_neck = x >= 0.0f && x <= (float)BN_LENGTH && y >= -half && y <= half;
      out->counts.walls_crossed += !(in_room || in_neck || x >= (float)BN_LENGTH);
      if (!seen[i] && x >= 2.0f) seen[i] = 1, passed[done++] = (double)(k + 1) * m->dt;
    }
    if (k % 20 == 0) measure_spacing(&s, count, &out->counts);
  }
  out->passed = done;
  if (done >= 2) {
    qsort(passed, done, sizeof *passed, cmp_double);
    out->first = passed[0], out->last = passed[done - 1];
    out->flow_all = (double)(done - 1) / (out->last - out->first);
    const size_t k1 = count / 5, k2 = (4 * count) / 5;
    if (k2 < done && passed[k2] > passed[k1])
      out->flow_steady = (double)(k2 - k1) / (passed[k2] - passed[k1]);
  }
  free(passed);
  free(seen);
  vsim_free(&s);
  return 0;
}
