/* crowdsteer's pathways and path following: polylines with a radius, built
 * once, that agents follow forwards or backwards. Part of the public API:
 * include crowdsteer.h, which includes this header. */
/** \file crowdsteer_path.h
 * Pathways and the follow-a-path behaviour; included by crowdsteer.h. */
#ifndef CROWDSTEER_PATH_H
#define CROWDSTEER_PATH_H

#include "crowdsteer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Pathways and path following -------------------------------------------
 *  crowdsteer_pathway        a polyline (2D or 3D) with a radius, optionally
 *                            cyclic: _create, _bytes, _length, _point_at,
 *                            _nearest, _destroy
 *  crowdsteer_path_follow    which pathway each agent follows, in which
 *                            direction, how far ahead it predicts and aims
 *  crowdsteer_follow_path    the behaviour's entry point (also the step's
 *                            CROWDSTEER_FOLLOW_PATH)
 * A pathway is read-only once created: any number of calls and threads may
 * share it. The exact rule (prediction, nearest point, ties, ends, the
 * cyclic wrap) is in the "Follow a path" section of docs/behaviours.md. */

/** A pathway (opaque): a polyline with a radius, its segment lengths and
 *  distances along the path computed once. */
typedef struct crowdsteer_pathway crowdsteer_pathway;

/** What a pathway is made from. The points are copied. */
typedef struct crowdsteer_pathway_desc {
  int dims;           /**< 2 or 3 (the agents that follow it have the same) */
  size_t point_count; /**< at least 2 */
  const float *x;     /**< point_count x coordinates */
  const float *y;     /**< point_count y coordinates */
  const float *z;     /**< point_count z coordinates (3D only, else unread) */
  /** Half-width of the path: an agent whose predicted position is closer
   *  than this to the path is on it. >= 0 and finite. */
  float radius;
  /** Nonzero: a closed loop, the last point joined back to the first. */
  int cyclic;
} crowdsteer_pathway_desc;

/**
 * Makes a pathway from `desc`, checking, in this order, and making nothing
 * on error: NULL_POINTER (path, desc, or a coordinate array the dims need),
 * DIMS (not 2 or 3), ALIGNMENT (an array not aligned to 4 bytes),
 * PARAMETER (a coordinate or the radius NaN or infinite, a negative radius,
 * a segment whose squared length dot(d, d) overflows or underflows to 0 in
 * float: about 1.8e19 long or more, or under about 2.6e-23 with its points
 * not equal; or the whole path too long for a float), GEOMETRY (fewer
 * than 2 points, or two consecutive points equal, the closing pair of a
 * cyclic path included), OUT_OF_MEMORY.
 */
CROWDSTEER_API crowdsteer_status
crowdsteer_pathway_create(crowdsteer_pathway **path, const crowdsteer_pathway_desc *desc);

/** Frees a pathway; NULL is ignored. No call may be using it. */
CROWDSTEER_API void crowdsteer_pathway_destroy(crowdsteer_pathway *path);

/** Bytes of memory the pathway holds (0 for NULL). */
CROWDSTEER_API size_t crowdsteer_pathway_bytes(const crowdsteer_pathway *path);

/** The path's length: the sum of its segments' lengths (the closing one of
 *  a cyclic path included), 0 for NULL. */
CROWDSTEER_API float crowdsteer_pathway_length(const crowdsteer_pathway *path);

/** The point at `distance` along the path (clamped to [0, length], or
 *  wrapped for a cyclic path), as the behaviour computes its target; z is
 *  0 in 2D. NULL_POINTER, PARAMETER for a distance NaN or infinite. */
CROWDSTEER_API crowdsteer_status crowdsteer_pathway_point_at(
    const crowdsteer_pathway *path, float distance, float point[3]);

/** The point of the path nearest `position` (ties: the lower segment) and
 *  its distance along the path, as the behaviour computes them; z is 0 in
 *  2D. NULL_POINTER, PARAMETER for a coordinate NaN or infinite. */
CROWDSTEER_API crowdsteer_status
crowdsteer_pathway_nearest(const crowdsteer_pathway *path, const float position[3],
                           float point[3], float *distance);

/**
 * Who follows which pathway, and how. Zero-initialise, then set what you
 * need (at least `paths` and `path_count`). Only the fields below and
 * crowdsteer_params.max_speed and time_to_target (uniform or per agent) are
 * read. Per-agent arrays are indexed by the agent's index in the batch.
 */
typedef struct crowdsteer_path_follow {
  /** path_count pathways, each of the agents' dims (DIMS otherwise). */
  const crowdsteer_pathway *const *paths;
  size_t path_count; /**< 1 .. 2^32 - 1 (PARAMETER otherwise) */
  /** The pathway every agent follows (an index into paths), when
   *  path_per_agent is NULL. */
  uint32_t path;
  /** Per-agent pathway indices, or NULL. Each below path_count
   *  (AGENT_INDEX otherwise, like an agent index out of the batch). */
  const uint32_t *path_per_agent;
  /** +1: along the path from its first point, -1: backwards. 0 means +1. */
  int direction;
  /** Per-agent directions replacing `direction` when not NULL: each
   *  exactly 1.0f or -1.0f (PARAMETER otherwise). */
  const float *direction_per_agent;
  /** How far ahead in time the agent predicts its position, >= 0 and
   *  finite, default 0 (OpenSteer's examples use 3 seconds). */
  float prediction_time;
  /** How far along the path the agent aims beyond its prediction: the
   *  target lies prediction_time * speed + lead_distance along the path
   *  from the agent's own nearest path point. >= 0 and finite, default 0. */
  float lead_distance;
} crowdsteer_path_follow;

/** Follow a path: predict f = p + v * prediction_time; when f is within
 *  the radius of the path and the agent moves along it in its direction,
 *  no steering; otherwise seek the path point prediction_time * speed +
 *  lead_distance ahead of the agent's nearest path point (in its
 *  direction). Validation and writes as crowdsteer_seek (PARAMETER for a
 *  bad follow field, AGENT_INDEX for a path index, DIMS for a pathway of
 *  other dims, NULL_POINTER for a missing one). */
CROWDSTEER_API crowdsteer_status crowdsteer_follow_path(
    const crowdsteer_agents *agents, const crowdsteer_path_follow *follow,
    const crowdsteer_params *params, const crowdsteer_output *out, size_t begin,
    size_t end);

#ifdef __cplusplus
}
#endif

#endif /* CROWDSTEER_PATH_H */
