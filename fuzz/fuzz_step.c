/* Decodes fuzzer bytes into one crowdsteer_step call (valid or not) and checks
 * its contract: status, no stray writes, exactness against the composition. */
#include "fuzz_step.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crowdsteer.h"
#include "fuzz_common.h"
#include "fuzz_step_call.h"

static const char *const role_names[] = {
    "agent",      "output", "snapshot", "integrator param", "mask", "target pos",
    "target vel", "wander", "param",    "weight",           "index"};
static const char *const buf_names[] = {"none",  "valid", "agents",    "alias",
                                        "count", "dims",  "null array"};

/* ---- the oracle: which statuses the header allows ---------------------------
 * Written from include/crowdsteer.h and docs/guarantees.md, not from
 * src/step.c: every fault in the input adds its status to `required` (the call
 * must fail with one of them); `optional` holds statuses that are also fine
 * (strictness the contract does not promise either way). */

/* The parameter in effect passes `ok` for every agent of the range that
 * behaviour b selects (every agent for b < 0: the integrator). */
static int param_ok(const scase *c, const sworld *w, int b, float uniform, const float *a,
                    float dflt, int (*ok)(float)) {
  if (!a) return ok(uniform == 0.0f ? dflt : uniform);
  if (!in_range(c)) return 1;
  for (size_t i = c->begin; i < c->end; i++)
    if ((b < 0 || selected(c, w, i, b)) && !ok(a[i])) return 0;
  return 1;
}

static int vectors_null(const float *const a[3], int dims) {
  for (int k = 0; k < dims; k++)
    if (!a[k]) return 1;
  return 0;
}

/* A second state buffer's faults: same count and dims, arrays present, none
 * of them one of the agents' arrays where the step touches both (`shared`:
 * OVERLAP then, else 0). */
static unsigned buffer_faults(const crowdsteer_agents *agents,
                              const crowdsteer_agents *buf, int nonempty,
                              unsigned shared) {
  unsigned f = 0;
  if (!buf) return ERR(CROWDSTEER_ERROR_NULL_POINTER);
  if (buf->dims != agents->dims) f |= ERR(CROWDSTEER_ERROR_DIMS);
  if (buf->count != agents->count) f |= ERR(CROWDSTEER_ERROR_RANGE);
  if (!nonempty) return f;
  const float *mine[6] = {agents->px, agents->py, agents->pz,
                          agents->vx, agents->vy, agents->vz};
  const float *theirs[6] = {buf->px, buf->py, buf->pz, buf->vx, buf->vy, buf->vz};
  for (int a = 0; a < 6; a++) {
    if (a % 3 >= agents->dims) continue;
    if (!theirs[a]) f |= ERR(CROWDSTEER_ERROR_NULL_POINTER);
    for (int o = 0; o < 6; o++)
      if (o % 3 < agents->dims && theirs[a] && theirs[a] == mine[o]) f |= shared;
  }
  return f;
}

/* The faults of behaviour b's target: required ones into *req, those of
 * arrays that may be unread into *missing_to. */
static void target_errors(const scase *c, sworld *w, int b, const crowdsteer_target *t,
                          unsigned *req, unsigned *missing_to,
                          unsigned *snapshot_needed) {
  const int dims = c->dims, kind = c->b[b].kind;
  const int nonempty = c->begin < c->end && in_range(c);
  if (t->kind == CROWDSTEER_TARGET_POINT) {
    for (int k = 0; k < dims; k++)
      if (!finite(t->point[k]) || (with_velocity(kind) && !finite(t->point_velocity[k])))
        *req |= ERR(CROWDSTEER_ERROR_PARAMETER);
  } else if (t->kind == CROWDSTEER_TARGET_ARRAYS) {
    const float *const tp[3] = {t->position.x, t->position.y, t->position.z};
    const float *const tv[3] = {t->velocity.x, t->velocity.y, t->velocity.z};
    if (vectors_null(tp, dims) || (with_velocity(kind) && vectors_null(tv, dims)))
      *missing_to |= ERR(CROWDSTEER_ERROR_NULL_POINTER);
  } else if (t->kind == CROWDSTEER_TARGET_AGENT) {
    /* One index for the call: checked whatever the mask selects. */
    if (nonempty && t->agent >= c->count) *req |= ERR(CROWDSTEER_ERROR_AGENT_INDEX);
  } else if (t->kind == CROWDSTEER_TARGET_AGENTS) {
    *snapshot_needed |= 1;
    if (!t->index) {
      *missing_to |= ERR(CROWDSTEER_ERROR_NULL_POINTER);
    } else {
      for (size_t i = c->begin; nonempty && i < c->end; i++)
        if (selected(c, w, i, b) && t->index[i] >= c->count)
          *req |= ERR(CROWDSTEER_ERROR_AGENT_INDEX);
    }
  } else {
    *req |= ERR(CROWDSTEER_ERROR_PARAMETER);
  }
}

