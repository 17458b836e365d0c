/* Decodes fuzzer bytes into one crowdsteer_step call (valid or not), builds
 * the structs it passes and runs it, guarded (fuzz_step.c checks it). */
#define _POSIX_C_SOURCE 200809L /* pthread_attr_setstack */
#include "fuzz_step_call.h"

#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int list_buffers(sworld *w, bufref *out) {
  int n = 0;
#define ADD(ptr, r, bb, ax) (out[n++] = (bufref){(void **)&(ptr), (r), (bb), (ax)})
  for (int a = 0; a < 6; a++)
    ADD(w->agent[a], R_AGENT, -1, a);
  for (int a = 0; a < 6; a++)
    ADD(w->output[a], R_OUTPUT, -1, a);
  for (int a = 0; a < 6; a++)
    ADD(w->snap[a], R_SNAP, -1, a);
  for (int p = 0; p < P_COUNT; p++)
    ADD(w->iparam[p], R_IPARAM, -1, p);
  ADD(w->mask, R_MASK, -1, 0);
  for (int b = 0; b < MAXB; b++) {
    bworld *x = &w->b[b];
    for (int k = 0; k < 3; k++)
      ADD(x->tpos[k], R_TPOS, b, k);
    for (int k = 0; k < 3; k++)
      ADD(x->tvel[k], R_TVEL, b, k);
    for (int k = 0; k < 3; k++)
      ADD(x->wdir[k], R_WDIR, b, k);
    for (int p = 0; p < P_COUNT; p++)
      ADD(x->param[p], R_PARAM, b, p);
    ADD(x->weight, R_WEIGHT, b, 0);
    ADD(x->index, R_INDEX, b, 0);
  }
#undef ADD
  return n;
}

static void *alloc_array(size_t count) {
  /* One byte for an empty batch: a non-NULL pointer whose element 0 is
   * already out of bounds. */
  void *p = malloc(count ? count * ELEM : 1);
  if (!p) abort();
  return p;
}

static float *new_floats(size_t count) { return (float *)alloc_array(count); }

void sworld_copy(sworld *dst, const sworld *src) {
  bufref s[MAX_BUFS], d[MAX_BUFS];
  *dst = *src;
  int n = list_buffers((sworld *)src, s);
  list_buffers(dst, d);
  for (int j = 0; j < n; j++) {
    if (!*s[j].slot) continue;
    *d[j].slot = alloc_array(src->count);
    if (src->count) memcpy(*d[j].slot, *s[j].slot, src->count * ELEM);
  }
}

void sworld_free(sworld *w) {
  bufref l[MAX_BUFS];
  int n = list_buffers(w, l);
  for (int j = 0; j < n; j++)
    free(*l[j].slot);
}

/* Tame values: any float made valid for every rule of its parameter (0 is
 * the default for uniform values; per-agent mass must be positive; speeds
 * and wander sizes finite). */
static float tame_value(float x) {
  x = fabsf(x);
  return x <= FLT_MAX ? x : 0.0f;
}

static float tame_element(int p, float x) {
  x = fabsf(x);
  if (x != x) x = 0.0f;
  if ((p == P_MASS || p == P_TIME_TO_TARGET) && x == 0.0f) x = 1.0f;
  if ((p == P_MAX_SPEED || p == P_WANDER_RADIUS || p == P_WANDER_DISTANCE ||
       p == P_JITTER) &&
      x > FLT_MAX)
    x = 0.0f;
  return x;
}

static void tame_params(crowdsteer_params *p) {
  float *uniform[] = {
      &p->max_speed,       &p->max_force,     &p->mass,           &p->dt,
      &p->time_to_target,  &p->target_radius, &p->slowing_radius, &p->panic_radius,
      &p->danger_radius,   &p->escape_radius, &p->max_prediction, &p->wander_radius,
      &p->wander_distance, &p->jitter};
  for (size_t i = 0; i < sizeof uniform / sizeof uniform[0]; i++)
    *uniform[i] = tame_value(*uniform[i]);
}

static void decode_params(reader *r, crowdsteer_params *p, uint32_t *per_agent) {
  float *uniform[] = {
      &p->max_speed,       &p->max_force,     &p->mass,           &p->dt,
      &p->time_to_target,  &p->target_radius, &p->slowing_radius, &p->panic_radius,
      &p->danger_radius,   &p->escape_radius, &p->max_prediction, &p->wander_radius,
      &p->wander_distance, &p->jitter};
  memset(p, 0, sizeof *p);
  for (size_t i = 0; i < sizeof uniform / sizeof uniform[0]; i++)
    *uniform[i] = cs_fuzz_param(r);
  *per_agent = 0;
  if (rd_u8(r) % 3 == 0)
    *per_agent = ((uint32_t)rd_u8(r) << 8 | rd_u8(r)) & ((1u << P_COUNT) - 1);
}

