/* One meaning of a behaviour's max_speed left at 0 (no per-agent array):
 * the top speed of the integrator that moves the agent, which is 1 unless
 * set. So, for every behaviour: a named call (crowdsteer_run, which has no
 * integrator) with 0 gives the bits of max_speed 1; a step with 0 gives
 * the bits of the same step with its integrator's max_speed written into
 * the behaviour, uniform or per agent; and a step whose integrator keeps
 * the default is exactly its named calls with 0, then crowdsteer_integrate. */
#include "../common/neighbour_crowd.h"

enum { N = 120 };

typedef struct world {
  crowd c;
  crowdsteer_grid *grid;
  crowdsteer_neighbours nb;
  crowdsteer_wander_state wander;
  float wx[N], wy[N];
  crowdsteer_field *field; /* follow_field: one goal */
  const crowdsteer_field *fields[1];
  crowdsteer_field_follow field_follow;
  crowdsteer_pathway *path; /* follow_path: three points */
  const crowdsteer_pathway *paths[1];
  crowdsteer_path_follow path_follow;
  crowdsteer_bounds bounds; /* contain: a circle some agents are outside */
} world;

static void world_init(world *w) {
  crowd_init(&w->c, N, 2);
  rng r = {17u};
  crowd_random(&w->c, &r, 6.0f);
  CHECK(crowdsteer_grid_create(&w->grid) == CROWDSTEER_OK);
  crowdsteer_grid_desc desc = {0};
  desc.cell_size = 1.0f;
  CHECK(crowdsteer_grid_build(w->grid, &w->c.agents, &desc) == CROWDSTEER_OK);
  memset(&w->nb, 0, sizeof w->nb);
  w->nb.grid = w->grid;
  memset(&w->wander, 0, sizeof w->wander);
  w->wander.direction = (crowdsteer_vectors){w->wx, w->wy, NULL};
  w->wander.seed = 3;
  static const float goal[2] = {1.0f, -2.0f};
  crowdsteer_field_desc field = {0};
  field.origin[0] = field.origin[1] = -10.0f;
  field.cell_size = 0.5f;
  field.width = field.height = 40;
  field.goal_x = &goal[0];
  field.goal_y = &goal[1];
  field.goal_point_count = 1;
  CHECK(crowdsteer_field_create(&w->field) == CROWDSTEER_OK);
  CHECK(crowdsteer_field_build(w->field, &field) == CROWDSTEER_OK);
  w->fields[0] = w->field;
  w->field_follow = (crowdsteer_field_follow){w->fields, 1, NULL, 0};
  static const float px[3] = {-5.0f, 4.0f, 6.0f}, py[3] = {1.0f, 2.0f, -3.0f};
  const crowdsteer_pathway_desc path = {2, 3, px, py, NULL, 0.5f, 0};
  CHECK(crowdsteer_pathway_create(&w->path, &path) == CROWDSTEER_OK);
  w->paths[0] = w->path;
  memset(&w->path_follow, 0, sizeof w->path_follow);
  w->path_follow.paths = w->paths;
  w->path_follow.path_count = 1;
  w->path_follow.prediction_time = 2.0f;
  memset(&w->bounds, 0, sizeof w->bounds);
  w->bounds.centre[0] = 0.5f;
  w->bounds.centre[1] = -1.0f;
  w->bounds.radius = 3.0f;
  w->bounds.prediction = 1.0f;
}

/* Behaviour b with its inputs (a moving point target, the wander state,
 * the grid's neighbours, a field, a pathway, a circle) and max_speed `speed`. */
static crowdsteer_step_behaviour describe(world *w, int b, float speed) {
  crowdsteer_step_behaviour d;
  memset(&d, 0, sizeof d);
  d.behaviour = (crowdsteer_behaviour)b;
  d.target.point[0] = 3.0f;
  d.target.point[1] = -2.0f;
  d.target.point_velocity[0] = 0.5f;
  d.params.max_speed = speed;
  d.params.panic_radius = 50.0f;
  d.params.danger_radius = 50.0f;
  d.params.slowing_radius = 4.0f;
  d.params.wander_radius = 0.5f;
  d.params.wander_distance = 1.0f;
  d.params.jitter = 0.2f;
  d.wander = &w->wander;
  d.neighbours = &w->nb;
  d.field = &w->field_follow;
  d.path = &w->path_follow;
  d.bounds = &w->bounds;
  return d;
}