/* Whether the parameters behaviour b reads, and its weight, are valid. */
static int behaviour_params_ok(const scase *c, sworld *w, int b,
                               const crowdsteer_step_behaviour *d) {
  const crowdsteer_params *p = &d->params;
  const int kind = c->b[b].kind;
  const float inf = INFINITY;
  int ok = 1;
  if (kind == CROWDSTEER_WANDER) {
    ok &=
        param_ok(c, w, b, p->wander_radius, p->wander_radius_per_agent, 0, nonneg_finite);
    ok &= param_ok(c, w, b, p->wander_distance, p->wander_distance_per_agent, 0,
                   nonneg_finite);
    ok &= param_ok(c, w, b, p->jitter, p->jitter_per_agent, 0, nonneg_finite);
  } else {
    ok &= param_ok(c, w, b, p->max_speed, p->max_speed_per_agent, 1.0f, nonneg_finite);
    ok &=
        param_ok(c, w, b, p->time_to_target, p->time_to_target_per_agent, 1.0f, positive);
  }
  if (kind == CROWDSTEER_ARRIVE) {
    ok &= param_ok(c, w, b, p->target_radius, p->target_radius_per_agent, 0, nonneg);
    ok &= param_ok(c, w, b, p->slowing_radius, p->slowing_radius_per_agent, 0, nonneg);
  }
  if (kind == CROWDSTEER_FLEE || kind == CROWDSTEER_EVADE)
    ok &= param_ok(c, w, b, p->panic_radius, p->panic_radius_per_agent, inf, nonneg);
  if (kind == CROWDSTEER_LEAVE) {
    ok &= param_ok(c, w, b, p->danger_radius, p->danger_radius_per_agent, 0, nonneg);
    ok &= param_ok(c, w, b, p->escape_radius, p->escape_radius_per_agent, 0, nonneg);
  }
  if (with_velocity(kind))
    ok &= param_ok(c, w, b, p->max_prediction, p->max_prediction_per_agent, inf, nonneg);
  /* The weight: uniform (0 means 1) or per agent, literally. */
  if (d->weight_per_agent)
    return ok & param_ok(c, w, b, 0.0f, d->weight_per_agent, 1.0f, finite);
  return ok & finite(d->weight == 0.0f ? 1.0f : d->weight);
}

/* The faults of behaviour b, as the step would read it. */
static void behaviour_errors(const scase *c, sworld *w, const call_view *v, int b,
                             unsigned *req, unsigned *opt, unsigned *snapshot_needed) {
  const bcase *bc = &c->b[b];
  const crowdsteer_step_behaviour *d = &v->desc[b];
  const int nonempty = c->begin < c->end && in_range(c);
  int used = 0;
  for (size_t i = c->begin; nonempty && i < c->end && !used; i++)
    used = selected(c, w, i, b);
  /* Arrays nobody reads may be NULL; rejecting them is not promised either way. */
  unsigned *missing_to = used ? req : opt;
  if (!valid_kind(bc->kind)) {
    *req |= ERR(CROWDSTEER_ERROR_PARAMETER);
    *opt |= ~ERR(CROWDSTEER_OK); /* its other fields mean nothing */
    if (bc->target_kind == CROWDSTEER_TARGET_AGENTS) *snapshot_needed |= 2;
    return;
  }
  if (bc->kind == CROWDSTEER_WANDER) {
    if (!d->wander) {
      *req |= ERR(CROWDSTEER_ERROR_NULL_POINTER);
    } else {
      const float *const wd[3] = {d->wander->direction.x, d->wander->direction.y,
                                  d->wander->direction.z};
      if (vectors_null(wd, c->dims)) *missing_to |= ERR(CROWDSTEER_ERROR_NULL_POINTER);
    }
  } else {
    target_errors(c, w, b, &d->target, req, missing_to, snapshot_needed);
  }
  if (!behaviour_params_ok(c, w, b, d)) *req |= ERR(CROWDSTEER_ERROR_PARAMETER);
}

