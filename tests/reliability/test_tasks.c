/* Grid builds (each sort), steps with neighbour behaviours and the
 * neighbour behaviours' own calls give the same bits on one thread, on the
 * library's pool (teams of 2, 3, 8 and the default), on OpenMP teams and
 * on a host's pthread pool of 1 to 8 workers; two host threads may share
 * either pool, and a forked child steps on threads too; a bad task system
 * is refused before anything is written. Run under ThreadSanitizer too. */
#define _POSIX_C_SOURCE 200809L /* fork, waitpid */
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../examples/task_pool.h"
#include "../common/check.h"
#include "../common/neighbour_crowd.h"

enum { BUILD_AGENTS = 140000, STEP_AGENTS = 20000, MAX_WORKERS = 8 };

/* How a call is spread: one thread, a team (the library's pool or
 * OpenMP: `team`, a CS_TEAM_ value), or a host's pool. */
typedef struct spread_case {
  int threads;
  const crowdsteer_task_system *tasks;
  int team;
} spread_case;

enum { TEAM_POOL = 1, TEAM_OPENMP = 2 };

/* The teams without a task system, and the host's pools (w workers). */
static const spread_case library_teams[] = {{2, NULL, TEAM_POOL},
                                            {3, NULL, TEAM_POOL},
                                            {8, NULL, TEAM_POOL},
                                            {0, NULL, TEAM_POOL},
                                            {2, NULL, TEAM_OPENMP}};
enum { LIBRARY_TEAMS = sizeof library_teams / sizeof library_teams[0] };

static uint32_t hash_words(uint32_t h, const void *data, size_t words) {
  const uint32_t *w = data;
  for (size_t i = 0; i < words; i++)
    h = (h ^ w[i]) * 16777619u;
  return h;
}

/* A build of crowd c with the sort forced to `way` (1: the partitioned
 * passes, 2: the direct sort), hashed by the order it gives and a
 * separation query over it. */
static uint32_t build_hash(crowd *c, crowdsteer_grid *grid, int way, spread_case sc) {
  crowdsteer_grid_desc desc;
  memset(&desc, 0, sizeof desc);
  desc.cell_size = 1.0f;
  desc.group = c->group;
  desc.threads = sc.threads;
  desc.tasks = sc.tasks;
  cs_team_force(sc.team ? sc.team : TEAM_POOL);
  cs_grid_set_sort(way);
  CHECK_STATUS(crowdsteer_grid_build(grid, &c->agents, &desc), CROWDSTEER_OK);
  cs_grid_set_sort(0);
  size_t n = 0;
  const uint32_t *order = crowdsteer_grid_order(grid, &n);
  CHECK(order && n == c->count);
  return order ? hash_words(2166136261u, order, n) : 0;
}

/* A step of seek and the three neighbour behaviours out of place, then
 * each neighbour behaviour's own call, all spread as sc says. */
static uint32_t step_hash(crowd *c, crowdsteer_grid *grid, crowd *next, spread_case sc) {
  crowdsteer_grid_desc desc;
  memset(&desc, 0, sizeof desc);
  desc.cell_size = 1.0f;
  desc.threads = sc.threads;
  desc.tasks = sc.tasks;
  if (sc.team) cs_team_force(sc.team);
  CHECK_STATUS(crowdsteer_grid_build(grid, &c->agents, &desc), CROWDSTEER_OK);
  crowdsteer_neighbours nb;
  memset(&nb, 0, sizeof nb);
  nb.grid = grid;
  nb.radius = 1.0f;
  nb.tasks = sc.tasks;
  crowdsteer_step_behaviour b[4];
  memset(b, 0, sizeof b);
  b[0].behaviour = CROWDSTEER_SEEK;
  b[0].target.kind = CROWDSTEER_TARGET_POINT;
  for (int k = 1; k < 4; k++) {
    b[k].behaviour = (crowdsteer_behaviour)(CROWDSTEER_SEPARATION + k - 1);
    b[k].weight = 0.5f * (float)k;
    b[k].neighbours = &nb;
  }
  crowdsteer_step_desc step;
  memset(&step, 0, sizeof step);
  step.behaviours = b;
  step.behaviour_count = 4;
  step.integrator.max_speed = 2.0f;
  step.integrator.dt = 0.05f;
  step.output = &next->agents;
  step.threads = sc.threads;
  step.tasks = sc.tasks;
  step.tile_size = 256;
  CHECK_STATUS(crowdsteer_step(&c->agents, &step, 0, c->count), CROWDSTEER_OK);
  uint32_t h = 2166136261u;
  for (int k = 0; k < 6; k++)
    if (k % 3 < c->dims) h = hash_words(h, next->a[k], c->count);
  crowdsteer_params params;
  memset(&params, 0, sizeof params);
  crowdsteer_output out = crowd_output(c);
  for (int behaviour = 0; behaviour < NB_BEHAVIOURS; behaviour++) {
    CHECK_STATUS(nb_call(behaviour, c, &nb, &params, &out, 7, c->count - 5),
                 CROWDSTEER_OK);
    for (int k = 0; k < c->dims; k++)
      h = hash_words(h, c->out[k], c->count);
  }
  return h;
}

