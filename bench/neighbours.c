/* Neighbour benchmarks: the grid build, separation / cohesion / alignment per
 * ISA (and separation with a field of view and a group filter), and the
 * issue's scenario (a crowd seeks one goal with separation
 * blended, grid build included) against the userloop competitor. The crowd
 * is uniform over a square sized so that an agent has NEIGHBOUR_DENSITY
 * others within the radius on average. Each step reads one state and writes
 * another, never swapped, so every iteration measures the same step at the
 * same density. Candidate and neighbour pairs are counted exactly, outside
 * the timed loops, and reported per agent next to the times. */
#include "neighbours.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crowdsteer.h"
#include "shim.h"
#include "userloop.h"

#define RADIUS 1.0f
#define NEIGHBOUR_DENSITY 8.0 /* mean agents within the radius of an agent */
#define MAX_SPEED 1.0f
#define SEPARATION_WEIGHT 2.0f
#define DT 0.25f

/* ---- the crowd ------------------------------------------------------------ */

enum { PX, PY, VX, VY, STATE_ARRAYS };

typedef struct crowd {
  size_t n;
  float *state[STATE_ARRAYS]; /* read by every step, never written */
  float *next[STATE_ARRAYS];  /* every step's output */
  float *steering[2];
  uint32_t *group;           /* agent i in group 1 << (i % 2) (separation_filtered) */
  double library_candidates; /* per agent: agents in the cells the library searches */
  double user_candidates;    /* per agent: agents in userloop's 3x3 cells */
  double neighbours;         /* per agent: others within the radius */
  userloop_grid user_grid;
  crowdsteer_grid *grid; /* crowdsteer's, built by the benchmarks that need it */
} crowd;

static crowd the_crowd;

static void crowd_release(crowd *c) {
  for (int k = 0; k < STATE_ARRAYS; k++) {
    free(c->state[k]);
    free(c->next[k]);
  }
  free(c->steering[0]);
  free(c->steering[1]);
  free(c->group);
  userloop_grid_free(&c->user_grid);
  crowdsteer_grid_destroy(c->grid);
  memset(c, 0, sizeof *c);
}

void neighbours_free(void) { crowd_release(&the_crowd); }

/* Agents in the cells of size `cell`, anchored at the origin, that the
 * search box [p - RADIUS, p + RADIUS] of each agent touches, minus itself. */
static double count_library_candidates(const crowd *c, float cell) {
  const float *px = c->state[PX], *py = c->state[PY];
  long lo_x = 0, hi_x = 0, lo_y = 0, hi_y = 0;
  for (size_t i = 0; i < c->n; i++) {
    long x = (long)floorf(px[i] / cell), y = (long)floorf(py[i] / cell);
    if (i == 0 || x < lo_x) lo_x = x;
    if (i == 0 || x > hi_x) hi_x = x;
    if (i == 0 || y < lo_y) lo_y = y;
    if (i == 0 || y > hi_y) hi_y = y;
  }
  const long columns = hi_x - lo_x + 1, rows = hi_y - lo_y + 1;
  uint32_t *occupancy = calloc((size_t)(columns * rows), sizeof *occupancy);
  if (!occupancy) return 0.0;
  for (size_t i = 0; i < c->n; i++)
    occupancy[((long)floorf(py[i] / cell) - lo_y) * columns +
              ((long)floorf(px[i] / cell) - lo_x)]++;
  double total = 0.0;
  for (size_t i = 0; i < c->n; i++) {
    long x0 = (long)floorf((px[i] - RADIUS) / cell),
         x1 = (long)floorf((px[i] + RADIUS) / cell);
    long y0 = (long)floorf((py[i] - RADIUS) / cell),
         y1 = (long)floorf((py[i] + RADIUS) / cell);
    for (long y = y0 < lo_y ? lo_y : y0; y <= (y1 > hi_y ? hi_y : y1); y++)
      for (long x = x0 < lo_x ? lo_x : x0; x <= (x1 > hi_x ? hi_x : x1); x++)
        total += occupancy[(y - lo_y) * columns + (x - lo_x)];
    total -= 1.0; /* itself */
  }
  free(occupancy);
  return total / (double)c->n;
}

