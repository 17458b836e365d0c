/* Pathways and follow_path under an adversary: segments at the edges of
 * float's squared length (the documented limits, both sides), a path count
 * beyond the uint32 indices, directions of -0.0f, and the tie rule on a
 * two-point cyclic path (both segments equally near: the lower one). */
#include <stdint.h>

#include "check.h"

static crowdsteer_status segment(float dx, float dy) {
  const float x[2] = {1.0f, 1.0f + dx}, y[2] = {-2.0f, -2.0f + dy};
  crowdsteer_pathway_desc d = {2, 2, x, y, NULL, 0.5f, 0};
  crowdsteer_pathway *p = NULL;
  const crowdsteer_status status = crowdsteer_pathway_create(&p, &d);
  CHECK((status == CROWDSTEER_OK) == (p != NULL));
  crowdsteer_pathway_destroy(p);
  return status;
}

static void test_segment_limits(void) {
  const float tiny[2] = {0.0f, 0x1p-80f}, zero[2] = {-0.0f, 0.0f};
  /* len^2 = dot(d, d) in float must be positive and finite. */
  CHECK_STATUS(segment(1.8e19f, 0.0f), CROWDSTEER_OK);
  CHECK_STATUS(segment(1.2e19f, 1.2e19f), CROWDSTEER_OK);
  CHECK_STATUS(segment(1.9e19f, 0.0f), CROWDSTEER_ERROR_PARAMETER);
  CHECK_STATUS(segment(1.4e19f, 1.4e19f), CROWDSTEER_ERROR_PARAMETER);
  crowdsteer_pathway *p = NULL;
  crowdsteer_pathway_desc d = {2, 2, tiny, zero, NULL, 0.0f, 0};
  CHECK_STATUS(crowdsteer_pathway_create(&p, &d), CROWDSTEER_ERROR_PARAMETER);
  const float small[2] = {0.0f, 3e-23f};
  d.x = small;
  CHECK_STATUS(crowdsteer_pathway_create(&p, &d), CROWDSTEER_OK);
  crowdsteer_pathway_destroy(p);
  p = NULL;
  const float under[2] = {0.0f, 2e-23f};
  d.x = under;
  CHECK_STATUS(crowdsteer_pathway_create(&p, &d), CROWDSTEER_ERROR_PARAMETER);
  /* PARAMETER before GEOMETRY, whichever segment comes first. */
  const float order_x[3] = {5.0f, 5.0f, 2e19f}, order_y[3] = {0.0f, 0.0f, 0.0f};
  const crowdsteer_pathway_desc order = {2, 3, order_x, order_y, NULL, 1.0f, 0};
  CHECK_STATUS(crowdsteer_pathway_create(&p, &order), CROWDSTEER_ERROR_PARAMETER);
  d.x = zero; /* -0 and +0 are equal points */
  d.y = zero;
  CHECK_STATUS(crowdsteer_pathway_create(&p, &d), CROWDSTEER_ERROR_GEOMETRY);
  CHECK(p == NULL);
}

static void test_follow_inputs(void) {
  const float x[2] = {0.0f, 1.0f}, y[2] = {0.0f, 0.0f};
  const crowdsteer_pathway_desc desc = {2, 2, x, y, NULL, 0.25f, 1};
  crowdsteer_pathway *p = NULL;
  CHECK_STATUS(crowdsteer_pathway_create(&p, &desc), CROWDSTEER_OK);
  CHECK(crowdsteer_pathway_length(p) == 2.0f);
  /* (0.5, 1) is as near segment 0 (out) as segment 1 (back): the lower. */
  const float q[3] = {0.5f, 1.0f, 0.0f};
  float near[3], along;
  CHECK_STATUS(crowdsteer_pathway_nearest(p, q, near, &along), CROWDSTEER_OK);
  CHECK(along == 0.5f && near[0] == 0.5f && near[1] == 0.0f);
  float px[3] = {0.5f, 0.25f, 0.75f}, py[3] = {1.0f, 0.5f, -0.5f};
  float vx[3] = {0.0f, 1.0f, -1.0f}, vy[3] = {0.0f, 0.0f, 0.0f};
  float sx[3] = {7.0f, 7.0f, 7.0f}, sy[3] = {7.0f, 7.0f, 7.0f};
  crowdsteer_agents a = {3, 2, px, py, NULL, vx, vy, NULL, NULL};
  const crowdsteer_pathway *paths[1] = {p};
  crowdsteer_path_follow f;
  memset(&f, 0, sizeof f);
  f.paths = paths;
  f.path_count = 1;
  crowdsteer_params params;
  memset(&params, 0, sizeof params);
  params.max_speed = 1.0f;
  params.time_to_target = 1.0f;
  const crowdsteer_output out = {{sx, sy, NULL}, CROWDSTEER_OVERWRITE, 0.0f, NULL};
  const float minus_zero[3] = {1.0f, -0.0f, -1.0f};
  f.direction_per_agent = minus_zero; /* only exactly 1.0f or -1.0f */
  CHECK_STATUS(crowdsteer_follow_path(&a, &f, &params, &out, 0, 3),
               CROWDSTEER_ERROR_PARAMETER);
  CHECK_STATUS(crowdsteer_follow_path(&a, &f, &params, &out, 2, 3), CROWDSTEER_OK);
  CHECK(sx[0] == 7.0f && sy[1] == 7.0f); /* the range only */
  f.direction_per_agent = NULL;
#if SIZE_MAX > UINT32_MAX
  /* Indices are uint32: more pathways than they reach is PARAMETER, found
   * before any pathway pointer is read. */
  f.path_count = (size_t)UINT32_MAX + 1;
  CHECK_STATUS(crowdsteer_follow_path(&a, &f, &params, &out, 0, 3),
               CROWDSTEER_ERROR_PARAMETER);
  f.path_count = 1;
#endif
  crowdsteer_pathway_destroy(p);
}

int main(void) {
  test_segment_limits();
  test_follow_inputs();
  return check_failures ? 1 : 0;
}
