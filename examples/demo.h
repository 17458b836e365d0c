/* What the files of crowdsteer-demo share, and crowdsteer-mpi with them
 * (examples/mpi): the options, the scenario and its constants, the figures,
 * and each file's entry points. Include it first: it asks for POSIX. */
#ifndef CROWDSTEER_DEMO_H
#define CROWDSTEER_DEMO_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "crowdsteer.h"
#include "obstacle_layout.h"
#include "spacing.h"
#include "task_pool.h"

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

/* Slot 0 of the step's behaviours (and bit 0 of every steered agent's mask)
 * is separation, first so that by priority keeping apart wins; group g's
 * behaviour is slot g + 1. */
enum { SEPARATION_SLOT = 0, FIRST_GROUP_SLOT = 1, SLOT_COUNT = GROUP_COUNT + 1 };
static inline uint32_t group_bit(int g) { return 1u << (g + FIRST_GROUP_SLOT); }
/* --navigate: the seekers follow a navigation field (2D) or a pathway
 * instead of the beacon, in two slots after the groups' (last in priority). */
enum { FIELD_SLOT = SLOT_COUNT, PATH_SLOT, MAX_SLOT_COUNT };

/* Separation: radius and blend weight; the neighbour grid's cells are one
 * radius wide. Two agents closer than OVERLAP_SPACING overlap (the report
 * counts such pairs before and after). */
#define DEFAULT_SEPARATION_RADIUS 0.25f
#define DEFAULT_SEPARATION_WEIGHT 4.0f
#define OVERLAP_SPACING 0.05

/* Agents 0 and 1 are moved by the demo itself (never by a behaviour), so
 * pursuers and evaders have moving agents to target by index. */
enum { QUARRY_AGENT = 0, HUNTER_AGENT = 1, DRIVEN_AGENTS = 2 };

/* Avoidance (ORCA, --avoid): a body radius per agent, and two agents
 * overlap when closer than the sum of their radii (the report counts those
 * pairs whether or not ORCA runs). The default radius is half the spacing
 * separation gives this crowd: with the default separation the mean
 * nearest-neighbour distance of the million agents settles at 0.2 (0.205
 * after 200 steps), so bodies of radius 0.1 just touch at that spacing.
 * (Half the separation radius, 0.125, would not fit: the crowd starts at
 * 26 agents per unit area, where discs of 0.125 would cover 129% of it.)
 * ORCA looks AVOID_TIME_HORIZON steps ahead for agents (the crowd is dense
 * and fast, up to 1.5 a step: a longer look leaves more agents with no
 * velocity clear of every neighbour) and AVOID_OBSTACLE_TIME_HORIZON for
 * walls, and avoids the AVOID_NEIGHBOURS nearest within AVOID_REACH body
 * radii (its grid's cell size: farther reach found no fewer overlaps but
 * cost a grid walk over more candidates). */
#define DEFAULT_BODY_RADIUS 0.1f
#define AVOID_TIME_HORIZON 2.0f
#define AVOID_OBSTACLE_TIME_HORIZON 2.0f
#define AVOID_NEIGHBOURS 10
#define AVOID_REACH 8.0f

