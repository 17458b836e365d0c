/* crowdsteer_step (mixed crowds in one pass) must be bit-identical to the
 * straightforward composition: every behaviour through its own public entry
 * point on the pre-step state, combined per agent as documented, then
 * crowdsteer_integrate. Checked on every ISA, for blend and priority, random
 * per-agent behaviour masks, masks in runs and none, per-agent weights, any
 * tile size, thread count and range split; plus the validation of the
 * step's own fields. */
#include "../common/check.h"
#include "../common/scenario.h"

enum { BEHAVIOURS = 6 };

typedef struct setup {
  crowdsteer_step_behaviour behaviours[BEHAVIOURS];
  crowdsteer_wander_state wander;
  crowdsteer_agents snapshot;
  crowdsteer_step_desc step;
  uint32_t *mask;
  float *snapshot_storage;
} setup;

/* shared: the inputs a step shares with the integrator or the batch instead:
 * seek and evade leave max_speed at 0 (so they take the integrator's
 * per-agent max_speed), pursuit and evade chase one AGENT each, and the
 * in-place step has no snapshot. */
/* Which agents use which behaviours: each agent its own random set; runs of
 * 300 agents sharing one set (one behaviour, several, none), so that whole
 * chunks run in registers, one behaviour or many (cs_fused_chunk); or no
 * mask at all. */
enum { MASK_RANDOM, MASK_RUNS, MASK_NONE, MASK_MODES };

/* limits: a force limit, a mass, per-agent max_speed when shared; plain:
 * none of them (the shape the fused chunks compile with constants). */
enum { INTEGRATOR_LIMITS, INTEGRATOR_PLAIN };

static void make_setup(setup *su, scenario *s, int combine, int shared, int mask_mode,
                       int integrator) {
  memset(su, 0, sizeof *su);
  size_t n = s->count;
  rng r = {0xABCDEFu + n};
  su->mask = (uint32_t *)calloc(n + 1, sizeof(uint32_t));
  static const uint32_t run_sets[] = {0x01, 0x02, 0x04, 0x08, 0x10,
                                      0x20, 0x3F, 0x00, 0x21, 0x0C};
  for (size_t i = 0; i < n; i++)
    if (mask_mode == MASK_RANDOM)
      su->mask[i] = rng_below(&r, 5) == 0 ? 0u : (uint32_t)(rng_next(&r) & 0x3Fu);
    else if (mask_mode == MASK_RUNS)
      su->mask[i] = run_sets[i / 300 % (sizeof run_sets / sizeof run_sets[0])];
    else
      su->mask[i] = 0x3Fu;
  su->snapshot_storage = (float *)malloc((6 * n + 1) * sizeof(float));
  float *a[6];
  for (int k = 0; k < 6; k++)
    a[k] = su->snapshot_storage + (size_t)k * n;
  for (int k = 0; k < 3; k++) {
    memcpy(a[k], s->p[k], n * sizeof(float));
    memcpy(a[3 + k], s->v[k], n * sizeof(float));
  }
  su->snapshot =
      (crowdsteer_agents){n, s->dims, a[0], a[1], a[2], a[3], a[4], a[5], NULL};
  su->wander = (crowdsteer_wander_state){scenario_vectors(s->wander), 99u, 5u};

  static const crowdsteer_behaviour kinds[BEHAVIOURS] = {
      CROWDSTEER_SEEK,    CROWDSTEER_ARRIVE, CROWDSTEER_FLEE,
      CROWDSTEER_PURSUIT, CROWDSTEER_EVADE,  CROWDSTEER_WANDER};
  for (int b = 0; b < BEHAVIOURS; b++) {
    crowdsteer_step_behaviour *d = &su->behaviours[b];
    d->behaviour = kinds[b];
    d->params.max_speed = 3.0f;
    d->params.slowing_radius = 4.0f;
    d->params.panic_radius = 25.0f;
    d->params.max_prediction = 8.0f;
    d->params.wander_radius = 1.0f;
    d->params.wander_distance = 2.0f;
    d->params.jitter = 0.4f;
    d->weight = 0.5f + 0.25f * (float)b;
    d->wander = &su->wander;
  }
  su->behaviours[0].target.point[0] = 10.0f;
  su->behaviours[0].target.point[1] = -4.0f;
  su->behaviours[1].target.kind = CROWDSTEER_TARGET_ARRAYS;
  su->behaviours[1].target.position = scenario_vectors(s->tp);
  su->behaviours[1].params.max_speed_per_agent = s->max_speed;
  su->behaviours[1].params.slowing_radius_per_agent = s->slowing_radius;
  su->behaviours[2].target.kind = CROWDSTEER_TARGET_ARRAYS;
  su->behaviours[2].target.position = scenario_vectors(s->tv);
  su->behaviours[2].weight_per_agent = s->weight;
  su->behaviours[3].target.kind = CROWDSTEER_TARGET_AGENTS;
  su->behaviours[3].target.index = s->index;
  su->behaviours[4].target.kind = CROWDSTEER_TARGET_AGENTS;
  su->behaviours[4].target.index = s->index;

  su->step.behaviours = su->behaviours;
  su->step.behaviour_count = BEHAVIOURS;
  su->step.combine = (crowdsteer_combine)combine;
  su->step.priority_threshold = 0.75f;
  su->step.behaviour_mask = mask_mode == MASK_NONE ? NULL : su->mask;
  su->step.integrator.max_speed = 4.0f;
  su->step.integrator.max_force = 2.0f;
  su->step.integrator.mass = 1.5f;
  su->step.integrator.dt = 0.25f;
  su->step.snapshot = &su->snapshot;
  if (integrator == INTEGRATOR_PLAIN) {
    su->step.integrator.max_force = 0.0f; /* no limit */
    su->step.integrator.mass = 0.0f;      /* 1 */
    if (n % 2) su->step.integrator.dt = 1.0f;
    su->behaviours[0].weight = 1.0f;
    su->behaviours[5].weight = 1.0f;
  }
  if (shared) {
    su->behaviours[0].params.max_speed = 0.0f;
    su->behaviours[4].params.max_speed = 0.0f;
    if (integrator == INTEGRATOR_LIMITS)
      su->step.integrator.max_speed_per_agent = s->max_speed;
    su->behaviours[3].target.kind = CROWDSTEER_TARGET_AGENT;
    su->behaviours[3].target.agent = (uint32_t)(n / 2);
    su->behaviours[4].target.kind = CROWDSTEER_TARGET_AGENT;
    su->behaviours[4].target.agent = n ? (uint32_t)(n - 1) : 0u;
    su->step.snapshot = NULL;
  }
}

