/* The crowdsteer benchmark suite: one table of kernels, registered through
 * the Google Benchmark shim for every ISA this build and CPU can run, the
 * userloop competitor and memory-bandwidth baselines. */
#include <float.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bandwidth.h"
#include "crowdsteer.h"
#include "divider.h"
#include "internal.h"
#include "neighbours.h"
#include "shim.h"
#include "userloop_steering.h"

/* ---- the cases: every behaviour of the library's table ------------------- */

typedef enum case_kind { TARGETED, WANDER, INTEGRATE } case_kind;

typedef struct bench_case {
  char name[32]; /* behaviour part of the benchmark name */
  case_kind kind;
  crowdsteer_behaviour behaviour; /* TARGETED and WANDER */
  crowdsteer_target_kind form;    /* TARGETED only */
} bench_case;

/* The target forms, by the suffix of their case names. */
static const struct {
  const char *suffix;
  crowdsteer_target_kind form;
} forms[] = {{"", CROWDSTEER_TARGET_POINT},
             {"_arrays", CROWDSTEER_TARGET_ARRAYS},
             {"_agents", CROWDSTEER_TARGET_AGENTS},
             {"_agent", CROWDSTEER_TARGET_AGENT}};
enum { FORMS = sizeof forms / sizeof forms[0] };

/* Every behaviour with its own kernels in every target form it takes (the
 * neighbour behaviours are bench/neighbours.c's), then the integrator; each
 * is also run as a "_step" (behaviour then integrator), except the
 * integrator itself. */
static bench_case cases[CROWDSTEER_BEHAVIOUR_COUNT * FORMS + 1];
static size_t n_cases;

static void add_case(const char *name, const char *suffix, case_kind kind,
                     crowdsteer_behaviour behaviour, crowdsteer_target_kind form) {
  bench_case *c = &cases[n_cases++];
  snprintf(c->name, sizeof c->name, "%s%s", name, suffix);
  c->kind = kind;
  c->behaviour = behaviour;
  c->form = form;
}

static void make_cases(void) {
  for (int b = 0; b < CROWDSTEER_BEHAVIOUR_COUNT; b++) {
    const crowdsteer_behaviour behaviour = (crowdsteer_behaviour)b;
    const unsigned inputs = crowdsteer_behaviour_inputs(behaviour);
    const char *name = crowdsteer_behaviour_name(behaviour);
    if (inputs & CROWDSTEER_INPUT_NEIGHBOURS) continue;
    /* Not benchmarked here: follow_field (its own bench against seek:
     * crowdsteer-field-bench), follow_path (it needs pathways) and contain
     * (seek towards a point, for the agents outside its region). */
    if (!inputs || (inputs & (CROWDSTEER_INPUT_FIELD | CROWDSTEER_INPUT_PATH |
                              CROWDSTEER_INPUT_BOUNDS)))
      continue;
    if (!(inputs & CROWDSTEER_INPUT_TARGET)) {
      add_case(name, "", WANDER, behaviour, CROWDSTEER_TARGET_POINT);
      continue;
    }
    for (int f = 0; f < FORMS; f++)
      add_case(name, forms[f].suffix, TARGETED, behaviour, forms[f].form);
  }
  add_case("integrate", "", INTEGRATE, CROWDSTEER_BEHAVIOUR_COUNT,
           CROWDSTEER_TARGET_POINT);
}

static const int64_t default_counts[] = {1024, 65536, 1048576};
/* The "large" group: far beyond the last-level cache, memory bound. Only
 * registered with --large or CROWDSTEER_BENCH_LARGE=1 (about 2 GB of RAM). */
static const int64_t large_count = 16777216;

/* Logical bytes one agent's work reads plus writes (gathered targets count
 * what is gathered), the same for every ISA. */
static int64_t bytes_per_agent(const bench_case *c, int step, int dims) {
  const int64_t f = (int64_t)sizeof(float), d = dims;
  const int64_t integrate = (3 * d + 2 * d) * f; /* reads s, v, p; writes v, p */
  int64_t b = 0;
  switch (c->kind) {
  case TARGETED: {
    int velocity = (crowdsteer_behaviour_inputs(c->behaviour) &
                    CROWDSTEER_INPUT_TARGET_VELOCITY) != 0;
    b = (2 * d + d) * f; /* reads p, v; writes s */
    if (c->form == CROWDSTEER_TARGET_ARRAYS) b += (velocity ? 2 * d : d) * f;
    if (c->form == CROWDSTEER_TARGET_AGENTS)
      b += (int64_t)sizeof(uint32_t) + (velocity ? 2 * d : d) * f;
    break;
  }
  case WANDER: b = 4 * d * f; break; /* reads v, w; writes w, s */
  case INTEGRATE: return integrate;
  }
  return step ? b + integrate : b;
}

