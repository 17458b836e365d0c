/* The avoidance fuzz case's world (fuzz_avoid_call.h): the crowd's arrays,
 * decoding bytes into obstacles, a crowd and an avoidance description (with
 * the obstacle adds checked against a brute-force oracle as they are made),
 * the documented faults of a call, the brute-force geometry the walls are
 * checked with, and running crowdsteer_avoid and crowdsteer_step. */
#include "fuzz_avoid_call.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "avoid/exact.h"

/* ---- a crowd: every per-agent array, `n` elements each (ASan sees a read
 * past them) ------------------------------------------------------------------ */

static float *floats(size_t n) { return (float *)calloc(n ? n : 1, sizeof(float)); }

void crowd_alloc(crowd *w, size_t n, int dims) {
  memset(w, 0, sizeof *w);
  w->n = n;
  w->dims = dims;
  for (int k = 0; k < 3; k++) {
    w->p[k] = floats(n);
    w->v[k] = floats(n);
    w->pref[k] = floats(n);
  }
  w->radius = floats(n);
  w->resp = floats(n);
  w->speed = floats(n);
  w->id = (uint32_t *)calloc(n ? n : 1, sizeof(uint32_t));
  w->group = (uint32_t *)calloc(n ? n : 1, sizeof(uint32_t));
}

void crowd_free(crowd *w) {
  for (int k = 0; k < 3; k++) {
    free(w->p[k]);
    free(w->v[k]);
    free(w->pref[k]);
  }
  free(w->radius);
  free(w->resp);
  free(w->speed);
  free(w->id);
  free(w->group);
}

/* The arrays of a crowd, in one list, for copies and comparisons. */
enum { CROWD_ARRAYS = 14 };
static void crowd_arrays(crowd *w, void *list[CROWD_ARRAYS]) {
  int n = 0;
  for (int k = 0; k < 3; k++) {
    list[n++] = w->p[k];
    list[n++] = w->v[k];
    list[n++] = w->pref[k];
  }
  list[n++] = w->radius, list[n++] = w->resp, list[n++] = w->speed;
  list[n++] = w->id, list[n++] = w->group;
}

/* dst (allocated like src) = src; with `reverse`, agent i of dst is agent
 * n - 1 - i of src, and dst has ids (src's, or its indices). */
void crowd_copy(crowd *dst, crowd *src, int reverse) {
  crowd_alloc(dst, src->n, src->dims);
  dst->has_id = src->has_id || reverse;
  void *from[CROWD_ARRAYS], *to[CROWD_ARRAYS];
  crowd_arrays(src, from);
  crowd_arrays(dst, to);
  const size_t n = src->n;
  for (int a = 0; a < CROWD_ARRAYS; a++)
    for (size_t i = 0; i < n; i++)
      memcpy((char *)to[a] + 4 * i, (char *)from[a] + 4 * (reverse ? n - 1 - i : i), 4);
  if (reverse && !src->has_id)
    for (size_t i = 0; i < n; i++)
      dst->id[i] = (uint32_t)(n - 1 - i);
}

/* Every array of x and y holds the same bytes. */
int crowd_same(crowd *x, crowd *y) {
  void *a[CROWD_ARRAYS], *b[CROWD_ARRAYS];
  crowd_arrays(x, a);
  crowd_arrays(y, b);
  for (int k = 0; k < CROWD_ARRAYS; k++)
    if (memcmp(a[k], b[k], 4 * (x->n ? x->n : 1)) != 0) return 0;
  return 1;
}

crowdsteer_agents agents_of(const crowd *w) {
  const int d3 = w->dims == 3;
  return (crowdsteer_agents){w->n,
                             w->dims,
                             w->p[0],
                             w->p[1],
                             d3 ? w->p[2] : NULL,
                             w->v[0],
                             w->v[1],
                             d3 ? w->v[2] : NULL,
                             w->has_id ? w->id : NULL};
}

/* ---- the case ------------------------------------------------------------------ */

int failf(const av_case *c, const char *what) {
  fprintf(stderr,
          "fuzz_avoid: %s (%dD, %zu agents, range [%zu, %zu), %zu edges, neighbours %d, "
          "isa %s)\n",
          what, c->w.dims, c->w.n, c->begin, c->end, c->edges, c->nb_mode,
          crowdsteer_isa_name(crowdsteer_active_isa()));
  return 1;
}

/* A lattice coordinate: -8 .. 8 units, so coincident agents, agents on
 * edges and vertices, and edges meeting at vertices are common. */