static void attach_params(crowdsteer_params *p, float *const arrays[P_COUNT]) {
  p->max_speed_per_agent = arrays[P_MAX_SPEED];
  p->max_force_per_agent = arrays[P_MAX_FORCE];
  p->mass_per_agent = arrays[P_MASS];
  p->target_radius_per_agent = arrays[P_TARGET_RADIUS];
  p->slowing_radius_per_agent = arrays[P_SLOWING_RADIUS];
  p->panic_radius_per_agent = arrays[P_PANIC_RADIUS];
  p->danger_radius_per_agent = arrays[P_DANGER_RADIUS];
  p->escape_radius_per_agent = arrays[P_ESCAPE_RADIUS];
  p->wander_radius_per_agent = arrays[P_WANDER_RADIUS];
  p->wander_distance_per_agent = arrays[P_WANDER_DISTANCE];
  p->time_to_target_per_agent = arrays[P_TIME_TO_TARGET];
  p->max_prediction_per_agent = arrays[P_MAX_PREDICTION];
  p->jitter_per_agent = arrays[P_JITTER];
}

static void decode_behaviour(reader *r, bcase *b) {
  static const int bad_kinds[] = {7, -1, 100, INT_MAX};
  static const int bad_targets[] = {4, -1, 255, INT_MAX};
  memset(b, 0, sizeof *b);
  uint8_t k = rd_u8(r) % 16;
  b->kind = k < 14 ? k % 7 : k == 14 ? bad_kinds[rd_u8(r) % 4] : CROWDSTEER_WANDER;
  uint8_t t = rd_u8(r) % 16;
  b->target_kind = t < 5     ? 0
                   : t < 10  ? 1
                   : t < 14  ? 2
                   : t == 14 ? 3
                             : bad_targets[rd_u8(r) % 4];
  if (b->target_kind == CROWDSTEER_TARGET_AGENT) b->agent_byte = rd_u8(r);
  for (int i = 0; i < 3; i++)
    b->point[i] = cs_fuzz_float(r);
  for (int i = 0; i < 3; i++)
    b->point_velocity[i] = cs_fuzz_float(r);
  decode_params(r, &b->params, &b->per_agent);
  uint8_t wsel = rd_u8(r);
  b->weight = wsel < 96 ? 0.0f : cs_fuzz_float(r);
  b->weight_per_agent = wsel % 5 == 0;
  if (b->kind == CROWDSTEER_WANDER) {
    b->seed = rd_u32(r);
    b->tick = rd_u32(r);
  }
  if (rd_u8(r) % 8 == 0) b->null_what = 1 + rd_u8(r) % (BN_COUNT - 1);
}

/* Fills the snapshot: the agents' state, everywhere or only at the agents
 * some selected agent targets (the header says that copy is enough); the
 * rest is NaN so a gather through anything else shows in the result. */
static void fill_snapshot(const scase *c, sworld *w) {
  if (!c->snap_targets_only || !in_range(c)) {
    for (int a = 0; a < 6 && c->count; a++)
      memcpy(w->snap[a], w->agent[a], c->count * ELEM);
    return;
  }
  for (int a = 0; a < 6; a++)
    for (size_t i = 0; i < c->count; i++)
      w->snap[a][i] = NAN;
  for (int b = 0; b < c->arrays_for; b++) {
    if (!gathers(c, w, b)) continue;
    for (size_t i = c->begin; i < c->end; i++) {
      uint32_t j = w->b[b].index[i];
      if (!selected(c, w, i, b) || j >= c->count) continue;
      for (int a = 0; a < 6; a++)
        w->snap[a][j] = w->agent[a][j];
    }
  }
}

