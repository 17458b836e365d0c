/* Fuzz cases for obstacles and ORCA avoidance (libFuzzer inputs that start
 * with "AV"; see fuzz_crowdsteer.c). Bytes decode (fuzz_avoid_call.c) to an
 * obstacle set (polygons and walls on a small lattice, some with raw
 * floats: NaN, infinities, huge and tiny values), a crowd (2D or 3D, 0 to
 * 200 agents, coincident ones, ids distinct, shared or absent), an
 * avoidance description (every field, valid or not, per-agent arrays, a
 * report), a neighbour grid or none, and a step. Properties:
 *  1. obstacles_add returns exactly the status of a brute-force oracle (its
 *     documented checks in order, every pair of edges tested exactly), a
 *     refused add leaves edge_count unchanged; obstacles_inside agrees with
 *     a brute-force crossing count over every polygon;
 *  2. crowdsteer_avoid and crowdsteer_step return OK exactly when the
 *     input has no documented fault, else one of its faults; a refused call
 *     writes nothing (all output memory compared with a copy), an accepted
 *     one only its range, and neither writes what it only reads;
 *  3. with sane inputs (case_sane says which, and why) results are finite;
 *     every finite velocity ORCA picks is within max_speed (1 + 1e-5);
 *  4. crowdsteer_avoid gives the same bits with a grid and without, on
 *     every ISA, in place, split in two calls, and for the crowd reversed
 *     with its ids (grid and reversal: unless ids are shared);
 *  5. the step with avoidance is the composition (the step without it, out
 *     of place, gives preferred velocities; crowdsteer_avoid; p + v dt)
 *     for agents not reported WALL or INSIDE, and the same bits with 1 or
 *     2 threads, another tile, in place or not, a workspace or not, on
 *     every ISA;
 *  6. walls hold: no move of a step crosses an obstacle edge (the exact
 *     predicates of src/avoid/exact.h over every edge, no grid), an agent
 *     is reported INSIDE exactly when it starts strictly inside a polygon,
 *     and then it stays where it was, at rest. */
#include "fuzz_avoid.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_avoid_call.h"

cs_fuzz_avoid_stats cs_fuzz_avoid_counters;

static float speed_limit(const av_case *c, const crowd *w, size_t i) {
  if (c->speed_pa) return w->speed[i];
  return c->params.max_speed == 0.0f ? 1.0f : c->params.max_speed;
}

/* The speed bound's slack for agent i: the solver ends by scaling a
 * velocity past max_speed back onto the disc, which leaves at most a few
 * roundings (the header's 2^-20). Once a finding of this fuzzer: a line far
 * from the origin passed as tangent and its foot point landed outside. */
static double speed_slack(const av_case *c, size_t i) {
  (void)c, (void)i;
  return 0x1p-20;
}

/* Property 3 for agent i's velocity (dims axes of v). */
static int check_velocity(const av_case *c, float *const v[3], size_t i, int sane,
                          const char *call) {
  double squared = 0.0;
  int all_finite = 1;
  for (int k = 0; k < c->w.dims; k++) {
    all_finite &= isfinite(v[k][i]) != 0;
    squared += (double)v[k][i] * v[k][i];
  }
  char what[128];
  if (sane && !all_finite) {
    snprintf(what, sizeof what, "%s: a non-finite velocity from sane inputs", call);
    fprintf(stderr, "  agent %zu: (%a, %a)\n", i, (double)v[0][i], (double)v[1][i]);
    return failf(c, what);
  }
  const double slack = speed_slack(c, i);
  const double limit = (double)speed_limit(c, &c->w, i) * (1.0 + slack);
  if (all_finite && slack > 0.0 && !(sqrt(squared) <= limit)) {
    snprintf(what, sizeof what, "%s: speed above max_speed", call);
    fprintf(stderr, "  agent %zu: |v| %.9g, max_speed %.9g\n", i, sqrt(squared),
            (double)speed_limit(c, &c->w, i));
    return failf(c, what);
  }
  return 0;
}

static void force_isa(int isa) {
  if (crowdsteer_force_isa((crowdsteer_isa)isa) != CROWDSTEER_OK) abort();
}

