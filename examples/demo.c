/* crowdsteer-demo: steps a crowd of about a million agents, mixed (several
 * behaviours per agent) in one crowdsteer_step per simulation step, or one
 * entry point per behaviour; reports throughput and physics sanity. */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "crowdsteer.h"
#include "spacing.h"
#include "task_pool.h"

#ifdef CROWDSTEER_DEMO_PICTURES
#include "pictures.h"
#endif

/* ---- options -------------------------------------------------------------- */

enum { EXIT_USAGE = 2 };

/* One group per behaviour; a group's id is also its behaviour's bit in the
 * step's behaviour mask, so the priority order is this order. */
enum group_id {
  GROUP_SEEK,
  GROUP_ARRIVE,
  GROUP_FLEE,
  GROUP_LEAVE,
  GROUP_PURSUIT,
  GROUP_EVADE,
  GROUP_WANDER,
  GROUP_COUNT
};

static const crowdsteer_behaviour group_behaviours[GROUP_COUNT] = {
    CROWDSTEER_SEEK,    CROWDSTEER_ARRIVE, CROWDSTEER_FLEE,  CROWDSTEER_LEAVE,
    CROWDSTEER_PURSUIT, CROWDSTEER_EVADE,  CROWDSTEER_WANDER};

static const char *group_name(int g) {
  return crowdsteer_behaviour_name(group_behaviours[g]);
}

/* The group whose behaviour is called `name`, -1 if none. */
static int group_named(const char *name) {
  for (int g = 0; g < GROUP_COUNT; g++)
    if (strcmp(name, group_name(g)) == 0) return g;
  return -1;
}

/* Slot 0 of the step's behaviours (and bit 0 of every steered agent's mask)
 * is separation, first so that by priority keeping apart wins; group g's
 * behaviour is slot g + 1. */
enum { SEPARATION_SLOT = 0, FIRST_GROUP_SLOT = 1, SLOT_COUNT = GROUP_COUNT + 1 };
static uint32_t group_bit(int g) { return 1u << (g + FIRST_GROUP_SLOT); }

/* Separation: radius and blend weight; the neighbour grid's cells are one
 * radius wide. Two agents closer than OVERLAP_SPACING overlap (the report
 * counts such pairs before and after). */
#define DEFAULT_SEPARATION_RADIUS 0.25f
#define DEFAULT_SEPARATION_WEIGHT 4.0f
#define OVERLAP_SPACING 0.05

/* Agents 0 and 1 are moved by the demo itself (never by a behaviour), so
 * pursuers and evaders have moving agents to target by index. */
enum { QUARRY_AGENT = 0, HUNTER_AGENT = 1, DRIVEN_AGENTS = 2 };

enum step_mode { MODE_STEP, MODE_SEPARATE };
enum snapshot_mode { SNAPSHOT_SWAP, SNAPSHOT_COPY, SNAPSHOT_TARGETS };

typedef struct demo_options {
  size_t agents;
  unsigned steps;
  int dims;
  int only_group; /* a group_id, or -1 for the mixed crowd */
  int mode;       /* enum step_mode */
  int combine;    /* crowdsteer_combine */
  int snapshot;   /* enum snapshot_mode */
  int threads;    /* crowdsteer_step_desc.threads: 0 = all */
  int tasks;      /* workers of a host task pool instead of OpenMP; 0: none */
  size_t tile;    /* crowdsteer_step_desc.tile_size: 0 = the library's */
  const char *isa_name;
  uint32_t seed;
  float separation;        /* separation radius, 0: off */
  float separation_weight; /* its blend weight */
  const char *pictures_dir;
} demo_options;

static void print_usage(FILE *to) {
  fprintf(
      to,
      "usage: crowdsteer-demo [options]\n"
      "  --agents N        agents in the batch (default 1048576, at least %d)\n"
      "  --steps N         simulation steps (default 200)\n"
      "  --mode step|separate\n"
      "                    step: one crowdsteer_step call per simulation step over\n"
      "                    the whole batch (default); separate: one entry point per\n"
      "                    behaviour and range, then crowdsteer_integrate (the same\n"
      "                    result, bit for bit, timed per behaviour)\n"
      "  --behaviour NAME  seek, arrive, flee, leave, pursuit, evade, wander: every\n"
      "                    steered agent runs that behaviour alone; all (default):\n"
      "                    the mixed crowd, one group per behaviour, with fleers\n"
      "                    and evaders also wandering and some pursuers also\n"
      "                    leaving the threat\n"
      "  --combine blend|priority\n"
      "                    how an agent's behaviours combine (default blend;\n"
      "                    priority needs --mode step)\n"
      "  --threads N       crowdsteer_step threads, 0 = all (default 0)\n"
      "  --tasks N         run grid builds and steps on a pthread pool of N workers\n"
      "                    (examples/task_pool.h, an engine's job system in small)\n"
      "                    instead of OpenMP; 0: OpenMP (default)\n"
      "  --tile N          crowdsteer_step agents per tile, 1 to 4096\n"
      "                    (default 0: the library's default)\n"
      "  --snapshot swap|copy|targets\n"
      "                    how the pre-step state that pursuit and evade read is\n"
      "                    kept: copy every agent before each step (default), or\n"
      "                    only the agents that are targets (the two driven ones)\n"
      "  --dims 2|3        2D or 3D (default 2)\n"
      "  --isa NAME        force scalar, sse4, avx2, avx512 or neon\n"
      "                    (default: the best this machine runs, or $CROWDSTEER_ISA)\n"
      "  --seed N          seed of the start positions and of wander (default 1)\n"
      "  --separation R    every steered agent keeps apart from the others within\n"
      "                    radius R (default 0.25; 0: off)\n"
      "  --separation-weight W\n"
      "                    its blend weight (default 4)\n"
      "  --pictures DIR    write PNG pictures of the behaviours into DIR and exit\n"
      "  --help            this text\n"
      "Exit status: 0 ok, 1 a call failed or the state holds NaN/inf, 2 bad usage.\n",
      DRIVEN_AGENTS + GROUP_COUNT);
}

/* Parses a whole decimal number in [min, max]; no sign, no trailing text. */
static int parse_count(const char *text, unsigned long long min, unsigned long long max,
                       unsigned long long *value) {
  if (!text || *text < '0' || *text > '9') return 0;
  char *end = NULL;
  unsigned long long v = strtoull(text, &end, 10);
  if (*end != '\0' || v < min || v > max) return 0;
  *value = v;
  return 1;
}

static int usage_error(const char *what, const char *value) {
  fprintf(stderr, "crowdsteer-demo: %s%s%s\n", what, value ? ": " : "",
          value ? value : "");
  print_usage(stderr);
  return EXIT_USAGE;
}

/* Index of value in names[0..count), or -1. */
static int pick(const char *value, const char *const *names, int count) {
  for (int i = 0; i < count; i++)
    if (strcmp(value, names[i]) == 0) return i;
  return -1;
}