/* ---- the world: one batch of agents, reused across benchmarks ------------- */

typedef struct world {
  size_t n;
  int dims;
  float *p[3], *v[3], *s[3], *w[3], *tp[3], *tv[3];
  float *scratch[9]; /* copy baseline destination */
  uint32_t *index;
  unsigned char *block;
  const void *owner; /* the benchmark that last reset the mutable state */
  uint32_t tick;
} world;

static world the_world;

/* Uniform in [lo, hi) from a counter: cheap to regenerate, the same every run. */
static float random_at(uint32_t stream, size_t i, float lo, float hi) {
  uint32_t h = cs_mix32(cs_mix32(stream * 0x9E3779B9u + 0x632BE5ABu) ^ (uint32_t)i);
  return lo + (hi - lo) * (float)(h >> 8) * 0x1p-24f;
}

static void fill(float *a, uint32_t stream, size_t n, float lo, float hi) {
  for (size_t i = 0; i < n; i++)
    a[i] = random_at(stream, i, lo, hi);
}

/* Positions spread over [-100, 100) around the point target at the origin,
 * so that arrive's ramp, flee's panic radius and leave's radii each split
 * the crowd: a scalar code pays for mixed branches as it would in a game. */
static void reset_mutable(world *w) {
  for (int k = 0; k < w->dims; k++) {
    fill(w->p[k], 10u + (uint32_t)k, w->n, -100.0f, 100.0f);
    fill(w->v[k], 20u + (uint32_t)k, w->n, -1.0f, 1.0f);
    fill(w->w[k], 30u + (uint32_t)k, w->n, -1.0f, 1.0f);
    memset(w->s[k], 0, w->n * sizeof(float));
  }
  w->tick = 0;
}

static void world_free(world *w) {
  free(w->block);
  memset(w, 0, sizeof *w);
}

/* Array number `slot` of a block: 320 bytes = 5 cache lines more per slot,
 * so up to 64 arrays all start at different offsets modulo 4 KiB. */
/* Slots are array_bytes + 4 KiB apart, so that the stagger never makes one
 * array run into the next (it did once, at the wrap of the offset: p.z and
 * v.z shared most of their elements at 1024 agents in 3D). */
static void *array_at(unsigned char *block, size_t array_bytes, size_t slot) {
  return block + slot * (array_bytes + 4096u) + (slot * 320u) % 4096u;
}

/* Every array in one block, each starting at a different offset modulo
 * 4 KiB: arrays of power-of-two sizes from separate allocations would all
 * alias in the L1 (4K aliasing between the load and store streams), which
 * would measure the allocator, not the kernel. */
static int world_allocate(world *w, size_t n, int dims) {
  const size_t array_bytes = ((n * sizeof(float) + 4095) / 4096) * 4096;
  const int n_arrays = 6 * dims + 9 + 1;
  unsigned char *block = aligned_alloc(4096, (size_t)n_arrays * (array_bytes + 4096));
  if (!block) return 0;
  w->block = block;
  w->n = n;
  w->dims = dims;
  size_t slot = 0;
#define NEXT() array_at(block, array_bytes, slot++)
  for (int k = 0; k < dims; k++) {
    w->p[k] = NEXT();
    w->v[k] = NEXT();
    w->s[k] = NEXT();
    w->w[k] = NEXT();
    w->tp[k] = NEXT();
    w->tv[k] = NEXT();
  }
  for (int k = 0; k < 9; k++) {
    w->scratch[k] = NEXT();
    memset(w->scratch[k], 0, n * sizeof(float));
  }
  w->index = NEXT();
#undef NEXT
  for (int k = 0; k < dims; k++) {
    fill(w->tp[k], 40u + (uint32_t)k, n, -100.0f, 100.0f);
    fill(w->tv[k], 50u + (uint32_t)k, n, -1.0f, 1.0f);
  }
  /* Random quarries: a crowd pursues agents all over the batch. */
  for (size_t i = 0; i < n; i++)
    w->index[i] = (uint32_t)((uint64_t)cs_mix32((uint32_t)i ^ 0x5bd1e995u) * n >> 32);
  reset_mutable(w);
  return 1;
}

