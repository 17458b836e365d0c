/* crowdsteer's obstacles and avoidance (ORCA): static 2D obstacle sets and
 * the velocities that keep agents clear of each other and of walls. Part of
 * the public API: include crowdsteer.h, which includes this header. */
/** \file crowdsteer_avoid.h
 * Obstacle sets and avoidance (ORCA); included by crowdsteer.h. */
#ifndef CROWDSTEER_AVOID_H
#define CROWDSTEER_AVOID_H

#include "crowdsteer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Obstacles and avoidance (ORCA) ---------------------------------------
 * A crowdsteer_obstacles is a static set of 2D obstacles: polygons (vertex
 * loops, counter-clockwise, the obstacle on the left of each edge) and wall
 * segments (two vertices, blocking both sides). Built once into a grid of
 * edges, it is read-only to every call that uses it, from any number of
 * threads at once. crowdsteer_avoid turns preferred velocities into the
 * velocities closest to them that avoid the other agents and the obstacles
 * for a time horizon (optimal reciprocal collision avoidance, ORCA); see the
 * "Avoidance" section of docs/behaviours.md for the exact definition. */

/** A static obstacle set (opaque). */
typedef struct crowdsteer_obstacles crowdsteer_obstacles;

/** Makes an empty set. NULL_POINTER if `obstacles` is NULL, OUT_OF_MEMORY
 *  if allocation fails. */
CROWDSTEER_API crowdsteer_status
crowdsteer_obstacles_create(crowdsteer_obstacles **obstacles);

/** Frees a set; NULL is ignored. No call may be using it. */
CROWDSTEER_API void crowdsteer_obstacles_destroy(crowdsteer_obstacles *obstacles);

/**
 * Adds an obstacle: `vertex_count` vertices (x[k], y[k]). Three or more are
 * a polygon, listed counter-clockwise; two are a wall segment. Checks, in
 * this order, adding nothing on error: NULL_POINTER (obstacles, or x or y),
 * ALIGNMENT (x, y not aligned to 4 bytes), PARAMETER (fewer than 2 vertices,
 * more than 2^24 in one obstacle or 2^30 in the set, a coordinate NaN or
 * infinite), GEOMETRY (consecutive vertices equal, the last and first ones
 * included; a polygon that touches or crosses itself, turns clockwise or
 * encloses no area; decided exactly). Polygons may overlap each other. The
 * set is unbuilt until the next crowdsteer_obstacles_build. Time O(n) per
 * polygon plus the pairs of its edges that share a cell of a sqrt(n) by
 * sqrt(n) grid over it.
 */
CROWDSTEER_API crowdsteer_status crowdsteer_obstacles_add(crowdsteer_obstacles *obstacles,
                                                          const float *x, const float *y,
                                                          size_t vertex_count);

/**
 * Builds the grid of edges over the bounding box of every vertex:
 * cell_size 0 picks one (about 16 cells an edge); otherwise a positive
 * finite value (PARAMETER), doubled where needed so the grid has at most
 * 2^22 cells and at most 64 per edge (4,096 cells always allowed). An
 * empty set builds too. OUT_OF_MEMORY leaves the set
 * unbuilt. The grid holds 8 bytes per cell (its edges' start, and whether
 * it is inside a polygon when no edge comes near it) plus 4 per (edge,
 * cell) pair the edge passes near, and a scratch of about 8 bytes an edge;
 * crowdsteer_obstacles_bytes tells the total.
 */
CROWDSTEER_API crowdsteer_status
crowdsteer_obstacles_build(crowdsteer_obstacles *obstacles, float cell_size);

/** Bytes the set holds (vertices and grid; 0 for NULL). */
CROWDSTEER_API size_t crowdsteer_obstacles_bytes(const crowdsteer_obstacles *obstacles);

/** Edges in the set (a polygon of n vertices has n, a wall 2). */
CROWDSTEER_API size_t
crowdsteer_obstacles_edge_count(const crowdsteer_obstacles *obstacles);

/** *inside = 1 when (x, y) is strictly inside a polygon of the set (a
 *  point on an edge is outside; walls have no inside), else 0; exact.
 *  NULL_POINTER, or GRID if the set is not built. It allocates a scratch
 *  for the call (about 8 bytes an edge and 5 a polygon, freed before it
 *  returns): OUT_OF_MEMORY when that fails, *inside then untouched. */
CROWDSTEER_API crowdsteer_status crowdsteer_obstacles_inside(
    const crowdsteer_obstacles *obstacles, float x, float y, int *inside);

