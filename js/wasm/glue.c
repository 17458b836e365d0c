/* The C side of the npm package: flat functions over the public API, so the
 * JavaScript side never lays out a C struct. A crowd owns its arrays (one
 * allocation, never moved), a wander state, a grid, a workspace, the
 * behaviours of its next step and its avoidance (ORCA: its own grid and
 * report); obstacle sets, navigation fields and pathways are the library's
 * own objects. */
#include <emscripten/emscripten.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "crowdsteer.h"
#include "glue.h"

enum { ARRAYS = 12 }; /* px py pz vx vy vz, steering x y z, wander x y z */

typedef struct js_crowd {
  crowdsteer_agents agents;
  float *array[ARRAYS];
  uint32_t *mask;
  crowdsteer_params params; /* the JS side writes its leading 14 floats */
  crowdsteer_wander_state wander;
  crowdsteer_grid *grid;
  crowdsteer_workspace *workspace;
  crowdsteer_step_behaviour step[CROWDSTEER_STEP_MAX_BEHAVIOURS];
  crowdsteer_neighbours step_neighbours[CROWDSTEER_STEP_MAX_BEHAVIOURS];
  size_t step_count;
  int avoiding; /* the next steps end with ORCA (csjs_step_avoid) */
  crowdsteer_avoidance avoidance;
  crowdsteer_neighbours avoid_neighbours;
  crowdsteer_grid *avoid_grid;
  uint32_t *report;         /* CROWDSTEER_REPORT_* of each agent, last avoiding step */
  crowdsteer_bounds bounds; /* the last csjs_bounds_set: contain's region, wrap's box */
  crowdsteer_bounds step_bounds[CROWDSTEER_STEP_MAX_BEHAVIOURS];
  /* The step behaviours' field or pathway to follow (csjs_step_follow). */
  const crowdsteer_field *step_field[CROWDSTEER_STEP_MAX_BEHAVIOURS];
  crowdsteer_field_follow step_field_follow[CROWDSTEER_STEP_MAX_BEHAVIOURS];
  const crowdsteer_pathway *step_path[CROWDSTEER_STEP_MAX_BEHAVIOURS];
  crowdsteer_path_follow step_path_follow[CROWDSTEER_STEP_MAX_BEHAVIOURS];
  crowdsteer_box wrap; /* the steps' wrap box, when wrapping */
  int wrapping;
  uint32_t hash[2];
} js_crowd;

/* The 14 uniform fields lead the struct, as the JS side assumes. */
_Static_assert(offsetof(crowdsteer_params, jitter) == 13 * sizeof(float), "params");

EMSCRIPTEN_KEEPALIVE js_crowd *csjs_crowd_new(uint32_t count, int dims) {
  /* 32-bit size_t: the block's size must not wrap. */
  if ((dims != 2 && dims != 3) || count > (SIZE_MAX / sizeof(float) - 1) / ARRAYS)
    return NULL;
  js_crowd *c = calloc(1, sizeof *c);
  float *block = calloc((size_t)count * ARRAYS + 1, sizeof(float));
  uint32_t *mask = calloc(2 * (size_t)count + 1, sizeof(uint32_t)); /* and the report */
  if (!c || !block || !mask || crowdsteer_grid_create(&c->grid) != CROWDSTEER_OK ||
      crowdsteer_grid_create(&c->avoid_grid) != CROWDSTEER_OK ||
      crowdsteer_workspace_create(&c->workspace) != CROWDSTEER_OK) {
    if (c) {
      crowdsteer_grid_destroy(c->grid);
      crowdsteer_grid_destroy(c->avoid_grid);
      free(c);
    }
    free(block);
    free(mask);
    return NULL;
  }
  c->report = mask + count;
  for (int k = 0; k < ARRAYS; k++)
    c->array[k] = block + (size_t)k * count;
  c->mask = mask;
  c->agents = (crowdsteer_agents){.count = count,
                                  .dims = dims,
                                  .px = c->array[0],
                                  .py = c->array[1],
                                  .pz = dims == 3 ? c->array[2] : NULL,
                                  .vx = c->array[3],
                                  .vy = c->array[4],
                                  .vz = dims == 3 ? c->array[5] : NULL};
  c->wander.direction = (crowdsteer_vectors){c->array[9], c->array[10], c->array[11]};
  return c;
}

