/* One fuzz case: bytes -> one crowdsteer call (any entry point, crowdsteer_step
 * included, valid or not)
 * plus the property checks. Shared by the libFuzzer harness and the replay
 * test in tests/reliability, so a finding replays through the same checks. */
#ifndef CROWDSTEER_FUZZ_CASE_H
#define CROWDSTEER_FUZZ_CASE_H

#include <stddef.h>
#include <stdint.h>

#include "fuzz_common.h" /* cs_fuzz_counters, for the replay test's summary */

/* Decodes `data` into a call and checks every property (see fuzz_case.c).
 * `isa` >= 0 runs the call on that ISA instead of the one the bytes choose
 * (the replay test uses it to cover every backend). Returns 0 when all
 * properties hold; otherwise prints what failed on stderr and returns 1. */
int cs_fuzz_one(const uint8_t *data, size_t size, int isa);

#endif
