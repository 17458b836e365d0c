/* The memory promises of the header and docs/guarantees.md, counted: this
 * program's own malloc family (exported, so that a shared libcrowdsteer
 * calls it too; forwarding to glibc's) counts every heap allocation whose
 * caller is crowdsteer's code (found by dladdr), static or shared build.
 * (The OpenMP runtime's own, when a team changes size, are not crowdsteer's
 * to promise.) Once warm, grid builds (the
 * partitioned passes and the direct sort, on one thread and on teams, 2D
 * and 3D, full and positions-only), neighbour queries, steps with and
 * without neighbour behaviours or avoidance (with a workspace), avoidance's
 * own call with a workspace, a field's rebuild and steps following it,
 * every other entry point, reorders and id index builds allocate nothing,
 * also for a smaller batch after a bigger one; a grid, a workspace or an id
 * index that needs more memory than it holds does allocate, and so does
 * every neighbour step and avoidance call without a workspace. Needs glibc (and a
 * dynamically linked program); skipped (77) under the sanitizers, which replace the
 * allocator themselves. */
#define _GNU_SOURCE /* dladdr, and glibc's allocation functions */
#include <stdatomic.h>

#include "../common/all_kinds.h"
#include "../common/neighbour_crowd.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) ||               \
    __has_feature(memory_sanitizer)
#define UNDER_SANITIZER 1
#endif
#endif

#if defined(__GLIBC__) && !defined(UNDER_SANITIZER)
#define COUNTING 1
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
extern void *__libc_malloc(size_t bytes);
extern void *__libc_calloc(size_t count, size_t bytes);
extern void *__libc_realloc(void *block, size_t bytes);
extern void *__libc_memalign(size_t alignment, size_t bytes);
extern void *__libc_valloc(size_t bytes);
extern void *__libc_pvalloc(size_t bytes);

static atomic_long allocations;
static const void *crowdsteer_object; /* where crowdsteer's code is loaded */

static void count_from(const void *caller) {
  Dl_info info;
  if (crowdsteer_object && dladdr(caller, &info) && info.dli_fbase == crowdsteer_object)
    atomic_fetch_add(&allocations, 1);
}

static void find_crowdsteer(void) {
  crowdsteer_status (*entry)(crowdsteer_grid **) = crowdsteer_grid_create;
  void *address;
  memcpy(&address, &entry, sizeof address);
  Dl_info info;
  CHECK(dladdr(address, &info) && info.dli_fbase);
  crowdsteer_object = info.dli_fbase;
}

/* The build hides symbols by default; these must be seen by libc, libgomp
 * and a shared libcrowdsteer. */
#define EXPORTED __attribute__((visibility("default")))

EXPORTED void *malloc(size_t bytes) {
  count_from(__builtin_return_address(0));
  return __libc_malloc(bytes);
}
EXPORTED void *calloc(size_t count, size_t bytes) {
  count_from(__builtin_return_address(0));
  return __libc_calloc(count, bytes);
}
EXPORTED void *realloc(void *block, size_t bytes) {
  count_from(__builtin_return_address(0));
  return __libc_realloc(block, bytes);
}
EXPORTED void *aligned_alloc(size_t alignment, size_t bytes) {
  count_from(__builtin_return_address(0));
  return __libc_memalign(alignment, bytes);
}
EXPORTED int posix_memalign(void **block, size_t alignment, size_t bytes) {
  count_from(__builtin_return_address(0));
  *block = __libc_memalign(alignment, bytes);
  return *block ? 0 : ENOMEM;
}
EXPORTED void *memalign(size_t alignment, size_t bytes) {
  count_from(__builtin_return_address(0));
  return __libc_memalign(alignment, bytes);
}
EXPORTED void *valloc(size_t bytes) {
  count_from(__builtin_return_address(0));
  return __libc_valloc(bytes);
}
EXPORTED void *pvalloc(size_t bytes) {
  count_from(__builtin_return_address(0));
  return __libc_pvalloc(bytes);
}
#endif

