/* One built grid shared by any number of steps and queries at once: host
 * threads each step their own crowd state over the same grid (each with its
 * own workspace, all sharing one workspace, or none), with ORCA as the
 * step's last stage, query it and call crowdsteer_avoid (the same
 * workspace), while the others do the same, and every result equals the
 * one computed alone.
 * Run under ThreadSanitizer (tsan, tsan-openmp presets) and ASan too: a
 * step that wrote into the grid, or two steps in one workspace's memory,
 * is a reported race or a wrong bit here. */
#include <pthread.h>

#include "../common/check.h"
#include "../common/neighbour_crowd.h"

enum { AGENTS = 3000, USERS = 4, ROUNDS = 6 };

typedef enum workspace_use { OWN, SHARED, NONE, WORKSPACE_USES } workspace_use;

typedef struct user {
  int number;
  int step_threads;
  crowdsteer_workspace *workspace;
  crowdsteer_agents output; /* the step's new state */
  float *state[6];
  float *queried[3]; /* crowdsteer_separation's steering */
  uint32_t hash;     /* of output and queried */
} user;

static crowd world; /* the pre-step state the grid is built from */
static crowdsteer_grid *grid;

static uint32_t hash_floats(uint32_t h, const float *v, size_t n) {
  for (size_t i = 0; i < n; i++) {
    uint32_t bits;
    memcpy(&bits, &v[i], sizeof bits);
    h = (h ^ bits) * 16777619u;
  }
  return h;
}

/* User u's step: seek its own point, and the three neighbour behaviours
 * weighted by u, then ORCA with a body radius by u, so that every user's
 * bits differ. */
static void run_user(user *u) {
  crowdsteer_neighbours nb;
  memset(&nb, 0, sizeof nb);
  nb.grid = grid;
  nb.radius = 0.5f + 0.1f * (float)u->number;
  crowdsteer_step_behaviour b[4];
  memset(b, 0, sizeof b);
  b[0].behaviour = CROWDSTEER_SEEK;
  b[0].target.kind = CROWDSTEER_TARGET_POINT;
  b[0].target.point[0] = (float)u->number;
  for (int k = 1; k < 4; k++) {
    b[k].behaviour = (crowdsteer_behaviour)(CROWDSTEER_SEPARATION + k - 1);
    b[k].weight = 0.25f * (float)(k + u->number);
    b[k].neighbours = &nb;
  }
  crowdsteer_step_desc step;
  memset(&step, 0, sizeof step);
  step.behaviours = b;
  step.behaviour_count = 4;
  step.integrator.max_speed = 2.0f;
  step.integrator.dt = 0.05f;
  step.output = &u->output;
  step.threads = u->step_threads;
  step.workspace = u->workspace;
  /* ORCA last, over the same grid, its slots in the same workspace. */
  crowdsteer_neighbours nearest = nb;
  nearest.max_neighbours = 6;
  crowdsteer_avoidance avoid;
  memset(&avoid, 0, sizeof avoid);
  avoid.radius = 0.02f * (float)(1 + u->number);
  avoid.time_horizon = 1.0f;
  avoid.neighbours = &nearest;
  avoid.workspace = u->workspace; /* for crowdsteer_avoid below; the step uses its own */
  step.avoidance = &avoid;
  CHECK_STATUS(crowdsteer_step(&world.agents, &step, 0, world.count), CROWDSTEER_OK);

  crowdsteer_output out;
  memset(&out, 0, sizeof out);
  out.steering = (crowdsteer_vectors){u->queried[0], u->queried[1], NULL};
  crowdsteer_params params;
  memset(&params, 0, sizeof params);
  params.max_speed = 1.0f + (float)u->number;
  CHECK_STATUS(crowdsteer_separation(&world.agents, &nb, &params, &out, 0, world.count),
               CROWDSTEER_OK);

  uint32_t h = 2166136261u;
  for (int k = 0; k < 4; k++)
    h = hash_floats(h, u->state[k], world.count);
  h = hash_floats(h, u->queried[0], world.count);
  h = hash_floats(h, u->queried[1], world.count);

  /* crowdsteer_avoid from the step's velocities, its working memory from
   * the user's workspace (or, busy or none, its own). */
  const crowdsteer_vectors preferred = {u->state[3], u->state[4], NULL};
  const crowdsteer_vectors velocity = {u->queried[0], u->queried[1], NULL};
  CHECK_STATUS(crowdsteer_avoid(&world.agents, &avoid, &params, &preferred, &velocity, 0,
                                world.count),
               CROWDSTEER_OK);
  h = hash_floats(h, u->queried[0], world.count);
  u->hash = hash_floats(h, u->queried[1], world.count);
}