/* Property 1's second half: obstacles_inside at every agent's position. */
static int check_inside(const av_case *c) {
  if (c->w.dims != 2) return 0;
  for (size_t i = 0; i < c->w.n; i++) {
    int inside = -1;
    const float p[2] = {c->w.p[0][i], c->w.p[1][i]};
    const crowdsteer_status st =
        crowdsteer_obstacles_inside(c->obstacles, p[0], p[1], &inside);
    if (st != (c->built ? CROWDSTEER_OK : CROWDSTEER_ERROR_GRID))
      return failf(c, "obstacles_inside status");
    if (st == CROWDSTEER_OK && isfinite(p[0]) && isfinite(p[1]) &&
        inside != brute_inside(c, p)) {
      fprintf(stderr, "  (%a, %a): %d\n", (double)p[0], (double)p[1], inside);
      return failf(c, "obstacles_inside differs from the exact crossing count");
    }
  }
  return 0;
}

/* Property 4: the same bits every other way (`want`: the accepted call). */
static int avoid_variants(av_case *c, const crowdsteer_grid *grid, const outputs *want) {
  crowd *w = &c->w;
  const size_t n = w->n, b = c->begin, e = c->end;
  const int dims = w->dims;
  const crowdsteer_neighbours nb = neighbours_for(c, w, grid);
  int failed = 0;
  outputs o;
  out_alloc(&o, n);
  if (avoid_call(c, w, &nb, 1, c->report_on, &o, b, e) != CROWDSTEER_OK ||
      !out_same(&o, want, dims, b, e))
    failed |= failf(c, "crowdsteer_avoid in place differs");
  out_free(&o);
  out_alloc(&o, n);
  if (avoid_call(c, w, &nb, 0, c->report_on, &o, c->split, e) != CROWDSTEER_OK ||
      avoid_call(c, w, &nb, 0, c->report_on, &o, b, c->split) != CROWDSTEER_OK ||
      !out_same(&o, want, 3, 0, n))
    failed |= failf(c, "crowdsteer_avoid split in two calls differs");
  out_free(&o);
  for (int isa = 0; isa < CROWDSTEER_ISA_COUNT; isa++) {
    if (isa == c->isa || !crowdsteer_isa_supported((crowdsteer_isa)isa)) continue;
    force_isa(isa);
    out_alloc(&o, n);
    if (avoid_call(c, w, &nb, 0, c->report_on, &o, b, e) != CROWDSTEER_OK ||
        !out_same(&o, want, 3, 0, n))
      failed |= failf(c, "crowdsteer_avoid differs on this ISA");
    out_free(&o);
  }
  force_isa(c->isa);
  /* Shared ids: tie-breaks between agents sharing one may follow the order. */
  if (c->id_mode == 2) return failed;
  if (c->nb_mode) { /* a grid where there was none, and the other way */
    crowdsteer_neighbours other = neighbours_for(c, w, NULL);
    crowdsteer_grid *made = NULL;
    if (grid) {
      if (other.radius == 0.0f) other.radius = c->gd.cell_size;
    } else {
      made = grid_of(c, w, fmaxf(c->gd.cell_size, c->nb.radius), 0);
      if (!made) return failf(c, "a grid for the radius refused");
      other = neighbours_for(c, w, made);
    }
    out_alloc(&o, n);
    if (avoid_call(c, w, &other, 0, c->report_on, &o, b, e) != CROWDSTEER_OK ||
        !out_same(&o, want, 3, 0, n))
      failed |= failf(c, grid ? "crowdsteer_avoid without the grid differs"
                              : "crowdsteer_avoid through a grid differs");
    out_free(&o);
    crowdsteer_grid_destroy(made);
    cs_fuzz_avoid_counters.grid_checked++;
  }
  /* The crowd reversed, each agent keeping its id (its index when the
   * crowd had none) and its data: agent i's bits are agent n - 1 - i's. */
  crowd rev;
  crowd_copy(&rev, w, 1);
  crowdsteer_grid *rev_grid = grid ? grid_of(c, &rev, c->gd.cell_size, 0) : NULL;
  const crowdsteer_neighbours rev_nb = neighbours_for(c, &rev, rev_grid);
  out_alloc(&o, n);
  if (avoid_call(c, &rev, &rev_nb, 0, c->report_on, &o, n - e, n - b) != CROWDSTEER_OK) {
    failed |= failf(c, "crowdsteer_avoid on the reversed crowd refused");
  } else {
    for (size_t i = b; i < e; i++) {
      int same = !c->report_on || o.report[n - 1 - i] == want->report[i];
      for (int k = 0; k < dims; k++)
        same &= cs_fuzz_same_bits(o.v[k][n - 1 - i], want->v[k][i]);
      if (!same) {
        fprintf(stderr, "  agent %zu\n", i);
        failed |= failf(c, "crowdsteer_avoid on the reversed crowd differs");
        break;
      }
    }
    cs_fuzz_avoid_counters.reversed_checked++;
  }
  out_free(&o);
  crowdsteer_grid_destroy(rev_grid);
  crowd_free(&rev);
  return failed;
}