static void expected_errors(const scase *c, sworld *w, unsigned *required,
                            unsigned *optional) {
  unsigned req = 0, opt = 0;
  const unsigned any_error = ~ERR(CROWDSTEER_OK);
  call_view v;
  build_view(c, w, &v, c->tile, c->threads);
  free(v.descs); /* v.desc keeps copies of the descriptors */
  *required = *optional = 0;
  if ((c->nulls >> SN_STEP) & 1u) {
    *required = ERR(CROWDSTEER_ERROR_NULL_POINTER);
    *optional = any_error; /* nothing else can be judged without the step */
    return;
  }
  if ((c->nulls >> SN_AGENTS) & 1u) {
    req |= ERR(CROWDSTEER_ERROR_NULL_POINTER);
    opt |= any_error; /* nor without the agents; the call must still fail */
  }
  if (c->dims != 2 && c->dims != 3) {
    /* Without valid dims the other checks are meaningless: any error will do. */
    *required = req | ERR(CROWDSTEER_ERROR_DIMS);
    *optional = any_error;
    return;
  }
  const int dims = c->dims;
  if (!in_range(c)) req |= ERR(CROWDSTEER_ERROR_RANGE);
  const int nonempty = c->begin < c->end && in_range(c);
  const crowdsteer_agents *ag = &v.agents;
  const float *const pos[3] = {ag->px, ag->py, ag->pz}, *const vel[3] = {ag->vx, ag->vy,
                                                                         ag->vz};
  if (nonempty && (vectors_null(pos, dims) || vectors_null(vel, dims)))
    req |= ERR(CROWDSTEER_ERROR_NULL_POINTER);

  /* The step's own fields. */
  if (!v.step.behaviours) req |= ERR(CROWDSTEER_ERROR_NULL_POINTER);
  if (c->behaviour_count == 0 || c->behaviour_count > MAXB)
    req |= ERR(CROWDSTEER_ERROR_PARAMETER);
  if (c->combine != CROWDSTEER_BLEND && c->combine != CROWDSTEER_PRIORITY)
    req |= ERR(CROWDSTEER_ERROR_PARAMETER);
  if (!nonneg_finite(c->threshold)) req |= ERR(CROWDSTEER_ERROR_PARAMETER);
  if (c->tile > 4096 || c->threads < 0) req |= ERR(CROWDSTEER_ERROR_PARAMETER);
  if (nonempty && w->mask && c->misalign_mask) req |= ERR(CROWDSTEER_ERROR_ALIGNMENT);

  /* The integrator, over the whole range (it runs for every agent). */
  const crowdsteer_params *ip = &v.step.integrator;
  const float inf = INFINITY;
  int ok =
      param_ok(c, w, -1, ip->max_speed, ip->max_speed_per_agent, 1.0f, nonneg_finite) &
      param_ok(c, w, -1, ip->max_force, ip->max_force_per_agent, inf, nonneg) &
      param_ok(c, w, -1, ip->mass, ip->mass_per_agent, 1.0f, positive) &
      param_ok(c, w, -1, ip->dt, NULL, 1.0f, nonneg_finite);
  if (!ok) req |= ERR(CROWDSTEER_ERROR_PARAMETER);

  if (v.step.output)
    req |= buffer_faults(ag, v.step.output, nonempty, ERR(CROWDSTEER_ERROR_OVERLAP));
  /* A written array moved onto another where they meet. */
  if (v.aliased) {
    req |= ERR(CROWDSTEER_ERROR_OVERLAP);
    cs_fuzz_counters.steps_overlapping++;
  }

  /* The behaviours the step would read (all when the count is too large:
   * any of their faults may be the one reported). */
  unsigned snapshot_needed = 0; /* 1: required, 2: only maybe (invalid kind) */
  for (int b = 0; b < c->arrays_for; b++)
    behaviour_errors(c, w, &v, b, &req, &opt, &snapshot_needed);
  /* In place, AGENTS targets read the snapshot, which must then be valid. */
  if (!v.step.output && snapshot_needed) {
    /* Read over the whole batch while the agents are written, when some
     * agent selects a behaviour that gathers through it. */
    int gathered = 0;
    for (int b = 0; b < c->arrays_for; b++)
      gathered |= targeted_kind(c->b[b].kind) &&
                  c->b[b].target_kind == CROWDSTEER_TARGET_AGENTS &&
                  any_selected(c, w, b);
    unsigned f = buffer_faults(ag, v.step.snapshot, nonempty,
                               gathered ? ERR(CROWDSTEER_ERROR_OVERLAP) : 0u);
    if (snapshot_needed & 1)
      req |= f;
    else
      opt |= f;
  }
  *required = req;
  *optional = opt;
}

