/* Reynolds' forms of separation, cohesion and alignment and the inner
 * radius (crowdsteer_flock.h): on every ISA, through grids of several cell
 * and table sizes and over split ranges, exactly the brute force's bits
 * (small crowds with coincident agents, agents at rest, clusters past the
 * nearest-k buffer); the brute force against the written formulas computed
 * independently in double precision, within the exact sums' rounding; a
 * step with them against the named calls and the integrator; steps whose
 * behaviours share one walk against the scalar backend's; the default
 * form unchanged by an inner radius without a field of view; and the new
 * fields' validation. */
#include "../common/neighbour_crowd.h"

typedef nb_options options;

static float per_agent_radius[512];

static crowdsteer_neighbours make_query(const crowd *c, const options *o) {
  return nb_options_query(c, o, per_agent_radius);
}

static void fill(crowd *c, rng *r, float density, int cluster) {
  crowd_varied(c, r, density, cluster ? 90 : 0, per_agent_radius);
}

static int compare(const crowd *c, float *const want[3], const char *what, int b,
                   const options *o) {
  for (int k = 0; k < c->dims; k++)
    for (size_t i = 0; i < c->count; i++)
      if (!same_bits(c->out[k][i], want[k][i])) {
        CHECK_MSG(0,
                  "%s %s form %d fov %d inner %g cap %d %zu agents %dD: agent %zu "
                  "axis %d: %.9g vs %.9g",
                  what, nb_name(b), o->form, o->fov, (double)o->inner, o->cap, c->count,
                  c->dims, i, k, c->out[k][i], want[k][i]);
        return 0;
      }
  return 1;
}

/* ---- the written formulas, in double precision ------------------------------ */

typedef struct candidate {
  double dist;
  size_t q;
} candidate;

static int nearer(const void *x, const void *y) {
  const candidate *a = x, *b = y;
  if (a->dist != b->dist) return a->dist < b->dist ? -1 : 1;
  return a->q < b->q ? -1 : 1;
}

static double len3(const double x[3]) {
  return sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
}

/* Agent i's steering by the definitions (docs/behaviours.md, "Forms"),
 * with `bound` an upper bound of the library's error from its roundings:
 * each contribution component rounded to a float and to a multiple of
 * 2^-24 (n of them), the float steps after, relative to the length
 * normalised. Returns 0 when the case is too close to call (a distance
 * or view angle within 1e-5 of a boundary). */