enum step_mode { MODE_STEP, MODE_SEPARATE };
enum avoid_mode { AVOID_OFF, AVOID_ON, AVOID_ONLY }; /* --avoid off|on|only */
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
  int tasks;      /* workers of a host task pool; 0: the library's threads */
  size_t tile;    /* crowdsteer_step_desc.tile_size: 0 = the library's */
  const char *isa_name;
  uint32_t seed;
  float separation;        /* separation radius, 0: off */
  float separation_weight; /* its blend weight */
  int avoid;               /* enum avoid_mode; only: separation forced off */
  float body_radius;       /* ORCA's radius, and what the overlap figures use */
  int obstacles;           /* 1: the shared layout in the world (2D) */
  int navigate;            /* 1: seekers follow fields and pathways (--navigate) */
  const char *pictures_dir;
} demo_options;

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
  crowdsteer_step_behaviour behaviours[MAX_SLOT_COUNT];
  crowdsteer_grid *grid;           /* neighbour index, rebuilt before each step */
  crowdsteer_workspace *workspace; /* the steps' scratch for separation */
  task_pool pool;                  /* with --tasks: the host's workers */
  const crowdsteer_task_system *tasks;
  crowdsteer_neighbours neighbours; /* who separation sees */
  crowdsteer_params separation_params;
  crowdsteer_step_desc step_desc;
  /* --avoid, --obstacles: ORCA as the step's last stage. */
  crowdsteer_obstacles *obstacles; /* the layout, or NULL */
  crowdsteer_grid *avoid_grid;     /* ORCA's neighbours (keeps velocities) */
  crowdsteer_neighbours avoid_neighbours;
  crowdsteer_avoidance avoidance;
  /* --navigate: two fields (2D; one exit each) and two pathways; which one
   * each follower takes, per agent. */
  crowdsteer_field *fields[2];
  crowdsteer_pathway *paths[2];
  uint32_t *field_index, *path_index;
  float *path_direction;
  size_t path_begin; /* seekers [seek.begin, path_begin) follow a field */
  crowdsteer_field_follow field_follow;
  crowdsteer_path_follow path_follow;
  crowdsteer_params navigation_params;
  uint32_t *report;     /* CROWDSTEER_REPORT_* of each agent, last step */
  size_t wall_stops;    /* agent-steps stopped or slid at a wall, whole run */
  size_t crowded_steps; /* agent-steps with no velocity clear of every neighbour */
  unsigned step;        /* steps taken so far */
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

typedef struct figures {
  double mean_distance[GROUP_COUNT]; /* to each group's target or threat */
  size_t arrivers_at_rest;
  size_t leavers_inside_escape, evaders_inside_panic;
  double wander_mean_speed, wander_top_speed;
  size_t non_finite;       /* NaN or inf anywhere in the state */
  spacing_figures spacing; /* of the steered agents (close_pairs2: overlapping) */
  int spacing_measured;
  size_t inside, walled,
      crowded;             /* report bits of the last step (--avoid, --obstacles) */
  size_t at_exit;          /* --navigate: field followers in their exit's cell */
  double path_offset_mean; /* --navigate: path followers' distance from it */
} figures;

/* The state an agent carries from step to step: position, velocity and
 * wander direction (z NULL in 2D). */
enum { STATE_ARRAYS = 9 };

/* demo_options.c: the command line and the ISA. */
extern const crowdsteer_behaviour group_behaviours[GROUP_COUNT];
const char *group_name(int g);
/* -1 to run, else the exit code (0 after --help). */
int parse_options(int argc, char **argv, demo_options *opts);
int choose_isa(const char *name);
void print_supported_isas(void);

/* demo_scenario.c: the crowd's setup and its steps. */
void place_markers(scenario *sc);
int scenario_setup(scenario *sc, const demo_options *opts);
void scenario_free(scenario *sc);
double seconds_now(void);
crowdsteer_status scenario_step(scenario *sc);

/* demo_navigation.c: --navigate's fields, pathways and followers. */
int navigation_setup(scenario *sc, const demo_options *opts);
void navigation_free(scenario *sc);
crowdsteer_status navigation_step_separately(scenario *sc, const crowdsteer_output *out);
void navigation_measure(const scenario *sc, figures *f);
void navigation_describe(const scenario *sc);

/* demo_report.c: the figures and what is printed. */
size_t count_non_finite(const float *a, size_t n);
figures measure(const scenario *sc);
void print_mode(const scenario *sc);
void report_throughput(const scenario *sc, double wall_seconds);
void state_arrays(const scenario *sc, float *arrays[STATE_ARRAYS]);
uint64_t state_hash(const scenario *sc);
int report_sanity(const scenario *sc, const figures *start, const figures *end);

#endif
