/* Builds and runs one single-entry-point call from a decoded fuzz_case:
 * its arrays, the decoding, the call itself and the arrays it touches. */
#include "fuzz_case_call.h"

#include <stdlib.h>
#include <string.h>

/* ---- the arrays of one call ---------------------------------------------- */

static void world_alloc(world *w, size_t count) {
  w->count = count;
  for (int f = 0; f < F_COUNT; f++) {
    w->f[f] = (float *)malloc(count * sizeof(float));
    if (!w->f[f] && count) abort();
  }
  w->index = (uint32_t *)malloc(count * sizeof(uint32_t));
  w->id = (uint32_t *)malloc(count * sizeof(uint32_t));
  if ((!w->index || !w->id) && count) abort();
}

void world_copy(world *dst, const world *src) {
  world_alloc(dst, src->count);
  for (int f = 0; f < F_COUNT; f++)
    if (src->count) memcpy(dst->f[f], src->f[f], src->count * sizeof(float));
  if (src->count) memcpy(dst->index, src->index, src->count * sizeof(uint32_t));
  if (src->count) memcpy(dst->id, src->id, src->count * sizeof(uint32_t));
}

void world_free(world *w) {
  for (int f = 0; f < F_COUNT; f++)
    free(w->f[f]);
  free(w->index);
  free(w->id);
}

/* ---- the call --------------------------------------------------------------*/

static float *array_or_null(const fuzz_case *c, const world *w, int field) {
  return is_null(c, N_ARRAY0 + field) ? NULL : w->f[field];
}

/* The array of `field` as the call gets it: moved off its alignment when
 * the case says so (the world and the oracle keep the real one). */
static void *as_passed(const fuzz_case *c, int field, void *array) {
  if (!array || field != c->misalign_field) return array;
  return (char *)array + c->misalign_bytes;
}

static float *call_array(const fuzz_case *c, const world *w, int field) {
  return (float *)as_passed(c, field, array_or_null(c, w, field));
}

static const float *call_param(const fuzz_case *c, const world *w, int field) {
  return (const float *)as_passed(c, field, (void *)param_array(c, w, field));
}

static crowdsteer_vectors vectors_of(const fuzz_case *c, const world *w, int first) {
  crowdsteer_vectors v = {call_array(c, w, first), call_array(c, w, first + 1),
                          call_array(c, w, first + 2)};
  return v;
}