static float lattice(reader *r, float unit) {
  return (float)((int)(rd_u8(r) % 17) - 8) * unit;
}

static float value(reader *r, float unit) {
  return rd_u8(r) < 232 ? lattice(r, unit) : cs_fuzz_float(r);
}

/* ---- obstacles ----------------------------------------------------------------- */

/* Counter-clockwise shapes (but the flat, crossed and touching ones) on
 * small integer coordinates; x then y, n vertices. */
typedef struct shape {
  int n;
  float x[MAX_VERTICES], y[MAX_VERTICES];
} shape;
static const shape shapes[] = {
    {3, {0, 2, 1}, {0, 0, 2}},                                /* triangle */
    {8, {1, 2, 3, 3, 2, 1, 0, 0}, {0, 0, 1, 2, 3, 3, 2, 1}},  /* octagon */
    {6, {0, 3, 3, 1, 1, 0}, {0, 0, 1, 1, 3, 3}},              /* L */
    {8, {0, 3, 3, 2, 2, 1, 1, 0}, {0, 0, 3, 3, 1, 1, 3, 3}},  /* U */
    {3, {0, 4, 0}, {0, 0, 1}},                                /* a thin spike */
    {5, {0, 1, 2, 2, 0}, {0, 0, 0, 2, 2}},                    /* a straight vertex */
    {3, {0, 1, 2}, {0, 0, 0}},                                /* flat: GEOMETRY */
    {4, {0, 2, 2, 0}, {0, 2, 0, 2}},                          /* crossed: GEOMETRY */
    {5, {0, 4, 4, 2, 0}, {0, 0, 2, 0, 2}},                    /* touches: GEOMETRY */
    {6, {0, 2, 2, 1, 1, 0}, {0, 0, 2, 2, 0.5f, 2}},           /* a notch */
    {4, {0, 1, 1, 0}, {0, 0, 1, 1}},                          /* square */
    {7, {0, 2, 2, 1, 0.5f, 0.5f, 0}, {0, 0, 2, 1, 2, 1, 1}}}; /* concave */
enum { SHAPES = sizeof shapes / sizeof shapes[0] };

/* The status obstacles_add must return, from its documented checks in
 * their order; GEOMETRY by testing every pair of edges (exact). */
static crowdsteer_status expected_add(const float *x, const float *y, size_t n, int null,
                                      int misaligned) {
  if (null) return CROWDSTEER_ERROR_NULL_POINTER;
  if (misaligned) return CROWDSTEER_ERROR_ALIGNMENT;
  if (n < 2) return CROWDSTEER_ERROR_PARAMETER;
  for (size_t k = 0; k < n; k++)
    if (!isfinite(x[k]) || !isfinite(y[k])) return CROWDSTEER_ERROR_PARAMETER;
  for (size_t k = 0; k < n; k++)
    if (x[k] == x[(k + 1) % n] && y[k] == y[(k + 1) % n])
      return CROWDSTEER_ERROR_GEOMETRY;
  if (n == 2) return CROWDSTEER_OK;
  size_t low = 0; /* counter-clockwise: a left turn at the lowest vertex */
  for (size_t k = 1; k < n; k++)
    if (y[k] < y[low] || (y[k] == y[low] && x[k] < x[low])) low = k;
  const size_t before = (low + n - 1) % n, after = (low + 1) % n;
  const float a[2] = {x[before], y[before]}, b[2] = {x[low], y[low]},
              d[2] = {x[after], y[after]};
  if (cs_orient(a, b, d) <= 0) return CROWDSTEER_ERROR_GEOMETRY;
  for (size_t e = 0; e < n; e++)
    for (size_t f = e + 1; f < n; f++) {
      const float p0[2] = {x[e], y[e]}, p1[2] = {x[(e + 1) % n], y[(e + 1) % n]};
      const float q0[2] = {x[f], y[f]}, q1[2] = {x[(f + 1) % n], y[(f + 1) % n]};
      int clash;
      if ((e + 1) % n == f) /* p0 -> p1 = q0 -> q1: folds back onto itself */
        clash = cs_orient(p0, p1, q1) == 0 && cs_dot_sign(p1, p0, p1, q1) > 0;
      else if ((f + 1) % n == e) /* q0 -> q1 = p0 -> p1 */
        clash = cs_orient(q0, q1, p1) == 0 && cs_dot_sign(q1, q0, q1, p1) > 0;
      else
        clash = cs_segments_touch(p0, p1, q0, q1);
      if (clash) return CROWDSTEER_ERROR_GEOMETRY;
    }
  return CROWDSTEER_OK;
}

