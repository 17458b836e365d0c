/* Fuzz cases for navigation fields, pathways and the two follow behaviours
 * (libFuzzer inputs that start with "NV"; see fuzz_crowdsteer.c). Bytes
 * decode to a small field (1 to 24 cells a side, some sizes out of range),
 * obstacles on a lattice of half cells (walls through cell corners and
 * edges: the closed-cell rule's boundary), costs and goal points (some NaN,
 * infinite, below 1, on cell borders, outside the grid), a crowd of up to
 * 80 agents (on cell borders, outside the grid, NaN, infinite) and two
 * pathways (2D or 3D, some degenerate). Properties:
 *  1. a refused field build leaves the field as it was (every cell's time
 *     and direction); a build is repeatable to the bit, and a rebuild over
 *     the whole grid with other goals gives a fresh build's bits;
 *  2. an accepted field holds 0 in goal cells and +inf in blocked ones, and
 *     a direction of length 1 (to the packing's 2^-14) or 0 in every cell,
 *     0 in goal cells;
 *  3. follow_field and follow_path give every ISA the scalar reference's
 *     status and bits (any two NaNs equal), in the host FP mode the bytes
 *     choose; a refused call writes nothing, an accepted one only its
 *     range; two calls split anywhere give one call's bits. */
#include "fuzz_navigation.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "crowdsteer.h"
#include "fuzz_common.h"

enum { MAX_AGENTS = 80, MAX_PATH_POINTS = 8, MAX_OBSTACLES = 4 };

cs_fuzz_navigation_stats cs_fuzz_navigation_counters;

typedef struct nav_case {
  crowdsteer_field_desc desc, other; /* other: the same grid, other goals */
  float goal_x[2], goal_y[2], other_x, other_y;
  float cost[24 * 24];
  float ox[MAX_OBSTACLES][4], oy[MAX_OBSTACLES][4];
  size_t obstacle_vertices[MAX_OBSTACLES], obstacle_count;
  float obstacle_cell;
  int dims, behaviour, accumulate, host_mode;
  size_t count, begin, end, split;
  float a[6][MAX_AGENTS + 1];
  uint32_t field_index[MAX_AGENTS + 1], path_index[MAX_AGENTS + 1];
  float direction[MAX_AGENTS + 1];
  crowdsteer_pathway_desc path_desc[2];
  float px[2][MAX_PATH_POINTS], py[2][MAX_PATH_POINTS], pz[2][MAX_PATH_POINTS];
  crowdsteer_params params;
  crowdsteer_field_follow field_follow;
  crowdsteer_path_follow path_follow;
  float weight;
} nav_case;

/* A coordinate on the half-cell lattice around the grid (a border often),
 * or any float. */
static float lattice(reader *r, float origin, float h, uint32_t cells) {
  const uint8_t how = rd_u8(r);
  if (how >= 240) return cs_fuzz_float(r);
  const int steps = (int)(rd_u8(r) % (2 * cells + 5)) - 2; /* a cell beyond each side */
  return origin + 0.5f * h * (float)steps;
}