/* The world for (n, dims), its mutable state reset once per benchmark (not
 * per call: Google Benchmark calls a body several times while it sizes the
 * iteration count, and regenerating 16M agents each time would dominate). */
static world *world_for(size_t n, int dims, const void *owner) {
  world *w = &the_world;
  if (w->n != n || w->dims != dims) {
    world_free(w);
    if (!world_allocate(w, n, dims)) return NULL;
  }
  if (w->owner != owner) {
    reset_mutable(w);
    w->owner = owner;
  }
  return w;
}

/* ---- kernel benchmarks ---------------------------------------------------- */

typedef struct kernel_entry {
  const bench_case *c;
  int step;
  int dims;
  const cs_backend *backend;
  const char *isa;
} kernel_entry;

static crowdsteer_params bench_params(void) {
  crowdsteer_params params;
  memset(&params, 0, sizeof params);
  params.max_speed = 2.0f;
  params.dt = 1.0f / 60.0f;
  params.target_radius = 1.0f;
  params.slowing_radius = 50.0f;
  params.panic_radius = 60.0f;
  params.danger_radius = 60.0f;
  params.escape_radius = 20.0f;
  params.wander_radius = 1.0f;
  params.wander_distance = 2.0f;
  params.jitter = 0.1f;
  return params;
}

/* ---- the userloop competitor (bench/userloop_steering.c), 2D ------------- */

static userloop_params userloop_constants(void) {
  const crowdsteer_params p = bench_params();
  /* time to target and mass 1, no force limit, no look-ahead limit */
  return (userloop_params){p.max_speed,       p.dt,           p.target_radius,
                           p.slowing_radius,  p.panic_radius, p.danger_radius,
                           p.escape_radius,   FLT_MAX,        p.wander_radius,
                           p.wander_distance, p.jitter};
}

static userloop_behaviour userloop_behaviour_of(int behaviour) {
  switch (behaviour) {
  case CROWDSTEER_SEEK: return USERLOOP_SEEK;
  case CROWDSTEER_FLEE: return USERLOOP_FLEE;
  case CROWDSTEER_ARRIVE: return USERLOOP_ARRIVE;
  case CROWDSTEER_LEAVE: return USERLOOP_LEAVE;
  case CROWDSTEER_PURSUIT: return USERLOOP_PURSUIT;
  case CROWDSTEER_EVADE: return USERLOOP_EVADE;
  default: return USERLOOP_WANDER;
  }
}

static userloop_form userloop_form_of(crowdsteer_target_kind kind) {
  switch (kind) {
  case CROWDSTEER_TARGET_ARRAYS: return USERLOOP_ARRAYS;
  case CROWDSTEER_TARGET_AGENTS: return USERLOOP_AGENTS;
  case CROWDSTEER_TARGET_AGENT: return USERLOOP_AGENT;
  default: return USERLOOP_POINT;
  }
}

/* The same work as run_kernel's, the way a user's loops do it: a "_step"
 * is one loop (behaviour and integrator, no steering array). */
static void run_userloop(csb_state *state, const kernel_entry *e, world *w, size_t n) {
  const userloop_crowd crowd = {n, w->p[0], w->p[1], w->v[0], w->v[1]};
  const userloop_target target = {
      0.0f,     0.0f,     0.5f,     -0.25f,   w->tp[0],
      w->tp[1], w->tv[0], w->tv[1], w->index, (uint32_t)(n / 2)};
  userloop_wander wander = {w->w[0], w->w[1], 0x12345u, 0};
  const userloop_params params = userloop_constants();
  const userloop_behaviour behaviour = userloop_behaviour_of((int)e->c->behaviour);
  const userloop_form form = userloop_form_of(e->c->form);
  while (csb_keep_running(state)) {
    wander.tick = w->tick++;
    if (e->c->kind == INTEGRATE)
      userloop_integrate(&crowd, w->s[0], w->s[1], &params);
    else if (e->step)
      userloop_steer_step(behaviour, form, &crowd, &target, &wander, &params, w->s[0],
                          w->s[1]);
    else
      userloop_steer(behaviour, form, &crowd, &target, &wander, &params, w->s[0],
                     w->s[1]);
    csb_clobber_memory();
  }
  const int64_t agents_done = csb_iterations(state) * (int64_t)n;
  csb_set_items_processed(state, agents_done);
  csb_set_bytes_processed(state, agents_done * bytes_per_agent(e->c, e->step, 2));
}