static void keep_obstacle(av_case *c, const float *x, const float *y, size_t n) {
  for (size_t k = 0; k < n && c->edges < MAX_EDGES; k++) {
    const size_t f = (k + 1) % n;
    c->edge[c->edges][0] = x[k], c->edge[c->edges][1] = y[k];
    c->edge[c->edges][2] = x[f], c->edge[c->edges][3] = y[f];
    c->edges++;
    if (n == 2) break; /* a wall: both ways, once */
  }
  if (n == 2) {
    c->edge[c->edges][0] = x[1], c->edge[c->edges][1] = y[1];
    c->edge[c->edges][2] = x[0], c->edge[c->edges][3] = y[0];
    c->edges++;
    return;
  }
  memcpy(c->loop_x[c->loops], x, n * sizeof(float));
  memcpy(c->loop_y[c->loops], y, n * sizeof(float));
  c->loop_n[c->loops++] = n;
}

static int sane(float x);

/* A coordinate off the lattice: a lattice value times 2^0 .. 2^23 mostly,
 * else any float (NaN and infinities: PARAMETER; huge and tiny ones). Huge
 * ones are kept rare: a set spanning 1e30 with short edges builds a grid
 * of 2^22 cells, which costs seconds under ASan. */
static float raw_coordinate(reader *r, float unit) {
  const uint8_t how = rd_u8(r);
  if (how < 64) return cs_fuzz_float(r);
  return lattice(r, unit) * (float)(1u << how % 24) + (float)(how & 1) * unit * 0.5f;
}

/* One obstacles_add from the bytes, checked against expected_add. */
static int add_obstacle(reader *r, av_case *c) {
  float x[MAX_VERTICES + 1], y[MAX_VERTICES + 1];
  size_t n = 0;
  int null = 0, misaligned = 0;
  const float u = c->unit;
  /* Forms: walls, rectangles (one in three clockwise), shapes, shapes
   * changed a little, lattice points, a wall with raw coordinates, too few
   * vertices, a NULL or misaligned pointer. */
  static const uint8_t forms[16] = {0, 0, 0, 1, 1, 2, 3, 3, 3, 4, 4, 5, 5, 6, 7, 8};
  const uint8_t form = forms[rd_u8(r) % 16];
  const float ox = lattice(r, u), oy = lattice(r, u);
  const float s = (float)(1 + rd_u8(r) % 3) * u;
  if (form == 0 || form == 6) { /* a wall; raw coordinates in form 6 */
    n = 2;
    for (int k = 0; k < 2; k++) {
      x[k] = form == 6 && rd_u8(r) < 96 ? raw_coordinate(r, u) : lattice(r, u);
      y[k] = form == 6 && rd_u8(r) < 96 ? raw_coordinate(r, u) : lattice(r, u);
    }
  } else if (form <= 2) { /* a rectangle; clockwise (GEOMETRY) in form 2 */
    const float w = (float)(1 + rd_u8(r) % 4) * s, h = (float)(1 + rd_u8(r) % 4) * s;
    const float rx[4] = {ox, ox + w, ox + w, ox}, ry[4] = {oy, oy, oy + h, oy + h};
    n = 4;
    for (int k = 0; k < 4; k++) {
      x[k] = rx[form == 2 ? 3 - k : k];
      y[k] = ry[form == 2 ? 3 - k : k];
    }
  } else if (form <= 4) { /* a shape; form 4 changes it a little */
    const shape *sh = &shapes[rd_u8(r) % SHAPES];
    n = (size_t)sh->n;
    for (size_t k = 0; k < n; k++) {
      x[k] = ox + sh->x[k] * s;
      y[k] = oy + sh->y[k] * s;
    }
    if (form == 4) {
      const uint8_t how = rd_u8(r);
      const size_t k = rd_u8(r) % n;
      float *coord = how & 1 ? &y[k] : &x[k];
      if (how % 4 < 2) { /* an ulp either way: exactness */
        *coord = nextafterf(*coord, how & 2 ? INFINITY : -INFINITY);
      } else if (how % 4 == 2) {
        *coord = raw_coordinate(r, u);
      } else { /* a vertex repeated: a zero-length edge */
        memmove(&x[k + 1], &x[k], (n - k) * sizeof(float));
        memmove(&y[k + 1], &y[k], (n - k) * sizeof(float));
        n++;
      }
    }
  } else if (form == 5) { /* lattice points: often crossed or flat */
    n = 3 + rd_u8(r) % (MAX_VERTICES - 2);
    for (size_t k = 0; k < n; k++) {
      x[k] = ox + lattice(r, u);
      y[k] = oy + lattice(r, u);
    }
  } else if (form == 7) { /* too few vertices */
    n = rd_u8(r) % 2;
    x[0] = ox, y[0] = oy;
  } else { /* a valid square through a NULL or misaligned pointer */
    const float rx[4] = {ox, ox + s, ox + s, ox}, ry[4] = {oy, oy, oy + s, oy + s};
    n = 4;
    memcpy(x, rx, sizeof rx);
    memcpy(y, ry, sizeof ry);
    null = rd_u8(r) % 2;
    misaligned = !null;
  }
  const crowdsteer_status want = expected_add(x, y, n, null, misaligned);
  const size_t edges_before = crowdsteer_obstacles_edge_count(c->obstacles);
  crowdsteer_status got;
  if (misaligned) {
    static char raw[2][sizeof x + 8];
    memcpy(raw[0] + 2, x, n * sizeof(float));
    memcpy(raw[1] + 2, y, n * sizeof(float));
    got = crowdsteer_obstacles_add(c->obstacles, (const float *)(void *)(raw[0] + 2),
                                   (const float *)(void *)(raw[1] + 2), n);
  } else {
    got = crowdsteer_obstacles_add(c->obstacles, null ? NULL : x, y, n);
  }
  cs_fuzz_avoid_counters.adds++;
  const size_t edges_after = crowdsteer_obstacles_edge_count(c->obstacles);
  int failed = 0;
  if (got != want) {
    failed = failf(c, "obstacles_add status");
    fprintf(stderr, "  form %d, %zu vertices: got %d, expected %d\n", form, n, (int)got,
            (int)want);
    for (size_t k = 0; k < n; k++)
      fprintf(stderr, "  (%a, %a)\n", (double)x[k], (double)y[k]);
  }
  if (got != CROWDSTEER_OK && edges_after != edges_before)
    failed |= failf(c, "a refused obstacles_add changed edge_count");
  if (got == CROWDSTEER_OK) {
    cs_fuzz_avoid_counters.adds_accepted++;
    if (edges_after != edges_before + n) failed |= failf(c, "edge_count after an add");
    keep_obstacle(c, x, y, n);
    for (size_t k = 0; k < n; k++)
      c->obstacles_sane &= sane(x[k]) && sane(y[k]);
  }
  return failed;
}