static void decode_field(reader *r, nav_case *c) {
  crowdsteer_field_desc *d = &c->desc;
  const uint8_t size = rd_u8(r);
  d->width = 1u + rd_u8(r) % 24u;
  d->height = 1u + rd_u8(r) % 24u;
  if (size == 255) d->width = (1u << 24) + 1u;      /* too wide */
  if (size == 254) d->width = d->height = 1u << 15; /* too many cells */
  if (size == 253) d->height = 0;                   /* empty */
  const uint8_t h = rd_u8(r);
  d->cell_size = h < 240 ? (float)(1 + h % 8) * 0.25f : cs_fuzz_float(r);
  const uint8_t o = rd_u8(r);
  d->origin[0] = o < 240 ? (float)((int)(o % 9) - 4) : cs_fuzz_float(r);
  d->origin[1] = o < 240 ? (float)((int)(rd_u8(r) % 9) - 4) : cs_fuzz_float(r);
  const uint32_t w = d->width <= 24 ? d->width : 24,
                 ht = d->height <= 24 ? d->height : 24;
  if (rd_u8(r) % 3 == 0) {
    for (uint32_t k = 0; k < w * ht; k++) {
      const uint8_t v = rd_u8(r);
      c->cost[k] =
          v < 255 || rd_u8(r) < 192 ? 1.0f + (float)(v % 8) * 0.5f : cs_fuzz_float(r);
    }
    if (d->width <= 24 && d->height <= 24) d->cost = c->cost;
  }
  const uint8_t goal_count = rd_u8(r);
  const size_t goals = goal_count < 16 ? 0 : 1 + goal_count % 2; /* 0: none (GOAL) */
  for (size_t g = 0; g < 2; g++) {
    c->goal_x[g] = lattice(r, d->origin[0], d->cell_size, w);
    c->goal_y[g] = lattice(r, d->origin[1], d->cell_size, ht);
  }
  d->goal_x = c->goal_x;
  d->goal_y = c->goal_y;
  d->goal_point_count = goals;
  c->other = *d;
  c->other_x = lattice(r, d->origin[0], d->cell_size, w);
  c->other_y = lattice(r, d->origin[1], d->cell_size, ht);
  c->other.goal_x = &c->other_x;
  c->other.goal_y = &c->other_y;
  c->other.goal_point_count = 1;
  /* Obstacles: walls and triangles on the lattice (some self-crossing or
   * clockwise: refused by obstacles_add, then simply absent). */
  c->obstacle_count = rd_u8(r) % (MAX_OBSTACLES + 1);
  for (size_t k = 0; k < c->obstacle_count; k++) {
    c->obstacle_vertices[k] = 2 + rd_u8(r) % 3;
    for (size_t v = 0; v < c->obstacle_vertices[k]; v++) {
      c->ox[k][v] = lattice(r, d->origin[0], d->cell_size, w);
      c->oy[k][v] = lattice(r, d->origin[1], d->cell_size, ht);
    }
  }
  const uint8_t oc = rd_u8(r);
  c->obstacle_cell = oc < 250 ? (float)(1 + oc % 4) : cs_fuzz_float(r);
}

static void decode_crowd(reader *r, nav_case *c) {
  const crowdsteer_field_desc *d = &c->desc;
  const uint32_t w = d->width <= 24 ? d->width : 24,
                 ht = d->height <= 24 ? d->height : 24;
  c->dims = 2 + (rd_u8(r) % 4 == 0);
  c->behaviour = rd_u8(r) & 1; /* 0: follow the field, 1: follow a path */
  c->count = rd_u8(r) % (MAX_AGENTS + 1);
  for (size_t i = 0; i < c->count; i++) {
    c->a[0][i] = lattice(r, d->origin[0], d->cell_size, w);
    c->a[1][i] = lattice(r, d->origin[1], d->cell_size, ht);
    c->a[2][i] = (float)(int8_t)rd_u8(r) * 0.25f;
    for (int k = 3; k < 6; k++) {
      const uint8_t v = rd_u8(r);
      c->a[k][i] = v < 240 ? (float)(int8_t)v / 64.0f : cs_fuzz_float(r);
    }
    const uint8_t pick = rd_u8(r);
    c->field_index[i] = pick % 2u;
    c->path_index[i] = (pick >> 1) % 2u;
    c->direction[i] = pick & 4 ? 1.0f : -1.0f;
  }
  /* Sometimes one agent's choice is out of range, or its direction not +-1. */
  const uint8_t spoil = rd_u8(r);
  if (c->count && spoil < 32) {
    const size_t i = rd_u8(r) % c->count;
    c->field_index[i] = c->path_index[i] = 2u + rd_u8(r);
    c->direction[i] = spoil < 16 ? cs_fuzz_float(r) : c->direction[i];
  }
  c->field_follow.field_count = 2;
  c->field_follow.field = rd_u8(r) % 3; /* 2: out of range */
  c->field_follow.field_index = rd_u8(r) % 2 ? c->field_index : NULL;
  for (int p = 0; p < 2; p++) {
    crowdsteer_pathway_desc *pd = &c->path_desc[p];
    pd->dims = c->dims;
    pd->point_count = 2 + rd_u8(r) % (MAX_PATH_POINTS - 1);
    for (size_t k = 0; k < pd->point_count; k++) {
      c->px[p][k] = lattice(r, d->origin[0], d->cell_size, w);
      c->py[p][k] = lattice(r, d->origin[1], d->cell_size, ht);
      c->pz[p][k] = (float)(int8_t)rd_u8(r) * 0.25f;
    }
    pd->x = c->px[p];
    pd->y = c->py[p];
    pd->z = c->pz[p];
    const uint8_t radius = rd_u8(r);
    pd->radius = radius < 240 ? (float)(radius % 8) * 0.25f : cs_fuzz_float(r);
    pd->cyclic = rd_u8(r) & 1;
  }
  crowdsteer_path_follow *f = &c->path_follow;
  f->path_count = 2;
  f->path = rd_u8(r) % 3;
  f->path_per_agent = rd_u8(r) % 2 ? c->path_index : NULL;
  f->direction = (int)(rd_u8(r) % 3) - 1;
  f->direction_per_agent = rd_u8(r) % 2 ? c->direction : NULL;
  const uint8_t t = rd_u8(r);
  f->prediction_time = t < 240 ? (float)(t % 8) * 0.5f : cs_fuzz_float(r);
  const uint8_t l = rd_u8(r);
  f->lead_distance = l < 240 ? (float)(l % 8) * 0.5f : cs_fuzz_float(r);
  c->params.max_speed = cs_fuzz_param(r);
  c->params.time_to_target = cs_fuzz_param(r);
  c->accumulate = rd_u8(r) & 1;
  c->weight = (float)(int8_t)rd_u8(r) / 32.0f;
  c->host_mode = rd_u8(r) % CS_FUZZ_HOST_MODES;
  cs_fuzz_range(r, c->count, &c->begin, &c->end, &c->split);
}