static void run_kernel(csb_state *state, const void *arg) {
  const kernel_entry *e = arg;
  const size_t n = (size_t)csb_range(state, 0);
  const int dims = e->dims;
  world *w = world_for(n, dims, e);
  if (!w) {
    csb_skip_with_error(state, "out of memory");
    while (csb_keep_running(state)) {
    }
    return;
  }
  if (!e->backend) {
    run_userloop(state, e, w, n);
    return;
  }
  int z = dims == 3;
  crowdsteer_agents agents = {n,
                              dims,
                              w->p[0],
                              w->p[1],
                              z ? w->p[2] : NULL,
                              w->v[0],
                              w->v[1],
                              z ? w->v[2] : NULL,
                              NULL};
  crowdsteer_vectors steering = {w->s[0], w->s[1], z ? w->s[2] : NULL};
  crowdsteer_output out;
  memset(&out, 0, sizeof out);
  out.steering = steering;
  out.mode = CROWDSTEER_OVERWRITE;
  crowdsteer_target target;
  memset(&target, 0, sizeof target);
  target.kind = e->c->form;
  target.point_velocity[0] = 0.5f;
  target.point_velocity[1] = -0.25f;
  target.point_velocity[2] = 0.125f;
  target.position = (crowdsteer_vectors){w->tp[0], w->tp[1], z ? w->tp[2] : NULL};
  target.velocity = (crowdsteer_vectors){w->tv[0], w->tv[1], z ? w->tv[2] : NULL};
  target.index = w->index;
  target.agent = (uint32_t)(n / 2);
  crowdsteer_wander_state wander;
  memset(&wander, 0, sizeof wander);
  wander.direction = (crowdsteer_vectors){w->w[0], w->w[1], z ? w->w[2] : NULL};
  wander.seed = 0x12345u;
  const crowdsteer_params params = bench_params();
  const cs_backend *backend = e->backend;

  crowdsteer_step_behaviour run;
  memset(&run, 0, sizeof run);
  run.behaviour = e->c->behaviour;
  run.target = target;
  run.params = params;
  run.wander = &wander;
  while (csb_keep_running(state)) {
    crowdsteer_status status = CROWDSTEER_OK;
    switch (e->c->kind) {
    case TARGETED: status = cs_run(backend, &agents, &run, &out, 0, n); break;
    case WANDER:
      wander.tick = w->tick++;
      status = cs_run(backend, &agents, &run, &out, 0, n);
      break;
    case INTEGRATE: break;
    }
    if (status == CROWDSTEER_OK && (e->step || e->c->kind == INTEGRATE))
      status = cs_run_integrate(backend, &agents, &steering, &params, 0, n);
    if (status != CROWDSTEER_OK)
      csb_skip_with_error(state, crowdsteer_status_string(status));
    csb_clobber_memory();
  }
  const int64_t agents_done = csb_iterations(state) * (int64_t)n;
  csb_set_items_processed(state, agents_done);
  csb_set_bytes_processed(state, agents_done * bytes_per_agent(e->c, e->step, dims));
}

/* ---- mixed steps: crowdsteer_step, one pass over memory ------------------- */

/* In-place steps in which every agent pursues agent n / 2: */
enum {
  CHASE_NONE,
  CHASE_AGENT,           /* a CROWDSTEER_TARGET_AGENT target, no snapshot */
  CHASE_AGENTS_SNAPSHOT, /* n equal indices and a full snapshot copy per step */
};

typedef struct mixed_entry {
  int behaviours; /* 1: seek alone; 3: seek + flee + wander, blended */
  int chase;      /* CHASE_*: behaviour 0 is a pursuit of one agent instead */
  int threads;
  int dims;
  crowdsteer_isa isa;
  const char *isa_name;
} mixed_entry;

/* Every agent runs every behaviour of the step (the blend's worst case for
 * compute), then the integrator, in place; compare with seek_step (seek,
 * then crowdsteer_integrate: two passes) at the same count. */
static float *state_axis(const crowdsteer_agents *s, int a) {
  float *const axes[6] = {s->px, s->py, s->pz, s->vx, s->vy, s->vz};
  return axes[a];
}