static int formula(const crowd *c, const crowdsteer_neighbours *nb, int b, size_t i,
                   double s[3], double *bound) {
  const int dims = c->dims;
  const double radius = nb->radius_per_agent ? nb->radius_per_agent[i] : nb->radius;
  double v[3] = {0, 0, 0}, heading[3] = {0, 0, 0};
  for (int k = 0; k < dims; k++)
    v[k] = c->a[3 + k][i];
  const double speed = len3(v);
  for (int k = 0; k < dims; k++)
    heading[k] = speed > 0 ? v[k] / speed : 0.0;
  candidate *found = malloc((c->count + 1) * sizeof *found);
  size_t n = 0;
  int clear = 1;
  for (size_t q = 0; q < c->count; q++) {
    if (q == i) continue;
    double d[3] = {0, 0, 0};
    for (int k = 0; k < dims; k++)
      d[k] = (double)c->a[k][i] - c->a[k][q];
    const double dist = len3(d);
    if (fabs(dist - radius) < 1e-5) clear = 0;
    if (nb->inner_radius > 0 && fabs(dist - nb->inner_radius) < 1e-5) clear = 0;
    if (!(dist < radius)) continue;
    if (nb->neighbour_mask && !(c->group[q] & nb->neighbour_mask)) continue;
    if (nb->field_of_view && speed > 0 && dist > 0 && !(dist < nb->inner_radius)) {
      const double view =
          -(heading[0] * d[0] + heading[1] * d[1] + heading[2] * d[2]) / dist;
      if (fabs(view - nb->cos_field_of_view) < 1e-5) clear = 0;
      if (!(view >= nb->cos_field_of_view)) continue;
    }
    found[n].dist = dist;
    found[n++].q = q;
  }
  const uint32_t cap =
      nb->max_neighbours ? nb->max_neighbours : CROWDSTEER_MAX_NEIGHBOURS;
  qsort(found, n, sizeof *found, nearer);
  if (n > cap) {
    const double gap = found[cap].dist - found[cap - 1].dist;
    if (gap > 0.0 && gap < 1e-5) clear = 0; /* equal distances: ties by index */
    n = cap;
  }
  double C[3] = {0, 0, 0}, magnitude = 0.0;
  for (size_t m = 0; m < n; m++) {
    const size_t q = found[m].q;
    double d[3] = {0, 0, 0}, contribution[3] = {0, 0, 0};
    for (int k = 0; k < dims; k++)
      d[k] = (double)c->a[k][i] - c->a[k][q];
    const double dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    if (b == NB_SEPARATION) {
      if (dd == 0.0)
        contribution[0] = i < q ? -1.0 : 1.0;
      else
        for (int k = 0; k < dims; k++)
          contribution[k] = d[k] / dd;
    } else if (b == NB_COHESION) {
      for (int k = 0; k < dims; k++)
        contribution[k] = -d[k] / radius;
    } else {
      double w[3] = {0, 0, 0};
      for (int k = 0; k < dims; k++)
        w[k] = c->a[3 + k][q];
      const double l = len3(w);
      for (int k = 0; k < dims; k++)
        contribution[k] = l > 0 ? w[k] / l : 0.0;
    }
    for (int k = 0; k < dims; k++) {
      C[k] += contribution[k];
      magnitude += fabs(contribution[k]);
    }
  }
  free(found);
  s[0] = s[1] = s[2] = 0.0;
  *bound = 0.0;
  if (n == 0 || (magnitude == 0.0 && b != NB_ALIGNMENT)) return clear; /* exact zeros */
  /* Per component and contribution: 2^-25 (the fixed point) plus a few
   * float roundings of its magnitude; the float steps after the sum. */
  double error = (double)n * 0x1p-25 + 8.0 * 0x1p-24 * magnitude;
  if (b == NB_ALIGNMENT) {
    for (int k = 0; k < dims; k++)
      C[k] = C[k] / (double)n - heading[k];
    error = error / (double)n + 8.0 * 0x1p-24 * (1.0 + magnitude / (double)n);
  }
  const double l = len3(C);
  if (l == 0.0) return clear && error == 0.0;
  for (int k = 0; k < dims; k++)
    s[k] = C[k] / l;
  *bound = 4.0 * error * (double)dims / l + 1e-6;
  return clear && *bound < 0.05;
}

/* The brute force against the formulas: every agent that is clear of a
 * boundary (almost all), and the share checked must be large. */
static void check_formulas(const crowd *c, const crowdsteer_neighbours *nb, int b) {
  size_t checked = 0;
  for (size_t i = 0; i < c->count; i++) {
    double s[3], bound;
    if (!formula(c, nb, b, i, s, &bound)) continue;
    checked++;
    for (int k = 0; k < c->dims; k++)
      if (!(fabs(c->out[k][i] - s[k]) <= bound)) {
        CHECK_MSG(0,
                  "%s form %d fov %d inner %g %dD agent %zu axis %d: %.9g, formula %.9g "
                  "(bound %g)",
                  nb_name(b), nb->form, nb->field_of_view, (double)nb->inner_radius,
                  c->dims, i, k, c->out[k][i], s[k], bound);
        return;
      }
  }
  CHECK_MSG(checked * 10 >= c->count * 9, "%zu of %zu agents checked", checked, c->count);
}

/* ---- grids against the brute force ------------------------------------------ */

