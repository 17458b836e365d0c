/* Limits that must not crash (docs/guarantees.md): any `threads` value up to
 * INT_MAX with any tile size, and a mixed step of every behaviour kind
 * (separation over a grid included) at
 * the largest tile, threads = 1, on a thread with a 32 KiB stack (a job
 * system's fiber). Both give the bits of an ordinary call. The stack the
 * neighbour behaviours use on their own, against the documented bound.
 * And the float limit at tiny distances. */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "../common/all_kinds.h"
#include "../common/check.h"

enum {
  SMALL_STACK = 32 * 1024,
  /* A neighbour call on its own, beyond an empty thread: docs/guarantees.md
   * says about 10.5 KiB at most (10.48 with gcc 12 and AVX-512, a cap that
   * binds); this leaves half a KiB for other compilers. */
  NEIGHBOUR_STACK = 11 * 1024
};

/* Sanitizers put redzones around every stack object; their builds get more
 * room, the plain build exactly the promised 32 KiB. */
#if defined(__SANITIZE_ADDRESS__)
#define CS_SANITIZED 1
#elif defined(CS_EMULATED_AVX512) /* see CMakeLists.txt */
#define CS_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define CS_SANITIZED 1
#endif
#endif

/* The stack the step's thread gets: 32 KiB where pthreads allow it (x86-64
 * glibc: 16 KiB minimum); aarch64 glibc will not start a thread on less than
 * 128 KiB, so there the thread gets that and the test checks that the step
 * used no more than 32 KiB of it. */
static size_t stack_bytes(void) {
#ifdef CS_SANITIZED
  return 8 * SMALL_STACK;
#else
  const long least = sysconf(_SC_THREAD_STACK_MIN);
  return least > SMALL_STACK ? (size_t)least : SMALL_STACK;
#endif
}

typedef struct step_case {
  all_kinds_step all;
  /* all's behaviours, separation, cohesion and alignment (one pass for the
   * last two), over a grid of the pre-step state */
  crowdsteer_step_behaviour behaviours[ALL_KINDS + 4];
  crowdsteer_neighbours neighbours;
  crowdsteer_grid *grid;
  /* ORCA as the last stage (its 10 nearest: a cap that binds), over the
   * same grid, and in 2D obstacles (walls held) */
  crowdsteer_neighbours avoid_neighbours;
  crowdsteer_avoidance avoidance;
  crowdsteer_obstacles *obstacles;
  /* In 2D one agent in five also follows a field round the obstacle. */
  crowdsteer_field *field;
  const crowdsteer_field *fields[1];
  crowdsteer_field_follow follow;
  crowdsteer_status status;
} step_case;

/* How the agents pick behaviours: at random (all_kinds_make's mask); at
 * random with the neighbour behaviours for two agents in three; in runs of 512 agents of
 * one behaviour each, then all of them, so that whole tiles run in registers
 * (the fused loops of one behaviour and of several). */
enum { MASK_RANDOM, MASK_SEPARATION, MASK_RUNS };

/* Every behaviour kind in place with a snapshot (the kind of step a host
 * job system runs), at the largest tile, on the calling thread. */
