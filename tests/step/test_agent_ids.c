/* Stable agent ids (crowdsteer_agents.id): a crowd reordered by a random
 * permutation or into its grid's cell order (crowdsteer_grid_order and
 * crowdsteer_reorder), every agent keeping its id, gives every agent the same bits
 * as the original order, for every behaviour, the neighbour behaviours
 * (grid and brute force, with nearest-k and coincident ties) and a mixed
 * step over several steps, targets kept by id and resolved through
 * crowdsteer_id_index; without the ids the reordered crowd differs, and a
 * misaligned id array is rejected by the calls that read it. Also the id
 * index's own contract. */
#include <stdint.h>

#include "../common/check.h"
#include "../common/scenario.h"

/* Per-agent float arrays of a world, in this order. */
enum { P = 0, V = 3, W = 6, TP = 9, TV = 12, OUT = 15, FLOATS = 18 };

typedef struct world {
  size_t count;
  int dims;
  float *f[FLOATS];
  float *next[6]; /* the step's second state buffer */
  uint32_t *target, *mask, *id;
  crowdsteer_agents agents, output;
  crowdsteer_grid *grid;
} world;

static void world_views(world *w) {
  const int z = w->dims == 3;
  w->agents = (crowdsteer_agents){w->count,
                                  w->dims,
                                  w->f[P],
                                  w->f[P + 1],
                                  z ? w->f[P + 2] : NULL,
                                  w->f[V],
                                  w->f[V + 1],
                                  z ? w->f[V + 2] : NULL,
                                  w->id};
  w->output = (crowdsteer_agents){w->count,
                                  w->dims,
                                  w->next[0],
                                  w->next[1],
                                  z ? w->next[2] : NULL,
                                  w->next[3],
                                  w->next[4],
                                  z ? w->next[5] : NULL,
                                  NULL};
}

static void world_alloc(world *w, size_t count, int dims) {
  memset(w, 0, sizeof *w);
  w->count = count;
  w->dims = dims;
  for (int a = 0; a < FLOATS; a++)
    w->f[a] = (float *)calloc(count + 1, sizeof(float));
  for (int a = 0; a < 6; a++)
    w->next[a] = (float *)calloc(count + 1, sizeof(float));
  w->target = (uint32_t *)calloc(count + 1, sizeof(uint32_t));
  w->mask = (uint32_t *)calloc(count + 1, sizeof(uint32_t));
  w->id = (uint32_t *)calloc(count + 2, sizeof(uint32_t));
  CHECK(crowdsteer_grid_create(&w->grid) == CROWDSTEER_OK);
  world_views(w);
}

static void world_free(world *w) {
  for (int a = 0; a < FLOATS; a++)
    free(w->f[a]);
  for (int a = 0; a < 6; a++)
    free(w->next[a]);
  free(w->target);
  free(w->mask);
  free(w->id);
  crowdsteer_grid_destroy(w->grid);
}

/* Agents on a lattice of step 1/4 (many equal distances: nearest-k ties),
 * one in eight on another agent's spot (coincident pairs), velocities and
 * wander directions in [-1, 1), random target agents and behaviour masks.
 * `hashed_ids`: ids i * 0x9E3779B1 + 7 (distinct, unordered); else no ids. */
static void world_random(world *w, uint64_t seed, int hashed_ids) {
  rng r = {seed};
  uint32_t side = 2;
  while ((size_t)side * side * (w->dims == 3 ? side : 1) < w->count / 2)
    side++;
  for (size_t i = 0; i < w->count; i++) {
    const size_t twin = i > 0 && rng_below(&r, 8) == 0 ? rng_below(&r, (uint32_t)i) : i;
    for (int k = 0; k < 3; k++) {
      w->f[P + k][i] =
          twin != i ? w->f[P + k][twin] : (float)rng_below(&r, side) * 0.25f - 2.0f;
      w->f[V + k][i] = rng_range(&r, -1.0f, 1.0f);
      w->f[W + k][i] = rng_range(&r, -1.0f, 1.0f);
      w->f[TP + k][i] = rng_range(&r, -3.0f, 3.0f);
      w->f[TV + k][i] = rng_range(&r, -1.0f, 1.0f);
    }
    w->target[i] = rng_below(&r, (uint32_t)w->count);
    w->mask[i] = (uint32_t)rng_next(&r);
    w->id[i] = (uint32_t)i * 0x9E3779B1u + 7u;
  }
  if (!hashed_ids) {
    free(w->id);
    w->id = NULL;
  }
  world_views(w);
}