/** Bits of crowdsteer_avoidance.report. */
enum {
  /** The agent's constraints had no common velocity: its velocity is the
   *  one that violates the agent constraints least (obstacles still kept). */
  CROWDSTEER_REPORT_CROWDED = 1,
  /** A step stopped or slid the agent's move at an obstacle edge. */
  CROWDSTEER_REPORT_WALL = 2,
  /** The agent is inside an obstacle polygon: a step leaves it where it is. */
  CROWDSTEER_REPORT_INSIDE = 4
};

/** Avoidance (ORCA) of agents and obstacles, 2D (agents only in 3D).
 *  Zero-initialise, then set what you need. */
typedef struct crowdsteer_avoidance {
  /** Body radius, >= 0 and finite (default 0, point agents); per-agent
   *  values taken literally. Two agents collide when closer than the sum
   *  of their radii; an agent and an edge when closer than its radius. */
  float radius;
  const float *radius_per_agent; /**< per-agent radius, or NULL */
  /** How far ahead (in time) agents avoid each other, > 0 and finite;
   *  0 means 1. */
  float time_horizon;
  /** The same for obstacles, > 0 and finite; 0 means time_horizon. */
  float obstacle_time_horizon;
  /** The share of avoiding another agent this agent takes: of a pair,
   *  agent i takes r_i / (r_i + r_j), and none when r_i is 0 (an agent
   *  that does not yield; two such agents ignore each other). In [0, 1];
   *  a uniform 0 means 0.5 (each takes half); per-agent values literal. */
  float responsibility;
  const float *responsibility_per_agent; /**< per-agent responsibility, or NULL */
  /** Who each agent avoids (required for agents; NULL avoids obstacles
   *  only): as for the neighbour behaviours, and its grid must hold
   *  velocities (not positions_only: PARAMETER). The nearest
   *  max_neighbours are avoided; with a grid, every position and
   *  velocity read is the grid's copy, as for the neighbour behaviours. */
  const crowdsteer_neighbours *neighbours;
  /** A built obstacle set (2D only: DIMS in 3D; GRID if not built), or
   *  NULL. */
  const crowdsteer_obstacles *obstacles;
  /** Optional per-agent output: CROWDSTEER_REPORT_* bits of each agent
   *  of the range (written, 0 when nothing happened). */
  uint32_t *report;
  /** crowdsteer_avoid's working memory (below), or NULL: taken from this
   *  workspace when no other call holds it (grown the first time a call
   *  needs more, then reused, so warm calls allocate nothing), else
   *  allocated for the call. One workspace serves one call or step at a
   *  time, as for crowdsteer_step. A step's avoidance stage takes its
   *  memory from the step's workspace and does not read this one. */
  crowdsteer_workspace *workspace;
} crowdsteer_avoidance;

/**
 * ORCA for agents [begin, end): velocity[i] = the velocity closest to
 * preferred[i] with length <= max_speed (params: uniform or per agent; up to
 * a last rounding, 2^-20 relative) that
 * keeps agent i clear of its neighbours for time_horizon and of the
 * obstacles for obstacle_time_horizon, given every agent's current position
 * and velocity (the agents' arrays, or the grid's copy); an agent already
 * overlapping another aims to separate within params.dt. When no velocity
 * satisfies every agent constraint, the one that violates them least while
 * keeping the obstacle constraints (CROWDSTEER_REPORT_CROWDED). Results are
 * the same bits on every ISA, for any thread count and any order of the
 * agents (with ids). `preferred` and `velocity` may be the same arrays; the
 * output must not overlap anything else the call reads (OVERLAP). With a
 * grid and the neighbours' `tasks`, the call spreads over that task system
 * in parts of 256 grid slots; otherwise it runs on the caller's thread. Its
 * working memory (per worker, with neighbours: about 8.3 KiB plus 100 bytes
 * per max_neighbours in 2D, 112 in 3D, for the candidates, the nearest and
 * their constraints; with obstacles, 44 bytes per edge for their
 * constraints and 12 per edge and 5 per polygon for the obstacle queries)
 * comes from avoidance->workspace when it is given and free, otherwise it
 * is allocated for the call and freed before it returns (OUT_OF_MEMORY if
 * that fails, nothing written, the workspace as it was).
 */
CROWDSTEER_API crowdsteer_status crowdsteer_avoid(const crowdsteer_agents *agents,
                                                  const crowdsteer_avoidance *avoidance,
                                                  const crowdsteer_params *params,
                                                  const crowdsteer_vectors *preferred,
                                                  const crowdsteer_vectors *velocity,
                                                  size_t begin, size_t end);

#ifdef __cplusplus
}
#endif

#endif /* CROWDSTEER_AVOID_H */
