/* Neighbour queries (crowdsteer_query.h) against a brute force written
 * here from the rules: random crowds (coincident agents, agents at rest, a
 * dense cluster, equal distances), every option (radius, per-agent radii,
 * groups, field of view, inner radius, cap), 2D and 3D, with grids of
 * several cell and table sizes, without one, and over split ranges: the
 * same counts, indices and squared distances. Also a binding cap, and
 * validation (nothing written on error). */
#include "../common/neighbour_crowd.h"

enum { MAX_AGENTS = 400, K = 5 };

static float per_agent_radius[MAX_AGENTS];

static crowdsteer_neighbours make_query(const crowd *c, const nb_options *o) {
  return nb_options_query(c, o, per_agent_radius);
}

/* The rules, in float as the library computes them. */
static int sees(const crowd *c, const crowdsteer_neighbours *nb, size_t i, size_t q,
                float *dd_out) {
  const int dims = c->dims;
  if (q == i) return 0;
  float d[3] = {0, 0, 0}, dd = 0.0f, vv = 0.0f;
  for (int k = 0; k < dims; k++) {
    d[k] = c->a[k][i] - c->a[k][q];
    dd = k == 0 ? d[k] * d[k] : dd + d[k] * d[k];
    vv = k == 0 ? c->a[3][i] * c->a[3][i] : vv + c->a[3 + k][i] * c->a[3 + k][i];
  }
  const float dist = sqrtf(dd);
  const float radius = nb->radius_per_agent ? nb->radius_per_agent[i] : nb->radius;
  if (!(dist < radius)) return 0;
  if (nb->neighbour_mask && !(c->group[q] & nb->neighbour_mask)) return 0;
  const float speed = sqrtf(vv);
  if (nb->field_of_view && speed > 0.0f && dist > 0.0f && !(dist < nb->inner_radius)) {
    float view = 0.0f;
    for (int k = 0; k < dims; k++) {
      const float term = (c->a[3 + k][i] / speed) * (-d[k] / dist);
      view = k == 0 ? term : view + term;
    }
    if (!(view >= nb->cos_field_of_view)) return 0;
  }
  *dd_out = dd;
  return 1;
}

typedef struct entry {
  float dist, dd;
  uint32_t q;
} entry;

static int by_key(const void *x, const void *y) {
  const entry *a = x, *b = y;
  if (a->dist != b->dist) return a->dist < b->dist ? -1 : 1;
  return a->q < b->q ? -1 : 1;
}

/* Agent i's sorted, capped neighbour list; returns its length. */
static uint32_t brute(const crowd *c, const crowdsteer_neighbours *nb, size_t i,
                      entry *list) {
  uint32_t n = 0;
  for (size_t q = 0; q < c->count; q++) {
    float dd;
    if (!sees(c, nb, i, q, &dd)) continue;
    list[n].dist = sqrtf(dd);
    list[n].dd = dd;
    list[n++].q = (uint32_t)q;
  }
  qsort(list, n, sizeof *list, by_key);
  const uint32_t cap =
      nb->max_neighbours ? nb->max_neighbours : CROWDSTEER_MAX_NEIGHBOURS;
  return n < cap ? n : cap;
}

static uint32_t counts[MAX_AGENTS], found[MAX_AGENTS], indices[MAX_AGENTS * K];
static float dds[MAX_AGENTS * K];

static void query(const crowd *c, const crowdsteer_neighbours *nb, size_t begin,
                  size_t end) {
  CHECK_STATUS(crowdsteer_neighbour_count(&c->agents, nb, counts, begin, end),
               CROWDSTEER_OK);
  CHECK_STATUS(
      crowdsteer_neighbour_nearest(&c->agents, nb, K, indices, dds, found, begin, end),
      CROWDSTEER_OK);
}

static int check_against_brute(const crowd *c, const crowdsteer_neighbours *nb,
                               const char *what) {
  static entry list[MAX_AGENTS];
  for (size_t i = 0; i < c->count; i++) {
    const uint32_t n = brute(c, nb, i, list);
    const uint32_t want_found = n < K ? n : K;
    int ok = counts[i] == n && found[i] == want_found;
    for (uint32_t j = 0; j < K && ok; j++) {
      const uint32_t want_index = j < want_found ? list[j].q : UINT32_MAX;
      const float want_dd = j < want_found ? list[j].dd : INFINITY;
      ok = indices[i * K + j] == want_index && same_bits(dds[i * K + j], want_dd);
    }
    if (!ok) {
      CHECK_MSG(0, "%s %dD %zu agents, agent %zu: count %u (want %u), found %u, first %u",
                what, c->dims, c->count, i, counts[i], n, found[i], indices[i * K]);
      return 0;
    }
  }
  return 1;
}

/* One crowd and query: without a grid, then on grids of several cell and
 * table sizes (one of positions only where no view is asked for), each
 * over a split range. */
