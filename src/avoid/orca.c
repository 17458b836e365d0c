/* ORCA in 2D, the scalar definition: the constraint an agent gets from a
 * neighbour and from an obstacle edge, and the incremental linear programs
 * (van den Berg, Guy, Lin, Manocha, "Reciprocal n-body collision
 * avoidance"; the obstacle construction follows the same paper's RVO2
 * library). Every value is a float computed in the order written. */
#include "avoid/orca.h"

#include <float.h>
#include <math.h>

static inline float dot(const float a[2], const float b[2]) {
  return a[0] * b[0] + a[1] * b[1];
}

/* The 2D cross product a x b: positive when b is counter-clockwise of a. */
static inline float det(const float a[2], const float b[2]) {
  return a[0] * b[1] - a[1] * b[0];
}

static inline void set(float out[2], float x, float y) {
  out[0] = x;
  out[1] = y;
}

/* ---- agents ------------------------------------------------------------------ */

void cs_orca_agent_line(const cs_orca_agent *a, const cs_orca_agent *b, float share,
                        float inv_time_horizon, float inv_dt, cs_orca_line *line) {
  const float rel[2] = {b->p[0] - a->p[0], b->p[1] - a->p[1]};
  const float vrel[2] = {a->v[0] - b->v[0], a->v[1] - b->v[1]};
  const float dist_sq = dot(rel, rel);
  const float r = a->radius + b->radius;
  const float r_sq = r * r;
  float u[2], *direction = line->direction;
  if (dist_sq > r_sq) {
    /* Apart: the velocity obstacle for the time horizon, a cone cut off by
     * the disc of radius r / tau around rel / tau. w is the relative
     * velocity seen from the cut-off disc's centre. */
    const float w[2] = {vrel[0] - inv_time_horizon * rel[0],
                        vrel[1] - inv_time_horizon * rel[1]};
    const float w_len_sq = dot(w, w);
    const float along = dot(w, rel);
    if (along < 0.0f && along * along > r_sq * w_len_sq) {
      /* Nearest the cut-off circle: push out along w. */
      const float w_len = sqrtf(w_len_sq);
      const float unit[2] = {w[0] / w_len, w[1] / w_len};
      set(direction, unit[1], -unit[0]);
      const float push = r * inv_time_horizon - w_len;
      set(u, push * unit[0], push * unit[1]);
    } else {
      /* Nearest a leg: the tangent from the origin to the disc of radius
       * r around rel, on the side w lies. */
      const float leg = sqrtf(dist_sq - r_sq);
      if (det(rel, w) > 0.0f) {
        set(direction, (rel[0] * leg - rel[1] * r) / dist_sq,
            (rel[0] * r + rel[1] * leg) / dist_sq);
      } else {
        set(direction, -((rel[0] * leg + rel[1] * r) / dist_sq),
            -((-rel[0] * r + rel[1] * leg) / dist_sq));
      }
      const float along_leg = dot(vrel, direction);
      set(u, along_leg * direction[0] - vrel[0], along_leg * direction[1] - vrel[1]);
    }
  } else {
    /* Overlapping: separate within one time step (the cut-off disc at dt). */
    const float w[2] = {vrel[0] - inv_dt * rel[0], vrel[1] - inv_dt * rel[1]};
    const float w_len = sqrtf(dot(w, w));
    float unit[2];
    if (w_len > 0.0f) {
      set(unit, w[0] / w_len, w[1] / w_len);
    } else if (dist_sq > 0.0f) { /* w vanishes: straight away from b */
      const float dist = sqrtf(dist_sq);
      set(unit, -rel[0] / dist, -rel[1] / dist);
    } else { /* coincident and moving together: apart along x by id */
      set(unit, a->id < b->id ? -1.0f : 1.0f, 0.0f);
    }
    set(direction, unit[1], -unit[0]);
    const float push = r * inv_dt - w_len;
    set(u, push * unit[0], push * unit[1]);
  }
  set(line->point, a->v[0] + share * u[0], a->v[1] + share * u[1]);
}

