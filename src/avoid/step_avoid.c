/* crowdsteer_step's avoidance stage: the integrator's velocity is each
 * agent's preferred velocity; ORCA replaces it (cs_avoid_agent), the agent
 * moves by it from where it was, and a move that would cross an obstacle
 * edge slides along that edge or stops short (decided exactly). */
#include "avoid/step_avoid.h"

#include <math.h>
#include <string.h>

/* Where an extent [a, b] lies on an axis of the box [lo, hi], with a reach
 * of room: a reach inside both faces, a reach beyond one (out of every
 * agent's way), from a reach before the box to a reach past it, or none of
 * these (near a face). */
enum extent_place { NEAR_A_FACE, INSIDE, BEYOND, ACROSS };
static enum extent_place place_of(double a, double b, double lo, double hi,
                                  double reach) {
  if (a >= lo + reach && b <= hi - reach) return INSIDE;
  if (b <= lo - reach || a >= hi + reach) return BEYOND;
  if (a <= lo - reach && b >= hi + reach) return ACROSS;
  return NEAR_A_FACE;
}

/* A wrap moves agents across the box's faces, a jump the walls do not
 * see. A step with both is refused (PARAMETER) unless no wrap can carry an
 * agent past an obstacle or into a polygon: every agent of the range with a
 * finite position starts in the box (or a rounding outside, where a wrap
 * may leave it); every edge lies, on each axis, a reach inside the faces,
 * or a reach beyond one, or along the axis across the box (the same line
 * either side of the seam: what crosses it after the wrap crossed it
 * before, where the walls see it); and each polygon lies a reach inside the
 * faces, or beyond one, or across the box on one axis and inside on the
 * other (so its inside is the same either side of that seam). The reach is
 * the range's largest max_speed * dt with room for rounding. */
static int wrap_clear(const cs_avoid_job *job, const crowdsteer_agents *agents,
                      const crowdsteer_box *box, float dt, size_t begin, size_t end) {
  double far = 1.0;
  for (int k = 0; k < 2; k++)
    far = fmax(far, fmax(fabs((double)box->min[k]), fabs((double)box->max[k])));
  const double rounding = far * 0x1p-20;
  const float *const pos[2] = {agents->px, agents->py};
  double fastest = job->max_speed.array ? 0.0 : job->max_speed.value;
  for (size_t i = begin; i < end; i++) {
    if (job->max_speed.array && job->max_speed.array[i] > fastest)
      fastest = job->max_speed.array[i];
    for (int k = 0; k < 2; k++) {
      const double x = pos[k][i];
      if (isfinite(x) && !(x >= box->min[k] - rounding && x <= box->max[k] + rounding))
        return 0;
    }
  }
  const double reach = fastest * dt * 1.0625 + rounding;
  const crowdsteer_obstacles *o = job->obstacles;
  const float *const at[2] = {o->x, o->y};
  for (size_t e = 0; e < o->vertex_count; e++) {
    const uint32_t f = o->next[e];
    enum extent_place where[2];
    for (int k = 0; k < 2; k++)
      where[k] = place_of(fmin(at[k][e], at[k][f]), fmax(at[k][e], at[k][f]), box->min[k],
                          box->max[k], reach);
    if (where[0] == BEYOND || where[1] == BEYOND) continue;
    for (int k = 0; k < 2; k++)
      if (where[k] == NEAR_A_FACE || (where[k] == ACROSS && at[1 - k][e] != at[1 - k][f]))
        return 0;
  }
  for (size_t l = 0; l < o->loop_count; l++) {
    if (!o->loop_closed[l]) continue; /* a wall: its edges above */
    double low[2] = {INFINITY, INFINITY}, high[2] = {-INFINITY, -INFINITY};
    uint32_t v = o->loop_first[l];
    do {
      for (int k = 0; k < 2; k++)
        low[k] = fmin(low[k], at[k][v]), high[k] = fmax(high[k], at[k][v]);
      v = o->next[v];
    } while (v != o->loop_first[l]);
    enum extent_place where[2];
    for (int k = 0; k < 2; k++)
      where[k] = place_of(low[k], high[k], box->min[k], box->max[k], reach);
    if (where[0] == BEYOND || where[1] == BEYOND) continue;
    if (!((where[0] == INSIDE && where[1] == INSIDE) ||
          (where[0] == ACROSS && where[1] == INSIDE) ||
          (where[0] == INSIDE && where[1] == ACROSS)))
      return 0;
  }
  return 1;
}