/* ---- checks -------------------------------------------------------------------*/

static void fail_header(const scase *c, int isa, const char *what) {
  fprintf(stderr,
          "crowdsteer fuzz: %s: step on %s, dims %d, count %zu, range [%zu, %zu), "
          "%zu behaviour(s), combine %d, threshold %a, mask form %d, output %s, snapshot "
          "%s%s, tile %zu, threads %d, nulls 0x%x, host mode %d, small stack %d, "
          "mask off by %u\n",
          what, crowdsteer_isa_name((crowdsteer_isa)isa), c->dims, c->count, c->begin,
          c->end, c->behaviour_count, c->combine, (double)c->threshold, c->mask_form,
          buf_names[c->out_form], buf_names[c->snap_form],
          c->snap_targets_only ? " (targets only)" : "", c->tile, c->threads,
          (unsigned)c->nulls, c->host_mode, c->small_stack, c->misalign_mask);
  for (int b = 0; b < c->descs && b < 8; b++)
    fprintf(stderr,
            "  behaviour %d: kind %d, target %d, weight %a%s, per-agent 0x%x, null %d\n",
            b, c->b[b].kind, c->b[b].target_kind, (double)c->b[b].weight,
            c->b[b].weight_per_agent ? " (per agent)" : "", (unsigned)c->b[b].per_agent,
            c->b[b].null_what);
}

/* What a valid step may write: the new state (output buffer, or the agents
 * in place) and the wander state of the agents that use a wander behaviour,
 * all only in [begin, end) and only on the axes of dims. */
static int may_write(const scase *c, const sworld *w, const bufref *r, size_t i) {
  if (i < c->begin || i >= c->end) return 0;
  const int in_place = c->out_form == BUF_NONE;
  switch (r->role) {
  case R_AGENT: return in_place && r->axis % 3 < c->dims;
  case R_OUTPUT: return !in_place && r->axis % 3 < c->dims;
  case R_WDIR:
    return c->b[r->b].kind == CROWDSTEER_WANDER && r->axis < c->dims &&
           selected(c, w, i, r->b);
  default: return 0;
  }
}

/* Every byte a call may not write is as before (`written`: 0 for a call that
 * failed, which may write nothing). Exact bytes: even a NaN keeps its payload. */