size_t cs_orca_agent_lines(const cs_orca_agent *a, const cs_orca_neighbours *nb,
                           float inv_time_horizon, float inv_dt, cs_orca_line *out) {
  size_t count = 0;
  for (size_t k = 0; k < nb->count; k++) {
    const cs_orca_agent b = {{nb->px[k], nb->py[k]}, {nb->vx[k], nb->vy[k]},
                             nb->radius[k],          0.0f,
                             nb->responsibility[k],  nb->id[k]};
    const float share = cs_orca_share(a->responsibility, b.responsibility);
    if (share > 0.0f)
      cs_orca_agent_line(a, &b, share, inv_time_horizon, inv_dt, &out[count++]);
  }
  return count;
}

/* ---- obstacles ------------------------------------------------------------------ */

static void vertex_at(const crowdsteer_obstacles *o, uint32_t v, float out[2]) {
  set(out, o->x[v], o->y[v]);
}

int cs_orca_edge_in_range(const crowdsteer_obstacles *o, uint32_t e, const float p[2],
                          float range_sq, float *dist_sq) {
  float a[2], b[2];
  vertex_at(o, e, a);
  vertex_at(o, o->next[e], b);
  const float ab[2] = {b[0] - a[0], b[1] - a[1]};
  const float ap[2] = {p[0] - a[0], p[1] - a[1]};
  /* Strictly right of a -> b: outside a polygon, and the side of a wall
   * this edge faces. */
  if (!(det(ab, ap) < 0.0f)) return 0;
  const float t = dot(ap, ab) / dot(ab, ab);
  float d;
  if (t < 0.0f) {
    d = dot(ap, ap);
  } else if (t > 1.0f) {
    const float bp[2] = {p[0] - b[0], p[1] - b[1]};
    d = dot(bp, bp);
  } else {
    const float off[2] = {p[0] - (a[0] + t * ab[0]), p[1] - (a[1] + t * ab[1])};
    d = dot(off, off);
  }
  *dist_sq = d;
  return d < range_sq;
}

/* Whether the velocity obstacle of edge (p1, p2) (relative positions) is
 * already on the far side of an existing line, for both end points. */
static int already_covered(const cs_orca_line *lines, size_t count, const float rel1[2],
                           const float rel2[2], float inv_tau, float radius) {
  for (size_t j = 0; j < count; j++) {
    const cs_orca_line *l = &lines[j];
    const float c1[2] = {inv_tau * rel1[0] - l->point[0],
                         inv_tau * rel1[1] - l->point[1]};
    const float c2[2] = {inv_tau * rel2[0] - l->point[0],
                         inv_tau * rel2[1] - l->point[1]};
    if (det(c1, l->direction) - inv_tau * radius >= -CS_ORCA_EPSILON &&
        det(c2, l->direction) - inv_tau * radius >= -CS_ORCA_EPSILON)
      return 1;
  }
  return 0;
}

/* The tangent directions from the agent to the disc of radius r around a
 * vertex at relative position rel (|rel| > r): left leg and right leg. */
static void legs(const float rel[2], float dist_sq, float r, float left[2],
                 float right[2]) {
  /* Zero when rounding puts a vertex the edge tests found apart just
   * within r (dist_sq_line and dist_sq round apart near s == 0). */
  const float excess = dist_sq - r * r;
  const float leg = sqrtf(excess > 0.0f ? excess : 0.0f);
  set(left, (rel[0] * leg - rel[1] * r) / dist_sq, (rel[0] * r + rel[1] * leg) / dist_sq);
  set(right, (rel[0] * leg + rel[1] * r) / dist_sq,
      (-rel[0] * r + rel[1] * leg) / dist_sq);
}

static void push_line(cs_orca_line *lines, size_t *count, const float point[2],
                      const float direction[2]) {
  cs_orca_line *l = &lines[(*count)++];
  set(l->point, point[0], point[1]);
  set(l->direction, direction[0], direction[1]);
}

