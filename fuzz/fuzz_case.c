/* Decodes fuzzer bytes into one crowdsteer call and checks on it the error
 * contract and exactness of docs/behaviours.md §9-10 (see cs_fuzz_one). */
#include "fuzz_case.h"
#include "fuzz_internal.h"

#include <fenv.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crowdsteer.h"

cs_fuzz_stats cs_fuzz_counters;

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

void cs_fuzz_set_host_mode(int mode) {
  static const int rounding[CS_FUZZ_HOST_MODES] = {
      FE_TONEAREST, FE_UPWARD,    FE_DOWNWARD, FE_TOWARDZERO,
      FE_TONEAREST, FE_TONEAREST, FE_TONEAREST};
  const int ftz = mode == 4 || mode == 6, daz = mode == 5 || mode == 6;
  fesetround(rounding[mode]);
#if defined(__x86_64__) || defined(__i386__)
  _mm_setcsr((_mm_getcsr() & ~0x8040u) | (ftz ? 0x8000u : 0u) | (daz ? 0x40u : 0u));
#elif defined(__aarch64__)
  unsigned long long fpcr;
  __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
  fpcr = (fpcr & ~(1ull << 24)) | (ftz || daz ? 1ull << 24 : 0ull);
  __asm__ volatile("msr fpcr, %0" : : "r"(fpcr));
#else
  (void)ftz, (void)daz;
#endif
}

unsigned long long cs_fuzz_host_mode(void) {
#if defined(__x86_64__) || defined(__i386__)
  return _mm_getcsr() & ~0x3Fu;
#elif defined(__aarch64__)
  unsigned long long fpcr;
  __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
  return fpcr;
#else
  return (unsigned long long)fegetround();
#endif
}

/* Values that sit on the edges of the contract: signed zeros, denormals,
 * the 1e18 state bound, the largest floats, infinities and NaN. */
static const float specials[] = {
    0.0f,     -0.0f,     1.0f,     -1.0f,     0.5f,       -0.5f,   2.0f,
    1e-3f,    1e3f,      1e6f,     -1e6f,     1e18f,      -1e18f,  1e-30f,
    1e-20f,   FLT_MIN,   -FLT_MIN, 0x1p-149f, -0x1p-149f, FLT_MAX, -FLT_MAX,
    INFINITY, -INFINITY, NAN,      1e30f,     3.0f,       -0.95f,  1e9f};
enum { SPECIAL_COUNT = sizeof specials / sizeof specials[0] };

/* Small multiples of a few scales make coincident positions (agent on its
 * target), head-on pairs and exact radii common; raw bits cover the rest. */
