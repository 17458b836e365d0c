/* What the nearest-k cap costs, counted rather than timed: crowds packed
 * into one cell under caps that bind, on every ISA, with the passes each
 * agent's selection makes over its candidates read from the library's
 * counter (src/internal.h). The radix selection of eight histogram passes
 * and a summing one (a 2,000-agent cell took 200 times the uncapped time)
 * fails the bounds; the grid's bits are checked against the brute force. */
#include "../common/neighbour_crowd.h"

/* The library's count of its selections past the kept buffer (internal.h). */
typedef struct cs_selection_work {
  uint64_t selections, candidates, visits, most_passes;
} cs_selection_work;
void cs_count_selections(int on);
cs_selection_work cs_selection_counts(void);

enum {
  COUNT = 200,
  /* Any crowd: 63 key bits decided 7 at a time, the collecting pass, and
   * one up to the cap-th key for agents sharing an id (neighbours.c). */
  MOST_PASSES = 11
};

typedef enum { SPREAD, POINT, SHARED_IDS, LATTICE, SHAPES } shape;
static const char *const shape_name[SHAPES] = {"spread", "point", "shared ids",
                                               "lattice"};

/* Passes over every candidate a shape's selections may take on average,
 * in hundredths: distinct distances decide in 2 histograms (the
 * exponent's high bits, then the next 7 that differ), a point in 2 (every
 * distance equal, then the ids' highest differing bits), each then
 * collecting; one id at one point is a single key, summed up to the cap
 * in scan order after 1 histogram. */
static const uint64_t passes_allowed[SHAPES] = {300, 300, 200, 300};

static crowd crowd_of(shape s, int dims, uint32_t *ids) {
  crowd c;
  crowd_init(&c, COUNT, dims);
  rng r = {1234u + (uint64_t)s};
  for (size_t i = 0; i < COUNT; i++) {
    for (int k = 0; k < dims; k++) {
      float x = 0.5f;
      if (s == SPREAD) x = rng_range(&r, 0.0f, 1.0f);
      if (s == LATTICE) { /* 15 points a row, 1/16 apart: many equal distances */
        const size_t row = k == 0 ? 1 : k == 1 ? 15 : 225;
        x = (float)(i / row % 15) / 16.0f;
      }
      c.a[k][i] = x;
      c.a[3 + k][i] = rng_range(&r, -1.0f, 1.0f);
    }
    ids[i] = s == SHARED_IDS ? 7u : (uint32_t)(COUNT - i) * 0x9E3779B1u;
  }
  c.agents.id = ids;
  return c;
}

static void check_shape(shape s, int dims, uint32_t cap) {
  uint32_t ids[COUNT];
  crowd c = crowd_of(s, dims, ids);
  crowdsteer_grid *grid = NULL;
  CHECK_STATUS(crowdsteer_grid_create(&grid), CROWDSTEER_OK);
  crowdsteer_grid_desc desc = {0};
  desc.cell_size = 2.0f; /* the whole crowd in one cell, everyone a neighbour */
  CHECK_STATUS(crowdsteer_grid_build(grid, &c.agents, &desc), CROWDSTEER_OK);
  crowdsteer_params params = {0};
  params.max_speed = 2.0f;
  params.time_to_target = 0.5f;
  crowdsteer_output out = crowd_output(&c);
  float want[3][COUNT];
  for (int b = 0; b < NB_BEHAVIOURS; b++)
    for (int g = 0; g < 2; g++) {
      crowdsteer_neighbours nb = {0};
      nb.radius = 2.0f;
      nb.grid = g ? grid : NULL;
      nb.max_neighbours = cap;
      cs_count_selections(1);
      CHECK_STATUS(nb_call(b, &c, &nb, &params, &out, 0, COUNT), CROWDSTEER_OK);
      const cs_selection_work w = cs_selection_counts();
      cs_count_selections(0);
      /* Each agent selects among all COUNT - 1 others. */
      const char *how = g ? "grid" : "brute force";
      CHECK_MSG(w.selections == COUNT && w.candidates >= w.selections * (COUNT - 1),
                "%s %dd %s cap %u, %s: %llu selections of %llu candidates", shape_name[s],
                dims, nb_name(b), cap, how, (unsigned long long)w.selections,
                (unsigned long long)w.candidates);
      CHECK_MSG(w.visits * 100 <= w.candidates * passes_allowed[s] &&
                    w.most_passes <= MOST_PASSES,
                "%s %dd %s cap %u, %s: %.2f passes over the candidates (at most %.2f), "
                "%llu at most (at most %d)",
                shape_name[s], dims, nb_name(b), cap, how,
                (double)w.visits / (double)(w.candidates ? w.candidates : 1),
                (double)passes_allowed[s] / 100.0, (unsigned long long)w.most_passes,
                MOST_PASSES);
      for (int k = 0; k < dims; k++)
        for (size_t i = 0; i < COUNT; i++) {
          /* Agents sharing an id: the order scanned decides (crowdsteer.h). */
          if (!g || s == SHARED_IDS)
            want[k][i] = c.out[k][i];
          else if (!same_bits(c.out[k][i], want[k][i])) {
            CHECK_MSG(0, "%s %dd %s cap %u: agent %zu axis %d, grid %a, brute force %a",
                      shape_name[s], dims, nb_name(b), cap, i, k, (double)c.out[k][i],
                      (double)want[k][i]);
            k = dims;
            break;
          }
        }
    }
  crowdsteer_grid_destroy(grid);
  crowd_free(&c);
}

static void check_all(void) {
  static const uint32_t caps[3] = {COUNT - 2, COUNT / 2, 65};
  for (int dims = 2; dims <= 3; dims++)
    for (int s = 0; s < SHAPES; s++)
      for (int k = 0; k < 3; k++)
        check_shape((shape)s, dims, caps[k]);
}

int main(void) {
  if (!on_every_isa(check_all)) return 77;
  return check_report("test_neighbours_selection");
}