/* A line through the origin along `direction` (the agent touches the
 * obstacle: it may not move further in). */
static void push_origin_line(cs_orca_line *lines, size_t *count,
                             const float direction[2]) {
  const float zero[2] = {0.0f, 0.0f};
  push_line(lines, count, zero, direction);
}

static void obstacle_line(const crowdsteer_obstacles *o, const cs_orca_agent *a,
                          float inv_tau, uint32_t edge, cs_orca_line *lines,
                          size_t *count) {
  const float radius = a->radius, r_sq = radius * radius;
  uint32_t v1 = edge, v2 = o->next[edge];
  float rel1[2], rel2[2], p1[2], p2[2];
  vertex_at(o, v1, p1);
  vertex_at(o, v2, p2);
  set(rel1, p1[0] - a->p[0], p1[1] - a->p[1]);
  set(rel2, p2[0] - a->p[0], p2[1] - a->p[1]);
  if (already_covered(lines, *count, rel1, rel2, inv_tau, radius)) return;
  const float dist_sq1 = dot(rel1, rel1), dist_sq2 = dot(rel2, rel2);
  const float edge_vec[2] = {p2[0] - p1[0], p2[1] - p1[1]};
  const float minus_rel1[2] = {-rel1[0], -rel1[1]};
  const float s = dot(minus_rel1, edge_vec) / dot(edge_vec, edge_vec);
  const float off[2] = {-rel1[0] - s * edge_vec[0], -rel1[1] - s * edge_vec[1]};
  const float dist_sq_line = dot(off, off);
  const float dir1[2] = {o->dir_x[v1], o->dir_y[v1]};

  /* Touching the obstacle now: a line through the origin. */
  if (s < 0.0f && dist_sq1 <= r_sq) { /* at the first vertex */
    if (o->convex[v1]) {
      const float d[2] = {-rel1[1], rel1[0]};
      const float len = sqrtf(dot(d, d));
      const float unit[2] = {d[0] / len, d[1] / len};
      push_origin_line(lines, count, unit);
    }
    return;
  }
  if (s > 1.0f &&
      dist_sq2 <= r_sq) { /* at the second vertex, unless the next edge takes it */
    const float dir2[2] = {o->dir_x[v2], o->dir_y[v2]};
    if (o->convex[v2] && det(rel2, dir2) >= 0.0f) {
      const float d[2] = {-rel2[1], rel2[0]};
      const float len = sqrtf(dot(d, d));
      const float unit[2] = {d[0] / len, d[1] / len};
      push_origin_line(lines, count, unit);
    }
    return;
  }
  /* On the edge itself, its end points included: at s == 1 the vertex
   * test above needs s > 1, and the legs below would take the square root
   * of a negative dist_sq2 - r^2 (NaN; a fuzzer finding on lattice
   * coordinates). */
  if (s >= 0.0f && s <= 1.0f && dist_sq_line <= r_sq) {
    const float d[2] = {-dir1[0], -dir1[1]};
    push_origin_line(lines, count, d);
    return;
  }

  /* Apart: the legs of the edge's velocity obstacle. Seen obliquely both
   * come from one vertex; at a non-convex vertex a leg continues the
   * cut-off line. */
  float left[2], right[2], unused[2];
  if (s < 0.0f && dist_sq_line <= r_sq) {
    if (!o->convex[v1]) return;
    v2 = v1;
    set(p2, p1[0], p1[1]);
    legs(rel1, dist_sq1, radius, left, right);
  } else if (s > 1.0f && dist_sq_line <= r_sq) {
    if (!o->convex[v2]) return;
    v1 = v2;
    set(p1, p2[0], p2[1]);
    legs(rel2, dist_sq2, radius, left, right);
  } else {
    if (o->convex[v1])
      legs(rel1, dist_sq1, radius, left, unused);
    else
      set(left, -dir1[0], -dir1[1]);
    if (o->convex[v2])
      legs(rel2, dist_sq2, radius, unused, right);
    else
      set(right, dir1[0], dir1[1]);
  }

  /* A leg pointing into the neighbouring edge at a convex vertex is
   * replaced by that edge's direction, and adds no line if chosen. */
  const uint32_t before = o->previous[v1];
  const float before_dir[2] = {-o->dir_x[before], -o->dir_y[before]};
  const float after_dir[2] = {o->dir_x[v2], o->dir_y[v2]};
  int left_foreign = 0, right_foreign = 0;
  if (o->convex[v1] && det(left, before_dir) >= 0.0f) {
    set(left, before_dir[0], before_dir[1]);
    left_foreign = 1;
  }
  if (o->convex[v2] && det(right, after_dir) <= 0.0f) {
    set(right, after_dir[0], after_dir[1]);
    right_foreign = 1;
  }

  /* Cut-off centres and the velocity's projections on the cut-off segment
   * and the legs. */
  const float left_cut[2] = {inv_tau * (p1[0] - a->p[0]), inv_tau * (p1[1] - a->p[1])};
  const float right_cut[2] = {inv_tau * (p2[0] - a->p[0]), inv_tau * (p2[1] - a->p[1])};
  const float cut_vec[2] = {right_cut[0] - left_cut[0], right_cut[1] - left_cut[1]};
  const float from_left[2] = {a->v[0] - left_cut[0], a->v[1] - left_cut[1]};
  const float from_right[2] = {a->v[0] - right_cut[0], a->v[1] - right_cut[1]};
  const int one_vertex = v1 == v2;
  const float t = one_vertex ? 0.5f : dot(from_left, cut_vec) / dot(cut_vec, cut_vec);
  const float t_left = dot(from_left, left);
  const float t_right = dot(from_right, right);
  const float r_tau = radius * inv_tau;

  if ((t < 0.0f && t_left < 0.0f) || (one_vertex && t_left < 0.0f && t_right < 0.0f)) {
    const float len = sqrtf(dot(from_left, from_left));
    const float unit[2] = {from_left[0] / len, from_left[1] / len};
    const float d[2] = {unit[1], -unit[0]};
    const float point[2] = {left_cut[0] + r_tau * unit[0], left_cut[1] + r_tau * unit[1]};
    push_line(lines, count, point, d);
    return;
  }
  if (t > 1.0f && t_right < 0.0f) {
    const float len = sqrtf(dot(from_right, from_right));
    const float unit[2] = {from_right[0] / len, from_right[1] / len};
    const float d[2] = {unit[1], -unit[0]};
    const float point[2] = {right_cut[0] + r_tau * unit[0],
                            right_cut[1] + r_tau * unit[1]};
    push_line(lines, count, point, d);
    return;
  }

  /* Otherwise the nearest of the cut-off segment and the two legs. */
  float dist_cut = INFINITY, dist_left = INFINITY, dist_right = INFINITY;
  if (!(t < 0.0f || t > 1.0f || one_vertex)) {
    const float q[2] = {from_left[0] - t * cut_vec[0], from_left[1] - t * cut_vec[1]};
    dist_cut = dot(q, q);
  }
  if (!(t_left < 0.0f)) {
    const float q[2] = {from_left[0] - t_left * left[0], from_left[1] - t_left * left[1]};
    dist_left = dot(q, q);
  }
  if (!(t_right < 0.0f)) {
    const float q[2] = {from_right[0] - t_right * right[0],
                        from_right[1] - t_right * right[1]};
    dist_right = dot(q, q);
  }
  if (dist_cut <= dist_left && dist_cut <= dist_right) {
    const float d[2] = {-dir1[0], -dir1[1]};
    const float point[2] = {left_cut[0] + r_tau * -d[1], left_cut[1] + r_tau * d[0]};
    push_line(lines, count, point, d);
  } else if (dist_left <= dist_right) {
    if (left_foreign) return;
    const float point[2] = {left_cut[0] + r_tau * -left[1],
                            left_cut[1] + r_tau * left[0]};
    push_line(lines, count, point, left);
  } else {
    if (right_foreign) return;
    const float d[2] = {-right[0], -right[1]};
    const float point[2] = {right_cut[0] + r_tau * -d[1], right_cut[1] + r_tau * d[0]};
    push_line(lines, count, point, d);
  }
}

