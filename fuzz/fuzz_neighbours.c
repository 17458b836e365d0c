/* Fuzz cases for the neighbour grid and separation, cohesion and alignment
 * (libFuzzer inputs that start with "NB"; see fuzz_crowdsteer.c). Bytes
 * decode to a crowd anywhere in float range (NaN and infinities included),
 * a grid description and a query, valid or not. Properties:
 *  1. a rejected grid build or call returns the documented status and
 *     writes nothing; an accepted call writes exactly its range;
 *  2. through the grid the bits are those of the brute force (no grid), for
 *     any input, on the ISA the bytes choose;
 *  3. two sub-range calls give the bits of one call;
 *  4. a finite, moderate crowd with moderate parameters gets finite steering;
 *  5. crowdsteer_step with seek and the neighbour behaviour blended is the
 *     composition of the single calls;
 *  6. with distinct agent ids, the crowd in reverse order, every agent
 *     keeping its id and its per-agent data, gets the same bits per agent;
 *  7. an id index of the crowd is rejected exactly when two agents share an
 *     id; otherwise each agent's id looks up its index, and an id no agent
 *     has is reported without a write;
 *  8. the grid's agent order is a permutation; the crowd reordered by it
 *     (crowdsteer_reorder) builds a grid whose order is the identity and,
 *     with distinct ids, gets the same bits per agent through it;
 *  9. the neighbour queries (count, k nearest) give through the grid what
 *     they give without one, status and every output word, and write
 *     nothing outside their rows (or anything on error).
 * Both forms (crowdsteer_flock.h, and invalid ones) and inner radii are
 * drawn, so every property covers them.
 * Ids may also be shared by several agents (grid and brute force then agree
 * unless a nearest-k cap is in effect) or absent. Some crowds are packed
 * into one cell under caps that bind past 64 neighbours. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crowdsteer.h"
#include "fuzz_common.h"
#include "fuzz_neighbours.h"

enum { MAX_AGENTS = 96 };

cs_fuzz_neighbour_stats cs_fuzz_neighbour_counters;

typedef struct nb_case {
  size_t count, begin, end, split;
  int dims, behaviour, accumulate, per_agent_radius, isa;
  float a[6][MAX_AGENTS + 1], radii[MAX_AGENTS + 1], cosines[MAX_AGENTS + 1];
  uint32_t group[MAX_AGENTS + 1], masks[MAX_AGENTS + 1];
  uint32_t ids[MAX_AGENTS + 1];
  int id_mode; /* 0: no ids, 1: distinct, 2: shared by several agents */
  crowdsteer_grid_desc desc;
  crowdsteer_neighbours nb;
  crowdsteer_params params;
  float weight;
  uint32_t nearest_k; /* the k of property 9's nearest query */
} nb_case;

