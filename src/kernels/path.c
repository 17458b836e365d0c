/* Follow a path on CS_LANES lanes, one agent a lane, compiled once per ISA:
 * every operation of the reference (path/reference_path.c) in the same
 * order, branches as selects. The lanes of a block that follow one pathway
 * run together over its segments; a block whose agents follow several
 * pathways runs once per pathway, each lane keeping its own pathway's
 * result. */
#include "kernels/path_lanes.h"
#include "kernels/vec.h"

#if !defined(CS_FOLLOW_PATH_2D) || !defined(CS_FOLLOW_PATH_3D)
#error "define CS_FOLLOW_PATH_2D and CS_FOLLOW_PATH_3D (cmake/Backends.cmake)"
#endif

void CS_FOLLOW_PATH_2D(const cs_job *job, size_t begin, size_t end);
void CS_FOLLOW_PATH_3D(const cs_job *job, size_t begin, size_t end);

/* The reference's write_steering for the lanes of one block: OVERWRITE (a
 * streamed output too: plain stores, the same bits), ACCUMULATE
 * (out + weight * s on the lanes that take part), PRIORITY (the first
 * weighted steering longer than the threshold wins). */
CS_INLINE void write_lanes(const cs_job *job, size_t i, size_t n, const vf s[3],
                           int dims) {
  const cs_policy *po = &job->policy;
  const size_t at = i - po->out_base;
  if (po->mode == CS_WRITE_OVERWRITE || po->mode == CS_WRITE_STREAM) {
    for (int k = 0; k < dims; k++)
      v_store_n(po->out[k] + at, s[k], n);
    return;
  }
  const vf weight =
      po->weight.array ? v_load_n(po->weight.array + i, n) : v_set1(po->weight.value);
  const vmask chosen = po->lane_select
                           ? m_bit_set(i_load_n(po->lane_select + i, n), po->lane_bit)
                           : v_le(v_zero(), v_zero());
  vf old[3], weighted[3];
  for (int k = 0; k < dims; k++) {
    old[k] = v_load_n(po->out[k] + at, n);
    weighted[k] = v_mul(s[k], weight);
  }
  if (po->mode == CS_WRITE_ACCUMULATE) {
    for (int k = 0; k < dims; k++)
      v_store_n(po->out[k] + at, v_select(chosen, v_add(old[k], weighted[k]), old[k]), n);
    return;
  }
  const vf decided = v_load_n(po->decided + at, n);
  const vmask open = m_and(v_le(decided, v_zero()), chosen);
  for (int k = 0; k < dims; k++)
    v_store_n(po->out[k] + at, v_select(open, weighted[k], old[k]), n);
  const vf length = v_sqrt(dot_lanes(weighted, weighted, dims));
  const vmask wins = m_and(open, v_gt(length, v_set1(po->priority_threshold)));
  v_store_n(po->decided + at, v_select(wins, v_set1(1.0f), decided), n);
}

/* Agents [i, i + n): which lanes take part, their pathways, the steering. */
CS_INLINE void path_block(const cs_job *job, size_t i, size_t n, int dims) {
  uint32_t taking_part[W];
  int any = 0;
  for (int l = 0; l < W; l++) {
    taking_part[l] =
        (size_t)l < n && (!job->policy.lane_select ||
                          (job->policy.lane_select[i + l] & job->policy.lane_bit));
    any |= (int)taking_part[l];
  }
  if (!any) return; /* nobody here follows a path: the step's output stays */
  vf p[3], v[3], s[3];
  for (int k = 0; k < dims; k++) {
    p[k] = v_load_n(job->in.pos[k] + i, n);
    v[k] = v_load_n(job->in.vel[k] + i, n);
  }
  path_steering(job, p, v, i, n, taking_part, s, dims);
  write_lanes(job, i, n, s, dims);
}

CS_INLINE void path_range(const cs_job *job, size_t begin, size_t end, int dims) {
  size_t i = begin;
  for (; end - i >= W; i += W)
    path_block(job, i, W, dims);
  if (i < end) path_block(job, i, end - i, dims);
}

void CS_FOLLOW_PATH_2D(const cs_job *job, size_t begin, size_t end) {
  path_range(job, begin, end, 2);
}

void CS_FOLLOW_PATH_3D(const cs_job *job, size_t begin, size_t end) {
  path_range(job, begin, end, 3);
}