EMSCRIPTEN_KEEPALIVE void csjs_crowd_free(js_crowd *c) {
  if (!c) return;
  crowdsteer_grid_destroy(c->grid);
  crowdsteer_grid_destroy(c->avoid_grid);
  crowdsteer_workspace_destroy(c->workspace);
  free(c->array[0]);
  free(c->mask);
  free(c);
}

/* Address of array k (0-11), 12: the behaviour mask, 13: the params, 14:
 * the avoidance report. */
EMSCRIPTEN_KEEPALIVE void *csjs_crowd_array(js_crowd *c, int k) {
  if (k >= 0 && k < ARRAYS) return c->array[k];
  if (k == ARRAYS + 2) return c->report;
  return k == ARRAYS ? (void *)c->mask : (void *)&c->params;
}

EMSCRIPTEN_KEEPALIVE void csjs_wander_seed(js_crowd *c, uint32_t seed, uint32_t tick) {
  c->wander.seed = seed;
  c->wander.tick = tick;
}

static crowdsteer_target target_of(int kind, float x, float y, float z, float vx,
                                   float vy, float vz, uint32_t agent) {
  crowdsteer_target t = {.kind = (crowdsteer_target_kind)kind, .agent = agent};
  t.point[0] = x, t.point[1] = y, t.point[2] = z;
  t.point_velocity[0] = vx, t.point_velocity[1] = vy, t.point_velocity[2] = vz;
  return t;
}

/* The mode as given: the library refuses one it does not know. */
static crowdsteer_output output_of(js_crowd *c, int mode, float weight) {
  return (crowdsteer_output){
      .steering = {c->array[6], c->array[7], c->agents.dims == 3 ? c->array[8] : NULL},
      .mode = (crowdsteer_write_mode)mode,
      .weight = weight};
}

/* Seek .. evade (a point or one agent as target) and wander, into the
 * crowd's steering arrays. */
EMSCRIPTEN_KEEPALIVE int csjs_behaviour(js_crowd *c, int behaviour, int kind, float x,
                                        float y, float z, float vx, float vy, float vz,
                                        uint32_t agent, int mode, float weight,
                                        uint32_t begin, uint32_t end) {
  const crowdsteer_target t = target_of(kind, x, y, z, vx, vy, vz, agent);
  const crowdsteer_output out = output_of(c, mode, weight);
  const crowdsteer_agents *a = &c->agents;
  const crowdsteer_params *p = &c->params;
  switch (behaviour) {
  case CROWDSTEER_SEEK: return crowdsteer_seek(a, &t, p, &out, begin, end);
  case CROWDSTEER_FLEE: return crowdsteer_flee(a, &t, p, &out, begin, end);
  case CROWDSTEER_ARRIVE: return crowdsteer_arrive(a, &t, p, &out, begin, end);
  case CROWDSTEER_LEAVE: return crowdsteer_leave(a, &t, p, &out, begin, end);
  case CROWDSTEER_PURSUIT: return crowdsteer_pursuit(a, &t, p, &out, begin, end);
  case CROWDSTEER_EVADE: return crowdsteer_evade(a, &t, p, &out, begin, end);
  case CROWDSTEER_WANDER: return crowdsteer_wander(a, &c->wander, p, &out, begin, end);
  default: return CROWDSTEER_ERROR_PARAMETER;
  }
}

/* The region of the next contain or step behaviour (csjs_step_bounds), and
 * the box of the next wrap (box_min, box_max). */
EMSCRIPTEN_KEEPALIVE void csjs_bounds_set(js_crowd *c, int shape, float cx, float cy,
                                          float cz, float radius, float lx, float ly,
                                          float lz, float hx, float hy, float hz,
                                          float prediction) {
  c->bounds = (crowdsteer_bounds){.shape = (crowdsteer_bounds_shape)shape,
                                  .centre = {cx, cy, cz},
                                  .radius = radius,
                                  .box = {{lx, ly, lz}, {hx, hy, hz}},
                                  .prediction = prediction};
}