static void check_crowd(crowd *c, crowdsteer_grid *grid, const nb_options *o) {
  crowdsteer_neighbours nb = make_query(c, o);
  crowdsteer_params params = {0};
  params.max_speed = 1.5f;
  crowdsteer_output out = crowd_output(c);
  float *want[3];
  for (int k = 0; k < 3; k++)
    want[k] = (float *)calloc(c->count + 1, sizeof(float));
  static const float cells[4] = {1.0f, 1.5f, 4.0f, 1.0f};
  static const size_t tables[4] = {0, 512, 0, 4};
  for (int b = 0; b < NB_BEHAVIOURS; b++) {
    CHECK_STATUS(nb_call(b, c, &nb, &params, &out, 0, c->count), CROWDSTEER_OK);
    for (int k = 0; k < c->dims; k++)
      memcpy(want[k], c->out[k], c->count * sizeof(float));
    if (o->form == CROWDSTEER_FORM_REYNOLDS && !o->mask && !o->per_agent)
      check_formulas(c, &nb, b);
    for (int g = 0; g < 4; g++) {
      crowdsteer_grid_desc desc = {0};
      desc.cell_size = cells[g];
      desc.table_size = tables[g];
      desc.group = c->group;
      CHECK_STATUS(crowdsteer_grid_build(grid, &c->agents, &desc), CROWDSTEER_OK);
      crowdsteer_neighbours query = nb;
      query.grid = grid;
      query.group = NULL;
      for (int k = 0; k < c->dims; k++)
        memset(c->out[k], 0xFF, c->count * sizeof(float));
      const size_t cut1 = c->count / 3, cut2 = c->count - c->count / 5;
      if (g % 2 == 0) {
        CHECK_STATUS(nb_call(b, c, &query, &params, &out, 0, c->count), CROWDSTEER_OK);
      } else {
        CHECK_STATUS(nb_call(b, c, &query, &params, &out, cut2, c->count), CROWDSTEER_OK);
        CHECK_STATUS(nb_call(b, c, &query, &params, &out, 0, cut1), CROWDSTEER_OK);
        CHECK_STATUS(nb_call(b, c, &query, &params, &out, cut1, cut2), CROWDSTEER_OK);
      }
      if (!compare(c, want, g == 3 ? "grid scanning all" : "grid", b, o)) goto done;
    }
  }
done:
  for (int k = 0; k < 3; k++)
    free(want[k]);
}

static void check_grids(void) {
  static const size_t counts[] = {0, 1, 3, 17, 150, 300};
  static const options variants[] = {
      {1, 0, 0, 0, 0, 0.0f},  {1, 1, 0, 0, 0, 0.0f},  {1, 1, 0, 0, 0, 0.35f},
      {0, 1, 0, 0, 0, 0.35f}, {1, 0, 3, 0, 0, 0.0f},  {1, 1, 70, 0, 0, 0.35f},
      {1, 0, 0, 1, 1, 0.0f},  {1, 1, 0, 1, 1, 0.35f},
  };
  nb_every_crowd(counts, sizeof counts / sizeof counts[0], variants,
                 sizeof variants / sizeof variants[0], 1000u, per_agent_radius,
                 check_crowd);
}

/* An inner radius without a field of view changes no bit of the default
 * form (and the default form's bits are the golden hashes' elsewhere). */
static void check_inner_without_view(void) {
  crowd c;
  crowd_init(&c, 200, 2);
  rng r = {99u};
  fill(&c, &r, 8.0f, 0);
  crowdsteer_grid *grid;
  CHECK_STATUS(crowdsteer_grid_create(&grid), CROWDSTEER_OK);
  crowdsteer_grid_desc desc = {0};
  desc.cell_size = 1.0f;
  CHECK_STATUS(crowdsteer_grid_build(grid, &c.agents, &desc), CROWDSTEER_OK);
  crowdsteer_output out = crowd_output(&c);
  float want[2][200];
  for (int b = 0; b < NB_BEHAVIOURS; b++) {
    crowdsteer_neighbours nb = {0};
    nb.grid = grid;
    nb.radius = 1.0f;
    CHECK_STATUS(nb_call(b, &c, &nb, NULL, &out, 0, c.count), CROWDSTEER_OK);
    memcpy(want[0], c.out[0], sizeof want[0]);
    memcpy(want[1], c.out[1], sizeof want[1]);
    nb.inner_radius = 0.5f;
    CHECK_STATUS(nb_call(b, &c, &nb, NULL, &out, 0, c.count), CROWDSTEER_OK);
    for (size_t i = 0; i < c.count; i++)
      CHECK(same_bits(c.out[0][i], want[0][i]) && same_bits(c.out[1][i], want[1][i]));
  }
  crowdsteer_grid_destroy(grid);
  crowd_free(&c);
}

