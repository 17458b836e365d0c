/* crowdsteer_step refuses (OVERLAP, nothing written) a written array that
 * shares the elements it touches with another array of the step, in place
 * and out of place, whatever the ISA; and an AGENT target's index is checked
 * even when no agent of the range selects its behaviour. */
#include "../common/check.h"

enum { COUNT = 12, BEGIN = 2, END = 10, SLOT = 48, TARGET_AGENT = 0 };

/* The behaviours of the step, by their bit in the mask. */
enum {
  SEEK_ARRAYS,
  PURSUIT_AGENTS,
  WANDER_ONE,
  FLEE_AGENT,
  WANDER_TWO,
  SEPARATION,
  KINDS
};

/* Every array of the step: agents, output and snapshot state (positions then
 * velocities, 3 axes each), then the step's and the behaviours' arrays. */
typedef enum role {
  AGENTS = 0,
  OUTPUT = AGENTS + 6,
  SNAPSHOT = OUTPUT + 6,
  TARGET_POSITION = SNAPSHOT + 6,
  WANDER_ONE_STATE = TARGET_POSITION + 3,
  WANDER_TWO_STATE = WANDER_ONE_STATE + 3,
  MASK = WANDER_TWO_STATE + 3,
  INTEGRATOR_MAX_SPEED,
  INTEGRATOR_MASS,
  SEEK_MAX_SPEED,
  PURSUIT_INDEX,
  PURSUIT_WEIGHT,
  WANDER_ONE_RADIUS,
  WANDER_TWO_RADIUS,
  SEPARATION_RADIUS,
  ROLES
} role;

static float pool[(ROLES + 2) * SLOT];

static float *slot_of(int r) { return pool + (size_t)(r + 1) * SLOT; }

/* One layout: role `moved` placed `shift` elements from `onto`'s start. */
typedef struct layout {
  int dims, in_place, unselected; /* unselected: no agent uses WANDER_TWO */
  int moved, onto, shift;
} layout;

static float *array_of(const layout *l, int r) {
  return r == l->moved ? slot_of(l->onto) + l->shift : slot_of(r);
}

/* Which behaviours some agent of [BEGIN, END) selects. */
static unsigned used_kinds(const layout *l) {
  return ((1u << KINDS) - 1u) & ~(l->unselected ? 1u << WANDER_TWO : 0u);
}

/* The element intervals of role r the step touches (at most three) and
 * whether it writes them: docs/guarantees.md, "Memory", on its own. */
typedef struct extent {
  int n, written;
  long first[3], last[3];
} extent;

static void add(extent *e, long first, long last) {
  e->first[e->n] = first;
  e->last[e->n] = last;
  e->n++;
}

static extent touched(const layout *l, int r) {
  extent e = {0, 0, {0, 0, 0}, {0, 0, 0}};
  const unsigned used = used_kinds(l);
  if (r < MASK && r % 3 >= l->dims) return e; /* z in 2D */
  if (r < OUTPUT) {                           /* the agents */
    add(&e, BEGIN, END);
    e.written = l->in_place;
    if (!l->in_place && (used & (1u << PURSUIT_AGENTS))) add(&e, 0, COUNT);
    if (!l->in_place && (used & (1u << FLEE_AGENT)))
      add(&e, TARGET_AGENT, TARGET_AGENT + 1);
  } else if (r < SNAPSHOT) {
    if (!l->in_place) add(&e, BEGIN, END), e.written = 1;
  } else if (r < TARGET_POSITION) {
    if (l->in_place && (used & (1u << PURSUIT_AGENTS))) add(&e, 0, COUNT);
  } else if (r < WANDER_ONE_STATE) {
    add(&e, BEGIN, END); /* seek's target arrays: 2 or 3 of them */
  } else if (r < WANDER_TWO_STATE) {
    add(&e, BEGIN, END), e.written = 1;
  } else if (r < MASK) {
    if (used & (1u << WANDER_TWO)) add(&e, BEGIN, END), e.written = 1;
  } else if (r == WANDER_TWO_RADIUS) {
    if (used & (1u << WANDER_TWO)) add(&e, BEGIN, END);
  } else {
    add(&e, BEGIN, END);
  }
  return e;
}

