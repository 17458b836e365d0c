/* crowdsteer-evacuation: a building of rooms, corridors and doors
 * (floor_plan.h) emptied through its exits. Each agent follows one shared
 * navigation field to the nearest exit, ORCA keeps agents apart and the
 * walls hold; agents leave the batch once outside. Prints the evacuation
 * time, the flow through each exit, the agents still inside every 100
 * steps, walls crossed (checked here, independently of the library: must
 * be 0) and overlapping pairs. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crowdsteer.h"
#include "evacuation.h"
#include "floor_plan.h"
#include "spacing.h"

static void usage(void) {
  fputs("usage: crowdsteer-evacuation [--agents N] [--steps N] [--threads N]\n"
        "         [--field-cell M] [--report N] [--picture FILE.png] [--picture-at N]\n"
        "         [--view] [--frames N] [--isa NAME]\n"
        "  A building of 10 m rooms along 4 m corridors, sized for N agents\n"
        "  (default 1048576, 144 a room), emptied through its exits: at most\n"
        "  --steps steps of 0.1 s (default 3000), a line every --report steps\n"
        "  (100); --picture draws the plan and the crowd at step --picture-at\n"
        "  (300, or the last step if the run ends before); --view runs it in a\n"
        "  window (wheel zooms, drag pans, space pauses; --frames N closes it).\n",
        stderr);
}

static int parse_size(const char *s, size_t *out) {
  char *end;
  unsigned long long v = strtoull(s, &end, 10);
  if (*s == '-' || *end || end == s) return -1;
  *out = (size_t)v;
  return 0;
}

static int parse_options(int argc, char **argv, evac_options *o) {
  *o = (evac_options){.agents = 1048576,
                      .steps = 3000,
                      .report_every = 100,
                      .field_cell = 0.25f,
                      .picture_at = 300};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    size_t n;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) return usage(), 1;
    if (!strcmp(a, "--view")) {
      o->view = 1;
      continue;
    }
    if (!v) return usage(), -1;
    i++;
    if (!strcmp(a, "--agents") && !parse_size(v, &n) && n > 0)
      o->agents = n;
    else if (!strcmp(a, "--steps") && !parse_size(v, &n))
      o->steps = n;
    else if (!strcmp(a, "--report") && !parse_size(v, &n) && n > 0)
      o->report_every = n;
    else if (!strcmp(a, "--threads") && !parse_size(v, &n) && n < 4096)
      o->threads = (int)n;
    else if (!strcmp(a, "--field-cell") && (o->field_cell = strtof(v, NULL)) > 0.0f)
      continue;
    else if (!strcmp(a, "--frames") && !parse_size(v, &n))
      o->frames = n;
    else if (!strcmp(a, "--picture-at") && !parse_size(v, &n))
      o->picture_at = n;
    else if (!strcmp(a, "--picture"))
      o->picture = v;
    else if (!strcmp(a, "--isa"))
      o->isa = v;
    else
      return fprintf(stderr, "crowdsteer-evacuation: bad option %s %s\n", a, v), usage(),
             -1;
  }
  return 0;
}

#ifndef CROWDSTEER_EVAC_PICTURES
int evac_write_picture(const evacuation *ev, const char *path) {
  (void)ev;
  fprintf(stderr, "crowdsteer-evacuation: no pictures in this build (libpng), not %s\n",
          path);
  return 1;
}
#endif

int main(int argc, char **argv) {
  evac_options opts;
  int parsed = parse_options(argc, argv, &opts);
  if (parsed) return parsed > 0 ? 0 : 2;
  if (opts.isa) {
    crowdsteer_isa isa;
    if (crowdsteer_isa_from_name(opts.isa, &isa) != CROWDSTEER_OK ||
        crowdsteer_force_isa(isa) != CROWDSTEER_OK) {
      fprintf(stderr, "crowdsteer-evacuation: ISA %s is not available here\n", opts.isa);
      return 2;
    }
  }
  evacuation ev;
  if (evac_setup(&ev, &opts)) {
    evac_free(&ev);
    return 1;
  }
  evac_print_setup(&ev);
  double start = evac_seconds();
  int failed = 0;
  if (opts.view) {
#ifdef CROWDSTEER_EVAC_VIEW
    failed = evac_view(&ev);
#else
    fputs("crowdsteer-evacuation: no --view in this build (SDL2 and libpng)\n", stderr);
    failed = 1;
#endif
  }
  while (!opts.view && ev.step < opts.steps && ev.agents.count > 0) {
    if (evac_step(&ev)) {
      failed = 1;
      break;
    }
    if (ev.step % opts.report_every == 0 || ev.agents.count == 0)
      evac_print_progress(&ev);
    if (opts.picture && ev.step == opts.picture_at) {
      if (evac_write_picture(&ev, opts.picture)) failed = 1;
      opts.picture = NULL;
    }
  }
  double seconds = evac_seconds() - start;
  if (!failed) evac_print_summary(&ev, seconds);
  if (!failed && opts.picture && evac_write_picture(&ev, opts.picture)) failed = 1;
  evac_free(&ev);
  return failed;
}
