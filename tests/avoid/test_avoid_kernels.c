/* The ORCA line kernel of the ISA in force (2D: src/kernels/avoid_lines.c)
 * against its scalar definition, bit for bit, on neighbour sets that reach
 * every branch: apart (the cut-off circle, either leg), overlapping,
 * coincident, at rest relative to each other, moving along the line
 * between the two, neighbours the agent takes no share of, and every count
 * of the kernel's last block. (3D planes have no kernel: on lanes they
 * were slower than the scalar code, docs/lab-notes.md.) */
#include <string.h>

#include "../common/check.h"
#include "../common/scenario.h"
#include "avoid/avoid.h"

enum { MOST = 40, ROOM = MOST + CS_AVOID_PAD, SETS = 3000 };

/* One neighbour set, padded as the avoidance walk pads it: copies of the
 * last neighbour up to a whole block. */
typedef struct set {
  float p[2][ROOM], v[2][ROOM], radius[ROOM], responsibility[ROOM];
  uint32_t id[ROOM];
  size_t count;
} set;

/* Neighbour k of the agent at p, v as `kind` asks. */
static void make_neighbour(set *s, size_t k, int kind, const float p[2], const float v[2],
                           float inv_dt, rng *r) {
  const int dims = 2;
  for (int c = 0; c < dims; c++) {
    s->p[c][k] = p[c] + rng_range(r, -6.0f, 6.0f);
    s->v[c][k] = rng_range(r, -2.0f, 2.0f);
  }
  s->radius[k] = rng_range(r, 0.1f, 1.5f);
  s->responsibility[k] = rng_below(r, 8) == 0 ? 0.0f : rng_range(r, 0.0f, 1.0f);
  s->id[k] = rng_below(r, 64);
  switch (kind) {
  case 0: /* overlapping */
    for (int c = 0; c < dims; c++)
      s->p[c][k] = p[c] + rng_range(r, -0.2f, 0.2f);
    break;
  case 1: /* coincident, the same velocity */
    for (int c = 0; c < dims; c++)
      s->p[c][k] = p[c], s->v[c][k] = v[c];
    break;
  case 2: /* overlapping, its relative velocity exactly rel / dt: w is 0 */
    for (int c = 0; c < dims; c++) {
      s->p[c][k] = p[c] + rng_range(r, -0.2f, 0.2f);
      s->v[c][k] = v[c] - inv_dt * (s->p[c][k] - p[c]);
    }
    break;
  case 3: { /* apart on an axis, moving along it */
    const int axis = (int)rng_below(r, (uint32_t)dims);
    for (int c = 0; c < dims; c++)
      s->p[c][k] = p[c], s->v[c][k] = v[c];
    s->p[axis][k] = p[axis] + 4.0f;
    s->v[axis][k] = v[axis] - rng_range(r, -3.0f, 3.0f);
    break;
  }
  case 4: /* at rest relative to the agent */
    for (int c = 0; c < dims; c++)
      s->v[c][k] = v[c];
    break;
  default: /* anywhere: the cut-off and the legs or cone */ break;
  }
}

static void pad(set *s) {
  const size_t filled = (s->count + CS_AVOID_PAD - 1) / CS_AVOID_PAD * CS_AVOID_PAD;
  for (size_t k = s->count; k < filled && s->count; k++) {
    for (int c = 0; c < 2; c++)
      s->p[c][k] = s->p[c][s->count - 1], s->v[c][k] = s->v[c][s->count - 1];
    s->radius[k] = s->radius[s->count - 1];
    s->responsibility[k] = s->responsibility[s->count - 1];
    s->id[k] = s->id[s->count - 1];
  }
}

/* The line kernel of the ISA in force, as a call's job picks it. */
static cs_orca_lines_fn lines_in_force(void) {
  static float x[16];
  const crowdsteer_agents agents = {1, 2, x, x, NULL, x, x, NULL, NULL};
  crowdsteer_neighbours nb = {0};
  nb.radius = 1.0f;
  crowdsteer_avoidance av = {0};
  av.neighbours = &nb;
  const crowdsteer_params params = {0};
  cs_avoid_job job;
  CHECK_STATUS(cs_avoid_prepare(&job, &agents, &av, &params, 0, 1), CROWDSTEER_OK);
  return job.lines;
}

static int kernels_tested;

static void every_set(void) {
  const cs_orca_lines_fn lines = lines_in_force();
  if (lines == cs_orca_agent_lines) return; /* no kernel: the definition itself */
  kernels_tested++;
  static set s;
  static cs_orca_line want_lines[ROOM], got_lines[ROOM];
  rng r = {0x5eedu};
  long kinds[6] = {0};
  for (int round = 0; round < SETS; round++) {
    const float inv_tau = rng_below(&r, 2) ? 0.5f : rng_range(&r, 0.05f, 2.0f);
    const float inv_dt = rng_below(&r, 2) ? 4.0f : rng_range(&r, 1.0f, 20.0f);
    const float p[2] = {rng_range(&r, -50.0f, 50.0f), rng_range(&r, -50.0f, 50.0f)};
    const float v[2] = {rng_range(&r, -2.0f, 2.0f), rng_range(&r, -2.0f, 2.0f)};
    const float radius = rng_range(&r, 0.1f, 1.5f);
    const float responsibility =
        rng_below(&r, 16) == 0 ? 0.0f : rng_range(&r, 0.0f, 1.0f);
    const uint32_t id = rng_below(&r, 64);
    memset(&s, 0, sizeof s);
    s.count = round % (MOST + 1);
    for (size_t k = 0; k < s.count; k++) {
      const int kind = (int)rng_below(&r, 6);
      kinds[kind]++;
      make_neighbour(&s, k, kind, p, v, inv_dt, &r);
    }
    pad(&s);
    const cs_orca_agent a = {{p[0], p[1]}, {v[0], v[1]},   radius,
                             2.0f,         responsibility, id};
    const cs_orca_neighbours nb = {s.p[0],   s.p[1],           s.v[0], s.v[1],
                                   s.radius, s.responsibility, s.id,   s.count};
    memset(want_lines, 0, sizeof want_lines), memset(got_lines, 0, sizeof got_lines);
    const size_t want = cs_orca_agent_lines(&a, &nb, inv_tau, inv_dt, want_lines);
    const size_t got = lines(&a, &nb, inv_tau, inv_dt, got_lines);
    CHECK_MSG(want == got && !memcmp(want_lines, got_lines, sizeof want_lines),
              "set %d (%zu neighbours): %zu lines, the kernel %zu or other bits", round,
              s.count, want, got);
  }
  for (int kind = 0; kind < 6; kind++)
    CHECK(kinds[kind] > 1000);
}

int main(void) {
  if (!on_every_isa(every_set) || !kernels_tested) return 77;
  return check_report("test_avoid_kernels");
}