/* userloop's candidates (its own 3x3 cells) and the true neighbours. */
static void count_user_pairs(crowd *c) {
  const userloop_grid *g = &c->user_grid;
  const float *px = c->state[PX], *py = c->state[PY];
  double candidates = 0.0, neighbours = 0.0;
  for (size_t i = 0; i < c->n; i++) {
    int cx = (int)((px[i] - g->min_x) * g->inverse_cell);
    int cy = (int)((py[i] - g->min_y) * g->inverse_cell);
    for (int y = cy - 1; y <= cy + 1; y++)
      for (int x = cx - 1; x <= cx + 1; x++) {
        if (x < 0 || y < 0 || x >= g->columns || y >= g->rows) continue;
        size_t cell = (size_t)y * (size_t)g->columns + (size_t)x;
        for (uint32_t k = g->cell_start[cell]; k < g->cell_start[cell + 1]; k++) {
          if (g->order[k] == i) continue;
          float dx = px[i] - g->sorted_x[k], dy = py[i] - g->sorted_y[k];
          candidates += 1.0;
          neighbours += dx * dx + dy * dy < RADIUS * RADIUS;
        }
      }
  }
  c->user_candidates = candidates / (double)c->n;
  c->neighbours = neighbours / (double)c->n;
}

/* Uniform over a square of side sqrt(n * pi / density) radii: density
 * neighbours within the radius on average; velocities up to MAX_SPEED. */
static int crowd_make(crowd *c, size_t n) {
  crowd_release(c);
  c->n = n;
  int failed = 0;
  for (int k = 0; k < STATE_ARRAYS; k++) {
    failed |= !(c->state[k] = malloc(n * sizeof(float)));
    failed |= !(c->next[k] = calloc(n, sizeof(float)));
  }
  for (int k = 0; k < 2; k++)
    failed |= !(c->steering[k] = calloc(n, sizeof(float)));
  failed |= !(c->group = malloc(n * sizeof(uint32_t)));
  if (failed) return -1;
  for (size_t i = 0; i < n; i++)
    c->group[i] = 1u << (i % 2);
  const float half =
      0.5f * RADIUS * (float)sqrt((double)n * 3.14159265358979 / NEIGHBOUR_DENSITY);
  for (size_t i = 0; i < n; i++) {
    c->state[PX][i] = half * crowdsteer_random(7u, (uint32_t)i, 1u, 0u);
    c->state[PY][i] = half * crowdsteer_random(7u, (uint32_t)i, 1u, 1u);
    c->state[VX][i] = 0.5f * MAX_SPEED * crowdsteer_random(7u, (uint32_t)i, 2u, 0u);
    c->state[VY][i] = 0.5f * MAX_SPEED * crowdsteer_random(7u, (uint32_t)i, 2u, 1u);
  }
  if (userloop_grid_build(&c->user_grid, c->state[PX], c->state[PY], n, RADIUS))
    return -1;
  if (crowdsteer_grid_create(&c->grid) != CROWDSTEER_OK) return -1;
  count_user_pairs(c);
  c->library_candidates = count_library_candidates(c, RADIUS);
  return 0;
}

static crowd *crowd_for(size_t n) {
  if (the_crowd.n != n && crowd_make(&the_crowd, n) != 0) {
    crowd_release(&the_crowd);
    return NULL;
  }
  return &the_crowd;
}

/* ---- benchmark bodies ------------------------------------------------------- */

typedef enum nb_work {
  WORK_GRID,               /* build the neighbour grid */
  WORK_SEPARATION,         /* separation steering alone, grid built outside */
  WORK_SCENARIO,           /* grid build + seek with separation blended + integrate */
  WORK_COHESION,           /* crowdsteer only: cohesion alone, grid built outside */
  WORK_ALIGNMENT,          /* crowdsteer only: alignment alone, grid built outside */
  WORK_FILTERED,           /* crowdsteer only: separation with a half-plane field of
                              view and a group filter that hides half the crowd */
  WORK_GRID_POSITIONS,     /* crowdsteer only: WORK_GRID without velocities */
  WORK_SCENARIO_POSITIONS, /* crowdsteer only: WORK_SCENARIO on that grid */
  WORK_COUNT
} nb_work;

typedef struct nb_entry {
  nb_work work;
  int threads;
  int userloop; /* 1: the userloop competitor; 0: crowdsteer */
  crowdsteer_isa isa;
} nb_entry;

static void fail_run(csb_state *state, const char *message) {
  csb_skip_with_error(state, message);
  while (csb_keep_running(state)) {
  }
}

static void report_pairs(csb_state *state, const crowd *c, const nb_entry *e) {
  const int64_t agents = csb_iterations(state) * (int64_t)c->n;
  csb_set_items_processed(state, agents);
  if (e->work == WORK_GRID || e->work == WORK_GRID_POSITIONS) return;
  csb_set_counter(state, "candidates",
                  e->userloop ? c->user_candidates : c->library_candidates, 0);
  csb_set_counter(state, "neighbours", c->neighbours, 0);
}