static void free_setup(setup *su) {
  free(su->mask);
  free(su->snapshot_storage);
}

/* The composition, on the scalar reference, written as a user would. */
static void compose(scenario *s, setup *su) {
  size_t n = s->count;
  int dims = s->dims;
  crowdsteer_agents agents = scenario_agents(s);
  float *steer[BEHAVIOURS][3], *acc[3], *decided;
  float *storage = (float *)calloc((BEHAVIOURS + 2) * 3 * (n + 1), sizeof(float));
  for (int b = 0; b < BEHAVIOURS; b++)
    for (int k = 0; k < 3; k++)
      steer[b][k] = storage + ((size_t)b * 3 + (size_t)k) * (n + 1);
  for (int k = 0; k < 3; k++)
    acc[k] = storage + ((size_t)BEHAVIOURS * 3 + (size_t)k) * (n + 1);
  decided = storage + (size_t)(BEHAVIOURS + 1) * 3 * (n + 1);

  CHECK(crowdsteer_force_isa(CROWDSTEER_ISA_SCALAR) == CROWDSTEER_OK);
  for (int b = 0; b < BEHAVIOURS; b++) {
    const crowdsteer_step_behaviour *d = &su->behaviours[b];
    crowdsteer_output out = {
        {steer[b][0], steer[b][1], steer[b][2]}, CROWDSTEER_OVERWRITE, 0, NULL};
    /* A max_speed left at 0 in a step is the integrator's. */
    crowdsteer_params params = d->params;
    if (params.max_speed == 0.0f && !params.max_speed_per_agent) {
      params.max_speed = su->step.integrator.max_speed;
      params.max_speed_per_agent = su->step.integrator.max_speed_per_agent;
    }
    crowdsteer_step_behaviour one = *d;
    one.params = params;
    if (!(crowdsteer_behaviour_inputs(d->behaviour) & CROWDSTEER_INPUT_WANDER)) {
      CHECK(crowdsteer_run(&agents, &one, &out, 0, n) == 0);
      continue;
    }
    /* wander updates the state only of the agents that use it */
    for (size_t i = 0; i < n; i++)
      if (su->mask[i] & (1u << b))
        CHECK(crowdsteer_run(&agents, &one, &out, i, i + 1) == 0);
  }
  for (size_t i = 0; i < n; i++) {
    for (int b = 0; b < BEHAVIOURS; b++) {
      if (!(su->mask[i] & (1u << b))) continue;
      const crowdsteer_step_behaviour *d = &su->behaviours[b];
      float w = d->weight_per_agent ? d->weight_per_agent[i] : d->weight;
      if (su->step.combine == CROWDSTEER_BLEND) {
        for (int k = 0; k < dims; k++)
          acc[k][i] = acc[k][i] + w * steer[b][k][i];
      } else if (decided[i] == 0.0f) {
        float dot = 0.0f;
        for (int k = 0; k < dims; k++) {
          acc[k][i] = w * steer[b][k][i];
          dot = k == 0 ? acc[k][i] * acc[k][i] : dot + acc[k][i] * acc[k][i];
        }
        if (sqrtf(dot) > su->step.priority_threshold) decided[i] = 1.0f;
      }
    }
  }
  crowdsteer_vectors steering = {acc[0], acc[1], acc[2]};
  CHECK(crowdsteer_integrate(&agents, &steering, &su->step.integrator, 0, n) == 0);
  free(storage);
}

