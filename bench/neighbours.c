/* Neighbour benchmarks, 2D and 3D: the grid build, separation / cohesion /
 * alignment per ISA (and separation with a field of view and a group
 * filter), the scenario (a crowd seeks one goal with separation
 * blended, grid build included), in 2D against the userloop competitor, and
 * a boids step (flock_step: separation, cohesion and alignment). The
 * crowd is uniform over a square (a cube in 3D) sized so that an agent has
 * NEIGHBOUR_DENSITY others within the radius on average (DENSE_DENSITY for
 * separation_dense and cohesion_dense). Each step reads
 * one state and writes another, never swapped, so every iteration
 * measures the same step at the same density. Candidate and neighbour
 * pairs are counted exactly, outside the timed loops, and reported per
 * agent next to the times. */
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
/* The dense works': a packed crowd or a flock, past the 96 neighbours an
 * agent's 32-bit lane total holds (kernels' rows_group). */
#define DENSE_DENSITY 150.0
#define MAX_SPEED 1.0f
#define SEPARATION_WEIGHT 2.0f
#define DT 0.25f

/* ---- the crowd ------------------------------------------------------------ */

enum { PX, PY, PZ, VX, VY, VZ, STATE_ARRAYS };

typedef struct crowd {
  size_t n;
  int dims;
  double density;              /* mean others within the radius */
  float *state[STATE_ARRAYS];  /* read by every step, never written */
  float *next[STATE_ARRAYS];   /* every step's output */
  float *sorted[STATE_ARRAYS]; /* the state in its grid's cell order, made on first use */
  float *user_sorted[STATE_ARRAYS]; /* the state in userloop's own cell order, likewise */
  float *steering[3];
  uint32_t *group;           /* agent i in group 1 << (i % 2) (separation_filtered) */
  double library_candidates; /* per agent: agents in the cells the library searches */
  double user_candidates;    /* per agent: agents in userloop's 3x3 cells (2D) */
  double neighbours;         /* per agent: others within the radius */
  userloop_grid user_grid;   /* 2D only */
  userloop_grid user_sorted_grid; /* userloop's grid of user_sorted */
  crowdsteer_grid *grid;          /* crowdsteer's, built by the benchmarks that need it */
} crowd;

static crowd the_crowd;

static void crowd_release(crowd *c) {
  for (int k = 0; k < STATE_ARRAYS; k++) {
    free(c->state[k]);
    free(c->next[k]);
    free(c->sorted[k]);
    free(c->user_sorted[k]);
  }
  for (int k = 0; k < 3; k++)
    free(c->steering[k]);
  free(c->group);
  userloop_grid_free(&c->user_grid);
  userloop_grid_free(&c->user_sorted_grid);
  crowdsteer_grid_destroy(c->grid);
  memset(c, 0, sizeof *c);
}

void neighbours_free(void) { crowd_release(&the_crowd); }

/* Per agent, the agents in the cells of size `cell` (anchored at the
 * origin) that its search box [p - RADIUS, p + RADIUS] touches, and those
 * of them within RADIUS, itself excluded: into library_candidates and
 * neighbours (both 0 when out of memory). */