/* The step's own fields; tame cases make them valid. */
static void decode_shape(reader *r, scase *c) {
  c->isa = rd_u8(r) % CROWDSTEER_ISA_COUNT;
  /* Half the cases keep the step's own fields valid, so the parameters, the
   * masks and the composition get exercised, not only the first check. */
  c->tame = rd_u8(r) < 128;
  static const int bad_dims[] = {0, 1, 4, -1, INT_MIN, INT_MAX};
  uint8_t d = rd_u8(r);
  c->dims = d % 8 < 3 ? 2 : d % 8 < 6 ? 3 : bad_dims[(d / 8) % 6];
  /* Mostly small batches; a few beyond one default tile (1024) and beyond
   * the largest tile (4096), where tile boundaries fall inside the batch. */
  static const size_t big[] = {1023, 1025, 4097, 4099};
  uint8_t n = rd_u8(r);
  c->count = n < 224 ? n % 40 : n < 252 ? 40 + (size_t)(n - 224) * 9 : big[n - 252];
  cs_fuzz_range(r, c->count, &c->begin, &c->end, &c->split);

  static const size_t odd_counts[] = {0, 33, 64, SIZE_MAX, 32, 31, 2, 1};
  uint8_t bc = rd_u8(r);
  c->behaviour_count = bc < 192   ? 1 + bc % 6u
                       : bc < 224 ? 7 + bc % 26u
                                  : odd_counts[bc % 8];
  static const int bad_combine[] = {2, -1, 100};
  uint8_t m = rd_u8(r) % 8;
  c->combine = m < 4   ? CROWDSTEER_BLEND
               : m < 7 ? CROWDSTEER_PRIORITY
                       : bad_combine[rd_u8(r) % 3];
  c->threshold = cs_fuzz_param(r);
  c->mask_form = rd_u8(r) % 4;
  c->mask_run = 1 + rd_u8(r) % 64;
  uint8_t o = rd_u8(r);
  c->out_form = o % 16 < 8    ? BUF_NONE
                : o % 16 < 12 ? BUF_VALID
                              : 2 + o % 16 - 12 + (o >= 128);
  c->out_arg = rd_u8(r);
  uint8_t s = rd_u8(r);
  c->snap_form = s % 16 < 10 ? BUF_VALID : s % 16 == 10 ? BUF_NONE : 2 + s % 16 - 11;
  c->snap_arg = rd_u8(r);
  c->snap_targets_only = s >= 128;
  static const size_t tiles[] = {0, 0,  1,  1,  2,    3,    5,    7,
                                 8, 16, 17, 64, 1023, 4096, 4097, SIZE_MAX};
  static const size_t alt_tiles[] = {0, 1, 2, 3, 7, 8, 64, 4096};
  static const int threads[] = {1, 1, 1, 0, 2, 3, -1, INT_MIN};
  static const int alt_threads[] = {1, 2, 0, 1};
  uint8_t t = rd_u8(r);
  c->tile = tiles[t % 16];
  c->alt_tile = alt_tiles[(t / 16) % 8];
  uint8_t th = rd_u8(r);
  c->threads = threads[th % 8];
  c->alt_threads = alt_threads[(th / 8) % 4];
  if (rd_u8(r) % 4 == 0) {
    int nulls = 1 + rd_u8(r) % 2;
    for (int i = 0; i < nulls; i++)
      c->nulls |= 1u << (rd_u8(r) % SN_BITS);
  }
  if (c->tame) { /* same bytes, the step's own fields made valid */
    if (c->dims != 2 && c->dims != 3) c->dims = 2 + (d & 1);
    if (!in_range(c)) c->begin = 0, c->end = c->count, c->split = c->count / 2;
    if (c->behaviour_count == 0 || c->behaviour_count > MAXB)
      c->behaviour_count = 1 + bc % 6u;
    if (c->combine != CROWDSTEER_PRIORITY) c->combine = CROWDSTEER_BLEND;
    if (c->tile > 4096) c->tile = 0;
    if (c->threads < 0) c->threads = 1;
    c->nulls = 0;
    if (c->out_form > BUF_VALID) c->out_form = BUF_VALID;
    c->snap_form = BUF_VALID;
    c->threshold = tame_value(c->threshold);
  }
}

/* The behaviours' descriptions (and the integrator's parameters). */
static void decode_behaviours(reader *r, scase *c) {
  c->arrays_for = c->behaviour_count < MAXB ? (int)c->behaviour_count : MAXB;
  /* One descriptor past the limit, so a library reading further than it
   * accepts shows up under ASan. */
  c->descs = c->behaviour_count == 0     ? 1
             : c->behaviour_count > MAXB ? MAXB + 1
                                         : (int)c->behaviour_count;
  decode_params(r, &c->integ, &c->integ_per_agent);
  if (c->tame) tame_params(&c->integ);
  for (int b = 0; b < c->descs; b++) {
    bcase *x = &c->b[b];
    decode_behaviour(r, x);
    if (c->tame) { /* also the behaviours' uniform values and shapes */
      if (!valid_kind(x->kind)) x->kind = CROWDSTEER_SEEK;
      if (x->target_kind < 0 || x->target_kind > CROWDSTEER_TARGET_AGENT)
        x->target_kind = 0;
      x->null_what = BN_NONE;
      tame_params(&x->params);
      for (int k = 0; k < 3; k++) {
        if (!finite(x->point[k])) x->point[k] = 0.0f;
        if (!finite(x->point_velocity[k])) x->point_velocity[k] = 0.0f;
      }
      if (!finite(x->weight)) x->weight = 0.0f;
    }
  }

  for (int b = 0; b < c->descs; b++) { /* in the batch, except now and then (wild) */
    const uint8_t a = c->b[b].agent_byte;
    c->b[b].agent = c->count && (c->tame || a < 240) ? a % (uint32_t)c->count
                                                     : (uint32_t)c->count + a % 16u;
  }
}