typedef struct sharer {
  crowd *c, *next;
  crowdsteer_grid *grid;
  spread_case sc;
  uint32_t hash;
} sharer;

static void *share_pool(void *arg) {
  sharer *s = arg;
  s->hash = step_hash(s->c, s->grid, s->next, s->sc);
  return NULL;
}

static task_pool pools[MAX_WORKERS + 1]; /* pools[w]: w workers */

#if defined(__SANITIZE_THREAD__)
#define UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UNDER_TSAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

/* A child forked after the pool started has none of its workers: its
 * threaded step must neither wait for them nor hang at exit. (Not under
 * ThreadSanitizer, which stops a forked child that starts threads.) */
static void forked_child_steps(crowd *c, crowdsteer_grid *grid, crowd *next,
                               uint32_t steps) {
#ifndef UNDER_TSAN
  fflush(NULL);
  const pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    const spread_case team = {2, NULL, TEAM_POOL};
    const int code = step_hash(c, grid, next, team) == steps ? 0 : 1;
#ifdef UNDER_ASAN
    /* LeakSanitizer's exit check in a child forked from many threads
     * sees the parent's threads and reports the crowds as leaks. */
    _exit(code);
#else
    /* exit, not _exit: the library's handlers run (its workers joined),
     * as in any child. */
    exit(code);
#endif
  }
  int status = 0;
  CHECK(child < 0 || waitpid(child, &status, 0) == child);
  CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
            "a forked child's step: other bits or no clean exit");
#else
  (void)c;
  (void)grid;
  (void)next;
  (void)steps;
#endif
}

static void same_bits_on_isa(void) {
  rng r = {45};
  for (int dims = 2; dims <= 3; dims++) {
    crowd big, c, next;
    crowd_init(&big, BUILD_AGENTS, dims);
    crowd_random(&big, &r, 4.0f);
    crowd_init(&c, STEP_AGENTS, dims);
    crowd_random(&c, &r, 4.0f);
    crowd_init(&next, STEP_AGENTS, dims);
    for (size_t i = 0; i < big.count; i++)
      big.group[i] = (uint32_t)i % 5u;
    crowdsteer_grid *grid = NULL;
    CHECK(crowdsteer_grid_create(&grid) == CROWDSTEER_OK);
    const spread_case alone = {1, NULL, 0};
    const uint32_t builds[2] = {build_hash(&big, grid, 1, alone),
                                build_hash(&big, grid, 2, alone)};
    const uint32_t steps = step_hash(&c, grid, &next, alone);
    /* The library's teams first (one thread without OpenMP), then the
     * host's pools of w = 1 .. MAX_WORKERS workers. */
    for (int k = 0; k < LIBRARY_TEAMS + MAX_WORKERS; k++) {
      const int w = k - LIBRARY_TEAMS + 1;
      const spread_case sc =
          k < LIBRARY_TEAMS ? library_teams[k] : (spread_case){2, &pools[w].system, 0};
      for (int way = 1; way <= 2; way++)
        CHECK_MSG(build_hash(&big, grid, way, sc) == builds[way - 1],
                  "%dD build, sort %d, case %d: other order (isa %s)", dims, way, k,
                  crowdsteer_isa_name(crowdsteer_active_isa()));
      CHECK_MSG(step_hash(&c, grid, &next, sc) == steps,
                "%dD step, case %d: other bits (isa %s)", dims, k,
                crowdsteer_isa_name(crowdsteer_active_isa()));
    }
    cs_team_force(TEAM_POOL);
    /* The pool did run on workers wherever a call may have a team. */
    CHECK(crowdsteer_step_max_threads() == 1 || cs_pool_workers() >= 1);
    /* Two host threads on one pool of 3, each with its own grid; then on
     * the library's pool (one of them runs alone while the other has it). */
    crowd c2, next2;
    crowd_init(&c2, STEP_AGENTS, dims);
    crowd_init(&next2, STEP_AGENTS, dims);
    for (int k = 0; k < 6; k++)
      memcpy(c2.a[k], c.a[k], c.count * sizeof(float));
    crowdsteer_grid *grid2 = NULL;
    CHECK(crowdsteer_grid_create(&grid2) == CROWDSTEER_OK);
    const spread_case shared[2] = {{0, &pools[3].system, 0}, {2, NULL, 0}};
    for (int p = 0; p < 2; p++) {
      sharer s[2] = {{&c, &next, grid, shared[p], 0}, {&c2, &next2, grid2, shared[p], 0}};
      pthread_t threads[2];
      for (int t = 0; t < 2; t++)
        CHECK(pthread_create(&threads[t], NULL, share_pool, &s[t]) == 0);
      for (int t = 0; t < 2; t++) {
        CHECK(pthread_join(threads[t], NULL) == 0);
        CHECK_MSG(s[t].hash == steps, "%dD, host thread %d sharing pool %d: other bits",
                  dims, t, p);
      }
    }
    forked_child_steps(&c, grid, &next, steps);
    crowdsteer_grid_destroy(grid2);
    crowd_free(&c2);
    crowd_free(&next2);
    crowdsteer_grid_destroy(grid);
    crowd_free(&big);
    crowd_free(&c);
    crowd_free(&next);
  }
}