static void *user_thread(void *arg) {
  run_user((user *)arg);
  return NULL;
}

static void user_init(user *u, int number) {
  memset(u, 0, sizeof *u);
  u->number = number;
  for (int k = 0; k < 6; k++)
    u->state[k] = (float *)calloc(world.count, sizeof(float));
  for (int k = 0; k < 3; k++)
    u->queried[k] = (float *)calloc(world.count, sizeof(float));
  u->output = world.agents;
  u->output.px = u->state[0];
  u->output.py = u->state[1];
  u->output.vx = u->state[3];
  u->output.vy = u->state[4];
  u->output.pz = u->output.vz = NULL;
}

static void user_free(user *u) {
  for (int k = 0; k < 6; k++)
    free(u->state[k]);
  for (int k = 0; k < 3; k++)
    free(u->queried[k]);
}

static void shared_grid_on_isa(void) {
  user users[USERS];
  uint32_t alone[USERS];
  crowdsteer_workspace *own[USERS], *shared = NULL;
  CHECK(crowdsteer_workspace_create(&shared) == CROWDSTEER_OK);
  for (int u = 0; u < USERS; u++) {
    user_init(&users[u], u);
    CHECK(crowdsteer_workspace_create(&own[u]) == CROWDSTEER_OK);
    run_user(&users[u]); /* alone, NULL workspace, one thread */
    alone[u] = users[u].hash;
  }
  for (int use = OWN; use < WORKSPACE_USES; use++)
    for (int round = 0; round < ROUNDS; round++) {
      pthread_t threads[USERS];
      for (int u = 0; u < USERS; u++) {
        users[u].workspace = use == OWN ? own[u] : use == SHARED ? shared : NULL;
        /* OpenMP teams inside some of the steps, where the build has it. */
        users[u].step_threads = 1 + (u + round) % 2;
        users[u].hash = 0;
        CHECK(pthread_create(&threads[u], NULL, user_thread, &users[u]) == 0);
      }
      for (int u = 0; u < USERS; u++) {
        CHECK(pthread_join(threads[u], NULL) == 0);
        CHECK_MSG(users[u].hash == alone[u],
                  "user %d, workspace use %d, round %d: %08x, alone %08x (isa %s)", u,
                  use, round, users[u].hash, alone[u],
                  crowdsteer_isa_name(crowdsteer_active_isa()));
      }
    }
  /* The shared workspace served one step at a time, and is big enough for
   * one; each user's own served its user. */
  CHECK(crowdsteer_workspace_bytes(shared) > 0);
  for (int u = 0; u < USERS; u++) {
    CHECK(crowdsteer_workspace_bytes(own[u]) > 0);
    crowdsteer_workspace_destroy(own[u]);
    user_free(&users[u]);
  }
  crowdsteer_workspace_destroy(shared);
}

int main(void) {
  rng r = {39};
  crowd_init(&world, AGENTS, 2);
  crowd_random(&world, &r, 6.0f);
  CHECK(crowdsteer_grid_create(&grid) == CROWDSTEER_OK);
  crowdsteer_grid_desc desc;
  memset(&desc, 0, sizeof desc);
  desc.cell_size = 1.0f;
  CHECK_STATUS(crowdsteer_grid_build(grid, &world.agents, &desc), CROWDSTEER_OK);
  const size_t grid_bytes = crowdsteer_grid_bytes(grid);
  const int ran = on_every_isa(shared_grid_on_isa);
  /* Steps and queries hold nothing in the grid. */
  CHECK(crowdsteer_grid_bytes(grid) == grid_bytes);
  crowdsteer_workspace *probe = NULL;
  CHECK(crowdsteer_workspace_create(NULL) == CROWDSTEER_ERROR_NULL_POINTER);
  CHECK(crowdsteer_workspace_create(&probe) == CROWDSTEER_OK);
  CHECK(crowdsteer_workspace_bytes(probe) > 0 && crowdsteer_workspace_bytes(NULL) == 0);
  crowdsteer_workspace_destroy(probe);
  crowdsteer_workspace_destroy(NULL);
  crowdsteer_grid_destroy(grid);
  crowd_free(&world);
  if (!ran) return 77;
  return check_report("test_shared_grid");
}