static int check_untouched(const scase *c, int isa, sworld *before, sworld *after,
                           int written, const char *what) {
  bufref lb[MAX_BUFS], la[MAX_BUFS];
  int n = list_buffers(before, lb);
  list_buffers(after, la);
  for (int j = 0; j < n; j++) {
    const char *p = (const char *)*lb[j].slot, *q = (const char *)*la[j].slot;
    if (!p) continue;
    for (size_t i = 0; i < c->count; i++) {
      if (written && may_write(c, before, &lb[j], i)) continue;
      if (memcmp(p + i * ELEM, q + i * ELEM, ELEM) != 0) {
        float x, y;
        memcpy(&x, p + i * ELEM, ELEM);
        memcpy(&y, q + i * ELEM, ELEM);
        fail_header(c, isa, what);
        fprintf(stderr, "  %s (behaviour %d, axis %d)[%zu] changed from %a to %a\n",
                role_names[lb[j].role], lb[j].b, lb[j].axis, i, (double)x, (double)y);
        return 1;
      }
    }
  }
  return 0;
}

/* Two runs of the same valid step agree everywhere (NaN == NaN). */
static int check_same_world(const scase *c, int isa, sworld *want, sworld *got,
                            const char *what) {
  bufref lw[MAX_BUFS], lg[MAX_BUFS];
  int n = list_buffers(want, lw);
  list_buffers(got, lg);
  for (int j = 0; j < n; j++) {
    const float *p = (const float *)*lw[j].slot, *q = (const float *)*lg[j].slot;
    if (!p || lw[j].role == R_MASK || lw[j].role == R_INDEX) continue;
    for (size_t i = 0; i < c->count; i++)
      if (!cs_fuzz_same_bits(p[i], q[i])) {
        fail_header(c, isa, what);
        fprintf(stderr,
                "  %s (behaviour %d, axis %d)[%zu]: expected %a (%.9g), got %a (%.9g)\n",
                role_names[lw[j].role], lw[j].b, lw[j].axis, i, (double)p[i],
                (double)p[i], (double)q[i], (double)q[i]);
        return 1;
      }
  }
  return 0;
}

/* The composition, as tests/step/test_step.c writes it, on the scalar
 * reference: each behaviour through its public entry point, one call per
 * agent that uses it (a single-behaviour call checks every agent of its
 * range, and agents left out may hold data it rejects), on the state before
 * the step; then blend or priority per agent; then crowdsteer_integrate.
 * Works in place on `cw` (a copy of the input): the new state lands in its
 * agents, wander directions in its wander arrays. Returns 0 on success. */
static int compose(const scase *c, sworld *cw, int isa) {
  const size_t n = c->count;
  const int dims = c->dims;
  call_view v;
  build_view(c, cw, &v, 1, 1);
  free(v.descs);
  float *acc[3], *decided = (float *)calloc(n + 1, sizeof(float)), *steer[3];
  for (int k = 0; k < 3; k++) {
    acc[k] = (float *)calloc(n + 1, sizeof(float));
    steer[k] = (float *)calloc(n + 1, sizeof(float));
  }
  int failed = 0;
  crowdsteer_force_isa(CROWDSTEER_ISA_SCALAR);
  for (int b = 0; b < c->arrays_for && !failed; b++) {
    const crowdsteer_step_behaviour *d = &v.desc[b];
    crowdsteer_output out = {
        {steer[0], steer[1], steer[2]}, CROWDSTEER_OVERWRITE, 0, NULL};
    crowdsteer_params params = d->params; /* a max_speed left at 0: the integrator's */
    if (params.max_speed == 0.0f && !params.max_speed_per_agent) {
      params.max_speed = v.step.integrator.max_speed;
      params.max_speed_per_agent = v.step.integrator.max_speed_per_agent;
    }
    for (size_t i = c->begin; i < c->end; i++) {
      if (!selected(c, cw, i, b)) continue;
      crowdsteer_step_behaviour one = *d;
      one.params = params;
      const crowdsteer_status st = crowdsteer_run(&v.agents, &one, &out, i, i + 1);
      if (st != CROWDSTEER_OK) {
        fail_header(c, isa, "the step accepted what a single-behaviour call rejects");
        fprintf(stderr, "  behaviour %d on agent %zu: status %d\n", b, i, (int)st);
        failed = 1;
        break;
      }
      const float wgt = d->weight_per_agent ? d->weight_per_agent[i]
                        : d->weight == 0.0f ? 1.0f
                                            : d->weight;
      if (c->combine == CROWDSTEER_BLEND) {
        for (int k = 0; k < dims; k++)
          acc[k][i] = acc[k][i] + wgt * steer[k][i];
      } else if (decided[i] == 0.0f) {
        float dot = 0.0f;
        for (int k = 0; k < dims; k++) {
          acc[k][i] = wgt * steer[k][i];
          dot = k == 0 ? acc[k][i] * acc[k][i] : dot + acc[k][i] * acc[k][i];
        }
        if (sqrtf(dot) > c->threshold) decided[i] = 1.0f;
      }
    }
  }
  if (!failed) {
    crowdsteer_vectors steering = {acc[0], acc[1], acc[2]};
    crowdsteer_status st =
        crowdsteer_integrate(&v.agents, &steering, &v.step.integrator, c->begin, c->end);
    if (st != CROWDSTEER_OK) {
      fail_header(c, isa,
                  "the step accepted integrator data crowdsteer_integrate rejects");
      failed = 1;
    }
  }
  crowdsteer_force_isa((crowdsteer_isa)isa);
  for (int k = 0; k < 3; k++)
    free(acc[k]), free(steer[k]);
  free(decided);
  return failed;
}