static int meet(const extent *moved, const extent *onto, long shift) {
  for (int i = 0; i < moved->n; i++)
    for (int j = 0; j < onto->n; j++)
      if (moved->first[i] + shift < onto->last[j] &&
          onto->first[j] < moved->last[i] + shift)
        return 1;
  return 0;
}

static crowdsteer_agents state_at(const layout *l, int first_role) {
  crowdsteer_agents a = {COUNT,
                         l->dims,
                         array_of(l, first_role),
                         array_of(l, first_role + 1),
                         array_of(l, first_role + 2),
                         array_of(l, first_role + 3),
                         array_of(l, first_role + 4),
                         array_of(l, first_role + 5),
                         NULL};
  return a;
}

/* Every array's values: sane parameters, indices, and masks under which each
 * agent of the batch leaves out one behaviour (all but WANDER_TWO when
 * l->unselected), so each behaviour is selected by some agent of the range. */
static void fill(const layout *l) {
  for (size_t i = 0; i < sizeof pool / sizeof pool[0]; i++)
    pool[i] = 0.5f + 0.125f * (float)(i % 13);
  for (uint32_t i = 0; i < COUNT; i++) {
    const uint32_t index = (i * 5u + 1u) % COUNT;
    uint32_t mask = ((1u << KINDS) - 1u) & ~(1u << (i % KINDS));
    if (l->unselected) mask &= ~(1u << WANDER_TWO);
    memcpy(slot_of(PURSUIT_INDEX) + i, &index, sizeof index);
    memcpy(slot_of(MASK) + i, &mask, sizeof mask);
  }
}

/* Builds the grid separation reads and runs the step of layout l over
 * [begin, end), the flee target being agent `agent`. */
static crowdsteer_status run(const layout *l, crowdsteer_grid *grid, size_t begin,
                             size_t end, uint32_t agent) {
  const crowdsteer_agents agents = state_at(l, AGENTS);
  const crowdsteer_agents output = state_at(l, OUTPUT);
  const crowdsteer_agents snapshot = state_at(l, SNAPSHOT);
  crowdsteer_grid_desc grid_desc;
  memset(&grid_desc, 0, sizeof grid_desc);
  grid_desc.cell_size = 4.0f;
  grid_desc.threads = 1;
  if (crowdsteer_grid_build(grid, &agents, &grid_desc) != CROWDSTEER_OK) return -1;
  crowdsteer_wander_state wander[2];
  memset(wander, 0, sizeof wander);
  wander[0].direction = (crowdsteer_vectors){array_of(l, WANDER_ONE_STATE),
                                             array_of(l, WANDER_ONE_STATE + 1),
                                             array_of(l, WANDER_ONE_STATE + 2)};
  wander[1].direction = (crowdsteer_vectors){array_of(l, WANDER_TWO_STATE),
                                             array_of(l, WANDER_TWO_STATE + 1),
                                             array_of(l, WANDER_TWO_STATE + 2)};
  crowdsteer_neighbours nb;
  memset(&nb, 0, sizeof nb);
  nb.grid = grid;
  nb.radius_per_agent = array_of(l, SEPARATION_RADIUS);
  crowdsteer_step_behaviour b[KINDS];
  memset(b, 0, sizeof b);
  b[SEEK_ARRAYS].behaviour = CROWDSTEER_SEEK;
  b[SEEK_ARRAYS].target.kind = CROWDSTEER_TARGET_ARRAYS;
  b[SEEK_ARRAYS].target.position =
      (crowdsteer_vectors){array_of(l, TARGET_POSITION), array_of(l, TARGET_POSITION + 1),
                           array_of(l, TARGET_POSITION + 2)};
  b[SEEK_ARRAYS].params.max_speed_per_agent = array_of(l, SEEK_MAX_SPEED);
  b[PURSUIT_AGENTS].behaviour = CROWDSTEER_PURSUIT;
  b[PURSUIT_AGENTS].target.kind = CROWDSTEER_TARGET_AGENTS;
  b[PURSUIT_AGENTS].target.index = (const uint32_t *)(void *)array_of(l, PURSUIT_INDEX);
  b[PURSUIT_AGENTS].weight_per_agent = array_of(l, PURSUIT_WEIGHT);
  b[WANDER_ONE].behaviour = CROWDSTEER_WANDER;
  b[WANDER_ONE].wander = &wander[0];
  b[WANDER_ONE].params.wander_radius_per_agent = array_of(l, WANDER_ONE_RADIUS);
  b[FLEE_AGENT].behaviour = CROWDSTEER_FLEE;
  b[FLEE_AGENT].target.kind = CROWDSTEER_TARGET_AGENT;
  b[FLEE_AGENT].target.agent = agent;
  b[WANDER_TWO].behaviour = CROWDSTEER_WANDER;
  b[WANDER_TWO].wander = &wander[1];
  b[WANDER_TWO].params.wander_radius_per_agent = array_of(l, WANDER_TWO_RADIUS);
  b[SEPARATION].behaviour = CROWDSTEER_SEPARATION;
  b[SEPARATION].neighbours = &nb;
  crowdsteer_step_desc step;
  memset(&step, 0, sizeof step);
  step.behaviours = b;
  step.behaviour_count = KINDS;
  step.behaviour_mask = (const uint32_t *)(void *)array_of(l, MASK);
  step.integrator.max_speed_per_agent = array_of(l, INTEGRATOR_MAX_SPEED);
  step.integrator.mass_per_agent = array_of(l, INTEGRATOR_MASS);
  step.output = l->in_place ? NULL : &output;
  step.snapshot = &snapshot;
  step.threads = 1;
  return crowdsteer_step(&agents, &step, begin, end);
}