static void decode(reader *r, nb_case *c) {
  memset(c, 0, sizeof *c);
  c->dims = 2 + (rd_u8(r) & 1);
  c->count = rd_u8(r) % (MAX_AGENTS + 1);
  c->behaviour = rd_u8(r) % 3;
  c->isa = rd_u8(r) % CROWDSTEER_ISA_COUNT;
  /* Positions: mostly a dense cluster, so neighbours are common. */
  const float spread = (float)(1 + rd_u8(r) % 16);
  for (size_t i = 0; i < c->count; i++) {
    for (int k = 0; k < 6; k++) {
      const uint8_t how = rd_u8(r);
      c->a[k][i] =
          how < 200 ? (float)(int8_t)rd_u8(r) * spread / 128.0f : cs_fuzz_float(r);
    }
    c->group[i] = rd_u8(r) & 0xFu;
    c->masks[i] = rd_u8(r) & 0xFu;
    c->radii[i] = rd_u8(r) < 240 ? (float)(rd_u8(r) % 9) * 0.25f : cs_fuzz_float(r);
    c->cosines[i] = rd_u8(r) < 240 ? (float)(int8_t)rd_u8(r) / 127.0f : cs_fuzz_float(r);
  }
  const uint8_t cell = rd_u8(r);
  c->desc.cell_size = cell < 230 ? (float)(1 + cell % 8) * 0.5f : cs_fuzz_float(r);
  const uint8_t table = rd_u8(r);
  c->desc.table_size = table < 128 ? 0 : table < 250 ? (size_t)1 << (table % 12) : table;
  c->desc.threads = rd_u8(r) % 4;
  c->desc.group = rd_u8(r) & 1 ? c->group : NULL;
  const uint8_t radius = rd_u8(r);
  c->nb.radius = radius < 64    ? 0.0f
                 : radius < 230 ? (float)(radius % 9) * 0.25f
                                : cs_fuzz_float(r);
  c->per_agent_radius = rd_u8(r) % 4 == 0;
  if (c->per_agent_radius) c->nb.radius_per_agent = c->radii;
  c->nb.field_of_view = rd_u8(r) % 3 == 0;
  c->nb.cos_field_of_view = (float)(int8_t)rd_u8(r) / 100.0f;
  if (rd_u8(r) % 4 == 0) c->nb.cos_field_of_view_per_agent = c->cosines;
  c->nb.max_neighbours = rd_u8(r) % 4 == 0 ? rd_u8(r) % 6 : 0;
  const uint8_t mask = rd_u8(r) % 4;
  if (mask == 1) c->nb.neighbour_mask = rd_u8(r) & 0xFu;
  if (mask == 2) c->nb.neighbour_mask_per_agent = c->masks;
  c->params.max_speed = cs_fuzz_param(r);
  c->params.time_to_target = cs_fuzz_param(r);
  c->accumulate = rd_u8(r) & 1;
  c->weight = (float)(int8_t)rd_u8(r) / 32.0f;
  cs_fuzz_range(r, c->count, &c->begin, &c->end, &c->split);
  /* Last: older inputs decode to the same crowd, then read filler bytes. */
  c->id_mode = rd_u8(r) % 3;
  const uint32_t salt = rd_u32(r);
  for (size_t i = 0; i < c->count; i++)
    c->ids[i] = c->id_mode == 2 ? (uint32_t)(i % 4u) : (uint32_t)i * 0x9E3779B1u ^ salt;
  c->desc.positions_only = rd_u8(r) % 4 == 0;
  /* A crowd packed into a cell (2^-8 of its spread: everyone within the
   * radius of everyone) under a cap of 32 to 95: past 64 neighbours the
   * nearest-k selection's radix passes, which no other input reached. */
  const uint8_t packed = rd_u8(r);
  if (packed % 2 == 0) {
    for (size_t i = 0; i < c->count; i++)
      for (int k = 0; k < 3; k++)
        c->a[k][i] *= 0x1p-8f;
    c->nb.max_neighbours = 32u + packed / 4u; /* 32 .. 95 */
  }
  /* The form and the inner radius (after everything older inputs held). */
  const uint8_t form = rd_u8(r);
  c->nb.form = form < 120   ? CROWDSTEER_FORM_DEFAULT
               : form < 250 ? CROWDSTEER_FORM_REYNOLDS
                            : (crowdsteer_form)(form - 248); /* 2 .. 7: invalid */
  const uint8_t inner = rd_u8(r);
  c->nb.inner_radius = inner < 128   ? 0.0f
                       : inner < 250 ? (float)(inner % 9) * 0.25f
                                     : cs_fuzz_float(r);
  c->nearest_k = 1u + rd_u8(r) % 8u;
}

typedef struct outputs {
  float v[3][MAX_AGENTS + 1];
} outputs;

static crowdsteer_agents agents_of(nb_case *c) {
  return (crowdsteer_agents){c->count, c->dims, c->a[0],
                             c->a[1],  c->a[2], c->a[3],
                             c->a[4],  c->a[5], c->id_mode ? c->ids : NULL};
}