/* `to` = `from` reordered: to[j] = from[perm[j]], each agent keeping its
 * id (its old index when `from` has none) unless `drop_ids`, and its target
 * kept by id: the target's id, turned into the new index by an id index
 * (as a user does after sorting a crowd), which must be where the target
 * went. */
static void world_permuted(world *to, const world *from, const uint32_t *perm,
                           int drop_ids) {
  world_alloc(to, from->count, from->dims);
  for (int a = 0; a < FLOATS; a++)
    CHECK_STATUS(crowdsteer_reorder(to->f[a], from->f[a], perm, from->count),
                 CROWDSTEER_OK);
  for (size_t j = 0; j < from->count; j++) {
    to->mask[j] = from->mask[perm[j]];
    to->id[j] = from->id ? from->id[perm[j]] : perm[j];
    const uint32_t target = from->target[perm[j]];
    to->target[j] = from->id ? from->id[target] : target; /* by id */
  }
  crowdsteer_id_index *index;
  CHECK_STATUS(crowdsteer_id_index_create(&index), CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_id_index_build(index, &to->agents), CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_id_index_lookup(index, to->target, to->count, to->target),
               CROWDSTEER_OK);
  crowdsteer_id_index_destroy(index);
  for (size_t j = 0; j < from->count; j++)
    CHECK(perm[to->target[j]] == from->target[perm[j]]);
  if (drop_ids) {
    free(to->id);
    to->id = NULL;
  }
  world_views(to);
}

/* How many of the arrays [first, first + n) differ from the original,
 * agent by agent (each agent read at its place in the permuted world). */
static size_t mismatches(const world *a, const world *b, const uint32_t *perm, int first,
                         int n) {
  size_t bad = 0;
  for (int k = first; k < first + n; k++) {
    if (k % 3 == 2 && a->dims == 2) continue;
    for (size_t j = 0; j < a->count; j++)
      bad += !same_bits(b->f[k][j], a->f[k][perm[j]]);
  }
  return bad;
}

static crowdsteer_output output_of(world *w) {
  crowdsteer_output o;
  memset(&o, 0, sizeof o);
  o.steering =
      (crowdsteer_vectors){w->f[OUT], w->f[OUT + 1], w->dims == 3 ? w->f[OUT + 2] : NULL};
  return o;
}

static crowdsteer_wander_state wander_of(world *w, uint32_t tick) {
  crowdsteer_wander_state s = {
      {w->f[W], w->f[W + 1], w->dims == 3 ? w->f[W + 2] : NULL}, 1234u, tick};
  return s;
}

static crowdsteer_params params_all(void) {
  const crowdsteer_params p = {.max_speed = 1.5f,
                               .slowing_radius = 2.0f,
                               .target_radius = 0.1f,
                               .danger_radius = 3.0f,
                               .escape_radius = 1.0f,
                               .wander_radius = 0.5f,
                               .wander_distance = 1.0f,
                               .jitter = 0.4f};
  return p;
}

typedef crowdsteer_status (*targeted_fn)(const crowdsteer_agents *,
                                         const crowdsteer_target *,
                                         const crowdsteer_params *,
                                         const crowdsteer_output *, size_t, size_t);
typedef crowdsteer_status (*neighbour_fn)(const crowdsteer_agents *,
                                          const crowdsteer_neighbours *,
                                          const crowdsteer_params *,
                                          const crowdsteer_output *, size_t, size_t);
