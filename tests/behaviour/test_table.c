/* The table of behaviours seen from outside: every crowdsteer_behaviour has
 * a name that parses back, its inputs, and crowdsteer_run gives the same
 * status and bits as the behaviour's named entry point, on every target form
 * and in 2D and 3D; values outside the enum are refused. */
#include "../common/check.h"
#include "../common/scenario.h"

/* The named entry point of d->behaviour, with the inputs `d` describes. */
static crowdsteer_status run_named(const crowdsteer_agents *a,
                                   const crowdsteer_step_behaviour *d,
                                   const crowdsteer_output *o, size_t begin, size_t end) {
  const crowdsteer_target *t = &d->target;
  const crowdsteer_params *p = &d->params;
  switch (d->behaviour) {
  case CROWDSTEER_SEEK: return crowdsteer_seek(a, t, p, o, begin, end);
  case CROWDSTEER_FLEE: return crowdsteer_flee(a, t, p, o, begin, end);
  case CROWDSTEER_ARRIVE: return crowdsteer_arrive(a, t, p, o, begin, end);
  case CROWDSTEER_LEAVE: return crowdsteer_leave(a, t, p, o, begin, end);
  case CROWDSTEER_PURSUIT: return crowdsteer_pursuit(a, t, p, o, begin, end);
  case CROWDSTEER_EVADE: return crowdsteer_evade(a, t, p, o, begin, end);
  case CROWDSTEER_WANDER: return crowdsteer_wander(a, d->wander, p, o, begin, end);
  case CROWDSTEER_SEPARATION:
    return crowdsteer_separation(a, d->neighbours, p, o, begin, end);
  case CROWDSTEER_COHESION:
    return crowdsteer_cohesion(a, d->neighbours, p, o, begin, end);
  case CROWDSTEER_ALIGNMENT:
    return crowdsteer_alignment(a, d->neighbours, p, o, begin, end);
  case CROWDSTEER_FOLLOW_FIELD:
    return crowdsteer_follow_field(a, d->field, p, o, begin, end);
  case CROWDSTEER_FOLLOW_PATH:
    return crowdsteer_follow_path(a, d->path, p, o, begin, end);
  case CROWDSTEER_CONTAIN: return crowdsteer_contain(a, d->bounds, p, o, begin, end);
  default: break; /* a behaviour without a named entry point */
  }
  return crowdsteer_run(a, d, o, begin, end);
}

static void check_names(void) {
  for (int b = 0; b < CROWDSTEER_BEHAVIOUR_COUNT; b++) {
    const char *name = crowdsteer_behaviour_name((crowdsteer_behaviour)b);
    crowdsteer_behaviour parsed = CROWDSTEER_BEHAVIOUR_COUNT;
    CHECK_MSG(strcmp(name, "unknown") != 0, "behaviour %d has no name", b);
    CHECK_STATUS(crowdsteer_behaviour_from_name(name, &parsed), CROWDSTEER_OK);
    CHECK_MSG(parsed == (crowdsteer_behaviour)b, "%s parses to %d", name, (int)parsed);
    const unsigned inputs = crowdsteer_behaviour_inputs((crowdsteer_behaviour)b);
    CHECK_MSG(inputs != 0, "%s reads no input", name);
    CHECK(!(inputs & CROWDSTEER_INPUT_TARGET_VELOCITY) ||
          (inputs & CROWDSTEER_INPUT_TARGET));
  }
  crowdsteer_behaviour parsed = CROWDSTEER_SEEK;
  CHECK(strcmp(crowdsteer_behaviour_name(CROWDSTEER_BEHAVIOUR_COUNT), "unknown") == 0);
  CHECK(strcmp(crowdsteer_behaviour_name((crowdsteer_behaviour)-1), "unknown") == 0);
  CHECK(crowdsteer_behaviour_inputs(CROWDSTEER_BEHAVIOUR_COUNT) == 0);
  CHECK_STATUS(crowdsteer_behaviour_from_name("integrate", &parsed),
               CROWDSTEER_ERROR_PARAMETER);
  CHECK_STATUS(crowdsteer_behaviour_from_name(NULL, &parsed),
               CROWDSTEER_ERROR_NULL_POINTER);
  CHECK_STATUS(crowdsteer_behaviour_from_name("seek", NULL),
               CROWDSTEER_ERROR_NULL_POINTER);
}

/* One behaviour in one target form: crowdsteer_run and the named entry point
 * on two copies of the same crowd (their wander state included). */
/* A field over the scenarios' agents for follow_field (one goal). */
static crowdsteer_field *test_field;