crowdsteer_status call(const fuzz_case *c, world *w, size_t begin, size_t end) {
  crowdsteer_agents agents = {c->count,
                              c->dims,
                              call_array(c, w, F_PX),
                              call_array(c, w, F_PY),
                              call_array(c, w, F_PZ),
                              call_array(c, w, F_VX),
                              call_array(c, w, F_VY),
                              call_array(c, w, F_VZ),
                              c->id_mode == IDS_NONE ? NULL
                              : c->id_mode == IDS_MISALIGNED
                                  ? (const uint32_t *)((const char *)w->id + 2)
                                  : w->id};
  crowdsteer_target target;
  memset(&target, 0, sizeof target);
  target.kind = (crowdsteer_target_kind)c->target_kind;
  memcpy(target.point, c->point, sizeof target.point);
  memcpy(target.point_velocity, c->point_velocity, sizeof target.point_velocity);
  target.position = vectors_of(c, w, F_TPX);
  target.velocity = vectors_of(c, w, F_TVX);
  target.index =
      (const uint32_t *)as_passed(c, F_COUNT, is_null(c, N_INDEX) ? NULL : w->index);
  target.agent = c->agent;
  crowdsteer_params params = c->params;
  params.max_speed_per_agent = call_param(c, w, F_MAX_SPEED);
  params.max_force_per_agent = call_param(c, w, F_MAX_FORCE);
  params.mass_per_agent = call_param(c, w, F_MASS);
  params.target_radius_per_agent = call_param(c, w, F_TARGET_RADIUS);
  params.slowing_radius_per_agent = call_param(c, w, F_SLOWING_RADIUS);
  params.panic_radius_per_agent = call_param(c, w, F_PANIC_RADIUS);
  params.danger_radius_per_agent = call_param(c, w, F_DANGER_RADIUS);
  params.escape_radius_per_agent = call_param(c, w, F_ESCAPE_RADIUS);
  params.wander_radius_per_agent = call_param(c, w, F_WANDER_RADIUS);
  params.wander_distance_per_agent = call_param(c, w, F_WANDER_DISTANCE);
  params.time_to_target_per_agent = call_param(c, w, F_TIME_TO_TARGET);
  params.max_prediction_per_agent = call_param(c, w, F_MAX_PREDICTION);
  params.jitter_per_agent = call_param(c, w, F_JITTER);
  crowdsteer_output out;
  memset(&out, 0, sizeof out);
  out.steering = vectors_of(c, w, F_OX);
  out.mode = (crowdsteer_write_mode)c->mode;
  out.weight = c->weight;
  out.weight_per_agent = call_param(c, w, F_WEIGHT);
  crowdsteer_wander_state state = {vectors_of(c, w, F_WX), c->seed, c->tick};
  crowdsteer_vectors steering = vectors_of(c, w, F_SX);

  int moved;
  uintptr_t to;
  if (overlap_of(c, w, &moved, &to)) {
    float **slots[VECTOR_FIELDS] = {&agents.px,
                                    &agents.py,
                                    &agents.pz,
                                    &agents.vx,
                                    &agents.vy,
                                    &agents.vz,
                                    NULL,
                                    NULL,
                                    NULL,
                                    NULL,
                                    NULL,
                                    NULL,
                                    &out.steering.x,
                                    &out.steering.y,
                                    &out.steering.z,
                                    &state.direction.x,
                                    &state.direction.y,
                                    &state.direction.z,
                                    NULL,
                                    NULL,
                                    NULL};
    *slots[moved] = (float *)to;
  }
  const crowdsteer_agents *a = is_null(c, N_AGENTS) ? NULL : &agents;
  const crowdsteer_target *t = is_null(c, N_TARGET) ? NULL : &target;
  const crowdsteer_params *p = is_null(c, N_PARAMS) ? NULL : &params;
  const crowdsteer_output *o = is_null(c, N_OUT) ? NULL : &out;
  switch (c->entry) {
  case CROWDSTEER_SEEK: return crowdsteer_seek(a, t, p, o, begin, end);
  case CROWDSTEER_FLEE: return crowdsteer_flee(a, t, p, o, begin, end);
  case CROWDSTEER_ARRIVE: return crowdsteer_arrive(a, t, p, o, begin, end);
  case CROWDSTEER_LEAVE: return crowdsteer_leave(a, t, p, o, begin, end);
  case CROWDSTEER_PURSUIT: return crowdsteer_pursuit(a, t, p, o, begin, end);
  case CROWDSTEER_EVADE: return crowdsteer_evade(a, t, p, o, begin, end);
  case CROWDSTEER_WANDER:
    return crowdsteer_wander(a, is_null(c, N_AUX) ? NULL : &state, p, o, begin, end);
  default:
    return crowdsteer_integrate(a, is_null(c, N_AUX) ? NULL : &steering, p, begin, end);
  }
}

/* Poisons (or unpoisons) every element outside [begin, end) that a call on
 * that range must not touch: all arrays, except the agent state an AGENTS
 * target gathers from anywhere in the batch. ASan works in 8-byte granules,
 * so a float just before `begin` may stay unpoisoned. */