EMSCRIPTEN_KEEPALIVE int csjs_contain(js_crowd *c, int mode, float weight, uint32_t begin,
                                      uint32_t end) {
  const crowdsteer_output out = output_of(c, mode, weight);
  return crowdsteer_contain(&c->agents, &c->bounds, &c->params, &out, begin, end);
}

EMSCRIPTEN_KEEPALIVE int csjs_wrap(js_crowd *c, uint32_t begin, uint32_t end) {
  return crowdsteer_wrap(&c->agents, &c->bounds.box, begin, end);
}

EMSCRIPTEN_KEEPALIVE int csjs_grid_build(js_crowd *c, float cell_size,
                                         int positions_only) {
  const crowdsteer_grid_desc desc = {
      .cell_size = cell_size, .positions_only = positions_only, .threads = 1};
  return crowdsteer_grid_build(c->grid, &c->agents, &desc);
}

/* Separation, cohesion, alignment over the crowd's grid. */
EMSCRIPTEN_KEEPALIVE int csjs_neighbour_behaviour(js_crowd *c, int behaviour,
                                                  float radius, uint32_t max_neighbours,
                                                  int mode, float weight, uint32_t begin,
                                                  uint32_t end) {
  const crowdsteer_neighbours nb = {
      .grid = c->grid, .radius = radius, .max_neighbours = max_neighbours};
  const crowdsteer_output out = output_of(c, mode, weight);
  switch (behaviour) {
  case CROWDSTEER_SEPARATION:
    return crowdsteer_separation(&c->agents, &nb, &c->params, &out, begin, end);
  case CROWDSTEER_COHESION:
    return crowdsteer_cohesion(&c->agents, &nb, &c->params, &out, begin, end);
  case CROWDSTEER_ALIGNMENT:
    return crowdsteer_alignment(&c->agents, &nb, &c->params, &out, begin, end);
  default: return CROWDSTEER_ERROR_PARAMETER;
  }
}

EMSCRIPTEN_KEEPALIVE int csjs_integrate(js_crowd *c, uint32_t begin, uint32_t end) {
  const crowdsteer_vectors s = {c->array[6], c->array[7],
                                c->agents.dims == 3 ? c->array[8] : NULL};
  return crowdsteer_integrate(&c->agents, &s, &c->params, begin, end);
}

EMSCRIPTEN_KEEPALIVE void csjs_step_clear(js_crowd *c) { c->step_count = 0; }

/* Appends a behaviour to the next step, with the crowd's params as they are
 * now (neighbour behaviours: radius and max_neighbours over the grid). */
EMSCRIPTEN_KEEPALIVE int csjs_step_add(js_crowd *c, int behaviour, int kind, float x,
                                       float y, float z, float vx, float vy, float vz,
                                       uint32_t agent, float weight, float radius,
                                       uint32_t max_neighbours) {
  if (c->step_count == CROWDSTEER_STEP_MAX_BEHAVIOURS) return CROWDSTEER_ERROR_RANGE;
  const size_t b = c->step_count++;
  c->step_neighbours[b] = (crowdsteer_neighbours){
      .grid = c->grid, .radius = radius, .max_neighbours = max_neighbours};
  c->step[b] = (crowdsteer_step_behaviour){
      .behaviour = (crowdsteer_behaviour)behaviour,
      .target = target_of(kind, x, y, z, vx, vy, vz, agent),
      .params = c->params,
      .wander = &c->wander,
      .weight = weight,
      .neighbours = crowdsteer_behaviour_inputs((crowdsteer_behaviour)behaviour) &
                            CROWDSTEER_INPUT_NEIGHBOURS
                        ? &c->step_neighbours[b]
                        : NULL};
  return CROWDSTEER_OK;
}

/* The region of the last behaviour added (contain's), from csjs_bounds_set. */
EMSCRIPTEN_KEEPALIVE void csjs_step_bounds(js_crowd *c) {
  if (!c->step_count) return;
  const size_t b = c->step_count - 1;
  c->step_bounds[b] = c->bounds;
  c->step[b].bounds = &c->step_bounds[b];
}

/* Whether the next steps wrap their agents in csjs_bounds_set's box. */
EMSCRIPTEN_KEEPALIVE void csjs_step_wrap(js_crowd *c, int on) {
  c->wrapping = on;
  c->wrap = c->bounds.box;
}