static void check_overlaps(crowdsteer_grid *grid) {
  static const int shifts[] = {-12, -10, -9, -8, -7, -2, -1, 0, 1, 7, 8, 9, 10, 12};
  static float before[sizeof pool / sizeof pool[0]];
  size_t refused = 0, allowed = 0;
  layout l;
  for (l.dims = 2; l.dims <= 3; l.dims++)
    for (l.in_place = 0; l.in_place < 2; l.in_place++)
      for (l.unselected = 0; l.unselected < 2; l.unselected++)
        for (l.moved = 0; l.moved < ROLES; l.moved++) {
          l.onto = l.moved;
          l.shift = 0;
          const extent w = touched(&l, l.moved);
          if (!w.written) continue;
          for (l.onto = 0; l.onto < ROLES; l.onto++) {
            if (l.onto == l.moved) continue;
            const extent r = touched(&l, l.onto);
            for (size_t s = 0; s < sizeof shifts / sizeof shifts[0]; s++) {
              l.shift = shifts[s];
              const int expect_overlap = meet(&w, &r, l.shift);
              fill(&l);
              memcpy(before, pool, sizeof before);
              const crowdsteer_status got = run(&l, grid, BEGIN, END, TARGET_AGENT);
              CHECK_MSG(got ==
                            (expect_overlap ? CROWDSTEER_ERROR_OVERLAP : CROWDSTEER_OK),
                        "%dD %s%s: array %d moved %d onto array %d: %d (%s)", l.dims,
                        l.in_place ? "in place" : "out of place",
                        l.unselected ? ", second wander unselected" : "", l.moved,
                        l.shift, l.onto, (int)got, crowdsteer_status_string(got));
              if (got == CROWDSTEER_ERROR_OVERLAP)
                CHECK_MSG(memcmp(before, pool, sizeof before) == 0,
                          "a refused step wrote (array %d onto %d)", l.moved, l.onto);
              refused += expect_overlap;
              allowed += !expect_overlap;
            }
          }
        }
  CHECK_MSG(refused > 500 && allowed > 500, "refused %zu, allowed %zu", refused, allowed);
}