/* The arrays the case uses. */
static void allocate_world(const scase *c, sworld *w) {
  w->count = c->count;
  const size_t count = c->count;
  for (int a = 0; a < 6; a++) {
    w->agent[a] = new_floats(count);
    w->output[a] = new_floats(count);
    w->snap[a] = new_floats(count);
  }
  for (int p = 0; p < P_COUNT; p++)
    if ((c->integ_per_agent >> p) & 1u) w->iparam[p] = new_floats(count);
  if (c->mask_form) w->mask = (uint32_t *)alloc_array(count);
  for (int b = 0; b < c->arrays_for; b++) {
    const bcase *bc_ = &c->b[b];
    bworld *x = &w->b[b];
    if (bc_->target_kind == CROWDSTEER_TARGET_ARRAYS)
      for (int k = 0; k < 3; k++)
        x->tpos[k] = new_floats(count), x->tvel[k] = new_floats(count);
    if (bc_->target_kind == CROWDSTEER_TARGET_AGENTS)
      x->index = (uint32_t *)alloc_array(count);
    if (bc_->kind == CROWDSTEER_WANDER)
      for (int k = 0; k < 3; k++)
        x->wdir[k] = new_floats(count);
    for (int p = 0; p < P_COUNT; p++)
      if ((bc_->per_agent >> p) & 1u) x->param[p] = new_floats(count);
    if (bc_->weight_per_agent) x->weight = new_floats(count);
  }
}

/* Agent i's data for behaviour b. */
static void decode_agent_behaviour(reader *r, const scase *c, sworld *w, size_t i,
                                   int b) {
  const size_t count = c->count;
  bworld *x = &w->b[b];
  /* Tame cases keep the data of agents that use the behaviour valid and
   * make that of agents left out bad half the time: the step must
   * neither check nor read it. */
  const int tame = c->tame && selected(c, w, i, b);
  const int wild = c->tame && !tame;
  if (x->tpos[0])
    for (int k = 0; k < 3; k++)
      x->tpos[k][i] = cs_fuzz_float(r), x->tvel[k][i] = cs_fuzz_float(r);
  if (x->index) {
    uint8_t ib = rd_u8(r);
    if (tame || (wild && ib % 2))
      x->index[i] = (uint32_t)(ib % count);
    else if (wild)
      x->index[i] = ib < 128 ? (uint32_t)(count + ib) : UINT32_MAX - ib;
    else
      x->index[i] = ib < 240   ? (uint32_t)(ib % count)
                    : ib < 255 ? (uint32_t)(count + (size_t)(ib - 240))
                               : UINT32_MAX;
  }
  if (x->wdir[0])
    for (int k = 0; k < 3; k++)
      x->wdir[k][i] = cs_fuzz_float(r);
  for (int p = 0; p < P_COUNT; p++)
    if (x->param[p]) {
      float e = wild ? cs_fuzz_float(r) : cs_fuzz_param_element(r);
      x->param[p][i] = tame ? tame_element(p, e) : e;
    }
  if (x->weight) {
    float e = cs_fuzz_float(r);
    x->weight[i] = tame && !finite(e) ? 0.0f : wild && (i & 1) ? NAN : e;
  }
}

/* Every agent's state, mask and per-agent data. */
static void decode_agents(reader *r, const scase *c, sworld *w) {
  const size_t count = c->count;
  /* Agent-major, so the first bytes after the header shape agent 0. */
  const uint32_t in_count =
      c->behaviour_count >= 32 ? 0xFFFFFFFFu : (1u << c->behaviour_count) - 1u;
  for (size_t i = 0; i < count; i++) {
    for (int a = 0; a < 6; a++)
      w->agent[a][i] = cs_fuzz_float(r);
    for (int a = 0; a < 6; a++)
      w->output[a][i] = (float)(i * 8 + (size_t)a) + 0.25f;
    if (c->mask_form == 1) { /* within the behaviour count; none a sixth of the time */
      uint8_t sel = rd_u8(r);
      w->mask[i] =
          sel % 6 == 0 ? 0u : (sel < 128 ? (uint32_t)rd_u8(r) : rd_u32(r)) & in_count;
    } else if (c->mask_form == 2) { /* any bits, beyond the count too */
      w->mask[i] = rd_u32(r);
    } else if (c->mask_form == 3) { /* runs of one behaviour: whole tiles skip */
      size_t bcount = c->arrays_for ? (size_t)c->arrays_for : 1;
      w->mask[i] = 1u << ((i / (size_t)c->mask_run) % bcount);
    }
    for (int p = 0; p < P_COUNT; p++)
      if (w->iparam[p]) {
        float e = cs_fuzz_param_element(r);
        w->iparam[p][i] = c->tame ? tame_element(p, e) : e;
      }
    for (int b = 0; b < c->arrays_for; b++)
      decode_agent_behaviour(r, c, w, i, b);
  }
}