/* One option and its value; -1 when fine, else the exit code to leave with. */
static int apply_option(const char *name, const char *value, demo_options *opts) {
  unsigned long long number = 0;
  if (strcmp(name, "--agents") == 0) {
    /* Target indices are 32-bit, so a batch holds at most 2^32 - 1 agents. */
    if (!parse_count(value, DRIVEN_AGENTS + GROUP_COUNT, UINT32_MAX, &number))
      return usage_error("--agents needs a whole number from 9 to 4294967295", value);
    opts->agents = (size_t)number;
  } else if (strcmp(name, "--steps") == 0) {
    if (!parse_count(value, 1, 100000000, &number))
      return usage_error("--steps needs a whole number from 1 to 100000000", value);
    opts->steps = (unsigned)number;
  } else if (strcmp(name, "--dims") == 0) {
    if (!parse_count(value, 2, 3, &number))
      return usage_error("--dims must be 2 or 3", value);
    opts->dims = (int)number;
  } else if (strcmp(name, "--seed") == 0) {
    if (!parse_count(value, 0, UINT32_MAX, &number))
      return usage_error("--seed needs a whole number from 0 to 4294967295", value);
    opts->seed = (uint32_t)number;
  } else if (strcmp(name, "--behaviour") == 0 || strcmp(name, "--behavior") == 0) {
    opts->only_group = strcmp(value, "all") == 0 ? -1 : group_named(value);
    if (opts->only_group == -1 && strcmp(value, "all") != 0)
      return usage_error("unknown behaviour", value);
  } else if (strcmp(name, "--mode") == 0) {
    static const char *const modes[] = {"step", "separate"};
    opts->mode = pick(value, modes, 2);
    if (opts->mode < 0) return usage_error("--mode must be step or separate", value);
  } else if (strcmp(name, "--combine") == 0) {
    static const char *const combines[] = {"blend", "priority"}; /* enum order */
    opts->combine = pick(value, combines, 2);
    if (opts->combine < 0)
      return usage_error("--combine must be blend or priority", value);
  } else if (strcmp(name, "--snapshot") == 0) {
    static const char *const snapshots[] = {"swap", "copy", "targets"};
    opts->snapshot = pick(value, snapshots, 3);
    if (opts->snapshot < 0)
      return usage_error("--snapshot must be swap, copy or targets", value);
  } else if (strcmp(name, "--threads") == 0) {
    if (!parse_count(value, 0, 4096, &number))
      return usage_error("--threads needs a whole number from 0 (all) to 4096", value);
    opts->threads = (int)number;
  } else if (strcmp(name, "--tasks") == 0) {
    if (!parse_count(value, 0, 1024, &number))
      return usage_error("--tasks needs a whole number of workers from 0 to 1024", value);
    opts->tasks = (int)number;
  } else if (strcmp(name, "--tile") == 0) {
    if (!parse_count(value, 0, 4096, &number))
      return usage_error("--tile needs a whole number from 1 to 4096 (0: default)",
                         value);
    opts->tile = (size_t)number;
  } else if (strcmp(name, "--separation") == 0) {
    char *end = NULL;
    double radius = strtod(value, &end);
    if (*value == '\0' || *end != '\0' || !(radius >= 0.0 && radius <= 100.0))
      return usage_error("--separation needs a radius from 0 (off) to 100", value);
    opts->separation = (float)radius;
  } else if (strcmp(name, "--separation-weight") == 0) {
    char *end = NULL;
    double weight = strtod(value, &end);
    if (*value == '\0' || *end != '\0' || !(weight > 0.0 && weight <= 1000.0))
      return usage_error("--separation-weight needs a weight in (0, 1000]", value);
    opts->separation_weight = (float)weight;
  } else if (strcmp(name, "--isa") == 0) {
    opts->isa_name = value;
  } else if (strcmp(name, "--pictures") == 0) {
    opts->pictures_dir = value;
  } else {
    return usage_error("unknown option", name);
  }
  return -1;
}

/* Returns -1 when the options are fine, else the exit code to leave with. */
static int parse_options(int argc, char **argv, demo_options *opts) {
  *opts = (demo_options){.agents = 1048576,
                         .steps = 200,
                         .dims = 2,
                         .only_group = -1,
                         .mode = MODE_STEP,
                         .combine = CROWDSTEER_BLEND,
                         .snapshot = SNAPSHOT_SWAP,
                         .seed = 1,
                         .separation = DEFAULT_SEPARATION_RADIUS,
                         .separation_weight = DEFAULT_SEPARATION_WEIGHT};
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      print_usage(stdout);
      return 0;
    }
    /* Every other option takes a value, as "--opt VALUE" or "--opt=VALUE". */
    char name[32];
    const char *value = NULL;
    const char *equals = strchr(arg, '=');
    size_t name_length = equals ? (size_t)(equals - arg) : strlen(arg);
    if (strncmp(arg, "--", 2) != 0 || name_length >= sizeof name)
      return usage_error("unknown option", arg);
    memcpy(name, arg, name_length);
    name[name_length] = '\0';
    if (equals)
      value = equals + 1;
    else if (i + 1 < argc)
      value = argv[++i];
    else
      return usage_error("missing value for", name);

    const int exit_code = apply_option(name, value, opts);
    if (exit_code != -1) return exit_code;
  }
  /* The public entry points can only overwrite or accumulate, so separate
   * calls can express a blend but not a priority choice. */
  if (opts->mode == MODE_SEPARATE && opts->combine == CROWDSTEER_PRIORITY)
    return usage_error("--combine priority needs --mode step", NULL);
  return -1;
}

/* ---- the scenario: one batch, contiguous groups, mixed per agent ----------- */

typedef struct group {
  size_t begin, end; /* the group's agents: [begin, end) of the batch */
  crowdsteer_target target;
  crowdsteer_params params; /* the behaviour's own parameters */
} group;

/* A contiguous run of agents using one behaviour, for the separate calls. */
typedef struct run {
  size_t begin, end;
} run;

/* Where the moving targets are at a given step; a pure function of the step
 * so setup, stepping and reporting all agree. */
typedef struct markers {
  float beacon[3], threat[3];          /* seek's point, flee/leave's point */
  float quarry[3], quarry_velocity[3]; /* pursued by index */
  float hunter[3], hunter_velocity[3]; /* evaded by index */
} markers;

typedef struct scenario {
  demo_options opts;
  crowdsteer_agents agents;
  crowdsteer_agents snapshot;  /* the pre-step state AGENTS targets read */
  crowdsteer_vectors steering; /* separate mode's blend accumulator */
  crowdsteer_vectors spot;     /* arrivers' own targets, one per agent */
  float *max_speed;            /* per-agent top speeds of seekers and arrivers */
  float *integrate_max_speed;  /* the integrator's, per agent (per group) */
  float *integrate_max_force;
  float *wander_weight;   /* blend weight of wander, per agent */
  uint32_t *target_agent; /* pursuers' quarry, evaders' hunter */
  uint32_t *mask;         /* bit g: behaviour of group g applies */
  crowdsteer_wander_state wander;
  group groups[GROUP_COUNT];
  size_t cautious_begin;  /* pursuers from here on also leave the threat */
  run *runs[GROUP_COUNT]; /* per behaviour, its runs of agents (separate mode) */
  size_t run_count[GROUP_COUNT];
  crowdsteer_step_behaviour behaviours[SLOT_COUNT];
  crowdsteer_grid *grid;           /* neighbour index, rebuilt before each step */
  crowdsteer_workspace *workspace; /* the steps' scratch for separation */
  task_pool pool;                  /* with --tasks: the host's workers */
  const crowdsteer_task_system *tasks;
  crowdsteer_neighbours neighbours; /* who separation sees */
  crowdsteer_params separation_params;
  crowdsteer_step_desc step_desc;
  unsigned step; /* steps taken so far */
  markers now;
  /* Seconds spent, per part of the work. */
  double behaviour_seconds[GROUP_COUNT], clear_seconds, integrate_seconds;
  double step_seconds, snapshot_seconds, grid_seconds, separation_seconds;
} scenario;

