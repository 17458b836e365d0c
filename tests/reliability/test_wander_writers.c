/* Wander touches the state of its own agents only: while crowdsteer_step
 * runs wander for some agents, and while crowdsteer_wander runs over a
 * range, another thread keeps writing the wander direction of the agents
 * outside that selection and reading it back. Not one of its writes may be
 * lost, and the step's bits are those of a run without the writer. No data
 * race either (run under ThreadSanitizer: see docs/guarantees.md). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>

#include "../common/check.h"
#include "../common/scenario.h"

enum { COUNT = 4099, STEPS = 400, WANDERS_EVERY = 3 };

typedef struct writer {
  scenario *s;
  int dims;
  size_t begin, end; /* agents it owns: those wander does not select in here */
  int (*owns)(size_t i);
  atomic_int *stop;
  atomic_int started;
  long lost, writes;
} writer;

static int not_a_wanderer(size_t i) { return i % WANDERS_EVERY != 0; }
static int any_agent(size_t i) { return (void)i, 1; }

/* The value a writer stores in round r: at least 2 (never a component of a
 * unit direction) and below 2^23 + 2, cycling, so every value is an exact
 * float however many rounds a slow run (valgrind) makes. A float counter
 * stopped growing at 2^24 and then counted every check as a lost write. */
static float round_value(uint32_t r) { return 2.0f + (float)(r & 0x7FFFFFu); }

/* Writes a new value into every owned direction, then checks the previous
 * round's value is still there: a stale store by the library would show. */
static void *write_directions(void *arg) {
  writer *w = (writer *)arg;
  atomic_store(&w->started, 1);
  for (uint32_t round = 0; !atomic_load(w->stop); round++) {
    for (size_t i = w->begin; i < w->end; i++) {
      if (!w->owns(i)) continue;
      for (int k = 0; k < w->dims; k++) {
        if (round > 0 && w->s->wander[k][i] != round_value(round - 1u)) w->lost++;
        w->s->wander[k][i] = round_value(round);
        w->writes++;
      }
    }
  }
  return NULL;
}

/* Seek for everyone, wander for one agent in three. */
static crowdsteer_status run_step(scenario *s, scenario *next, const uint32_t *mask) {
  crowdsteer_step_behaviour behaviours[2];
  memset(behaviours, 0, sizeof behaviours);
  behaviours[0].behaviour = CROWDSTEER_SEEK;
  behaviours[0].target.point[0] = 5.0f;
  crowdsteer_wander_state state = {scenario_vectors(s->wander), 11u, 0u};
  behaviours[1].behaviour = CROWDSTEER_WANDER;
  behaviours[1].wander = &state;
  behaviours[1].params.wander_radius = 1.0f;
  behaviours[1].params.wander_distance = 2.0f;
  behaviours[1].params.jitter = 0.5f;
  crowdsteer_agents agents = scenario_agents(s), output = scenario_agents(next);
  crowdsteer_step_desc step;
  memset(&step, 0, sizeof step);
  step.behaviours = behaviours;
  step.behaviour_count = 2;
  step.behaviour_mask = mask;
  step.output = &output;
  step.tile_size = 64;
  step.threads = 1;
  return crowdsteer_step(&agents, &step, 0, s->count);
}

static void check_step_with_writer(int dims) {
  scenario want, want_next, got, next;
  scenario_make(&want, COUNT, dims, 21, 1);
  scenario_make(&want_next, COUNT, dims, 22, 1);
  scenario_make(&got, COUNT, dims, 21, 1);
  scenario_make(&next, COUNT, dims, 22, 1);
  uint32_t *mask = (uint32_t *)malloc(COUNT * sizeof(uint32_t));
  for (size_t i = 0; i < COUNT; i++)
    mask[i] = not_a_wanderer(i) ? 1u : 3u;
  for (int r = 0; r < STEPS; r++)
    CHECK_STATUS(run_step(&want, &want_next, mask), CROWDSTEER_OK);

  atomic_int stop = 0;
  writer w = {&got, dims, 0, COUNT, not_a_wanderer, &stop, 0, 0, 0};
  pthread_t thread;
  CHECK(pthread_create(&thread, NULL, write_directions, &w) == 0);
  while (!atomic_load(&w.started)) {
  }
  for (int r = 0; r < STEPS; r++)
    CHECK_STATUS(run_step(&got, &next, mask), CROWDSTEER_OK);
  atomic_store(&stop, 1);
  pthread_join(thread, NULL);
  CHECK_MSG(w.lost == 0, "%ld of %ld writes to non-wanderers lost (%s, %dd)", w.lost,
            w.writes, crowdsteer_isa_name(crowdsteer_active_isa()), dims);
  /* The wanderers' directions and the new state are the writer-free bits. */
  for (int k = 0; k < dims; k++)
    for (size_t i = 0; i < COUNT; i++)
      CHECK_MSG((not_a_wanderer(i) || same_bits(want.wander[k][i], got.wander[k][i])) &&
                    same_bits(want_next.p[k][i], next.p[k][i]) &&
                    same_bits(want_next.v[k][i], next.v[k][i]),
                "agent %zu axis %d: the step's result changed with a writer", i, k);
  free(mask);
  scenario_free(&want);
  scenario_free(&want_next);
  scenario_free(&got);
  scenario_free(&next);
}

/* crowdsteer_wander over [begin, end) while a writer owns a few agents on
 * each side of the range (partial vectors at both ends). */
static void check_range_with_writer(int dims) {
  scenario s;
  scenario_make(&s, COUNT, dims, 31, 1);
  const size_t begin = 37, end = COUNT - 45;
  atomic_int stop = 0;
  writer below = {&s, dims, begin - 20, begin, any_agent, &stop, 0, 0, 0};
  writer above = {&s, dims, end, end + 20, any_agent, &stop, 0, 0, 0};
  pthread_t threads[2];
  CHECK(pthread_create(&threads[0], NULL, write_directions, &below) == 0);
  CHECK(pthread_create(&threads[1], NULL, write_directions, &above) == 0);
  while (!atomic_load(&below.started) || !atomic_load(&above.started)) {
  }
  crowdsteer_agents agents = scenario_agents(&s);
  crowdsteer_params params;
  memset(&params, 0, sizeof params);
  params.wander_radius = 1.0f;
  params.jitter = 0.25f;
  crowdsteer_output out;
  memset(&out, 0, sizeof out);
  out.steering = scenario_vectors(s.out);
  for (uint32_t tick = 0; tick < STEPS; tick++) {
    crowdsteer_wander_state state = {scenario_vectors(s.wander), 5u, tick};
    CHECK_STATUS(crowdsteer_wander(&agents, &state, &params, &out, begin, end),
                 CROWDSTEER_OK);
  }
  atomic_store(&stop, 1);
  pthread_join(threads[0], NULL);
  pthread_join(threads[1], NULL);
  CHECK_MSG(below.lost + above.lost == 0, "%ld writes next to the range lost (%s, %dd)",
            below.lost + above.lost, crowdsteer_isa_name(crowdsteer_active_isa()), dims);
  scenario_free(&s);
}

static void check_all(void) {
  for (int dims = 2; dims <= 3; dims++) {
    check_step_with_writer(dims);
    check_range_with_writer(dims);
  }
}

int main(void) {
  if (!on_every_isa(check_all)) return 77;
  return check_report("test_wander_writers");
}