crowdsteer_status cs_step_avoid_prepare(cs_step_avoid *sa,
                                        const crowdsteer_agents *agents,
                                        const crowdsteer_step_desc *step,
                                        float *const out_pos[3], float *const out_vel[3],
                                        size_t chunk, size_t begin, size_t end) {
  memset(sa, 0, sizeof *sa);
  const crowdsteer_avoidance *av = step->avoidance;
  if (!av) return CROWDSTEER_OK;
  /* As for the neighbour behaviours: a step reads other agents from a grid. */
  if (av->neighbours && !av->neighbours->grid) return CROWDSTEER_ERROR_NULL_POINTER;
  crowdsteer_status fault =
      cs_avoid_prepare(&sa->job, agents, av, &step->integrator, begin, end);
  if (fault != CROWDSTEER_OK) return fault;
  const float dt = step->integrator.dt == 0.0f ? 1.0f : step->integrator.dt;
  if (step->wrap && av->obstacles && begin < end &&
      !wrap_clear(&sa->job, agents, step->wrap, dt, begin, end))
    return CROWDSTEER_ERROR_PARAMETER;
  sa->on = 1;
  sa->desc = av;
  sa->dims = agents->dims;
  sa->dt = dt;
  sa->chunk = chunk;
  sa->begin = begin, sa->end = end;
  /* Over the grid's slots when the range is a good part of its agents (a
   * walk skips those outside the range). */
  const crowdsteer_grid *g = sa->job.avoid_agents ? sa->job.neighbours.grid : NULL;
  sa->after_tiles = g && (end - begin) >= g->count / 4;
  const float *pos[3] = {agents->px, agents->py, agents->pz};
  const float *vel[3] = {agents->vx, agents->vy, agents->vz};
  for (int k = 0; k < sa->dims; k++) {
    sa->pos[k] = pos[k];
    sa->vel[k] = vel[k];
    sa->out_pos[k] = out_pos[k];
    sa->out_vel[k] = out_vel[k];
  }
  return CROWDSTEER_OK;
}

void cs_step_avoid_spans(cs_spans *spans, const cs_step_avoid *sa,
                         const crowdsteer_agents *agents, size_t begin, size_t end) {
  if (!sa->on) return;
  const crowdsteer_avoidance *av = sa->desc;
  const size_t first = av->neighbours ? 0 : begin,
               last = av->neighbours ? agents->count : end;
  cs_spans_add(spans, av->report, begin, end, 1);
  cs_spans_add(spans, av->radius_per_agent, first, last, 0);
  cs_spans_add(spans, av->responsibility_per_agent, first, last, 0);
  if (av->neighbours) {
    cs_spans_add(spans, agents->id, 0, agents->count, 0);
    cs_spans_add(spans, av->neighbours->radius_per_agent, begin, end, 0);
    if (av->neighbours->field_of_view)
      cs_spans_add(spans, av->neighbours->cos_field_of_view_per_agent, begin, end, 0);
    cs_spans_add(spans, av->neighbours->neighbour_mask_per_agent, begin, end, 0);
  }
}

static size_t round_up(size_t bytes) { return (bytes + 63u) & ~(size_t)63u; }

/* A slot: the ORCA scratch, then the chunk's saved positions and
 * velocities (dims floats each per agent). */
size_t cs_step_avoid_bytes(const cs_step_avoid *sa, size_t slots) {
  if (!sa->on) return 0;
  const size_t saved = 2u * 3u * sa->chunk * sizeof(float);
  const size_t slot = round_up(cs_avoid_scratch_bytes(&sa->job)) + round_up(saved);
  return round_up(slots * sizeof(atomic_int)) + slots * slot + 64;
}

