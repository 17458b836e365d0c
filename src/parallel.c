/* The ways a call's pieces of work run (see parallel.h). The library's
 * pool (pool.c) and OpenMP teams take ranges dynamically, so a worker whose
 * core the host needs holds back only its current range; a host's task
 * system decides itself. */
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "parallel.h"
#include "pool.h"

enum { MAX_TASK_WORKERS = 1024 };

crowdsteer_status cs_tasks_check(const crowdsteer_task_system *tasks) {
  if (!tasks) return CROWDSTEER_OK;
  if (!tasks->enqueue || !tasks->finish) return CROWDSTEER_ERROR_NULL_POINTER;
  if (tasks->worker_count < 1 || tasks->worker_count > MAX_TASK_WORKERS)
    return CROWDSTEER_ERROR_PARAMETER;
  return CROWDSTEER_OK;
}

/* How many threads work split into `units` pieces runs on: what the caller
 * asks for (0: the OpenMP default), but no more than the pieces, the OpenMP
 * thread limit and four per processor: more threads only wait, and a team
 * of tens of thousands cannot even be started (libgomp crashes). */
int cs_team_size(int requested, size_t units) {
#ifdef _OPENMP
  long long size = requested ? requested : omp_get_max_threads();
  const long long most[3] = {(long long)(units < INT_MAX ? units : INT_MAX),
                             omp_get_thread_limit(), 4LL * omp_get_num_procs()};
  for (int m = 0; m < 3; m++)
    if (size > most[m]) size = most[m];
  return size > 1 ? (int)size : 1;
#else
  (void)requested;
  (void)units;
  return 1;
#endif
}

cs_spread cs_spread_for(const crowdsteer_task_system *tasks, int threads, size_t units) {
  cs_spread spread = {tasks, 1};
  /* threads = 1 makes no OpenMP call at all: a fiber or short-lived host
   * thread that calls with 1 never gets OpenMP runtime state. */
  if (!tasks && threads != 1) spread.threads = cs_team_size(threads, units);
  return spread;
}

size_t cs_spread_width(const cs_spread *spread, size_t units) {
  const size_t width =
      spread->tasks ? spread->tasks->worker_count : (size_t)spread->threads;
  return width < units ? width : (units ? units : 1);
}

typedef struct task_run {
  cs_items_fn *fn;
  void *context;
  size_t per_item; /* the work's items per task item (a task counts in 32 bits) */
  size_t items;
} task_run;

static void task_entry(uint32_t first, uint32_t last, void *context) {
  const task_run *run = context;
  const cs_fpenv host = cs_fpenv_enter(); /* the host's worker keeps its mode */
  const size_t from = (size_t)first * run->per_item;
  const size_t to = (size_t)last * run->per_item;
  run->fn(run->context, from, to < run->items ? to : run->items);
  cs_fpenv_leave(host);
}

/* Out of line: clang asks libomp for the calling thread's number on entry
 * to any function with a parallel region, which would give a host thread
 * that never runs a team OpenMP state. */
__attribute__((noinline)) static void
run_on_team(int threads, size_t items, size_t min_range, cs_items_fn *fn, void *context) {
#ifdef _OPENMP
  const long long ranges = (long long)((items + min_range - 1) / min_range);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (long long r = 0; r < ranges; r++) {
    /* Workers keep whatever mode they were created in or a host set. */
    const cs_fpenv worker = cs_fpenv_enter();
    const size_t first = (size_t)r * min_range;
    const size_t last = items - first < min_range ? items : first + min_range;
    fn(context, first, last);
    cs_fpenv_leave(worker);
  }
#else
  (void)threads;
  (void)min_range;
  fn(context, 0, items);
#endif
}

/* Which runs a call's threads: 0 not decided yet, else a CS_TEAM_ value. */
static atomic_int team_kind;

void cs_team_force(int team) { atomic_store(&team_kind, team); }

/* CROWDSTEER_THREADS=openmp picks OpenMP teams; anything else the pool.
 * Read once: racing first calls read the same environment. */
static int team_in_use(void) {
  int kind = atomic_load_explicit(&team_kind, memory_order_relaxed);
  if (!kind) {
    const char *name = getenv("CROWDSTEER_THREADS");
    kind = name && strcmp(name, "openmp") == 0 ? CS_TEAM_OPENMP : CS_TEAM_POOL;
    int unset = 0;
    if (!atomic_compare_exchange_strong(&team_kind, &unset, kind)) kind = unset;
  }
  return kind;
}

void cs_spread_run(const cs_spread *spread, size_t items, size_t min_range,
                   cs_items_fn *fn, void *context) {
  if (!items) return;
  if (!min_range) min_range = 1;
  if (spread->tasks) {
    const crowdsteer_task_system *tasks = spread->tasks;
    task_run run = {fn, context, items / UINT32_MAX + 1, items};
    const size_t task_items = (items + run.per_item - 1) / run.per_item;
    size_t task_min = (min_range + run.per_item - 1) / run.per_item;
    if (task_min > UINT32_MAX) task_min = UINT32_MAX;
    void *handle = tasks->enqueue(task_entry, (uint32_t)task_items, (uint32_t)task_min,
                                  &run, tasks->host_context);
    if (handle) tasks->finish(handle, tasks->host_context);
    return;
  }
  if (spread->threads > 1 && items > min_range) {
    if (team_in_use() == CS_TEAM_OPENMP)
      run_on_team(spread->threads, items, min_range, fn, context);
    else
      cs_pool_run(spread->threads, items, min_range, fn, context);
    return;
  }
  fn(context, 0, items);
}
