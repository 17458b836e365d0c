/* The thread-safety and aliasing claims of docs/guarantees.md, checked:
 * concurrent calls on disjoint ranges while another thread switches ISA give
 * the single-threaded bits, and accumulate may read its own output. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>

#include "../common/check.h"
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
  return check_report("test_guarantees");
}
