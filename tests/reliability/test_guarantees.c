/* The thread-safety and aliasing claims of docs/guarantees.md, checked:
 * concurrent calls on disjoint ranges while another thread switches ISA give
 * the single-threaded bits, so does a neighbour step, and accumulate may
 * read its own output. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>

#include "../common/check.h"
#include "../common/neighbour_crowd.h"
#include "../common/scenario.h"

enum { COUNT = 10007, ROUNDS = 20 };

typedef struct job {
  scenario *s;
  size_t begin, end;
  int integrate;
  crowdsteer_status status;
} job;

static crowdsteer_params params_for_test(void) {
  crowdsteer_params p;
  memset(&p, 0, sizeof p);
  p.max_speed = 3.0f;
  p.max_force = 2.0f;
  p.dt = 0.25f;
  return p;
}

static crowdsteer_status run(scenario *s, int integrate, size_t begin, size_t end) {
  crowdsteer_agents agents = scenario_agents(s);
  crowdsteer_params params = params_for_test();
  if (integrate) {
    crowdsteer_vectors steering = scenario_vectors(s->tv);
    return crowdsteer_integrate(&agents, &steering, &params, begin, end);
  }
  crowdsteer_target target;
  memset(&target, 0, sizeof target);
  target.kind = CROWDSTEER_TARGET_AGENTS;
  target.index = s->index;
  crowdsteer_output out;
  memset(&out, 0, sizeof out);
  out.steering = scenario_vectors(s->out);
  return crowdsteer_pursuit(&agents, &target, &params, &out, begin, end);
}

static void *worker(void *arg) {
  job *j = (job *)arg;
  j->status = CROWDSTEER_OK;
  /* Pursuit overwrites, so repeating it is idempotent; integrate runs once. */
  for (int r = 0; r < (j->integrate ? 1 : ROUNDS); r++) {
    crowdsteer_status st = run(j->s, j->integrate, j->begin, j->end);
    if (st != CROWDSTEER_OK) j->status = st;
  }
  return NULL;
}

static atomic_int stop_switching;

static void *switcher(void *arg) {
  (void)arg;
  int i = 0;
  while (!atomic_load(&stop_switching)) {
    crowdsteer_isa isa = (crowdsteer_isa)(i++ % CROWDSTEER_ISA_COUNT);
    if (crowdsteer_isa_supported(isa)) CHECK(crowdsteer_force_isa(isa) == CROWDSTEER_OK);
  }
  return NULL;
}

static int same_arrays(const scenario *a, const scenario *b) {
  for (int k = 0; k < 3; k++)
    for (size_t i = 0; i < COUNT; i++)
      if (!same_bits(a->out[k][i], b->out[k][i]) || !same_bits(a->p[k][i], b->p[k][i]) ||
          !same_bits(a->v[k][i], b->v[k][i]))
        return 0;
  return 1;
}

static void check_concurrent(int integrate) {
  scenario want, got;
  scenario_make(&want, COUNT, 3, 99, 1);
  scenario_make(&got, COUNT, 3, 99, 1);
  CHECK(crowdsteer_force_isa(CROWDSTEER_ISA_SCALAR) == CROWDSTEER_OK);
  CHECK_STATUS(run(&want, integrate, 0, COUNT), CROWDSTEER_OK);
  job jobs[2] = {{&got, 0, COUNT / 3, integrate, CROWDSTEER_OK},
                 {&got, COUNT / 3, COUNT, integrate, CROWDSTEER_OK}};
  pthread_t threads[3];
  atomic_store(&stop_switching, 0);
  CHECK(pthread_create(&threads[2], NULL, switcher, NULL) == 0);
  for (int t = 0; t < 2; t++)
    CHECK(pthread_create(&threads[t], NULL, worker, &jobs[t]) == 0);
  for (int t = 0; t < 2; t++)
    pthread_join(threads[t], NULL);
  atomic_store(&stop_switching, 1);
  pthread_join(threads[2], NULL);
  for (int t = 0; t < 2; t++)
    CHECK_STATUS(jobs[t].status, CROWDSTEER_OK);
  CHECK_MSG(same_arrays(&want, &got), "%s: threads + ISA switching changed the bits",
            integrate ? "integrate" : "pursuit");
  scenario_free(&want);
  scenario_free(&got);
}

/* One step of cohesion and alignment over one grid and radius (which share
 * a walk on the backends that take velocity parts) from c into next. */
static crowdsteer_status flock_step(crowd *c, crowdsteer_grid *grid,
                                    float *const next[6]) {
  crowdsteer_grid_desc gd;
  memset(&gd, 0, sizeof gd);
  gd.cell_size = 1.0f;
  crowdsteer_status st = crowdsteer_grid_build(grid, &c->agents, &gd);
  if (st != CROWDSTEER_OK) return st;
  crowdsteer_neighbours nb;
  memset(&nb, 0, sizeof nb);
  nb.grid = grid;
  nb.radius = 1.0f;
  crowdsteer_step_behaviour b[2];
  memset(b, 0, sizeof b);
  b[0].behaviour = CROWDSTEER_COHESION;
  b[1].behaviour = CROWDSTEER_ALIGNMENT;
  b[1].weight = 3.0f;
  for (int k = 0; k < 2; k++) {
    b[k].neighbours = &nb;
    b[k].params.max_speed = 2.0f;
    b[k].params.time_to_target = 1.0f;
  }
  crowdsteer_agents out = {c->count, 2,       next[0], next[1], NULL,
                           next[3],  next[4], NULL,    NULL};
  crowdsteer_step_desc step;
  memset(&step, 0, sizeof step);
  step.behaviours = b;
  step.behaviour_count = 2;
  step.integrator.max_speed = 2.0f;
  step.output = &out;
  step.threads = 1;
  return crowdsteer_step(&c->agents, &step, 0, c->count);
}