/* A step blending the three in Reynolds' form: the named calls
 * accumulated with the weights, then the integrator. */
static void check_step(void) {
  for (int dims = 2; dims <= 3; dims++) {
    crowd c, ref;
    crowd_init(&c, 300, dims);
    crowd_init(&ref, 300, dims);
    rng r = {4321u + (uint64_t)dims};
    fill(&c, &r, 10.0f, 1);
    for (int k = 0; k < 6; k++)
      memcpy(ref.a[k], c.a[k], c.count * sizeof(float));
    crowdsteer_grid *grid;
    CHECK_STATUS(crowdsteer_grid_create(&grid), CROWDSTEER_OK);
    crowdsteer_grid_desc desc = {0};
    desc.cell_size = 1.0f;
    CHECK_STATUS(crowdsteer_grid_build(grid, &c.agents, &desc), CROWDSTEER_OK);
    crowdsteer_neighbours nb = {0};
    nb.grid = grid;
    nb.form = CROWDSTEER_FORM_REYNOLDS;
    nb.field_of_view = 1;
    nb.cos_field_of_view = -0.7f;
    nb.inner_radius = 0.15f;
    crowdsteer_params integrator = {0};
    integrator.max_speed = 1.2f;
    integrator.max_force = 0.5f;
    integrator.dt = 0.25f;
    static const float weights[3] = {12.0f, 8.0f, 6.0f};
    /* The reference: accumulate from zero, then integrate. */
    crowdsteer_output out = crowd_output(&ref);
    out.mode = CROWDSTEER_ACCUMULATE;
    for (int b = 0; b < NB_BEHAVIOURS; b++) {
      out.weight = weights[b];
      CHECK_STATUS(nb_call(b, &ref, &nb, NULL, &out, 0, ref.count), CROWDSTEER_OK);
    }
    const crowdsteer_vectors steering = out.steering;
    CHECK_STATUS(crowdsteer_integrate(&ref.agents, &steering, &integrator, 0, ref.count),
                 CROWDSTEER_OK);
    crowdsteer_step_behaviour behaviours[3];
    memset(behaviours, 0, sizeof behaviours);
    for (int b = 0; b < NB_BEHAVIOURS; b++) {
      behaviours[b].behaviour = (crowdsteer_behaviour)(CROWDSTEER_SEPARATION + b);
      behaviours[b].weight = weights[b];
      behaviours[b].neighbours = &nb;
    }
    crowdsteer_step_desc step = {0};
    step.behaviours = behaviours;
    step.behaviour_count = 3;
    step.integrator = integrator;
    step.threads = 2;
    step.tile_size = 64;
    CHECK_STATUS(crowdsteer_step(&c.agents, &step, 0, c.count), CROWDSTEER_OK);
    for (int k = 0; k < 2 * dims; k++) {
      const int axis = k < dims ? k : 3 + k - dims;
      for (size_t i = 0; i < c.count; i++)
        if (!same_bits(c.a[axis][i], ref.a[axis][i])) {
          CHECK_MSG(0, "step %dD agent %zu array %d: %.9g vs %.9g", dims, i, axis,
                    c.a[axis][i], ref.a[axis][i]);
          break;
        }
    }
    crowdsteer_grid_destroy(grid);
    crowd_free(&c);
    crowd_free(&ref);
  }
}

/* A step whose neighbour behaviours share one candidate walk (their own
 * radii, views, caps and inner radii; a group filter; a behaviour mask;
 * two of the three): each ISA's bits are the scalar backend's, where each
 * behaviour walks on its own. */