static const targeted_fn targeted[6] = {crowdsteer_seek,    crowdsteer_flee,
                                        crowdsteer_arrive,  crowdsteer_leave,
                                        crowdsteer_pursuit, crowdsteer_evade};
static const neighbour_fn neighbour[3] = {crowdsteer_separation, crowdsteer_cohesion,
                                          crowdsteer_alignment};

/* Behaviour b (0..5 targeted, 6 wander, 7..9 neighbours) on all of w. */
static crowdsteer_status run_behaviour(world *w, int b, const crowdsteer_neighbours *nb) {
  const crowdsteer_params p = params_all();
  const crowdsteer_output o = output_of(w);
  if (b >= 7) return neighbour[b - 7](&w->agents, nb, &p, &o, 0, w->count);
  if (b == 6) {
    crowdsteer_wander_state ws = wander_of(w, 17u);
    return crowdsteer_wander(&w->agents, &ws, &p, &o, 0, w->count);
  }
  crowdsteer_target t;
  memset(&t, 0, sizeof t);
  t.kind = CROWDSTEER_TARGET_AGENTS;
  t.index = w->target;
  return targeted[b](&w->agents, &t, &p, &o, 0, w->count);
}

static const float cell = 0.6f;

static crowdsteer_status build_grid(world *w) {
  crowdsteer_grid_desc desc;
  memset(&desc, 0, sizeof desc);
  desc.cell_size = cell;
  return crowdsteer_grid_build(w->grid, &w->agents, &desc);
}

/* Who sees whom: radius 0.6, the 3 nearest (ties are common on the
 * lattice), optionally a field of view. */
static crowdsteer_neighbours neighbours_of(const world *w, int use_grid, int fov) {
  crowdsteer_neighbours nb;
  memset(&nb, 0, sizeof nb);
  nb.grid = use_grid ? w->grid : NULL;
  nb.radius = cell;
  nb.max_neighbours = 3;
  nb.field_of_view = fov;
  nb.cos_field_of_view = -0.25f;
  return nb;
}

/* Every single behaviour on the original and the permuted world: the same
 * bits per agent (steering and wander state). Returns the mismatches of
 * wander and separation, for the test that ids matter. */
static size_t single_behaviours(world *a, world *b, const uint32_t *perm, int use_grid,
                                int fov) {
  size_t id_sensitive = 0;
  if (use_grid) {
    CHECK(build_grid(a) == CROWDSTEER_OK);
    CHECK(build_grid(b) == CROWDSTEER_OK);
  }
  const crowdsteer_neighbours nba = neighbours_of(a, use_grid, fov);
  const crowdsteer_neighbours nbb = neighbours_of(b, use_grid, fov);
  for (int beh = use_grid ? 0 : 6; beh < 10; beh++) {
    CHECK_STATUS(run_behaviour(a, beh, &nba), CROWDSTEER_OK);
    CHECK_STATUS(run_behaviour(b, beh, &nbb), CROWDSTEER_OK);
    const size_t bad = mismatches(a, b, perm, OUT, 3) + mismatches(a, b, perm, W, 3);
    if (b->id) {
      CHECK_MSG(bad == 0, "behaviour %d, %zu agents, dims %d, grid %d, fov %d: %zu", beh,
                a->count, a->dims, use_grid, fov, bad);
    }
    if (beh == 6 || beh == 7) id_sensitive += bad;
  }
  return id_sensitive;
}

/* Steps the world `steps` times with every kind of behaviour, double
 * buffered, the grid rebuilt from the state before each step. */