/* ORCA as the last stage of the crowd's next steps (on 0: none): body
 * radius and time horizons, the max_neighbours nearest within
 * neighbour_radius (0: obstacles only) through a grid of the crowd the
 * step builds with cells that wide, and a built obstacle set or NULL. */
EMSCRIPTEN_KEEPALIVE void csjs_step_avoid(js_crowd *c, int on, float radius,
                                          float time_horizon, float obstacle_time_horizon,
                                          float neighbour_radius, uint32_t max_neighbours,
                                          const crowdsteer_obstacles *obstacles) {
  c->avoiding = on;
  c->avoid_neighbours = (crowdsteer_neighbours){.grid = c->avoid_grid,
                                                .radius = neighbour_radius,
                                                .max_neighbours = max_neighbours};
  c->avoidance = (crowdsteer_avoidance){
      .radius = radius,
      .time_horizon = time_horizon,
      .obstacle_time_horizon = obstacle_time_horizon,
      .neighbours = neighbour_radius != 0.0f ? &c->avoid_neighbours : NULL,
      .obstacles = obstacles,
      .report = c->report};
}

/* The step in place, with the crowd's params as integrator. */
EMSCRIPTEN_KEEPALIVE int csjs_step_run(js_crowd *c, int combine, float priority_threshold,
                                       int use_mask, uint32_t tile_size, uint32_t begin,
                                       uint32_t end) {
  if (c->avoiding && c->avoidance.neighbours) { /* ORCA's neighbours, velocities kept */
    const crowdsteer_grid_desc grid = {.cell_size = c->avoid_neighbours.radius,
                                       .threads = 1};
    const crowdsteer_status status =
        crowdsteer_grid_build(c->avoid_grid, &c->agents, &grid);
    if (status != CROWDSTEER_OK) return status;
  }
  const crowdsteer_step_desc desc = {.behaviours = c->step,
                                     .behaviour_count = c->step_count,
                                     .combine = (crowdsteer_combine)combine,
                                     .priority_threshold = priority_threshold,
                                     .behaviour_mask = use_mask ? c->mask : NULL,
                                     .integrator = c->params,
                                     .tile_size = tile_size,
                                     .threads = 1,
                                     .workspace = c->workspace,
                                     .avoidance = c->avoiding ? &c->avoidance : NULL,
                                     .wrap = c->wrapping ? &c->wrap : NULL};
  return crowdsteer_step(&c->agents, &desc, begin, end);
}

/* One pathway, followed the same way by every agent. */
static crowdsteer_path_follow path_follow_of(const crowdsteer_pathway *const *path,
                                             float direction, float prediction_time,
                                             float lead_distance) {
  return (crowdsteer_path_follow){.paths = path,
                                  .path_count = 1,
                                  .direction = (int)direction,
                                  .prediction_time = prediction_time,
                                  .lead_distance = lead_distance};
}

/* Follow the field or the pathway in the last behaviour added (a
 * FOLLOW_FIELD or FOLLOW_PATH one): the whole crowd follows it, in
 * `direction` (+1 or -1) along a pathway. */
EMSCRIPTEN_KEEPALIVE void csjs_step_follow(js_crowd *c, const crowdsteer_field *field,
                                           const crowdsteer_pathway *path,
                                           float direction, float prediction_time,
                                           float lead_distance) {
  if (!c->step_count) return;
  const size_t b = c->step_count - 1;
  c->step_field[b] = field;
  c->step_field_follow[b] = (crowdsteer_field_follow){c->step_field + b, 1, NULL, 0};
  c->step_path[b] = path;
  c->step_path_follow[b] =
      path_follow_of(c->step_path + b, direction, prediction_time, lead_distance);
  c->step[b].field = field ? &c->step_field_follow[b] : NULL;
  c->step[b].path = path ? &c->step_path_follow[b] : NULL;
}

/* Follow-the-field and follow-the-path for agents [begin, end) into the
 * crowd's steering arrays (crowdsteer_follow_field, _path). */