typedef struct flock_case {
  int form;
  float inner;
  int view;        /* bit b: behaviour b has a field of view */
  float radius[3]; /* 0: behaviour b left out of the step */
  uint32_t cap[3]; /* 0: none */
  int mask, per_agent_view, behaviour_mask;
} flock_case;

static void flock_step(crowd *c, const crowd *start, crowdsteer_grid *grid,
                       const flock_case *f, const uint32_t *behaviour_mask,
                       const float *cos_view, int threads) {
  static const float cosine[3] = {-0.7f, 0.7f, -0.15f}, weight[3] = {12.0f, 8.0f, 6.0f};
  for (int k = 0; k < 6; k++)
    memcpy(c->a[k], start->a[k], c->count * sizeof(float));
  crowdsteer_grid_desc desc = {0};
  desc.cell_size = 1.0f;
  desc.group = c->group;
  CHECK_STATUS(crowdsteer_grid_build(grid, &c->agents, &desc), CROWDSTEER_OK);
  crowdsteer_neighbours nb[3];
  crowdsteer_step_behaviour behaviours[3];
  memset(nb, 0, sizeof nb);
  memset(behaviours, 0, sizeof behaviours);
  size_t count = 0;
  for (int n = 0; n < NB_BEHAVIOURS; n++) {
    const int b = (n + 1) % NB_BEHAVIOURS; /* cohesion, alignment, separation */
    if (f->radius[b] == 0.0f) continue;
    nb[b].grid = grid;
    nb[b].radius = f->radius[b];
    nb[b].form = f->form;
    nb[b].inner_radius = f->inner;
    nb[b].field_of_view = (f->view >> b) & 1;
    nb[b].cos_field_of_view = cosine[b];
    if (f->per_agent_view && b == NB_ALIGNMENT)
      nb[b].cos_field_of_view_per_agent = cos_view;
    nb[b].max_neighbours = f->cap[b];
    nb[b].neighbour_mask = f->mask ? 0x5u : 0u;
    behaviours[count].behaviour = (crowdsteer_behaviour)(CROWDSTEER_SEPARATION + b);
    behaviours[count].weight = weight[b];
    behaviours[count++].neighbours = &nb[b];
  }
  crowdsteer_step_desc step = {0};
  step.behaviours = behaviours;
  step.behaviour_count = count;
  step.behaviour_mask = f->behaviour_mask ? behaviour_mask : NULL;
  step.integrator.max_speed = 1.2f;
  step.integrator.max_force = 0.5f;
  step.integrator.dt = 0.25f;
  step.threads = threads;
  if (threads == 2) { /* a split range too */
    CHECK_STATUS(crowdsteer_step(&c->agents, &step, c->count / 3, c->count),
                 CROWDSTEER_OK);
    CHECK_STATUS(crowdsteer_step(&c->agents, &step, 0, c->count / 3), CROWDSTEER_OK);
  } else {
    CHECK_STATUS(crowdsteer_step(&c->agents, &step, 0, c->count), CROWDSTEER_OK);
  }
}