static void count_library_pairs(crowd *c, float cell) {
  const int dims = c->dims;
  const float *const pos[3] = {c->state[PX], c->state[PY],
                               dims == 3 ? c->state[PZ] : NULL};
  long lo[3] = {0, 0, 0}, size[3] = {1, 1, 1};
  for (int k = 0; k < dims; k++) {
    long hi = 0;
    for (size_t i = 0; i < c->n; i++) {
      const long x = (long)floorf(pos[k][i] / cell);
      if (i == 0 || x < lo[k]) lo[k] = x;
      if (i == 0 || x > hi) hi = x;
    }
    size[k] = hi - lo[k] + 1;
  }
  const size_t cells = (size_t)(size[0] * size[1] * size[2]);
  uint32_t *start = calloc(cells + 1, sizeof *start),
           *cell_of = malloc(c->n * sizeof *cell_of);
  uint32_t *members = malloc(c->n * sizeof *members);
  c->library_candidates = c->neighbours = 0.0;
  if (start && cell_of && members) {
    for (size_t i = 0; i < c->n; i++) { /* a counting sort by cell */
      long at = 0;
      for (int k = dims - 1; k >= 0; k--)
        at = at * size[k] + ((long)floorf(pos[k][i] / cell) - lo[k]);
      cell_of[i] = (uint32_t)at;
      start[at + 1]++;
    }
    for (size_t b = 0; b < cells; b++)
      start[b + 1] += start[b];
    for (size_t i = 0; i < c->n; i++)
      members[start[cell_of[i]]++] = (uint32_t)i;
    for (size_t b = cells; b > 0; b--) /* back to each cell's first member */
      start[b] = start[b - 1];
    start[0] = 0;
    double candidates = 0.0, neighbours = 0.0;
    for (size_t i = 0; i < c->n; i++) {
      long from[3] = {0, 0, 0}, to[3] = {0, 0, 0};
      for (int k = 0; k < dims; k++) {
        from[k] = (long)floorf((pos[k][i] - RADIUS) / cell) - lo[k];
        to[k] = (long)floorf((pos[k][i] + RADIUS) / cell) - lo[k];
        from[k] = from[k] < 0 ? 0 : from[k];
        to[k] = to[k] >= size[k] ? size[k] - 1 : to[k];
      }
      for (long z = from[2]; z <= to[2]; z++)
        for (long y = from[1]; y <= to[1]; y++)
          for (long x = from[0]; x <= to[0]; x++) {
            const long at = (z * size[1] + y) * size[0] + x;
            for (uint32_t m = start[at]; m < start[at + 1]; m++) {
              const uint32_t q = members[m];
              if (q == i) continue;
              float dd = 0.0f;
              for (int k = 0; k < dims; k++)
                dd += (pos[k][i] - pos[k][q]) * (pos[k][i] - pos[k][q]);
              candidates += 1.0;
              neighbours += dd < RADIUS * RADIUS;
            }
          }
    }
    c->library_candidates = candidates / (double)c->n;
    c->neighbours = neighbours / (double)c->n;
  }
  free(start);
  free(cell_of);
  free(members);
}

/* userloop's candidates (its own 3x3 cells). */
static void count_user_candidates(crowd *c) {
  const userloop_grid *g = &c->user_grid;
  const float *px = c->state[PX], *py = c->state[PY];
  double candidates = 0.0;
  for (size_t i = 0; i < c->n; i++) {
    int cx = (int)((px[i] - g->min_x) * g->inverse_cell);
    int cy = (int)((py[i] - g->min_y) * g->inverse_cell);
    for (int y = cy - 1; y <= cy + 1; y++)
      for (int x = cx - 1; x <= cx + 1; x++) {
        if (x < 0 || y < 0 || x >= g->columns || y >= g->rows) continue;
        size_t cell = (size_t)y * (size_t)g->columns + (size_t)x;
        for (uint32_t k = g->cell_start[cell]; k < g->cell_start[cell + 1]; k++) {
          candidates += g->order[k] != i;
        }
      }
  }
  c->user_candidates = candidates / (double)c->n;
}

/* Uniform over a square of side sqrt(n * pi / density) radii (a cube of
 * side cbrt(n * 4/3 pi / density) in 3D): density neighbours within the
 * radius on average; velocities up to MAX_SPEED. */