#ifdef COUNTING
/* Above 2^17 agents in random order a build takes the partitioned passes
 * (on a team when asked), below it the direct sort; a query or step runs
 * on the first QUERIED agents only, which keeps the test quick under qemu. */
enum { BIG = 140000, SMALL = 3000, QUERIED = 500 };

typedef struct world {
  crowd big2d, small3d, larger2d; /* larger2d: only for the growth checks */
  float *sorted[3];               /* crowdsteer_reorder's output */
  crowdsteer_grid *grid, *positions_grid;
  crowdsteer_workspace *workspace; /* every step's, but the growth checks' */
  crowdsteer_id_index *ids;
  crowdsteer_obstacles *obstacles; /* avoidance's and the field's walls (2D) */
  crowdsteer_field *field;
  crowdsteer_field_desc field_desc;
  uint32_t *lookup;
  float *radius, *cos_view;
  uint32_t *mask;
  scenario plain, plain_out; /* the other entry points' scenario */
  all_kinds_step mixed;      /* a step of every kind over it */
} world;

static world w;

static crowdsteer_grid_desc grid_desc(const crowd *c, int threads, int positions_only) {
  crowdsteer_grid_desc d;
  memset(&d, 0, sizeof d);
  d.cell_size = 1.0f;
  d.group = positions_only ? NULL : c->group;
  d.threads = threads;
  d.positions_only = positions_only;
  return d;
}

/* Avoidance over crowd c's grid (and the obstacles in 2D) from its
 * velocities: crowdsteer_avoid, then a step seeking a point with it (in 2D
 * following the field instead, after the field's rebuild), both taking
 * their memory from the workspace; output into `spare`. */
static void avoid_calls(crowd *c, const crowdsteer_neighbours *plain,
                        const crowdsteer_params *params, crowdsteer_agents *spare,
                        int threads) {
  crowdsteer_neighbours nearest = *plain;
  nearest.max_neighbours = 8;
  crowdsteer_avoidance avoid;
  memset(&avoid, 0, sizeof avoid);
  avoid.radius = 0.2f;
  avoid.time_horizon = 2.0f;
  avoid.neighbours = &nearest;
  avoid.obstacles = c->dims == 2 ? w.obstacles : NULL;
  avoid.workspace = w.workspace;
  const crowdsteer_vectors preferred = {c->a[3], c->a[4], c->dims == 3 ? c->a[5] : NULL};
  const crowdsteer_vectors velocity = {spare->vx, spare->vy, spare->vz};
  CHECK_STATUS(
      crowdsteer_avoid(&c->agents, &avoid, params, &preferred, &velocity, 0, QUERIED),
      CROWDSTEER_OK);

  const crowdsteer_field *fields[1] = {w.field};
  const crowdsteer_field_follow follow = {fields, 1, NULL, 0};
  crowdsteer_step_behaviour b;
  memset(&b, 0, sizeof b);
  b.behaviour = c->dims == 2 ? CROWDSTEER_FOLLOW_FIELD : CROWDSTEER_SEEK;
  b.params = *params;
  b.field = &follow;
  if (c->dims == 2)
    CHECK_STATUS(crowdsteer_field_rebuild(w.field, &w.field_desc, 40, 40, 80, 80),
                 CROWDSTEER_OK);
  crowdsteer_step_desc step;
  memset(&step, 0, sizeof step);
  step.behaviours = &b;
  step.behaviour_count = 1;
  step.integrator = *params;
  step.output = spare;
  step.threads = threads;
  step.workspace = w.workspace;
  step.avoidance = &avoid;
  CHECK_STATUS(crowdsteer_step(&c->agents, &step, 0, QUERIED), CROWDSTEER_OK);
}

