/* crowdsteer-demo: steps a crowd of about a million agents, mixed (several
 * behaviours per agent) in one crowdsteer_step per simulation step, or one
 * entry point per behaviour; reports throughput and physics sanity. */
#include "demo.h"

#ifdef CROWDSTEER_DEMO_PICTURES
#include "pictures.h"
#endif

/* ---- main ------------------------------------------------------------------ */

int main(int argc, char **argv) {
  demo_options opts;
  int exit_code = parse_options(argc, argv, &opts);
  if (exit_code >= 0) return exit_code;

  if (opts.pictures_dir) {
#ifdef CROWDSTEER_DEMO_PICTURES
    return demo_write_pictures(opts.pictures_dir) == 0 ? 0 : 1;
#else
    fprintf(stderr, "crowdsteer-demo: --pictures: this build has no PNG support "
                    "(examples/pictures.cmake was not found)\n");
    return EXIT_USAGE;
#endif
  }
  exit_code = choose_isa(opts.isa_name);
  if (exit_code) return exit_code;

  scenario sc;
  if (scenario_setup(&sc, &opts) != 0) return 1;
  printf("crowdsteer %s demo: %zu agents (%d driven by the demo), %dD, %u steps, seed "
         "%" PRIu32 "\n",
         crowdsteer_version_string(), opts.agents, DRIVEN_AGENTS, opts.dims, opts.steps,
         opts.seed);
  print_supported_isas();
  print_mode(&sc);
  fflush(stdout);

  figures start = measure(&sc);
  double loop_start = seconds_now();
  crowdsteer_status status = CROWDSTEER_OK;
  for (unsigned s = 0; s < opts.steps && status == CROWDSTEER_OK; s++)
    status = scenario_step(&sc);
  double wall = seconds_now() - loop_start;
  if (status != CROWDSTEER_OK) {
    scenario_free(&sc);
    return 1;
  }
  figures end = measure(&sc);
  report_throughput(&sc, wall);
  exit_code = report_sanity(&sc, &start, &end);
  scenario_free(&sc);
  return exit_code;
}
