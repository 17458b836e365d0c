/* The neighbour fixture of the test family (tests/common): a crowd owning
 * its arrays, random crowds at a chosen density (plain integer and IEEE
 * arithmetic, so the same floats everywhere), and calls of the three
 * neighbour behaviours by number, named by the library's table. */
#ifndef CROWDSTEER_TEST_NEIGHBOUR_CROWD_H
#define CROWDSTEER_TEST_NEIGHBOUR_CROWD_H

#include "check.h"
#include "scenario.h"

enum {
  NB_SEPARATION = CROWDSTEER_SEPARATION - CROWDSTEER_SEPARATION,
  NB_COHESION = CROWDSTEER_COHESION - CROWDSTEER_SEPARATION,
  NB_ALIGNMENT = CROWDSTEER_ALIGNMENT - CROWDSTEER_SEPARATION,
  NB_BEHAVIOURS
};

static inline const char *nb_name(int behaviour) {
  return crowdsteer_behaviour_name(
      (crowdsteer_behaviour)(CROWDSTEER_SEPARATION + behaviour));
}

typedef struct crowd {
  size_t count;
  int dims;
  float *a[6]; /* px py pz vx vy vz */
  float *out[3];
  uint32_t *group;
  crowdsteer_agents agents;
} crowd;

static inline void crowd_init(crowd *c, size_t count, int dims) {
  memset(c, 0, sizeof *c);
  c->count = count;
  c->dims = dims;
  for (int k = 0; k < 6; k++)
    c->a[k] = (float *)calloc(count + 1, sizeof(float));
  for (int k = 0; k < 3; k++)
    c->out[k] = (float *)calloc(count + 1, sizeof(float));
  c->group = (uint32_t *)calloc(count + 1, sizeof(uint32_t));
  c->agents = (crowdsteer_agents){count,   dims,    c->a[0], c->a[1], c->a[2],
                                  c->a[3], c->a[4], c->a[5], NULL};
}

static inline void crowd_free(crowd *c) {
  for (int k = 0; k < 6; k++)
    free(c->a[k]);
  for (int k = 0; k < 3; k++)
    free(c->out[k]);
  free(c->group);
}

/* Agents uniformly in a box holding about `density` agents per radius-ball
 * (radius 1), velocities in [-1, 1), group bits 1 << (0..3). */
static inline void crowd_random(crowd *c, rng *r, float density) {
  const float per_unit = density / (c->dims == 2 ? 3.14159f : 4.18879f);
  float side = 1.0f;
  if (c->dims == 2) {
    while (side * side * per_unit < (float)c->count)
      side *= 1.05f;
  } else {
    while (side * side * side * per_unit < (float)c->count)
      side *= 1.05f;
  }
  for (size_t i = 0; i < c->count; i++) {
    for (int k = 0; k < c->dims; k++) {
      c->a[k][i] = rng_range(r, -side / 2, side / 2);
      c->a[3 + k][i] = rng_range(r, -1.0f, 1.0f);
    }
    c->group[i] = 1u << rng_below(r, 4);
  }
}

static inline crowdsteer_output crowd_output(crowd *c) {
  crowdsteer_output o;
  memset(&o, 0, sizeof o);
  o.steering =
      (crowdsteer_vectors){c->out[0], c->out[1], c->dims == 3 ? c->out[2] : NULL};
  return o;
}

static inline crowdsteer_status nb_call(int behaviour, crowd *c,
                                        const crowdsteer_neighbours *nb,
                                        const crowdsteer_params *params,
                                        const crowdsteer_output *out, size_t begin,
                                        size_t end) {
  switch (behaviour) {
  case NB_SEPARATION:
    return crowdsteer_separation(&c->agents, nb, params, out, begin, end);
  case NB_COHESION: return crowdsteer_cohesion(&c->agents, nb, params, out, begin, end);
  default: return crowdsteer_alignment(&c->agents, nb, params, out, begin, end);
  }
}

/* The options of a neighbour test's query (test_forms, test_query). */
typedef struct nb_options {
  int form, fov, cap, mask, per_agent;
  float inner;
} nb_options;

/* Radius 1, a view of cos 0.25 when asked, groups from the crowd (mask
 * 0x5 when asked), per-agent radii from `radii` when asked. */
static inline crowdsteer_neighbours nb_options_query(const crowd *c, const nb_options *o,
                                                     const float *radii) {
  crowdsteer_neighbours nb;
  memset(&nb, 0, sizeof nb);
  nb.radius = 1.0f;
  nb.form = o->form;
  nb.inner_radius = o->inner;
  nb.field_of_view = o->fov;
  nb.cos_field_of_view = 0.25f;
  nb.max_neighbours = (uint32_t)o->cap;
  nb.neighbour_mask = o->mask ? 0x5u : 0u;
  nb.group = c->group;
  if (o->per_agent) nb.radius_per_agent = radii;
  return nb;
}

/* crowd_random, then the first `cluster` agents packed within 0.15 of the
 * origin, every 11th from the 5th on the spot of the one before it
 * (coincident, and equal distances to everyone else), every 13th from the
 * 7th at rest; radii[i] in [0.4, 1). */
static inline void crowd_varied(crowd *c, rng *r, float density, size_t cluster,
                                float *radii) {
  crowd_random(c, r, density);
  for (size_t i = 0; i < c->count; i++) {
    for (int k = 0; i < cluster && k < c->dims; k++)
      c->a[k][i] = rng_range(r, -0.15f, 0.15f);
    for (int k = 0; i % 11 == 5 && k < c->dims; k++)
      c->a[k][i] = c->a[k][i - 1];
    for (int k = 0; i % 13 == 7 && k < c->dims; k++)
      c->a[3 + k][i] = 0.0f;
    radii[i] = rng_range(r, 0.4f, 1.0f);
  }
}

/* check(c, grid, o) for every crowd of crowd_varied (density 8, the first
 * 90 clustered in crowds of 300 or more), 2D and 3D, of each size and each
 * variant of the options, seeded from `seed`, with one grid for all. */
typedef void (*nb_crowd_check)(crowd *c, crowdsteer_grid *grid, const nb_options *o);
static inline void nb_every_crowd(const size_t *sizes, size_t size_count,
                                  const nb_options *variants, size_t variant_count,
                                  uint64_t seed, float *radii, nb_crowd_check check) {
  crowdsteer_grid *grid = NULL;
  CHECK(crowdsteer_grid_create(&grid) == CROWDSTEER_OK);
  for (int dims = 2; dims <= 3; dims++)
    for (size_t s = 0; s < size_count; s++)
      for (size_t v = 0; v < variant_count; v++) {
        crowd c;
        crowd_init(&c, sizes[s], dims);
        rng r = {seed + 97u * (uint64_t)s + 7u * (uint64_t)v + (uint64_t)dims};
        crowd_varied(&c, &r, 8.0f, sizes[s] >= 300 ? 90 : 0, radii);
        check(&c, grid, &variants[v]);
        crowd_free(&c);
      }
  crowdsteer_grid_destroy(grid);
}

#endif
