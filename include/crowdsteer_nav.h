/* crowdsteer's navigation: fields of travel time to the nearest goal over
 * a grid of the obstacle set, and the behaviour that follows them. Part of
 * the public API: include crowdsteer.h, which includes this header. */
/** \file crowdsteer_nav.h
 * Navigation fields and follow-the-field; included by crowdsteer.h.
 *
 *  Fields    crowdsteer_field (_create, _build, _rebuild, _bytes, _destroy),
 *            crowdsteer_field_desc; queries crowdsteer_field_time,
 *            _direction, _cell_of
 *  Behaviour crowdsteer_field_follow, crowdsteer_follow_field (and
 *            CROWDSTEER_FOLLOW_FIELD in crowdsteer_step)
 */
#ifndef CROWDSTEER_NAV_H
#define CROWDSTEER_NAV_H

#include "crowdsteer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Navigation fields ----------------------------------------------------
 * A field is a grid of width x height square cells of cell_size from
 * origin (cell (cx, cy) covers [ox + cx * h, ox + (cx + 1) * h] x [oy + cy
 * * h, oy + (cy + 1) * h], its index cy * width + cx). A cell is blocked
 * when it meets an obstacle of the set: an edge or wall segment touches the
 * closed cell, or the cell lies inside a polygon. Each free cell holds T,
 * the travel time to the nearest goal cell: the solution of the eikonal
 * equation |grad T| = cost by the first-order upwind update (fast marching;
 * docs/behaviours.md, "Navigation fields"), in double; blocked and
 * unreachable cells hold +inf, goal cells 0. Each free cell also holds the
 * unit direction an agent in it follows, each component a multiple of
 * 2^-14 (see crowdsteer_follow_field and docs/behaviours.md). The
 * build runs on the caller's thread, in a fixed order: the same inputs give
 * the same bits, whatever threads call the library. A built field is
 * read-only to every other call, from any number of threads at once. */

/** A navigation field (opaque). */
typedef struct crowdsteer_field crowdsteer_field;

/** What a field is built from. Zero-initialise, then set what you need. */
typedef struct crowdsteer_field_desc {
  float origin[2]; /**< lower corner of cell (0, 0), finite */
  /** h, > 0 and finite, 1 / h finite in float (h above about 2.9e-39);
   *  origin + size * h finite */
  float cell_size;
  /** Cells per row: 1 .. 2^24, and width * height <= 2^28. */
  uint32_t width;
  uint32_t height; /**< rows: 1 .. 2^24 */
  /** A built obstacle set (GRID if not built), or NULL: no obstacles. */
  const crowdsteer_obstacles *obstacles;
  /** Per-cell slowness (index cy * width + cx), each >= 1 and finite;
   *  NULL: 1 everywhere. Read for free cells. */
  const float *cost;
  /** Goal points: goal_point_count of them at (goal_x[k], goal_y[k]),
   *  each in the grid (the closed rectangle) and in a free cell; a point
   *  on a line between cells is in the cell of higher index. */
  const float *goal_x;
  const float *goal_y;     /**< the goal points' y */
  size_t goal_point_count; /**< how many goal points (0: regions only) */
  /** Goal regions, or NULL: every free cell that meets a polygon or wall
   *  of this set (built or not; the same rule as blocking) is a goal cell.
   *  Give at least one goal point or one region cell. */
  const crowdsteer_obstacles *goal_regions;
} crowdsteer_field_desc;

/** Makes an empty (unbuilt) field. NULL_POINTER, OUT_OF_MEMORY. */
CROWDSTEER_API crowdsteer_status crowdsteer_field_create(crowdsteer_field **field);

/** Frees a field; NULL is ignored. No call may be using it. */
CROWDSTEER_API void crowdsteer_field_destroy(crowdsteer_field *field);

/**
 * Builds the field from `desc`. Checks first, in this order, changing
 * nothing on error: NULL_POINTER (field, desc; goal_x or goal_y with
 * points; ALIGNMENT for misaligned arrays), PARAMETER (a size, origin or
 * cell size out of range or NaN, a cost below 1, NaN or infinite, a goal
 * point NaN or outside the grid), GRID (an obstacle set not built),
 * OUT_OF_MEMORY (the field as it was; also a grid too big for the address
 * space), GOAL (a goal point in a blocked cell, or no goal cell at all). The
 * field holds 35 bytes per cell (crowdsteer_field_bytes),
 * allocated when it grows (a new store, the old one freed only once the
 * build has passed its checks) and kept for later builds. Time: the
 * obstacles' edges and the cells they cover, then O(cells log band) for the
 * march (about 100 ns per cell at 1024 x 1024, docs/benchmarks.md).
 */