/* Properties 2 to 4 for crowdsteer_avoid. */
static int check_avoid(av_case *c, const crowdsteer_grid *grid) {
  crowd *w = &c->w;
  const size_t n = w->n;
  int failed = 0;
  crowd before;
  crowd_copy(&before, w, 0);
  outputs o, canary;
  out_alloc(&o, n);
  out_alloc(&canary, n);
  const crowdsteer_neighbours nb = neighbours_for(c, w, grid);
  /* The call under test in the case's host mode: the bits must not see it. */
  cs_fuzz_set_host_mode(c->host_mode);
  const crowdsteer_status st =
      avoid_call(c, w, &nb, 0, c->report_on, &o, c->begin, c->end);
  cs_fuzz_set_host_mode(0);
  cs_fuzz_avoid_counters.avoids++;
  if (!crowd_same(w, &before)) failed |= failf(c, "crowdsteer_avoid wrote its inputs");
  const unsigned faults = avoid_faults(c, 0);
  if (!status_allowed(faults, st)) {
    failed |= failf(c, "crowdsteer_avoid status");
    fprintf(stderr, "  got %d (%s), faults 0x%x\n", (int)st, crowdsteer_status_string(st),
            faults);
  }
  if (st != CROWDSTEER_OK) {
    if (!out_same(&o, &canary, 3, 0, n))
      failed |= failf(c, "a refused crowdsteer_avoid wrote");
  } else {
    cs_fuzz_avoid_counters.avoids_accepted++;
    int untouched =
        out_same(&o, &canary, 3, 0, c->begin) && out_same(&o, &canary, 3, c->end, n);
    for (size_t i = c->begin; i < c->end; i++) {
      untouched &=
          w->dims == 3 || memcmp(&o.v[2][i], &canary.v[2][i], sizeof(float)) == 0;
      untouched &= c->report_on || o.report[i] == canary.report[i];
    }
    if (!untouched)
      failed |= failf(c, "crowdsteer_avoid wrote outside its outputs or range");
    const int sane = case_sane(c);
    cs_fuzz_avoid_counters.sane_checked += (unsigned long)sane;
    for (size_t i = c->begin; i < c->end && !failed; i++) {
      failed |= check_velocity(c, o.v, i, sane, "crowdsteer_avoid");
      if (c->report_on && (o.report[i] & ~(uint32_t)CROWDSTEER_REPORT_CROWDED))
        failed |= failf(c, "crowdsteer_avoid reported more than CROWDED");
    }
    if (!failed) failed |= avoid_variants(c, grid, &o);
  }
  out_free(&o);
  out_free(&canary);
  crowd_free(&before);
  return failed;
}

/* Property 6 on a step from `w` to state `r` with reports `report`. */
static int check_walls(const av_case *c, const crowd *w, const crowd *r,
                       const uint32_t *report) {
  const float dt = c->params.dt == 0.0f ? 1.0f : c->params.dt;
  for (size_t i = c->begin; i < c->end; i++) {
    if (w->dims == 3 || !c->obstacles_on) {
      if (report[i] & WALL_OR_INSIDE) return failf(c, "WALL or INSIDE without obstacles");
      continue;
    }
    const float p[2] = {w->p[0][i], w->p[1][i]}, q[2] = {r->p[0][i], r->p[1][i]};
    if (!isfinite(p[0]) || !isfinite(p[1])) continue;
    cs_fuzz_avoid_counters.moves_checked++;
    const int inside = (report[i] & CROWDSTEER_REPORT_INSIDE) != 0;
    if (inside != brute_inside(c, p)) {
      fprintf(stderr, "  agent %zu at (%a, %a), report %u\n", i, (double)p[0],
              (double)p[1], report[i]);
      return failf(c, "INSIDE reported differently from the exact test");
    }
    if (inside) {
      cs_fuzz_avoid_counters.insides++;
      if (memcmp(p, q, sizeof p) != 0 || r->v[0][i] != 0.0f || r->v[1][i] != 0.0f)
        return failf(c, "an agent inside a polygon moved");
      continue;
    }
    if (!isfinite(q[0]) || !isfinite(q[1]))
      return failf(c, "a move from a finite position to a non-finite one");
    if (brute_crosses(c, p, q)) {
      fprintf(stderr, "  agent %zu: (%a, %a) -> (%a, %a), report %u\n", i, (double)p[0],
              (double)p[1], (double)q[0], (double)q[1], report[i]);
      return failf(c, "a step's move crossed an obstacle edge");
    }
    if (report[i] & CROWDSTEER_REPORT_WALL) {
      cs_fuzz_avoid_counters.wall_stops++;
      for (int k = 0; k < 2; k++) {
        const float v = (q[k] - p[k]) / dt;
        if (!cs_fuzz_same_bits(v, r->v[k][i]))
          return failf(c, "a wall stop's velocity is not the move made over dt");
      }
    }
  }
  return 0;
}