static void make_case(step_case *c, scenario *s, scenario *snapshot, int combine,
                      int mask_mode) {
  all_kinds_make(&c->all, s, snapshot, combine);
  c->all.step.snapshot = &c->all.other;
  c->all.step.tile_size = 4096;
  c->all.step.threads = 1;
  c->grid = NULL;
  c->obstacles = NULL;
  c->field = NULL;
  if (mask_mode == MASK_RUNS)
    for (size_t i = 0; i < s->count; i++)
      c->all.mask[i] = i / 512 < ALL_KINDS ? 1u << (i / 512) : (1u << ALL_KINDS) - 1u;
  if (mask_mode != MASK_SEPARATION) return;
  memcpy(c->behaviours, c->all.behaviours, sizeof c->all.behaviours);
  for (int k = 0; k < 3; k++) {
    crowdsteer_step_behaviour *b = &c->behaviours[ALL_KINDS + k];
    *b = c->all.behaviours[0];
    b->behaviour = (crowdsteer_behaviour)(CROWDSTEER_SEPARATION + k);
    b->neighbours = &c->neighbours;
  }
  for (size_t i = 0; i < s->count; i++)
    c->all.mask[i] |= (uint32_t)(i % 3 != 0) * (7u << ALL_KINDS);
  c->all.step.behaviours = c->behaviours;
  c->all.step.behaviour_count = ALL_KINDS + 3;
  crowdsteer_grid_desc desc = {0};
  desc.cell_size = 1.0f;
  CHECK_STATUS(crowdsteer_grid_create(&c->grid), CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_grid_build(c->grid, &c->all.agents, &desc), CROWDSTEER_OK);
  c->neighbours = (crowdsteer_neighbours){0};
  c->neighbours.grid = c->grid;
  c->neighbours.radius = 1.0f;
  c->avoid_neighbours = c->neighbours;
  c->avoid_neighbours.max_neighbours = 10;
  c->avoidance = (crowdsteer_avoidance){0};
  c->avoidance.radius = 0.05f;
  c->avoidance.time_horizon = 2.0f;
  c->avoidance.neighbours = &c->avoid_neighbours;
  if (s->dims == 2) {
    static const float x[4] = {-0.5f, 0.5f, 0.5f, -0.5f},
                       y[4] = {-0.5f, -0.5f, 0.5f, 0.5f};
    CHECK_STATUS(crowdsteer_obstacles_create(&c->obstacles), CROWDSTEER_OK);
    CHECK_STATUS(crowdsteer_obstacles_add(c->obstacles, x, y, 4), CROWDSTEER_OK);
    CHECK_STATUS(crowdsteer_obstacles_build(c->obstacles, 0.0f), CROWDSTEER_OK);
    c->avoidance.obstacles = c->obstacles;
    static const float goal_x[1] = {10.5f}, goal_y[1] = {10.5f};
    crowdsteer_field_desc fd = {0};
    fd.origin[0] = fd.origin[1] = -32.0f;
    fd.cell_size = 1.0f;
    fd.width = fd.height = 64;
    fd.obstacles = c->obstacles;
    fd.goal_x = goal_x;
    fd.goal_y = goal_y;
    fd.goal_point_count = 1;
    CHECK_STATUS(crowdsteer_field_create(&c->field), CROWDSTEER_OK);
    CHECK_STATUS(crowdsteer_field_build(c->field, &fd), CROWDSTEER_OK);
    c->fields[0] = c->field;
    c->follow = (crowdsteer_field_follow){c->fields, 1, NULL, 0};
    crowdsteer_step_behaviour *b = &c->behaviours[ALL_KINDS + 3];
    *b = c->all.behaviours[0];
    b->behaviour = CROWDSTEER_FOLLOW_FIELD;
    b->field = &c->follow;
    for (size_t i = 0; i < s->count; i += 5)
      c->all.mask[i] |= 1u << (ALL_KINDS + 3);
    c->all.step.behaviour_count = ALL_KINDS + 4;
  }
  c->all.step.avoidance = &c->avoidance;
}

static void free_case(step_case *c) {
  crowdsteer_grid_destroy(c->grid);
  crowdsteer_obstacles_destroy(c->obstacles);
  crowdsteer_field_destroy(c->field);
  all_kinds_free(&c->all);
}

static void *run_case(void *arg) {
  step_case *c = (step_case *)arg;
  c->status = crowdsteer_step(&c->all.agents, &c->all.step, 0, c->all.agents.count);
  return NULL;
}

static void *run_nothing(void *arg) { return arg; }

/* Valgrind marks a finished thread's stack inaccessible: no measuring. */
static int under_valgrind(void) {
  const char *preload = getenv("LD_PRELOAD");
  return preload && strstr(preload, "vgpreload") != NULL;
}

/* Runs `run(arg)` on a new thread whose whole stack is `bytes` (glibc keeps
 * its thread descriptor and TLS in there too); returns how many bytes of it
 * the thread touched, from a fill pattern (0 when that cannot be measured). */
static size_t run_on_small_stack(void *(*run)(void *), void *arg, size_t bytes) {
#ifdef __EMSCRIPTEN__
  /* The single-threaded WebAssembly build has no threads (nor
   * pthread_attr_setstack): the results are still checked, on this stack. */
  (void)bytes;
  run(arg);
  return 0;
#endif
  unsigned char *stack = (unsigned char *)aligned_alloc(4096, bytes);
  memset(stack, 0xA5, bytes);
  pthread_attr_t attr;
  pthread_t thread;
  CHECK(pthread_attr_init(&attr) == 0);
  CHECK(pthread_attr_setstack(&attr, stack, bytes) == 0);
  CHECK(pthread_create(&thread, &attr, run, arg) == 0);
  CHECK(pthread_join(thread, NULL) == 0);
  pthread_attr_destroy(&attr);
  size_t untouched = bytes;
  if (!under_valgrind())
    for (untouched = 0; untouched < bytes && stack[untouched] == 0xA5;)
      untouched++;
  free(stack);
  return bytes - untouched;
}

