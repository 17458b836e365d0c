/* crowdsteer-validation: runs the two experiments of docs/validation.md
 * with fixed seeds and prints one key=value line per run and tables
 * beside the measured data (examples/validation.py plots them).
 *
 * Usage: crowdsteer-validation [--fd] [--bottleneck] [--speeds uniform|spread|both]
 *          [--seeds K] [--tau T] [--tau-obst T] [--check]
 * --check: the tiny versions (one density, one width, few hundred steps)
 * with regression bounds, exit code 1 when a bound fails: the ctest. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "validation.h"

/* Liddle et al. 2011 (bottleneck of length 4 m, 150 persons): widths and
 * flows in persons/s as listed in JuPedSim's bottleneck validation test
 * (jpscore Utest/6test_EG/runtest_EG.py). */
static const double liddle_b[] = {0.9, 1.0, 1.1, 1.2, 1.4, 1.6, 1.8, 2.0, 2.2, 2.5};
static const double liddle_j[] = {1.70998632, 2.02483801, 2.19426565, 2.53207292,
                                  2.91149068, 3.11461794, 3.90625,    3.91032325,
                                  4.52352232, 5.54733728};

/* Weidmann's spread of free walking speeds (standard deviation, m/s). */
#define SPREAD_SD 0.26f

typedef struct options {
  int fd, bottleneck, check;
  int uniform, spread; /* which preferred-speed set-ups */
  size_t seeds;
  float tau, tau_obst;
} options;

static void usage(void) {
  fprintf(stderr, "usage: crowdsteer-validation [--fd] [--bottleneck] "
                  "[--speeds uniform|spread|both] [--seeds K] [--tau T] "
                  "[--tau-obst T] [--check]\n");
  exit(2);
}

static options parse(int argc, char **argv) {
  options o = {0, 0, 0, 1, 1, 5, 2.0f, 1.0f};
  for (int a = 1; a < argc; a++) {
    const char *opt = argv[a];
    if (!strcmp(opt, "--fd"))
      o.fd = 1;
    else if (!strcmp(opt, "--bottleneck"))
      o.bottleneck = 1;
    else if (!strcmp(opt, "--check"))
      o.check = 1;
    else if (a + 1 < argc && !strcmp(opt, "--speeds")) {
      const char *v = argv[++a];
      o.uniform = !strcmp(v, "uniform") || !strcmp(v, "both");
      o.spread = !strcmp(v, "spread") || !strcmp(v, "both");
      if (!o.uniform && !o.spread) usage();
    } else if (a + 1 < argc && !strcmp(opt, "--seeds"))
      o.seeds = strtoull(argv[++a], NULL, 10);
    else if (a + 1 < argc && !strcmp(opt, "--tau"))
      o.tau = strtof(argv[++a], NULL);
    else if (a + 1 < argc && !strcmp(opt, "--tau-obst"))
      o.tau_obst = strtof(argv[++a], NULL);
    else
      usage();
  }
  if (!o.fd && !o.bottleneck) o.fd = o.bottleneck = 1;
  if (o.seeds < 1 || !(o.tau > 0.0f) || !(o.tau_obst > 0.0f)) usage();
  return o;
}

/* The model of docs/validation.md ("The model"); speeds uniform or spread. */
static val_model model(const options *o, int spread) {
  return (val_model){.radius = 0.2f,
                     .v0 = 1.34f,
                     .v0_sd = spread ? SPREAD_SD : 0.0f,
                     .v0_min = 0.8f,
                     .v0_max = 1.9f,
                     .dt = 0.05f,
                     .tau = o->tau,
                     .tau_obst = o->tau_obst,
                     .neighbour_radius = 3.0f,
                     .max_neighbours = 10};
}

static const char *variant_name(int spread) { return spread ? "spread" : "uniform"; }

static double share(uint64_t part, uint64_t whole) {
  return whole ? (double)part / (double)whole : 0.0;
}

static void print_counts(const val_counts *c) {
  printf(" walls_crossed=%llu inside=%llu wall_contact_share=%.4f crowded_share=%.4f "
         "min_distance=%.3f",
         (unsigned long long)c->walls_crossed, (unsigned long long)c->inside,
         share(c->wall_contacts, c->agent_steps), share(c->crowded, c->agent_steps),
         c->min_distance);
}

/* Corridor of 30 x 3 m; 30 s of warm-up, 60 s measured. */
static int run_fd(const options *o, int spread, int *bad) {
  static const double densities[] = {0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0};
  const size_t count = o->check ? 1 : sizeof densities / sizeof densities[0];
  const val_model m = model(o, spread);
  const float length = o->check ? 12.0f : 30.0f, width = 3.0f;
  const size_t warmup = o->check ? 100 : 600, measure = o->check ? 200 : 1200;
  val_corridor_result r[16];
  for (size_t k = 0; k < count; k++) {
    const double rho = o->check ? 2.0 : densities[k];
    if (val_corridor(&m, length, width, rho, 1000 + k, warmup, measure, &r[k]) != 0)
      return -1;
    printf("fd variant=%s rho=%.3f n=%zu v=%.4f v_abs=%.4f v_weidmann=%.4f",
           variant_name(spread), r[k].density, r[k].count, r[k].mean_speed, r[k].mean_abs,
           val_weidmann(r[k].density));
    print_counts(&r[k].counts);
    printf("\n");
    *bad |= r[k].counts.walls_crossed != 0 || r[k].counts.inside != 0;
    /* Regression bounds of the tiny run (not agreement with data): at
     * 2 per m^2 agents of one speed keep it (equal velocities meet no ORCA
     * constraint); with spread speeds lanes move at least about as fast as
     * their slowest member (0.8 m/s), below the fastest (1.9 m/s). */
    const double lo = spread ? 0.7 : 1.2, hi = spread ? 1.5 : 1.35;
    if (o->check && !(r[k].mean_speed > lo && r[k].mean_speed < hi)) *bad = 1;
  }
  printf(
      "\n| rho (1/m^2) | agents | v model (m/s) | v Weidmann (m/s) | model / "
      "Weidmann | J_s model (1/(m s)) | J_s Weidmann |\n|---|---|---|---|---|---|---|\n");
  for (size_t k = 0; k < count; k++) {
    const double w = val_weidmann(r[k].density);
    printf("| %.2f | %zu | %.2f | %.2f | %.2f | %.2f | %.2f |\n", r[k].density,
           r[k].count, r[k].mean_speed, w, r[k].mean_speed / w,
           r[k].density * r[k].mean_speed, r[k].density * w);
  }
  printf("\n");
  return 0;
}