/* Strictly inside a polygon: a crossing count per loop, exact; a point on
 * an edge is outside that loop. */
int brute_inside(const av_case *c, const float p[2]) {
  for (size_t l = 0; l < c->loops; l++) {
    const size_t n = c->loop_n[l];
    int odd = 0, boundary = 0;
    for (size_t k = 0; k < n && !boundary; k++) {
      const float a[2] = {c->loop_x[l][k], c->loop_y[l][k]};
      const float b[2] = {c->loop_x[l][(k + 1) % n], c->loop_y[l][(k + 1) % n]};
      const int side = cs_orient(a, b, p);
      if (side == 0 && cs_dot_sign(p, a, p, b) <= 0) boundary = 1;
      const int up = a[1] <= p[1] && b[1] > p[1], down = b[1] <= p[1] && a[1] > p[1];
      if ((up && side > 0) || (down && side < 0)) odd ^= 1;
    }
    if (odd && !boundary) return 1;
  }
  return 0;
}

/* The move p -> q crosses a directed edge a -> b: it touches the edge and
 * its ends lie on different sides (on the line counts as right: outside). */
int brute_crosses(const av_case *c, const float p[2], const float q[2]) {
  for (size_t e = 0; e < c->edges; e++) {
    const float a[2] = {c->edge[e][0], c->edge[e][1]},
                b[2] = {c->edge[e][2], c->edge[e][3]};
    if ((cs_orient(a, b, p) > 0) != (cs_orient(a, b, q) > 0) &&
        cs_segments_touch(p, q, a, b))
      return 1;
  }
  return 0;
}