static void check_run(crowdsteer_behaviour b, int dims, int kind) {
  enum { N = 37 };
  const crowdsteer_field *fields[1] = {test_field};
  const crowdsteer_field_follow follow = {fields, 1, NULL, 0};
  scenario s[2];
  crowdsteer_status status[2];
  crowdsteer_wander_state wander[2];
  crowdsteer_neighbours nb;
  memset(&nb, 0, sizeof nb);
  nb.radius = 4.0f;
  static const float px[3] = {-5.0f, 4.0f, 6.0f}, py[3] = {1.0f, 2.0f, -3.0f},
                     pz[3] = {0.0f, 1.0f, 2.0f};
  const crowdsteer_pathway_desc path_desc = {dims, 3, px, py, pz, 0.5f, 0};
  crowdsteer_pathway *path = NULL;
  CHECK_STATUS(crowdsteer_pathway_create(&path, &path_desc), CROWDSTEER_OK);
  const crowdsteer_pathway *paths[1] = {path};
  crowdsteer_path_follow path_follow;
  memset(&path_follow, 0, sizeof path_follow);
  path_follow.paths = paths;
  path_follow.path_count = 1;
  path_follow.prediction_time = 2.0f;
  path_follow.lead_distance = 1.0f;
  crowdsteer_bounds bounds; /* contain: a sphere some agents are outside */
  memset(&bounds, 0, sizeof bounds);
  bounds.centre[0] = 1.0f;
  bounds.radius = 4.0f;
  bounds.prediction = 0.5f;
  for (int c = 0; c < 2; c++) {
    scenario_make(&s[c], N, dims, 0xC0FFEEu + (uint64_t)b, 1);
    crowdsteer_agents agents = scenario_agents(&s[c]);
    crowdsteer_step_behaviour d;
    memset(&d, 0, sizeof d);
    d.behaviour = b;
    d.target.kind = (crowdsteer_target_kind)kind;
    d.target.point[0] = 1.5f;
    d.target.point_velocity[1] = -0.5f;
    d.target.position = scenario_vectors(s[c].tp);
    d.target.velocity = scenario_vectors(s[c].tv);
    d.target.index = s[c].index;
    d.target.agent = 3;
    d.params.max_speed = 2.0f;
    d.params.panic_radius_per_agent = s[c].panic_radius;
    d.params.danger_radius = 3.0f;
    wander[c] = (crowdsteer_wander_state){scenario_vectors(s[c].wander), 9u, 4u};
    d.wander = &wander[c];
    d.neighbours = &nb;
    d.field = &follow;
    d.path = &path_follow;
    d.bounds = &bounds;
    crowdsteer_output out = {scenario_vectors(s[c].out), CROWDSTEER_ACCUMULATE, 0.5f,
                             NULL};
    status[c] = c ? crowdsteer_run(&agents, &d, &out, 2, N - 1)
                  : run_named(&agents, &d, &out, 2, N - 1);
  }
  /* follow_field is 2D only. */
  const crowdsteer_status expected =
      b == CROWDSTEER_FOLLOW_FIELD && dims == 3 ? CROWDSTEER_ERROR_DIMS : CROWDSTEER_OK;
  CHECK_MSG(status[0] == expected && status[1] == expected, "%s: %d, %d",
            crowdsteer_behaviour_name(b), (int)status[0], (int)status[1]);
  for (int k = 0; k < dims; k++)
    for (size_t i = 0; i < N; i++) {
      CHECK_MSG(same_bits(s[0].out[k][i], s[1].out[k][i]), "%s %dD form %d agent %zu",
                crowdsteer_behaviour_name(b), dims, kind, i);
      CHECK(same_bits(s[0].wander[k][i], s[1].wander[k][i]));
    }
  scenario_free(&s[0]);
  scenario_free(&s[1]);
  crowdsteer_pathway_destroy(path);
}

static void check_unknown(void) {
  scenario s;
  scenario_make(&s, 8, 2, 1u, 0);
  crowdsteer_agents agents = scenario_agents(&s);
  crowdsteer_output out = {scenario_vectors(s.out), CROWDSTEER_OVERWRITE, 0.0f, NULL};
  crowdsteer_step_behaviour d;
  memset(&d, 0, sizeof d);
  const float before = s.out[0][0];
  d.behaviour = CROWDSTEER_BEHAVIOUR_COUNT;
  CHECK_STATUS(crowdsteer_run(&agents, &d, &out, 0, 8), CROWDSTEER_ERROR_PARAMETER);
  d.behaviour = (crowdsteer_behaviour)-1;
  CHECK_STATUS(crowdsteer_run(&agents, &d, &out, 0, 8), CROWDSTEER_ERROR_PARAMETER);
  CHECK_STATUS(crowdsteer_run(&agents, NULL, &out, 0, 8), CROWDSTEER_ERROR_NULL_POINTER);
  CHECK(same_bits(s.out[0][0], before));
  scenario_free(&s);
}

int main(void) {
  crowdsteer_field_desc desc;
  memset(&desc, 0, sizeof desc);
  const float goal[2] = {1.0f, -2.0f};
  desc.origin[0] = desc.origin[1] = -40.0f;
  desc.cell_size = 2.0f;
  desc.width = desc.height = 40;
  desc.goal_x = &goal[0];
  desc.goal_y = &goal[1];
  desc.goal_point_count = 1;
  CHECK_STATUS(crowdsteer_field_create(&test_field), CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_field_build(test_field, &desc), CROWDSTEER_OK);
  check_names();
  check_unknown();
  for (int b = 0; b < CROWDSTEER_BEHAVIOUR_COUNT; b++) {
    const unsigned inputs = crowdsteer_behaviour_inputs((crowdsteer_behaviour)b);
    const int forms = (inputs & CROWDSTEER_INPUT_TARGET) ? 4 : 1;
    for (int dims = 2; dims <= 3; dims++)
      for (int kind = 0; kind < forms; kind++)
        check_run((crowdsteer_behaviour)b, dims, kind);
  }
  crowdsteer_field_destroy(test_field);
  return check_failures ? 1 : 0;
}