/* Scenario constants, in the per-step units of the default integrator
 * (dt = 1): a speed is distance per step. */
#define WORLD_HALF_SIZE 100.0f /* agents start in [-100, 100] per axis */
#define ARRIVE_START_SPREAD 40.0f
#define ARRIVE_SLOWING_RADIUS 5.0f
#define ARRIVE_TARGET_RADIUS 0.005f
#define AT_REST_TOLERANCE 0.01
#define LEAVE_DANGER_RADIUS 40.0f
#define LEAVE_ESCAPE_RADIUS 10.0f
#define EVADE_PANIC_RADIUS 25.0f
#define EVADE_MAX_SPEED 0.9f
/* Mixed crowd: fleers and evaders add wander at this weight (blend), and
 * the last quarter of the pursuers also leave the threat. */
#define MIXED_WANDER_WEIGHT 0.5f
#define CAUTIOUS_PURSUER_SHARE 4 /* one in this many */
/* Priority: a behaviour steering harder than this wins over later ones, so
 * a fleer running straight away (flee ~ 0) wanders, an evader outside the
 * panic radius wanders, a cautious pursuer near the threat leaves it. */
#define PRIORITY_THRESHOLD 0.05f

/* A point moving on a circle in the xy plane, with its velocity per step. */
static void on_circle(float centre_x, float centre_y, double radius,
                      double radians_per_step, unsigned step, float position[3],
                      float velocity[3]) {
  double angle = radians_per_step * step;
  position[0] = (float)(centre_x + radius * cos(angle));
  position[1] = (float)(centre_y + radius * sin(angle));
  position[2] = 0.0f;
  velocity[0] = (float)(-radius * radians_per_step * sin(angle));
  velocity[1] = (float)(radius * radians_per_step * cos(angle));
  velocity[2] = 0.0f;
}

static markers markers_at(unsigned step) {
  markers m;
  float unused[3];
  on_circle(0.0f, 0.0f, 60.0, 0.01, step, m.beacon, unused); /* 0.6 per step */
  on_circle(0.0f, 0.0f, 80.0, 0.006, step, m.quarry, m.quarry_velocity);     /* 0.48 */
  on_circle(20.0f, -10.0f, 50.0, -0.008, step, m.hunter, m.hunter_velocity); /* 0.4 */
  /* The threat crosses the world along x at 0.3 per step. */
  m.threat[0] = -50.0f + 0.3f * (float)step;
  m.threat[1] = 10.0f;
  m.threat[2] = 0.0f;
  return m;
}

/* Puts the demo-driven agents and point targets where they are at sc->step. */
static void place_markers(scenario *sc) {
  sc->now = markers_at(sc->step);
  const crowdsteer_agents *a = &sc->agents;
  const int dims = sc->opts.dims;
  float *const pos[3] = {a->px, a->py, a->pz}, *const vel[3] = {a->vx, a->vy, a->vz};
  for (int k = 0; k < dims; k++) {
    pos[k][QUARRY_AGENT] = sc->now.quarry[k];
    vel[k][QUARRY_AGENT] = sc->now.quarry_velocity[k];
    pos[k][HUNTER_AGENT] = sc->now.hunter[k];
    vel[k][HUNTER_AGENT] = sc->now.hunter_velocity[k];
  }
  memcpy(sc->groups[GROUP_SEEK].target.point, sc->now.beacon, sizeof sc->now.beacon);
  memcpy(sc->groups[GROUP_FLEE].target.point, sc->now.threat, sizeof sc->now.threat);
  memcpy(sc->groups[GROUP_LEAVE].target.point, sc->now.threat, sizeof sc->now.threat);
}

/* Every per-agent float array but wander's, for allocation and release: the
 * first VECTOR_ARRAYS are x, y, z triples (z stays NULL in 2D). */
enum { VECTOR_ARRAYS = 18, ALL_FLOAT_ARRAYS = VECTOR_ARRAYS + 4 };
static void float_arrays(scenario *sc, float **arrays[ALL_FLOAT_ARRAYS]) {
  float **list[ALL_FLOAT_ARRAYS] = {&sc->agents.px,
                                    &sc->agents.py,
                                    &sc->agents.pz,
                                    &sc->agents.vx,
                                    &sc->agents.vy,
                                    &sc->agents.vz,
                                    &sc->snapshot.px,
                                    &sc->snapshot.py,
                                    &sc->snapshot.pz,
                                    &sc->snapshot.vx,
                                    &sc->snapshot.vy,
                                    &sc->snapshot.vz,
                                    &sc->steering.x,
                                    &sc->steering.y,
                                    &sc->steering.z,
                                    &sc->spot.x,
                                    &sc->spot.y,
                                    &sc->spot.z,
                                    &sc->max_speed,
                                    &sc->integrate_max_speed,
                                    &sc->integrate_max_force,
                                    &sc->wander_weight};
  memcpy(arrays, list, sizeof list);
}

static void scenario_free(scenario *sc) {
  float **arrays[ALL_FLOAT_ARRAYS];
  float_arrays(sc, arrays);
  for (size_t i = 0; i < ALL_FLOAT_ARRAYS; i++)
    free(*arrays[i]);
  free(sc->wander.direction.x);
  free(sc->wander.direction.y);
  free(sc->wander.direction.z);
  free(sc->target_agent);
  free(sc->mask);
  for (int g = 0; g < GROUP_COUNT; g++)
    free(sc->runs[g]);
  crowdsteer_grid_destroy(sc->grid);
  crowdsteer_workspace_destroy(sc->workspace);
  if (sc->tasks) task_pool_stop(&sc->pool);
}

/* Random numbers for the start state come from the library's own
 * counter-based generator, on streams (its `tick` argument) of their own. */
enum { STREAM_POSITION = 0x51A7u, STREAM_SPEED = 0x5BEEu };

static float uniform_pm1(const scenario *sc, size_t agent, uint32_t stream,
                         uint32_t axis) {
  return crowdsteer_random(sc->opts.seed, (uint32_t)agent, stream, axis);
}

/* Agent i's spot on a square (cubic) grid filling the world, for arrivers. */
static void grid_spot(size_t rank, size_t side, int dims, float spot[3]) {
  float spacing = 2.0f * WORLD_HALF_SIZE / (float)side;
  size_t cell = rank;
  for (int k = 0; k < dims; k++) {
    spot[k] = -WORLD_HALF_SIZE + spacing * ((float)(cell % side) + 0.5f);
    cell /= side;
  }
}

/* The runs of agents whose mask has `bit`, for the separate calls. */
static int find_runs(scenario *sc, int g) {
  const uint32_t bit = group_bit(g);
  const size_t n = sc->agents.count;
  size_t count = 0;
  for (size_t i = 0; i < n; i++)
    count += (sc->mask[i] & bit) && (i == 0 || !(sc->mask[i - 1] & bit));
  sc->runs[g] = calloc(count + 1, sizeof(run));
  if (!sc->runs[g]) return 1;
  for (size_t i = 0; i < n; i++) {
    if (!(sc->mask[i] & bit)) continue;
    if (i == 0 || !(sc->mask[i - 1] & bit)) sc->runs[g][sc->run_count[g]++].begin = i;
    sc->runs[g][sc->run_count[g] - 1].end = i + 1;
  }
  return 0;
}