/* Every neighbour call on crowd c with its grids built on `threads`. */
static void neighbour_calls(crowd *c, int threads) {
  crowdsteer_grid_desc full = grid_desc(c, threads, 0),
                       positions = grid_desc(c, threads, 1);
  CHECK_STATUS(crowdsteer_grid_build(w.grid, &c->agents, &full), CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_grid_build(w.positions_grid, &c->agents, &positions),
               CROWDSTEER_OK);

  crowdsteer_params params;
  memset(&params, 0, sizeof params);
  params.max_speed = 2.0f;
  crowdsteer_output out = crowd_output(c);
  crowdsteer_neighbours plain, filtered, positions_only;
  memset(&plain, 0, sizeof plain);
  plain.grid = w.grid;
  plain.radius = 1.0f;
  filtered = plain; /* the tiles: per-agent radius, view, cap and mask */
  filtered.radius_per_agent = w.radius;
  filtered.field_of_view = 1;
  filtered.cos_field_of_view_per_agent = w.cos_view;
  filtered.max_neighbours = 5;
  filtered.neighbour_mask_per_agent = w.mask;
  positions_only = plain;
  positions_only.grid = w.positions_grid;
  for (int b = 0; b < NB_BEHAVIOURS; b++) {
    CHECK_STATUS(nb_call(b, c, &plain, &params, &out, 0, QUERIED), CROWDSTEER_OK);
    CHECK_STATUS(nb_call(b, c, &filtered, &params, &out, 0, QUERIED), CROWDSTEER_OK);
  }
  CHECK_STATUS(
      crowdsteer_separation(&c->agents, &positions_only, &params, &out, 0, QUERIED),
      CROWDSTEER_OK);

  /* A crowd seeking a point with the three neighbour behaviours blended,
   * written to the spare state (the input stays as built). */
  crowdsteer_step_behaviour b[4];
  memset(b, 0, sizeof b);
  b[0].behaviour = CROWDSTEER_SEEK;
  b[0].params = params;
  for (int k = 1; k < 4; k++) {
    b[k].behaviour = (crowdsteer_behaviour)(CROWDSTEER_SEPARATION + k - 1);
    b[k].params = params;
    b[k].weight = 0.5f;
    b[k].neighbours = k == 1 ? &positions_only : &plain;
  }
  crowdsteer_agents in_order = c->agents; /* positions in w.sorted */
  in_order.px = w.sorted[0];
  in_order.py = w.sorted[1];
  in_order.pz = c->dims == 3 ? w.sorted[2] : NULL;
  in_order.vx = in_order.vy = in_order.vz = NULL;
  crowdsteer_agents spare = in_order;
  spare.vx = c->out[0];
  spare.vy = c->out[1];
  spare.vz = c->dims == 3 ? c->out[2] : NULL;
  crowdsteer_step_desc step;
  memset(&step, 0, sizeof step);
  step.behaviours = b;
  step.behaviour_count = 4;
  step.integrator = params;
  step.output = &spare;
  step.threads = threads;
  step.workspace = w.workspace;
  CHECK_STATUS(crowdsteer_step(&c->agents, &step, 0, QUERIED), CROWDSTEER_OK);
  avoid_calls(c, &plain, &params, &spare, threads);

  /* The crowd in cell order (the step's spare state reused): a large one
   * takes the direct sort (on a team when asked) instead of the
   * partitioned passes. */
  size_t ordered = 0;
  const uint32_t *order = crowdsteer_grid_order(w.grid, &ordered);
  CHECK(order != NULL && ordered == c->count);
  for (int k = 0; k < c->dims; k++)
    CHECK_STATUS(crowdsteer_reorder(w.sorted[k], c->a[k], order, c->count),
                 CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_grid_build(w.positions_grid, &in_order, &positions),
               CROWDSTEER_OK);
}

