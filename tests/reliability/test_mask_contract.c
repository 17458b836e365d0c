/* The mask contract of crowdsteer_step: per-agent arrays must be readable
 * over [begin, end), but the values of agents a behaviour does not select
 * are never validated and never change any result. One agent in three
 * selects no behaviour with per-agent data (only seek at a point, or
 * nothing) and holds NaN, infinities, negative radii, signalling NaNs,
 * random bits and out-of-batch indices in every such array; the step must
 * succeed with the bits of the same crowd holding sane values there, on
 * every ISA, tile size and thread count. */
#include "../common/all_kinds.h"

enum { COUNT = 4099, GARBAGE_EVERY = 3 };

static float garbage_float(rng *r) {
  static const uint32_t patterns[] = {
      0x7FC00000u, /* NaN */ 0xFFC00000u,        /* -NaN */
      0x7F800001u, /* signalling */ 0x7F800000u, /* +inf */
      0xFF800000u, /* -inf */ 0xF149F2CAu,       /* -1e30 */
      0x7E967699u, /* 1e38 */ 0x80000000u,       /* -0 */
      0x00000001u, /* denormal */ 0xBF800000u,   /* -1 */
  };
  uint32_t bits = rng_below(r, 4) == 0
                      ? (uint32_t)rng_next(r)
                      : patterns[rng_below(r, sizeof patterns / sizeof patterns[0])];
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

/* The per-agent data only behaviours with per-agent data read (the
 * integrator's max_speed, max_force and mass are every agent's). */
static void fill_unselected(scenario *s, const uint32_t *mask, int garbage) {
  rng r = {1234};
  float *per_agent[] = {s->target_radius,   s->slowing_radius, s->panic_radius,
                        s->danger_radius,   s->escape_radius,  s->wander_radius,
                        s->wander_distance, s->weight};
  for (size_t i = 0; i < s->count; i++) {
    if (mask[i] > 1u) continue;
    for (int k = 0; k < 3; k++) {
      s->tp[k][i] = garbage ? garbage_float(&r) : 1.0f;
      s->tv[k][i] = garbage ? garbage_float(&r) : -1.0f;
      s->wander[k][i] = garbage ? garbage_float(&r) : 0.5f;
    }
    for (size_t a = 0; a < sizeof per_agent / sizeof per_agent[0]; a++)
      per_agent[a][i] = garbage ? garbage_float(&r) : 0.5f;
    s->index[i] =
        garbage ? (uint32_t)s->count + (uint32_t)rng_below(&r, 3) * 0x7FFFFFFFu : 0u;
  }
}

static void run(scenario *s, scenario *snapshot, int combine, size_t tile, int threads,
                int garbage) {
  all_kinds_step c;
  all_kinds_make(&c, s, snapshot, combine);
  for (size_t i = 0; i < s->count; i += GARBAGE_EVERY)
    c.mask[i] = (uint32_t)(i / GARBAGE_EVERY) & 1u; /* seek at a point, or nothing */
  fill_unselected(s, c.mask, garbage);
  c.step.snapshot = &c.other;
  c.step.tile_size = tile;
  c.step.threads = threads;
  CHECK_STATUS(crowdsteer_step(&c.agents, &c.step, 0, s->count), CROWDSTEER_OK);
  /* The unselected agents' data back to the sane values (it must not have
   * been written: the wander state of non-wanderers is compared below). */
  if (garbage) {
    scenario untouched;
    scenario_make(&untouched, s->count, s->dims, 0, 0);
    fill_unselected(&untouched, c.mask, 1);
    for (size_t i = 0; i < s->count; i++)
      for (int k = 0; k < s->dims && c.mask[i] <= 1u; k++)
        CHECK_MSG(same_bits(s->wander[k][i], untouched.wander[k][i]),
                  "agent %zu: wander state of a non-wanderer written", i);
    scenario_free(&untouched);
    fill_unselected(s, c.mask, 0);
  }
  all_kinds_free(&c);
}

static void check_all(void) {
  static const size_t tiles[] = {0, 1, 7, 64, 4096};
  static const int threads[] = {1, 2};
  for (int dims = 2; dims <= 3; dims++)
    for (int combine = 0; combine < 2; combine++) {
      scenario want, got, snapshot;
      scenario_make(&snapshot, COUNT, dims, 45, 0);
      scenario_make(&want, COUNT, dims, 45, 0);
      run(&want, &snapshot, combine, 0, 1, 0);
      for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; t++) {
        scenario_make(&got, COUNT, dims, 45, 0);
        run(&got, &snapshot, combine, tiles[t], threads[t % 2], 1);
        CHECK_MSG(same_scenario(&want, &got) &&
                      memcmp(want.index, got.index, COUNT * sizeof(uint32_t)) == 0,
                  "%dd combine %d tile %zu: garbage in unselected agents changed the "
                  "result (isa %s)",
                  dims, combine, tiles[t], crowdsteer_isa_name(crowdsteer_active_isa()));
        scenario_free(&got);
      }
      scenario_free(&want);
      scenario_free(&snapshot);
    }
}

int main(void) {
  if (!on_every_isa(check_all)) return 77;
  return check_report("test_mask_contract");
}