/* The batch's arrays (2D leaves every z array NULL); 1 when out of memory. */
static int allocate_arrays(scenario *sc, size_t n, int dims) {
  /* calloc checks n * size for overflow; 2D leaves every z array NULL. The
   * snapshot is calloc'ed too: with --snapshot targets only two of its
   * agents are ever written, and the rest never costs memory. */
  float **arrays[ALL_FLOAT_ARRAYS];
  float_arrays(sc, arrays);
  int failed = 0;
  for (size_t i = 0; i < ALL_FLOAT_ARRAYS; i++) {
    int is_z_axis = i < VECTOR_ARRAYS && i % 3 == 2;
    if (is_z_axis && dims == 2) continue;
    *arrays[i] = calloc(n, sizeof(float));
    failed |= *arrays[i] == NULL;
  }
  float **wander_axes[3] = {&sc->wander.direction.x, &sc->wander.direction.y,
                            &sc->wander.direction.z};
  for (int k = 0; k < dims; k++) {
    *wander_axes[k] = calloc(n, sizeof(float));
    failed |= *wander_axes[k] == NULL;
  }
  sc->target_agent = calloc(n, sizeof(uint32_t));
  sc->mask = calloc(n, sizeof(uint32_t));
  return failed || !sc->target_agent || !sc->mask;
}

/* Each group's agents and every agent's behaviour mask; 1 when out of memory. */
static int assign_groups(scenario *sc, const demo_options *opts) {
  const size_t n = opts->agents;
  /* Contiguous groups: all behaviours share the batch evenly, or one
   * behaviour takes every steered agent. */
  const size_t steered = n - DRIVEN_AGENTS;
  const int mixed = opts->only_group < 0;
  for (int g = 0; g < GROUP_COUNT; g++) {
    group *gr = &sc->groups[g];
    if (mixed) {
      gr->begin = DRIVEN_AGENTS + steered * (size_t)g / GROUP_COUNT;
      gr->end = DRIVEN_AGENTS + steered * (size_t)(g + 1) / GROUP_COUNT;
    } else if (opts->only_group == g) {
      gr->begin = DRIVEN_AGENTS;
      gr->end = n;
    } else {
      gr->begin = gr->end = n; /* empty */
    }
  }

  /* Behaviour masks: each group's own behaviour; in the mixed crowd fleers
   * and evaders also wander (blended at a lower weight, or as the fallback
   * by priority) and the last pursuers also leave the threat. Contiguous
   * runs keep the separate calls few; crowdsteer_step would take any mask. */
  const group *pursuers = &sc->groups[GROUP_PURSUIT];
  sc->cautious_begin =
      pursuers->end - (pursuers->end - pursuers->begin) / CAUTIOUS_PURSUER_SHARE;
  if (!mixed) sc->cautious_begin = pursuers->end;
  for (int g = 0; g < GROUP_COUNT; g++) {
    uint32_t bits = group_bit(g);
    if (mixed && (g == GROUP_FLEE || g == GROUP_EVADE)) bits |= group_bit(GROUP_WANDER);
    if (opts->separation > 0.0f) bits |= 1u << SEPARATION_SLOT;
    for (size_t i = sc->groups[g].begin; i < sc->groups[g].end; i++) {
      sc->mask[i] = bits;
      sc->wander_weight[i] = g == GROUP_WANDER ? 1.0f : MIXED_WANDER_WEIGHT;
    }
  }
  for (size_t i = sc->cautious_begin; i < pursuers->end; i++)
    sc->mask[i] |= group_bit(GROUP_LEAVE);
  for (int g = 0; g < GROUP_COUNT; g++)
    if (find_runs(sc, g) != 0) return 1;
  return 0;
}

/* Where everyone starts, and each group's target and parameters. */
static void set_group_inputs(scenario *sc, const demo_options *opts) {
  const size_t n = opts->agents;
  const int dims = opts->dims;
  /* Everyone starts at rest, scattered over the world. */
  float *const pos[3] = {sc->agents.px, sc->agents.py, sc->agents.pz};
  for (size_t i = DRIVEN_AGENTS; i < n; i++)
    for (int k = 0; k < dims; k++)
      pos[k][i] = WORLD_HALF_SIZE * uniform_pm1(sc, i, STREAM_POSITION, (uint32_t)k);

  /* Heterogeneous top speeds for seekers and arrivers, 0.75 to 1.5. */
  for (size_t i = 0; i < n; i++)
    sc->max_speed[i] = 1.125f + 0.375f * uniform_pm1(sc, i, STREAM_SPEED, 0);

  group *seek = &sc->groups[GROUP_SEEK];
  seek->target.kind = CROWDSTEER_TARGET_POINT;
  seek->params.max_speed_per_agent = sc->max_speed;

  /* Arrivers: each has its own spot on a grid and starts near it. */
  group *arrive = &sc->groups[GROUP_ARRIVE];
  arrive->target.kind = CROWDSTEER_TARGET_ARRAYS;
  arrive->target.position = sc->spot;
  arrive->params.max_speed_per_agent = sc->max_speed;
  arrive->params.slowing_radius = ARRIVE_SLOWING_RADIUS;
  arrive->params.target_radius = ARRIVE_TARGET_RADIUS;
  size_t arrivers = arrive->end - arrive->begin, side = 1;
  while ((dims == 2 ? side * side : side * side * side) < arrivers)
    side++;
  float *const spot[3] = {sc->spot.x, sc->spot.y, sc->spot.z};
  for (size_t i = arrive->begin; i < arrive->end; i++) {
    float s[3];
    grid_spot(i - arrive->begin, side, dims, s);
    for (int k = 0; k < dims; k++) {
      spot[k][i] = s[k];
      pos[k][i] =
          s[k] + ARRIVE_START_SPREAD * uniform_pm1(sc, i, STREAM_POSITION, (uint32_t)k);
    }
  }

  group *flee = &sc->groups[GROUP_FLEE];
  flee->target.kind = CROWDSTEER_TARGET_POINT; /* panic_radius default: +inf */

  group *leave = &sc->groups[GROUP_LEAVE];
  leave->target.kind = CROWDSTEER_TARGET_POINT;
  leave->params.danger_radius = LEAVE_DANGER_RADIUS;
  leave->params.escape_radius = LEAVE_ESCAPE_RADIUS;

  group *pursuit = &sc->groups[GROUP_PURSUIT];
  pursuit->target.kind = CROWDSTEER_TARGET_AGENTS;
  pursuit->target.index = sc->target_agent;
  pursuit->params.max_prediction = 20.0f;
  for (size_t i = pursuit->begin; i < pursuit->end; i++)
    sc->target_agent[i] = QUARRY_AGENT;

  group *evade = &sc->groups[GROUP_EVADE];
  evade->target.kind = CROWDSTEER_TARGET_AGENTS;
  evade->target.index = sc->target_agent;
  evade->params.max_speed = EVADE_MAX_SPEED;
  evade->params.panic_radius = EVADE_PANIC_RADIUS;
  evade->params.max_prediction = 20.0f;
  for (size_t i = evade->begin; i < evade->end; i++)
    sc->target_agent[i] = HUNTER_AGENT;

  group *wander = &sc->groups[GROUP_WANDER];
  wander->params.wander_radius = 0.5f;
  wander->params.wander_distance = 1.0f;
  wander->params.jitter = 0.3f;
  sc->wander.seed = opts->seed;
}

