/* What the files of crowdsteer-evacuation share: its options, the state of
 * a run (the crowd, the building, the library objects, the tallies) and
 * each file's entry points. */
#ifndef CROWDSTEER_EXAMPLES_EVACUATION_H
#define CROWDSTEER_EXAMPLES_EVACUATION_H

#include <stddef.h>
#include <stdint.h>

#include "crowdsteer.h"
#include "floor_plan.h"

/* Pedestrians in metres and seconds: bodies of 0.2 m walking at 1.34 m/s
 * (the mean free walking speed of the pedestrian literature), steps of
 * 0.1 s. ORCA looks 2 s ahead for agents and 1 s for walls, at the 10
 * nearest within 2 m (the grid's cells). The integrator may turn a
 * velocity fully within a step (its force limit is twice the top speed
 * per step), so an agent's preferred velocity is the field's. */
#define EVAC_RADIUS 0.2f
#define EVAC_SPEED 1.34f
#define EVAC_DT 0.1f
#define EVAC_TIME_HORIZON 2.0f
#define EVAC_OBSTACLE_TIME_HORIZON 1.0f
#define EVAC_NEIGHBOURS 10
#define EVAC_REACH 2.0f
/* Agents start on a square lattice of this spacing in each room, at least
 * half of it from the walls: 12 x 12 = 144 a room of 10 m. */
#define EVAC_SPACING 0.8f

typedef struct evac_options {
  size_t agents, steps, report_every;
  size_t picture_at; /* the step --picture shows (or the last one, if earlier) */
  size_t frames;     /* --view: close the window after this many frames (0: never) */
  int view;
  int threads;      /* 0: every thread (crowdsteer_step_desc.threads) */
  float field_cell; /* the navigation field's cell, metres */
  const char *picture, *isa;
} evac_options;

typedef struct evacuation {
  evac_options opts;
  floor_plan plan;
  crowdsteer_agents agents;   /* the agents still inside (count shrinks) */
  uint32_t *id;               /* agents.id: each agent keeps its id when others leave */
  float *before_x, *before_y; /* positions before the step (walls-crossed check) */
  uint32_t *report;           /* ORCA's report bits of the last step */
  crowdsteer_obstacles *obstacles;
  crowdsteer_grid *grid;
  crowdsteer_workspace *workspace;
  void *field; /* the navigation field (evacuation_run.c) */
  void *walls; /* the independent walls-crossed checker (evacuation_run.c) */
  size_t step;
  size_t total; /* agents at the start */
  /* Tallies. */
  size_t *left_by_exit;         /* agents out through each exit */
  size_t *first_out, *last_out; /* step of each exit's first and last agent out */
  size_t walls_crossed;         /* moves through a wall: must stay 0 */
  size_t wall_contacts;         /* agent-steps the library stopped or slid at a wall */
  size_t inside_obstacles;      /* agent-steps reported inside an obstacle */
  size_t crowded;      /* agent-steps with no velocity clear of every neighbour */
  size_t max_overlaps; /* most overlapping pairs seen at a report */
  size_t all_out_step; /* step when the last agent left, 0 while any is inside */
  uint64_t out_hash;   /* the agents out: id, step and place, order-free */
} evacuation;

/* evacuation_run.c: 0 on success; on failure a message is printed. */
int evac_setup(evacuation *ev, const evac_options *opts);
void evac_free(evacuation *ev);
int evac_step(evacuation *ev);
void evac_print_setup(const evacuation *ev);
void evac_print_progress(evacuation *ev);
void evac_print_summary(const evacuation *ev, double seconds);
/* Monotonic seconds. */
double evac_seconds(void);
/* The run's hash: the agents inside (id, position, velocity) and those out
 * (id, step, exit position), each hashed alone and summed, so it does not
 * depend on the order the batch holds them in. */
uint64_t evac_hash(const evacuation *ev);

/* evacuation_picture.c: the plan and the agents as a PNG; 0 on success (1
 * in a build without libpng). */
int evac_write_picture(const evacuation *ev, const char *path);

#ifdef CROWDSTEER_EVAC_PICTURES
#include "pictures.h"
/* An RGB image of the world: (x0, y0) is its bottom-left corner, `scale`
 * pixels per metre. */
typedef struct evac_canvas {
  pic_image img;
  double x0, y0, scale;
} evac_canvas;
/* The canvas (image unallocated) showing the whole plan in `side` pixels. */
evac_canvas evac_fit(const evacuation *ev, int side);
/* Draws the plan and the agents into an allocated canvas; 0 on success. */
int evac_draw(const evacuation *ev, evac_canvas *c);
/* --view: runs the evacuation in a window (evacuation_view.c); 0 on success. */
int evac_view(evacuation *ev);
#endif

#endif /* CROWDSTEER_EXAMPLES_EVACUATION_H */