/* The host's mode, a small-stack thread, huge thread counts, a misaligned mask. */
static void decode_host(reader *r, scase *c) {
  /* Last, so that older inputs decode to the same step as before: the
   * host's mode, a small-stack thread, thread counts up to INT_MAX and a
   * misaligned mask for the call under test (and huge counts for the split
   * calls, which compare bits). */
  uint8_t h = rd_u8(r);
  c->host_mode = h % 8 % CS_FUZZ_HOST_MODES;
  if ((h >> 5) % 4 == 0 && c->threads >= 0) c->threads = INT_MAX - (int)(rd_u8(r) % 2);
  if ((h >> 5) % 4 == 1) c->alt_threads = (int)(rd_u32(r) & 0x7FFFFFFFu);
  /* A fiber calls with threads = 1 (an OpenMP team started from a thread
   * that then exits also leaks libomp's per-thread state). */
  c->small_stack = (h >> 3) % 4 == 0 && c->threads == 1;
#ifdef CS_FUZZ_ASAN
  /* Under LeakSanitizer a thread that exits after touching libomp (clang's
   * OpenMP), and libomp's threads beyond the default team, report their
   * state as leaked: small-stack steps and huge thread counts run in the
   * other builds (test_fuzz_replay: release, valgrind, aarch64). */
  c->small_stack = 0;
  if (c->threads > 3) c->threads = 2;
  if (c->alt_threads > 3) c->alt_threads = 2;
#endif
  uint8_t moved = rd_u8(r);
  c->misalign_mask = moved % 8 == 0 ? 1u + moved / 8u % 3u : 0u;
  c->alias_on = rd_u8(r) % 8 == 0;
  c->alias_written = rd_u8(r);
  c->alias_other = rd_u8(r);
  c->alias_shift = rd_u8(r);
}

void decode_step(reader *r, scase *c, sworld *w) {
  memset(c, 0, sizeof *c);
  memset(w, 0, sizeof *w);
  decode_shape(r, c);
  decode_behaviours(r, c);
  allocate_world(c, w);
  decode_agents(r, c, w);
  fill_snapshot(c, w);
  decode_host(r, c);
}

/* ---- building the call ------------------------------------------------------*/

static crowdsteer_agents state_of(size_t count, int dims, float *const a[6]) {
  crowdsteer_agents s = {count, dims, a[0], a[1], a[2], a[3], a[4], a[5], NULL};
  return s;
}

static float **state_array(crowdsteer_agents *s, int a) {
  float **slots[6] = {&s->px, &s->py, &s->pz, &s->vx, &s->vy, &s->vz};
  return slots[a];
}

/* An output or snapshot buffer in one of the BUF_* forms. */
static const crowdsteer_agents *make_buffer(crowdsteer_agents *dst, int form, int arg,
                                            const crowdsteer_agents *agents,
                                            float *const own[6]) {
  static const size_t count_deltas[] = {1, SIZE_MAX, 4096};
  *dst = state_of(agents->count, agents->dims, own);
  switch (form) {
  case BUF_NONE: return NULL;
  case BUF_SAME: *dst = *agents; break;
  case BUF_ALIAS: { /* one array is one of the agents' arrays */
    /* Only axes in use: in 2D the z arrays are not part of either state, so
     * sharing one of them is no fault and the harness would misjudge it. */
    int mine = arg % 6, theirs = (arg / 6) % 6;
    if (agents->dims == 2 && mine % 3 == 2) mine--;
    if (agents->dims == 2 && theirs % 3 == 2) theirs--;
    *state_array(dst, mine) = *state_array((crowdsteer_agents *)agents, theirs);
    break;
  }
  case BUF_COUNT: dst->count = agents->count + count_deltas[arg % 3]; break;
  case BUF_DIMS: {
    static const int other[] = {0, 4, -1, 2, 3};
    dst->dims = arg % 5 < 3                              ? other[arg % 5]
                : agents->dims == 2 || agents->dims == 3 ? 5 - agents->dims
                                                         : 2;
    break;
  }
  case BUF_NULLARR: *state_array(dst, arg % 6) = NULL; break;
  default: break;
  }
  return dst;
}

/* ---- overlapping arrays -------------------------------------------------------
 * The elements of each array the step touches, written from docs/guarantees.md
 * ("Memory"), not from src/step.c: the new state (the agents in place, else
 * the output) is written over [begin, end) and so is the wander state of a
 * wander behaviour some agent of the range selects; out of place the agents
 * are read over [begin, end), over the whole batch when a selected behaviour
 * gathers agent targets and at its index for a selected AGENT target; in
 * place the snapshot is read over the whole batch when a selected behaviour
 * gathers; the mask, the integrator's per-agent arrays and every array of a
 * selected behaviour are read over [begin, end). */
enum { MAX_EXTENTS = 6 * 3 + 3 + 1 + MAXB * (3 * 3 + P_COUNT + 2) };

/* Whether behaviour kind k reads per-agent parameter p. */
static int reads_param(int k, int p) {
  if (k == CROWDSTEER_WANDER)
    return p == P_WANDER_RADIUS || p == P_WANDER_DISTANCE || p == P_JITTER;
  switch (p) {
  case P_MAX_SPEED:
  case P_TIME_TO_TARGET: return 1;
  case P_TARGET_RADIUS:
  case P_SLOWING_RADIUS: return k == CROWDSTEER_ARRIVE;
  case P_PANIC_RADIUS: return k == CROWDSTEER_FLEE || k == CROWDSTEER_EVADE;
  case P_DANGER_RADIUS:
  case P_ESCAPE_RADIUS: return k == CROWDSTEER_LEAVE;
  case P_MAX_PREDICTION: return with_velocity(k);
  default: return 0;
  }
}