/* The integrator's per-agent limits. */
static void set_integrator_limits(scenario *sc, size_t n) {
  const group *seek = &sc->groups[GROUP_SEEK], *arrive = &sc->groups[GROUP_ARRIVE];
  const group *evade = &sc->groups[GROUP_EVADE], *wander = &sc->groups[GROUP_WANDER];
  /* One integrator for the whole batch, with each group's limits per agent:
   * seekers curve after the beacon (force 0.25), wanderers turn smoothly
   * (force 0.1), evaders are slower than the hunter. Agents 0 and 1 are
   * never integrated. */
  for (size_t i = 0; i < n; i++) {
    sc->integrate_max_speed[i] = 1.0f;
    sc->integrate_max_force[i] = (float)INFINITY;
  }
  for (size_t i = seek->begin; i < seek->end; i++) {
    sc->integrate_max_speed[i] = sc->max_speed[i];
    sc->integrate_max_force[i] = 0.25f;
  }
  for (size_t i = arrive->begin; i < arrive->end; i++)
    sc->integrate_max_speed[i] = sc->max_speed[i];
  for (size_t i = evade->begin; i < evade->end; i++)
    sc->integrate_max_speed[i] = EVADE_MAX_SPEED;
  for (size_t i = wander->begin; i < wander->end; i++)
    sc->integrate_max_force[i] = 0.1f;
}

/* The step's description; 1 when the neighbour grid cannot be created. */
static int describe_step(scenario *sc, const demo_options *opts) {
  /* The step: separation, then one behaviour per group, in group order (the
   * priority order). With separation off no agent has its bit, and the slot
   * holds a seek that nothing reads. */
  for (int g = 0; g < GROUP_COUNT; g++) {
    crowdsteer_step_behaviour *b = &sc->behaviours[g + FIRST_GROUP_SLOT];
    b->behaviour = group_behaviours[g];
    b->weight = 1.0f;
  }
  sc->behaviours[GROUP_WANDER + FIRST_GROUP_SLOT].wander = &sc->wander;
  sc->behaviours[GROUP_WANDER + FIRST_GROUP_SLOT].weight_per_agent = sc->wander_weight;
  crowdsteer_step_behaviour *separation = &sc->behaviours[SEPARATION_SLOT];
  separation->behaviour = CROWDSTEER_SEEK;
  if (opts->separation > 0.0f) {
    if (crowdsteer_grid_create(&sc->grid) != CROWDSTEER_OK ||
        crowdsteer_workspace_create(&sc->workspace) != CROWDSTEER_OK)
      return 1;
    sc->neighbours.grid = sc->grid;
    sc->neighbours.radius = opts->separation;
    sc->separation_params.max_speed = 1.0f;
    separation->behaviour = CROWDSTEER_SEPARATION;
    separation->neighbours = &sc->neighbours;
    separation->params = sc->separation_params;
  }
  separation->weight = opts->separation_weight;
  crowdsteer_step_desc *d = &sc->step_desc;
  d->behaviours = sc->behaviours;
  d->behaviour_count = SLOT_COUNT;
  d->workspace = sc->workspace;
  d->combine = (crowdsteer_combine)opts->combine;
  d->priority_threshold = PRIORITY_THRESHOLD;
  d->behaviour_mask = sc->mask;
  d->integrator.max_speed_per_agent = sc->integrate_max_speed;
  d->integrator.max_force_per_agent = sc->integrate_max_force;
  d->snapshot = &sc->snapshot;
  d->tile_size = opts->tile;
  d->threads = opts->threads;
  if (opts->tasks && opts->mode == MODE_STEP) {
    if (task_pool_start(&sc->pool, opts->tasks) != 0) return 1;
    sc->tasks = &sc->pool.system;
  }
  d->tasks = sc->tasks;

  return 0;
}

/* Allocates the batch and sets up every group; 0 on success. */
static int scenario_setup(scenario *sc, const demo_options *opts) {
  memset(sc, 0, sizeof *sc);
  sc->opts = *opts;
  const size_t n = opts->agents;
  const int dims = opts->dims;
  sc->agents.count = sc->snapshot.count = n;
  sc->agents.dims = sc->snapshot.dims = dims;
  if (allocate_arrays(sc, n, dims) != 0 || assign_groups(sc, opts) != 0) {
    fprintf(stderr, "crowdsteer-demo: out of memory for %zu agents\n", n);
    scenario_free(sc);
    return 1;
  }
  set_group_inputs(sc, opts);
  set_integrator_limits(sc, n);
  if (describe_step(sc, opts) != 0) {
    fprintf(stderr, "crowdsteer-demo: out of memory for the neighbour grid\n");
    scenario_free(sc);
    return 1;
  }
  place_markers(sc);
  return 0;
}

/* ---- stepping -------------------------------------------------------------- */

static double seconds_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static crowdsteer_status run_behaviour(scenario *sc, int g, const crowdsteer_output *out,
                                       size_t begin, size_t end) {
  const group *gr = &sc->groups[g];
  const crowdsteer_agents *a = &sc->agents;
  switch (g) {
  case GROUP_SEEK: return crowdsteer_seek(a, &gr->target, &gr->params, out, begin, end);
  case GROUP_ARRIVE:
    return crowdsteer_arrive(a, &gr->target, &gr->params, out, begin, end);
  case GROUP_FLEE: return crowdsteer_flee(a, &gr->target, &gr->params, out, begin, end);
  case GROUP_LEAVE: return crowdsteer_leave(a, &gr->target, &gr->params, out, begin, end);
  case GROUP_PURSUIT:
    return crowdsteer_pursuit(a, &gr->target, &gr->params, out, begin, end);
  case GROUP_EVADE: return crowdsteer_evade(a, &gr->target, &gr->params, out, begin, end);
  default: return crowdsteer_wander(a, &sc->wander, &gr->params, out, begin, end);
  }
}

/* The composition crowdsteer_step is defined by, with public entry points:
 * clear the steering, each behaviour in order accumulates weight * s over
 * its runs of agents, then one integrator call. Each part timed on its own.
 * The pursuers' and evaders' targets (agents 0 and 1) are not integrated,
 * so they hold their pre-step state throughout and need no snapshot. */
static crowdsteer_status step_separately(scenario *sc) {
  const size_t begin = DRIVEN_AGENTS, end = sc->agents.count;
  const int dims = sc->opts.dims;
  double start = seconds_now();
  float *const steer[3] = {sc->steering.x, sc->steering.y, sc->steering.z};
  for (int k = 0; k < dims; k++)
    memset(steer[k] + begin, 0, (end - begin) * sizeof(float));
  sc->clear_seconds += seconds_now() - start;
  if (sc->grid) { /* slot 0 first, as the step blends */
    const crowdsteer_output out = {.steering = sc->steering,
                                   .mode = CROWDSTEER_ACCUMULATE,
                                   .weight = sc->opts.separation_weight};
    start = seconds_now();
    crowdsteer_status status = crowdsteer_separation(
        &sc->agents, &sc->neighbours, &sc->separation_params, &out, begin, end);
    sc->separation_seconds += seconds_now() - start;
    if (status != CROWDSTEER_OK) {
      fprintf(stderr, "crowdsteer-demo: separation failed at step %u: %s\n", sc->step,
              crowdsteer_status_string(status));
      return status;
    }
  }
  for (int g = 0; g < GROUP_COUNT; g++) {
    /* ACCUMULATE with weight 1 adds s itself, as the step's blend does. */
    const crowdsteer_output out = {.steering = sc->steering,
                                   .mode = CROWDSTEER_ACCUMULATE,
                                   .weight = 1.0f,
                                   .weight_per_agent =
                                       g == GROUP_WANDER ? sc->wander_weight : NULL};
    start = seconds_now();
    for (size_t r = 0; r < sc->run_count[g]; r++) {
      crowdsteer_status status =
          run_behaviour(sc, g, &out, sc->runs[g][r].begin, sc->runs[g][r].end);
      if (status != CROWDSTEER_OK) {
        fprintf(stderr, "crowdsteer-demo: %s failed at step %u: %s\n", group_name(g),
                sc->step, crowdsteer_status_string(status));
        return status;
      }
    }
    sc->behaviour_seconds[g] += seconds_now() - start;
  }
  start = seconds_now();
  crowdsteer_status status = crowdsteer_integrate(&sc->agents, &sc->steering,
                                                  &sc->step_desc.integrator, begin, end);
  sc->integrate_seconds += seconds_now() - start;
  if (status != CROWDSTEER_OK)
    fprintf(stderr, "crowdsteer-demo: integrate failed at step %u: %s\n", sc->step,
            crowdsteer_status_string(status));
  return status;
}

