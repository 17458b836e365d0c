/* crowdsteer-demo: its options (the command line) and the ISA it runs on. */
#include "demo.h"

/* ---- options -------------------------------------------------------------- */

const crowdsteer_behaviour group_behaviours[GROUP_COUNT] = {
    CROWDSTEER_SEEK,    CROWDSTEER_ARRIVE, CROWDSTEER_FLEE,  CROWDSTEER_LEAVE,
    CROWDSTEER_PURSUIT, CROWDSTEER_EVADE,  CROWDSTEER_WANDER};

const char *group_name(int g) { return crowdsteer_behaviour_name(group_behaviours[g]); }

/* The group whose behaviour is called `name`, -1 if none. */
static int group_named(const char *name) {
  for (int g = 0; g < GROUP_COUNT; g++)
    if (strcmp(name, group_name(g)) == 0) return g;
  return -1;
}

static void print_usage(FILE *to) {
  fprintf(
      to,
      "usage: crowdsteer-demo [options]\n"
      "  --agents N        agents in the batch (default 1048576, at least %d)\n"
      "  --steps N         simulation steps (default 200)\n"
      "  --mode step|separate\n"
      "                    step: one crowdsteer_step call per simulation step over\n"
      "                    the whole batch (default); separate: one entry point per\n"
      "                    behaviour and range, then crowdsteer_integrate (the same\n"
      "                    result, bit for bit, timed per behaviour)\n"
      "  --behaviour NAME  seek, arrive, flee, leave, pursuit, evade, wander: every\n"
      "                    steered agent runs that behaviour alone; all (default):\n"
      "                    the mixed crowd, one group per behaviour, with fleers\n"
      "                    and evaders also wandering and some pursuers also\n"
      "                    leaving the threat\n"
      "  --combine blend|priority\n"
      "                    how an agent's behaviours combine (default blend;\n"
      "                    priority needs --mode step)\n"
      "  --threads N       crowdsteer_step threads, 0 = all (default 0)\n"
      "  --tasks N         run grid builds and steps on a pthread pool of N workers\n"
      "                    (examples/task_pool.h, an engine's job system in small)\n"
      "                    instead of the library's threads; 0: those (default)\n"
      "  --tile N          crowdsteer_step agents per tile, 1 to 4096\n"
      "                    (default 0: the library's default)\n"
      "  --snapshot swap|copy|targets\n"
      "                    how the pre-step state that pursuit and evade read is\n"
      "                    kept: copy every agent before each step (default), or\n"
      "                    only the agents that are targets (the two driven ones)\n"
      "  --dims 2|3        2D or 3D (default 2)\n"
      "  --isa NAME        force scalar, sse4, avx2, avx512, neon or simd128\n"
      "                    (default: the best this machine runs, or $CROWDSTEER_ISA)\n"
      "  --seed N          seed of the start positions and of wander (default 1)\n"
      "  --separation R    every steered agent keeps apart from the others within\n"
      "                    radius R (default 0.25; 0: off)\n"
      "  --separation-weight W\n"
      "                    its blend weight (default 4)\n"
      "  --avoid off|on|only\n"
      "                    ORCA collision avoidance as the step's last stage: on,\n"
      "                    with separation; only, instead of it (default off;\n"
      "                    needs --mode step)\n"
      "  --radius R        body radius of ORCA and of the overlap figures (pairs\n"
      "                    closer than 2R; default 0.1, half the spacing the\n"
      "                    default separation gives the crowd)\n"
      "  --obstacles       walls, pillars and doorways in the world (2D, --mode\n"
      "                    step); agents avoid them even with --avoid off\n"
      "  --navigate        the seekers find their way instead of chasing the\n"
      "                    beacon: half follow a navigation field to one of two\n"
      "                    exits (2D; round the obstacles with --obstacles), the\n"
      "                    rest (all in 3D) a loop or a zigzag pathway\n"
      "  --pictures DIR    write PNG pictures of the behaviours into DIR and exit\n"
      "  --help            this text\n"
      "Exit status: 0 ok, 1 a call failed or the state holds NaN/inf, 2 bad usage.\n",
      DRIVEN_AGENTS + GROUP_COUNT);
}

/* Parses a whole decimal number in [min, max]; no sign, no trailing text. */
static int parse_count(const char *text, unsigned long long min, unsigned long long max,
                       unsigned long long *value) {
  if (!text || *text < '0' || *text > '9') return 0;
  char *end = NULL;
  unsigned long long v = strtoull(text, &end, 10);
  if (*end != '\0' || v < min || v > max) return 0;
  *value = v;
  return 1;
}