static int fail(const char *what, const nav_case *c) {
  fprintf(stderr,
          "fuzz_navigation: %s (%s, %dD, %zu agents, range [%zu, %zu), field %u x %u)\n",
          what, c->behaviour ? "follow_path" : "follow_field", c->dims, c->count,
          c->begin, c->end, c->desc.width, c->desc.height);
  return 1;
}

/* Every cell's time and direction of a built field, as bits. */
typedef struct field_bits {
  uint32_t w, h;
  double time[24 * 24];
  float dx[24 * 24], dy[24 * 24];
  int blocked[24 * 24];
} field_bits;

static int read_field(const crowdsteer_field *f, uint32_t w, uint32_t h, field_bits *b) {
  b->w = w;
  b->h = h;
  for (uint32_t y = 0; y < h; y++)
    for (uint32_t x = 0; x < w; x++) {
      const uint32_t k = y * w + x;
      if (crowdsteer_field_time(f, x, y, &b->time[k]) != CROWDSTEER_OK ||
          crowdsteer_field_direction(f, x, y, &b->dx[k], &b->dy[k], &b->blocked[k]) !=
              CROWDSTEER_OK)
        return 0;
    }
  return 1;
}

static int same_field(const field_bits *a, const field_bits *b) {
  const size_t n = (size_t)a->w * a->h;
  return a->w == b->w && a->h == b->h &&
         memcmp(a->time, b->time, n * sizeof(double)) == 0 &&
         memcmp(a->dx, b->dx, n * sizeof(float)) == 0 &&
         memcmp(a->dy, b->dy, n * sizeof(float)) == 0 &&
         memcmp(a->blocked, b->blocked, n * sizeof(int)) == 0;
}

/* Property 2 on a built field. */
static int check_cells(const nav_case *c, const field_bits *b) {
  for (size_t k = 0; k < (size_t)b->w * b->h; k++) {
    const double len = sqrt((double)b->dx[k] * b->dx[k] + (double)b->dy[k] * b->dy[k]);
    if (len != 0.0 && fabs(len - 1.0) > 0x1p-12) return fail("direction not unit", c);
    if (b->time[k] == 0.0 && len != 0.0) return fail("goal cell with a direction", c);
    if (b->blocked[k] && b->time[k] != INFINITY)
      return fail("blocked cell with a time", c);
  }
  return 0;
}