static void run_steps(world *w, int steps, int threads) {
  crowdsteer_grid_desc desc;
  memset(&desc, 0, sizeof desc);
  desc.cell_size = cell;
  const crowdsteer_neighbours nb = neighbours_of(w, 1, 0);
  crowdsteer_wander_state ws = wander_of(w, 0u);
  crowdsteer_step_behaviour bs[6];
  memset(bs, 0, sizeof bs);
  bs[0].behaviour = CROWDSTEER_PURSUIT;
  bs[0].target.kind = CROWDSTEER_TARGET_AGENTS;
  bs[0].target.index = w->target;
  bs[1].behaviour = CROWDSTEER_ARRIVE;
  bs[1].target.kind = CROWDSTEER_TARGET_ARRAYS;
  bs[1].target.position = (crowdsteer_vectors){w->f[TP], w->f[TP + 1], w->f[TP + 2]};
  bs[1].params = params_all();
  bs[2].behaviour = CROWDSTEER_WANDER;
  bs[2].wander = &ws;
  bs[2].params = params_all();
  bs[2].weight = 0.5f;
  bs[3].behaviour = CROWDSTEER_SEPARATION;
  bs[3].weight = 2.0f;
  bs[4].behaviour = CROWDSTEER_COHESION;
  bs[5].behaviour = CROWDSTEER_ALIGNMENT;
  for (int k = 3; k < 6; k++)
    bs[k].neighbours = &nb;
  crowdsteer_step_desc step;
  memset(&step, 0, sizeof step);
  step.behaviours = bs;
  step.behaviour_count = 6;
  step.behaviour_mask = w->mask;
  step.integrator.max_speed = 1.0f;
  step.output = &w->output;
  step.threads = threads;
  step.tile_size = 96;
  for (int s = 0; s < steps; s++) {
    ws.tick = (uint32_t)s;
    CHECK(crowdsteer_grid_build(w->grid, &w->agents, &desc) == CROWDSTEER_OK);
    CHECK_STATUS(crowdsteer_step(&w->agents, &step, 0, w->count), CROWDSTEER_OK);
    for (int a = 0; a < 6; a++) { /* the new state back into the world */
      if (a % 3 == 2 && w->dims == 2) continue;
      memcpy(w->f[a], w->next[a], w->count * sizeof(float));
    }
  }
}

static void shuffle(uint32_t *perm, size_t n, rng *r) {
  for (size_t i = 0; i < n; i++)
    perm[i] = (uint32_t)i;
  for (size_t i = n; i > 1; i--) {
    const uint32_t j = rng_below(r, (uint32_t)i);
    const uint32_t t = perm[i - 1];
    perm[i - 1] = perm[j];
    perm[j] = t;
  }
}

/* A permutation of `w`'s agents: random, or its grid's cell order. */
static void permutation_of(world *w, int by_cell, rng *r, uint32_t *perm) {
  if (!by_cell) {
    shuffle(perm, w->count, r);
    return;
  }
  CHECK_STATUS(build_grid(w), CROWDSTEER_OK);
  size_t slots;
  const uint32_t *order = crowdsteer_grid_order(w->grid, &slots);
  CHECK(slots == w->count);
  memcpy(perm, order, w->count * sizeof *perm);
}

static void permutation_case(size_t count, int dims, int hashed_ids, int by_cell,
                             uint64_t seed) {
  rng r = {seed};
  uint32_t *perm = (uint32_t *)malloc(count * sizeof(uint32_t));
  uint32_t *identity = (uint32_t *)malloc(count * sizeof(uint32_t));
  for (size_t i = 0; i < count; i++)
    identity[i] = (uint32_t)i;
  world a, b, twin, anonymous; /* twin: a copy of a (wander updates a) */
  world_alloc(&a, count, dims);
  world_random(&a, seed, hashed_ids);
  permutation_of(&a, by_cell, &r, perm);
  world_permuted(&b, &a, perm, 0);
  world_permuted(&twin, &a, identity, 0);
  world_permuted(&anonymous, &a, perm, 1);
  const int brute = count <= 200;
  for (int fov = 0; fov < 2; fov++) {
    single_behaviours(&a, &b, perm, 1, fov);
    if (brute) single_behaviours(&a, &b, perm, 0, fov);
  }
  /* The test can fail: the same permutation without its ids moves bits. */
  const size_t moved = single_behaviours(&twin, &anonymous, perm, 1, 0);
  CHECK_MSG(count < 30 || moved > 0,
            "wander and separation ignore the ids (%zu agents, dims %d)", count, dims);
  const int threads = count > 1000 ? 2 : 1;
  run_steps(&a, 4, threads);
  run_steps(&b, 4, 1);
  const size_t bad = mismatches(&a, &b, perm, P, 6) + mismatches(&a, &b, perm, W, 3);
  CHECK_MSG(bad == 0, "step: %zu agents, dims %d, ids %d, cell order %d: %zu mismatches",
            count, dims, hashed_ids, by_cell, bad);
  world_free(&a);
  world_free(&b);
  world_free(&twin);
  world_free(&anonymous);
  free(identity);
  free(perm);
}