/* Parses a whole decimal real in [min, max] ((min, max] when min_open). */
static int parse_real(const char *text, double min, double max, int min_open,
                      double *value) {
  char *end = NULL;
  double v = strtod(text, &end);
  if (*text == '\0' || *end != '\0' || !(v >= min && v <= max) || (min_open && v == min))
    return 0;
  *value = v;
  return 1;
}

static int usage_error(const char *what, const char *value) {
  fprintf(stderr, "crowdsteer-demo: %s%s%s\n", what, value ? ": " : "",
          value ? value : "");
  print_usage(stderr);
  return EXIT_USAGE;
}

/* Index of value in names[0..count), or -1. */
static int pick(const char *value, const char *const *names, int count) {
  for (int i = 0; i < count; i++)
    if (strcmp(value, names[i]) == 0) return i;
  return -1;
}

/* One option and its value; -1 when fine, else the exit code to leave with. */
static int apply_option(const char *name, const char *value, demo_options *opts) {
  unsigned long long number = 0;
  double real = 0.0;
  if (strcmp(name, "--agents") == 0) {
    /* Target indices are 32-bit, so a batch holds at most 2^32 - 1 agents. */
    if (!parse_count(value, DRIVEN_AGENTS + GROUP_COUNT, UINT32_MAX, &number))
      return usage_error("--agents needs a whole number from 9 to 4294967295", value);
    opts->agents = (size_t)number;
  } else if (strcmp(name, "--steps") == 0) {
    if (!parse_count(value, 1, 100000000, &number))
      return usage_error("--steps needs a whole number from 1 to 100000000", value);
    opts->steps = (unsigned)number;
  } else if (strcmp(name, "--dims") == 0) {
    if (!parse_count(value, 2, 3, &number))
      return usage_error("--dims must be 2 or 3", value);
    opts->dims = (int)number;
  } else if (strcmp(name, "--seed") == 0) {
    if (!parse_count(value, 0, UINT32_MAX, &number))
      return usage_error("--seed needs a whole number from 0 to 4294967295", value);
    opts->seed = (uint32_t)number;
  } else if (strcmp(name, "--behaviour") == 0 || strcmp(name, "--behavior") == 0) {
    opts->only_group = strcmp(value, "all") == 0 ? -1 : group_named(value);
    if (opts->only_group == -1 && strcmp(value, "all") != 0)
      return usage_error("unknown behaviour", value);
  } else if (strcmp(name, "--mode") == 0) {
    static const char *const modes[] = {"step", "separate"};
    opts->mode = pick(value, modes, 2);
    if (opts->mode < 0) return usage_error("--mode must be step or separate", value);
  } else if (strcmp(name, "--combine") == 0) {
    static const char *const combines[] = {"blend", "priority"}; /* enum order */
    opts->combine = pick(value, combines, 2);
    if (opts->combine < 0)
      return usage_error("--combine must be blend or priority", value);
  } else if (strcmp(name, "--snapshot") == 0) {
    static const char *const snapshots[] = {"swap", "copy", "targets"};
    opts->snapshot = pick(value, snapshots, 3);
    if (opts->snapshot < 0)
      return usage_error("--snapshot must be swap, copy or targets", value);
  } else if (strcmp(name, "--threads") == 0) {
    if (!parse_count(value, 0, 4096, &number))
      return usage_error("--threads needs a whole number from 0 (all) to 4096", value);
    opts->threads = (int)number;
  } else if (strcmp(name, "--tasks") == 0) {
    if (!parse_count(value, 0, 1024, &number))
      return usage_error("--tasks needs a whole number of workers from 0 to 1024", value);
    opts->tasks = (int)number;
  } else if (strcmp(name, "--tile") == 0) {
    if (!parse_count(value, 0, 4096, &number))
      return usage_error("--tile needs a whole number from 1 to 4096 (0: default)",
                         value);
    opts->tile = (size_t)number;
  } else if (strcmp(name, "--separation") == 0) {
    if (!parse_real(value, 0.0, 100.0, 0, &real))
      return usage_error("--separation needs a radius from 0 (off) to 100", value);
    opts->separation = (float)real;
  } else if (strcmp(name, "--separation-weight") == 0) {
    if (!parse_real(value, 0.0, 1000.0, 1, &real))
      return usage_error("--separation-weight needs a weight in (0, 1000]", value);
    opts->separation_weight = (float)real;
  } else if (strcmp(name, "--avoid") == 0) {
    static const char *const avoids[] = {"off", "on", "only"}; /* enum order */
    opts->avoid = pick(value, avoids, 3);
    if (opts->avoid < 0) return usage_error("--avoid must be off, on or only", value);
  } else if (strcmp(name, "--radius") == 0) {
    if (!parse_real(value, 0.0, 10.0, 1, &real))
      return usage_error("--radius needs a body radius in (0, 10]", value);
    opts->body_radius = (float)real;
  } else if (strcmp(name, "--isa") == 0) {
    opts->isa_name = value;
  } else if (strcmp(name, "--pictures") == 0) {
    opts->pictures_dir = value;
  } else {
    return usage_error("unknown option", name);
  }
  return -1;
}

