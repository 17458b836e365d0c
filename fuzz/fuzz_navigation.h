/* The navigation fuzz cases (fuzz_navigation.c): inputs with the "NV" prefix. */
#ifndef CROWDSTEER_FUZZ_NAVIGATION_H
#define CROWDSTEER_FUZZ_NAVIGATION_H

#include <stddef.h>
#include <stdint.h>

/* Decodes the bytes after the prefix into a field, pathways and a follow
 * call and checks their properties on every ISA (`isa` is unused: the
 * reference is compared with each). 0 when all hold, else prints what
 * failed and returns 1. */
int cs_fuzz_navigation(const uint8_t *data, size_t size, int isa);

/* Counters over all calls, for the replay test's coverage checks. */
typedef struct cs_fuzz_navigation_stats {
  unsigned long cases, fields_built, fields_refused, paths_made, calls_accepted;
} cs_fuzz_navigation_stats;
extern cs_fuzz_navigation_stats cs_fuzz_navigation_counters;

#endif