/* The step's arrays and what it touches of each; slots[id] is where the
 * view holds written array `id`, to move it. */
typedef struct extent_list {
  cs_fuzz_extent e[MAX_EXTENTS];
  float **slots[MAX_EXTENTS];
  int n, written;
} extent_list;

static void add_extent(extent_list *l, float **slot, const void *array, int written,
                       size_t first, size_t last) {
  int id = -1;
  if (written) {
    id = l->written;
    l->slots[l->written++] = slot;
  }
  cs_fuzz_add_extent(l->e, &l->n, id, array, written, first, last);
}

static void list_extents(const scase *c, const sworld *w, call_view *v, extent_list *l) {
  l->n = l->written = 0;
  const size_t B = c->begin, E = c->end, N = c->count;
  const int in_place = !v->step.output;
  int gather = 0;
  for (int b = 0; b < c->arrays_for; b++)
    gather |= gathers(c, w, b) && any_selected(c, w, b);
  float **agent[6] = {&v->agents.px, &v->agents.py, &v->agents.pz,
                      &v->agents.vx, &v->agents.vy, &v->agents.vz};
  float **output[6] = {&v->output.px, &v->output.py, &v->output.pz,
                       &v->output.vx, &v->output.vy, &v->output.vz};
  const float *snap[6] = {v->step.snapshot ? v->step.snapshot->px : NULL,
                          v->step.snapshot ? v->step.snapshot->py : NULL,
                          v->step.snapshot ? v->step.snapshot->pz : NULL,
                          v->step.snapshot ? v->step.snapshot->vx : NULL,
                          v->step.snapshot ? v->step.snapshot->vy : NULL,
                          v->step.snapshot ? v->step.snapshot->vz : NULL};
  for (int a = 0; a < 6; a++) {
    if (a % 3 >= c->dims) continue;
    if (in_place) {
      add_extent(l, agent[a], *agent[a], 1, B, E);
      if (gather) add_extent(l, NULL, snap[a], 0, 0, N);
      continue;
    }
    add_extent(l, output[a], *output[a], 1, B, E);
    add_extent(l, NULL, *agent[a], 0, B, E);
    if (gather) add_extent(l, NULL, *agent[a], 0, 0, N);
    for (int b = 0; b < c->arrays_for; b++)
      if (single_target(c, b) && any_selected(c, w, b) && c->b[b].agent < N)
        add_extent(l, NULL, *agent[a], 0, c->b[b].agent, c->b[b].agent + 1u);
  }
  add_extent(l, NULL, v->step.behaviour_mask, 0, B, E);
  add_extent(l, NULL, v->step.integrator.max_speed_per_agent, 0, B, E);
  add_extent(l, NULL, v->step.integrator.max_force_per_agent, 0, B, E);
  add_extent(l, NULL, v->step.integrator.mass_per_agent, 0, B, E);
  for (int b = 0; b < c->arrays_for; b++) {
    const int k = c->b[b].kind;
    if (!valid_kind(k) || !any_selected(c, w, b)) continue;
    const crowdsteer_step_behaviour *d = &v->desc[b];
    if (k == CROWDSTEER_WANDER && d->wander) {
      float **wd[3] = {&v->wander[b].direction.x, &v->wander[b].direction.y,
                       &v->wander[b].direction.z};
      for (int a = 0; a < c->dims; a++)
        add_extent(l, wd[a], *wd[a], 1, B, E);
    }
    if (targeted_kind(k) && d->target.kind == CROWDSTEER_TARGET_ARRAYS) {
      const float *tp[3] = {d->target.position.x, d->target.position.y,
                            d->target.position.z};
      const float *tv[3] = {d->target.velocity.x, d->target.velocity.y,
                            d->target.velocity.z};
      for (int a = 0; a < c->dims; a++) {
        add_extent(l, NULL, tp[a], 0, B, E);
        if (with_velocity(k)) add_extent(l, NULL, tv[a], 0, B, E);
      }
    }
    if (targeted_kind(k) && d->target.kind == CROWDSTEER_TARGET_AGENTS)
      add_extent(l, NULL, d->target.index, 0, B, E);
    for (int p = 0; p < P_COUNT; p++)
      if (reads_param(k, p)) add_extent(l, NULL, w->b[b].param[p], 0, B, E);
    add_extent(l, NULL, d->weight_per_agent, 0, B, E);
  }
}

/* Moves the written array the case picks onto another array where the two
 * meet (cs_fuzz_pick_overlap): the step must then refuse it. A case with no
 * such pair is left as it is. */