/* Behaviour 0 becomes a pursuit of agent n / 2 in the `chase` form. */
static int chase_setup(int chase, size_t n, crowdsteer_step_behaviour *pursue,
                       crowdsteer_step_desc *step, crowdsteer_agents *snapshot,
                       float **copy, uint32_t **same, uint32_t **mask) {
  pursue->behaviour = CROWDSTEER_PURSUIT;
  /* So slow that the crowd hardly moves over a measurement: pursuers that
   * reached their quarry would brake towards subnormal speeds, which time
   * the FPU's slow path instead of the step. For the same reason the quarry
   * does not pursue itself (mask 0). Pursuit's own max_speed is left at 0:
   * it is the integrator's. */
  pursue->params.max_speed = 0.0f;
  step->integrator.max_speed = 1e-3f;
  *mask = malloc(n * sizeof(uint32_t) + 1);
  if (!*mask) return 0;
  for (size_t i = 0; i < n; i++)
    (*mask)[i] = i != n / 2;
  step->behaviour_mask = *mask;
  if (chase == CHASE_AGENT) {
    pursue->target.kind = CROWDSTEER_TARGET_AGENT;
    pursue->target.agent = (uint32_t)(n / 2);
    return 1;
  }
  *copy = malloc(6 * n * sizeof(float) + 1);
  *same = malloc(n * sizeof(uint32_t) + 1);
  if (!*copy || !*same) return 0;
  for (size_t i = 0; i < n; i++)
    (*same)[i] = (uint32_t)(n / 2);
  float **axes[6] = {&snapshot->px, &snapshot->py, &snapshot->pz,
                     &snapshot->vx, &snapshot->vy, &snapshot->vz};
  for (int a = 0; a < 6; a++)
    *axes[a] = *copy + (size_t)a * n;
  pursue->target.kind = CROWDSTEER_TARGET_AGENTS;
  pursue->target.index = *same;
  step->snapshot = snapshot;
  return 1;
}

/* seek_fused and mixed3_fused as a user's one loop: the same in-place step
 * of the same crowd. */
static void run_userloop_mixed(csb_state *state, const void *arg) {
  const mixed_entry *e = arg;
  const size_t n = (size_t)csb_range(state, 0);
  world *w = world_for(n, 2, e);
  if (!w) {
    csb_skip_with_error(state, "out of memory");
    while (csb_keep_running(state)) {
    }
    return;
  }
  const userloop_crowd crowd = {n, w->p[0], w->p[1], w->v[0], w->v[1]};
  const userloop_target origin = {0};
  userloop_wander wander = {w->w[0], w->w[1], 0x12345u, 0};
  const userloop_params params = userloop_constants();
  const userloop_mix mix = {0.0f, 0.0f, 30.0f, 0.0f, 1.0f, 0.75f, 0.5f};
  while (csb_keep_running(state)) {
    wander.tick = w->tick++;
    if (e->behaviours == 1)
      userloop_steer_step(USERLOOP_SEEK, USERLOOP_POINT, &crowd, &origin, &wander,
                          &params, w->s[0], w->s[1]);
    else
      userloop_mixed3(&crowd, &wander, &mix, &params);
    csb_clobber_memory();
  }
  const int64_t agents_done = csb_iterations(state) * (int64_t)n;
  const int64_t per_agent = 2 * (e->behaviours >= 3 ? 3 : 2) * 2 * (int64_t)sizeof(float);
  csb_set_items_processed(state, agents_done);
  csb_set_bytes_processed(state, agents_done * per_agent);
}