/* ---- sane inputs ----------------------------------------------------------------
 * Zero or a magnitude in [2^-10, 2^13]. Then every difference of two such
 * values is 0 or at least 2^-33 (an ulp of 2^-10), every product of three
 * differences or their squares lies in [2^-100, 2^45], quotients by a time
 * horizon or dt (themselves sane and at least 2^-6) at most 2^51: nothing
 * the ORCA constructions compute comes near overflow or underflow, and the
 * solver's divisions are guarded by CS_ORCA_EPSILON. A non-finite result
 * from sane inputs is then the library's fault, not the float range's. */
static int sane(float x) {
  const float m = fabsf(x);
  return x == 0.0f || (m >= 0x1p-10f && m <= 0x1p13f);
}

static int sane_time(float t) { return t == 0.0f || (t >= 0x1p-6f && t <= 0x1p13f); }

int case_sane(const av_case *c) {
  const crowd *w = &c->w;
  if (!c->obstacles_sane) return 0;
  for (size_t i = 0; i < w->n; i++) {
    for (int k = 0; k < w->dims; k++)
      if (!sane(w->p[k][i]) || !sane(w->v[k][i]) || !sane(w->pref[k][i])) return 0;
    if ((c->radius_pa && !sane(w->radius[i])) || (c->speed_pa && !sane(w->speed[i])))
      return 0;
  }
  return sane_time(c->av.time_horizon) && sane_time(c->av.obstacle_time_horizon) &&
         sane_time(c->params.dt) && sane(c->av.radius) && sane(c->params.max_speed);
}

/* ---- decoding -------------------------------------------------------------------- */

static float pick(reader *r, const float *table, int n) {
  const uint8_t sel = rd_u8(r);
  return sel < 232 ? table[sel % n] : cs_fuzz_float(r);
}

/* The obstacle set: adds checked one by one, then builds. */
static int decode_obstacles(reader *r, av_case *c) {
  int failed = 0;
  c->obstacles_sane = 1;
  if (crowdsteer_obstacles_create(&c->obstacles) != CROWDSTEER_OK) abort();
  const int count = rd_u8(r) % (MAX_OBSTACLES + 1);
  for (int k = 0; k < count; k++)
    failed |= add_obstacle(r, c);
  c->obstacles_on = rd_u8(r) % 4 != 0;
  /* Not built, an automatic cell, a lattice one, any float, or a refused
   * build before an automatic one. */
  const uint8_t how = rd_u8(r) % 8;
  float cells[2] = {0.0f, 0.0f};
  int builds = how == 0 ? 0 : how == 7 ? 2 : 1;
  if (how >= 4 && how <= 5) cells[0] = (float)(1 + rd_u8(r) % 8) * c->unit;
  if (how == 6 || how == 7) cells[0] = cs_fuzz_float(r);
  /* A cell far below the lattice's makes the grid its 2^22 cells at most:
   * slow, so only now and then. */
  if (cells[0] > 0.0f && cells[0] < c->unit / 64.0f && rd_u8(r) % 16) cells[0] = c->unit;
  for (int b = 0; b < builds; b++) {
    const crowdsteer_status st = crowdsteer_obstacles_build(c->obstacles, cells[b]);
    const int valid = cells[b] >= 0.0f && cells[b] <= FLT_MAX;
    if (st != (valid ? CROWDSTEER_OK : CROWDSTEER_ERROR_PARAMETER))
      failed |= failf(c, "obstacles_build status");
    c->built |= st == CROWDSTEER_OK;
  }
  return failed;
}

