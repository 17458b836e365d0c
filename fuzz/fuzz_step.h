/* The crowdsteer_step fuzz cases (fuzz_step.c), which cs_fuzz_one hands the
 * inputs whose first byte says so. */
#ifndef CROWDSTEER_FUZZ_STEP_H
#define CROWDSTEER_FUZZ_STEP_H

#include "fuzz_common.h"

/* One crowdsteer_step case from the reader; same return value and
 * isa_override as cs_fuzz_one. */
int cs_fuzz_step(reader *r, int isa_override);

#endif