/* The step's result (`got`) equals the composition (`cw`): new state and
 * wander directions. */
static int check_composition(const scase *c, int isa, const sworld *cw, const sworld *got,
                             const char *what) {
  const int in_place = c->out_form == BUF_NONE;
  for (int a = 0; a < 6; a++) {
    if (a % 3 >= c->dims) continue;
    const float *want = cw->agent[a], *have = in_place ? got->agent[a] : got->output[a];
    for (size_t i = c->begin; i < c->end; i++)
      if (!cs_fuzz_same_bits(want[i], have[i])) {
        fail_header(c, isa, what);
        fprintf(stderr, "  %s[%zu]: composition %a (%.9g), step %a (%.9g)\n",
                (const char *const[]){"px", "py", "pz", "vx", "vy", "vz"}[a], i,
                (double)want[i], (double)want[i], (double)have[i], (double)have[i]);
        return 1;
      }
  }
  for (int b = 0; b < c->arrays_for; b++)
    for (int k = 0; k < c->dims; k++) {
      const float *want = cw->b[b].wdir[k], *have = got->b[b].wdir[k];
      for (size_t i = 0; want && i < c->count; i++)
        if (!cs_fuzz_same_bits(want[i], have[i])) {
          fail_header(c, isa, what);
          fprintf(
              stderr,
              "  wander of behaviour %d, axis %d, agent %zu: composition %a, step %a\n",
              b, k, i, (double)want[i], (double)have[i]);
          return 1;
        }
    }
  return 0;
}

/* ---- one step case ----------------------------------------------------------
 * Properties of crowdsteer_step:
 *  1. no crash and no sanitizer report, with everything outside the range
 *     and every agent state no selected agent targets poisoned (guard());
 *  2. the status is one the header allows (expected_errors());
 *  3. a failed call leaves every array byte-for-byte unchanged;
 *  4. a valid call writes only the new state (output buffer or agents) and
 *     the wander state of agents that use wander, only on [begin, end);
 *  5. it is bit-identical to the same step on the scalar reference;
 *  6. with tile 1 and one thread, and as decoded, it is bit-identical to the
 *     composition of single-behaviour calls (NaN == NaN);
 *  7. another tile size and thread count, with the range split in two,
 *     gives the same bits. */
/* The checks of a step the library accepted (`a`, from `w0`): the scalar
 * reference, the composition of single-behaviour calls, tile 1 on one thread
 * and a split call give the same bits. */
