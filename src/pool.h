/* The library's own worker threads, for a call that asks for more than one
 * thread and brings no task system (see pool.c for why not OpenMP). */
#ifndef CROWDSTEER_POOL_H
#define CROWDSTEER_POOL_H

#include <stddef.h>

#include "parallel.h"

/* Runs fn over every item of [0, items) exactly once, in ranges of
 * `range` items, on the calling thread and at most `threads - 1` pool
 * workers; returns when all have run. Each range runs in the library's
 * floating-point environment. */
void cs_pool_run(int threads, size_t items, size_t range, cs_items_fn *fn, void *context);

/* Test hook: how many workers the pool has started (they never stop
 * before the process ends or the library is unloaded). */
int cs_pool_workers(void);

#endif
