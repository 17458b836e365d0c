/* How a call spreads independent pieces of work over threads: a host's
 * task system, a team (the library's pool or OpenMP), or the caller's
 * thread alone. Every caller cuts its work into items whose results do not
 * depend on which thread runs them or in what order, so the bits never
 * depend on the spread. */
#ifndef CROWDSTEER_PARALLEL_H
#define CROWDSTEER_PARALLEL_H

#include <stddef.h>

#include "internal.h"

typedef struct cs_spread {
  const crowdsteer_task_system *tasks; /* the host's, or NULL */
  int threads;                         /* without tasks: the team (1: no team) */
} cs_spread;

/* Items [first, last) of a piece of work, with its context. */
typedef void cs_items_fn(void *context, size_t first, size_t last);

/* NULL_POINTER for a task system without enqueue or finish, PARAMETER for
 * a worker count out of 1..1024; OK for NULL (no task system). */
crowdsteer_status cs_tasks_check(const crowdsteer_task_system *tasks);

/* The spread of a call that asks for `threads` (as a step's field: 0 is
 * the OpenMP default) or brings `tasks`, for work of `units` pieces. */
cs_spread cs_spread_for(const crowdsteer_task_system *tasks, int threads, size_t units);

/* How many pieces work that cannot be balanced dynamically is cut into:
 * the task system's workers or the team, at most `units`. */
size_t cs_spread_width(const cs_spread *spread, size_t units);

/* What runs a call's threads when it brings no task system. */
enum { CS_TEAM_POOL = 1, CS_TEAM_OPENMP = 2 };

/* Test hook: every later call's threads run on `team` (a CS_TEAM_ value;
 * the environment's CROWDSTEER_THREADS is not read then). */
void cs_team_force(int team);

/* Runs fn over every item of [0, items) exactly once, in ranges of at
 * least `min_range` items, each range in the library's floating-point
 * environment; returns when all have run. */
void cs_spread_run(const cs_spread *spread, size_t items, size_t min_range,
                   cs_items_fn *fn, void *context);

#endif