static int check_accepted_step(scase *c, int isa, sworld *w0, sworld *a, int failed) {
  sworld ref, unit, split, cw;
  sworld_copy(&ref, w0);
  crowdsteer_force_isa(CROWDSTEER_ISA_SCALAR);
  crowdsteer_status st = run_step(c, &ref, c->begin, c->end, c->tile, c->threads);
  crowdsteer_force_isa((crowdsteer_isa)isa);
  if (st != CROWDSTEER_OK) {
    fail_header(c, isa, "the scalar reference rejected a step the ISA accepted");
    failed = 1;
  } else if (!failed) {
    failed |= check_same_world(c, isa, &ref, a, "differs from the scalar reference");
  }

  sworld_copy(&cw, w0);
  int composed = !failed && compose(c, &cw, isa) == 0;
  failed |= !failed && !composed;
  if (composed)
    failed |= check_composition(c, isa, &cw, a, "differs from the composition");

  sworld_copy(&unit, w0);
  st = run_step(c, &unit, c->begin, c->end, 1, 1);
  if (st != CROWDSTEER_OK) {
    fail_header(c, isa, "tile 1, one thread rejected a valid step");
    failed = 1;
  } else if (composed && !failed) {
    failed |= check_composition(c, isa, &cw, &unit,
                                "tile 1, one thread differs from the composition");
  }

  /* In place, an AGENT target is read at the start of each call: a split
   * step sees it as the first piece left it (the header says so). */
  int split_differs = 0;
  for (int b = 0; b < c->arrays_for && c->out_form == BUF_NONE; b++)
    split_differs |= single_target(c, b);
  sworld_copy(&split, w0);
  crowdsteer_status s1 =
      run_step(c, &split, c->split, c->end, c->alt_tile, c->alt_threads);
  crowdsteer_status s2 =
      run_step(c, &split, c->begin, c->split, c->alt_tile, c->alt_threads);
  if (s1 != CROWDSTEER_OK || s2 != CROWDSTEER_OK) {
    fail_header(c, isa, "a piece of a valid step was rejected");
    failed = 1;
  } else if (!failed && !split_differs) {
    char what[96];
    snprintf(what, sizeof what, "split at %zu with tile %zu, %d thread(s) differs",
             c->split, c->alt_tile, c->alt_threads);
    failed |= check_same_world(c, isa, a, &split, what);
  }

  sworld_free(&cw);
  sworld_free(&split);
  sworld_free(&unit);
  sworld_free(&ref);
  return failed;
}

int cs_fuzz_step(reader *r, int isa_override) {
  scase *c = (scase *)malloc(sizeof *c);
  if (!c) abort();
  sworld w0;
  decode_step(r, c, &w0);
  int isa = isa_override >= 0 ? isa_override : c->isa;
  if (!crowdsteer_isa_supported((crowdsteer_isa)isa)) isa = CROWDSTEER_ISA_SCALAR;
  if (crowdsteer_force_isa((crowdsteer_isa)isa) != CROWDSTEER_OK) abort();
  c->isa = isa;
  cs_fuzz_counters.steps++;

  int failed = 0;
  sworld a;
  sworld_copy(&a, &w0);
  cs_fuzz_set_host_mode(c->host_mode);
  const unsigned long long mode_before = cs_fuzz_host_mode();
  crowdsteer_status st = run_step(c, &a, c->begin, c->end, c->tile, c->threads);
  const unsigned long long mode_after = cs_fuzz_host_mode();
  cs_fuzz_set_host_mode(0);
  unsigned required, optional;
  expected_errors(c, &w0, &required, &optional);
  int allowed = st == CROWDSTEER_OK ? required == 0 : ((required | optional) >> st) & 1u;
  if (mode_after != mode_before) {
    fail_header(c, isa, "the step changed the host's floating-point mode");
    failed = 1;
  }
  if (!allowed) {
    fail_header(c, isa, "unexpected status");
    fprintf(stderr, "  got %d (%s); required mask 0x%x, optional mask 0x%x\n", (int)st,
            crowdsteer_status_string(st), required, optional);
    failed = 1;
  }
  if (st != CROWDSTEER_OK) {
    failed |= check_untouched(c, isa, &w0, &a, 0, "failed step wrote");
    sworld_free(&a);
    sworld_free(&w0);
    free(c);
    return failed;
  }
  cs_fuzz_counters.steps_accepted++;
  failed |= check_untouched(c, isa, &w0, &a, 1,
                            "valid step wrote outside its outputs or range");

  failed = check_accepted_step(c, isa, &w0, &a, failed);
  sworld_free(&a);
  sworld_free(&w0);
  free(c);
  return failed;
}