static int same_state(const scenario *a, const scenario *b, const char *what) {
  for (int k = 0; k < a->dims; k++)
    for (size_t i = 0; i < a->count; i++) {
      const float x[3] = {a->p[k][i], a->v[k][i], a->wander[k][i]};
      const float y[3] = {b->p[k][i], b->v[k][i], b->wander[k][i]};
      for (int f = 0; f < 3; f++)
        if (!same_bits(x[f], y[f])) {
          fprintf(stderr,
                  "MISMATCH step %s isa=%s %dd n=%zu agent %zu axis %d %s: "
                  "composition %a vs step %a\n",
                  what, crowdsteer_isa_name(crowdsteer_active_isa()), a->dims, a->count,
                  i, k,
                  f == 0   ? "position"
                  : f == 1 ? "velocity"
                           : "wander",
                  (double)x[f], (double)y[f]);
          return 0;
        }
    }
  return 1;
}

static void check_case(size_t n, int dims, int combine, int shared, int mask_mode,
                       int integrator, const crowdsteer_isa *isas, int isa_count) {
  uint64_t seed = 0x57E9u + n * 7u + (uint64_t)dims;
  scenario want, got;
  setup su;
  scenario_make(&want, n, dims, seed, 1);
  make_setup(&su, &want, combine, shared, mask_mode, integrator);
  compose(&want, &su);
  free_setup(&su);
  static const size_t tiles[] = {0, 1, 7, 64, 4096};
  static const int threads[] = {1, 2, 3, 0};
  for (int isa = 0; isa < isa_count; isa++) {
    CHECK(crowdsteer_force_isa(isas[isa]) == CROWDSTEER_OK);
    for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; t++) {
      scenario_make(&got, n, dims, seed, 1);
      make_setup(&su, &got, combine, shared, mask_mode, integrator);
      su.step.tile_size = tiles[t];
      su.step.threads = threads[t % 4];
      crowdsteer_agents agents = scenario_agents(&got);
      if (t == 3) { /* out of place: the new state goes to a second buffer */
        scenario next;
        scenario_make(&next, n, dims, seed + 1, 2);
        crowdsteer_agents output = scenario_agents(&next);
        su.step.output = &output;
        su.step.snapshot = NULL; /* not needed: targets read the untouched input */
        CHECK_STATUS(crowdsteer_step(&agents, &su.step, 0, n), CROWDSTEER_OK);
        for (int k = 0; k < dims; k++) { /* the input stays as it was */
          CHECK(n == 0 || memcmp(got.p[k],
                                 k == 0   ? su.snapshot.px
                                 : k == 1 ? su.snapshot.py
                                          : su.snapshot.pz,
                                 n * sizeof(float)) == 0);
          memcpy(got.p[k], next.p[k], n * sizeof(float));
          memcpy(got.v[k], next.v[k], n * sizeof(float));
        }
        scenario_free(&next);
      } else if (t == 2 && n > 10 && !shared) { /* a split call gives the same bits too */
        CHECK_STATUS(crowdsteer_step(&agents, &su.step, n / 3, n), CROWDSTEER_OK);
        CHECK_STATUS(crowdsteer_step(&agents, &su.step, 0, n / 3), CROWDSTEER_OK);
      } else {
        CHECK_STATUS(crowdsteer_step(&agents, &su.step, 0, n), CROWDSTEER_OK);
      }
      char what[96];
      snprintf(what, sizeof what, "%s%s mask=%d integrator=%d tile=%zu threads=%d",
               combine == CROWDSTEER_BLEND ? "blend" : "priority",
               shared ? " shared" : "", mask_mode, integrator, tiles[t], threads[t % 4]);
      CHECK(same_state(&want, &got, what));
      free_setup(&su);
      scenario_free(&got);
    }
  }
  scenario_free(&want);
}