/* A step whose output buffer is the agents themselves, or whose snapshot is
 * (the case once reported as PARAMETER), and crowdsteer_run, which shares
 * the named calls' check. */
static void check_named_cases(crowdsteer_grid *grid) {
  layout l = {2, 1, 0, -1, -1, 0};
  fill(&l);
  CHECK_STATUS(run(&l, grid, BEGIN, END, TARGET_AGENT), CROWDSTEER_OK);
  l.moved = SNAPSHOT, l.onto = AGENTS; /* snapshot.px is agents.px */
  fill(&l);
  CHECK_STATUS(run(&l, grid, BEGIN, END, TARGET_AGENT), CROWDSTEER_ERROR_OVERLAP);
  l.in_place = 0, l.moved = OUTPUT + 4, l.onto = AGENTS + 4; /* output.vy is agents.vy */
  CHECK_STATUS(run(&l, grid, BEGIN, END, TARGET_AGENT), CROWDSTEER_ERROR_OVERLAP);
  CHECK_STATUS(run(&l, grid, BEGIN, BEGIN, TARGET_AGENT), CROWDSTEER_OK);
  float *p = slot_of(AGENTS), *v = slot_of(AGENTS + 3);
  const crowdsteer_agents agents = {COUNT, 2, p, p + SLOT, NULL, v, v + SLOT, NULL, NULL};
  crowdsteer_step_behaviour seek;
  memset(&seek, 0, sizeof seek);
  seek.behaviour = CROWDSTEER_SEEK;
  seek.params.max_speed_per_agent = slot_of(SEEK_MAX_SPEED);
  crowdsteer_output out;
  memset(&out, 0, sizeof out);
  /* Steering y three elements before seek's top speeds: agents [2, 10)
   * write them at [-1, 7), which they also read; agents [0, 3) at [-3, 0). */
  out.steering = (crowdsteer_vectors){slot_of(OUTPUT), slot_of(SEEK_MAX_SPEED) - 3, NULL};
  CHECK_STATUS(crowdsteer_run(&agents, &seek, &out, BEGIN, END),
               CROWDSTEER_ERROR_OVERLAP);
  CHECK_STATUS(crowdsteer_run(&agents, &seek, &out, 0, 3), CROWDSTEER_OK);
}

/* docs/behaviours.md §5: an AGENT target's index is checked once per call,
 * in a step whatever the masks select. Before, a step where no agent of the
 * range selected the behaviour accepted an index outside the batch. */
static void check_agent_index_unselected(crowdsteer_grid *grid) {
  static float before[sizeof pool / sizeof pool[0]];
  layout l = {3, 1, 0, -1, -1, 0};
  for (l.in_place = 0; l.in_place < 2; l.in_place++)
    for (int agent_ok = 0; agent_ok < 2; agent_ok++) {
      const uint32_t agent = agent_ok ? COUNT - 1 : COUNT;
      fill(&l);
      for (int i = 0; i < COUNT; i++) { /* no agent flees */
        const uint32_t mask = (1u << SEEK_ARRAYS) | (1u << SEPARATION);
        memcpy(slot_of(MASK) + i, &mask, sizeof mask);
      }
      memcpy(before, pool, sizeof before);
      const crowdsteer_status got = run(&l, grid, BEGIN, END, agent);
      CHECK_MSG(got == (agent_ok ? CROWDSTEER_OK : CROWDSTEER_ERROR_AGENT_INDEX),
                "%s, AGENT target %u selected by no agent: %d (%s)",
                l.in_place ? "in place" : "out of place", agent, (int)got,
                crowdsteer_status_string(got));
      if (!agent_ok) CHECK(memcmp(before, pool, sizeof before) == 0);
      CHECK_STATUS(run(&l, grid, BEGIN, BEGIN, agent), CROWDSTEER_OK);
    }
}

/* Two wander behaviours may share one state (the very same arrays): each
 * agent's direction is updated by the wander it selects, and the step gives
 * the bits of two separate states. Both selected by one agent: updated by
 * each in turn, still OK. */