/* A misaligned id array is rejected by the calls that read ids (nothing
 * written) and ignored by those that do not. */
static void validation(void) {
  world w;
  world_alloc(&w, 40, 2);
  world_random(&w, 5u, 1);
  CHECK(build_grid(&w) == CROWDSTEER_OK);
  const crowdsteer_neighbours nb = neighbours_of(&w, 1, 0);
  w.agents.id = (const uint32_t *)((const char *)w.id + 1);
  for (size_t i = 0; i < w.count; i++)
    w.f[OUT][i] = 42.0f;
  for (int beh = 6; beh < 10; beh++)
    CHECK_STATUS(run_behaviour(&w, beh, &nb), CROWDSTEER_ERROR_ALIGNMENT);
  int untouched = 1;
  for (size_t i = 0; i < w.count; i++)
    untouched &= w.f[OUT][i] == 42.0f;
  CHECK(untouched);
  CHECK_STATUS(run_behaviour(&w, 0, &nb), CROWDSTEER_OK); /* seek reads no id */
  crowdsteer_wander_state ws = wander_of(&w, 0u);
  const crowdsteer_params p = params_all();
  const crowdsteer_output o = output_of(&w);
  CHECK_STATUS(crowdsteer_wander(&w.agents, &ws, &p, &o, 3, 3), CROWDSTEER_OK);
  world_free(&w);
}

/* crowdsteer_id_index's contract: ids at both ends of the range, the
 * index itself without ids, duplicates and misses rejected without a
 * write, lookups in place, a warm rebuild without growing, and a large
 * table of scattered ids. */