/* Property 1; *built: fields[0] and fields[1] hold one desc's build
 * (fields[1] then rebuilt with other goals when that is accepted). */
static int check_fields(nav_case *c, crowdsteer_field *fields[2], int *built) {
  /* A known field first, so that a refused build has something to keep. */
  static const float centre[1] = {4.0f};
  const crowdsteer_field_desc known = {.origin = {0.0f, 0.0f},
                                       .cell_size = 1.0f,
                                       .width = 8,
                                       .height = 8,
                                       .goal_x = centre,
                                       .goal_y = centre,
                                       .goal_point_count = 1};
  static field_bits before, after, again;
  if (crowdsteer_field_build(fields[0], &known) != CROWDSTEER_OK ||
      !read_field(fields[0], 8, 8, &before))
    return fail("the known field", c);
  const crowdsteer_status status = crowdsteer_field_build(fields[0], &c->desc);
  *built = status == CROWDSTEER_OK;
  if (!*built) {
    cs_fuzz_navigation_counters.fields_refused++;
    if (!read_field(fields[0], 8, 8, &after) || !same_field(&before, &after))
      return fail("a refused build changed the field", c);
    return 0;
  }
  cs_fuzz_navigation_counters.fields_built++;
  const uint32_t w = c->desc.width, h = c->desc.height;
  if (w > 24 || h > 24) return fail("an out-of-range size was built", c);
  if (crowdsteer_field_build(fields[1], &c->desc) != CROWDSTEER_OK)
    return fail("the same build refused the second time", c);
  if (!read_field(fields[0], w, h, &before) || !read_field(fields[1], w, h, &after) ||
      !same_field(&before, &after))
    return fail("a build is not repeatable", c);
  int failed = check_cells(c, &before);
  if (crowdsteer_field_rebuild(fields[1], &c->other, 0, 0, w, h) == CROWDSTEER_OK) {
    crowdsteer_field *fresh;
    if (crowdsteer_field_create(&fresh) != CROWDSTEER_OK) return fail("field_create", c);
    if (crowdsteer_field_build(fresh, &c->other) != CROWDSTEER_OK ||
        !read_field(fresh, w, h, &again) || !read_field(fields[1], w, h, &after) ||
        !same_field(&again, &after))
      failed |= fail("a whole-grid rebuild differs from a build", c);
    crowdsteer_field_destroy(fresh);
  }
  return failed;
}

typedef struct outputs {
  float v[3][MAX_AGENTS + 1];
} outputs;

static void canary(outputs *o) {
  for (int k = 0; k < 3; k++)
    for (size_t i = 0; i <= MAX_AGENTS; i++)
      o->v[k][i] = (float)(int)(i * 3 + (size_t)k) * 0.25f;
}

static crowdsteer_status follow(nav_case *c, outputs *o, size_t begin, size_t end) {
  const crowdsteer_agents agents = {c->count, c->dims, c->a[0], c->a[1], c->a[2],
                                    c->a[3],  c->a[4], c->a[5], NULL};
  const crowdsteer_output out = {{o->v[0], o->v[1], o->v[2]},
                                 c->accumulate ? CROWDSTEER_ACCUMULATE
                                               : CROWDSTEER_OVERWRITE,
                                 c->weight,
                                 NULL};
  return c->behaviour ? crowdsteer_follow_path(&agents, &c->path_follow, &c->params, &out,
                                               begin, end)
                      : crowdsteer_follow_field(&agents, &c->field_follow, &c->params,
                                                &out, begin, end);
}