/* Every other entry point, and a mixed step of every kind on `threads`. */
static void other_calls(int threads) {
  for (int entry = 0; entry < ENTRY_COUNT; entry++)
    for (int dims = 2; dims <= 3; dims++) {
      const variant va = {entry, dims, entry == WANDER || entry == INTEGRATE ? 0 : 2,
                          1,     0,    w.plain.count,
                          0};
      CHECK_STATUS(run_entry(&w.plain, &va, 0, w.plain.count), CROWDSTEER_OK);
    }
  w.mixed.step.threads = threads;
  w.mixed.step.workspace = w.workspace;
  CHECK_STATUS(crowdsteer_step(&w.mixed.agents, &w.mixed.step, 0, w.plain.count),
               CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_id_index_build(w.ids, &w.small3d.agents), CROWDSTEER_OK);
  for (size_t i = 0; i < QUERIED; i++)
    w.lookup[i] = (uint32_t)(QUERIED - 1 - i);
  CHECK_STATUS(crowdsteer_id_index_lookup(w.ids, w.lookup, QUERIED, w.lookup),
               CROWDSTEER_OK);
}

/* One round of everything: the big 2D crowd, then the small 3D one on the
 * same grids (smaller: it must fit in what the big one grew). */
static void round_of_calls(void) {
  for (int threads = 1; threads <= 3; threads++) {
    neighbour_calls(&w.big2d, threads);
    neighbour_calls(&w.small3d, threads);
    other_calls(threads);
  }
}

static void world_make(void) {
  rng r = {2026};
  crowd_init(&w.big2d, BIG, 2);
  crowd_random(&w.big2d, &r, 8.0f);
  crowd_init(&w.small3d, SMALL, 3);
  crowd_random(&w.small3d, &r, 8.0f);
  crowd_init(&w.larger2d, BIG + BIG / 2, 2);
  crowd_random(&w.larger2d, &r, 8.0f);
  for (int k = 0; k < 3; k++)
    w.sorted[k] = (float *)calloc(BIG, sizeof(float));
  w.radius = (float *)calloc(BIG, sizeof(float));
  w.cos_view = (float *)calloc(BIG, sizeof(float));
  w.mask = (uint32_t *)calloc(BIG, sizeof(uint32_t));
  w.lookup = (uint32_t *)calloc(QUERIED, sizeof(uint32_t));
  for (size_t i = 0; i < BIG; i++) {
    w.radius[i] = rng_range(&r, 0.25f, 1.0f);
    w.cos_view[i] = rng_range(&r, -1.0f, 0.5f);
    w.mask[i] = (uint32_t)rng_below(&r, 16);
  }
  /* A square block and a wall in the big crowd (some agents inside: a
   * step reports them), and a field over it to a point in its corner. */
  static const float block_x[4] = {0.0f, 10.0f, 10.0f, 0.0f},
                     block_y[4] = {0.0f, 0.0f, 10.0f, 10.0f};
  static const float wall_x[2] = {-30.0f, -30.0f}, wall_y[2] = {-30.0f, 30.0f};
  static const float goal_x[1] = {100.0f}, goal_y[1] = {100.0f};
  CHECK(crowdsteer_obstacles_create(&w.obstacles) == CROWDSTEER_OK);
  CHECK(crowdsteer_obstacles_add(w.obstacles, block_x, block_y, 4) == CROWDSTEER_OK);
  CHECK(crowdsteer_obstacles_add(w.obstacles, wall_x, wall_y, 2) == CROWDSTEER_OK);
  CHECK(crowdsteer_obstacles_build(w.obstacles, 0.0f) == CROWDSTEER_OK);
  crowdsteer_field_desc *f = &w.field_desc;
  f->origin[0] = f->origin[1] = -128.0f;
  f->cell_size = 2.0f;
  f->width = f->height = 128;
  f->obstacles = w.obstacles;
  f->goal_x = goal_x;
  f->goal_y = goal_y;
  f->goal_point_count = 1;
  CHECK(crowdsteer_field_create(&w.field) == CROWDSTEER_OK);
  CHECK(crowdsteer_field_build(w.field, f) == CROWDSTEER_OK);
  scenario_make(&w.plain, QUERIED, 3, 99, 0);
  scenario_make(&w.plain_out, QUERIED, 3, 100, 0);
  all_kinds_make(&w.mixed, &w.plain, &w.plain_out, CROWDSTEER_BLEND);
  w.mixed.step.output = &w.mixed.other;
  w.mixed.step.tile_size = 64;
}

