/* Pathways inside the library: the built polyline that the reference
 * (reference_path.c) and the kernels (kernels/path.c) read, the scalar
 * definition of its queries, and the follow description's validation. */
#ifndef CROWDSTEER_PATH_INTERNAL_H
#define CROWDSTEER_PATH_INTERNAL_H

#include "internal.h"

/* Segment s runs from start[.][s] along the unit vector unit[.][s] for
 * seg_len[s]; at[s] is the distance along the path where it begins (at[0]
 * is 0, at[s + 1] = at[s] + seg_len[s]). All float, computed once. */
struct crowdsteer_pathway {
  int dims, cyclic;
  size_t segments;
  float radius, radius_sq; /* radius * radius */
  float length;            /* at[last] + seg_len[last] */
  float half_length;       /* length * 0.5f: the cyclic wrap of a progress */
  float *start[3], *unit[3];
  float *seg_len, *at;
  size_t bytes;
};

/* The nearest point of `path` to q (ties: the lower segment): the squared
 * distance and the distance along the path of that point; the point
 * itself when `point` is not NULL. The normative definition. */
void cs_path_nearest(const crowdsteer_pathway *path, const float q[3], int dims,
                     float *dist_sq, float *along, float point[3]);
/* The path point at distance d along the path (wrapped when cyclic, then
 * clamped to [0, length]). */
void cs_path_point_at(const crowdsteer_pathway *path, float d, int dims, float point[3]);
/* Agent i's follow-a-path steering, given p and v (the reference). */
void cs_path_steer_agent(const cs_job *job, size_t i, const float p[3], const float v[3],
                         float s[3], int dims);
/* Agent i's direction along its path: +1 or -1. */
static inline float cs_path_direction(const crowdsteer_path_follow *f, size_t i) {
  if (f->direction_per_agent) return f->direction_per_agent[i];
  return f->direction < 0 ? -1.0f : 1.0f;
}
/* Agent i's pathway. */
static inline const crowdsteer_pathway *cs_path_of(const crowdsteer_path_follow *f,
                                                   size_t i) {
  return f->paths[f->path_per_agent ? f->path_per_agent[i] : f->path];
}

/* The follow description of a call (follow.c): its shape and uniform
 * values, checked once (in->path is set); then the values of its per-agent
 * arrays for the agents `r` covers; and the arrays it reads, for the
 * overlap check. */
crowdsteer_status cs_path_resolve(cs_inputs *in, const crowdsteer_path_follow *follow,
                                  size_t begin, size_t end);
crowdsteer_status cs_path_check_agents(const crowdsteer_path_follow *follow,
                                       const cs_range *r);
void cs_path_spans(cs_spans *spans, const crowdsteer_path_follow *follow, size_t begin,
                   size_t end);

#endif /* CROWDSTEER_PATH_INTERNAL_H */