/* AGENTS targets must see the state from before the step. Default (swap):
 * the step writes the new state into the second buffer and the buffers swap
 * afterwards, so nothing is copied. In place (copy, targets), the second
 * buffer is a snapshot: a copy of every agent, or only of the two agents
 * that are targets (the only ones ever read from it). */
static void refresh_snapshot(scenario *sc) {
  if (sc->opts.snapshot == SNAPSHOT_SWAP) return;
  const crowdsteer_agents *a = &sc->agents, *s = &sc->snapshot;
  float *const from[6] = {a->px, a->py, a->pz, a->vx, a->vy, a->vz};
  float *const to[6] = {s->px, s->py, s->pz, s->vx, s->vy, s->vz};
  for (int k = 0; k < 6; k++) {
    if (!from[k]) continue; /* z in 2D */
    if (sc->opts.snapshot == SNAPSHOT_COPY) {
      memcpy(to[k], from[k], a->count * sizeof(float));
    } else {
      to[k][QUARRY_AGENT] = from[k][QUARRY_AGENT];
      to[k][HUNTER_AGENT] = from[k][HUNTER_AGENT];
    }
  }
}

/* One crowdsteer_step over every steered agent of the batch. */
static crowdsteer_status step_at_once(scenario *sc) {
  /* The markers moved the point targets since the last step. */
  for (int g = 0; g < GROUP_COUNT; g++) {
    sc->behaviours[g + FIRST_GROUP_SLOT].target = sc->groups[g].target;
    sc->behaviours[g + FIRST_GROUP_SLOT].params = sc->groups[g].params;
  }
  double start = seconds_now();
  refresh_snapshot(sc);
  double copied = seconds_now();
  const int swap = sc->opts.snapshot == SNAPSHOT_SWAP;
  sc->step_desc.output = swap ? &sc->snapshot : NULL;
  sc->step_desc.snapshot = swap ? NULL : &sc->snapshot;
  crowdsteer_status status =
      crowdsteer_step(&sc->agents, &sc->step_desc, DRIVEN_AGENTS, sc->agents.count);
  if (swap) { /* the second buffer now holds the current state */
    crowdsteer_agents previous = sc->agents;
    sc->agents = sc->snapshot;
    sc->snapshot = previous;
  }
  sc->step_seconds += seconds_now() - copied;
  sc->snapshot_seconds += copied - start;
  if (status != CROWDSTEER_OK)
    fprintf(stderr, "crowdsteer-demo: crowdsteer_step failed at step %u: %s\n", sc->step,
            crowdsteer_status_string(status));
  return status;
}

/* Separation sees the others through a grid built from the state before
 * the step (on the step's threads); the behaviours then read that copy.
 * Separation reads no velocities: the grid keeps positions only. */
static crowdsteer_status build_grid(scenario *sc) {
  if (!sc->grid) return CROWDSTEER_OK;
  const crowdsteer_grid_desc desc = {
      .cell_size = sc->opts.separation,
      .threads = sc->opts.mode == MODE_STEP ? sc->opts.threads : 1,
      .positions_only = 1,
      .tasks = sc->tasks};
  double start = seconds_now();
  crowdsteer_status status = crowdsteer_grid_build(sc->grid, &sc->agents, &desc);
  sc->grid_seconds += seconds_now() - start;
  if (status != CROWDSTEER_OK)
    fprintf(stderr, "crowdsteer-demo: crowdsteer_grid_build failed at step %u: %s\n",
            sc->step, crowdsteer_status_string(status));
  return status;
}

/* One simulation step. The setup and the report do not depend on how the
 * step is computed: both modes give the same bits. */
static crowdsteer_status scenario_step(scenario *sc) {
  crowdsteer_status status = build_grid(sc);
  if (status != CROWDSTEER_OK) return status;
  status = sc->opts.mode == MODE_STEP ? step_at_once(sc) : step_separately(sc);
  if (status != CROWDSTEER_OK) return status;
  sc->wander.tick++; /* fresh wander randomness next step */
  sc->step++;
  place_markers(sc);
  return CROWDSTEER_OK;
}

/* ---- sanity figures -------------------------------------------------------- */

typedef struct figures {
  double mean_distance[GROUP_COUNT]; /* to each group's target or threat */
  size_t arrivers_at_rest;
  size_t leavers_inside_escape, evaders_inside_panic;
  double wander_mean_speed, wander_top_speed;
  size_t non_finite;       /* NaN or inf anywhere in the state */
  spacing_figures spacing; /* of the steered agents */
  int spacing_measured;
} figures;

static double distance_to(const scenario *sc, size_t i, const float target[3]) {
  const crowdsteer_agents *a = &sc->agents;
  double dx = a->px[i] - target[0], dy = a->py[i] - target[1];
  double dz = sc->opts.dims == 3 ? a->pz[i] - target[2] : 0.0;
  return sqrt(dx * dx + dy * dy + dz * dz);
}

static double speed_of(const scenario *sc, size_t i) {
  const crowdsteer_agents *a = &sc->agents;
  double vz = sc->opts.dims == 3 ? a->vz[i] : 0.0;
  return sqrt((double)a->vx[i] * a->vx[i] + (double)a->vy[i] * a->vy[i] + vz * vz);
}

/* The target each group is measured against, as it is now. */
static const float *measured_target(const scenario *sc, int g, size_t i, float own[3]) {
  switch (g) {
  case GROUP_SEEK: return sc->now.beacon;
  case GROUP_FLEE:
  case GROUP_LEAVE: return sc->now.threat;
  case GROUP_PURSUIT: return sc->now.quarry;
  case GROUP_EVADE: return sc->now.hunter;
  case GROUP_ARRIVE:
    own[0] = sc->spot.x[i];
    own[1] = sc->spot.y[i];
    own[2] = sc->opts.dims == 3 ? sc->spot.z[i] : 0.0f;
    return own;
  default: return NULL;
  }
}

static size_t count_non_finite(const float *a, size_t n) {
  size_t bad = 0;
  if (a)
    for (size_t i = 0; i < n; i++)
      bad += !isfinite(a[i]);
  return bad;
}