/* Returns -1 when the options are fine, else the exit code to leave with. */
int parse_options(int argc, char **argv, demo_options *opts) {
  *opts = (demo_options){.agents = 1048576,
                         .steps = 200,
                         .dims = 2,
                         .only_group = -1,
                         .mode = MODE_STEP,
                         .combine = CROWDSTEER_BLEND,
                         .snapshot = SNAPSHOT_SWAP,
                         .seed = 1,
                         .separation = DEFAULT_SEPARATION_RADIUS,
                         .separation_weight = DEFAULT_SEPARATION_WEIGHT,
                         .avoid = AVOID_OFF,
                         .body_radius = DEFAULT_BODY_RADIUS};
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      print_usage(stdout);
      return 0;
    }
    if (strcmp(arg, "--obstacles") == 0) { /* the options without a value */
      opts->obstacles = 1;
      continue;
    }
    if (strcmp(arg, "--navigate") == 0) {
      opts->navigate = 1;
      continue;
    }
    /* Every other option takes a value, as "--opt VALUE" or "--opt=VALUE". */
    char name[32];
    const char *value = NULL;
    const char *equals = strchr(arg, '=');
    size_t name_length = equals ? (size_t)(equals - arg) : strlen(arg);
    if (strncmp(arg, "--", 2) != 0 || name_length >= sizeof name)
      return usage_error("unknown option", arg);
    memcpy(name, arg, name_length);
    name[name_length] = '\0';
    if (equals)
      value = equals + 1;
    else if (i + 1 < argc)
      value = argv[++i];
    else
      return usage_error("missing value for", name);

    const int exit_code = apply_option(name, value, opts);
    if (exit_code != -1) return exit_code;
  }
  /* The public entry points can only overwrite or accumulate, so separate
   * calls can express a blend but not a priority choice. */
  if (opts->mode == MODE_SEPARATE && opts->combine == CROWDSTEER_PRIORITY)
    return usage_error("--combine priority needs --mode step", NULL);
  /* The step's avoidance moves agents from where they were and holds them
   * at walls, which no public entry point after crowdsteer_integrate does,
   * so the separate calls cannot reproduce it. */
  if (opts->mode == MODE_SEPARATE && (opts->avoid != AVOID_OFF || opts->obstacles))
    return usage_error("--avoid and --obstacles need --mode step", NULL);
  if (opts->obstacles && opts->dims != 2)
    return usage_error("--obstacles needs --dims 2 (obstacles are 2D)", NULL);
  if (opts->avoid == AVOID_ONLY) opts->separation = 0.0f; /* ORCA instead */
  return -1;
}

/* ---- main ------------------------------------------------------------------ */

int choose_isa(const char *name) {
  if (!name) return 0;
  crowdsteer_isa isa;
  if (crowdsteer_isa_from_name(name, &isa) != CROWDSTEER_OK) {
    fprintf(
        stderr,
        "crowdsteer-demo: unknown ISA '%s' (scalar, sse4, avx2, avx512, neon, simd128)\n",
        name);
    return EXIT_USAGE;
  }
  crowdsteer_status status = crowdsteer_force_isa(isa);
  if (status != CROWDSTEER_OK) {
    fprintf(stderr, "crowdsteer-demo: cannot use ISA '%s': %s\n", name,
            crowdsteer_status_string(status));
    return EXIT_USAGE;
  }
  return 0;
}

void print_supported_isas(void) {
  printf("ISA: %s (this build and CPU support:",
         crowdsteer_isa_name(crowdsteer_active_isa()));
  for (int isa = 0; isa < CROWDSTEER_ISA_COUNT; isa++)
    if (crowdsteer_isa_supported((crowdsteer_isa)isa))
      printf(" %s", crowdsteer_isa_name((crowdsteer_isa)isa));
  printf(")\n");
}