static double mean_of(const double *v, size_t n, double *sd) {
  double s = 0.0, q = 0.0;
  for (size_t i = 0; i < n; i++)
    s += v[i];
  const double mu = s / (double)n;
  for (size_t i = 0; i < n; i++)
    q += (v[i] - mu) * (v[i] - mu);
  *sd = n > 1 ? sqrt(q / (double)(n - 1)) : 0.0;
  return mu;
}

static double liddle_at(double b) {
  for (size_t k = 0; k < sizeof liddle_b / sizeof liddle_b[0]; k++)
    if (fabs(liddle_b[k] - b) < 1e-9) return liddle_j[k];
  return NAN;
}

/* 150 agents per run, `seeds` runs per width, at most 300 s each. */
static int run_bottleneck(const options *o, int spread, int *bad) {
  static const double widths[] = {0.8, 1.0, 1.2, 1.6, 2.0, 2.4};
  const size_t nw = o->check ? 1 : sizeof widths / sizeof widths[0];
  const size_t seeds = o->check ? 1 : o->seeds, agents = o->check ? 40 : 150;
  const val_model m = model(o, spread);
  double js[6][64], ja[6][64];
  size_t left[6] = {0};
  if (seeds > 64) return -1;
  for (size_t w = 0; w < nw; w++) {
    const double b = o->check ? 1.2 : widths[w];
    for (size_t s = 0; s < seeds; s++) {
      val_bottleneck_result r;
      if (val_bottleneck(&m, (float)b, agents, 2000 + s, o->check ? 60.0 : 300.0, &r) !=
          0)
        return -1;
      printf("bottleneck variant=%s b=%.2f seed=%zu n=%zu passed=%zu J_steady=%.4f "
             "J_all=%.4f first=%.2f last=%.2f",
             variant_name(spread), b, 2000 + s, r.count, r.passed, r.flow_steady,
             r.flow_all, r.first, r.last);
      print_counts(&r.counts);
      printf("\n");
      fflush(stdout);
      js[w][s] = r.flow_steady, ja[w][s] = r.flow_all;
      left[w] += r.count - r.passed;
      *bad |= r.counts.walls_crossed != 0 || r.counts.inside != 0;
      /* Regression bounds of the tiny run (not agreement with data): every
       * agent out, a flow between 0.5 and 8 persons/s through 1.2 m. */
      if (o->check && !(r.passed == r.count && r.flow_all > 0.5 && r.flow_all < 8.0))
        *bad = 1;
    }
  }
  printf("\n| b (m) | J model, steady (1/s) | J model, all (1/s) | J/b model (1/(m s)) | "
         "J Liddle et al. (1/s) | J/b Liddle | agents left |\n"
         "|---|---|---|---|---|---|---|\n");
  for (size_t w = 0; w < nw; w++) {
    const double b = o->check ? 1.2 : widths[w];
    double sds, sda;
    const double ms = mean_of(js[w], seeds, &sds), ma = mean_of(ja[w], seeds, &sda);
    const double lj = liddle_at(b);
    printf("| %.1f | %.2f +- %.2f | %.2f +- %.2f | %.2f |", b, ms, sds, ma, sda, ms / b);
    if (isnan(lj))
      printf(" - | - |");
    else
      printf(" %.2f | %.2f |", lj, lj / b);
    printf(" %zu |\n", left[w]);
  }
  printf("\n");
  return 0;
}

int main(int argc, char **argv) {
  const options o = parse(argc, argv);
  const val_model m = model(&o, 0);
  printf("model: radius %g m, v0 %g m/s (spread: sd %g, clipped to [%g, %g]), dt %g s, "
         "tau %g s, tau_obst %g s, the %u nearest within %g m, ISA %s\n",
         m.radius, m.v0, SPREAD_SD, m.v0_min, m.v0_max, m.dt, m.tau, m.tau_obst,
         m.max_neighbours, m.neighbour_radius,
         crowdsteer_isa_name(crowdsteer_active_isa()));
  int bad = 0;
  for (int spread = 0; spread < 2; spread++) {
    if (!(spread ? o.spread : o.uniform)) continue;
    if (o.fd && run_fd(&o, spread, &bad) != 0) return 1;
    if (o.bottleneck && run_bottleneck(&o, spread, &bad) != 0) return 1;
  }
  printf("validation %s\n", bad ? "FAILED" : "ok");
  return bad;
}
