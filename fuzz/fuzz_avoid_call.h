/* The avoidance fuzz case's world and calls (fuzz_avoid_call.c), which the
 * properties in fuzz_avoid.c check: a crowd, an obstacle set with every
 * accepted obstacle kept for brute-force checks, an avoidance description,
 * the documented faults of a call, and the calls themselves. */
#ifndef CROWDSTEER_FUZZ_AVOID_CALL_H
#define CROWDSTEER_FUZZ_AVOID_CALL_H

#include "crowdsteer.h"
#include "fuzz_avoid.h"
#include "fuzz_common.h"

enum { MAX_AGENTS = 200, MAX_OBSTACLES = 8, MAX_VERTICES = 12 };
enum { MAX_EDGES = 2 * MAX_OBSTACLES * MAX_VERTICES };
enum { WALL_OR_INSIDE = CROWDSTEER_REPORT_WALL | CROWDSTEER_REPORT_INSIDE };

/* A crowd: every per-agent array, `n` elements each (ASan sees a read
 * past them). */
typedef struct crowd {
  size_t n;
  int dims, has_id;
  float *p[3], *v[3], *pref[3];
  float *radius, *resp,
      *speed; /* per-agent avoidance radius, responsibility, max speed */
  uint32_t *id, *group;
} crowd;

typedef struct av_case {
  crowd w;
  int isa, host_mode, id_mode;
  size_t begin, end, split;
  float unit; /* the lattice's spacing */
  /* The obstacles: the set, and every accepted obstacle again for the
   * brute-force checks (directed edges; polygons' vertex loops). */
  crowdsteer_obstacles *obstacles;
  int obstacles_on, built, obstacles_sane;
  size_t edges;
  float edge[MAX_EDGES][4];
  size_t loops;
  size_t loop_n[MAX_OBSTACLES];
  float loop_x[MAX_OBSTACLES][MAX_VERTICES], loop_y[MAX_OBSTACLES][MAX_VERTICES];
  /* Avoidance: the struct without its arrays (filled in per call). */
  crowdsteer_avoidance av;
  int radius_pa, resp_pa, speed_pa, report_on;
  int nb_mode; /* 0: no neighbours, 1: every pair, 2: a grid */
  crowdsteer_neighbours nb;
  crowdsteer_grid_desc gd;
  int groups; /* the grid (or the brute force) has group bits */
  crowdsteer_params params;
  /* The step. */
  float target[3];
  int threads, in_place, workspace;
  size_t tile;
} av_case;

/* A call's outputs, with a canary in every element it must not write. */
typedef struct outputs {
  size_t n;
  float *v[3];
  uint32_t *report;
} outputs;

void crowd_alloc(crowd *w, size_t n, int dims);
void crowd_free(crowd *w);
/* dst (allocated here) = src; with `reverse`, agent i of dst is agent
 * n - 1 - i of src, and dst has ids (src's, or its indices). */
void crowd_copy(crowd *dst, crowd *src, int reverse);
/* Every array of x and y holds the same bytes. */
int crowd_same(crowd *x, crowd *y);
crowdsteer_agents agents_of(const crowd *w);

/* Prints what failed with the case's shape; returns 1. */
int failf(const av_case *c, const char *what);

/* Decodes a case (the crowd allocated, the obstacles added and built);
 * returns 1 when an add or build broke its contract. */
int decode(reader *r, av_case *c);
/* Sane inputs: results must be finite (see fuzz_avoid_call.c). */
int case_sane(const av_case *c);
/* Exact, over every kept obstacle, no grid: p strictly inside a polygon;
 * the move p -> q crosses an edge. */
int brute_inside(const av_case *c, const float p[2]);
int brute_crosses(const av_case *c, const float p[2], const float q[2]);

/* The ERR() mask of the documented faults of crowdsteer_avoid (step 0) or
 * crowdsteer_step with the avoidance (step 1); a status is allowed when it
 * is OK for an empty mask, else in the mask. */
unsigned avoid_faults(const av_case *c, int step);
int status_allowed(unsigned faults, crowdsteer_status st);

/* Outputs with a canary in every element. */
void out_alloc(outputs *o, size_t n);
void out_free(outputs *o);
/* x and y agree on agents [first, last): `dims` axes (any two NaNs
 * agree) and the reports. */
int out_same(const outputs *x, const outputs *y, int dims, size_t first, size_t last);

/* The decoded neighbours on crowd w through `grid` (NULL: every pair). */
crowdsteer_neighbours neighbours_for(const av_case *c, crowd *w,
                                     const crowdsteer_grid *grid);
/* A grid of crowd w (NULL if the build is refused). */
crowdsteer_grid *grid_of(const av_case *c, crowd *w, float cell, int positions_only);
/* crowdsteer_avoid on crowd w into o, with neighbours nb (NULL: the
 * decoded ones without a grid), in place or not, a report or not. */
crowdsteer_status avoid_call(const av_case *c, crowd *w, const crowdsteer_neighbours *nb,
                             int in_place, int report, outputs *o, size_t begin,
                             size_t end);
/* crowdsteer_step on crowd w (seek a point, then the avoidance unless
 * `avoid` is 0) into `out` (NULL: in place). */
crowdsteer_status step_call(const av_case *c, crowd *w, crowd *out,
                            const crowdsteer_grid *grid, int threads, size_t tile,
                            int workspace, uint32_t *report, int avoid);

#endif