static void apply_alias(const scase *c, const sworld *w, call_view *v) {
  v->aliased = 0;
  if (!c->alias_on || !in_range(c) || c->begin == c->end) return;
  if (c->dims != 2 && c->dims != 3) return;
  extent_list l;
  list_extents(c, w, v, &l);
  const uint8_t bytes[3] = {c->alias_written, c->alias_other, c->alias_shift};
  /* In place, the moved array may be the agents, which an AGENT target
   * also reads at its one index: the move must keep that in bounds too. */
  size_t reach_first = c->begin, reach_last = c->end;
  for (int b = 0; b < c->arrays_for && !v->step.output; b++)
    if (single_target(c, b) && any_selected(c, w, b) && c->b[b].agent < c->count) {
      if (c->b[b].agent < reach_first) reach_first = c->b[b].agent;
      if (c->b[b].agent >= reach_last) reach_last = c->b[b].agent + 1u;
    }
  int moved;
  uintptr_t to;
  if (!cs_fuzz_pick_overlap(l.e, l.n, c->begin, c->end, reach_first, reach_last, c->count,
                            bytes, &moved, &to))
    return;
  *l.slots[moved] = (float *)to;
  v->aliased = 1;
}

void build_view(const scase *c, sworld *w, call_view *v, size_t tile, int threads) {
  memset(v, 0, sizeof *v);
  float *agent[6];
  for (int a = 0; a < 6; a++)
    agent[a] = (c->nulls >> (SN_ARRAY0 + a)) & 1u ? NULL : w->agent[a];
  v->agents = state_of(c->count, c->dims, agent);
  const crowdsteer_agents *out =
      make_buffer(&v->output, c->out_form, c->out_arg, &v->agents, w->output);
  const crowdsteer_agents *snap =
      c->snap_form == BUF_NONE
          ? NULL
          : make_buffer(&v->snapshot, c->snap_form, c->snap_arg, &v->agents, w->snap);
  v->descs = (crowdsteer_step_behaviour *)malloc((size_t)c->descs * sizeof *v->descs);
  if (!v->descs) abort();
  for (int b = 0; b < c->descs; b++) {
    const bcase *bc = &c->b[b];
    static const bworld none;
    const bworld *x = b < c->arrays_for ? &w->b[b] : &none;
    crowdsteer_step_behaviour *d = &v->descs[b];
    memset(d, 0, sizeof *d);
    d->behaviour = (crowdsteer_behaviour)bc->kind;
    d->target.kind = (crowdsteer_target_kind)bc->target_kind;
    memcpy(d->target.point, bc->point, sizeof d->target.point);
    memcpy(d->target.point_velocity, bc->point_velocity, sizeof d->target.point_velocity);
    float *tpos[3], *tvel[3], *wdir[3];
    for (int k = 0; k < 3; k++) {
      tpos[k] = bc->null_what == BN_TPOS + k ? NULL : x->tpos[k];
      tvel[k] = bc->null_what == BN_TVEL + k ? NULL : x->tvel[k];
      wdir[k] = bc->null_what == BN_WDIR + k ? NULL : x->wdir[k];
    }
    d->target.position = (crowdsteer_vectors){tpos[0], tpos[1], tpos[2]};
    d->target.velocity = (crowdsteer_vectors){tvel[0], tvel[1], tvel[2]};
    d->target.index = bc->null_what == BN_INDEX ? NULL : x->index;
    d->target.agent = bc->agent;
    d->params = bc->params;
    attach_params(&d->params, x->param);
    v->wander[b] =
        (crowdsteer_wander_state){{wdir[0], wdir[1], wdir[2]}, bc->seed, bc->tick};
    d->wander = bc->null_what == BN_WANDER ? NULL : &v->wander[b];
    d->weight = bc->weight;
    d->weight_per_agent = x->weight;
    v->desc[b] = *d;
  }
  crowdsteer_step_desc *s = &v->step;
  s->behaviours = (c->nulls >> SN_BEHAVIOURS) & 1u ? NULL : v->descs;
  s->behaviour_count = c->behaviour_count;
  s->combine = (crowdsteer_combine)c->combine;
  s->priority_threshold = c->threshold;
  s->behaviour_mask = w->mask && c->misalign_mask
                          ? (const uint32_t *)((const char *)w->mask + c->misalign_mask)
                          : w->mask;
  s->integrator = c->integ;
  attach_params(&s->integrator, w->iparam);
  s->output = out;
  s->snapshot = snap;
  s->tile_size = tile;
  s->threads = threads;
  apply_alias(c, w, v);
}

/* ---- memory guard -------------------------------------------------------------
 * During a call on [begin, end) every element outside the range is poisoned,
 * and so is all of the gather source (the snapshot in place, the agents out of
 * place) except the agents that a selected agent targets. Agent 0 stays
 * readable there: the kernels gather it for tail lanes and for lanes of
 * agents a behaviour leaves out (src/kernels/kernels.c, load_target), and it
 * exists whenever the range is not empty. An ignored snapshot is poisoned
 * whole. ASan granules are 8 bytes, so a neighbour of a readable float may
 * stay readable: the check is slightly weaker than exact. */