static void run_userloop(csb_state *state, const void *arg) {
  const nb_entry *e = arg;
  crowd *c = crowd_for((size_t)csb_range(state, 0));
  if (!c) {
    fail_run(state, "out of memory");
    return;
  }
  const userloop_scenario scenario = {0.0f, 0.0f, MAX_SPEED, RADIUS, SEPARATION_WEIGHT,
                                      DT};
  float *const *s = c->state, *const *next = c->next;
  userloop_grid *grid = &c->user_grid;
  int failed = 0;
  while (csb_keep_running(state)) {
    if (e->work != WORK_SEPARATION)
      failed |= userloop_grid_build(grid, s[PX], s[PY], c->n, RADIUS);
    if (e->work == WORK_SEPARATION)
      userloop_separation(grid, s[PX], s[PY], RADIUS, MAX_SPEED, c->steering[0],
                          c->steering[1], e->threads);
    if (e->work == WORK_SCENARIO)
      userloop_step(grid, &scenario, s[PX], s[PY], s[VX], s[VY], next[PX], next[PY],
                    next[VX], next[VY], e->threads);
    csb_clobber_memory();
  }
  if (failed) csb_skip_with_error(state, "out of memory");
  report_pairs(state, c, e);
}

static crowdsteer_agents agents_of(const crowd *c, float *const *arrays) {
  crowdsteer_agents agents;
  memset(&agents, 0, sizeof agents);
  agents.count = c->n;
  agents.dims = 2;
  agents.px = arrays[PX];
  agents.py = arrays[PY];
  agents.vx = arrays[VX];
  agents.vy = arrays[VY];
  return agents;
}

static crowdsteer_status build_grid(crowd *c, const crowdsteer_agents *agents,
                                    int threads, const uint32_t *group,
                                    int positions_only) {
  crowdsteer_grid_desc desc;
  memset(&desc, 0, sizeof desc);
  desc.cell_size = RADIUS;
  desc.threads = threads;
  desc.group = group;
  desc.positions_only = positions_only;
  return crowdsteer_grid_build(c->grid, agents, &desc);
}

static crowdsteer_status run_behaviour(nb_work work, const crowdsteer_agents *agents,
                                       const crowdsteer_neighbours *nb,
                                       const crowdsteer_params *params,
                                       const crowdsteer_output *out) {
  switch (work) {
  case WORK_COHESION:
    return crowdsteer_cohesion(agents, nb, params, out, 0, agents->count);
  case WORK_ALIGNMENT:
    return crowdsteer_alignment(agents, nb, params, out, 0, agents->count);
  default: /* separation, filtered or not */
    return crowdsteer_separation(agents, nb, params, out, 0, agents->count);
  }
}

/* The crowd of the benchmark's size on its ISA, and who its agents see;
 * NULL (the run marked failed) when that cannot be had. */
static crowd *library_crowd(csb_state *state, const nb_entry *e,
                            crowdsteer_neighbours *nb) {
  crowd *c = crowd_for((size_t)csb_range(state, 0));
  if (!c || crowdsteer_force_isa(e->isa) != CROWDSTEER_OK) {
    fail_run(state, c ? "ISA not available" : "out of memory");
    return NULL;
  }
  memset(nb, 0, sizeof *nb);
  nb->grid = c->grid;
  nb->radius = RADIUS;
  return c;
}

/* crowdsteer: the grid build, or one behaviour over the whole batch with
 * the grid built once outside the timed loop (it is the pre-step state). */
static void run_library(csb_state *state, const void *arg) {
  const nb_entry *e = arg;
  crowdsteer_neighbours nb;
  crowd *c = library_crowd(state, e, &nb);
  if (!c) return;
  const crowdsteer_agents agents = agents_of(c, c->state);
  const int filtered = e->work == WORK_FILTERED;
  const int positions_only = e->work == WORK_GRID_POSITIONS;
  crowdsteer_status status = build_grid(
      c, &agents, e->threads, filtered ? c->group : NULL, positions_only); /* warm */
  if (filtered) {
    nb.field_of_view = 1;
    nb.cos_field_of_view = 0.0f;
    nb.neighbour_mask = 1u;
  }
  crowdsteer_params params;
  memset(&params, 0, sizeof params);
  params.max_speed = MAX_SPEED;
  crowdsteer_output out;
  memset(&out, 0, sizeof out);
  out.steering = (crowdsteer_vectors){c->steering[0], c->steering[1], NULL};
  while (csb_keep_running(state) && status == CROWDSTEER_OK) {
    if (e->work == WORK_GRID || positions_only)
      status = build_grid(c, &agents, e->threads, NULL, positions_only);
    else
      status = run_behaviour(e->work, &agents, &nb, &params, &out);
    csb_clobber_memory();
  }
  if (status != CROWDSTEER_OK) {
    fail_run(state, crowdsteer_status_string(status));
    return;
  }
  report_pairs(state, c, e);
}