static void guard_range(const fuzz_case *c, world *w, size_t begin, size_t end,
                        int poison) {
#ifdef CS_FUZZ_ASAN
  if (begin > end || end > c->count) return;
  int gathered =
      c->entry <= CROWDSTEER_EVADE && (c->target_kind == CROWDSTEER_TARGET_AGENTS ||
                                       c->target_kind == CROWDSTEER_TARGET_AGENT);
  for (int f = 0; f < F_COUNT; f++) {
    if (gathered && f <= F_VZ) continue;
    if (poison) {
      ASAN_POISON_MEMORY_REGION(w->f[f], begin * sizeof(float));
      ASAN_POISON_MEMORY_REGION(w->f[f] + end, (c->count - end) * sizeof(float));
    } else {
      ASAN_UNPOISON_MEMORY_REGION(w->f[f], c->count * sizeof(float));
    }
  }
  if (poison) {
    ASAN_POISON_MEMORY_REGION(w->index, begin * sizeof(uint32_t));
    ASAN_POISON_MEMORY_REGION(w->index + end, (c->count - end) * sizeof(uint32_t));
  } else {
    ASAN_UNPOISON_MEMORY_REGION(w->index, c->count * sizeof(uint32_t));
  }
#else
  (void)c, (void)w, (void)begin, (void)end, (void)poison;
#endif
}

crowdsteer_status guarded_call(const fuzz_case *c, world *w, size_t begin, size_t end) {
  guard_range(c, w, begin, end, 1);
  crowdsteer_status st = call(c, w, begin, end);
  guard_range(c, w, begin, end, 0);
  return st;
}

/* ---- decoding ---------------------------------------------------------------*/

void decode_case(reader *r, fuzz_case *c, world *w, int *isa) {
  memset(c, 0, sizeof *c);
  c->entry = rd_u8(r) % E_COUNT;
  *isa = rd_u8(r) % CROWDSTEER_ISA_COUNT;
  static const int bad_dims[] = {0, 1, 4, -1, -2147483647 - 1, 2147483647};
  uint8_t d = rd_u8(r);
  c->dims = d % 8 < 3 ? 2 : d % 8 < 6 ? 3 : bad_dims[(d / 8) % 6];
  uint8_t n = rd_u8(r);
  c->count = n < 224 ? n % 40 : 40 + (size_t)(n - 224) * 9;
  cs_fuzz_range(r, c->count, &c->begin, &c->end, &c->split);
  static const int bad_kinds[] = {4, -1, 255, 2147483647};
  uint8_t k = rd_u8(r) % 16;
  c->target_kind = k < 5     ? 0
                   : k < 10  ? 1
                   : k < 14  ? 2
                   : k == 14 ? 3
                             : bad_kinds[rd_u8(r) % 4];
  if (c->target_kind == CROWDSTEER_TARGET_AGENT) {
    uint8_t b = rd_u8(r); /* mostly in the batch, like the indices below */
    c->agent = b < 244 && c->count ? b % (uint32_t)c->count
               : b < 255           ? (uint32_t)(c->count + (size_t)(b % 11))
                                   : UINT32_MAX;
  }
  static const int bad_modes[] = {2, -1, 100};
  uint8_t m = rd_u8(r) % 8;
  c->mode = m < 4 ? 0 : m < 7 ? 1 : bad_modes[rd_u8(r) % 3];
  if (rd_u8(r) % 4 == 0) {
    int nulls = 1 + rd_u8(r) % 2;
    for (int i = 0; i < nulls; i++)
      c->nulls |= 1u << (rd_u8(r) % N_BITS);
  }
  if (rd_u8(r) % 2) c->per_agent = (uint32_t)rd_u8(r) << 8 | rd_u8(r);
  crowdsteer_params *p = &c->params;
  float *uniform[] = {
      &p->max_speed,       &p->max_force,     &p->mass,           &p->dt,
      &p->time_to_target,  &p->target_radius, &p->slowing_radius, &p->panic_radius,
      &p->danger_radius,   &p->escape_radius, &p->max_prediction, &p->wander_radius,
      &p->wander_distance, &p->jitter};
  for (size_t i = 0; i < sizeof uniform / sizeof uniform[0]; i++)
    *uniform[i] = cs_fuzz_param(r);
  for (int i = 0; i < 3; i++)
    c->point[i] = cs_fuzz_float(r);
  for (int i = 0; i < 3; i++)
    c->point_velocity[i] = cs_fuzz_float(r);
  c->weight = cs_fuzz_float(r);
  c->seed = rd_u32(r);
  c->tick = rd_u32(r);
  c->nan_probe = rd_u8(r) % 4 == 0;
  c->nan_agent = c->count ? rd_u8(r) % c->count : 0;
  c->nan_field = rd_u8(r);

  /* Agent-major, so the first bytes after the header shape agent 0. */
  world_alloc(w, c->count);
  for (size_t i = 0; i < c->count; i++) {
    for (int f = 0; f < F_FIRST_PARAM; f++)
      w->f[f][i] = cs_fuzz_float(r);
    for (int f = F_FIRST_PARAM; f < F_WEIGHT; f++)
      w->f[f][i] = cs_fuzz_param_element(r);
    w->f[F_WEIGHT][i] = cs_fuzz_float(r);
    for (int f = F_TIME_TO_TARGET; f < F_COUNT; f++)
      w->f[f][i] = cs_fuzz_param_element(r);
    uint8_t b = rd_u8(r);
    w->index[i] = b < 244   ? (uint32_t)(b % c->count)
                  : b < 255 ? (uint32_t)(c->count + (size_t)(b - 244))
                            : UINT32_MAX;
  }
  /* Last, so that older inputs decode to the same call as before: the
   * host's floating-point mode during the call, and one array (or the
   * indices) moved 1 to 3 bytes off its alignment in one case in eight. */
  c->host_mode = rd_u8(r) % 8 % CS_FUZZ_HOST_MODES;
  c->misalign_field = rd_u8(r) % 8 == 0 ? rd_u8(r) % (F_COUNT + 1) : -1;
  c->misalign_bytes = 1u + rd_u8(r) % 3u;
  /* Later still: the agents' ids (older inputs end before them and read
   * the reader's filler bytes, so they decode to the same call as before
   * plus ids). */
  c->id_mode = rd_u8(r) % ID_MODES;
  for (size_t i = 0; i < c->count; i++)
    w->id[i] = c->id_mode == IDS_SHARED ? (uint32_t)(i % 3u)
                                        : (uint32_t)i * 0x9E3779B1u ^ c->seed;
  /* Later again, for the same reason: an overlap in one case in eight. */
  c->overlap = rd_u8(r) % 8 == 0;
  for (int b = 0; b < 3; b++)
    c->overlap_bytes[b] = rd_u8(r);
}