static void check_flock_steps(void) {
  static const flock_case cases[] = {
      {CROWDSTEER_FORM_REYNOLDS, 0.15f, 7, {0.5f, 0.9f, 0.75f}, {0, 0, 0}, 0, 0, 0},
      {CROWDSTEER_FORM_DEFAULT, 0.3f, 7, {1.0f, 0.8f, 0.6f}, {0, 5, 70}, 1, 0, 1},
      {CROWDSTEER_FORM_REYNOLDS, 0.0f, 4, {0.7f, 0.0f, 1.0f}, {3, 0, 0}, 0, 0, 0},
      {CROWDSTEER_FORM_REYNOLDS, 0.2f, 5, {1.0f, 1.0f, 1.0f}, {0, 0, 2}, 1, 1, 1},
  };
  static const size_t counts[] = {200, 500}; /* per_agent_radius holds 512 */
  const crowdsteer_isa isa = crowdsteer_active_isa();
  crowdsteer_grid *grid;
  CHECK_STATUS(crowdsteer_grid_create(&grid), CROWDSTEER_OK);
  for (int dims = 2; dims <= 3; dims++)
    for (size_t s = 0; s < sizeof counts / sizeof counts[0]; s++) {
      crowd start, want, got;
      const size_t n = counts[s];
      crowd_init(&start, n, dims);
      crowd_init(&want, n, dims);
      crowd_init(&got, n, dims);
      rng r = {777u + n + (uint64_t)dims};
      fill(&start, &r, 8.0f, 1);
      uint32_t *mask = calloc(n + 1, sizeof(uint32_t));
      float *cos_view = calloc(n + 1, sizeof(float));
      for (size_t i = 0; i < n; i++) {
        mask[i] = rng_below(&r, 8);
        cos_view[i] = rng_range(&r, -1.0f, 1.0f);
      }
      memcpy(want.group, start.group, n * sizeof(uint32_t));
      memcpy(got.group, start.group, n * sizeof(uint32_t));
      for (size_t v = 0; v <= sizeof cases / sizeof cases[0]; v++) {
        /* Last: the first case again with infinite velocities, whose
         * headings are NaN (added as 0 by the exact sums). */
        const int infinite = v == sizeof cases / sizeof cases[0];
        if (infinite) {
          v = 0;
          for (size_t i = 0; i < n; i += 7)
            start.a[3 + i % 2][i] = i % 3 ? INFINITY : -INFINITY;
        }
        CHECK(crowdsteer_force_isa(CROWDSTEER_ISA_SCALAR) == CROWDSTEER_OK);
        flock_step(&want, &start, grid, &cases[v], mask, cos_view, 1);
        CHECK(crowdsteer_force_isa(isa) == CROWDSTEER_OK);
        for (int threads = 1; threads <= 2; threads++) {
          flock_step(&got, &start, grid, &cases[v], mask, cos_view, threads);
          for (int k = 0; k < 6; k++)
            for (size_t i = 0; k % 3 < dims && i < n; i++)
              if (!same_bits(got.a[k][i], want.a[k][i])) {
                CHECK_MSG(0,
                          "flock step case %zu %zu agents %dD threads %d: agent %zu "
                          "array %d: %.9g vs %.9g",
                          v, n, dims, threads, i, k, got.a[k][i], want.a[k][i]);
                k = 6;
                break;
              }
        }
        if (infinite) break;
      }
      free(mask);
      free(cos_view);
      crowd_free(&start);
      crowd_free(&want);
      crowd_free(&got);
    }
  crowdsteer_grid_destroy(grid);
}

/* Bad forms and inner radii: PARAMETER, nothing written. */
static void check_validation(void) {
  crowd c;
  crowd_init(&c, 10, 2);
  rng r = {5u};
  fill(&c, &r, 8.0f, 0);
  crowdsteer_output out = crowd_output(&c);
  const int forms[3] = {2, -1, 1000};
  const float inner[3] = {-1.0f, NAN, INFINITY};
  for (int b = 0; b < NB_BEHAVIOURS; b++)
    for (int bad = 0; bad < 6; bad++) {
      crowdsteer_neighbours nb = {0};
      nb.radius = 1.0f;
      if (bad < 3)
        nb.form = forms[bad];
      else
        nb.inner_radius = inner[bad - 3];
      for (size_t i = 0; i < c.count; i++)
        c.out[0][i] = c.out[1][i] = 7.0f;
      CHECK_STATUS(nb_call(b, &c, &nb, NULL, &out, 0, c.count),
                   CROWDSTEER_ERROR_PARAMETER);
      for (size_t i = 0; i < c.count; i++)
        CHECK(c.out[0][i] == 7.0f && c.out[1][i] == 7.0f);
    }
  crowd_free(&c);
}

static void body(void) {
  check_grids();
  check_inner_without_view();
  check_step();
  check_flock_steps();
  check_validation();
}

int main(void) {
  if (!on_every_isa(body)) return 77;
  return check_report("test_neighbours_forms");
}