/* crowdsteer: one step of the scenario, grid build included, from the state
 * into the next state (never swapped: the same step every iteration). */
static void run_scenario(csb_state *state, const void *arg) {
  const nb_entry *e = arg;
  crowdsteer_neighbours nb;
  crowd *c = library_crowd(state, e, &nb);
  if (!c) return;
  const crowdsteer_agents agents = agents_of(c, c->state);
  crowdsteer_agents next = agents_of(c, c->next);
  crowdsteer_step_behaviour behaviours[2];
  memset(behaviours, 0, sizeof behaviours);
  behaviours[0].behaviour = CROWDSTEER_SEEK; /* the goal: the origin */
  behaviours[0].params.max_speed = MAX_SPEED;
  behaviours[1].behaviour = CROWDSTEER_SEPARATION;
  behaviours[1].params.max_speed = MAX_SPEED;
  behaviours[1].neighbours = &nb;
  behaviours[1].weight = SEPARATION_WEIGHT;
  crowdsteer_step_desc step;
  memset(&step, 0, sizeof step);
  step.behaviours = behaviours;
  step.behaviour_count = 2;
  step.combine = CROWDSTEER_BLEND;
  step.integrator.max_speed = MAX_SPEED;
  step.integrator.dt = DT;
  step.output = &next;
  step.threads = e->threads;
  crowdsteer_status status = CROWDSTEER_OK;
  while (csb_keep_running(state) && status == CROWDSTEER_OK) {
    status = build_grid(c, &agents, e->threads, NULL, e->work == WORK_SCENARIO_POSITIONS);
    if (status == CROWDSTEER_OK) status = crowdsteer_step(&agents, &step, 0, c->n);
    csb_clobber_memory();
  }
  if (status != CROWDSTEER_OK) {
    fail_run(state, crowdsteer_status_string(status));
    return;
  }
  report_pairs(state, c, e);
}

/* ---- registration ------------------------------------------------------------ */

static void register_one(const char *work, int threads, const char *isa,
                         csb_function function, const nb_entry *entry,
                         const int64_t *count) {
  char name[96];
  snprintf(name, sizeof name, "%s%s/2d/%s", work, threads > 1 ? "_2threads" : "", isa);
  if (threads > 1)
    csb_register_wall_clock(name, function, entry, count, 1);
  else
    csb_register(name, function, entry, count, 1);
}

static const char *const work_names[WORK_COUNT] = {"grid_build",
                                                   "separation",
                                                   "seek_separation_step",
                                                   "cohesion",
                                                   "alignment",
                                                   "separation_filtered",
                                                   "grid_build_positions",
                                                   "seek_separation_step_positions"};

/* Whether (work, threads) is measured: the behaviours' entry points run on
 * the calling thread, so 2 threads only for the grid and the scenario (and
 * userloop's separation, whose loop is OpenMP); userloop's sort is serial. */
static int measured(nb_work work, int threads, int userloop) {
  if (userloop) return work <= WORK_SCENARIO && !(work == WORK_GRID && threads > 1);
  return threads == 1 || work == WORK_GRID || work == WORK_SCENARIO ||
         work == WORK_GRID_POSITIONS || work == WORK_SCENARIO_POSITIONS;
}

void register_neighbours(const int64_t *counts, size_t n_counts) {
  static nb_entry entries[CROWDSTEER_ISA_COUNT + 1][WORK_COUNT][2];
  for (size_t ci = 0; ci < n_counts; ci++)
    for (int w = 0; w < WORK_COUNT; w++)
      for (int t = 1; t <= 2; t++) {
        for (int isa = 0; isa < CROWDSTEER_ISA_COUNT; isa++) {
          if (!crowdsteer_isa_supported((crowdsteer_isa)isa) || !measured(w, t, 0))
            continue;
          nb_entry *e = &entries[isa][w][t - 1];
          *e = (nb_entry){(nb_work)w, t, 0, (crowdsteer_isa)isa};
          register_one(work_names[w], t, crowdsteer_isa_name((crowdsteer_isa)isa),
                       w == WORK_SCENARIO || w == WORK_SCENARIO_POSITIONS ? run_scenario
                                                                          : run_library,
                       e, &counts[ci]);
        }
        if (!measured(w, t, 1)) continue;
        nb_entry *e = &entries[CROWDSTEER_ISA_COUNT][w][t - 1];
        *e = (nb_entry){(nb_work)w, t, 1, CROWDSTEER_ISA_SCALAR};
        register_one(work_names[w], t, "userloop", run_userloop, e, &counts[ci]);
      }
}