/* Property 3. */
static int check_follow(nav_case *c) {
  static outputs want, got, fresh;
  canary(&fresh);
  canary(&want);
  if (crowdsteer_force_isa(CROWDSTEER_ISA_SCALAR) != CROWDSTEER_OK) return 0;
  const crowdsteer_status status = follow(c, &want, c->begin, c->end);
  int failed = 0;
  for (int k = 0; k < 3; k++)
    for (size_t i = 0; i <= MAX_AGENTS; i++) {
      const int inside =
          status == CROWDSTEER_OK && k < c->dims && i >= c->begin && i < c->end;
      if (!inside && !cs_fuzz_same_bits(want.v[k][i], fresh.v[k][i]))
        failed |= fail(
            status == CROWDSTEER_OK ? "wrote outside its range" : "wrote on error", c);
    }
  if (status == CROWDSTEER_OK) {
    cs_fuzz_navigation_counters.calls_accepted++;
    canary(&got);
    if (follow(c, &got, c->begin, c->split) != CROWDSTEER_OK ||
        follow(c, &got, c->split, c->end) != CROWDSTEER_OK ||
        memcmp(&got, &want, sizeof got) != 0)
      failed |= fail("split calls differ from one call", c);
  }
  for (int isa = 0; isa < CROWDSTEER_ISA_COUNT; isa++) {
    if (isa == CROWDSTEER_ISA_SCALAR || !crowdsteer_isa_supported((crowdsteer_isa)isa))
      continue;
    crowdsteer_force_isa((crowdsteer_isa)isa);
    canary(&got);
    cs_fuzz_set_host_mode(c->host_mode);
    const crowdsteer_status st = follow(c, &got, c->begin, c->end);
    cs_fuzz_set_host_mode(0);
    if (st != status) failed |= fail("an ISA's status differs from the reference's", c);
    for (int k = 0; k < 3; k++)
      for (size_t i = 0; i <= MAX_AGENTS; i++)
        if (!cs_fuzz_same_bits(got.v[k][i], want.v[k][i]))
          return failed | fail("an ISA's bits differ from the reference's", c);
  }
  return failed;
}

int cs_fuzz_navigation(const uint8_t *data, size_t size, int isa_override) {
  (void)isa_override; /* every ISA is compared with the reference */
  reader r = {data, size, 0, 0x4E56ull + size};
  static nav_case c;
  memset(&c, 0, sizeof c);
  decode_field(&r, &c);
  decode_crowd(&r, &c);
  cs_fuzz_navigation_counters.cases++;
  const crowdsteer_isa active = crowdsteer_active_isa();
  crowdsteer_obstacles *obstacles = NULL;
  crowdsteer_field *fields[2] = {NULL, NULL};
  crowdsteer_pathway *paths[2] = {NULL, NULL};
  int failed = 0;
  if (c.obstacle_count) {
    if (crowdsteer_obstacles_create(&obstacles) != CROWDSTEER_OK)
      return fail("obstacles", &c);
    for (size_t k = 0; k < c.obstacle_count; k++)
      (void)crowdsteer_obstacles_add(obstacles, c.ox[k], c.oy[k], c.obstacle_vertices[k]);
    (void)crowdsteer_obstacles_build(obstacles, c.obstacle_cell); /* unbuilt: GRID */
    c.desc.obstacles = c.other.obstacles = obstacles;
  }
  int built = 0;
  if (crowdsteer_field_create(&fields[0]) != CROWDSTEER_OK ||
      crowdsteer_field_create(&fields[1]) != CROWDSTEER_OK) {
    failed |= fail("field_create", &c);
    goto done;
  }
  failed |= check_fields(&c, fields, &built);
  /* Refused: the known field (twice) is followed instead. */
  crowdsteer_field *followed[2] = {fields[0], built ? fields[1] : fields[0]};
  c.field_follow.fields = (const crowdsteer_field *const *)followed;
  for (int p = 0; p < 2; p++)
    if (crowdsteer_pathway_create(&paths[p], &c.path_desc[p]) != CROWDSTEER_OK)
      paths[p] = NULL;
  cs_fuzz_navigation_counters.paths_made += (paths[0] != NULL) + (paths[1] != NULL);
  c.path_follow.paths =
      paths[0] && paths[1] ? (const crowdsteer_pathway *const *)paths : NULL;
  if (!c.path_follow.paths) c.path_follow.path_count = 0; /* PARAMETER or NULL_POINTER */
  failed |= check_follow(&c);
done:
  crowdsteer_force_isa(active);
  for (int k = 0; k < 2; k++) {
    crowdsteer_field_destroy(fields[k]);
    crowdsteer_pathway_destroy(paths[k]);
  }
  crowdsteer_obstacles_destroy(obstacles);
  return failed;
}