float cs_fuzz_float(reader *r) {
  static const float scales[16] = {0x1p-6f, 0.125f, 0.25f, 0.5f, 1.0f,  1.0f,
                                   1.0f,    1.0f,   2.0f,  4.0f, 10.0f, 100.0f,
                                   1e4f,    1e9f,   1e15f, 1e16f};
  uint8_t sel = rd_u8(r);
  if (sel < 32) return specials[sel % SPECIAL_COUNT];
  if (sel < 240) return (float)(int8_t)rd_u8(r) * scales[(sel - 32) % 16];
  uint32_t bits = rd_u32(r);
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

/* Parameters: mostly 0 (the default) or non-negative so that valid calls are
 * common; sometimes any value, which the library must reject when bad. */
float cs_fuzz_param(reader *r) {
  uint8_t sel = rd_u8(r);
  if (sel < 96) return 0.0f;
  if (sel < 232) return fabsf(cs_fuzz_float(r));
  return cs_fuzz_float(r);
}

float cs_fuzz_param_element(reader *r) {
  uint8_t sel = rd_u8(r);
  return sel < 250 ? fabsf(cs_fuzz_float(r)) : cs_fuzz_float(r);
}

/* ---- the arrays of one call ---------------------------------------------- */

enum field {
  F_PX,
  F_PY,
  F_PZ,
  F_VX,
  F_VY,
  F_VZ, /* agent state */
  F_TPX,
  F_TPY,
  F_TPZ,
  F_TVX,
  F_TVY,
  F_TVZ, /* target arrays */
  F_OX,
  F_OY,
  F_OZ, /* steering output */
  F_WX,
  F_WY,
  F_WZ, /* wander state */
  F_SX,
  F_SY,
  F_SZ, /* integrator's steering input */
  F_MAX_SPEED,
  F_MAX_FORCE,
  F_MASS,
  F_TARGET_RADIUS,
  F_SLOWING_RADIUS,
  F_PANIC_RADIUS,
  F_DANGER_RADIUS,
  F_ESCAPE_RADIUS,
  F_WANDER_RADIUS,
  F_WANDER_DISTANCE,
  F_WEIGHT, /* per-agent parameters */
  F_TIME_TO_TARGET,
  F_MAX_PREDICTION,
  F_JITTER,
  F_COUNT
};
enum { F_FIRST_PARAM = F_MAX_SPEED, VECTOR_FIELDS = F_MAX_SPEED };

static const char *const field_names[F_COUNT] = {"px",
                                                 "py",
                                                 "pz",
                                                 "vx",
                                                 "vy",
                                                 "vz",
                                                 "tpx",
                                                 "tpy",
                                                 "tpz",
                                                 "tvx",
                                                 "tvy",
                                                 "tvz",
                                                 "outx",
                                                 "outy",
                                                 "outz",
                                                 "wx",
                                                 "wy",
                                                 "wz",
                                                 "sx",
                                                 "sy",
                                                 "sz",
                                                 "max_speed",
                                                 "max_force",
                                                 "mass",
                                                 "target_radius",
                                                 "slowing_radius",
                                                 "panic_radius",
                                                 "danger_radius",
                                                 "escape_radius",
                                                 "wander_radius",
                                                 "wander_distance",
                                                 "weight",
                                                 "time_to_target",
                                                 "max_prediction",
                                                 "jitter"};

/* Each array is its own allocation of exactly `count` elements, so any read
 * or write past the batch is an AddressSanitizer report. */
typedef struct world {
  size_t count;
  float *f[F_COUNT];
  uint32_t *index;
  uint32_t *id; /* stable agent ids (used when the case says so) */
} world;

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

static void world_copy(world *dst, const world *src) {
  world_alloc(dst, src->count);
  for (int f = 0; f < F_COUNT; f++)
    if (src->count) memcpy(dst->f[f], src->f[f], src->count * sizeof(float));
  if (src->count) memcpy(dst->index, src->index, src->count * sizeof(uint32_t));
  if (src->count) memcpy(dst->id, src->id, src->count * sizeof(uint32_t));
}

static void world_free(world *w) {
  for (int f = 0; f < F_COUNT; f++)
    free(w->f[f]);
  free(w->index);
  free(w->id);
}

/* ---- the call --------------------------------------------------------------*/

/* The entry points the fuzzer calls: the behaviours with their own kernels,
 * by their crowdsteer_behaviour values (fuzz_neighbours.c has the others),
 * the integrator and the ISA functions. */
enum entry { E_INTEGRATE = CROWDSTEER_WANDER + 1, E_ISA, E_COUNT };

static const char *entry_name(int entry) {
  if (entry == E_INTEGRATE) return "integrate";
  if (entry == E_ISA) return "isa";
  return crowdsteer_behaviour_name((crowdsteer_behaviour)entry);
}

/* NULL-pointer choices: whole structs, then one bit per vector array. */
enum {
  N_AGENTS,
  N_TARGET,
  N_PARAMS,
  N_OUT,
  N_AUX,    /* AUX: wander state / steering */
  N_ARRAY0, /* + field, for F_PX .. F_SZ */
  N_INDEX = N_ARRAY0 + VECTOR_FIELDS,
  N_BITS
};

typedef struct fuzz_case {
  int entry, dims;
  size_t count, begin, end, split;
  int target_kind, mode;
  uint32_t nulls;     /* 1 << N_* */
  uint32_t per_agent; /* 1 << (field - F_FIRST_PARAM) */
  crowdsteer_params params;
  uint32_t agent; /* CROWDSTEER_TARGET_AGENT's index */
  float point[3], point_velocity[3], weight;
  uint32_t seed, tick;
  int nan_probe, nan_field;
  size_t nan_agent;
  int host_mode;      /* 0 .. CS_FUZZ_HOST_MODES - 1, for the call under test */
  int misalign_field; /* -1, a field, or F_COUNT for the indices */
  unsigned misalign_bytes;
  int id_mode; /* agents' ids: enum id_mode */
  /* One written array moved onto another array the call touches, where
   * they meet (overlap_of; the bytes pick which pair and where). */
  int overlap;
  uint8_t overlap_bytes[3];
} fuzz_case;

/* No ids (the index is the id), distinct ids, shared ids, or distinct ids
 * moved off their alignment (ALIGNMENT for the calls that read them). */
enum id_mode { IDS_NONE, IDS_DISTINCT, IDS_SHARED, IDS_MISALIGNED, ID_MODES };

static int is_null(const fuzz_case *c, int bit) { return (c->nulls >> bit) & 1u; }

static float *array_or_null(const fuzz_case *c, const world *w, int field) {
  return is_null(c, N_ARRAY0 + field) ? NULL : w->f[field];
}

static const float *param_array(const fuzz_case *c, const world *w, int field) {
  return (c->per_agent >> (field - F_FIRST_PARAM)) & 1u ? w->f[field] : NULL;
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

static int overlap_of(const fuzz_case *c, const world *w, int *field, uintptr_t *to);

/* Runs the case's entry point on `w` over [begin, end) on the active ISA. */
static crowdsteer_status call(const fuzz_case *c, world *w, size_t begin, size_t end) {
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

static crowdsteer_status guarded_call(const fuzz_case *c, world *w, size_t begin,
                                      size_t end) {
  guard_range(c, w, begin, end, 1);
  crowdsteer_status st = call(c, w, begin, end);
  guard_range(c, w, begin, end, 0);
  return st;
}

/* ---- decoding ---------------------------------------------------------------*/

void cs_fuzz_range(reader *r, size_t n, size_t *begin, size_t *end, size_t *split) {
  uint8_t how = rd_u8(r) % 8;
  *begin = 0;
  *end = n;
  if (how == 4) { /* a valid sub-range */
    *begin = rd_u8(r) % (n + 1);
    *end = *begin + rd_u8(r) % (n - *begin + 1);
  } else if (how == 5) { /* begin > end */
    *end = rd_u8(r) % (n + 1);
    *begin = *end + 1 + rd_u8(r) % 3;
  } else if (how == 6) { /* end > count */
    *end = n + 1 + rd_u8(r) % 4;
    *begin = rd_u8(r) % *end;
  } else if (how == 7) { /* near SIZE_MAX: overflow traps in range arithmetic */
    if (rd_u8(r) & 1) {
      *begin = 0;
      *end = SIZE_MAX - rd_u8(r) % 2;
    } else {
      *end = SIZE_MAX;
      *begin = SIZE_MAX - rd_u8(r) % 17;
    }
  }
  *split = *begin;
  if (*begin <= *end && *end <= n) *split = *begin + rd_u8(r) % (*end - *begin + 1);
}

static void decode_case(reader *r, fuzz_case *c, world *w, int *isa) {
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

/* ---- overlapping arrays ------------------------------------------------------*/

void cs_fuzz_add_extent(cs_fuzz_extent *e, int *n, int id, const void *array, int written,
                        size_t first, size_t last) {
  const uintptr_t base = (uintptr_t)array;
  if (!array || first >= last) return;
  cs_fuzz_extent *x = &e[*n];
  for (int j = 0; j < *n; j++) /* another interval of an array listed already */
    if (e[j].base == base && e[j].written == written && e[j].n < 3) x = &e[j];
  if (x == &e[*n]) {
    memset(x, 0, sizeof *x);
    x->id = id;
    x->base = base;
    x->written = written;
    (*n)++;
  }
  x->first[x->n] = first;
  x->last[x->n] = last;
  x->n++;
}

/* Whether [begin, end) of a written array starting `shift` elements from
 * o's start lands on an element o touches. */
static int meets(const cs_fuzz_extent *o, size_t begin, size_t end, long shift) {
  for (int j = 0; j < o->n; j++)
    if ((long)begin + shift < (long)o->last[j] && (long)o->first[j] < (long)end + shift)
      return 1;
  return 0;
}

int cs_fuzz_pick_overlap(const cs_fuzz_extent *e, int n, size_t begin, size_t end,
                         size_t count, const uint8_t bytes[3], int *moved_id,
                         uintptr_t *moved_to) {
  int written = 0;
  for (int j = 0; j < n; j++)
    written += e[j].written;
  if (!written || n < 2 || begin >= end || end > count) return 0;
  int pick = bytes[0] % written, w = 0;
  for (; w < n; w++)
    if (e[w].written && pick-- == 0) break;
  const cs_fuzz_extent *o = &e[(w + 1 + bytes[1] % (n - 1)) % n];
  const long lo = -(long)begin, hi = (long)(count - end);
  long matches = 0;
  for (long s = lo; s <= hi; s++)
    matches += meets(o, begin, end, s);
  long chosen = matches ? bytes[2] % matches : -1;
  for (long s = lo; s <= hi && chosen >= 0; s++) {
    if (!meets(o, begin, end, s) || chosen-- != 0) continue;
    *moved_id = e[w].id;
    *moved_to = o->base + (uintptr_t)(s * (long)sizeof(float));
    return 1;
  }
  return 0;
}

/* ---- the oracle: which statuses docs/behaviours.md §9 allows ------------- */

#define ERR(code) (1u << (code))

static int nonneg(float x) { return x >= 0.0f; }
static int nonneg_finite(float x) { return x >= 0.0f && x <= FLT_MAX; }
static int positive(float x) { return x > 0.0f; }
static int finite(float x) { return x >= -FLT_MAX && x <= FLT_MAX; }

/* The parameter in effect (uniform with 0 meaning `dflt`, or per-agent
 * literally) passes `ok` for every agent of the range. */
static int param_ok(const fuzz_case *c, const world *w, float uniform, int field,
                    float dflt, int (*ok)(float)) {
  const float *a = field >= 0 ? param_array(c, w, field) : NULL;
  if (!a) return ok(uniform == 0.0f ? dflt : uniform);
  for (size_t i = c->begin; i < c->end; i++)
    if (!ok(a[i])) return 0;
  return 1;
}

static unsigned inputs_of(int entry) {
  return entry < E_INTEGRATE ? crowdsteer_behaviour_inputs((crowdsteer_behaviour)entry)
                             : 0;
}
static int targeted(int entry) {
  return (inputs_of(entry) & CROWDSTEER_INPUT_TARGET) != 0;
}
static int with_velocity(int entry) {
  return (inputs_of(entry) & CROWDSTEER_INPUT_TARGET_VELOCITY) != 0;
}

static int vectors_null(const fuzz_case *c, int first, int dims) {
  for (int k = 0; k < dims; k++)
    if (is_null(c, N_ARRAY0 + first + k)) return 1;
  return 0;
}

/* Whether a call on a non-empty range uses the array of `field` (F_COUNT:
 * the indices), decided like its NULL rule: 1 it must (a misaligned one is
 * then an error), 2 it may (wander's positions), 0 it does not. */
static int uses_array(const fuzz_case *c, int field) {
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
static int overlap_of(const fuzz_case *c, const world *w, int *field, uintptr_t *to) {
  if (!c->overlap || is_null(c, N_AGENTS) || c->entry >= E_ISA) return 0;
  if ((c->dims != 2 && c->dims != 3) || c->begin >= c->end || c->end > c->count) return 0;
  cs_fuzz_extent e[F_COUNT + 8];
  const int n = call_extents(c, w, e);
  return cs_fuzz_pick_overlap(e, n, c->begin, c->end, c->count, c->overlap_bytes, field,
                              to);
}

/* The output's faults (every entry point but the integrator's). */
static unsigned output_errors(const fuzz_case *c, const world *w, int nonempty,
                              unsigned req) {
  const int dims = c->dims;
  if (c->entry != E_INTEGRATE) {
    if (is_null(c, N_OUT))
      req |= ERR(CROWDSTEER_ERROR_NULL_POINTER);
    else {
      if (nonempty && vectors_null(c, F_OX, dims))
        req |= ERR(CROWDSTEER_ERROR_NULL_POINTER);
      if (c->mode != CROWDSTEER_OVERWRITE && c->mode != CROWDSTEER_ACCUMULATE)
        req |= ERR(CROWDSTEER_ERROR_PARAMETER);
      if (c->mode == CROWDSTEER_ACCUMULATE && !(req & ERR(CROWDSTEER_ERROR_RANGE))) {
        const float *wa = param_array(c, w, F_WEIGHT);
        int ok = 1;
        if (wa) {
          for (size_t i = c->begin; i < c->end; i++)
            ok &= finite(wa[i]);
        } else {
          ok = finite(c->weight);
        }
        if (!ok) req |= ERR(CROWDSTEER_ERROR_PARAMETER);
      }
    }
  }
  return req;
}

/* The target's faults (the behaviours that take one). */
static unsigned target_errors(const fuzz_case *c, const world *w, int nonempty,
                              unsigned req) {
  const int dims = c->dims;
  if (targeted(c->entry)) {
    if (is_null(c, N_TARGET)) {
      req |= ERR(CROWDSTEER_ERROR_NULL_POINTER);
    } else if (c->target_kind == CROWDSTEER_TARGET_ARRAYS) {
      if (nonempty && (vectors_null(c, F_TPX, dims) ||
                       (with_velocity(c->entry) && vectors_null(c, F_TVX, dims))))
        req |= ERR(CROWDSTEER_ERROR_NULL_POINTER);
    } else if (c->target_kind == CROWDSTEER_TARGET_AGENT) {
      if (nonempty && c->agent >= c->count) req |= ERR(CROWDSTEER_ERROR_AGENT_INDEX);
    } else if (c->target_kind == CROWDSTEER_TARGET_AGENTS) {
      if (nonempty && is_null(c, N_INDEX))
        req |= ERR(CROWDSTEER_ERROR_NULL_POINTER);
      else if (nonempty)
        for (size_t i = c->begin; i < c->end; i++)
          if (w->index[i] >= c->count) req |= ERR(CROWDSTEER_ERROR_AGENT_INDEX);
    } else if (c->target_kind != CROWDSTEER_TARGET_POINT) {
      req |= ERR(CROWDSTEER_ERROR_PARAMETER);
    } else {
      /* A shared target point is a parameter: it must be finite. */
      for (int k = 0; k < dims; k++)
        if (!(fabsf(c->point[k]) <= FLT_MAX) ||
            (with_velocity(c->entry) && !(fabsf(c->point_velocity[k]) <= FLT_MAX)))
          req |= ERR(CROWDSTEER_ERROR_PARAMETER);
    }
  }
  return req;
}

/* Whether the parameters the entry point uses are valid (over a valid range). */
static int params_ok(const fuzz_case *c, const world *w) {
  const crowdsteer_params *p = &c->params;
  const float inf = INFINITY;
  int ok = 1;
  const int e = c->entry;
  if (e != CROWDSTEER_WANDER)
    ok &= param_ok(c, w, p->max_speed, F_MAX_SPEED, 1.0f, nonneg_finite);
  if (targeted(e))
    ok &= param_ok(c, w, p->time_to_target, F_TIME_TO_TARGET, 1.0f, positive);
  if (e == CROWDSTEER_ARRIVE) {
    ok &= param_ok(c, w, p->target_radius, F_TARGET_RADIUS, 0.0f, nonneg);
    ok &= param_ok(c, w, p->slowing_radius, F_SLOWING_RADIUS, 0.0f, nonneg);
  }
  if (e == CROWDSTEER_FLEE || e == CROWDSTEER_EVADE)
    ok &= param_ok(c, w, p->panic_radius, F_PANIC_RADIUS, inf, nonneg);
  if (e == CROWDSTEER_LEAVE) {
    ok &= param_ok(c, w, p->danger_radius, F_DANGER_RADIUS, 0.0f, nonneg);
    ok &= param_ok(c, w, p->escape_radius, F_ESCAPE_RADIUS, 0.0f, nonneg);
  }
  if (e == CROWDSTEER_PURSUIT || e == CROWDSTEER_EVADE)
    ok &= param_ok(c, w, p->max_prediction, F_MAX_PREDICTION, inf, nonneg);
  if (e == CROWDSTEER_WANDER) {
    ok &= param_ok(c, w, p->wander_radius, F_WANDER_RADIUS, 0.0f, nonneg_finite);
    ok &= param_ok(c, w, p->wander_distance, F_WANDER_DISTANCE, 0.0f, nonneg_finite);
    ok &= param_ok(c, w, p->jitter, F_JITTER, 0.0f, nonneg_finite);
  }
  if (e == E_INTEGRATE) {
    ok &= param_ok(c, w, p->max_force, F_MAX_FORCE, inf, nonneg);
    ok &= param_ok(c, w, p->mass, F_MASS, 1.0f, positive);
    ok &= param_ok(c, w, p->dt, -1, 1.0f, nonneg_finite);
  }
  return ok;
}

/* `required`: the call must fail with one of these (0: it must succeed);
 * `optional`: also acceptable (checks whose order behaviours.md §9 leaves open, and
 * strictness the header does not promise, e.g. NULL params). */
static void expected_errors(const fuzz_case *c, const world *w, unsigned *required,
                            unsigned *optional) {
  unsigned req = 0, opt = 0;
  *required = *optional = 0;
  if (is_null(c, N_AGENTS)) {
    *required = ERR(CROWDSTEER_ERROR_NULL_POINTER);
    return; /* nothing else can be judged without the agents */
  }
  if (c->dims != 2 && c->dims != 3) {
    /* Without valid dims the other checks are meaningless: any error will do. */
    *required = ERR(CROWDSTEER_ERROR_DIMS);
    *optional = ~0u & ~ERR(CROWDSTEER_OK);
    return;
  }
  if (c->begin > c->end || c->end > c->count) req |= ERR(CROWDSTEER_ERROR_RANGE);
  const int dims = c->dims;
  const int nonempty = c->begin < c->end && !(req & ERR(CROWDSTEER_ERROR_RANGE));
  if (nonempty && (vectors_null(c, F_VX, dims)))
    req |= ERR(CROWDSTEER_ERROR_NULL_POINTER);
  if (nonempty && vectors_null(c, F_PX, dims)) {
    /* Wander never reads positions; rejecting them there is allowed, not promised. */
    if (c->entry == CROWDSTEER_WANDER)
      opt |= ERR(CROWDSTEER_ERROR_NULL_POINTER);
    else
      req |= ERR(CROWDSTEER_ERROR_NULL_POINTER);
  }
  if (is_null(c, N_PARAMS)) opt |= ERR(CROWDSTEER_ERROR_NULL_POINTER);
  req = output_errors(c, w, nonempty, req);
  req = target_errors(c, w, nonempty, req);
  if (c->entry == CROWDSTEER_WANDER) {
    if (is_null(c, N_AUX))
      req |= ERR(CROWDSTEER_ERROR_NULL_POINTER);
    else if (nonempty && vectors_null(c, F_WX, dims))
      req |= ERR(CROWDSTEER_ERROR_NULL_POINTER);
  }
  if (c->entry == E_INTEGRATE) {
    if (is_null(c, N_AUX))
      req |= ERR(CROWDSTEER_ERROR_NULL_POINTER);
    else if (nonempty && vectors_null(c, F_SX, dims))
      req |= ERR(CROWDSTEER_ERROR_NULL_POINTER);
  }
  /* Parameters: only the fields the entry point uses, only over a valid range. */
  if (!is_null(c, N_PARAMS) && !(req & ERR(CROWDSTEER_ERROR_RANGE)) && !params_ok(c, w))
    req |= ERR(CROWDSTEER_ERROR_PARAMETER);
  /* An array the call uses must be aligned to 4 bytes (ids: wander's). */
  if (nonempty && c->id_mode == IDS_MISALIGNED && c->entry == CROWDSTEER_WANDER)
    req |= ERR(CROWDSTEER_ERROR_ALIGNMENT);
  if (nonempty && c->misalign_field >= 0) {
    const int use = uses_array(c, c->misalign_field);
    if (use == 1) req |= ERR(CROWDSTEER_ERROR_ALIGNMENT);
    if (use == 2) opt |= ERR(CROWDSTEER_ERROR_ALIGNMENT);
  }
  int moved;
  uintptr_t to;
  if (overlap_of(c, w, &moved, &to)) {
    req |= ERR(CROWDSTEER_ERROR_OVERLAP);
    cs_fuzz_counters.overlaps++;
  }
  *required = req;
  *optional = opt;
}

/* ---- what a call may write --------------------------------------------------*/

static int field_written(const fuzz_case *c, int f) {
  int axis_ok = f < VECTOR_FIELDS && (f % 3) < c->dims;
  if (!axis_ok) return 0;
  if (c->entry == E_INTEGRATE) return f <= F_VZ;
  if (f >= F_OX && f <= F_OZ) return 1;
  return c->entry == CROWDSTEER_WANDER && f >= F_WX && f <= F_WZ;
}

/* Fields whose values a valid call reads, for the finite-range premise. */
static int field_read(const fuzz_case *c, int f) {
  if (f >= VECTOR_FIELDS || (f % 3) >= c->dims) return 0;
  if (f <= F_PZ) return c->entry != CROWDSTEER_WANDER;
  if (f <= F_VZ) return 1;
  if (f <= F_TPZ) return targeted(c->entry) && c->target_kind == CROWDSTEER_TARGET_ARRAYS;
  if (f <= F_TVZ)
    return with_velocity(c->entry) && c->target_kind == CROWDSTEER_TARGET_ARRAYS;
  if (f <= F_OZ) return c->entry != E_INTEGRATE && c->mode == CROWDSTEER_ACCUMULATE;
  if (f <= F_WZ) return c->entry == CROWDSTEER_WANDER;
  return c->entry == E_INTEGRATE;
}

int cs_fuzz_same_bits(float a, float b) {
  if (a != a && b != b) return 1;
  return memcmp(&a, &b, sizeof a) == 0;
}

static void fail_header(const fuzz_case *c, int isa, const char *what) {
  fprintf(stderr,
          "crowdsteer fuzz: %s: %s on %s, dims %d, count %zu, range [%zu, %zu), "
          "target kind %d (agent %u), mode %d, nulls 0x%x, per-agent 0x%x, host mode %d, "
          "misaligned %s by %u, ids %d\n",
          what, entry_name(c->entry), crowdsteer_isa_name((crowdsteer_isa)isa), c->dims,
          c->count, c->begin, c->end, c->target_kind, (unsigned)c->agent, c->mode,
          (unsigned)c->nulls, (unsigned)c->per_agent, c->host_mode,
          c->misalign_field < 0         ? "nothing"
          : c->misalign_field < F_COUNT ? field_names[c->misalign_field]
                                        : "index",
          c->misalign_bytes, c->id_mode);
}

/* Every byte outside what the call may write (all of them when `written` is
 * 0) is as before. Exact bytes: even a NaN must keep its payload. */
static int check_untouched(const fuzz_case *c, int isa, const world *before,
                           const world *after, size_t begin, size_t end, int written,
                           const char *what) {
  for (int f = 0; f < F_COUNT; f++) {
    int may_write = written && field_written(c, f);
    for (size_t i = 0; i < c->count; i++) {
      if (may_write && i >= begin && i < end) continue;
      if (memcmp(&before->f[f][i], &after->f[f][i], sizeof(float)) != 0) {
        fail_header(c, isa, what);
        fprintf(stderr, "  %s[%zu] changed from %a to %a\n", field_names[f], i,
                (double)before->f[f][i], (double)after->f[f][i]);
        return 1;
      }
    }
  }
  if (c->count && memcmp(before->index, after->index, c->count * sizeof(uint32_t)) != 0) {
    fail_header(c, isa, what);
    fprintf(stderr, "  target index array changed\n");
    return 1;
  }
  return 0;
}

/* The written arrays agree (NaN == NaN) on [begin, end), except agents for
 * which `skip` says so. */
static int check_same_output(const fuzz_case *c, int isa, const world *want,
                             const world *got, const unsigned char *skip,
                             const char *what) {
  for (int f = 0; f < VECTOR_FIELDS; f++) {
    if (!field_written(c, f)) continue;
    for (size_t i = c->begin; i < c->end; i++) {
      if (skip && skip[i]) continue;
      if (!cs_fuzz_same_bits(want->f[f][i], got->f[f][i])) {
        fail_header(c, isa, what);
        fprintf(stderr, "  %s[%zu]: expected %a (%.9g), got %a (%.9g)\n", field_names[f],
                i, (double)want->f[f][i], (double)want->f[f][i], (double)got->f[f][i],
                (double)got->f[f][i]);
        return 1;
      }
    }
  }
  return 0;
}

/* The finite-output premise: every state value the call reads is finite and
 * within behaviours.md §10's 1e18, the parameters "sane" (see docs/guarantees.md):
 * magnitudes for which the formulas themselves cannot overflow. */
#define STATE_BOUND 1e18f
#define SANE_SPEED 1e6f

static int in_state_range(float x) { return x >= -STATE_BOUND && x <= STATE_BOUND; }

static int all_within(const float *a, size_t begin, size_t end, float lo, float hi) {
  if (!a) return 1;
  for (size_t i = begin; i < end; i++)
    if (!(a[i] >= lo && a[i] <= hi)) return 0;
  return 1;
}

static int effective_within(const fuzz_case *c, const world *w, float uniform, int field,
                            float dflt, float lo, float hi) {
  const float *a = field >= 0 ? param_array(c, w, field) : NULL;
  if (a) return all_within(a, c->begin, c->end, lo, hi);
  float x = uniform == 0.0f ? dflt : uniform;
  return x >= lo && x <= hi;
}

static int inputs_in_range(const fuzz_case *c, const world *w) {
  for (int f = 0; f < VECTOR_FIELDS; f++) {
    if (!field_read(c, f)) continue;
    for (size_t i = 0; i < c->count; i++)
      if (!in_state_range(w->f[f][i])) return 0;
  }
  if (targeted(c->entry) && c->target_kind == CROWDSTEER_TARGET_POINT)
    for (int k = 0; k < c->dims; k++)
      if (!in_state_range(c->point[k]) || !in_state_range(c->point_velocity[k])) return 0;
  const crowdsteer_params *p = &c->params;
  const int e = c->entry;
  int ok = 1;
  if (e != CROWDSTEER_WANDER)
    ok &= effective_within(c, w, p->max_speed, F_MAX_SPEED, 1, 0, SANE_SPEED);
  if (targeted(e))
    ok &= effective_within(c, w, p->time_to_target, F_TIME_TO_TARGET, 1, 1e-3f, INFINITY);
  if (e == CROWDSTEER_WANDER) {
    ok &= effective_within(c, w, p->wander_radius, F_WANDER_RADIUS, 0, 0, SANE_SPEED);
    ok &= effective_within(c, w, p->wander_distance, F_WANDER_DISTANCE, 0, 0, SANE_SPEED);
    ok &= effective_within(c, w, p->jitter, F_JITTER, 0, 0, SANE_SPEED);
  }
  if (e == E_INTEGRATE) {
    ok &= effective_within(c, w, p->mass, F_MASS, 1, 1e-3f, INFINITY);
    ok &= effective_within(c, w, p->dt, -1, 1, 0, 1e3f);
  }
  if (e != E_INTEGRATE && c->mode == CROWDSTEER_ACCUMULATE)
    ok &= effective_within(c, w, c->weight, F_WEIGHT, c->weight, -SANE_SPEED, SANE_SPEED);
  return ok;
}

static int check_finite(const fuzz_case *c, int isa, const world *got) {
  for (int f = 0; f < VECTOR_FIELDS; f++) {
    if (!field_written(c, f)) continue;
    for (size_t i = c->begin; i < c->end; i++) {
      float x = got->f[f][i];
      if (!(x >= -FLT_MAX && x <= FLT_MAX)) {
        fail_header(c, isa, "non-finite output from in-range input");
        fprintf(stderr, "  %s[%zu] = %a\n", field_names[f], i, (double)x);
        return 1;
      }
    }
  }
  return 0;
}

/* Poisons one state value of one agent with NaN; only that agent and agents
 * that target it may change. Returns 0 when the case offers nothing to poison. */
static int nan_probe(const fuzz_case *c, int isa, const world *w0, const world *base) {
  int candidates[VECTOR_FIELDS], n = 0;
  for (int f = 0; f < VECTOR_FIELDS; f++)
    if (field_read(c, f)) candidates[n++] = f;
  if (!n || !c->count) return 0;
  int f = candidates[c->nan_field % n];
  size_t j = c->nan_agent;
  world d;
  world_copy(&d, w0);
  d.f[f][j] = NAN;
  int failed = 0;
  crowdsteer_status st = call(c, &d, c->begin, c->end);
  if (st != CROWDSTEER_OK) {
    fail_header(c, isa, "NaN in agent state made a valid call fail");
    fprintf(stderr, "  %s[%zu] = NaN gave status %d\n", field_names[f], j, (int)st);
    failed = 1;
  } else {
    unsigned char *skip = (unsigned char *)calloc(c->count, 1);
    if (!skip) abort();
    skip[j] = 1;
    int gathered =
        f <= F_VZ && targeted(c->entry) && c->target_kind == CROWDSTEER_TARGET_AGENTS;
    int single = f <= F_VZ && targeted(c->entry) &&
                 c->target_kind == CROWDSTEER_TARGET_AGENT && c->agent == j;
    for (size_t i = c->begin; (gathered || single) && i < c->end; i++)
      if (single || w0->index[i] == j) skip[i] = 1;
    failed = check_same_output(c, isa, base, &d, skip, "NaN leaked to another agent");
    if (failed) fprintf(stderr, "  (poisoned %s[%zu])\n", field_names[f], j);
    free(skip);
    cs_fuzz_counters.nan_probes++;
  }
  world_free(&d);
  return failed;
}

/* ---- the ISA / utility entry points ---------------------------------------*/

static int fuzz_isa_functions(reader *r) {
  int failed = 0;
  crowdsteer_isa before = crowdsteer_active_isa();
  uint8_t sel = rd_u8(r);
  int v = sel < 200 ? (int)(sel % 8) - 1 : (int)rd_u32(r);
  crowdsteer_isa isa = (crowdsteer_isa)v;
  const char *name = crowdsteer_isa_name(isa);
  int known = v >= 0 && v < CROWDSTEER_ISA_COUNT;
  int supported = crowdsteer_isa_supported(isa);
  if (!name || (!known && strcmp(name, "unknown") != 0) || (!known && supported)) {
    fprintf(stderr, "crowdsteer fuzz: isa_name/isa_supported wrong for %d\n", v);
    failed = 1;
  }
  crowdsteer_status st = crowdsteer_force_isa(isa);
  crowdsteer_status want = !known       ? CROWDSTEER_ERROR_UNKNOWN_ISA
                           : !supported ? CROWDSTEER_ERROR_UNSUPPORTED_ISA
                                        : CROWDSTEER_OK;
  crowdsteer_isa now = crowdsteer_active_isa();
  if (st != want || now != (st == CROWDSTEER_OK ? isa : before)) {
    fprintf(stderr, "crowdsteer fuzz: force_isa(%d) returned %d, active %d (was %d)\n", v,
            (int)st, (int)now, (int)before);
    failed = 1;
  }
  char buffer[16];
  size_t len = rd_u8(r) % sizeof buffer;
  for (size_t i = 0; i < len; i++)
    buffer[i] = (char)rd_u8(r);
  buffer[len] = '\0';
  if (rd_u8(r) % 4 == 0) { /* a real name, so the OK path is common */
    const char *real =
        crowdsteer_isa_name((crowdsteer_isa)(rd_u8(r) % CROWDSTEER_ISA_COUNT));
    snprintf(buffer, sizeof buffer, "%s", real);
  }
  crowdsteer_isa parsed = (crowdsteer_isa)-1;
  uint8_t nulls = rd_u8(r) % 8;
  st = crowdsteer_isa_from_name(nulls == 0 ? NULL : buffer, nulls == 1 ? NULL : &parsed);
  if (nulls <= 1) {
    if (st != CROWDSTEER_ERROR_NULL_POINTER) failed = 1;
  } else if (st == CROWDSTEER_OK) {
    if ((unsigned)parsed >= CROWDSTEER_ISA_COUNT ||
        strcmp(crowdsteer_isa_name(parsed), buffer) != 0)
      failed = 1;
  } else if (st != CROWDSTEER_ERROR_UNKNOWN_ISA) {
    failed = 1;
  }
  if (failed)
    fprintf(stderr, "crowdsteer fuzz: isa_from_name wrong for \"%s\"\n", buffer);
  const char *text = crowdsteer_status_string((crowdsteer_status)(int)rd_u32(r));
  if (!text || !*text) {
    fprintf(stderr, "crowdsteer fuzz: empty status string\n");
    failed = 1;
  }
  uint32_t seed = rd_u32(r), index = rd_u32(r), tick = rd_u32(r), axis = rd_u32(r);
  float x = crowdsteer_random(seed, index, tick, axis);
  float scaled = x * 0x1p23f;
  if (!(x >= -1.0f && x < 1.0f) || scaled != (float)(int32_t)scaled) {
    fprintf(stderr, "crowdsteer fuzz: random(%u, %u, %u, %u) = %a\n", seed, index, tick,
            axis, (double)x);
    failed = 1;
  }
  if (crowdsteer_version() != CROWDSTEER_VERSION_NUMBER || !crowdsteer_version_string())
    failed = 1;
  crowdsteer_force_isa(before);
  return failed;
}

/* ---- one case ---------------------------------------------------------------*/

enum { STEP_FIRST_BYTE = 0xB0 };

/* Properties, for the behaviours and the integrator (crowdsteer_step: see
 * fuzz_step.c):
 *  1. no crash and no sanitizer report (the harness's job);
 *  2. the status is one docs/behaviours.md §9 allows for the input (oracle);
 *  3. a failed call leaves every array byte-for-byte unchanged;
 *  4. a valid call writes only its outputs, only on [begin, end);
 *  5. a valid call is bit-identical to the scalar reference (NaN == NaN);
 *  6. splitting the range in two gives the same bits;
 *  7. finite in-range input gives finite output;
 *  8. a NaN in one agent's state changes no other agent's output (except
 *     agents that target it). */
/* The checks of a call the library accepted (`a`, from `w0`): the scalar
 * reference and a split range give the same bits, finite inputs give finite
 * outputs, a NaN stays with its agent. */
static int check_accepted_call(const fuzz_case *c, int isa, const world *w0, world *a,
                               int failed) {
  world ref;
  world_copy(&ref, w0);
  crowdsteer_force_isa(CROWDSTEER_ISA_SCALAR);
  crowdsteer_status st = guarded_call(c, &ref, c->begin, c->end);
  crowdsteer_force_isa((crowdsteer_isa)isa);
  if (st != CROWDSTEER_OK) {
    fail_header(c, isa, "the scalar reference rejected a call the ISA accepted");
    failed = 1;
  } else {
    failed |=
        check_same_output(c, isa, &ref, a, NULL, "differs from the scalar reference");
  }

  world split;
  world_copy(&split, w0);
  crowdsteer_status s1 = guarded_call(c, &split, c->split, c->end);
  crowdsteer_status s2 = guarded_call(c, &split, c->begin, c->split);
  if (s1 != CROWDSTEER_OK || s2 != CROWDSTEER_OK) {
    fail_header(c, isa, "a piece of a valid range was rejected");
    failed = 1;
  } else {
    failed |= check_same_output(c, isa, a, &split, NULL, "split range differs");
  }

  if (inputs_in_range(c, w0)) {
    cs_fuzz_counters.finite_checked++;
    failed |= check_finite(c, isa, a);
  }
  if (c->nan_probe && c->begin < c->end) failed |= nan_probe(c, isa, w0, a);

  world_free(&split);
  world_free(&ref);
  return failed;
}

int cs_fuzz_one(const uint8_t *data, size_t size, int isa_override) {
  reader r = {data, size, 0, 0x5EEDull + size};
  fuzz_case c;
  world w0;
  int isa;
  cs_fuzz_counters.calls++;
  /* crowdsteer_step takes first bytes >= STEP_FIRST_BYTE (a third of the
   * space); below it the single entry points decode exactly as before the
   * step was fuzzed, so saved corpora and findings keep their meaning. */
  if (size && data[0] >= STEP_FIRST_BYTE) {
    r.pos = 1;
    return cs_fuzz_step(&r, isa_override);
  }
  if (size && data[0] % E_COUNT == E_ISA) {
    r.pos = 1;
    return fuzz_isa_functions(&r);
  }
  decode_case(&r, &c, &w0, &isa);
  if (isa_override >= 0) isa = isa_override;
  if (!crowdsteer_isa_supported((crowdsteer_isa)isa)) isa = CROWDSTEER_ISA_SCALAR;
  if (crowdsteer_force_isa((crowdsteer_isa)isa) != CROWDSTEER_OK) abort();

  world a;
  world_copy(&a, &w0);
  /* The call under test runs in the case's host mode, every other call in
   * the default one: the bits must not see the difference. */
  cs_fuzz_set_host_mode(c.host_mode);
  const unsigned long long mode_before = cs_fuzz_host_mode();
  crowdsteer_status st = guarded_call(&c, &a, c.begin, c.end);
  const unsigned long long mode_after = cs_fuzz_host_mode();
  cs_fuzz_set_host_mode(0);
  int failed = 0;
  if (mode_after != mode_before) {
    fail_header(&c, isa, "the call changed the host's floating-point mode");
    fprintf(stderr, "  host mode %d: 0x%llx before, 0x%llx after\n", c.host_mode,
            mode_before, mode_after);
    failed = 1;
  }
  unsigned required, optional;
  expected_errors(&c, &w0, &required, &optional);
  int allowed = st == CROWDSTEER_OK ? required == 0 : ((required | optional) >> st) & 1u;
  if (!allowed) {
    fail_header(&c, isa, "unexpected status");
    fprintf(stderr, "  got %d (%s); required mask 0x%x, optional mask 0x%x\n", (int)st,
            crowdsteer_status_string(st), required, optional);
    failed = 1;
  }
  if (st != CROWDSTEER_OK) {
    cs_fuzz_counters.rejected++;
    failed |= check_untouched(&c, isa, &w0, &a, 0, 0, 0, "failed call wrote");
    world_free(&a);
    world_free(&w0);
    return failed;
  }
  cs_fuzz_counters.accepted++;
  failed |= check_untouched(&c, isa, &w0, &a, c.begin, c.end, 1,
                            "valid call wrote outside its outputs or range");

  failed = check_accepted_call(&c, isa, &w0, &a, failed);
  world_free(&a);
  world_free(&w0);
  return failed;
}