static figures measure(const scenario *sc) {
  figures f;
  memset(&f, 0, sizeof f);
  for (int g = 0; g < GROUP_COUNT; g++) {
    const group *gr = &sc->groups[g];
    double sum = 0.0;
    for (size_t i = gr->begin; i < gr->end; i++) {
      float own[3];
      const float *target = measured_target(sc, g, i, own);
      double distance = target ? distance_to(sc, i, target) : 0.0;
      double speed = speed_of(sc, i);
      sum += distance;
      if (g == GROUP_ARRIVE)
        f.arrivers_at_rest += distance < AT_REST_TOLERANCE && speed < AT_REST_TOLERANCE;
      if (g == GROUP_LEAVE) f.leavers_inside_escape += distance < LEAVE_ESCAPE_RADIUS;
      if (g == GROUP_EVADE) f.evaders_inside_panic += distance < EVADE_PANIC_RADIUS;
      if (g == GROUP_WANDER) {
        f.wander_mean_speed += speed;
        if (speed > f.wander_top_speed) f.wander_top_speed = speed;
      }
    }
    size_t members = gr->end - gr->begin;
    if (members) f.mean_distance[g] = sum / (double)members;
    if (g == GROUP_WANDER && members) f.wander_mean_speed /= (double)members;
  }
  const float *state[] = {
      sc->agents.px,          sc->agents.py,          sc->agents.pz,
      sc->agents.vx,          sc->agents.vy,          sc->agents.vz,
      sc->steering.x,         sc->steering.y,         sc->steering.z,
      sc->wander.direction.x, sc->wander.direction.y, sc->wander.direction.z};
  for (size_t k = 0; k < sizeof state / sizeof state[0]; k++)
    f.non_finite += count_non_finite(state[k], sc->agents.count);
  f.spacing_measured =
      f.non_finite == 0 && spacing_measure(&sc->agents, DRIVEN_AGENTS, sc->agents.count,
                                           OVERLAP_SPACING, &f.spacing) == 0;
  return f;
}

/* ---- report ---------------------------------------------------------------- */

/* Threads crowdsteer_step runs on with these options, as the library picks
 * them: the requested count (0: every OpenMP thread), at most one per tile,
 * and one without OpenMP. */
static int step_threads(const scenario *sc, int *all) {
  int max_threads = crowdsteer_step_max_threads();
  *all = max_threads;
  size_t tile = sc->opts.tile ? sc->opts.tile : 1024; /* the documented default */
  size_t tiles = (sc->agents.count - DRIVEN_AGENTS + tile - 1) / tile;
  size_t threads = sc->opts.threads ? (size_t)sc->opts.threads : (size_t)max_threads;
  if (threads > tiles) threads = tiles;
  return threads < 1 ? 1 : (int)threads;
}

static void print_mode(const scenario *sc) {
  static const char *const combines[] = {"blend", "priority"};
  const demo_options *o = &sc->opts;
  printf("crowd: %s, %s\n",
         o->only_group < 0 ? "mixed (fleers and evaders also wander, 1 in 4 pursuers "
                             "also leaves the threat)"
                           : group_name(o->only_group),
         combines[o->combine]);
  int all = 1, used = step_threads(sc, &all);
  if (o->mode == MODE_STEP && sc->tasks) {
    printf("mode: step (one crowdsteer_step per simulation step), tile %zu, on a host "
           "task pool of %u workers (no OpenMP), snapshot %s\n",
           o->tile ? o->tile : (size_t)1024, sc->tasks->worker_count,
           o->snapshot == SNAPSHOT_SWAP   ? "none (double buffer, swapped)"
           : o->snapshot == SNAPSHOT_COPY ? "copy of every agent"
                                          : "copy of the target agents");
  } else if (o->mode == MODE_STEP) {
    printf("mode: step (one crowdsteer_step per simulation step), tile %zu%s, "
           "threads %d (requested %d%s), snapshot %s\n",
           o->tile ? o->tile : (size_t)1024, o->tile ? "" : " (default)", used,
           o->threads, o->threads ? "" : " = all",
           o->snapshot == SNAPSHOT_SWAP   ? "none (double buffer, swapped)"
           : o->snapshot == SNAPSHOT_COPY ? "copy of every agent"
                                          : "copy of the target agents");
  } else {
    printf("mode: separate (one call per behaviour and run of agents, then "
           "crowdsteer_integrate), 1 thread\n");
  }
  printf("crowdsteer_step threads available: %d\n", all);
  if (o->separation > 0.0f)
    printf("separation: every steered agent, radius %g, weight %g (%s), neighbour grid "
           "rebuilt before each step\n",
           (double)o->separation, (double)o->separation_weight,
           o->combine == CROWDSTEER_PRIORITY ? "first in priority" : "blended");
  else
    printf("separation: off\n");
}

static void report_throughput(const scenario *sc, double wall_seconds) {
  const double steps = sc->step;
  const double steered = (double)(sc->agents.count - DRIVEN_AGENTS);
  const double agent_steps = steered * steps;
  double library_seconds = 0.0;
  if (sc->opts.mode == MODE_STEP) {
    library_seconds = sc->step_seconds;
    printf("\nstep: %.0f agent-steps in %.2f s = %.1f M agent-steps/s "
           "(crowdsteer_step: behaviours + integrate)\n",
           agent_steps, sc->step_seconds, agent_steps / sc->step_seconds * 1e-6);
    printf("snapshot: %.3f s (%.1f%% of the step time); step + snapshot = %.1f M "
           "agent-steps/s\n",
           sc->snapshot_seconds, 100.0 * sc->snapshot_seconds / sc->step_seconds,
           agent_steps / (sc->step_seconds + sc->snapshot_seconds) * 1e-6);
    if (sc->grid)
      printf("grid: %.3f s (crowdsteer_grid_build before each step, %.1f%% of the step "
             "time); grid + step = %.1f steps/s\n",
             sc->grid_seconds, 100.0 * sc->grid_seconds / sc->step_seconds,
             steps / (sc->grid_seconds + sc->step_seconds));
  } else {
    printf("\n%-9s %10s %16s\n", "behaviour", "agents", "M agent-steps/s");
    for (int g = 0; g < GROUP_COUNT; g++) {
      size_t users = 0;
      for (size_t r = 0; r < sc->run_count[g]; r++)
        users += sc->runs[g][r].end - sc->runs[g][r].begin;
      if (!users) continue;
      printf("%-9s %10zu %16.1f\n", group_name(g), users,
             (double)users * steps / sc->behaviour_seconds[g] * 1e-6);
      library_seconds += sc->behaviour_seconds[g];
    }
    if (sc->grid) {
      printf("%-9s %10.0f %16.1f\n", "grid", (double)sc->agents.count,
             (double)sc->agents.count * steps / sc->grid_seconds * 1e-6);
      printf("%-9s %10.0f %16.1f\n", "separate", steered,
             agent_steps / sc->separation_seconds * 1e-6);
      library_seconds += sc->grid_seconds + sc->separation_seconds;
    }
    printf("%-9s %10.0f %16.1f\n", "clear", steered,
           agent_steps / sc->clear_seconds * 1e-6);
    printf("%-9s %10.0f %16.1f\n", "integrate", steered,
           agent_steps / sc->integrate_seconds * 1e-6);
    library_seconds += sc->clear_seconds + sc->integrate_seconds;
    printf("total: %.0f agent-steps in %.2f s = %.1f M agent-steps/s "
           "(grid + clear + behaviours + integrate)\n",
           agent_steps, library_seconds, agent_steps / library_seconds * 1e-6);
  }
  printf("%.2f s wall for the whole loop\n", wall_seconds);
}

/* The state an agent carries from step to step: position, velocity and
 * wander direction (z NULL in 2D). */
enum { STATE_ARRAYS = 9 };
static void state_arrays(const scenario *sc, float *arrays[STATE_ARRAYS]) {
  const crowdsteer_agents *a = &sc->agents;
  const crowdsteer_vectors *w = &sc->wander.direction;
  float *list[STATE_ARRAYS] = {a->px, a->py, a->pz, a->vx, a->vy,
                               a->vz, w->x,  w->y,  w->z};
  memcpy(arrays, list, sizeof list);
}