int decode(reader *r, av_case *c) {
  static const float units[] = {0.125f, 0.25f, 0.5f, 1.0f, 2.0f};
  static const float horizons[] = {0.0f, 0.25f, 0.5f, 1.0f, 2.0f, 4.0f, 8.0f, 0.0f};
  static const float shares[] = {0.0f, 0.25f, 0.5f, 1.0f, 0.0f, 0.75f};
  static const float speeds[] = {0.0f, 0.5f, 1.0f, 2.0f, 4.0f, 0.25f};
  static const float dts[] = {0.0f, 0.1f, 0.25f, 0.5f, 1.0f, 2.0f};
  static const float forces[] = {0.0f, 1.0f, 4.0f, 0.5f};
  static const size_t tiles[] = {0, 1, 2, 3, 7, 64, 4096, 5};
  c->isa = rd_u8(r) % CROWDSTEER_ISA_COUNT;
  const uint8_t mode = rd_u8(r);
  c->host_mode = mode < 192 ? 0 : mode % CS_FUZZ_HOST_MODES;
  const int dims = rd_u8(r) % 4 == 3 ? 3 : 2;
  const uint8_t size = rd_u8(r);
  /* Mostly small crowds; 65 .. 200 agents for the top 32 values. */
  const size_t n = size < 128   ? size % 17
                   : size < 224 ? size % 65
                                : 65u + (size_t)(size - 224) * (MAX_AGENTS - 65) / 31;
  c->unit = units[rd_u8(r) % 5];
  crowd_alloc(&c->w, n, dims);
  const int failed = decode_obstacles(r, c);
  /* The avoidance description, every field valid or not. */
  const uint8_t radius = rd_u8(r);
  c->av.radius = radius < 64    ? 0.0f
                 : radius < 232 ? (float)(radius % 5) * 0.5f * c->unit
                                : cs_fuzz_float(r);
  c->radius_pa = rd_u8(r) % 4 == 0;
  c->av.time_horizon = pick(r, horizons, 8);
  c->av.obstacle_time_horizon = pick(r, horizons, 8);
  c->av.responsibility = pick(r, shares, 6);
  c->resp_pa = rd_u8(r) % 4 == 0;
  c->report_on = rd_u8(r) % 3 != 0;
  c->nb_mode = rd_u8(r) % 3;
  const uint8_t nb_radius = rd_u8(r);
  c->nb.radius = nb_radius < 64    ? 0.0f
                 : nb_radius < 232 ? (float)(1 + nb_radius % 8) * 0.5f * c->unit
                                   : cs_fuzz_float(r);
  const uint8_t cap = rd_u8(r);
  c->nb.max_neighbours = cap % 4 == 0 ? cap / 4 % 6 : cap % 4 == 1 ? 33u + cap / 4 : 0;
  if (rd_u8(r) % 5 == 0) {
    c->nb.field_of_view = 1;
    c->nb.cos_field_of_view = (float)(int8_t)rd_u8(r) / 100.0f; /* beyond [-1, 1] too */
  }
  const uint8_t mask = rd_u8(r);
  if (mask % 4 == 1 || mask % 4 == 2) c->nb.neighbour_mask = 1u + mask / 4 % 3;
  c->groups = mask % 4 == 1 || (mask % 4 == 3 && mask & 4); /* 2: a mask, no groups */
  c->gd.cell_size = (float)(1 + rd_u8(r) % 8) * 0.5f * c->unit;
  c->gd.positions_only = rd_u8(r) % 8 == 0;
  c->gd.threads = 1;
  c->params.max_speed = pick(r, speeds, 6);
  c->speed_pa = rd_u8(r) % 4 == 0;
  c->params.dt = pick(r, dts, 6);
  c->params.max_force = forces[rd_u8(r) % 4];
  /* The step. */
  for (int k = 0; k < 3; k++)
    c->target[k] = lattice(r, c->unit);
  const uint8_t how = rd_u8(r);
  c->threads = 1 + how % 2;
  c->in_place = how / 2 % 2;
  c->workspace = how / 4 % 2;
  c->tile = tiles[how / 8 % 8];
  cs_fuzz_range(r, n, &c->begin, &c->end, &c->split);
  /* The agents last: lattice values mostly, some copied from an earlier
   * agent (coincident), some raw floats. */
  crowd *w = &c->w;
  for (size_t i = 0; i < n; i++) {
    const uint8_t same = rd_u8(r);
    for (int k = 0; k < dims; k++) {
      w->p[k][i] = value(r, c->unit);
      if (i && same < 48) w->p[k][i] = w->p[k][i - 1 - same % (i < 4 ? i : 4)];
      w->v[k][i] = value(r, 0.5f);
      w->pref[k][i] = value(r, 0.5f);
    }
    const uint8_t per = rd_u8(r);
    w->radius[i] = per < 248 ? (float)(per % 5) * 0.25f * c->unit : cs_fuzz_float(r);
    w->resp[i] = per % 7 != 6 ? shares[per % 6] : cs_fuzz_float(r);
    w->speed[i] = per % 11 != 10 ? speeds[per % 6] : cs_fuzz_float(r);
    w->group[i] = per % 4;
  }
  c->id_mode = rd_u8(r) % 3;
  w->has_id = c->id_mode != 0;
  const uint32_t salt = rd_u32(r);
  for (size_t i = 0; i < n; i++)
    w->id[i] = c->id_mode == 2 ? (uint32_t)(i % 4u) : (uint32_t)i * 0x9E3779B1u ^ salt;
  return failed;
}