/* Each invalid step field is rejected with nothing written. */
static void check_validation(void) {
  scenario s;
  scenario_make(&s, 100, 2, 42, 0);
  setup su;
  make_setup(&su, &s, CROWDSTEER_BLEND, 0, MASK_RANDOM, INTEGRATOR_LIMITS);
  crowdsteer_agents agents = scenario_agents(&s);
  float before = s.p[0][50];
  crowdsteer_step_desc bad = su.step;
  bad.behaviour_count = 0;
  CHECK_STATUS(crowdsteer_step(&agents, &bad, 0, 100), CROWDSTEER_ERROR_PARAMETER);
  bad = su.step;
  bad.behaviour_count = 33;
  CHECK_STATUS(crowdsteer_step(&agents, &bad, 0, 100), CROWDSTEER_ERROR_PARAMETER);
  bad = su.step;
  bad.combine = (crowdsteer_combine)7;
  CHECK_STATUS(crowdsteer_step(&agents, &bad, 0, 100), CROWDSTEER_ERROR_PARAMETER);
  bad = su.step;
  bad.priority_threshold = NAN;
  CHECK_STATUS(crowdsteer_step(&agents, &bad, 0, 100), CROWDSTEER_ERROR_PARAMETER);
  bad = su.step;
  bad.tile_size = 5000;
  CHECK_STATUS(crowdsteer_step(&agents, &bad, 0, 100), CROWDSTEER_ERROR_PARAMETER);
  bad = su.step;
  bad.snapshot = NULL; /* pursuit has AGENTS targets */
  CHECK_STATUS(crowdsteer_step(&agents, &bad, 0, 100), CROWDSTEER_ERROR_NULL_POINTER);
  bad = su.step;
  bad.snapshot = &agents; /* reading the arrays being written */
  CHECK_STATUS(crowdsteer_step(&agents, &bad, 0, 100), CROWDSTEER_ERROR_OVERLAP);
  bad = su.step;
  bad.integrator.mass = -1.0f;
  CHECK_STATUS(crowdsteer_step(&agents, &bad, 0, 100), CROWDSTEER_ERROR_PARAMETER);
  s.index[60] = 100; /* out of the batch */
  CHECK_STATUS(crowdsteer_step(&agents, &su.step, 0, 100), CROWDSTEER_ERROR_AGENT_INDEX);
  s.index[60] = 0;
  su.behaviours[1].params.max_speed_per_agent = NULL;
  su.behaviours[1].params.max_speed = -2.0f;
  CHECK_STATUS(crowdsteer_step(&agents, &su.step, 0, 100), CROWDSTEER_ERROR_PARAMETER);
  su.behaviours[1].params.max_speed = 1.0f;
  su.behaviours[0].weight = (float)INFINITY;
  CHECK_STATUS(crowdsteer_step(&agents, &su.step, 0, 100), CROWDSTEER_ERROR_PARAMETER);
  CHECK(same_bits(before, s.p[0][50]));
  su.behaviours[0].weight = 1.0f;
  su.behaviours[2].weight = NAN; /* replaced by its per-agent weights: not in effect */
  CHECK_STATUS(crowdsteer_step(&agents, &su.step, 0, 100), CROWDSTEER_OK);
  size_t moved = 0;
  for (size_t i = 0; i < 100; i++)
    moved += !same_bits(su.snapshot.px[i], s.p[0][i]);
  CHECK_MSG(moved > 50, "a valid step moved only %zu of 100 agents", moved);
  /* Per-agent data is checked only for the agents that use it. */
  uint32_t saved_mask = su.mask[70];
  su.mask[70] = 1u << 0;        /* agent 70: seek only */
  s.index[70] = 1000;           /* a bad pursuit target it does not use */
  s.slowing_radius[70] = -1.0f; /* a bad arrive radius it does not use */
  CHECK_STATUS(crowdsteer_step(&agents, &su.step, 0, 100), CROWDSTEER_OK);
  su.mask[70] = 1u << 3; /* now it pursues */
  CHECK_STATUS(crowdsteer_step(&agents, &su.step, 0, 100), CROWDSTEER_ERROR_AGENT_INDEX);
  su.mask[70] = 1u << 1; /* now it arrives */
  CHECK_STATUS(crowdsteer_step(&agents, &su.step, 0, 100), CROWDSTEER_ERROR_PARAMETER);
  su.mask[70] = saved_mask;
  s.index[70] = 0;
  s.slowing_radius[70] = 1.0f;
  bad = su.step;
  crowdsteer_agents same = agents;
  bad.output = &same; /* writing the arrays being read */
  CHECK_STATUS(crowdsteer_step(&agents, &bad, 0, 100), CROWDSTEER_ERROR_OVERLAP);
  /* An AGENT target's index is checked once for the call, even where no
   * agent's mask selects the behaviour. */
  bad = su.step;
  crowdsteer_step_behaviour chase[BEHAVIOURS];
  memcpy(chase, su.behaviours, sizeof chase);
  bad.behaviours = chase;
  chase[3].target.kind = CROWDSTEER_TARGET_AGENT;
  chase[3].target.agent = 100;
  before = s.p[0][50];
  CHECK_STATUS(crowdsteer_step(&agents, &bad, 0, 100), CROWDSTEER_ERROR_AGENT_INDEX);
  CHECK(same_bits(before, s.p[0][50]));
  CHECK_STATUS(crowdsteer_step(&agents, &bad, 10, 10), CROWDSTEER_OK);
  free_setup(&su);
  scenario_free(&s);
}

