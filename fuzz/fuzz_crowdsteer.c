/* libFuzzer entry point: every input is one crowdsteer call checked by
 * cs_fuzz_one (fuzz_case.c); a broken property aborts, which libFuzzer
 * records as a crash with the input saved for replay. */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_case.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (cs_fuzz_one(data, size, -1)) abort();
  return 0;
}