/* ---- the oracle: the documented faults of a call --------------------------------
 * From include/crowdsteer_avoid.h and docs/behaviours.md ("Inputs and
 * validation"), not from src/avoid: OK exactly when this is empty, else
 * one of these statuses. */

static int within(float x, float lo, float hi) { return x >= lo && x <= hi; }

static int all_within(const float *a, size_t first, size_t last, float lo, float hi) {
  for (size_t i = first; i < last; i++)
    if (!within(a[i], lo, hi)) return 0;
  return 1;
}

unsigned avoid_faults(const av_case *c, int step) {
  const crowd *w = &c->w;
  unsigned f = 0;
  const int range_ok = c->begin <= c->end && c->end <= w->n;
  const int any = range_ok && c->begin < c->end;
  if (!range_ok) f |= ERR(CROWDSTEER_ERROR_RANGE);
  if (w->dims == 3 && c->obstacles_on) f |= ERR(CROWDSTEER_ERROR_DIMS);
  const size_t begin = range_ok ? c->begin : 0, end = range_ok ? c->end : 0;
  /* A neighbour's radius and responsibility are read too. */
  const size_t first = c->nb_mode && any ? 0 : begin,
               last = c->nb_mode && any ? w->n : end;
  const float share = c->av.responsibility == 0.0f ? 0.5f : c->av.responsibility;
  const float speed = c->params.max_speed == 0.0f ? 1.0f : c->params.max_speed;
  int ok = c->radius_pa ? all_within(w->radius, first, last, 0.0f, FLT_MAX)
                        : within(c->av.radius, 0.0f, FLT_MAX);
  ok &= c->resp_pa ? all_within(w->resp, first, last, 0.0f, 1.0f) : within(share, 0, 1);
  ok &= c->speed_pa ? all_within(w->speed, begin, end, 0.0f, FLT_MAX)
                    : within(speed, 0.0f, FLT_MAX);
  const float tau = c->av.time_horizon == 0.0f ? 1.0f : c->av.time_horizon;
  const float tau_o =
      c->av.obstacle_time_horizon == 0.0f ? tau : c->av.obstacle_time_horizon;
  const float dt = c->params.dt == 0.0f ? 1.0f : c->params.dt;
  ok &= positive(tau) && finite(tau) && positive(tau_o) && finite(tau_o) &&
        positive(dt) && finite(dt);
  if (c->nb_mode) {
    const int grid = c->nb_mode == 2;
    const float radius = c->nb.radius == 0.0f && grid ? c->gd.cell_size : c->nb.radius;
    ok &= within(radius, 0x1p-60f, grid ? c->gd.cell_size : FLT_MAX);
    ok &= !c->nb.field_of_view || within(c->nb.cos_field_of_view, -1.0f, 1.0f);
    ok &= !c->nb.neighbour_mask || c->groups;
    ok &= !(grid && c->gd.positions_only); /* avoidance reads velocities */
    /* A step reads other agents from a grid only. */
    if (step && !grid) f |= ERR(CROWDSTEER_ERROR_NULL_POINTER);
  }
  if (!ok) f |= ERR(CROWDSTEER_ERROR_PARAMETER);
  if (c->obstacles_on && !c->built) f |= ERR(CROWDSTEER_ERROR_GRID);
  return f;
}

int status_allowed(unsigned faults, crowdsteer_status st) {
  return st == CROWDSTEER_OK ? faults == 0 : (faults >> st) & 1u;
}

/* ---- calls ----------------------------------------------------------------------- */

void out_alloc(outputs *o, size_t n) {
  o->n = n;
  for (int k = 0; k < 3; k++) {
    o->v[k] = floats(n);
    for (size_t i = 0; i < n; i++)
      o->v[k][i] = 1000.0f + (float)(3 * i + (size_t)k) * 0.5f;
  }
  o->report = (uint32_t *)calloc(n ? n : 1, sizeof(uint32_t));
  for (size_t i = 0; i < n; i++)
    o->report[i] = 0xC0DE0000u + (uint32_t)i;
}

void out_free(outputs *o) {
  for (int k = 0; k < 3; k++)
    free(o->v[k]);
  free(o->report);
}

/* x and y agree on agents [first, last): velocities of `dims` axes (any
 * two NaNs agree: payloads are unspecified) and reports. */
int out_same(const outputs *x, const outputs *y, int dims, size_t first, size_t last) {
  for (size_t i = first; i < last; i++) {
    for (int k = 0; k < dims; k++)
      if (!cs_fuzz_same_bits(x->v[k][i], y->v[k][i])) return 0;
    if (x->report[i] != y->report[i]) return 0;
  }
  return 1;
}