void cs_orca_obstacle_lines(const crowdsteer_obstacles *o, const cs_orca_agent *a,
                            float inv_time_horizon, const uint32_t *edges,
                            size_t edge_count, cs_orca_line *lines, size_t *count) {
  for (size_t k = 0; k < edge_count; k++)
    obstacle_line(o, a, inv_time_horizon, edges[k], lines, count);
}

/* ---- linear programs ---------------------------------------------------------- */

/* The best point on line `n` that keeps lines [0, n) and the speed disc:
 * nearest `target` (or, with `toward`, farthest along the unit `target`).
 * Returns 0 when no point of the line qualifies. */
static int program_on_line(const cs_orca_line *lines, size_t n, float max_speed,
                           const float target[2], int toward, float result[2]) {
  const cs_orca_line *l = &lines[n];
  const float along = dot(l->point, l->direction);
  /* The line's distance from the origin (the direction is a unit vector):
   * it misses the speed disc when beyond max_speed by more than the
   * rounding of the difference of squares; a tangent line (an answer on the
   * circle that violates it by rounding) takes its foot point, where giving
   * up would send the answer across the disc. (along^2 + S^2 - |point|^2,
   * the same in exact arithmetic, let a line far out pass by its own
   * rounding: a fuzzer finding.) */
  const float distance = det(l->direction, l->point);
  const float discriminant = max_speed * max_speed - distance * distance;
  if (discriminant < -4.0f * FLT_EPSILON * max_speed * max_speed) return 0;
  const float root = sqrtf(discriminant > 0.0f ? discriminant : 0.0f);
  float t_left = -along - root, t_right = -along + root;
  for (size_t i = 0; i < n; i++) {
    const cs_orca_line *m = &lines[i];
    const float gap[2] = {l->point[0] - m->point[0], l->point[1] - m->point[1]};
    const float denominator = det(l->direction, m->direction);
    const float numerator = det(m->direction, gap);
    if (fabsf(denominator) <= CS_ORCA_EPSILON) { /* parallel */
      /* Opposite ways, line n outside m: no point of n keeps m. The same
       * way, n is violated after m was kept only through rounding (n is m
       * again, or crosses it at a near-zero angle): the point on n keeps m
       * up to that rounding, where giving up would throw the answer
       * across the disc. */
      if (numerator < 0.0f && dot(l->direction, m->direction) < 0.0f) return 0;
      continue;
    }
    const float t = numerator / denominator;
    if (denominator >= 0.0f)
      t_right = t_right < t ? t_right : t;
    else
      t_left = t_left > t ? t_left : t;
    if (t_left > t_right) return 0;
  }
  float t;
  if (toward) {
    t = dot(target, l->direction) > 0.0f ? t_right : t_left;
  } else {
    const float offset[2] = {target[0] - l->point[0], target[1] - l->point[1]};
    t = dot(l->direction, offset);
    t = t < t_left ? t_left : (t > t_right ? t_right : t);
  }
  set(result, l->point[0] + t * l->direction[0], l->point[1] + t * l->direction[1]);
  return 1;
}