int main(void) {
  crowdsteer_isa isas[CROWDSTEER_ISA_COUNT];
  int isa_count = isas_to_test(CROWDSTEER_ISA_SCALAR, isas);
  if (isa_count < 0) return 77;
  static const size_t counts[] = {0, 1, 17, 1000, 4099};
  for (int dims = 2; dims <= 3; dims++)
    for (int combine = 0; combine < 2; combine++)
      for (int shared = 0; shared < 2; shared++)
        for (int mask_mode = 0; mask_mode < MASK_MODES; mask_mode++)
          for (int integrator = 0; integrator < 2; integrator++)
            for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
              check_case(counts[c], dims, combine, shared, mask_mode, integrator, isas,
                         isa_count);
  /* AGENTS targets (pursuit, evade here) with the other gather than this
   * CPU's, in masked steps too. */
  const int chosen = cs_gather_instruction_pays();
  cs_set_gather_instruction(!chosen);
  for (int dims = 2; dims <= 3; dims++)
    for (int combine = 0; combine < 2; combine++)
      for (int mask_mode = 0; mask_mode < MASK_MODES; mask_mode++)
        check_case(1000, dims, combine, 0, mask_mode, 0, isas, isa_count);
  cs_set_gather_instruction(chosen);
  check_validation();
  printf("threads available: %d\n", crowdsteer_step_max_threads());
  return check_report("test_step");
}