/* A crowd for a step's output: w's shape, every element a canary. */
static void canary_crowd(crowd *o, crowd *w) {
  crowd_copy(o, w, 0);
  for (int k = 0; k < 3; k++)
    for (size_t i = 0; i < w->n; i++)
      o->p[k][i] = o->v[k][i] = -777.0f - (float)i;
}

/* The states x and y agree on agents [first, last): positions and
 * velocities of `dims` axes (any two NaNs agree: payloads are unspecified). */
static int state_same(const crowd *x, const crowd *y, size_t first, size_t last) {
  for (size_t i = first; i < last; i++)
    for (int k = 0; k < x->dims; k++)
      if (!cs_fuzz_same_bits(x->p[k][i], y->p[k][i]) ||
          !cs_fuzz_same_bits(x->v[k][i], y->v[k][i]))
        return 0;
  return 1;
}

/* Property 5 (and 2, 3, 6) for crowdsteer_step with the avoidance. */
static int check_step(av_case *c) {
  crowd *w = &c->w;
  const size_t n = w->n, b = c->begin, e = c->end;
  int failed = 0;
  crowdsteer_grid *grid =
      c->nb_mode == 2 ? grid_of(c, w, c->gd.cell_size, c->gd.positions_only) : NULL;
  if (c->nb_mode == 2 && !grid) return failf(c, "grid build refused");
  crowd s0, o0, canary;
  crowd_copy(&s0, w, 0);
  canary_crowd(&o0, w);
  canary_crowd(&canary, w);
  outputs r0, r1;
  out_alloc(&r0, n);
  out_alloc(&r1, n);
  const crowdsteer_status st =
      step_call(c, &s0, c->in_place ? NULL : &o0, grid, c->threads, c->tile, c->workspace,
                c->report_on ? r0.report : NULL, 1);
  cs_fuzz_avoid_counters.steps++;
  const unsigned faults = avoid_faults(c, 1);
  if (!status_allowed(faults, st)) {
    failed |= failf(c, "crowdsteer_step status");
    fprintf(stderr, "  got %d (%s), faults 0x%x\n", (int)st, crowdsteer_status_string(st),
            faults);
  }
  const crowd *res = c->in_place ? &s0 : &o0;
  outputs fresh;
  out_alloc(&fresh, n);
  if (st != CROWDSTEER_OK) {
    if (!crowd_same(&s0, w) || !crowd_same(&o0, &canary) ||
        !out_same(&r0, &fresh, 0, 0, n))
      failed |= failf(c, "a refused crowdsteer_step wrote");
    goto done;
  }
  cs_fuzz_avoid_counters.steps_accepted++;
  {
    const crowd *outside = c->in_place ? w : &canary;
    int untouched = state_same(res, outside, 0, b) && state_same(res, outside, e, n) &&
                    out_same(&r0, &fresh, 0, 0, b) && out_same(&r0, &fresh, 0, e, n);
    untouched &= c->in_place || crowd_same(&s0, w);
    untouched &= c->report_on || out_same(&r0, &fresh, 0, 0, n);
    if (!untouched)
      failed |= failf(c, "crowdsteer_step wrote outside its outputs or range");
  }
  /* The other way of running it: threads, tile, in place, workspace. */
  crowd s1, o1;
  crowd_copy(&s1, w, 0);
  canary_crowd(&o1, w);
  const crowdsteer_status st1 =
      step_call(c, &s1, c->in_place ? &o1 : NULL, grid, 3 - c->threads,
                c->tile == 7 ? 1 : 7, !c->workspace, r1.report, 1);
  const crowd *res1 = c->in_place ? &o1 : &s1;
  if (st1 != CROWDSTEER_OK || !state_same(res, res1, b, e) ||
      (c->report_on && !out_same(&r0, &r1, 0, b, e)))
    failed |= failf(c, "crowdsteer_step differs with other threads, tile or buffers");
  for (int isa = 0; isa < CROWDSTEER_ISA_COUNT && !failed; isa++) {
    if (isa == c->isa || !crowdsteer_isa_supported((crowdsteer_isa)isa)) continue;
    force_isa(isa);
    crowd s2, o2;
    crowd_copy(&s2, w, 0);
    canary_crowd(&o2, w);
    outputs r2;
    out_alloc(&r2, n);
    if (step_call(c, &s2, c->in_place ? &o2 : NULL, grid, 1, c->tile, 0, r2.report, 1) !=
            CROWDSTEER_OK ||
        !state_same(c->in_place ? &o2 : &s2, res1, b, e) || !out_same(&r2, &r1, 0, b, e))
      failed |= failf(c, "crowdsteer_step differs on this ISA");
    out_free(&r2);
    crowd_free(&s2);
    crowd_free(&o2);
  }
  force_isa(c->isa);
  /* The composition: preferred velocities from the step without the
   * avoidance (out of place), crowdsteer_avoid from the state before the
   * step, then p + v dt. */
  crowd plain, pref;
  crowd_copy(&plain, w, 0);
  canary_crowd(&pref, w);
  outputs ov;
  out_alloc(&ov, n);
  if (step_call(c, &plain, &pref, grid, 1, 0, 0, NULL, 0) != CROWDSTEER_OK) {
    failed |= failf(c, "the step without the avoidance refused");
  } else {
    for (int k = 0; k < w->dims; k++)
      memcpy(plain.pref[k], pref.v[k], n * sizeof(float));
    const crowdsteer_neighbours nb = neighbours_for(c, &plain, grid);
    const float dt = c->params.dt == 0.0f ? 1.0f : c->params.dt;
    if (avoid_call(c, &plain, &nb, 0, 1, &ov, b, e) != CROWDSTEER_OK)
      failed |= failf(c, "crowdsteer_avoid of the composition refused");
    for (size_t i = b; i < e && !failed; i++) {
      const uint32_t crowded = CROWDSTEER_REPORT_CROWDED;
      cs_fuzz_avoid_counters.crowded += (r1.report[i] & crowded) != 0;
      int same = (r1.report[i] & crowded) == (ov.report[i] & crowded);
      if (!(r1.report[i] & WALL_OR_INSIDE))
        for (int k = 0; k < w->dims; k++) {
          const float q = w->p[k][i] + ov.v[k][i] * dt;
          same &= cs_fuzz_same_bits(res1->v[k][i], ov.v[k][i]) &&
                  cs_fuzz_same_bits(res1->p[k][i], q);
        }
      if (!same) {
        fprintf(stderr, "  agent %zu, report %u\n", i, r1.report[i]);
        failed |= failf(c, "crowdsteer_step differs from the composition");
      }
    }
  }
  if (!failed) failed |= check_walls(c, w, res1, r1.report);
  const int sane = case_sane(c);
  for (size_t i = b; i < e && !failed; i++)
    if (!(r1.report[i] & WALL_OR_INSIDE))
      failed |= check_velocity(c, res1->v, i, sane, "crowdsteer_step");
  out_free(&ov);
  crowd_free(&plain);
  crowd_free(&pref);
  crowd_free(&s1);
  crowd_free(&o1);
done:
  out_free(&fresh);
  out_free(&r0);
  out_free(&r1);
  crowd_free(&s0);
  crowd_free(&o0);
  crowd_free(&canary);
  crowdsteer_grid_destroy(grid);
  return failed;
}

int cs_fuzz_avoid(const uint8_t *data, size_t size, int isa_override) {
  reader r = {data, size, 0, 0xA701Dull + size};
  static av_case c; /* large: keep it off the stack */
  memset(&c, 0, sizeof c);
  cs_fuzz_avoid_counters.cases++;
  int failed = decode(&r, &c);
  if (isa_override >= 0) c.isa = isa_override;
  if (!crowdsteer_isa_supported((crowdsteer_isa)c.isa)) c.isa = CROWDSTEER_ISA_SCALAR;
  force_isa(c.isa);
  failed |= check_inside(&c);
  crowdsteer_grid *grid = NULL;
  if (c.nb_mode == 2) {
    grid = grid_of(&c, &c.w, c.gd.cell_size, c.gd.positions_only);
    if (!grid) failed |= failf(&c, "grid build refused");
  }
  if (!failed) failed |= check_avoid(&c, grid);
  if (!failed) failed |= check_step(&c);
  crowdsteer_grid_destroy(grid);
  crowdsteer_obstacles_destroy(c.obstacles);
  crowd_free(&c.w);
  return failed;
}