static int crowd_make(crowd *c, size_t n, int dims, double density) {
  crowd_release(c);
  c->n = n;
  c->dims = dims;
  c->density = density;
  int failed = 0;
  for (int k = 0; k < STATE_ARRAYS; k++) {
    failed |= !(c->state[k] = malloc(n * sizeof(float)));
    failed |= !(c->next[k] = calloc(n, sizeof(float)));
  }
  for (int k = 0; k < dims; k++)
    failed |= !(c->steering[k] = calloc(n, sizeof(float)));
  failed |= !(c->group = malloc(n * sizeof(uint32_t)));
  if (failed) return -1;
  for (size_t i = 0; i < n; i++)
    c->group[i] = 1u << (i % 2);
  const double pi = 3.14159265358979;
  const float half = 0.5f * RADIUS *
                     (float)(dims == 3 ? cbrt((double)n * 4.0 / 3.0 * pi / density)
                                       : sqrt((double)n * pi / density));
  for (size_t i = 0; i < n; i++)
    for (int k = 0; k < dims; k++) {
      c->state[PX + k][i] = half * crowdsteer_random(7u, (uint32_t)i, 1u, (uint32_t)k);
      c->state[VX + k][i] =
          0.5f * MAX_SPEED * crowdsteer_random(7u, (uint32_t)i, 2u, (uint32_t)k);
    }
  if (dims == 2) {
    if (userloop_grid_build(&c->user_grid, c->state[PX], c->state[PY], n, RADIUS))
      return -1;
    count_user_candidates(c);
  }
  if (crowdsteer_grid_create(&c->grid) != CROWDSTEER_OK) return -1;
  count_library_pairs(c, RADIUS);
  return c->library_candidates > 0.0 ? 0 : -1;
}