/* FNV-1a over the bits of the final state, so runs can be compared: both
 * modes, any tile size and any thread count must print the same hash. */
static uint64_t state_hash(const scenario *sc) {
  float *arrays[STATE_ARRAYS];
  state_arrays(sc, arrays);
  const crowdsteer_agents *a = &sc->agents;
  uint64_t hash = 0xCBF29CE484222325u;
  for (int k = 0; k < STATE_ARRAYS; k++) {
    if (!arrays[k]) continue;
    for (size_t i = 0; i < a->count; i++) {
      uint32_t bits;
      memcpy(&bits, &arrays[k][i], sizeof bits);
      for (int byte = 0; byte < 4; byte++) {
        hash ^= (bits >> (8 * byte)) & 0xFFu;
        hash *= 0x100000001B3u;
      }
    }
  }
  return hash;
}

static int report_sanity(const scenario *sc, const figures *start, const figures *end) {
  const group *g = sc->groups;
  const int mixed = sc->opts.only_group < 0;
  printf("\nsanity (start -> end of the run):\n");
  if (g[GROUP_SEEK].end > g[GROUP_SEEK].begin)
    printf("  seek    mean distance to the moving beacon   %9.2f -> %9.2f\n",
           start->mean_distance[GROUP_SEEK], end->mean_distance[GROUP_SEEK]);
  if (g[GROUP_ARRIVE].end > g[GROUP_ARRIVE].begin)
    printf("  arrive  at rest on their own grid spot       %zu of %zu "
           "(distance and speed < %g; mean distance %.3g -> %.3g)\n",
           end->arrivers_at_rest, g[GROUP_ARRIVE].end - g[GROUP_ARRIVE].begin,
           AT_REST_TOLERANCE, start->mean_distance[GROUP_ARRIVE],
           end->mean_distance[GROUP_ARRIVE]);
  if (g[GROUP_FLEE].end > g[GROUP_FLEE].begin)
    printf("  flee    mean distance from the threat        %9.2f -> %9.2f%s\n",
           start->mean_distance[GROUP_FLEE], end->mean_distance[GROUP_FLEE],
           mixed ? " (also wandering)" : "");
  if (g[GROUP_LEAVE].end > g[GROUP_LEAVE].begin)
    printf("  leave   mean distance from the threat        %9.2f -> %9.2f "
           "(inside escape radius %g: %zu -> %zu)\n",
           start->mean_distance[GROUP_LEAVE], end->mean_distance[GROUP_LEAVE],
           LEAVE_ESCAPE_RADIUS, start->leavers_inside_escape, end->leavers_inside_escape);
  if (g[GROUP_PURSUIT].end > g[GROUP_PURSUIT].begin)
    printf("  pursuit mean distance to the quarry          %9.2f -> %9.2f%s\n",
           start->mean_distance[GROUP_PURSUIT], end->mean_distance[GROUP_PURSUIT],
           mixed ? " (1 in 4 also leaves the threat)" : "");
  if (g[GROUP_EVADE].end > g[GROUP_EVADE].begin)
    printf("  evade   mean distance from the hunter        %9.2f -> %9.2f "
           "(inside panic radius %g: %zu -> %zu)%s\n",
           start->mean_distance[GROUP_EVADE], end->mean_distance[GROUP_EVADE],
           EVADE_PANIC_RADIUS, start->evaders_inside_panic, end->evaders_inside_panic,
           mixed ? " (also wandering)" : "");
  if (g[GROUP_WANDER].end > g[GROUP_WANDER].begin)
    printf("  wander  mean speed %.4f, top speed %.4f, max_speed 1\n",
           end->wander_mean_speed, end->wander_top_speed);
  if (start->spacing_measured && end->spacing_measured)
    printf("  spacing nearest neighbour: mean %.4f -> %.4f, minimum %.2g -> %.2g; pairs "
           "closer than %g: %zu -> %zu (separation %s)\n",
           start->spacing.mean_nearest, end->spacing.mean_nearest,
           start->spacing.min_nearest, end->spacing.min_nearest, OVERLAP_SPACING,
           start->spacing.close_pairs, end->spacing.close_pairs, sc->grid ? "on" : "off");
  printf("  state hash: %016" PRIx64 " (the same in both modes, for any tile size "
         "and thread count)\n",
         state_hash(sc));
  printf("  NaN/inf values in the state: %zu\n", end->non_finite);
  return end->non_finite == 0 ? 0 : 1;
}

/* ---- main ------------------------------------------------------------------ */

static int choose_isa(const char *name) {
  if (!name) return 0;
  crowdsteer_isa isa;
  if (crowdsteer_isa_from_name(name, &isa) != CROWDSTEER_OK) {
    fprintf(stderr,
            "crowdsteer-demo: unknown ISA '%s' (scalar, sse4, avx2, avx512, neon)\n",
            name);
    return EXIT_USAGE;
  }
  crowdsteer_status status = crowdsteer_force_isa(isa);
  if (status != CROWDSTEER_OK) {
    fprintf(stderr, "crowdsteer-demo: cannot use ISA '%s': %s\n", name,
            crowdsteer_status_string(status));
    return EXIT_USAGE;
  }
  return 0;
}

static void print_supported_isas(void) {
  printf("ISA: %s (this build and CPU support:",
         crowdsteer_isa_name(crowdsteer_active_isa()));
  for (int isa = 0; isa < CROWDSTEER_ISA_COUNT; isa++)
    if (crowdsteer_isa_supported((crowdsteer_isa)isa))
      printf(" %s", crowdsteer_isa_name((crowdsteer_isa)isa));
  printf(")\n");
}

/* examples/mpi compiles this file in, with its own main. */
#ifndef CROWDSTEER_DEMO_NO_MAIN
int main(int argc, char **argv) {
  demo_options opts;
  int exit_code = parse_options(argc, argv, &opts);
  if (exit_code >= 0) return exit_code;

  if (opts.pictures_dir) {
#ifdef CROWDSTEER_DEMO_PICTURES
    return demo_write_pictures(opts.pictures_dir) == 0 ? 0 : 1;
#else
    fprintf(stderr, "crowdsteer-demo: --pictures: this build has no PNG support "
                    "(examples/pictures.cmake was not found)\n");
    return EXIT_USAGE;
#endif
  }
  exit_code = choose_isa(opts.isa_name);
  if (exit_code) return exit_code;

  scenario sc;
  if (scenario_setup(&sc, &opts) != 0) return 1;
  printf("crowdsteer %s demo: %zu agents (%d driven by the demo), %dD, %u steps, seed "
         "%" PRIu32 "\n",
         crowdsteer_version_string(), opts.agents, DRIVEN_AGENTS, opts.dims, opts.steps,
         opts.seed);
  print_supported_isas();
  print_mode(&sc);
  fflush(stdout);

  figures start = measure(&sc);
  double loop_start = seconds_now();
  crowdsteer_status status = CROWDSTEER_OK;
  for (unsigned s = 0; s < opts.steps && status == CROWDSTEER_OK; s++)
    status = scenario_step(&sc);
  double wall = seconds_now() - loop_start;
  if (status != CROWDSTEER_OK) {
    scenario_free(&sc);
    return 1;
  }
  figures end = measure(&sc);
  report_throughput(&sc, wall);
  exit_code = report_sanity(&sc, &start, &end);
  scenario_free(&sc);
  return exit_code;
}
#endif