static void run_mixed(csb_state *state, const void *arg) {
  const mixed_entry *e = arg;
  const size_t n = (size_t)csb_range(state, 0);
  const int dims = e->dims;
  world *w = world_for(n, dims, e);
  if (!w || crowdsteer_force_isa(e->isa) != CROWDSTEER_OK) {
    csb_skip_with_error(state, w ? "ISA not available" : "out of memory");
    while (csb_keep_running(state)) {
    }
    return;
  }
  int z = dims == 3;
  crowdsteer_agents agents = {n,
                              dims,
                              w->p[0],
                              w->p[1],
                              z ? w->p[2] : NULL,
                              w->v[0],
                              w->v[1],
                              z ? w->v[2] : NULL,
                              NULL};
  crowdsteer_wander_state wander;
  memset(&wander, 0, sizeof wander);
  wander.direction = (crowdsteer_vectors){w->w[0], w->w[1], z ? w->w[2] : NULL};
  wander.seed = 0x12345u;
  crowdsteer_step_behaviour behaviours[3];
  memset(behaviours, 0, sizeof behaviours);
  static const crowdsteer_behaviour kinds[3] = {CROWDSTEER_SEEK, CROWDSTEER_FLEE,
                                                CROWDSTEER_WANDER};
  for (int b = 0; b < 3; b++) {
    behaviours[b].behaviour = kinds[b];
    behaviours[b].params = bench_params();
    behaviours[b].wander = &wander;
  }
  behaviours[1].target.point[0] = 30.0f; /* the threat, off the seek target */
  behaviours[1].weight = 0.75f;
  behaviours[2].weight = 0.5f;
  crowdsteer_step_desc step;
  memset(&step, 0, sizeof step);
  step.behaviours = behaviours;
  step.behaviour_count = (size_t)e->behaviours;
  step.combine = CROWDSTEER_BLEND;
  step.integrator = bench_params();
  step.threads = e->threads;
  float *copy = NULL; /* CHASE_AGENTS_SNAPSHOT: the snapshot's arrays */
  uint32_t *same = NULL, *mask = NULL;
  crowdsteer_agents snapshot = agents;
  if (e->chase &&
      !chase_setup(e->chase, n, &behaviours[0], &step, &snapshot, &copy, &same, &mask))
    csb_skip_with_error(state, "out of memory");
  while (csb_keep_running(state)) {
    for (int a = 0; copy && a < 6;
         a++) /* what an in-place AGENTS step costs the caller */
      if (a % 3 < dims)
        memcpy(state_axis(&snapshot, a), state_axis(&agents, a), n * sizeof(float));
    wander.tick = w->tick++;
    crowdsteer_status status = crowdsteer_step(&agents, &step, 0, n);
    if (status != CROWDSTEER_OK)
      csb_skip_with_error(state, crowdsteer_status_string(status));
    csb_clobber_memory();
  }
  const int64_t agents_done = csb_iterations(state) * (int64_t)n;
  const int64_t f = (int64_t)sizeof(float);
  /* reads and writes p and v (and w when wandering) */
  const int64_t per_agent = 2 * (e->behaviours >= 3 ? 3 : 2) * dims * f;
  free(copy);
  free(same);
  free(mask);
  csb_set_items_processed(state, agents_done);
  csb_set_bytes_processed(state, agents_done * per_agent);
}

/* ---- bandwidth baselines -------------------------------------------------- */

typedef enum bw_op { BW_READ, BW_COPY, BW_RMW } bw_op;

typedef struct bw_entry {
  bw_op op;
  int dims;
} bw_entry;

/* k = 3 * dims arrays: as many as a step touches (p, v and the steering). */
static void run_bandwidth(csb_state *state, const void *arg) {
  const bw_entry *e = arg;
  const size_t n = (size_t)csb_range(state, 0);
  world *w = world_for(n, e->dims, e);
  if (!w) {
    csb_skip_with_error(state, "out of memory");
    while (csb_keep_running(state)) {
    }
    return;
  }
  float *arrays[9], *dst[9];
  int k = 0;
  for (int d = 0; d < e->dims; d++) {
    arrays[k++] = w->p[d];
    arrays[k++] = w->v[d];
    arrays[k++] = w->s[d];
  }
  for (int j = 0; j < k; j++)
    dst[j] = w->scratch[j];
  uint32_t sink = 0;
  while (csb_keep_running(state)) {
    switch (e->op) {
    case BW_READ: sink ^= bw_read(arrays, k, n); break;
    case BW_COPY: bw_copy(dst, arrays, k, n); break;
    case BW_RMW: bw_rmw(arrays, k, n, 0.5f, 0.25f); break;
    }
    csb_clobber_memory();
  }
  csb_do_not_optimize(&sink);
  const int64_t agents_done = csb_iterations(state) * (int64_t)n;
  const int64_t per_agent =
      (int64_t)k * (int64_t)sizeof(float) * (e->op == BW_READ ? 1 : 2);
  csb_set_items_processed(state, agents_done);
  csb_set_bytes_processed(state, agents_done * per_agent);
}

/* ---- divide/sqrt ceiling ------------------------------------------------- */

typedef struct divider_entry {
  divider_width width;
  divider_op op;
} divider_entry;

/* Items are results (floats divided or square-rooted), so ns per item is the
 * cost of one lane of one divide or sqrt at that width. */
static void run_divider(csb_state *state, const void *arg) {
  const divider_entry *e = arg;
  const long rounds = (long)csb_range(state, 0);
  float sink = 0.0f;
  while (csb_keep_running(state))
    sink += divider_run(e->width, e->op, rounds);
  csb_do_not_optimize(&sink);
  csb_set_items_processed(state, csb_iterations(state) * rounds * DIVIDER_CHAINS *
                                     divider_lanes(e->width));
}