static crowdsteer_status call(nb_case *c, const crowdsteer_neighbours *nb, outputs *o,
                              size_t begin, size_t end) {
  crowdsteer_agents agents = agents_of(c);
  crowdsteer_output out = {{o->v[0], o->v[1], o->v[2]},
                           c->accumulate ? CROWDSTEER_ACCUMULATE : CROWDSTEER_OVERWRITE,
                           c->weight,
                           NULL};
  switch (c->behaviour) {
  case 0: return crowdsteer_separation(&agents, nb, &c->params, &out, begin, end);
  case 1: return crowdsteer_cohesion(&agents, nb, &c->params, &out, begin, end);
  default: return crowdsteer_alignment(&agents, nb, &c->params, &out, begin, end);
  }
}

static void canary(outputs *o) {
  for (int k = 0; k < 3; k++)
    for (size_t i = 0; i <= MAX_AGENTS; i++)
      o->v[k][i] = (float)(int)(i * 3 + (size_t)k) * 0.5f;
}

/* Only [begin, end) of the dims axes may differ from the canary. */
static int untouched_outside(const nb_case *c, const outputs *o, size_t begin,
                             size_t end) {
  outputs fresh;
  canary(&fresh);
  for (int k = 0; k < 3; k++)
    for (size_t i = 0; i <= MAX_AGENTS; i++) {
      const int inside = k < c->dims && i >= begin && i < end && begin <= end;
      if (!inside && !cs_fuzz_same_bits(o->v[k][i], fresh.v[k][i])) return 0;
    }
  return 1;
}

static int same_outputs(const nb_case *c, const outputs *x, const outputs *y) {
  for (int k = 0; k < c->dims; k++)
    for (size_t i = 0; i < c->count; i++)
      if (!cs_fuzz_same_bits(x->v[k][i], y->v[k][i])) return 0;
  return 1;
}

static int moderate(const nb_case *c) {
  for (int k = 0; k < 6; k++)
    for (size_t i = 0; i < c->count; i++)
      if (!(fabsf(c->a[k][i]) <= 1e6f)) return 0;
  const float ttt = c->params.time_to_target;
  return c->params.max_speed <= 1e6f && (ttt == 0.0f || ttt >= 1e-3f);
}

static int fail(const char *what, const nb_case *c) {
  fprintf(
      stderr,
      "fuzz_neighbours: %s (behaviour %d, %dD, %zu agents, range [%zu, %zu), isa %s)\n",
      what, c->behaviour, c->dims, c->count, c->begin, c->end,
      crowdsteer_isa_name(crowdsteer_active_isa()));
  return 1;
}

/* Property 5: one step of seek + this behaviour, blended, in place. */
static int check_step(nb_case *c, crowdsteer_grid *grid) {
  if (c->count == 0 || c->accumulate) return 0;
  crowdsteer_neighbours nb = c->nb;
  nb.grid = grid;
  crowdsteer_step_behaviour b[2];
  memset(b, 0, sizeof b);
  b[0].behaviour = CROWDSTEER_SEEK;
  b[0].params = c->params;
  b[1].behaviour = (crowdsteer_behaviour)(CROWDSTEER_SEPARATION + c->behaviour);
  b[1].params = c->params;
  b[1].weight = c->weight;
  b[1].neighbours = &nb;
  crowdsteer_step_desc step = {0};
  step.behaviours = b;
  step.behaviour_count = 2;
  step.threads = (int)(c->count % 3);
  step.tile_size = 1 + c->count % 7;
  /* One workspace for the whole run, its memory left by steps of every
   * other size and dims: it must never leak into a result. */
  static crowdsteer_workspace *kept;
  if (!kept && crowdsteer_workspace_create(&kept) != CROWDSTEER_OK) return 0;
  step.workspace = c->count % 2 ? kept : NULL;
  nb_case after = *c;
  crowdsteer_agents agents = agents_of(&after);
  if (crowdsteer_step(&agents, &step, 0, c->count) != CROWDSTEER_OK) return 0;
  cs_fuzz_neighbour_counters.steps_checked++;
  /* The composition, from the untouched state. */
  outputs seek, own;
  crowdsteer_agents before = agents_of(c);
  crowdsteer_output out = {
      {seek.v[0], seek.v[1], seek.v[2]}, CROWDSTEER_OVERWRITE, 0, NULL};
  if (crowdsteer_seek(&before, &b[0].target, &c->params, &out, 0, c->count) !=
      CROWDSTEER_OK)
    return fail("step accepted, seek rejected", c);
  nb_case overwrite = *c;
  if (call(&overwrite, &nb, &own, 0, c->count) != CROWDSTEER_OK)
    return fail("step accepted, the neighbour behaviour rejected", c);
  const float w = c->weight == 0.0f ? 1.0f : c->weight;
  for (int k = 0; k < c->dims; k++)
    for (size_t i = 0; i < c->count; i++)
      seek.v[k][i] = (0.0f + seek.v[k][i]) + w * own.v[k][i];
  crowdsteer_vectors steering = {seek.v[0], seek.v[1], seek.v[2]};
  crowdsteer_params integrator = {0};
  if (crowdsteer_integrate(&before, &steering, &integrator, 0, c->count) != CROWDSTEER_OK)
    return fail("integrate rejected", c);
  for (int k = 0; k < 2 * 3; k++)
    for (size_t i = 0; i < c->count; i++)
      if ((k % 3) < c->dims && !cs_fuzz_same_bits(c->a[k][i], after.a[k][i]))
        return fail("step differs from the composition", c);
  return 0;
}