/* ---- the arrays a call touches -----------------------------------------------*/

/* Whether a call on a non-empty range uses the array of `field` (F_COUNT:
 * the indices), decided like its NULL rule: 1 it must (a misaligned one is
 * then an error), 2 it may (wander's positions), 0 it does not. */
int uses_array(const fuzz_case *c, int field) {
  const int e = c->entry;
  const int has_out = e != E_INTEGRATE && !is_null(c, N_OUT);
  const int has_target = targeted(e) && !is_null(c, N_TARGET);
  if (field == F_COUNT)
    return has_target && c->target_kind == CROWDSTEER_TARGET_AGENTS &&
           !is_null(c, N_INDEX);
  if (field < VECTOR_FIELDS) {
    if (field % 3 >= c->dims || is_null(c, N_ARRAY0 + field)) return 0;
    if (field <= F_PZ) return e == CROWDSTEER_WANDER ? 2 : 1;
    if (field <= F_VZ) return 1;
    if (field <= F_TPZ) return has_target && c->target_kind == CROWDSTEER_TARGET_ARRAYS;
    if (field <= F_TVZ)
      return has_target && with_velocity(e) && c->target_kind == CROWDSTEER_TARGET_ARRAYS;
    if (field <= F_OZ) return has_out;
    if (field <= F_WZ) return e == CROWDSTEER_WANDER && !is_null(c, N_AUX);
    return e == E_INTEGRATE && !is_null(c, N_AUX);
  }
  if (!((c->per_agent >> (field - F_FIRST_PARAM)) & 1u)) return 0;
  if (field == F_WEIGHT) return has_out && c->mode == CROWDSTEER_ACCUMULATE;
  if (is_null(c, N_PARAMS)) return 0;
  switch (field) {
  case F_MAX_SPEED: return e != CROWDSTEER_WANDER;
  case F_MAX_FORCE:
  case F_MASS: return e == E_INTEGRATE;
  case F_TARGET_RADIUS:
  case F_SLOWING_RADIUS: return e == CROWDSTEER_ARRIVE;
  case F_PANIC_RADIUS: return e == CROWDSTEER_FLEE || e == CROWDSTEER_EVADE;
  case F_DANGER_RADIUS:
  case F_ESCAPE_RADIUS: return e == CROWDSTEER_LEAVE;
  case F_TIME_TO_TARGET: return targeted(e);
  case F_MAX_PREDICTION: return e == CROWDSTEER_PURSUIT || e == CROWDSTEER_EVADE;
  default: return e == CROWDSTEER_WANDER; /* wander_radius, wander_distance, jitter */
  }
}