static void check_shared_wander_state(void) {
  enum { N = 64 };
  static float p[2][N], v[2][N], out_p[2][N], out_v[2][N], shared[2][N], apart[2][2][N];
  static float want_p[2][N], want_v[2][N];
  uint32_t mask[N];
  for (int i = 0; i < N; i++) {
    p[0][i] = (float)i;
    p[1][i] = (float)(i % 7);
    v[0][i] = 0.5f;
    v[1][i] = -0.25f;
    shared[0][i] = apart[0][0][i] = apart[1][0][i] = 1.0f;
    shared[1][i] = apart[0][1][i] = apart[1][1][i] = 0.0f;
    mask[i] = 1u << (i % 2);
  }
  const crowdsteer_agents agents = {N, 2, p[0], p[1], NULL, v[0], v[1], NULL, NULL};
  crowdsteer_agents output = {N,        2,        out_p[0], out_p[1], NULL,
                              out_v[0], out_v[1], NULL,     NULL};
  crowdsteer_wander_state one = {{shared[0], shared[1], NULL}, 3, 1}, two = one;
  crowdsteer_step_behaviour b[2];
  memset(b, 0, sizeof b);
  for (int k = 0; k < 2; k++) {
    b[k].behaviour = CROWDSTEER_WANDER;
    b[k].params.wander_radius = 1.0f + (float)k;
    b[k].params.wander_distance = 2.0f;
  }
  b[0].wander = &one;
  b[1].wander = &two;
  crowdsteer_step_desc step;
  memset(&step, 0, sizeof step);
  step.behaviours = b;
  step.behaviour_count = 2;
  step.behaviour_mask = mask;
  step.integrator.max_speed = 1.0f;
  step.output = &output;
  CHECK_STATUS(crowdsteer_step(&agents, &step, 0, N), CROWDSTEER_OK);
  memcpy(want_p, out_p, sizeof want_p);
  memcpy(want_v, out_v, sizeof want_v);
  crowdsteer_wander_state first = {{apart[0][0], apart[0][1], NULL}, 3, 1};
  crowdsteer_wander_state second = {{apart[1][0], apart[1][1], NULL}, 3, 1};
  b[0].wander = &first;
  b[1].wander = &second;
  CHECK_STATUS(crowdsteer_step(&agents, &step, 0, N), CROWDSTEER_OK);
  int same = memcmp(want_p, out_p, sizeof want_p) == 0 &&
             memcmp(want_v, out_v, sizeof want_v) == 0;
  for (int i = 0; i < N; i++)
    for (int k = 0; k < 2; k++)
      same &= shared[k][i] == apart[i % 2][k][i];
  CHECK_MSG(same, "a shared wander state gave other bits than two separate ones (isa %s)",
            crowdsteer_isa_name(crowdsteer_active_isa()));
  for (int i = 0; i < N; i++)
    mask[i] = 3u; /* both wanders on every agent: each in turn */
  b[0].wander = &one;
  b[1].wander = &two;
  CHECK_STATUS(crowdsteer_step(&agents, &step, 0, N), CROWDSTEER_OK);
  two.direction.y = shared[1] + 1; /* shifted by one agent: they meet */
  CHECK_STATUS(crowdsteer_step(&agents, &step, 0, N - 1), CROWDSTEER_ERROR_OVERLAP);
}

int main(void) {
  crowdsteer_isa isas[CROWDSTEER_ISA_COUNT];
  const int isa_count = isas_to_test(CROWDSTEER_ISA_SCALAR, isas);
  if (isa_count < 0) return 77;
  crowdsteer_grid *grid = NULL;
  CHECK_STATUS(crowdsteer_grid_create(&grid), CROWDSTEER_OK);
  for (int i = 0; i < isa_count; i++) {
    CHECK_STATUS(crowdsteer_force_isa(isas[i]), CROWDSTEER_OK);
    check_overlaps(grid);
    check_named_cases(grid);
    check_shared_wander_state();
    check_agent_index_unselected(grid);
  }
  crowdsteer_grid_destroy(grid);
  return check_report("test_step_overlap");
}
