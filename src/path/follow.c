/* The follow description's validation: its shape and uniform values once
 * per call, the values of its per-agent arrays for the agents that use
 * them, and the arrays it reads for the overlap check. */
#include <float.h>

#include "path/path.h"

static int non_negative_finite(float x) { return x >= 0.0f && x <= FLT_MAX; }

crowdsteer_status cs_path_resolve(cs_inputs *in, const crowdsteer_path_follow *follow,
                                  size_t begin, size_t end) {
  if (!follow || !follow->paths) return CROWDSTEER_ERROR_NULL_POINTER;
  /* Indices are uint32 (the kernels keep UINT32_MAX for "no pathway"). */
  if (follow->path_count == 0 || follow->path_count > UINT32_MAX)
    return CROWDSTEER_ERROR_PARAMETER;
  for (size_t k = 0; k < follow->path_count; k++)
    if (!follow->paths[k]) return CROWDSTEER_ERROR_NULL_POINTER;
  for (size_t k = 0; k < follow->path_count; k++)
    if (follow->paths[k]->dims != in->dims) return CROWDSTEER_ERROR_DIMS;
  if (follow->direction < -1 || follow->direction > 1 ||
      !non_negative_finite(follow->prediction_time) ||
      !non_negative_finite(follow->lead_distance))
    return CROWDSTEER_ERROR_PARAMETER;
  if (!follow->path_per_agent && follow->path >= follow->path_count)
    return CROWDSTEER_ERROR_AGENT_INDEX;
  if (begin < end) {
    if (follow->path_per_agent && !cs_aligned(follow->path_per_agent))
      return CROWDSTEER_ERROR_ALIGNMENT;
    if (follow->direction_per_agent && !cs_aligned(follow->direction_per_agent))
      return CROWDSTEER_ERROR_ALIGNMENT;
  }
  in->path = follow;
  return CROWDSTEER_OK;
}

static int covers(const cs_range *r, size_t i) {
  return !r->select || (r->select[i] & r->bit);
}

crowdsteer_status cs_path_check_agents(const crowdsteer_path_follow *follow,
                                       const cs_range *r) {
  if (!follow) return CROWDSTEER_OK;
  int paths_ok = 1, directions_ok = 1;
  if (follow->path_per_agent)
    for (size_t i = r->begin; i < r->end; i++)
      paths_ok &= !covers(r, i) | (follow->path_per_agent[i] < follow->path_count);
  if (follow->direction_per_agent)
    for (size_t i = r->begin; i < r->end; i++) {
      const float d = follow->direction_per_agent[i];
      directions_ok &= !covers(r, i) | (d == 1.0f) | (d == -1.0f);
    }
  if (!paths_ok) return CROWDSTEER_ERROR_AGENT_INDEX;
  return directions_ok ? CROWDSTEER_OK : CROWDSTEER_ERROR_PARAMETER;
}

void cs_path_spans(cs_spans *spans, const crowdsteer_path_follow *follow, size_t begin,
                   size_t end) {
  if (!follow) return;
  cs_spans_add(spans, follow->path_per_agent, begin, end, 0);
  cs_spans_add(spans, follow->direction_per_agent, begin, end, 0);
}
