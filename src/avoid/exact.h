/* Exact signs of small polynomials in float coordinates, for the obstacle
 * geometry: whether a move crosses a wall, which side of an edge a point is
 * on, whether a loop touches itself. A rounded answer could let an agent
 * through a wall, so these are exact for every finite float input. */
#ifndef CROWDSTEER_AVOID_EXACT_H
#define CROWDSTEER_AVOID_EXACT_H

/* The sign (-1, 0 or 1) of (a1 - a0) * (b1 - b0) + (c1 - c0) * (d1 - d0),
 * computed exactly for finite floats. */
int cs_exact_sign2(float a1, float a0, float b1, float b0, float c1, float c0, float d1,
                   float d0);

/* Orientation of c against the directed line a -> b: +1 left, -1 right, 0 on
 * it (exact). */
static inline int cs_orient(const float a[2], const float b[2], const float c[2]) {
  /* (bx - ax) (cy - ay) - (by - ay) (cx - ax), the minus folded into one
   * difference. */
  return cs_exact_sign2(b[0], a[0], c[1], a[1], a[1], b[1], c[0], a[0]);
}

/* The sign of the dot product (b - a) . (d - c) (exact). */
static inline int cs_dot_sign(const float a[2], const float b[2], const float c[2],
                              const float d[2]) {
  return cs_exact_sign2(b[0], a[0], d[0], c[0], b[1], a[1], d[1], c[1]);
}

/* Whether the closed segments ab and cd share a point (exact). */
int cs_segments_touch(const float a[2], const float b[2], const float c[2],
                      const float d[2]);

#endif /* CROWDSTEER_AVOID_EXACT_H */