void cs_step_avoid_attach(cs_step_avoid *sa, void *memory, size_t slots) {
  if (!sa->on) return;
  char *at = (char *)(((uintptr_t)memory + 63u) & ~(uintptr_t)63u);
  sa->busy = (atomic_int *)at;
  for (size_t k = 0; k < slots; k++)
    atomic_init(&sa->busy[k], 0);
  at += round_up(slots * sizeof(atomic_int));
  sa->slots = slots;
  sa->slot_bytes = round_up(cs_avoid_scratch_bytes(&sa->job)) +
                   round_up(2u * 3u * sa->chunk * sizeof(float));
  sa->memory = at;
}

static float *saved_state(const cs_step_avoid *sa, size_t slot) {
  return (float *)(sa->memory + slot * sa->slot_bytes +
                   round_up(cs_avoid_scratch_bytes(&sa->job)));
}

size_t cs_step_avoid_begin(cs_step_avoid *sa, size_t first, size_t last) {
  if (sa->after_tiles) return 0;
  /* At most `slots` chunks run at once (one per thread): one is free. */
  const size_t slot = cs_avoid_take_slot(sa->busy, sa->slots);
  float *saved = saved_state(sa, slot);
  const size_t n = last - first;
  for (int k = 0; k < sa->dims; k++) {
    memcpy(saved + (size_t)k * sa->chunk, sa->pos[k] + first, n * sizeof(float));
    memcpy(saved + (size_t)(3 + k) * sa->chunk, sa->vel[k] + first, n * sizeof(float));
  }
  return slot;
}

/* The walls: the move from p to q, or a slide along the first edge it
 * crosses, or a part of it, or none; whatever is kept crosses no edge. */
static uint32_t hold_walls(const crowdsteer_obstacles *o, cs_obstacle_scratch *s,
                           const float p[2], float q[2]) {
  if (!isfinite(p[0]) || !isfinite(p[1])) return 0; /* nowhere to hold it */
  if (cs_obstacle_inside(o, s, p)) {
    q[0] = p[0], q[1] = p[1];
    return CROWDSTEER_REPORT_INSIDE;
  }
  if (!isfinite(q[0]) || !isfinite(q[1])) {
    q[0] = p[0], q[1] = p[1];
    return CROWDSTEER_REPORT_WALL;
  }
  const uint32_t edge = cs_obstacle_first_crossed(o, s, p, q);
  if (edge == UINT32_MAX) return 0;
  const float d[2] = {q[0] - p[0], q[1] - p[1]};
  const float along = d[0] * o->dir_x[edge] + d[1] * o->dir_y[edge];
  float try_q[2] = {p[0] + along * o->dir_x[edge], p[1] + along * o->dir_y[edge]};
  if (!cs_obstacle_move_blocked(o, s, p, try_q)) {
    q[0] = try_q[0], q[1] = try_q[1];
    return CROWDSTEER_REPORT_WALL;
  }
  /* Halves of the move, then staying put (which crosses nothing). */
  float part = 0.5f;
  for (int k = 0; k < 8; k++, part *= 0.5f) {
    try_q[0] = p[0] + part * d[0];
    try_q[1] = p[1] + part * d[1];
    if (!cs_obstacle_move_blocked(o, s, p, try_q)) {
      q[0] = try_q[0], q[1] = try_q[1];
      return CROWDSTEER_REPORT_WALL;
    }
  }
  q[0] = p[0], q[1] = p[1];
  return CROWDSTEER_REPORT_WALL;
}

/* Agent i from its state (p, v) before the step: ORCA from its preferred
 * velocity (the integrator's), the move, the walls; its new state. */
