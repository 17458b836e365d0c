/* crowdsteer-demo --navigate: the seekers stop chasing the beacon and find
 * their way instead, half of them down one of two navigation fields (an
 * exit each, round the obstacles when --obstacles is given; 2D), the rest
 * along one of two pathways (a loop and a zigzag, either way round). */
#include "demo.h"

/* The field covers the world with a margin; agents outside it brake. */
#define FIELD_ORIGIN (-128.0f)
#define FIELD_CELL 0.5f
#define FIELD_SIDE 512u
static const float exit_x[2] = {-95.0f, 95.0f}, exit_y[2] = {-95.0f, 95.0f};

#define LOOP_POINTS 32
#define LOOP_RADIUS 70.0
#define ZIGZAG_POINTS 7
#define PATH_RADIUS 2.0f
#define PATH_PREDICTION 3.0f /* steps ahead, OpenSteer's habit */
#define PATH_LEAD 2.0f

static int build_fields(scenario *sc) {
  for (int f = 0; f < 2; f++) {
    crowdsteer_field_desc desc = {.origin = {FIELD_ORIGIN, FIELD_ORIGIN},
                                  .cell_size = FIELD_CELL,
                                  .width = FIELD_SIDE,
                                  .height = FIELD_SIDE,
                                  .obstacles = sc->obstacles,
                                  .goal_x = &exit_x[f],
                                  .goal_y = &exit_y[f],
                                  .goal_point_count = 1};
    crowdsteer_status status = crowdsteer_field_create(&sc->fields[f]);
    if (status == CROWDSTEER_OK) status = crowdsteer_field_build(sc->fields[f], &desc);
    if (status != CROWDSTEER_OK) {
      fprintf(stderr, "crowdsteer-demo: navigation field %d: %s\n", f,
              crowdsteer_status_string(status));
      return 1;
    }
  }
  sc->field_follow.fields = (const crowdsteer_field *const *)sc->fields;
  sc->field_follow.field_count = 2;
  sc->field_follow.field_index = sc->field_index;
  return 0;
}

/* A loop round the centre and a zigzag across the world (with height in 3D). */
static int build_paths(scenario *sc, int dims) {
  float x[LOOP_POINTS], y[LOOP_POINTS], z[LOOP_POINTS];
  for (int k = 0; k < LOOP_POINTS; k++) {
    const double angle = 2.0 * 3.14159265358979323846 * k / LOOP_POINTS;
    x[k] = (float)(LOOP_RADIUS * cos(angle));
    y[k] = (float)(LOOP_RADIUS * sin(angle));
    z[k] = (float)(15.0 * sin(2.0 * angle));
  }
  crowdsteer_pathway_desc loop = {.dims = dims,
                                  .point_count = LOOP_POINTS,
                                  .x = x,
                                  .y = y,
                                  .z = z,
                                  .radius = PATH_RADIUS,
                                  .cyclic = 1};
  crowdsteer_status status = crowdsteer_pathway_create(&sc->paths[0], &loop);
  for (int k = 0; k < ZIGZAG_POINTS; k++) {
    x[k] = -90.0f + 30.0f * (float)k;
    y[k] = k % 2 ? 40.0f : -40.0f;
    z[k] = k % 2 ? -20.0f : 20.0f;
  }
  crowdsteer_pathway_desc zigzag = loop;
  zigzag.point_count = ZIGZAG_POINTS;
  zigzag.cyclic = 0;
  if (status == CROWDSTEER_OK) status = crowdsteer_pathway_create(&sc->paths[1], &zigzag);
  if (status != CROWDSTEER_OK) {
    fprintf(stderr, "crowdsteer-demo: pathway: %s\n", crowdsteer_status_string(status));
    return 1;
  }
  crowdsteer_path_follow *p = &sc->path_follow;
  p->paths = (const crowdsteer_pathway *const *)sc->paths;
  p->path_count = 2;
  p->path_per_agent = sc->path_index;
  p->direction_per_agent = sc->path_direction;
  p->prediction_time = PATH_PREDICTION;
  p->lead_distance = PATH_LEAD;
  return 0;
}

/* After scenario_setup's groups and step: the seekers' masks, the two
 * slots and the per-agent choices (functions of the agent's index, which
 * is its id in the demo). 1 on failure. */