static float out_a[2][N], out_b[2][N];

static void run(world *w, const crowdsteer_step_behaviour *d, float out[2][N]) {
  memset(w->wx, 0, sizeof w->wx);
  memset(w->wy, 0, sizeof w->wy);
  crowdsteer_output o;
  memset(&o, 0, sizeof o);
  o.steering = (crowdsteer_vectors){out[0], out[1], NULL};
  CHECK(crowdsteer_run(&w->c.agents, d, &o, 0, N) == CROWDSTEER_OK);
}

static int same(float a[2][N], float b[2][N]) {
  for (int k = 0; k < 2; k++)
    for (size_t i = 0; i < N; i++)
      if (!same_bits(a[k][i], b[k][i])) return 0;
  return 1;
}

/* A step of behaviour d out of place into `next` (its own arrays). */
static void step(world *w, const crowdsteer_step_behaviour *d,
                 const crowdsteer_params *integrator, crowd *next) {
  memset(w->wx, 0, sizeof w->wx);
  memset(w->wy, 0, sizeof w->wy);
  crowdsteer_step_desc s;
  memset(&s, 0, sizeof s);
  s.behaviours = d;
  s.behaviour_count = 1;
  s.integrator = *integrator;
  s.output = &next->agents;
  CHECK(crowdsteer_step(&w->c.agents, &s, 0, N) == CROWDSTEER_OK);
}

static int same_state(const crowd *a, const crowd *b) {
  for (int k = 0; k < 6; k++)
    for (size_t i = 0; k != 2 && k != 5 && i < N; i++)
      if (!same_bits(a->a[k][i], b->a[k][i])) return 0;
  return 1;
}

static void body(void) {
  world w;
  world_init(&w);
  crowd x, y;
  crowd_init(&x, N, 2);
  crowd_init(&y, N, 2);
  static float speeds[N];
  for (size_t i = 0; i < N; i++)
    speeds[i] = 0.5f + 0.01f * (float)i;
  for (int b = 0; b < CROWDSTEER_BEHAVIOUR_COUNT; b++) {
    const char *name = crowdsteer_behaviour_name((crowdsteer_behaviour)b);
    /* Named: 0 is 1. */
    crowdsteer_step_behaviour zero = describe(&w, b, 0.0f), one = describe(&w, b, 1.0f);
    run(&w, &zero, out_a);
    run(&w, &one, out_b);
    CHECK_MSG(same(out_a, out_b), "%s: named call, max_speed 0 is not 1", name);
    /* A step: 0 is the integrator's, uniform or per agent. */
    crowdsteer_params integrator = {0};
    integrator.max_speed = 2.5f;
    crowdsteer_step_behaviour given = describe(&w, b, 2.5f);
    step(&w, &zero, &integrator, &x);
    step(&w, &given, &integrator, &y);
    CHECK_MSG(same_state(&x, &y), "%s: step, max_speed 0 is not the integrator's", name);
    integrator.max_speed_per_agent = speeds;
    given.params.max_speed_per_agent = speeds;
    step(&w, &zero, &integrator, &x);
    step(&w, &given, &integrator, &y);
    CHECK_MSG(same_state(&x, &y), "%s: step, max_speed 0 is not the integrator's array",
              name);
    /* The integrator's default: the step is the named call with 0, then
     * crowdsteer_integrate. */
    const crowdsteer_params plain = {0};
    step(&w, &zero, &plain, &x);
    run(&w, &zero, out_a);
    for (int k = 0; k < 6; k++)
      memcpy(y.a[k], w.c.a[k], N * sizeof(float));
    const crowdsteer_vectors steering = {out_a[0], out_a[1], NULL};
    CHECK(crowdsteer_integrate(&y.agents, &steering, &plain, 0, N) == CROWDSTEER_OK);
    CHECK_MSG(same_state(&x, &y), "%s: step with the default integrator", name);
  }
  crowd_free(&x);
  crowd_free(&y);
  crowdsteer_grid_destroy(w.grid);
  crowdsteer_field_destroy(w.field);
  crowdsteer_pathway_destroy(w.path);
  crowd_free(&w.c);
}

int main(void) {
  if (!on_every_isa(body)) return 77;
  return check_report("test_behaviour_max_speed");
}
