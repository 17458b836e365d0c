/* libFuzzer entry point: an input is one crowdsteer call checked by
 * cs_fuzz_one (fuzz_case.c), or by a case its first two bytes name ("NB":
 * neighbours, "AV": obstacles and avoidance, "NV": navigation fields and
 * pathways); a broken property aborts,
 * which libFuzzer records as a crash with the input saved for replay. */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_avoid.h"
#include "fuzz_case.h"
#include "fuzz_navigation.h"
#include "fuzz_neighbours.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* "NB": the neighbour grid and behaviours (fuzz_neighbours.c). */
  if (size >= 2 && data[0] == 'N' && data[1] == 'B') {
    if (cs_fuzz_neighbours(data + 2, size - 2, -1)) abort();
    return 0;
  }
  /* "AV": obstacles and avoidance (fuzz_avoid.c). */
  if (size >= 2 && data[0] == 'A' && data[1] == 'V') {
    if (cs_fuzz_avoid(data + 2, size - 2, -1)) abort();
    return 0;
  }
  /* "NV": navigation fields, pathways, following (fuzz_navigation.c). */
  if (size >= 2 && data[0] == 'N' && data[1] == 'V') {
    if (cs_fuzz_navigation(data + 2, size - 2, -1)) abort();
    return 0;
  }
  if (cs_fuzz_one(data, size, -1)) abort();
  return 0;
}