crowdsteer_neighbours neighbours_for(const av_case *c, crowd *w,
                                     const crowdsteer_grid *grid) {
  crowdsteer_neighbours nb = c->nb;
  nb.grid = grid;
  nb.group = !grid && c->groups ? w->group : NULL;
  return nb;
}

static crowdsteer_avoidance avoidance_for(const av_case *c, crowd *w,
                                          const crowdsteer_neighbours *nb,
                                          uint32_t *report) {
  crowdsteer_avoidance av = c->av;
  av.radius_per_agent = c->radius_pa ? w->radius : NULL;
  av.responsibility_per_agent = c->resp_pa ? w->resp : NULL;
  av.neighbours = c->nb_mode ? nb : NULL;
  av.obstacles = c->obstacles_on ? c->obstacles : NULL;
  av.report = report;
  return av;
}

static crowdsteer_params params_for(const av_case *c, crowd *w) {
  crowdsteer_params params = c->params;
  params.max_speed_per_agent = c->speed_pa ? w->speed : NULL;
  return params;
}

/* crowdsteer_avoid on crowd w with neighbours `nb` (NULL: as decoded, with
 * no grid); in place, the output starts as the preferred velocities and
 * is passed as both. */
crowdsteer_status avoid_call(const av_case *c, crowd *w, const crowdsteer_neighbours *nb,
                             int in_place, int report, outputs *o, size_t begin,
                             size_t end) {
  const crowdsteer_agents agents = agents_of(w);
  const crowdsteer_neighbours plain = neighbours_for(c, w, NULL);
  const crowdsteer_avoidance av =
      avoidance_for(c, w, nb ? nb : &plain, report ? o->report : NULL);
  const crowdsteer_params params = params_for(c, w);
  crowdsteer_vectors pref = {w->pref[0], w->pref[1], w->pref[2]};
  const crowdsteer_vectors vel = {o->v[0], o->v[1], o->v[2]};
  if (in_place) {
    for (int k = 0; k < 3; k++)
      memcpy(o->v[k], w->pref[k], w->n * sizeof(float));
    pref = vel;
  }
  return crowdsteer_avoid(&agents, &av, &params, &pref, &vel, begin, end);
}

crowdsteer_grid *grid_of(const av_case *c, crowd *w, float cell, int positions_only) {
  crowdsteer_grid *grid;
  if (crowdsteer_grid_create(&grid) != CROWDSTEER_OK) abort();
  crowdsteer_grid_desc gd = c->gd;
  gd.cell_size = cell;
  gd.positions_only = positions_only;
  gd.group = c->groups ? w->group : NULL;
  const crowdsteer_agents agents = agents_of(w);
  if (crowdsteer_grid_build(grid, &agents, &gd) != CROWDSTEER_OK) {
    crowdsteer_grid_destroy(grid);
    return NULL;
  }
  return grid;
}

/* One step: seek a point, then avoidance (or not, `avoid` 0); `out` NULL
 * steps in place. */
crowdsteer_status step_call(const av_case *c, crowd *w, crowd *out,
                            const crowdsteer_grid *grid, int threads, size_t tile,
                            int workspace, uint32_t *report, int avoid) {
  static crowdsteer_workspace *kept; /* for the whole run: old memory must not leak */
  if (!kept && crowdsteer_workspace_create(&kept) != CROWDSTEER_OK) abort();
  const crowdsteer_agents agents = agents_of(w);
  crowdsteer_agents output;
  crowdsteer_step_behaviour seek;
  memset(&seek, 0, sizeof seek);
  seek.behaviour = CROWDSTEER_SEEK;
  seek.target.kind = CROWDSTEER_TARGET_POINT;
  memcpy(seek.target.point, c->target, sizeof c->target);
  const crowdsteer_neighbours nb = neighbours_for(c, w, grid);
  const crowdsteer_avoidance av = avoidance_for(c, w, &nb, report);
  crowdsteer_step_desc step;
  memset(&step, 0, sizeof step);
  step.behaviours = &seek;
  step.behaviour_count = 1;
  step.integrator = params_for(c, w);
  step.threads = threads;
  step.tile_size = tile;
  step.workspace = workspace ? kept : NULL;
  if (out) {
    output = agents_of(out);
    step.output = &output;
  }
  if (avoid) step.avoidance = &av;
  return crowdsteer_step(&agents, &step, c->begin, c->end);
}