/* `out` = the crowd of `c` reordered, out[s] = c[order[s]] for every
 * per-agent array (crowdsteer_reorder); 0 if a reorder was rejected. */
static int permuted(const nb_case *c, const uint32_t *order, nb_case *out) {
  *out = *c;
  const size_t n = c->count;
  int ok = 1;
  for (int k = 0; k < 6; k++)
    ok &= crowdsteer_reorder(out->a[k], c->a[k], order, n) == CROWDSTEER_OK;
  ok &= crowdsteer_reorder(out->group, c->group, order, n) == CROWDSTEER_OK;
  ok &= crowdsteer_reorder(out->masks, c->masks, order, n) == CROWDSTEER_OK;
  ok &= crowdsteer_reorder(out->ids, c->ids, order, n) == CROWDSTEER_OK;
  ok &= crowdsteer_reorder(out->radii, c->radii, order, n) == CROWDSTEER_OK;
  ok &= crowdsteer_reorder(out->cosines, c->cosines, order, n) == CROWDSTEER_OK;
  return ok;
}

/* `nb` with its per-agent arrays taken from `w` instead. */
static crowdsteer_neighbours neighbours_of(const crowdsteer_neighbours *nb,
                                           const nb_case *w) {
  crowdsteer_neighbours out = *nb;
  if (out.group) out.group = w->group;
  if (out.radius_per_agent) out.radius_per_agent = w->radii;
  if (out.cos_field_of_view_per_agent) out.cos_field_of_view_per_agent = w->cosines;
  if (out.neighbour_mask_per_agent) out.neighbour_mask_per_agent = w->masks;
  return out;
}

/* Property 6: the crowd reversed, each agent keeping its id and data, on the
 * brute force: agent i's bits are those of agent count - 1 - i. */
static int check_reversed(const nb_case *c, const crowdsteer_neighbours *brute,
                          const outputs *want) {
  if (c->id_mode != 1 || c->accumulate) return 0;
  static nb_case rev;
  const size_t n = c->count;
  uint32_t reverse[MAX_AGENTS + 1];
  for (size_t j = 0; j < n; j++)
    reverse[j] = (uint32_t)(n - 1 - j);
  if (!permuted(c, reverse, &rev)) return fail("reorder rejected", c);
  const crowdsteer_neighbours nb = neighbours_of(brute, &rev);
  static outputs got;
  canary(&got);
  if (call(&rev, &nb, &got, n - c->end, n - c->begin) != CROWDSTEER_OK)
    return fail("reversed crowd rejected", c);
  for (int k = 0; k < c->dims; k++)
    for (size_t i = c->begin; i < c->end; i++)
      if (!cs_fuzz_same_bits(got.v[k][n - 1 - i], want->v[k][i]))
        return fail("reversed crowd with its ids differs", c);
  return 0;
}