static void id_index_contract(void) {
  crowdsteer_id_index *index;
  CHECK_STATUS(crowdsteer_id_index_create(NULL), CROWDSTEER_ERROR_NULL_POINTER);
  CHECK_STATUS(crowdsteer_id_index_create(&index), CROWDSTEER_OK);
  uint32_t ids[6] = {UINT32_MAX, 0u, 7u, UINT32_MAX - 1u, 1u << 31, 12345u};
  uint32_t out[6] = {9, 9, 9, 9, 9, 9};
  CHECK_STATUS(crowdsteer_id_index_lookup(index, ids, 1, out),
               CROWDSTEER_ERROR_AGENT_INDEX);
  CHECK_STATUS(crowdsteer_id_index_lookup(index, ids, 0, NULL), CROWDSTEER_OK);
  crowdsteer_agents agents = {6, 2, NULL, NULL, NULL, NULL, NULL, NULL, ids};
  CHECK_STATUS(crowdsteer_id_index_build(index, &agents), CROWDSTEER_OK);
  CHECK(crowdsteer_id_index_count(index) == 6);
  const uint32_t wanted[4] = {12345u, UINT32_MAX, 0u, UINT32_MAX};
  CHECK_STATUS(crowdsteer_id_index_lookup(index, wanted, 4, out), CROWDSTEER_OK);
  CHECK(out[0] == 5 && out[1] == 0 && out[2] == 1 && out[3] == 0);
  const uint32_t missing[3] = {7u, 8u, 0u};
  out[0] = 42;
  CHECK_STATUS(crowdsteer_id_index_lookup(index, missing, 3, out),
               CROWDSTEER_ERROR_AGENT_INDEX);
  CHECK(out[0] == 42); /* nothing written */
  uint32_t in_place[2] = {1u << 31, 7u};
  CHECK_STATUS(crowdsteer_id_index_lookup(index, in_place, 2, in_place), CROWDSTEER_OK);
  CHECK(in_place[0] == 4 && in_place[1] == 2);
  CHECK_STATUS(crowdsteer_id_index_lookup(
                   index, (const uint32_t *)((const char *)ids + 1), 1, out),
               CROWDSTEER_ERROR_ALIGNMENT);
  ids[3] = 7u; /* a duplicate: rejected, and the index is then empty */
  CHECK_STATUS(crowdsteer_id_index_build(index, &agents), CROWDSTEER_ERROR_PARAMETER);
  CHECK(crowdsteer_id_index_count(index) == 0);
  CHECK_STATUS(crowdsteer_id_index_lookup(index, wanted, 1, out),
               CROWDSTEER_ERROR_AGENT_INDEX);
  agents.id = NULL; /* no ids: the index is the id */
  CHECK_STATUS(crowdsteer_id_index_build(index, &agents), CROWDSTEER_OK);
  const uint32_t plain[2] = {5u, 0u};
  CHECK_STATUS(crowdsteer_id_index_lookup(index, plain, 2, out), CROWDSTEER_OK);
  CHECK(out[0] == 5 && out[1] == 0);
  agents.count = 0;
  CHECK_STATUS(crowdsteer_id_index_build(index, &agents), CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_id_index_lookup(index, plain, 1, out),
               CROWDSTEER_ERROR_AGENT_INDEX);
  /* 100,000 scattered ids (a multiplicative hash of the index), warm. */
  const size_t n = 100000;
  uint32_t *many = (uint32_t *)malloc(n * sizeof(uint32_t));
  uint32_t *found = (uint32_t *)malloc(n * sizeof(uint32_t));
  for (size_t i = 0; i < n; i++)
    many[i] = (uint32_t)i * 0x2545F491u ^ 0xA5A5A5A5u;
  agents = (crowdsteer_agents){n, 2, NULL, NULL, NULL, NULL, NULL, NULL, many};
  CHECK_STATUS(crowdsteer_id_index_build(index, &agents), CROWDSTEER_OK);
  const size_t bytes = crowdsteer_id_index_bytes(index);
  CHECK(bytes >= n * 2 * sizeof(uint32_t));
  CHECK_STATUS(crowdsteer_id_index_build(index, &agents), CROWDSTEER_OK);
  CHECK(crowdsteer_id_index_bytes(index) == bytes);
  CHECK_STATUS(crowdsteer_id_index_lookup(index, many, n, found), CROWDSTEER_OK);
  size_t wrong = 0;
  for (size_t i = 0; i < n; i++)
    wrong += found[i] != i;
  CHECK_MSG(wrong == 0, "%zu of %zu ids found at the wrong index", wrong, n);
  free(many);
  free(found);
  crowdsteer_id_index_destroy(index);
  crowdsteer_id_index_destroy(NULL);
}

static void body(void) {
  validation();
  /* 1100 agents: the first world steps on two threads. Nearest-k among
   * dozens of neighbours is slow, so the large crowd is 2D only. */
  const size_t counts[] = {1, 37, 160, 1100};
  for (int c = 0; c < 4; c++)
    for (int dims = 2; dims <= (c < 3 ? 3 : 2); dims++)
      for (int hashed = 0; hashed < 2; hashed++)
        for (int by_cell = 0; by_cell < 2; by_cell++)
          permutation_case(counts[c], dims, hashed, by_cell,
                           1000u + (uint64_t)c * 7u + (uint64_t)dims);
}

int main(void) {
  id_index_contract();
  if (!on_every_isa(body)) return 77;
  return check_report("test_agent_ids");
}