static int enqueued; /* calls that reached the bad systems' enqueue */

static void *counting_enqueue(crowdsteer_task_fn *fn, uint32_t items, uint32_t min_range,
                              void *context, void *host) {
  (void)min_range;
  (void)host;
  enqueued++;
  fn(0, items, context);
  return NULL;
}

static void no_finish(void *handle, void *host) {
  (void)handle;
  (void)host;
}

/* A task system without enqueue or finish, or with 0 or 1025 workers:
 * refused by builds, steps and neighbour calls, nothing written. */
static void bad_task_systems(void) {
  rng r = {7};
  crowd c, next;
  crowd_init(&c, 3000, 2);
  crowd_random(&c, &r, 4.0f);
  crowd_init(&next, 3000, 2);
  crowdsteer_grid *grid = NULL;
  CHECK(crowdsteer_grid_create(&grid) == CROWDSTEER_OK);
  const spread_case alone = {1, NULL, 0};
  step_hash(&c, grid, &next, alone); /* a grid built, next written */
  const size_t bytes = crowdsteer_grid_bytes(grid);
  size_t n = 0;
  const uint32_t before = hash_words(0, crowdsteer_grid_order(grid, &n), c.count);
  const crowdsteer_task_system bad[4] = {{NULL, no_finish, 2, NULL},
                                         {counting_enqueue, NULL, 2, NULL},
                                         {counting_enqueue, no_finish, 0, NULL},
                                         {counting_enqueue, no_finish, 1025, NULL}};
  const crowdsteer_status expected[4] = {
      CROWDSTEER_ERROR_NULL_POINTER, CROWDSTEER_ERROR_NULL_POINTER,
      CROWDSTEER_ERROR_PARAMETER, CROWDSTEER_ERROR_PARAMETER};
  for (int k = 0; k < 4; k++) {
    crowdsteer_grid_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.cell_size = 2.0f;
    desc.tasks = &bad[k];
    CHECK_STATUS(crowdsteer_grid_build(grid, &c.agents, &desc), expected[k]);
    CHECK(crowdsteer_grid_bytes(grid) == bytes);
    CHECK(hash_words(0, crowdsteer_grid_order(grid, &n), c.count) == before);
    crowdsteer_neighbours nb;
    memset(&nb, 0, sizeof nb);
    nb.grid = grid;
    nb.radius = 1.0f;
    nb.tasks = &bad[k];
    crowdsteer_params params;
    memset(&params, 0, sizeof params);
    for (size_t i = 0; i < c.count; i++)
      c.out[0][i] = -7.0f;
    crowdsteer_output out = crowd_output(&c);
    CHECK_STATUS(crowdsteer_separation(&c.agents, &nb, &params, &out, 0, c.count),
                 expected[k]);
    crowdsteer_step_behaviour b;
    memset(&b, 0, sizeof b);
    b.behaviour = CROWDSTEER_SEPARATION;
    nb.tasks = NULL; /* a step reads its own field only */
    b.neighbours = &nb;
    crowdsteer_step_desc step;
    memset(&step, 0, sizeof step);
    step.behaviours = &b;
    step.behaviour_count = 1;
    step.integrator.max_speed = 1.0f;
    step.output = &next.agents;
    step.tasks = &bad[k];
    for (size_t i = 0; i < c.count; i++)
      next.a[0][i] = -7.0f;
    CHECK_STATUS(crowdsteer_step(&c.agents, &step, 0, c.count), expected[k]);
    int untouched = 1;
    for (size_t i = 0; i < c.count; i++)
      untouched &= c.out[0][i] == -7.0f && next.a[0][i] == -7.0f;
    CHECK_MSG(untouched, "task system %d: something written", k);
  }
  CHECK(enqueued == 0);
  crowdsteer_grid_destroy(grid);
  crowd_free(&c);
  crowd_free(&next);
}

int main(void) {
  for (int w = 1; w <= MAX_WORKERS; w++)
    CHECK(task_pool_start(&pools[w], w) == 0);
  const int ran = on_every_isa(same_bits_on_isa);
  bad_task_systems();
  for (int w = 1; w <= MAX_WORKERS; w++)
    task_pool_stop(&pools[w]);
  if (!ran) return 77;
  return check_report("test_tasks");
}