/* Property 7: crowdsteer_id_index over the crowd's ids (indices when none). */
static int check_id_index(const nb_case *c) {
  int shared = 0;
  const uint32_t *ids = c->id_mode ? c->ids : NULL;
  for (size_t i = 0; ids && i < c->count; i++)
    for (size_t j = 0; j < i; j++)
      shared |= ids[i] == ids[j];
  crowdsteer_id_index *index;
  if (crowdsteer_id_index_create(&index) != CROWDSTEER_OK) return fail("id index", c);
  const crowdsteer_agents agents = {c->count, c->dims, NULL, NULL, NULL,
                                    NULL,     NULL,    NULL, ids};
  const crowdsteer_status built = crowdsteer_id_index_build(index, &agents);
  int failed = 0;
  static uint32_t found[MAX_AGENTS + 1], all[MAX_AGENTS + 1];
  for (size_t i = 0; i < c->count; i++)
    all[i] = ids ? ids[i] : (uint32_t)i;
  if (built != (shared ? CROWDSTEER_ERROR_PARAMETER : CROWDSTEER_OK))
    failed |= fail("id index build status", c);
  if (built == CROWDSTEER_OK &&
      crowdsteer_id_index_lookup(index, all, c->count, found) == CROWDSTEER_OK) {
    for (size_t i = 0; i < c->count; i++)
      if (found[i] != i) failed |= fail("id index lookup", c);
  } else if (built == CROWDSTEER_OK) {
    failed |= fail("id index lookup rejected", c);
  }
  /* An id nobody has: the least one. */
  uint32_t absent = 0;
  for (int taken = 1; taken;) {
    taken = 0;
    for (size_t i = 0; i < c->count; i++)
      taken |= all[i] == absent;
    absent += (uint32_t)taken;
  }
  found[0] = 12345u;
  if (crowdsteer_id_index_lookup(index, &absent, 1, found) !=
          CROWDSTEER_ERROR_AGENT_INDEX ||
      found[0] != 12345u)
    failed |= fail("id index: an absent id", c);
  crowdsteer_id_index_destroy(index);
  return failed;
}

/* Property 8: the crowd in its grid's cell order (`want`: the grid query's
 * results on the original crowd, when accepted). */
static int check_cell_order(const nb_case *c, const crowdsteer_grid *grid,
                            const crowdsteer_neighbours *query, const outputs *want) {
  size_t n;
  const uint32_t *order = crowdsteer_grid_order(grid, &n);
  if (!order || n != c->count) return fail("grid order missing", c);
  static uint8_t seen[MAX_AGENTS + 1];
  memset(seen, 0, sizeof seen);
  for (size_t s = 0; s < n; s++) {
    if (order[s] >= n || seen[order[s]]) return fail("grid order not a permutation", c);
    seen[order[s]] = 1;
  }
  static nb_case sorted;
  if (!permuted(c, order, &sorted)) return fail("reorder rejected", c);
  int failed = 0;
  crowdsteer_grid *again;
  if (crowdsteer_grid_create(&again) != CROWDSTEER_OK) return fail("grid_create", c);
  crowdsteer_grid_desc desc = c->desc;
  if (desc.group) desc.group = sorted.group;
  crowdsteer_agents agents = agents_of(&sorted);
  if (crowdsteer_grid_build(again, &agents, &desc) != CROWDSTEER_OK) {
    crowdsteer_grid_destroy(again);
    return fail("grid of the sorted crowd rejected", c);
  }
  const uint32_t *identity = crowdsteer_grid_order(again, NULL);
  for (size_t s = 0; s < n; s++)
    if (identity[s] != s) failed |= fail("sorted crowd's grid order not the identity", c);
  if (want && c->id_mode == 1 && !c->accumulate && c->begin == 0 && c->end == n) {
    crowdsteer_neighbours nb = neighbours_of(query, &sorted);
    nb.grid = again;
    static outputs got;
    canary(&got);
    if (call(&sorted, &nb, &got, 0, n) != CROWDSTEER_OK) {
      failed |= fail("sorted crowd rejected", c);
    } else {
      cs_fuzz_neighbour_counters.cell_orders_checked++;
      for (int k = 0; k < c->dims; k++)
        for (size_t s = 0; s < n; s++)
          if (!cs_fuzz_same_bits(got.v[k][s], want->v[k][order[s]]))
            failed |= fail("sorted crowd with its ids differs", c);
    }
  }
  crowdsteer_grid_destroy(again);
  return failed;
}