static void world_free(void) {
  crowd_free(&w.big2d);
  crowd_free(&w.small3d);
  crowd_free(&w.larger2d);
  for (int k = 0; k < 3; k++)
    free(w.sorted[k]);
  free(w.radius);
  free(w.cos_view);
  free(w.mask);
  free(w.lookup);
  crowdsteer_grid_destroy(w.grid);
  crowdsteer_grid_destroy(w.positions_grid);
  crowdsteer_workspace_destroy(w.workspace);
  crowdsteer_id_index_destroy(w.ids);
  crowdsteer_field_destroy(w.field);
  crowdsteer_obstacles_destroy(w.obstacles);
  scenario_free(&w.plain);
  scenario_free(&w.plain_out);
  all_kinds_free(&w.mixed);
}

/* A warm round allocates nothing; then each kind of growth allocates
 * (with counted 0, under valgrind, the same calls run unchecked). */
static void check_warm_and_growth(int counted) {
  round_of_calls(); /* warm: grids, workspace, id index, OpenMP teams */
  long before = atomic_load(&allocations);
  round_of_calls();
  long made = atomic_load(&allocations) - before;
  CHECK_MSG(!counted || made == 0, "%ld allocations in a warm round (isa %s)", made,
            crowdsteer_isa_name(crowdsteer_active_isa()));

  /* Growth: the counting itself would pass a library that never
   * allocated; these show it sees the library's allocations. */
  crowdsteer_grid_desc d = grid_desc(&w.larger2d, 2, 0);
  before = atomic_load(&allocations);
  CHECK_STATUS(crowdsteer_grid_build(w.grid, &w.larger2d.agents, &d), CROWDSTEER_OK);
  CHECK_MSG(!counted || atomic_load(&allocations) > before,
            "a larger grid allocated nothing");
  before = atomic_load(&allocations);
  CHECK_STATUS(crowdsteer_id_index_build(w.ids, &w.larger2d.agents), CROWDSTEER_OK);
  CHECK_MSG(!counted || atomic_load(&allocations) > before,
            "a larger id index allocated nothing");
  crowdsteer_neighbours nb;
  memset(&nb, 0, sizeof nb);
  nb.grid = w.grid;
  /* All three over more agents than any step before: more steering (and,
   * where alignment takes them, velocity parts for a larger grid). */
  crowdsteer_step_behaviour flock[3];
  memset(flock, 0, sizeof flock);
  for (int k = 0; k < 3; k++) {
    flock[k].behaviour = (crowdsteer_behaviour)(CROWDSTEER_SEPARATION + k);
    flock[k].weight = 1.0f;
    flock[k].neighbours = &nb;
  }
  crowdsteer_step_desc step;
  memset(&step, 0, sizeof step);
  step.behaviours = flock;
  step.behaviour_count = 3;
  step.threads = 1;
  step.workspace = w.workspace;
  before = atomic_load(&allocations);
  CHECK_STATUS(crowdsteer_step(&w.larger2d.agents, &step, 0, 5 * QUERIED), CROWDSTEER_OK);
  CHECK_MSG(!counted || atomic_load(&allocations) > before,
            "a step over more agents than any before allocated nothing (isa %s)",
            crowdsteer_isa_name(crowdsteer_active_isa()));
  /* The workspace then holds enough: the same step again allocates
   * nothing, while one without a workspace allocates for every call. */
  before = atomic_load(&allocations);
  CHECK_STATUS(crowdsteer_step(&w.larger2d.agents, &step, 0, 5 * QUERIED), CROWDSTEER_OK);
  made = atomic_load(&allocations) - before;
  CHECK_MSG(!counted || made == 0, "%ld allocations in a warm workspace's step", made);
  step.workspace = NULL;
  for (int call = 1; call <= 2; call++) {
    before = atomic_load(&allocations);
    CHECK_STATUS(crowdsteer_step(&w.larger2d.agents, &step, 0, 5 * QUERIED),
                 CROWDSTEER_OK);
    CHECK_MSG(!counted || atomic_load(&allocations) > before,
              "call %d of a step without a workspace allocated nothing", call);
  }

  /* crowdsteer_avoid likewise: with a workspace of its own, its first call
   * allocates and the next does not; without one, every call does. */
  crowdsteer_workspace *own = NULL;
  CHECK(crowdsteer_workspace_create(&own) == CROWDSTEER_OK);
  nb.max_neighbours = 8;
  nb.radius = 1.0f;
  crowdsteer_avoidance avoid;
  memset(&avoid, 0, sizeof avoid);
  avoid.radius = 0.2f;
  avoid.neighbours = &nb;
  avoid.obstacles = w.obstacles;
  avoid.workspace = own;
  crowdsteer_params params;
  memset(&params, 0, sizeof params);
  params.max_speed = 2.0f;
  crowd *c = &w.larger2d;
  const crowdsteer_vectors preferred = {c->a[3], c->a[4], NULL};
  const crowdsteer_vectors velocity = {c->out[0], c->out[1], NULL};
  for (int call = 1; call <= 4; call++) {
    if (call == 3) avoid.workspace = NULL;
    before = atomic_load(&allocations);
    CHECK_STATUS(
        crowdsteer_avoid(&c->agents, &avoid, &params, &preferred, &velocity, 0, QUERIED),
        CROWDSTEER_OK);
    made = atomic_load(&allocations) - before;
    CHECK_MSG(!counted || (call == 2 ? made == 0 : made > 0),
              "crowdsteer_avoid call %d (%s workspace) made %ld allocations (isa %s)",
              call, call <= 2 ? "a" : "no", made,
              crowdsteer_isa_name(crowdsteer_active_isa()));
  }
  crowdsteer_workspace_destroy(own);
}
#endif /* COUNTING */