EMSCRIPTEN_KEEPALIVE int csjs_follow_field(js_crowd *c, const crowdsteer_field *field,
                                           int mode, float weight, uint32_t begin,
                                           uint32_t end) {
  const crowdsteer_field *fields[1] = {field};
  const crowdsteer_field_follow follow = {fields, 1, NULL, 0};
  const crowdsteer_output out = output_of(c, mode, weight);
  return crowdsteer_follow_field(&c->agents, &follow, &c->params, &out, begin, end);
}

EMSCRIPTEN_KEEPALIVE int csjs_follow_path(js_crowd *c, const crowdsteer_pathway *path,
                                          float direction, float prediction_time,
                                          float lead_distance, int mode, float weight,
                                          uint32_t begin, uint32_t end) {
  const crowdsteer_pathway *paths[1] = {path};
  const crowdsteer_path_follow follow =
      path_follow_of(paths, direction, prediction_time, lead_distance);
  const crowdsteer_output out = output_of(c, mode, weight);
  return crowdsteer_follow_path(&c->agents, &follow, &c->params, &out, begin, end);
}

/* Navigation fields (crowdsteer_field_*): a build (rebuild 0) or a rebuild
 * of cells [cx0, cx1) x [cy0, cy1); cost NULL or width * height floats,
 * goals points in gx, gy. */
EMSCRIPTEN_KEEPALIVE crowdsteer_field *csjs_field_new(void) {
  crowdsteer_field *f = NULL;
  return crowdsteer_field_create(&f) == CROWDSTEER_OK ? f : NULL;
}

EMSCRIPTEN_KEEPALIVE void csjs_field_free(crowdsteer_field *f) {
  crowdsteer_field_destroy(f);
}

EMSCRIPTEN_KEEPALIVE int
csjs_field_build(crowdsteer_field *f, float origin_x, float origin_y, float cell_size,
                 uint32_t width, uint32_t height, const crowdsteer_obstacles *obstacles,
                 const float *cost, const float *goal_x, const float *goal_y,
                 uint32_t goal_count, const crowdsteer_obstacles *goal_regions,
                 int rebuild, uint32_t cx0, uint32_t cy0, uint32_t cx1, uint32_t cy1) {
  const crowdsteer_field_desc desc = {.origin = {origin_x, origin_y},
                                      .cell_size = cell_size,
                                      .width = width,
                                      .height = height,
                                      .obstacles = obstacles,
                                      .cost = cost,
                                      .goal_x = goal_x,
                                      .goal_y = goal_y,
                                      .goal_point_count = goal_count,
                                      .goal_regions = goal_regions};
  return rebuild ? crowdsteer_field_rebuild(f, &desc, cx0, cy0, cx1, cy1)
                 : crowdsteer_field_build(f, &desc);
}

/* Cell (cx, cy)'s time into *time; its direction and whether it is blocked
 * into out[0..2]. */
EMSCRIPTEN_KEEPALIVE int csjs_field_cell(const crowdsteer_field *f, uint32_t cx,
                                         uint32_t cy, double *time, float *out) {
  int blocked = 0;
  crowdsteer_status status = crowdsteer_field_time(f, cx, cy, time);
  if (status == CROWDSTEER_OK)
    status = crowdsteer_field_direction(f, cx, cy, &out[0], &out[1], &blocked);
  out[2] = (float)blocked;
  return status;
}

EMSCRIPTEN_KEEPALIVE uint32_t csjs_field_bytes(const crowdsteer_field *f) {
  return (uint32_t)crowdsteer_field_bytes(f);
}

/* Pathways (crowdsteer_pathway_*); x, y (and z in 3D) hold n points. NULL
 * with the status in *status on error. */
EMSCRIPTEN_KEEPALIVE crowdsteer_pathway *csjs_pathway_new(int dims, uint32_t n,
                                                          const float *x, const float *y,
                                                          const float *z, float radius,
                                                          int cyclic, int *status) {
  const crowdsteer_pathway_desc desc = {dims, n, x, y, z, radius, cyclic};
  crowdsteer_pathway *p = NULL;
  *status = crowdsteer_pathway_create(&p, &desc);
  return *status == CROWDSTEER_OK ? p : NULL;
}

EMSCRIPTEN_KEEPALIVE void csjs_pathway_free(crowdsteer_pathway *p) {
  crowdsteer_pathway_destroy(p);
}