/* divider_div/peak/<isa>/1024 and divider_sqrt/...: 1024 rounds per
 * iteration, named after the library ISA of the same width (the reference
 * issues divss and sqrtss: "scalar"). */
static void register_divider(void) {
  static const char *const isa_names[DIVIDER_WIDTH_COUNT] = {"scalar", "sse4", "avx2",
                                                             "avx512"};
  static const char *const op_names[2] = {"divider_div", "divider_sqrt"};
  static divider_entry entries[DIVIDER_WIDTH_COUNT][2];
  static const int64_t rounds = 1024;
  char name[64];
  for (int op = 0; op < 2; op++)
    for (int width = 0; width < DIVIDER_WIDTH_COUNT; width++) {
      if (!divider_supported((divider_width)width)) continue;
      entries[width][op] = (divider_entry){(divider_width)width, (divider_op)op};
      snprintf(name, sizeof name, "%s/peak/%s", op_names[op], isa_names[width]);
      csb_register(name, run_divider, &entries[width][op], &rounds, 1);
    }
}

/* ---- registration --------------------------------------------------------- */

typedef struct isa_entry {
  const char *name;
  const cs_backend *backend;
} isa_entry;

/* The scalar reference first, then every SIMD ISA compiled in that this CPU
 * runs, then the userloop (no backend: bench/userloop_steering.c, 2D). */
static size_t list_isas(isa_entry *out, char *context, size_t context_size) {
  size_t count = 0;
  out[count++] = (isa_entry){"scalar", cs_backend_for(CROWDSTEER_ISA_SCALAR)};
  char skipped[256] = "";
  for (int isa = CROWDSTEER_ISA_SCALAR + 1; isa < CROWDSTEER_ISA_COUNT; isa++) {
    const cs_backend *backend = cs_backend_for((crowdsteer_isa)isa);
    const char *name = crowdsteer_isa_name((crowdsteer_isa)isa);
    if (!backend) continue;
    if (crowdsteer_isa_supported((crowdsteer_isa)isa)) {
      out[count++] = (isa_entry){name, backend};
    } else {
      size_t used = strlen(skipped);
      snprintf(skipped + used, sizeof skipped - used, "%s%s", used ? "," : "", name);
    }
  }
  out[count++] = (isa_entry){"userloop", NULL};
  size_t used = 0;
  for (size_t k = 0; k < count; k++)
    used += (size_t)snprintf(context + used, context_size - used, "%s%s", k ? "," : "",
                             out[k].name);
  csb_add_context("crowdsteer_isas", context);
  if (skipped[0]) {
    csb_add_context("crowdsteer_isas_not_supported_by_cpu", skipped);
    fprintf(stderr,
            "crowdsteer-bench: compiled in but not supported by this CPU, "
            "not registered: %s\n",
            skipped);
  }
  return count;
}

static const char *const bw_names[] = {"bw_read", "bw_copy", "bw_rmw"};

static void register_userloop_mixed(int dims, const int64_t *count) {
  static mixed_entry entries[2] = {
      {1, CHASE_NONE, 1, 2, CROWDSTEER_ISA_SCALAR, "userloop"},
      {3, CHASE_NONE, 1, 2, CROWDSTEER_ISA_SCALAR, "userloop"}};
  if (dims != 2) return;
  csb_register("seek_fused/2d/userloop", run_userloop_mixed, &entries[0], count, 1);
  csb_register("mixed3_fused/2d/userloop", run_userloop_mixed, &entries[1], count, 1);
}

/* Grouped by count, then dims, then kernel, with the ISAs of one kernel next
 * to each other: the ratios within a group are measured minutes apart at
 * most, which matters on a shared, noisy machine. */