/* The queries' outputs: counts, then k nearest (indices and squared
 * distances) and how many were found, each row of the batch. */
enum { MAX_K = 8 };
typedef struct query_outputs {
  uint32_t count[MAX_AGENTS + 1], found[MAX_AGENTS + 1];
  uint32_t index[(MAX_AGENTS + 1) * MAX_K];
  float distance[(MAX_AGENTS + 1) * MAX_K];
} query_outputs;

static crowdsteer_status run_queries(nb_case *c, const crowdsteer_neighbours *nb,
                                     query_outputs *q) {
  memset(q, 0xA5, sizeof *q);
  const crowdsteer_agents agents = agents_of(c);
  const crowdsteer_status counted =
      crowdsteer_neighbour_count(&agents, nb, q->count, c->begin, c->end);
  const crowdsteer_status nearest = crowdsteer_neighbour_nearest(
      &agents, nb, c->nearest_k, q->index, q->distance, q->found, c->begin, c->end);
  return counted != CROWDSTEER_OK ? counted : nearest;
}

/* Property 9 (`brute` is the query without a grid, `query` with it). */
static int check_queries(nb_case *c, const crowdsteer_neighbours *brute,
                         const crowdsteer_neighbours *query) {
  static query_outputs want, got, untouched;
  const crowdsteer_status st_brute = run_queries(c, brute, &want);
  const crowdsteer_status st = run_queries(c, query, &got);
  memset(&untouched, 0xA5, sizeof untouched);
  const size_t k = c->nearest_k;
  int failed = 0;
  /* Rows outside [begin, end) untouched; on error, nothing written. */
  for (size_t i = 0; i <= MAX_AGENTS; i++) {
    const int row = i >= c->begin && i < c->end;
    for (const query_outputs *o = &want; o; o = o == &want ? &got : NULL) {
      const crowdsteer_status status = o == &want ? st_brute : st;
      if ((!row || status != CROWDSTEER_OK) &&
          (o->count[i] != untouched.count[i] || o->found[i] != untouched.found[i] ||
           memcmp(&o->index[i * k], &untouched.index[i * k], k * 4) != 0))
        failed |= fail("query wrote outside its rows or on error", c);
    }
  }
  /* A field of view needs velocities, which a positions-only grid lacks. */
  if (c->desc.positions_only && c->nb.field_of_view && st_brute == CROWDSTEER_OK)
    return failed |
           (st != CROWDSTEER_ERROR_PARAMETER
                ? fail("query with a view on a positions-only grid not PARAMETER", c)
                : 0);
  /* A grid may refuse what the definition takes (a radius past its cells),
   * never the other way round. */
  if (st == CROWDSTEER_OK && st_brute != CROWDSTEER_OK)
    return failed | fail("query accepted through the grid, not without one", c);
  if (st != CROWDSTEER_OK || st_brute != CROWDSTEER_OK ||
      (c->id_mode == 2 && c->nb.max_neighbours != 0))
    return failed;
  cs_fuzz_neighbour_counters.queries_compared++;
  for (size_t i = c->begin; i < c->end; i++)
    if (got.count[i] != want.count[i] || got.found[i] != want.found[i] ||
        memcmp(&got.index[i * k], &want.index[i * k], k * 4) != 0 ||
        memcmp(&got.distance[i * k], &want.distance[i * k], k * 4) != 0 ||
        got.found[i] != (want.count[i] < k ? want.count[i] : k))
      return failed | fail("query through the grid differs from without one", c);
  return failed;
}