static void move_agent(const cs_step_avoid *sa, cs_avoid_scratch *s, size_t i,
                       const float p[3], const float v[3]) {
  const cs_avoid_job *job = &sa->job;
  const int dims = sa->dims;
  const float dt = sa->dt;
  float pref[3] = {0.0f, 0.0f, 0.0f}, out[3];
  for (int k = 0; k < dims; k++)
    pref[k] = sa->out_vel[k][i];
  uint32_t report = cs_avoid_agent(job, s, i, p, v, pref, out);
  float q[3] = {0.0f, 0.0f, 0.0f};
  for (int k = 0; k < dims; k++)
    q[k] = p[k] + out[k] * dt;
  if (job->obstacles) {
    const uint32_t wall = hold_walls(job->obstacles, &s->obstacle, p, q);
    if (wall) /* the velocity is the move made */
      for (int k = 0; k < 2; k++)
        out[k] = (q[k] - p[k]) / dt;
    report |= wall;
  }
  for (int k = 0; k < dims; k++) {
    sa->out_pos[k][i] = q[k];
    sa->out_vel[k][i] = out[k];
  }
  if (sa->desc->report) sa->desc->report[i] = report;
}

void cs_step_avoid_end(cs_step_avoid *sa, size_t slot, size_t first, size_t last) {
  if (sa->after_tiles) return;
  const int dims = sa->dims;
  cs_avoid_scratch s;
  cs_avoid_scratch_init(&s, &sa->job, sa->memory + slot * sa->slot_bytes);
  const float *saved = saved_state(sa, slot);
  for (size_t i = first; i < last; i++) {
    const size_t c = i - first;
    /* The agent's own state before the step (bit for bit the grid's copy
     * of it, the grid being built from that state). */
    float p[3] = {0.0f, 0.0f, 0.0f}, v[3] = {0.0f, 0.0f, 0.0f};
    for (int k = 0; k < dims; k++) {
      p[k] = saved[(size_t)k * sa->chunk + c];
      v[k] = saved[(size_t)(3 + k) * sa->chunk + c];
    }
    move_agent(sa, &s, i, p, v);
  }
  atomic_store(&sa->busy[slot], 0);
}

/* Grid slots per part after the tiles: enough to share, each worth a
 * scratch slot's grab. */
enum { PART = 256 };

size_t cs_step_avoid_parts(const cs_step_avoid *sa) {
  if (!sa->on || !sa->after_tiles) return 0;
  return (sa->job.neighbours.grid->count + PART - 1) / PART;
}

static void run_parts(void *context, size_t first, size_t last) {
  cs_step_avoid *sa = context;
  const crowdsteer_grid *g = sa->job.neighbours.grid;
  const size_t slot = cs_avoid_take_slot(sa->busy, sa->slots);
  cs_avoid_scratch s;
  cs_avoid_scratch_init(&s, &sa->job, sa->memory + slot * sa->slot_bytes);
  const size_t to = last * PART < g->count ? last * PART : g->count;
  enum { AHEAD = 8 }; /* the agents' own arrays, in index order, are far apart */
  for (size_t at = first * PART; at < to; at++) {
    if (at + AHEAD < to) {
      const size_t later = g->index[at + AHEAD];
      for (int k = 0; k < sa->dims; k++) {
        __builtin_prefetch(sa->out_vel[k] + later, 1);
        __builtin_prefetch(sa->out_pos[k] + later, 1);
      }
      cs_avoid_prefetch_agent(&sa->job, sa->desc->report, later);
    }
    const size_t i = g->index[at];
    if (i < sa->begin || i >= sa->end) continue;
    float p[3] = {0.0f, 0.0f, 0.0f}, v[3] = {0.0f, 0.0f, 0.0f};
    for (int k = 0; k < sa->dims; k++) {
      p[k] = g->pos[k][at];
      v[k] = g->vel[k][at];
    }
    move_agent(sa, &s, i, p, v);
  }
  atomic_store(&sa->busy[slot], 0);
}

void cs_step_avoid_run_parts(cs_step_avoid *sa, const cs_spread *spread) {
  const size_t parts = cs_step_avoid_parts(sa);
  if (parts) cs_spread_run(spread, parts, 1, run_parts, sa);
}