static void register_all(const int64_t *counts, size_t n_counts) {
  static isa_entry isas[CROWDSTEER_ISA_COUNT + 1];
  static char context[128];
  static bw_entry bw[2][3];
  const size_t n_isas = list_isas(isas, context, sizeof context);
  make_cases();
  kernel_entry *entries = calloc(2 * n_cases * 2 * n_isas, sizeof *entries);
  if (!entries) {
    fprintf(stderr, "crowdsteer-bench: out of memory\n");
    exit(1);
  }
  size_t used = 0;
  char name[128];
  for (int dims = 2; dims <= 3; dims++)
    for (size_t c = 0; c < n_cases; c++)
      for (int step = 0; step <= 1; step++)
        for (size_t k = 0; k < n_isas; k++)
          entries[used++] =
              (kernel_entry){&cases[c], step, dims, isas[k].backend, isas[k].name};
  /* crowdsteer_step runs on the dispatched backend: every ISA; the userloop
   * runs seek_fused and mixed3_fused its own way (2D). */
  enum { MIXED_KINDS = 5 };
  static mixed_entry mixed[2][CROWDSTEER_ISA_COUNT][MIXED_KINDS];
  static const struct {
    const char *name;
    int behaviours, threads, chase;
  } mixed_kinds[MIXED_KINDS] = {
      {"seek_fused", 1, 1, CHASE_NONE},
      {"mixed3_fused", 3, 1, CHASE_NONE},
      {"mixed3_fused_2threads", 3, 2, CHASE_NONE},
      {"chase_agent_fused", 1, 1, CHASE_AGENT},
      {"chase_agents_snapshot_fused", 1, 1, CHASE_AGENTS_SNAPSHOT}};
  for (size_t ci = 0; ci < n_counts; ci++) {
    for (int dims = 2; dims <= 3; dims++) {
      for (size_t k = 0; k < n_isas; k++) {
        crowdsteer_isa isa;
        if (!isas[k].backend) {
          register_userloop_mixed(dims, &counts[ci]);
          continue;
        }
        if (crowdsteer_isa_from_name(isas[k].name, &isa) != CROWDSTEER_OK) continue;
        for (int m = 0; m < MIXED_KINDS; m++) {
          mixed[dims - 2][isa][m] = (mixed_entry){mixed_kinds[m].behaviours,
                                                  mixed_kinds[m].chase,
                                                  mixed_kinds[m].threads,
                                                  dims,
                                                  isa,
                                                  isas[k].name};
          snprintf(name, sizeof name, "%s/%dd/%s", mixed_kinds[m].name, dims,
                   isas[k].name);
          /* One thread makes no OpenMP call: all the work is on this
           * thread, so its CPU time is the cost, and it is not inflated by
           * other processes' time slices the way the wall clock is. */
          if (mixed_kinds[m].threads == 1)
            csb_register(name, run_mixed, &mixed[dims - 2][isa][m], &counts[ci], 1);
          else
            csb_register_wall_clock(name, run_mixed, &mixed[dims - 2][isa][m],
                                    &counts[ci], 1);
        }
      }
      for (int op = BW_READ; op <= BW_RMW; op++) {
        bw[dims - 2][op] = (bw_entry){(bw_op)op, dims};
        snprintf(name, sizeof name, "%s/%dd/native", bw_names[op], dims);
        csb_register(name, run_bandwidth, &bw[dims - 2][op], &counts[ci], 1);
      }
      for (size_t k = 0; k < used; k++) {
        const kernel_entry *e = &entries[k];
        if (e->dims != dims || (e->step && e->c->kind == INTEGRATE)) continue;
        if (!e->backend && dims != 2) continue; /* the userloop is 2D */
        /* Stepping a crowd that chases one of its own, that agent chases
         * itself and brakes to subnormal speeds: chase_*_fused time it. */
        if (e->step && e->c->form == CROWDSTEER_TARGET_AGENT) continue;
        snprintf(name, sizeof name, "%s%s/%dd/%s", e->c->name, e->step ? "_step" : "",
                 dims, e->isa);
        csb_register(name, run_kernel, e, &counts[ci], 1);
      }
    }
  }
}

int main(int argc, char **argv) {
  const char *env = getenv("CROWDSTEER_BENCH_LARGE");
  int large = env && env[0] && strcmp(env, "0") != 0;
  /* Our own flag, removed before Google Benchmark parses the rest. */
  int kept = 1;
  for (int k = 1; k < argc; k++) {
    if (strcmp(argv[k], "--large") == 0)
      large = 1;
    else
      argv[kept++] = argv[k];
  }
  argc = kept;
  argv[argc] = NULL;
  csb_initialize(&argc, argv);
  if (csb_report_unrecognized_arguments(argc, argv)) return 1;

  int64_t counts[4];
  size_t n_counts = 0;
  for (size_t k = 0; k < sizeof default_counts / sizeof default_counts[0]; k++)
    counts[n_counts++] = default_counts[k];
  if (large) counts[n_counts++] = large_count;
  csb_add_context("crowdsteer_large", large ? "1" : "0");
  register_divider();
  register_all(counts, n_counts);
  /* Neighbours: the sizes, not the memory-bound large group. */
  register_neighbours(default_counts, sizeof default_counts / sizeof default_counts[0]);
  csb_run_specified();
  csb_shutdown();
  world_free(&the_world);
  neighbours_free();
  return 0;
}