static void check_small_stack(int dims, int combine, int mask_mode) {
  const size_t n = 4096 + 1000; /* one full largest tile and a partial one */
  scenario want, got, snapshot;
  scenario_make(&want, n, dims, 61, 1);
  scenario_make(&got, n, dims, 61, 1);
  scenario_make(&snapshot, n, dims, 61, 1);
  step_case c;
  make_case(&c, &want, &snapshot, combine, mask_mode);
  run_case(&c);
  CHECK_STATUS(c.status, CROWDSTEER_OK);
  free_case(&c);
  make_case(&c, &got, &snapshot, combine, mask_mode);
  const size_t bytes = stack_bytes();
  const size_t used = run_on_small_stack(run_case, &c, bytes);
  CHECK_STATUS(c.status, CROWDSTEER_OK);
  CHECK_MSG(same_scenario(&want, &got), "%dd combine %d on a %zu-byte stack", dims,
            combine, bytes);
#ifndef CS_SANITIZED
  CHECK_MSG(used <= SMALL_STACK, "the step used %zu bytes of stack", used);
#endif
  printf("%dd %s step, %d behaviours %s, tile 4096, isa %s: %zu of %zu "
         "stack bytes used (thread descriptor and TLS included)\n",
         dims, combine ? "priority" : "blend", (int)ALL_KINDS,
         mask_mode == MASK_SEPARATION
             ? (dims == 2 ? "and the three neighbour ones and the field, then ORCA"
                          : "and the three neighbour ones, then ORCA")
             : "in runs (in registers)",
         crowdsteer_isa_name(crowdsteer_active_isa()), used, bytes);
  free_case(&c);
  scenario_free(&want);
  scenario_free(&got);
  scenario_free(&snapshot);
}

/* One neighbour behaviour on its own, with every filter and a cap that
 * binds (the deepest path: the nearest-k selection). */
typedef struct neighbour_case {
  crowdsteer_behaviour behaviour;
  crowdsteer_agents agents;
  crowdsteer_neighbours nb;
  crowdsteer_output out;
  crowdsteer_status status;
} neighbour_case;

static void *run_neighbour_case(void *arg) {
  neighbour_case *c = (neighbour_case *)arg;
  crowdsteer_status (*call)(const crowdsteer_agents *, const crowdsteer_neighbours *,
                            const crowdsteer_params *, const crowdsteer_output *, size_t,
                            size_t) =
      c->behaviour == CROWDSTEER_SEPARATION ? crowdsteer_separation
      : c->behaviour == CROWDSTEER_COHESION ? crowdsteer_cohesion
                                            : crowdsteer_alignment;
  c->status = call(&c->agents, &c->nb, NULL, &c->out, 0, c->agents.count);
  return NULL;
}

/* A grid build on one thread, groups and velocities included (the build's
 * widest records), agents in random order (its slot buffer in use). */
typedef struct build_case {
  crowdsteer_grid *grid;
  const crowdsteer_agents *agents;
  const crowdsteer_grid_desc *desc;
  crowdsteer_status status;
} build_case;

static void *run_build_case(void *arg) {
  build_case *c = (build_case *)arg;
  c->status = crowdsteer_grid_build(c->grid, c->agents, c->desc);
  return NULL;
}

