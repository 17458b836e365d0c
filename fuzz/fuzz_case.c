/* Decodes fuzzer bytes into one crowdsteer call and checks on it the error
 * contract and exactness of docs/behaviours.md §9-10 (see cs_fuzz_one). */
#include "fuzz_case.h"
#include "fuzz_case_call.h"
#include "fuzz_common.h"
#include "fuzz_step.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crowdsteer.h"

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

static const char *entry_name(int entry) {
  if (entry == E_INTEGRATE) return "integrate";
  if (entry == E_ISA) return "isa";
  return crowdsteer_behaviour_name((crowdsteer_behaviour)entry);
}

/* ---- the oracle: which statuses docs/behaviours.md §9 allows ------------- */

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

static int vectors_null(const fuzz_case *c, int first, int dims) {
  for (int k = 0; k < dims; k++)
    if (is_null(c, N_ARRAY0 + first + k)) return 1;
  return 0;
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
