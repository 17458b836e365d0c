/* Cross-platform exactness: hashes of every entry point's outputs for fixed
 * inputs, compared with values recorded from the x86 scalar reference. On
 * aarch64 (under qemu in CI) this proves NEON and the ARM scalar build give
 * the x86 bits; under Node (.ci/steps/45-web.sh), WebAssembly's. */
#include "../common/check.h"
#include "../common/entries.h"
#include "../common/hash.h"

static uint64_t hash_run(const variant *va) {
  scenario s;
  scenario_make(&s, va->count, va->dims, 0xC0FFEEu + (uint64_t)va->dims, 3);
  CHECK_STATUS(run_entry(&s, va, 0, va->count), CROWDSTEER_OK);
  uint64_t h = FNV_OFFSET;
  for (int k = 0; k < va->dims; k++) {
    h = hash_floats(h, s.out[k], s.count);
    h = hash_floats(h, s.wander[k], s.count);
    h = hash_floats(h, s.p[k], s.count);
    h = hash_floats(h, s.v[k], s.count);
  }
  scenario_free(&s);
  return h;
}

int main(int argc, char **argv) {
  if (skip_if_forced_isa_unavailable()) return 77;
  int record = argc > 1 && strcmp(argv[1], "--record") == 0;
  /* Recorded with `test_golden --record` on x86-64, CROWDSTEER_ISA=scalar. */
  static const uint64_t expected[ENTRY_COUNT][2][3] = {
#include "golden_hashes.inc"
  };
  for (int entry = 0; entry < ENTRY_COUNT; entry++) {
    if (record) printf("  {");
    for (int dims = 2; dims <= 3; dims++) {
      if (record) printf("{");
      for (int kind = 0; kind < 3; kind++) {
        if (kind > 0 && entry > EVADE) {
          if (record) printf("0u, ");
          continue;
        }
        variant va = {entry, dims, kind, kind == 1, kind == 2, 777, 3};
        uint64_t h = hash_run(&va);
        if (record)
          printf("0x%016llxull, ", (unsigned long long)h);
        else
          CHECK_MSG(h == expected[entry][dims - 2][kind],
                    "%s %dd target form %d: hash %016llx, recorded %016llx",
                    entry_name(entry), dims, kind, (unsigned long long)h,
                    (unsigned long long)expected[entry][dims - 2][kind]);
      }
      if (record) printf("}, ");
    }
    if (record) printf("}, /* %s */\n", entry_name(entry));
  }
  return record ? 0 : check_report("test_golden");
}