static crowd *crowd_for(size_t n, int dims, double density) {
  if ((the_crowd.n != n || the_crowd.dims != dims || the_crowd.density != density) &&
      crowd_make(&the_crowd, n, dims, density) != 0) {
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
  WORK_CAPPED, /* crowdsteer only: separation of the 6 nearest (DetourCrowd's cap) */
  /* crowdsteer only, the crowd in cell order (crowdsteer_grid_order): */
  WORK_GRID_CELL_ORDER,       /* WORK_GRID_POSITIONS */
  WORK_SEPARATION_CELL_ORDER, /* WORK_SEPARATION on a grid of positions only */
  WORK_SCENARIO_CELL_ORDER,   /* WORK_SCENARIO_POSITIONS */
  WORK_FLOCK, /* crowdsteer only: grid build + boids (separation, cohesion and
                 alignment blended, one grid and radius) + integrate */
  /* crowdsteer only, a crowd of DENSE_DENSITY (last: one remake per size): */
  WORK_SEPARATION_DENSE, /* WORK_SEPARATION */
  WORK_COHESION_DENSE,   /* WORK_COHESION */
  WORK_COUNT
} nb_work;

/* Each work's benchmark name and shape. */
typedef struct work_kind {
  const char *name;
  int build_only;     /* the grid build alone */
  int scenario;       /* grid build + step (run_scenario) */
  int positions_only; /* on a grid of positions only */
  int cell_order;     /* on the crowd in cell order */
  int dense;          /* on a crowd of DENSE_DENSITY */
  int flock;          /* the scenario's behaviours are boids' three */
} work_kind;

static const work_kind works[WORK_COUNT] = {
    [WORK_GRID] = {"grid_build", 1, 0, 0, 0},
    [WORK_SEPARATION] = {"separation", 0, 0, 0, 0},
    [WORK_SCENARIO] = {"seek_separation_step", 0, 1, 0, 0},
    [WORK_COHESION] = {"cohesion", 0, 0, 0, 0},
    [WORK_ALIGNMENT] = {"alignment", 0, 0, 0, 0},
    [WORK_FILTERED] = {"separation_filtered", 0, 0, 0, 0},
    [WORK_GRID_POSITIONS] = {"grid_build_positions", 1, 0, 1, 0},
    [WORK_SCENARIO_POSITIONS] = {"seek_separation_step_positions", 0, 1, 1, 0},
    [WORK_CAPPED] = {"separation_capped", 0, 0, 0, 0},
    [WORK_GRID_CELL_ORDER] = {"grid_build_cell_order", 1, 0, 1, 1},
    [WORK_SEPARATION_CELL_ORDER] = {"separation_cell_order", 0, 0, 1, 1},
    [WORK_SCENARIO_CELL_ORDER] = {"seek_separation_step_cell_order", 0, 1, 1, 1},
    [WORK_FLOCK] = {"flock_step", 0, 1, 0, 0, 0, 1},
    [WORK_SEPARATION_DENSE] = {"separation_dense", 0, 0, 0, 0, 1},
    [WORK_COHESION_DENSE] = {"cohesion_dense", 0, 0, 0, 0, 1},
};

typedef struct nb_entry {
  nb_work work;
  int dims;
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
  if (works[e->work].build_only) return;
  csb_set_counter(state, "candidates",
                  e->userloop ? c->user_candidates : c->library_candidates, 0);
  csb_set_counter(state, "neighbours", c->neighbours, 0);
}

/* The 2D crowd in userloop's own cell order (a user sorts by the cells of
 * the grid they wrote), with userloop's grid of it; made once, NULL when
 * out of memory. */
static float *const *user_cell_ordered(crowd *c) {
  if (c->user_sorted[PX]) return c->user_sorted;
  const userloop_grid *g = &c->user_grid; /* always of c->state */
  int failed = 0;
  for (int k = 0; k < STATE_ARRAYS; k++) {
    if (k % 3 >= 2) continue;
    failed |= !(c->user_sorted[k] = malloc(c->n * sizeof(float)));
    for (size_t s = 0; !failed && s < c->n; s++)
      c->user_sorted[k][s] = c->state[k][g->order[s]];
  }
  failed = failed || userloop_grid_build(&c->user_sorted_grid, c->user_sorted[PX],
                                         c->user_sorted[PY], c->n, RADIUS);
  return failed ? NULL : c->user_sorted;
}

static void run_userloop(csb_state *state, const void *arg) {
  const nb_entry *e = arg;
  crowd *c = crowd_for((size_t)csb_range(state, 0), 2, NEIGHBOUR_DENSITY);
  float *const *s = !c                          ? NULL
                    : works[e->work].cell_order ? user_cell_ordered(c)
                                                : c->state;
  if (!s) {
    fail_run(state, "out of memory");
    return;
  }
  const userloop_scenario scenario = {0.0f, 0.0f, MAX_SPEED, RADIUS, SEPARATION_WEIGHT,
                                      DT};
  float *const *next = c->next;
  userloop_grid *grid = works[e->work].cell_order ? &c->user_sorted_grid : &c->user_grid;
  const int separation_only = !works[e->work].build_only && !works[e->work].scenario;
  int failed = 0;
  while (csb_keep_running(state)) {
    if (!separation_only) failed |= userloop_grid_build(grid, s[PX], s[PY], c->n, RADIUS);
    if (separation_only)
      userloop_separation(grid, s[PX], s[PY], RADIUS, MAX_SPEED, c->steering[0],
                          c->steering[1], e->threads);
    if (works[e->work].scenario)
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
  agents.dims = c->dims;
  agents.px = arrays[PX];
  agents.py = arrays[PY];
  agents.vx = arrays[VX];
  agents.vy = arrays[VY];
  if (c->dims == 3) {
    agents.pz = arrays[PZ];
    agents.vz = arrays[VZ];
  }
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

/* The crowd's state in the cell order of its grid (as a user re-sorts a
 * crowd every so many steps: crowdsteer_grid_order, crowdsteer_reorder),
 * made once; NULL when out of memory. */
static float *const *cell_ordered(crowd *c) {
  if (c->sorted[PX]) return c->sorted;
  const crowdsteer_agents agents = agents_of(c, c->state);
  if (build_grid(c, &agents, 1, NULL, 1) != CROWDSTEER_OK) return NULL;
  size_t count;
  const uint32_t *order = crowdsteer_grid_order(c->grid, &count);
  int failed = 0;
  for (int k = 0; k < STATE_ARRAYS; k++) {
    if (k % 3 >= c->dims) continue;
    failed |= !(c->sorted[k] = malloc(c->n * sizeof(float)));
    failed |= failed || crowdsteer_reorder(c->sorted[k], c->state[k], order, count) !=
                            CROWDSTEER_OK;
  }
  return failed ? NULL : c->sorted;
}

/* The state a benchmark reads: its crowd as made, or in cell order. */
static float *const *state_of(crowd *c, nb_work work) {
  return works[work].cell_order ? cell_ordered(c) : c->state;
}

static crowdsteer_status run_behaviour(nb_work work, const crowdsteer_agents *agents,
                                       const crowdsteer_neighbours *nb,
                                       const crowdsteer_params *params,
                                       const crowdsteer_output *out) {
  switch (work) {
  case WORK_COHESION:
  case WORK_COHESION_DENSE:
    return crowdsteer_cohesion(agents, nb, params, out, 0, agents->count);
  case WORK_ALIGNMENT:
    return crowdsteer_alignment(agents, nb, params, out, 0, agents->count);
  default: /* separation: filtered, dense or neither */
    return crowdsteer_separation(agents, nb, params, out, 0, agents->count);
  }
}

/* The crowd of the benchmark's size on its ISA, and who its agents see;
 * NULL (the run marked failed) when that cannot be had. */
static crowd *library_crowd(csb_state *state, const nb_entry *e,
                            crowdsteer_neighbours *nb) {
  crowd *c = crowd_for((size_t)csb_range(state, 0), e->dims,
                       works[e->work].dense ? DENSE_DENSITY : NEIGHBOUR_DENSITY);
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
  float *const *arrays = state_of(c, e->work);
  if (!arrays) {
    fail_run(state, "out of memory");
    return;
  }
  const crowdsteer_agents agents = agents_of(c, arrays);
  const int filtered = e->work == WORK_FILTERED;
  const int build_only = works[e->work].build_only;
  const int positions_only = works[e->work].positions_only;
  crowdsteer_status status = build_grid(
      c, &agents, e->threads, filtered ? c->group : NULL, positions_only); /* warm */
  if (filtered) {
    nb.field_of_view = 1;
    nb.cos_field_of_view = 0.0f;
    nb.neighbour_mask = 1u;
  }
  if (e->work == WORK_CAPPED) nb.max_neighbours = 6;
  crowdsteer_params params;
  memset(&params, 0, sizeof params);
  params.max_speed = MAX_SPEED;
  crowdsteer_output out;
  memset(&out, 0, sizeof out);
  out.steering = (crowdsteer_vectors){c->steering[0], c->steering[1], c->steering[2]};
  while (csb_keep_running(state) && status == CROWDSTEER_OK) {
    if (build_only)
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

/* The scenario: seek one goal (the origin) with separation
 * blended; returns the behaviour count. */
static int seek_apart(crowdsteer_step_behaviour *b, const crowdsteer_neighbours *nb) {
  b[0].behaviour = CROWDSTEER_SEEK;
  b[0].params.max_speed = MAX_SPEED;
  b[1].behaviour = CROWDSTEER_SEPARATION;
  b[1].params.max_speed = MAX_SPEED;
  b[1].neighbours = nb;
  b[1].weight = SEPARATION_WEIGHT;
  return 2;
}

/* Boids: separation, cohesion and alignment over one grid and radius, with
 * the viewer's weights (cohesion and alignment then share one walk). */
static int boids(crowdsteer_step_behaviour *b, const crowdsteer_neighbours *nb) {
  const crowdsteer_behaviour kinds[3] = {CROWDSTEER_SEPARATION, CROWDSTEER_COHESION,
                                         CROWDSTEER_ALIGNMENT};
  const float weights[3] = {1.5f, 0.3f, 1.0f};
  for (int k = 0; k < 3; k++) {
    b[k].behaviour = kinds[k];
    b[k].params.max_speed = MAX_SPEED;
    b[k].params.time_to_target = 1.0f;
    b[k].neighbours = nb;
    b[k].weight = weights[k];
  }
  return 3;
}

/* crowdsteer: one step of the scenario (or of boids), grid build included,
 * from the state into the next state (never swapped: the same step every
 * iteration). */
static void run_scenario(csb_state *state, const void *arg) {
  const nb_entry *e = arg;
  crowdsteer_neighbours nb;
  crowd *c = library_crowd(state, e, &nb);
  if (!c) return;
  float *const *arrays = state_of(c, e->work);
  if (!arrays) {
    fail_run(state, "out of memory");
    return;
  }
  const crowdsteer_agents agents = agents_of(c, arrays);
  crowdsteer_agents next = agents_of(c, c->next);
  crowdsteer_step_behaviour behaviours[3];
  memset(behaviours, 0, sizeof behaviours);
  const int count =
      works[e->work].flock ? boids(behaviours, &nb) : seek_apart(behaviours, &nb);
  crowdsteer_step_desc step;
  memset(&step, 0, sizeof step);
  step.behaviours = behaviours;
  step.behaviour_count = (size_t)count;
  step.combine = CROWDSTEER_BLEND;
  step.integrator.max_speed = MAX_SPEED;
  step.integrator.dt = DT;
  step.output = &next;
  step.threads = e->threads;
  crowdsteer_status status = crowdsteer_workspace_create(&step.workspace);
  while (csb_keep_running(state) && status == CROWDSTEER_OK) {
    status = build_grid(c, &agents, e->threads, NULL, works[e->work].positions_only);
    if (status == CROWDSTEER_OK) status = crowdsteer_step(&agents, &step, 0, c->n);
    csb_clobber_memory();
  }
  crowdsteer_workspace_destroy(step.workspace);
  if (status != CROWDSTEER_OK) {
    fail_run(state, crowdsteer_status_string(status));
    return;
  }
  report_pairs(state, c, e);
}

/* ---- registration ------------------------------------------------------------ */

static void register_one(const char *work, int threads, int dims, const char *isa,
                         csb_function function, const nb_entry *entry,
                         const int64_t *count) {
  char name[96];
  snprintf(name, sizeof name, "%s%s/%dd/%s", work, threads > 1 ? "_2threads" : "", dims,
           isa);
  if (threads > 1)
    csb_register_wall_clock(name, function, entry, count, 1);
  else
    csb_register(name, function, entry, count, 1);
}

/* Whether (work, threads) is measured: the behaviours' entry points run on
 * the calling thread, so 2 threads only for the grid and the scenario (and
 * userloop's separation, whose loop is OpenMP); userloop's sort is serial,
 * it is 2D, and it has the plain and the cell-ordered grid, separation and
 * scenario. */
static int measured(nb_work work, int threads, int dims, int userloop) {
  if (userloop)
    return dims == 2 && (work <= WORK_SCENARIO || works[work].cell_order) &&
           !(works[work].build_only && threads > 1);
  return threads == 1 || works[work].build_only || works[work].scenario;
}

/* 2D first, then 3D: the crowd is remade only when the count or dims
 * change. */
void register_neighbours(const int64_t *counts, size_t n_counts) {
  static nb_entry entries[2][CROWDSTEER_ISA_COUNT + 1][WORK_COUNT][2];
  for (int dims = 2; dims <= 3; dims++)
    for (size_t ci = 0; ci < n_counts; ci++)
      for (int w = 0; w < WORK_COUNT; w++)
        for (int t = 1; t <= 2; t++) {
          for (int isa = 0; isa < CROWDSTEER_ISA_COUNT; isa++) {
            if (!crowdsteer_isa_supported((crowdsteer_isa)isa) ||
                !measured(w, t, dims, 0))
              continue;
            nb_entry *e = &entries[dims - 2][isa][w][t - 1];
            *e = (nb_entry){(nb_work)w, dims, t, 0, (crowdsteer_isa)isa};
            register_one(works[w].name, t, dims, crowdsteer_isa_name((crowdsteer_isa)isa),
                         works[w].scenario ? run_scenario : run_library, e, &counts[ci]);
          }
          if (!measured(w, t, dims, 1)) continue;
          nb_entry *e = &entries[dims - 2][CROWDSTEER_ISA_COUNT][w][t - 1];
          *e = (nb_entry){(nb_work)w, dims, t, 1, CROWDSTEER_ISA_SCALAR};
          register_one(works[w].name, t, dims, "userloop", run_userloop, e, &counts[ci]);
        }
}
