/* Every SIMD backend against the scalar reference, bit for bit: every
 * behaviour and the integrator, 2D and 3D, every target form, uniform and
 * per-agent parameters, overwrite and accumulate, awkward counts, unaligned
 * starts and split ranges. With CROWDSTEER_ISA set, only that ISA is checked. */
#include "../common/check.h"
#include "../common/entries.h"
#include "../common/scenario.h"

/* The arrays an entry point writes: steering, plus wander state or agents. */
static int compare(const scenario *want, const scenario *got, const variant *va,
                   const char *how) {
  float *const *w_arrays[3] = {want->out, want->wander, want->p};
  float *const *g_arrays[3] = {got->out, got->wander, got->p};
  static const char *const array_names[3] = {"steering", "wander", "position"};
  for (int a = 0; a < 3; a++) {
    for (int k = 0; k < va->dims; k++) {
      for (size_t i = 0; i < va->count; i++) {
        float x = w_arrays[a][k][i], y = g_arrays[a][k][i];
        float vx = want->v[k][i], vy = got->v[k][i];
        if (!same_bits(x, y) || !same_bits(vx, vy)) {
          fprintf(stderr,
                  "MISMATCH %s %dd target=%d per_agent=%d accumulate=%d count=%zu "
                  "misalign=%zu [%s] isa=%s agent %zu axis %d: %s reference %a "
                  "(%.9g) vs %a (%.9g); velocity %a vs %a\n",
                  entry_name(va->entry), va->dims, va->target_kind, va->per_agent,
                  va->accumulate, va->count, va->misalign, how,
                  crowdsteer_isa_name(crowdsteer_active_isa()), i, k, array_names[a],
                  (double)x, (double)x, (double)y, (double)y, (double)vx, (double)vy);
          return 0;
        }
      }
    }
  }
  return 1;
}

static void check_variant(const variant *va, const crowdsteer_isa *isas, int isa_count) {
  uint64_t seed = 0x5eed0000u + (uint64_t)va->count * 131u + (uint64_t)va->dims;
  scenario want, got;
  scenario_make(&want, va->count, va->dims, seed, va->misalign);
  CHECK(crowdsteer_force_isa(CROWDSTEER_ISA_SCALAR) == CROWDSTEER_OK);
  CHECK_STATUS(run_entry(&want, va, 0, va->count), CROWDSTEER_OK);
  for (int n = 0; n < isa_count; n++) {
    CHECK(crowdsteer_force_isa(isas[n]) == CROWDSTEER_OK);
    /* One call over the whole batch. */
    scenario_make(&got, va->count, va->dims, seed, (va->misalign + 1 + (size_t)n) % 7);
    CHECK_STATUS(run_entry(&got, va, 0, va->count), CROWDSTEER_OK);
    CHECK(compare(&want, &got, va, "one call"));
    scenario_free(&got);
    /* The same batch in uneven pieces, last piece first. */
    scenario_make(&got, va->count, va->dims, seed, va->misalign);
    size_t n_agents = va->count,
           cuts[5] = {0, 5, n_agents / 3, n_agents * 2 / 3 + 1, n_agents};
    for (int c = 1; c < 5; c++) {
      if (cuts[c] > n_agents) cuts[c] = n_agents;
      if (cuts[c] < cuts[c - 1]) cuts[c] = cuts[c - 1];
    }
    for (int c = 3; c >= 0; c--)
      CHECK_STATUS(run_entry(&got, va, cuts[c], cuts[c + 1]), CROWDSTEER_OK);
    CHECK(compare(&want, &got, va, "split ranges"));
    scenario_free(&got);
  }
  scenario_free(&want);
}

/* A CROWDSTEER_TARGET_AGENT target gives exactly the bits of AGENTS
 * targets whose indices all name that agent, on every ISA (the scalar
 * reference included), in 2D and 3D, with every parameter form. */
static void check_agent_is_agents(const crowdsteer_isa *isas, int isa_count) {
  static const size_t counts[] = {1, 17, 1000};
  for (int n = 0; n < isa_count; n++) {
    CHECK(crowdsteer_force_isa(isas[n]) == CROWDSTEER_OK);
    for (int entry = SEEK; entry <= EVADE; entry++)
      for (int dims = 2; dims <= 3; dims++)
        for (int per_agent = 0; per_agent < 3; per_agent++)
          for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
            variant one = {entry,     dims, CROWDSTEER_TARGET_AGENT, per_agent, c == 1,
                           counts[c], c};
            variant all = one;
            all.target_kind = CROWDSTEER_TARGET_AGENTS;
            scenario a, b;
            uint64_t seed = 0xA6E47u + counts[c] + (uint64_t)dims;
            scenario_make(&a, one.count, dims, seed, one.misalign);
            scenario_make(&b, one.count, dims, seed, one.misalign);
            for (size_t i = 0; i < b.count; i++)
              b.index[i] = b.index[0];
            CHECK_STATUS(run_entry(&a, &one, 0, one.count), CROWDSTEER_OK);
            CHECK_STATUS(run_entry(&b, &all, 0, all.count), CROWDSTEER_OK);
            CHECK(compare(&b, &a, &one, "AGENT vs AGENTS with equal indices"));
            scenario_free(&a);
            scenario_free(&b);
          }
  }
}

int main(void) {
  crowdsteer_isa isas[CROWDSTEER_ISA_COUNT];
  int isa_count = isas_to_test(CROWDSTEER_ISA_SSE4, isas);
  if (isa_count < 0) return 77;
  static const size_t counts[] = {0, 1, 3, 15, 17, 1000, 4099};
  size_t variants = 0;
  for (int entry = 0; entry < ENTRY_COUNT; entry++) {
    int has_target = entry <= EVADE;
    for (int dims = 2; dims <= 3; dims++)
      for (int kind = 0; kind < (has_target ? 4 : 1); kind++)
        for (int per_agent = 0; per_agent < 3; per_agent++)
          for (int accumulate = 0; accumulate < (entry == INTEGRATE ? 1 : 2);
               accumulate++)
            for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
              variant va = {entry, dims, kind, per_agent, accumulate, counts[c], c % 4};
              check_variant(&va, isas, isa_count);
              variants++;
            }
  }
  /* AGENTS targets again with the other gather (the instruction or scalar
   * loads, whichever this CPU did not use above). */
  const int chosen = cs_gather_instruction_pays();
  cs_set_gather_instruction(!chosen);
  for (int entry = 0; entry <= EVADE; entry++)
    for (int dims = 2; dims <= 3; dims++)
      for (int per_agent = 0; per_agent < 3; per_agent++)
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
          variant va = {entry,     dims,         CROWDSTEER_TARGET_AGENTS,
                        per_agent, (int)(c & 1), counts[c],
                        c % 4};
          check_variant(&va, isas, isa_count);
          variants++;
        }
  cs_set_gather_instruction(chosen);
  printf("checked %zu variants on %d ISA(s) against the reference\n", variants,
         isa_count);
  int every = isas_to_test(CROWDSTEER_ISA_SCALAR, isas);
  check_agent_is_agents(isas, every);
  return check_report("test_equivalence");
}
