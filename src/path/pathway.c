/* Pathways: checked and built once (segment starts, unit directions,
 * lengths and distances along the path), then only read; and the public
 * queries that give a caller the behaviour's own nearest point and point
 * at a distance. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "path/path.h"

static int finite_float(float x) { return x >= -FLT_MAX && x <= FLT_MAX; }

/* The coordinates of point k of the desc, axis a (the closing segment of a
 * cyclic path wraps to point 0). */
static float coordinate(const crowdsteer_pathway_desc *desc, int a, size_t k) {
  const float *axis[3] = {desc->x, desc->y, desc->z};
  return axis[a][k % desc->point_count];
}

static crowdsteer_status check_desc(const crowdsteer_pathway_desc *desc) {
  if (!desc) return CROWDSTEER_ERROR_NULL_POINTER;
  if (desc->dims != 2 && desc->dims != 3) return CROWDSTEER_ERROR_DIMS;
  const float *axis[3] = {desc->x, desc->y, desc->z};
  for (int a = 0; a < desc->dims; a++)
    if (!axis[a]) return CROWDSTEER_ERROR_NULL_POINTER;
  for (int a = 0; a < desc->dims; a++)
    if (!cs_aligned(axis[a])) return CROWDSTEER_ERROR_ALIGNMENT;
  if (!finite_float(desc->radius) || !(desc->radius >= 0.0f))
    return CROWDSTEER_ERROR_PARAMETER;
  for (int a = 0; a < desc->dims; a++)
    for (size_t k = 0; k < desc->point_count; k++)
      if (!finite_float(axis[a][k])) return CROWDSTEER_ERROR_PARAMETER;
  if (desc->point_count < 2) return CROWDSTEER_ERROR_GEOMETRY;
  return CROWDSTEER_OK;
}

/* Segment s's length, in double so that a segment too long for a float is
 * told apart from one that is merely long (the float length is what the
 * path keeps). */
static double segment_length(const crowdsteer_pathway_desc *desc, size_t s) {
  double sum = 0.0;
  for (int a = 0; a < desc->dims; a++) {
    const double d = (double)coordinate(desc, a, s + 1) - (double)coordinate(desc, a, s);
    sum += d * d;
  }
  return sqrt(sum);
}

/* Fills the built arrays: everything a query reads is float, in the
 * operation order stated in pathway_build's comment. */
static crowdsteer_status fill(crowdsteer_pathway *path,
                              const crowdsteer_pathway_desc *desc) {
  const int dims = desc->dims;
  float at = 0.0f;
  /* Every PARAMETER before GEOMETRY (the documented order): an empty
   * segment is remembered, the others still checked. */
  crowdsteer_status empty = CROWDSTEER_OK;
  for (size_t s = 0; s < path->segments; s++) {
    float d[3] = {0}, sum;
    for (int a = 0; a < dims; a++)
      d[a] = coordinate(desc, a, s + 1) - coordinate(desc, a, s);
    sum = d[0] * d[0];
    for (int a = 1; a < dims; a++)
      sum += d[a] * d[a];
    const float len = sqrtf(sum);
    if (segment_length(desc, s) == 0.0f) {
      empty = CROWDSTEER_ERROR_GEOMETRY;
      continue;
    }
    /* A difference or a length beyond a float, or one that underflows to
     * zero in float while the points differ. */
    if (!(len > 0.0f) || !finite_float(len)) return CROWDSTEER_ERROR_PARAMETER;
    for (int a = 0; a < dims; a++) {
      path->start[a][s] = coordinate(desc, a, s);
      path->unit[a][s] = d[a] / len;
    }
    path->seg_len[s] = len;
    path->at[s] = at;
    at = at + len;
  }
  if (!finite_float(at)) return CROWDSTEER_ERROR_PARAMETER;
  if (empty != CROWDSTEER_OK) return empty;
  path->length = at;
  path->half_length = at * 0.5f;
  return CROWDSTEER_OK;
}

crowdsteer_status crowdsteer_pathway_create(crowdsteer_pathway **out,
                                            const crowdsteer_pathway_desc *desc) {
  crowdsteer_status fault;
  if (!out) return CROWDSTEER_ERROR_NULL_POINTER;
  if ((fault = check_desc(desc)) != CROWDSTEER_OK) return fault;
  const cs_fpenv host = cs_fpenv_enter();
  const size_t segments = desc->cyclic ? desc->point_count : desc->point_count - 1;
  const size_t arrays = 2 * (size_t)desc->dims + 2;
  if (segments > SIZE_MAX / sizeof(float) / arrays)
    return cs_fpenv_return(host, CROWDSTEER_ERROR_OUT_OF_MEMORY);
  crowdsteer_pathway *path = calloc(1, sizeof *path);
  float *data = path ? malloc(segments * arrays * sizeof(float)) : NULL;
  if (!data) {
    free(path);
    return cs_fpenv_return(host, CROWDSTEER_ERROR_OUT_OF_MEMORY);
  }
  path->dims = desc->dims;
  path->cyclic = desc->cyclic != 0;
  path->segments = segments;
  path->radius = desc->radius;
  path->radius_sq = desc->radius * desc->radius;
  float *next = data;
  for (int a = 0; a < desc->dims; a++) {
    path->start[a] = next;
    path->unit[a] = next + segments;
    next += 2 * segments;
  }
  path->seg_len = next;
  path->at = next + segments;
  path->bytes = sizeof *path + segments * arrays * sizeof(float);
  if ((fault = fill(path, desc)) != CROWDSTEER_OK) {
    free(data);
    free(path);
    return cs_fpenv_return(host, fault);
  }
  *out = path;
  return cs_fpenv_return(host, CROWDSTEER_OK);
}

void crowdsteer_pathway_destroy(crowdsteer_pathway *path) {
  if (!path) return;
  free(path->start[0]);
  free(path);
}

size_t crowdsteer_pathway_bytes(const crowdsteer_pathway *path) {
  return path ? path->bytes : 0;
}

float crowdsteer_pathway_length(const crowdsteer_pathway *path) {
  return path ? path->length : 0.0f;
}

crowdsteer_status crowdsteer_pathway_point_at(const crowdsteer_pathway *path,
                                              float distance, float point[3]) {
  if (!path || !point) return CROWDSTEER_ERROR_NULL_POINTER;
  if (!finite_float(distance)) return CROWDSTEER_ERROR_PARAMETER;
  const cs_fpenv host = cs_fpenv_enter();
  float p[3] = {0};
  cs_path_point_at(path, distance, path->dims, p);
  memcpy(point, p, sizeof p);
  return cs_fpenv_return(host, CROWDSTEER_OK);
}

crowdsteer_status crowdsteer_pathway_nearest(const crowdsteer_pathway *path,
                                             const float position[3], float point[3],
                                             float *distance) {
  if (!path || !position || !point || !distance) return CROWDSTEER_ERROR_NULL_POINTER;
  float q[3] = {0};
  for (int a = 0; a < path->dims; a++) {
    if (!finite_float(position[a])) return CROWDSTEER_ERROR_PARAMETER;
    q[a] = position[a];
  }
  const cs_fpenv host = cs_fpenv_enter();
  float p[3] = {0}, dist_sq;
  cs_path_nearest(path, q, path->dims, &dist_sq, distance, p);
  memcpy(point, p, sizeof p);
  return cs_fpenv_return(host, CROWDSTEER_OK);
}