int cs_fuzz_neighbours(const uint8_t *data, size_t size, int isa_override) {
  reader r = {data, size, 0, 0x4E42ull + size};
  static nb_case c; /* large: keep it off the stack */
  decode(&r, &c);
  cs_fuzz_neighbour_counters.cases++;
  int isa = isa_override >= 0 ? isa_override : c.isa;
  if (!crowdsteer_isa_supported((crowdsteer_isa)isa)) isa = CROWDSTEER_ISA_SCALAR;
  if (crowdsteer_force_isa((crowdsteer_isa)isa) != CROWDSTEER_OK) abort();
  crowdsteer_grid *grid;
  if (crowdsteer_grid_create(&grid) != CROWDSTEER_OK) return fail("grid_create", &c);
  crowdsteer_agents agents = agents_of(&c);
  const crowdsteer_status built = crowdsteer_grid_build(grid, &agents, &c.desc);
  const float cell = c.desc.cell_size;
  const int cell_ok = cell >= FLT_MIN && cell <= FLT_MAX; /* a normal float */
  const int table_ok = (c.desc.table_size & (c.desc.table_size - 1)) == 0;
  int failed = 0;
  if ((built == CROWDSTEER_OK) != (cell_ok && table_ok))
    failed |= fail("grid build status", &c);
  /* Without a grid: the definition. */
  crowdsteer_neighbours brute = c.nb;
  brute.group = c.desc.group;
  if (brute.radius == 0.0f && built == CROWDSTEER_OK) brute.radius = cell;
  static outputs want, got, parts;
  canary(&want);
  const crowdsteer_status st_brute = call(&c, &brute, &want, c.begin, c.end);
  if (st_brute != CROWDSTEER_OK && !untouched_outside(&c, &want, 0, 0))
    failed |= fail("brute force wrote on error", &c);
  if (st_brute == CROWDSTEER_OK && !untouched_outside(&c, &want, c.begin, c.end))
    failed |= fail("brute force wrote outside its range", &c);
  if (st_brute == CROWDSTEER_OK) failed |= check_reversed(&c, &brute, &want);
  if (built == CROWDSTEER_OK) {
    crowdsteer_neighbours query = c.nb;
    query.grid = grid;
    canary(&got);
    const crowdsteer_status st = call(&c, &query, &got, c.begin, c.end);
    if (st != CROWDSTEER_OK && !untouched_outside(&c, &got, 0, 0))
      failed |= fail("grid query wrote on error", &c);
    /* Before check_step, which integrates the crowd. */
    failed |= check_cell_order(&c, grid, &query, st == CROWDSTEER_OK ? &got : NULL);
    failed |= check_queries(&c, &brute, &query);
    /* A grid without velocities serves separation without a view only. */
    const int reads_velocities = c.behaviour != 0 || c.nb.field_of_view;
    if (c.desc.positions_only && reads_velocities && st != CROWDSTEER_ERROR_PARAMETER &&
        st_brute == CROWDSTEER_OK)
      failed |= fail("velocity query on a positions-only grid not PARAMETER", &c);
    if (st == CROWDSTEER_OK) {
      cs_fuzz_neighbour_counters.queries_accepted++;
      cs_fuzz_neighbour_counters.reynolds_accepted +=
          c.nb.form == CROWDSTEER_FORM_REYNOLDS;
      if (st_brute != CROWDSTEER_OK)
        failed |= fail("grid accepted, brute force did not", &c);
      else if (!same_outputs(&c, &got, &want) &&
               !(c.id_mode == 2 && c.nb.max_neighbours != 0))
        failed |= fail("grid differs from brute force", &c);
      canary(&parts);
      if (call(&c, &query, &parts, c.split, c.end) != CROWDSTEER_OK ||
          call(&c, &query, &parts, c.begin, c.split) != CROWDSTEER_OK ||
          !same_outputs(&c, &parts, &got))
        failed |= fail("split calls differ", &c);
      if (moderate(&c) && c.weight == c.weight)
        for (int k = 0; k < c.dims; k++)
          for (size_t i = c.begin; i < c.end; i++)
            if (!isfinite(got.v[k][i])) failed |= fail("non-finite steering", &c);
      failed |= check_step(&c, grid);
    }
  }
  failed |= check_id_index(&c);
  crowdsteer_grid_destroy(grid);
  return failed;
}