EMSCRIPTEN_KEEPALIVE float csjs_pathway_length(const crowdsteer_pathway *p) {
  return crowdsteer_pathway_length(p);
}

EMSCRIPTEN_KEEPALIVE uint32_t csjs_pathway_bytes(const crowdsteer_pathway *p) {
  return (uint32_t)crowdsteer_pathway_bytes(p);
}

/* Obstacle sets (crowdsteer_obstacles_*); x and y hold n vertices. */
EMSCRIPTEN_KEEPALIVE crowdsteer_obstacles *csjs_obstacles_new(void) {
  crowdsteer_obstacles *o = NULL;
  return crowdsteer_obstacles_create(&o) == CROWDSTEER_OK ? o : NULL;
}

EMSCRIPTEN_KEEPALIVE void csjs_obstacles_free(crowdsteer_obstacles *o) {
  crowdsteer_obstacles_destroy(o);
}

EMSCRIPTEN_KEEPALIVE int csjs_obstacles_add(crowdsteer_obstacles *o, const float *x,
                                            const float *y, uint32_t n) {
  return crowdsteer_obstacles_add(o, x, y, n);
}

EMSCRIPTEN_KEEPALIVE int csjs_obstacles_build(crowdsteer_obstacles *o, float cell_size) {
  return crowdsteer_obstacles_build(o, cell_size);
}

/* 0 outside, 1 inside, or 2 + the status of a refused query. */
EMSCRIPTEN_KEEPALIVE int csjs_obstacles_inside(const crowdsteer_obstacles *o, float x,
                                               float y) {
  int inside = 0;
  const crowdsteer_status status = crowdsteer_obstacles_inside(o, x, y, &inside);
  return status == CROWDSTEER_OK ? inside != 0 : 2 + (int)status;
}

EMSCRIPTEN_KEEPALIVE uint32_t csjs_obstacles_edge_count(const crowdsteer_obstacles *o) {
  return (uint32_t)crowdsteer_obstacles_edge_count(o);
}

EMSCRIPTEN_KEEPALIVE uint32_t csjs_obstacles_bytes(const crowdsteer_obstacles *o) {
  return (uint32_t)crowdsteer_obstacles_bytes(o);
}

/* FNV-1a over the bits of arrays [0, arrays) (6: the state, positions then
 * velocities; 9: the steering after them), axis by axis, NaNs
 * canonicalised, as tests/web/test_web_scenario.c hashes. */
EMSCRIPTEN_KEEPALIVE uint32_t *csjs_crowd_hash(js_crowd *c, int arrays) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (int k = 0; k < arrays && k < ARRAYS; k++) {
    if (c->agents.dims == 2 && k % 3 == 2) continue; /* no z */
    const float *a = c->array[k];
    for (size_t i = 0; i < c->agents.count; i++) {
      const float x = a[i] != a[i] ? (float)NAN : a[i];
      uint32_t bits;
      memcpy(&bits, &x, sizeof bits);
      for (int b = 0; b < 4; b++) {
        h ^= (bits >> (8 * b)) & 0xFFu;
        h *= 0x100000001B3ull;
      }
    }
  }
  c->hash[0] = (uint32_t)h;
  c->hash[1] = (uint32_t)(h >> 32);
  return c->hash;
}

EMSCRIPTEN_KEEPALIVE float csjs_random(uint32_t seed, uint32_t agent, uint32_t tick,
                                       uint32_t axis) {
  return crowdsteer_random(seed, agent, tick, axis);
}

EMSCRIPTEN_KEEPALIVE const char *csjs_status_string(int status) {
  return crowdsteer_status_string((crowdsteer_status)status);
}

EMSCRIPTEN_KEEPALIVE const char *csjs_isa_name(void) {
  return crowdsteer_isa_name(crowdsteer_active_isa());
}

EMSCRIPTEN_KEEPALIVE int csjs_force_isa(const char *name) {
  crowdsteer_isa isa;
  crowdsteer_status s = crowdsteer_isa_from_name(name, &isa);
  return s == CROWDSTEER_OK ? crowdsteer_force_isa(isa) : s;
}

EMSCRIPTEN_KEEPALIVE const char *csjs_version(void) {
  return crowdsteer_version_string();
}