static void check_crowd(crowd *c, crowdsteer_grid *grid, const nb_options *o) {
  static const float cells[3] = {1.0f, 2.5f, 1.0f};
  static const size_t tables[3] = {0, 512, 4};
  crowdsteer_neighbours nb = make_query(c, o);
  query(c, &nb, 0, c->count);
  if (!check_against_brute(c, &nb, "no grid")) return;
  for (int g = 0; g < 3; g++) {
    crowdsteer_grid_desc desc = {0};
    desc.cell_size = cells[g];
    desc.table_size = tables[g];
    desc.group = c->group;
    desc.positions_only = !o->fov && g == 1;
    CHECK_STATUS(crowdsteer_grid_build(grid, &c->agents, &desc), CROWDSTEER_OK);
    crowdsteer_neighbours on_grid = nb;
    on_grid.grid = grid;
    on_grid.group = NULL;
    memset(counts, 0xAB, sizeof counts);
    memset(indices, 0xAB, sizeof indices);
    const size_t cut = c->count / 3;
    query(c, &on_grid, cut, c->count);
    query(c, &on_grid, 0, cut);
    if (!check_against_brute(c, &nb, "grid")) return;
  }
}

static void check_crowds(void) {
  static const size_t sizes[] = {0, 1, 3, 17, 150, MAX_AGENTS};
  static const nb_options variants[] = {
      {0, 0, 0, 0, 0, 0.0f}, {0, 1, 0, 0, 0, 0.0f}, {0, 1, 0, 0, 0, 0.4f},
      {0, 0, 3, 0, 0, 0.0f}, {1, 1, 2, 1, 1, 0.4f}, {0, 0, 70, 1, 0, 0.0f},
  };
  nb_every_crowd(sizes, sizeof sizes / sizeof sizes[0], variants,
                 sizeof variants / sizeof variants[0], 300u, per_agent_radius,
                 check_crowd);
}

/* A cap that binds: every count is the cap, and equal distances go to the
 * lower index. */
static void check_cap_binds(void) {
  crowd c;
  crowd_init(&c, 50, 2);
  for (size_t i = 0; i < c.count; i++) {
    c.a[0][i] = (float)i;
    c.a[3][i] = 1.0f;
  }
  crowdsteer_neighbours nb = {0};
  nb.radius = 100.0f;
  nb.max_neighbours = 7;
  query(&c, &nb, 0, c.count);
  for (size_t i = 0; i < c.count; i++)
    CHECK(counts[i] == 7 && found[i] == K);
  /* Agent 10's five nearest: 9 and 11 (equal distance: lower first), ... */
  const uint32_t want[K] = {9, 11, 8, 12, 7};
  for (int j = 0; j < K; j++)
    CHECK_MSG(indices[10 * K + j] == want[j], "j %d: %u", j, indices[10 * K + j]);
  crowd_free(&c);
}

static void check_validation(void) {
  crowd c;
  crowd_init(&c, 20, 2);
  rng r = {8u};
  crowd_varied(&c, &r, 8.0f, 0, per_agent_radius);
  crowdsteer_neighbours nb = {0};
  nb.radius = 1.0f;
  memset(counts, 0x5A, sizeof counts);
  memset(indices, 0x5A, sizeof indices);
  CHECK_STATUS(crowdsteer_neighbour_count(&c.agents, &nb, NULL, 0, 20),
               CROWDSTEER_ERROR_NULL_POINTER);
  CHECK_STATUS(crowdsteer_neighbour_count(&c.agents, NULL, counts, 0, 20),
               CROWDSTEER_ERROR_NULL_POINTER);
  CHECK_STATUS(crowdsteer_neighbour_count(&c.agents, &nb, counts, 5, 21),
               CROWDSTEER_ERROR_RANGE);
  CHECK_STATUS(crowdsteer_neighbour_nearest(&c.agents, &nb, 0, indices, dds, NULL, 0, 20),
               CROWDSTEER_ERROR_PARAMETER);
  CHECK_STATUS(crowdsteer_neighbour_nearest(&c.agents, &nb, CROWDSTEER_MAX_NEIGHBOURS + 1,
                                            indices, dds, NULL, 0, 20),
               CROWDSTEER_ERROR_PARAMETER);
  CHECK_STATUS(
      crowdsteer_neighbour_nearest(&c.agents, &nb, K, indices, NULL, NULL, 0, 20),
      CROWDSTEER_ERROR_NULL_POINTER);
  CHECK_STATUS(crowdsteer_neighbour_nearest(&c.agents, &nb, K, indices,
                                            (float *)(indices + 3), NULL, 0, 20),
               CROWDSTEER_ERROR_OVERLAP);
  CHECK_STATUS(crowdsteer_neighbour_count(&c.agents, &nb, (uint32_t *)c.a[0], 0, 20),
               CROWDSTEER_ERROR_OVERLAP);
  CHECK_STATUS(
      crowdsteer_neighbour_count(&c.agents, &nb, (uint32_t *)((char *)counts + 1), 0, 20),
      CROWDSTEER_ERROR_ALIGNMENT);
  nb.radius = -1.0f;
  CHECK_STATUS(crowdsteer_neighbour_count(&c.agents, &nb, counts, 0, 20),
               CROWDSTEER_ERROR_PARAMETER);
  for (size_t i = 0; i < 20; i++)
    CHECK(counts[i] == 0x5A5A5A5Au && indices[i] == 0x5A5A5A5Au);
  crowd_free(&c);
}

static void body(void) {
  check_crowds();
  check_cap_binds();
  check_validation();
}

int main(void) {
  if (!on_every_isa(body)) return 77;
  return check_report("test_neighbours_query");
}