int main(void) {
#ifndef COUNTING
  printf("skipped: counting allocations needs glibc and no sanitizer\n");
  return 77;
#else
  world_make();
  find_crowdsteer();
  /* Valgrind replaces this program's allocation functions too, so nothing
   * reaches the counter there: the calls then run for memcheck alone. */
  long before = atomic_load(&allocations);
  crowdsteer_grid *probe = NULL;
  CHECK(crowdsteer_grid_create(&probe) == CROWDSTEER_OK);
  crowdsteer_grid_destroy(probe);
  const int counted = atomic_load(&allocations) > before;
  if (!counted) {
    const char *preload = getenv("LD_PRELOAD");
    CHECK_MSG(preload && strstr(preload, "vgpreload"),
              "crowdsteer's allocations do not reach the counter");
    printf("test_allocations: under valgrind, allocations not counted\n");
  }
  crowdsteer_isa isas[CROWDSTEER_ISA_COUNT];
  const int isa_count = isas_to_test(CROWDSTEER_ISA_SCALAR, isas);
  if (isa_count < 0) return 77;
  for (int i = 0; i < isa_count; i++) {
    CHECK(crowdsteer_force_isa(isas[i]) == CROWDSTEER_OK);
    /* Fresh grids and index per ISA, so each one's warm round is checked
     * after its own growth. */
    crowdsteer_grid_destroy(w.grid);
    crowdsteer_grid_destroy(w.positions_grid);
    crowdsteer_workspace_destroy(w.workspace);
    crowdsteer_id_index_destroy(w.ids);
    CHECK(crowdsteer_grid_create(&w.grid) == CROWDSTEER_OK);
    CHECK(crowdsteer_grid_create(&w.positions_grid) == CROWDSTEER_OK);
    CHECK(crowdsteer_workspace_create(&w.workspace) == CROWDSTEER_OK);
    CHECK(crowdsteer_id_index_create(&w.ids) == CROWDSTEER_OK);
    check_warm_and_growth(counted);
  }
  world_free();
  return check_report("test_allocations");
#endif
}