static void check_neighbour_stack(int dims) {
  const size_t n = 600;
  scenario s;
  scenario_make(&s, n, dims, 67, 1);
  uint32_t *group = (uint32_t *)malloc(n * sizeof *group);
  for (size_t i = 0; i < n; i++)
    group[i] = 1u + (uint32_t)(i % 3);
  neighbour_case c;
  memset(&c, 0, sizeof c);
  c.agents = scenario_agents(&s);
  crowdsteer_grid *grid = NULL;
  CHECK_STATUS(crowdsteer_grid_create(&grid), CROWDSTEER_OK);
  crowdsteer_grid_desc desc;
  memset(&desc, 0, sizeof desc);
  desc.cell_size = 40.0f; /* caps of 3 bind: the nearest-k selection */
  desc.group = group;
  desc.threads = 1;
  const size_t bytes = stack_bytes();
  const size_t empty = run_on_small_stack(run_nothing, NULL, bytes);
  build_case build = {grid, &c.agents, &desc, CROWDSTEER_ERROR_PARAMETER};
  const size_t build_used = run_on_small_stack(run_build_case, &build, bytes);
  CHECK_STATUS(build.status, CROWDSTEER_OK);
  const size_t build_beyond = build_used > empty ? build_used - empty : 0;
#ifndef CS_SANITIZED
  CHECK_MSG(build_beyond <= NEIGHBOUR_STACK, "%dd grid build used %zu bytes of stack",
            dims, build_beyond);
#endif
  printf("%dd grid build, 1 thread: %zu stack bytes beyond an empty thread's %zu\n", dims,
         build_beyond, empty);
  { /* past 2^17 agents in random order: the build's partitioned passes */
    scenario big;
    scenario_make(&big, 140000, dims, 71, 1);
    const crowdsteer_agents big_agents = scenario_agents(&big);
    crowdsteer_grid *big_grid = NULL;
    CHECK_STATUS(crowdsteer_grid_create(&big_grid), CROWDSTEER_OK);
    crowdsteer_grid_desc big_desc = desc;
    big_desc.group = NULL;
    build_case partitioned = {big_grid, &big_agents, &big_desc,
                              CROWDSTEER_ERROR_PARAMETER};
    const size_t used = run_on_small_stack(run_build_case, &partitioned, bytes);
    CHECK_STATUS(partitioned.status, CROWDSTEER_OK);
    const size_t beyond = used > empty ? used - empty : 0;
#ifndef CS_SANITIZED
    CHECK_MSG(beyond <= NEIGHBOUR_STACK,
              "%dd partitioned grid build used %zu bytes of stack", dims, beyond);
#endif
    printf("%dd grid build of 140,000 agents, 1 thread: %zu stack bytes beyond\n", dims,
           beyond);
    crowdsteer_grid_destroy(big_grid);
    scenario_free(&big);
  }
  c.out.steering = (crowdsteer_vectors){s.out[0], s.out[1], s.out[2]};
  float *radius = (float *)malloc(n * sizeof *radius);
  for (size_t i = 0; i < n; i++)
    radius[i] = 10.0f + (float)(i % 7);
  static const char *const forms[3] = {" (per-agent radius, a cap that binds)", "",
                                       " (view, groups, a cap that binds)"};
  /* Per-agent radii first: in main's first run, the process's first
   * neighbour query, where a lazily bound library function (nextafterf,
   * before cs_float_step) took 1.3 KiB more. */
  for (int form = 0; form < 3; form++)
    for (int b = CROWDSTEER_SEPARATION; b <= CROWDSTEER_ALIGNMENT; b++) {
      c.behaviour = (crowdsteer_behaviour)b;
      memset(&c.nb, 0, sizeof c.nb);
      c.nb.grid = grid;
      if (form == 0) {
        c.nb.radius_per_agent = radius;
        c.nb.max_neighbours = 3;
      }
      if (form == 2) {
        c.nb.field_of_view = 1;
        c.nb.cos_field_of_view = -0.5f;
        c.nb.neighbour_mask = 3u;
        c.nb.max_neighbours = 3;
      }
      const size_t used = run_on_small_stack(run_neighbour_case, &c, bytes);
      CHECK_STATUS(c.status, CROWDSTEER_OK);
      const size_t beyond = used > empty ? used - empty : 0;
#ifndef CS_SANITIZED
      CHECK_MSG(beyond <= NEIGHBOUR_STACK, "%dd %s%s used %zu bytes of stack", dims,
                crowdsteer_behaviour_name(c.behaviour), forms[form], beyond);
#endif
      printf(
          "%dd %s%s on its own, isa %s: %zu stack bytes beyond an empty thread's %zu\n",
          dims, crowdsteer_behaviour_name(c.behaviour), forms[form],
          crowdsteer_isa_name(crowdsteer_active_isa()), beyond, empty);
    }
  free(radius);
  crowdsteer_grid_destroy(grid);
  free(group);
  scenario_free(&s);
}

/* threads = INT_MAX with one agent per tile (the case that crashed inside
 * libgomp), and with the default tile, give the one-thread bits; with
 * separation too (its cell pass splits on threads of its own). */