/* Neighbour steps while another thread switches ISA: a step keeps the
 * backend it started with for all its passes (the shared walk's pairing is
 * decided by it), so each step gives the scalar bits. Two crowds alternate
 * on one grid, so the grid's step memory left by one cannot pass for the
 * other's. */
static void check_flock_while_switching(void) {
  enum { FLOCK = 5000, FLOCK_ROUNDS = 32 };
  crowd c[2];
  float *want[2][6], *got[6];
  rng r = {0x5EEDu};
  for (int w = 0; w < 2; w++) {
    crowd_init(&c[w], FLOCK, 2);
    crowd_random(&c[w], &r, 8.0f);
    for (int k = 0; k < 6; k++)
      want[w][k] = (float *)calloc(FLOCK, sizeof(float));
  }
  for (int k = 0; k < 6; k++)
    got[k] = (float *)calloc(FLOCK, sizeof(float));
  crowdsteer_grid *grid;
  CHECK_STATUS(crowdsteer_grid_create(&grid), CROWDSTEER_OK);
  CHECK(crowdsteer_force_isa(CROWDSTEER_ISA_SCALAR) == CROWDSTEER_OK);
  for (int w = 0; w < 2; w++)
    CHECK_STATUS(flock_step(&c[w], grid, want[w]), CROWDSTEER_OK);
  pthread_t thread;
  atomic_store(&stop_switching, 0);
  CHECK(pthread_create(&thread, NULL, switcher, NULL) == 0);
  int differed = 0;
  for (int round = 0; round < FLOCK_ROUNDS; round++) {
    const int w = round % 2;
    CHECK_STATUS(flock_step(&c[w], grid, got), CROWDSTEER_OK);
    for (int k = 0; k < 6; k++)
      for (size_t i = 0; k % 3 < 2 && i < FLOCK; i++)
        differed += !same_bits(got[k][i], want[w][k][i]);
  }
  atomic_store(&stop_switching, 1);
  pthread_join(thread, NULL);
  CHECK_MSG(differed == 0, "cohesion + alignment step: ISA switching changed %d values",
            differed);
  crowdsteer_grid_destroy(grid);
  for (int w = 0; w < 2; w++) {
    crowd_free(&c[w]);
    for (int k = 0; k < 6; k++)
      free(want[w][k]);
  }
  for (int k = 0; k < 6; k++)
    free(got[k]);
}

/* out += weight * s reading its own output equals the same sum done by hand
 * (tests are built with -ffp-contract=off, like the library). */
static void check_accumulate_reads_own_output(void) {
  scenario s;
  scenario_make(&s, 101, 2, 7, 0);
  crowdsteer_agents agents = scenario_agents(&s);
  crowdsteer_target target;
  memset(&target, 0, sizeof target);
  target.kind = CROWDSTEER_TARGET_ARRAYS;
  target.position = scenario_vectors(s.tp);
  crowdsteer_output fresh;
  memset(&fresh, 0, sizeof fresh);
  fresh.steering = scenario_vectors(s.wander); /* scratch: steering alone */
  CHECK_STATUS(crowdsteer_seek(&agents, &target, NULL, &fresh, 0, s.count),
               CROWDSTEER_OK);
  float before[2][101];
  for (int k = 0; k < 2; k++)
    memcpy(before[k], s.out[k], sizeof before[k]);
  crowdsteer_output acc;
  memset(&acc, 0, sizeof acc);
  acc.steering = scenario_vectors(s.out);
  acc.mode = CROWDSTEER_ACCUMULATE;
  acc.weight = -0.75f;
  CHECK_STATUS(crowdsteer_seek(&agents, &target, NULL, &acc, 0, s.count), CROWDSTEER_OK);
  for (int k = 0; k < 2; k++)
    for (size_t i = 0; i < s.count; i++) {
      float want = before[k][i] + -0.75f * s.wander[k][i];
      CHECK_MSG(same_bits(want, s.out[k][i]), "agent %zu axis %d", i, k);
    }
  scenario_free(&s);
}

int main(void) {
  if (skip_if_forced_isa_unavailable()) return 77;
  check_accumulate_reads_own_output();
  check_concurrent(0);
  check_concurrent(1);
  /* It forces every ISA in turn itself: once, in the test as is. */
  const char *forced = getenv("CROWDSTEER_ISA");
  if (!forced || !*forced) check_flock_while_switching();
  return check_report("test_guarantees");
}