/* The arrays of the call and the elements it touches of each (ids: the
 * agents' ids F_COUNT + 1, the indices F_COUNT, else the field), from
 * docs/guarantees.md: every array at the agent's own index over [begin,
 * end), the agents' state also over the whole batch for AGENTS targets and
 * at the one index of an AGENT target; the output, wander state and the
 * integrator's agents written. */
static int call_extents(const fuzz_case *c, const world *w, cs_fuzz_extent *e) {
  int n = 0;
  const size_t B = c->begin, E = c->end, N = c->count;
  const int integrate = c->entry == E_INTEGRATE;
  const int target = targeted(c->entry) && !is_null(c, N_TARGET);
  for (int f = 0; f < VECTOR_FIELDS; f++) {
    if (f % 3 >= c->dims || is_null(c, N_ARRAY0 + f) || f == c->misalign_field) continue;
    if (f > F_VZ) {
      const int written = (f >= F_OX && f <= F_OZ) || (f >= F_WX && f <= F_WZ);
      if (uses_array(c, f)) cs_fuzz_add_extent(e, &n, f, w->f[f], written, B, E);
      continue;
    }
    cs_fuzz_add_extent(e, &n, f, w->f[f], integrate, B, E);
    if (target && c->target_kind == CROWDSTEER_TARGET_AGENTS && !is_null(c, N_INDEX))
      cs_fuzz_add_extent(e, &n, f, w->f[f], 0, 0, N);
    if (target && c->target_kind == CROWDSTEER_TARGET_AGENT && c->agent < N)
      cs_fuzz_add_extent(e, &n, f, w->f[f], 0, c->agent, c->agent + 1u);
  }
  for (int f = F_FIRST_PARAM; f < F_COUNT; f++)
    if (f != c->misalign_field && uses_array(c, f))
      cs_fuzz_add_extent(e, &n, f, w->f[f], 0, B, E);
  if (c->misalign_field != F_COUNT && uses_array(c, F_COUNT))
    cs_fuzz_add_extent(e, &n, F_COUNT, w->index, 0, B, E);
  if (c->entry == CROWDSTEER_WANDER &&
      (c->id_mode == IDS_DISTINCT || c->id_mode == IDS_SHARED))
    cs_fuzz_add_extent(e, &n, F_COUNT + 1, w->id, 0, B, E);
  return n;
}

/* Whether the case moves a written array (*field) onto another where the
 * two meet, and where to (*to); the call must then fail. */
int overlap_of(const fuzz_case *c, const world *w, int *field, uintptr_t *to) {
  if (!c->overlap || is_null(c, N_AGENTS) || c->entry >= E_ISA) return 0;
  if ((c->dims != 2 && c->dims != 3) || c->begin >= c->end || c->end > c->count) return 0;
  cs_fuzz_extent e[F_COUNT + 8];
  const int n = call_extents(c, w, e);
  return cs_fuzz_pick_overlap(e, n, c->begin, c->end, c->begin, c->end, c->count,
                              c->overlap_bytes, field, to);
}