static void check_huge_thread_counts(size_t n, int mask_mode) {
  scenario want, got, snapshot;
  scenario_make(&want, n, 2, 5, 0);
  scenario_make(&snapshot, n, 2, 5, 0);
  step_case c;
  make_case(&c, &want, &snapshot, CROWDSTEER_BLEND, mask_mode);
  run_case(&c);
  CHECK_STATUS(c.status, CROWDSTEER_OK);
  free_case(&c);
  static const size_t tiles[] = {1, 0, 4096};
  static const int threads[] = {INT_MAX, INT_MAX - 1, 100000, 0};
  for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; t++)
    for (size_t h = 0; h < sizeof threads / sizeof threads[0]; h++) {
      scenario_make(&got, n, 2, 5, 0);
      make_case(&c, &got, &snapshot, CROWDSTEER_BLEND, mask_mode);
      c.all.step.tile_size = tiles[t];
      c.all.step.threads = threads[h];
      run_case(&c);
      CHECK_STATUS(c.status, CROWDSTEER_OK);
      CHECK_MSG(same_scenario(&want, &got), "tile %zu threads %d mask mode %d", tiles[t],
                threads[h], mask_mode);
      free_case(&c);
      scenario_free(&got);
    }
  scenario_free(&want);
  scenario_free(&snapshot);
}

/* docs/guarantees.md: a difference whose squared length underflows counts
 * as coincident, so flee at 1e-30 from the threat runs along its heading,
 * exactly as on the threat. */
static void check_tiny_distance(void) {
  float px[2] = {1e-30f, 0.0f}, py[2] = {0.0f, 0.0f};
  float vx[2] = {0.5f, 0.5f}, vy[2] = {0.25f, 0.25f}, sx[2], sy[2];
  crowdsteer_agents agents = {2, 2, px, py, NULL, vx, vy, NULL, NULL};
  crowdsteer_target threat;
  memset(&threat, 0, sizeof threat);
  crowdsteer_output out;
  memset(&out, 0, sizeof out);
  out.steering = (crowdsteer_vectors){sx, sy, NULL};
  CHECK_STATUS(crowdsteer_flee(&agents, &threat, NULL, &out, 0, 2), CROWDSTEER_OK);
  CHECK_MSG(same_bits(sx[0], sx[1]) && same_bits(sy[0], sy[1]),
            "flee at 1e-30: (%a, %a), on the threat: (%a, %a)", (double)sx[0],
            (double)sy[0], (double)sx[1], (double)sy[1]);
}

static void check_all_small_stacks(void) {
  check_tiny_distance();
  for (int dims = 2; dims <= 3; dims++)
    check_neighbour_stack(dims);
  for (int dims = 2; dims <= 3; dims++)
    for (int combine = 0; combine < 2; combine++)
      for (int mask_mode = MASK_SEPARATION; mask_mode <= MASK_RUNS; mask_mode++)
        check_small_stack(dims, combine, mask_mode);
}

/* Calls memset and memcpy through the program's own links, as any host
 * has by its first crowdsteer call: the stack figures assume them bound
 * (docs/guarantees.md). */
static void bind_memory_functions(void) {
  volatile size_t n = 16;
  unsigned char from[16] = {0}, to[16];
  memset(to, 1, n);
  memcpy(to, from, n);
  CHECK(to[15] == 0);
}

/* `--quick` (the aarch64 CI step, under qemu: 4 minutes otherwise): the
 * stacks as always (the ISA's own frames), the thread counts only with
 * neighbours (on 5,096 agents, as always: the pool and tiles are the same
 * C on every ISA, and the other crowds took 19 of its 85 s there). */
int main(int argc, char **argv) {
  const int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
  /* First, cold: the process's first neighbour calls, on the ISA a host
   * gets by default (the widest: the most stack), where a call reaching
   * any other lazily bound function fails (nextafterf did). */
  bind_memory_functions();
  check_neighbour_stack(3);
  if (!on_every_isa(check_all_small_stacks)) return 77;
  if (!quick) {
    check_huge_thread_counts(100000, MASK_RANDOM);
    check_huge_thread_counts(100000, MASK_RUNS);
  }
  check_huge_thread_counts(4096 + 1000, MASK_SEPARATION); /* 100,000: minutes */
  return check_report("test_limits");
}