/* Adds lines one by one, moving the result onto a line it violates.
 * Returns the first line it could not satisfy (count if none). */
static size_t program_in_disc(const cs_orca_line *lines, size_t count, float max_speed,
                              const float target[2], int toward, float result[2]) {
  if (toward) {
    set(result, target[0] * max_speed, target[1] * max_speed);
  } else if (dot(target, target) > max_speed * max_speed) {
    const float len = sqrtf(dot(target, target));
    set(result, target[0] / len * max_speed, target[1] / len * max_speed);
  } else {
    set(result, target[0], target[1]);
  }
  for (size_t i = 0; i < count; i++) {
    const cs_orca_line *l = &lines[i];
    const float gap[2] = {l->point[0] - result[0], l->point[1] - result[1]};
    if (det(l->direction, gap) > 0.0f) { /* result is right of line i */
      const float kept[2] = {result[0], result[1]};
      if (!program_on_line(lines, i, max_speed, target, toward, result)) {
        set(result, kept[0], kept[1]);
        return i;
      }
    }
  }
  return count;
}

/* Infeasible: minimise the largest violation of the agent lines from
 * `first` on, keeping the obstacle lines, one 2D program per line that is
 * violated more than the current worst (on the bisectors of it and the
 * lines before it). */
static void program_least_violation(const cs_orca_line *lines, size_t obstacle_lines,
                                    size_t first, size_t count, float max_speed,
                                    cs_orca_line *room, float result[2]) {
  float worst = 0.0f;
  for (size_t i = first; i < count; i++) {
    const cs_orca_line *l = &lines[i];
    const float gap[2] = {l->point[0] - result[0], l->point[1] - result[1]};
    if (!(det(l->direction, gap) > worst)) continue;
    size_t n = 0;
    for (size_t j = 0; j < obstacle_lines; j++)
      room[n++] = lines[j];
    for (size_t j = obstacle_lines; j < i; j++) {
      const cs_orca_line *m = &lines[j];
      cs_orca_line *b = &room[n];
      const float d = det(l->direction, m->direction);
      if (fabsf(d) <= CS_ORCA_EPSILON) {
        if (dot(l->direction, m->direction) > 0.0f) continue; /* same way */
        set(b->point, 0.5f * (l->point[0] + m->point[0]),
            0.5f * (l->point[1] + m->point[1]));
      } else {
        const float gap_lm[2] = {l->point[0] - m->point[0], l->point[1] - m->point[1]};
        const float s = det(m->direction, gap_lm) / d;
        set(b->point, l->point[0] + s * l->direction[0],
            l->point[1] + s * l->direction[1]);
      }
      const float between[2] = {m->direction[0] - l->direction[0],
                                m->direction[1] - l->direction[1]};
      const float len = sqrtf(dot(between, between));
      set(b->direction, between[0] / len, between[1] / len);
      n++;
    }
    const float kept[2] = {result[0], result[1]};
    const float outward[2] = {-l->direction[1], l->direction[0]};
    if (program_in_disc(room, n, max_speed, outward, 1, result) < n)
      set(result, kept[0], kept[1]); /* only through rounding: keep the last */
    const float gap_after[2] = {l->point[0] - result[0], l->point[1] - result[1]};
    worst = det(l->direction, gap_after);
  }
}

/* Back into the speed disc: a point computed on a line far from the
 * origin carries that line's rounding, and may land just outside. In
 * double, so tiny speeds do not underflow, rounded toward zero. */
static void within_speed(float max_speed, float result[2]) {
  const double x = result[0], y = result[1];
  const double speed = sqrt(x * x + y * y);
  if (!(speed > max_speed)) return;
  const double scale = max_speed / speed;
  set(result, cs_toward_zero(x * scale), cs_toward_zero(y * scale));
}

int cs_orca_solve(const cs_orca_line *lines, size_t obstacle_lines, size_t line_count,
                  float max_speed, const float preferred[2], cs_orca_line *room,
                  float result[2]) {
  const size_t failed =
      program_in_disc(lines, line_count, max_speed, preferred, 0, result);
  int crowded = 0;
  if (failed < line_count) {
    program_least_violation(lines, obstacle_lines, failed, line_count, max_speed, room,
                            result);
    crowded = 1;
  }
  within_speed(max_speed, result);
  return crowded;
}