CROWDSTEER_API crowdsteer_status
crowdsteer_field_build(crowdsteer_field *field, const crowdsteer_field_desc *desc);

/**
 * Rebuilds a built field after obstacles or costs changed only in the
 * cells [cx0, cx1) x [cy0, cy1) (a door opened): the blocking and costs of
 * those cells are taken from `desc` (its obstacles and cost), the other
 * cells keep theirs, goals are taken from `desc` again, and T and the
 * directions are recomputed. When nothing changed outside the region the
 * result is the same bits as crowdsteer_field_build(field, desc). desc's
 * origin, cell size, width and height must be the field's (PARAMETER, as
 * an empty or out-of-grid region); GRID if the field is not built. A
 * change in one cell can change T everywhere behind it, so the march runs
 * over the whole grid: the region saves the obstacles' rasterisation only.
 * Allocates nothing. Same checks, and nothing changed on error; of the
 * costs only the region's are read, so only those are checked.
 */
CROWDSTEER_API crowdsteer_status
crowdsteer_field_rebuild(crowdsteer_field *field, const crowdsteer_field_desc *desc,
                         uint32_t cx0, uint32_t cy0, uint32_t cx1, uint32_t cy1);

/** Bytes the field holds (0 for NULL). */
CROWDSTEER_API size_t crowdsteer_field_bytes(const crowdsteer_field *field);

/** The cell of point (x, y) as followers see it: cx = (uint32_t)((x - ox)
 *  * (1 / h)), the same in y, in float (1 / h rounded once); *inside 0
 *  when it is outside the grid (or NaN). NULL_POINTER, GRID if unbuilt. */
CROWDSTEER_API crowdsteer_status crowdsteer_field_cell_of(const crowdsteer_field *field,
                                                          float x, float y, uint32_t *cx,
                                                          uint32_t *cy, int *inside);

/** T of cell (cx, cy): +inf if blocked or unreachable. PARAMETER for a
 *  cell outside the grid; NULL_POINTER; GRID if unbuilt. */
CROWDSTEER_API crowdsteer_status crowdsteer_field_time(const crowdsteer_field *field,
                                                       uint32_t cx, uint32_t cy,
                                                       double *time);

/** The unit direction of cell (cx, cy), zero in a goal or unreachable
 *  free cell; in a blocked cell, towards its reached neighbour (of 8) of
 *  smallest T (zero if none); *blocked 1 for a blocked cell. Errors as
 *  _time. */
CROWDSTEER_API crowdsteer_status crowdsteer_field_direction(const crowdsteer_field *field,
                                                            uint32_t cx, uint32_t cy,
                                                            float *dx, float *dy,
                                                            int *blocked);

/* ---- Follow the field -----------------------------------------------------
 * desired = direction(cell of p) * max_speed, s = (desired - v) /
 * time_to_target; the direction is zero outside the grid, in a goal cell
 * and in an unreachable one (there s brakes the agent); an agent in a
 * blocked cell (beside a wall) heads for its best free neighbour. 2D only. */

/** Which field each agent follows. Several fields (one per exit set) may
 *  be followed at once; they must share origin, cell size, width and
 *  height (PARAMETER otherwise), and each must be built (GRID). */
typedef struct crowdsteer_field_follow {
  const crowdsteer_field *const *fields; /**< field_count built fields */
  size_t field_count;                    /**< 1 .. 2^32 - 1 */
  /** Agent i follows fields[field_index[i]] (each below field_count:
   *  AGENT_INDEX otherwise), or, when field_index is NULL, fields[field]. */
  const uint32_t *field_index;
  uint32_t field; /**< the uniform index, below field_count */
} crowdsteer_field_follow;

/** Follow-the-field for agents [begin, end) (2D: DIMS otherwise); reads
 *  max_speed and time_to_target from params, writes as `out` says. The
 *  same as crowdsteer_run with CROWDSTEER_FOLLOW_FIELD and `follow` in
 *  crowdsteer_step_behaviour.field. */
CROWDSTEER_API crowdsteer_status crowdsteer_follow_field(
    const crowdsteer_agents *agents, const crowdsteer_field_follow *follow,
    const crowdsteer_params *params, const crowdsteer_output *out, size_t begin,
    size_t end);

#ifdef __cplusplus
}
#endif

#endif /* CROWDSTEER_NAV_H */