int navigation_setup(scenario *sc, const demo_options *opts) {
  if (!opts->navigate) return 0;
  const size_t n = opts->agents;
  sc->field_index = calloc(n, sizeof *sc->field_index);
  sc->path_index = calloc(n, sizeof *sc->path_index);
  sc->path_direction = calloc(n, sizeof *sc->path_direction);
  if (!sc->field_index || !sc->path_index || !sc->path_direction) return 1;
  for (size_t i = 0; i < n; i++) {
    sc->field_index[i] = (uint32_t)(i % 2);
    sc->path_index[i] = (uint32_t)(i / 2 % 2);
    sc->path_direction[i] = i / 4 % 2 ? -1.0f : 1.0f;
  }
  if ((opts->dims == 2 && build_fields(sc) != 0) || build_paths(sc, opts->dims) != 0)
    return 1;

  const group *seek = &sc->groups[GROUP_SEEK];
  sc->path_begin =
      opts->dims == 2 ? seek->begin + (seek->end - seek->begin) / 2 : seek->begin;
  for (size_t i = seek->begin; i < seek->end; i++)
    sc->mask[i] = (sc->mask[i] & ~group_bit(GROUP_SEEK)) |
                  (1u << (i < sc->path_begin ? FIELD_SLOT : PATH_SLOT));
  sc->run_count[GROUP_SEEK] = 0; /* the separate calls: none seeks now */

  sc->navigation_params.max_speed_per_agent = sc->max_speed;
  crowdsteer_step_behaviour *field = &sc->behaviours[FIELD_SLOT];
  crowdsteer_step_behaviour *path = &sc->behaviours[PATH_SLOT];
  /* In 3D nobody has the field's bit: the slot holds a seek nothing reads. */
  field->behaviour = opts->dims == 2 ? CROWDSTEER_FOLLOW_FIELD : CROWDSTEER_SEEK;
  field->field = &sc->field_follow;
  path->behaviour = CROWDSTEER_FOLLOW_PATH;
  path->path = &sc->path_follow;
  for (crowdsteer_step_behaviour *b = field; b <= path; b++) {
    b->params = sc->navigation_params;
    b->weight = 1.0f;
  }
  sc->step_desc.behaviour_count = MAX_SLOT_COUNT;
  return 0;
}

void navigation_free(scenario *sc) {
  for (int k = 0; k < 2; k++) {
    crowdsteer_field_destroy(sc->fields[k]);
    crowdsteer_pathway_destroy(sc->paths[k]);
  }
  free(sc->field_index);
  free(sc->path_index);
  free(sc->path_direction);
}

/* The separate calls' share: the slots' order, after every group's. */
crowdsteer_status navigation_step_separately(scenario *sc, const crowdsteer_output *out) {
  if (!sc->opts.navigate) return CROWDSTEER_OK;
  const group *seek = &sc->groups[GROUP_SEEK];
  crowdsteer_status status = CROWDSTEER_OK;
  if (sc->path_begin > seek->begin)
    status =
        crowdsteer_follow_field(&sc->agents, &sc->field_follow, &sc->navigation_params,
                                out, seek->begin, sc->path_begin);
  if (status == CROWDSTEER_OK && seek->end > sc->path_begin)
    status = crowdsteer_follow_path(&sc->agents, &sc->path_follow, &sc->navigation_params,
                                    out, sc->path_begin, seek->end);
  if (status != CROWDSTEER_OK)
    fprintf(stderr, "crowdsteer-demo: following failed at step %u: %s\n", sc->step,
            crowdsteer_status_string(status));
  return status;
}

/* Field followers standing in their exit's cell, and how far the path
 * followers are from their pathway (mean). */
void navigation_measure(const scenario *sc, figures *f) {
  if (!sc->opts.navigate) return;
  const crowdsteer_agents *a = &sc->agents;
  const group *seek = &sc->groups[GROUP_SEEK];
  for (size_t i = seek->begin; i < sc->path_begin; i++) {
    uint32_t cx, cy;
    int inside;
    double time;
    if (crowdsteer_field_cell_of(sc->fields[sc->field_index[i]], a->px[i], a->py[i], &cx,
                                 &cy, &inside) == CROWDSTEER_OK &&
        inside &&
        crowdsteer_field_time(sc->fields[sc->field_index[i]], cx, cy, &time) ==
            CROWDSTEER_OK)
      f->at_exit += time == 0.0;
  }
  double sum = 0.0;
  for (size_t i = sc->path_begin; i < seek->end; i++) {
    const float p[3] = {a->px[i], a->py[i], sc->opts.dims == 3 ? a->pz[i] : 0.0f};
    float q[3], along;
    if (crowdsteer_pathway_nearest(sc->paths[sc->path_index[i]], p, q, &along) !=
        CROWDSTEER_OK)
      continue;
    const double dx = p[0] - q[0], dy = p[1] - q[1], dz = p[2] - q[2];
    sum += sqrt(dx * dx + dy * dy + dz * dz);
  }
  if (seek->end > sc->path_begin)
    f->path_offset_mean = sum / (double)(seek->end - sc->path_begin);
}

void navigation_describe(const scenario *sc) {
  if (!sc->opts.navigate) return;
  const group *seek = &sc->groups[GROUP_SEEK];
  if (sc->fields[0])
    printf("navigation: %zu seekers follow one of two fields (%u x %u cells of %g, exits "
           "at (%g, %g) and (%g, %g)%s, %zu bytes each)\n",
           sc->path_begin - seek->begin, FIELD_SIDE, FIELD_SIDE, (double)FIELD_CELL,
           (double)exit_x[0], (double)exit_y[0], (double)exit_x[1], (double)exit_y[1],
           sc->obstacles ? ", round the obstacles" : "",
           crowdsteer_field_bytes(sc->fields[0]));
  printf("navigation: %zu seekers follow a loop (length %.1f) or a zigzag (%.1f), either "
         "way, radius %g, prediction %g steps\n",
         seek->end - sc->path_begin, (double)crowdsteer_pathway_length(sc->paths[0]),
         (double)crowdsteer_pathway_length(sc->paths[1]), (double)PATH_RADIUS,
         (double)PATH_PREDICTION);
}