static void guard(const scase *c, sworld *w, size_t begin, size_t end, int poison) {
#ifdef CS_FUZZ_ASAN
  if (!(begin <= end && end <= c->count)) return;
  bufref l[MAX_BUFS];
  int n = list_buffers(w, l);
  const int in_place = c->out_form == BUF_NONE;
  for (int j = 0; j < n; j++) {
    char *p = (char *)*l[j].slot;
    if (!p) continue;
    if (!poison) {
      ASAN_UNPOISON_MEMORY_REGION(p, c->count * ELEM);
      continue;
    }
    int source = in_place ? l[j].role == R_SNAP : l[j].role == R_AGENT;
    if (l[j].role == R_SNAP || source) {
      ASAN_POISON_MEMORY_REGION(p, c->count * ELEM);
      if (!source) continue;
      if (l[j].role == R_AGENT)
        ASAN_UNPOISON_MEMORY_REGION(p + begin * ELEM, (end - begin) * ELEM);
      if (begin < end) ASAN_UNPOISON_MEMORY_REGION(p, ELEM);
      for (int b = 0; b < c->arrays_for; b++) {
        if (!gathers(c, w, b)) continue;
        for (size_t i = begin; i < end; i++) {
          uint32_t t = w->b[b].index[i];
          if (selected(c, w, i, b) && t < c->count)
            ASAN_UNPOISON_MEMORY_REGION(p + (size_t)t * ELEM, ELEM);
        }
      }
      continue;
    }
    ASAN_POISON_MEMORY_REGION(p, begin * ELEM);
    ASAN_POISON_MEMORY_REGION(p + end * ELEM, (c->count - end) * ELEM);
  }
  /* An AGENT target's state is read from the agents, wherever it is. */
  for (int j = 0; poison && begin < end && j < n; j++)
    for (int b = 0; l[j].role == R_AGENT && *l[j].slot && b < c->arrays_for; b++)
      if (single_target(c, b) && c->b[b].agent < c->count)
        ASAN_UNPOISON_MEMORY_REGION((char *)*l[j].slot + (size_t)c->b[b].agent * ELEM,
                                    ELEM);
#else
  (void)c, (void)w, (void)begin, (void)end, (void)poison;
#endif
}

/* Job-system fibers get 32 KiB; the sanitizers' redzones and the emulated
 * 16-lane test build need more. */
#if defined(CS_FUZZ_ASAN) || defined(CS_EMULATED_AVX512)
enum { SMALL_STACK = 256 * 1024 };
#else
enum { SMALL_STACK = 32 * 1024 };
#endif

typedef struct stack_call {
  const crowdsteer_agents *agents;
  const crowdsteer_step_desc *step;
  size_t begin, end;
  crowdsteer_status status;
} stack_call;

static void *step_on_this_thread(void *arg) {
  stack_call *s = (stack_call *)arg;
  s->status = crowdsteer_step(s->agents, s->step, s->begin, s->end);
  return NULL;
}

/* crowdsteer_step on a new thread whose whole stack is SMALL_STACK bytes, or
 * the least pthreads accept (128 KiB on aarch64 glibc). */
static crowdsteer_status step_on_small_stack(const crowdsteer_agents *agents,
                                             const crowdsteer_step_desc *step,
                                             size_t begin, size_t end) {
  stack_call s = {agents, step, begin, end, CROWDSTEER_OK};
#ifdef __EMSCRIPTEN__
  /* No threads in the single-threaded WebAssembly build: this stack. */
  step_on_this_thread(&s);
  return s.status;
#endif
  const long least = sysconf(_SC_THREAD_STACK_MIN);
  const size_t bytes = least > SMALL_STACK ? (size_t)least : SMALL_STACK;
  void *stack = aligned_alloc(4096, bytes);
  pthread_attr_t attr;
  pthread_t thread;
  if (!stack || pthread_attr_init(&attr) != 0 ||
      pthread_attr_setstack(&attr, stack, bytes) != 0 ||
      pthread_create(&thread, &attr, step_on_this_thread, &s) != 0)
    abort();
  pthread_join(thread, NULL);
  pthread_attr_destroy(&attr);
  free(stack);
  return s.status;
}

crowdsteer_status run_step(const scase *c, sworld *w, size_t begin, size_t end,
                           size_t tile, int threads) {
  /* The decoded call itself (the others compare bits with it). */
  const int under_test =
      begin == c->begin && end == c->end && tile == c->tile && threads == c->threads;
  call_view v;
  build_view(c, w, &v, tile, threads);
  /* A moved (aliased) array makes the guard's per-role poisoning wrong
   * where roles share memory: such a step must refuse before it reads
   * anything per agent, which the unchanged-memory check covers. */
  guard(c, w, begin, end, !v.aliased);
  const crowdsteer_agents *agents = (c->nulls >> SN_AGENTS) & 1u ? NULL : &v.agents;
  const crowdsteer_step_desc *step = (c->nulls >> SN_STEP) & 1u ? NULL : &v.step;
  crowdsteer_status st = under_test && c->small_stack
                             ? step_on_small_stack(agents, step, begin, end)
                             : crowdsteer_step(agents, step, begin, end);
  guard(c, w, begin, end, 0);
  free(v.descs);
  return st;
}
