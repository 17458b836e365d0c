/* Every input docs/behaviours.md §9 rejects returns its status and leaves every array
 * byte for byte unchanged; inputs a call does not look at (values outside the range,
 * fields it does not use, z in 2D) are accepted. */
#include "../common/small_world.h"

enum { COUNT = 12, BEGIN = 2, END = 10, MIDDLE = 5, LAST = END - 1 };

typedef enum mut_id {
  M_NONE,
  M_PARAMS_NULL,
  M_AGENTS_NULL,
  M_PX_NULL,
  M_PY_NULL,
  M_PZ_NULL,
  M_VX_NULL,
  M_VY_NULL,
  M_VZ_NULL,
  M_TARGET_NULL,
  M_TPOS_X_NULL,
  M_TPOS_Z_NULL,
  M_TVEL_Y_NULL,
  M_INDEX_NULL,
  M_OUT_NULL,
  M_OUT_X_NULL,
  M_OUT_Z_NULL,
  M_WANDER_NULL,
  M_WANDER_Y_NULL,
  M_WANDER_Z_NULL,
  M_STEER_NULL,
  M_STEER_Y_NULL,
  M_DIMS,
  M_RANGE, /* begin = value, end = at */
  M_MAX_SPEED,
  M_MAX_FORCE,
  M_MASS,
  M_TTT,
  M_DT,
  M_TARGET_RADIUS,
  M_SLOWING,
  M_PANIC,
  M_DANGER,
  M_ESCAPE,
  M_PREDICTION,
  M_JITTER,
  M_WRADIUS,
  M_WDIST,
  M_WEIGHT,
  M_OVERWRITE_WEIGHT, /* a weight in overwrite mode, never read */
  M_PA_MAX_SPEED,     /* per-agent arrays: element `at` = value */
  M_PA_MAX_FORCE,
  M_PA_MASS,
  M_PA_TARGET_RADIUS,
  M_PA_SLOWING,
  M_PA_PANIC,
  M_PA_DANGER,
  M_PA_ESCAPE,
  M_PA_WRADIUS,
  M_PA_WDIST,
  M_PA_WEIGHT,
  M_PA_TTT,
  M_PA_PREDICTION,
  M_PA_JITTER,
  M_INDEX, /* index[at] = (uint32_t)value */
  M_AGENT, /* an AGENT target: agent = (uint32_t)value */
  M_KIND,
  M_MODE
} mut_id;

#define EB(x) (1u << (x))
#define ALL 0xFFu
#define TGT (EB(SEEK) | EB(FLEE) | EB(ARRIVE) | EB(LEAVE) | EB(PURSUIT) | EB(EVADE))
#define BEH (TGT | EB(WANDER))
#define MOVERS (TGT | EB(INTEGRATE)) /* users of max_speed */
#define PV (EB(PURSUIT) | EB(EVADE))

typedef struct mutation {
  mut_id id;
  const char *name;
  unsigned entries; /* which entry points the row applies to */
  int dims_only;    /* 0: 2D and 3D */
  crowdsteer_status want;
  float value;
  long at;
} mutation;

#define NAN_F ((float)NAN)
#define INF_F ((float)INFINITY)
#define NULLP CROWDSTEER_ERROR_NULL_POINTER
#define PARAM CROWDSTEER_ERROR_PARAMETER

static const mutation rejected[] = {
    {M_AGENTS_NULL, "agents NULL", ALL, 0, NULLP, 0, 0},
    {M_PX_NULL, "px NULL", ALL, 0, NULLP, 0, 0},
    {M_PY_NULL, "py NULL", ALL, 0, NULLP, 0, 0},
    {M_PZ_NULL, "pz NULL in 3D", ALL, 3, NULLP, 0, 0},
    {M_VX_NULL, "vx NULL", ALL, 0, NULLP, 0, 0},
    {M_VY_NULL, "vy NULL", ALL, 0, NULLP, 0, 0},
    {M_VZ_NULL, "vz NULL in 3D", ALL, 3, NULLP, 0, 0},
    {M_TARGET_NULL, "target NULL", TGT, 0, NULLP, 0, 0},
    {M_TPOS_X_NULL, "target position.x NULL", TGT, 0, NULLP, 0, 0},
    {M_TPOS_Z_NULL, "target position.z NULL in 3D", TGT, 3, NULLP, 0, 0},
    {M_TVEL_Y_NULL, "target velocity.y NULL", PV, 0, NULLP, 0, 0},
    {M_INDEX_NULL, "target index NULL", TGT, 0, NULLP, 0, 0},
    {M_OUT_NULL, "out NULL", BEH, 0, NULLP, 0, 0},
    {M_OUT_X_NULL, "out steering.x NULL", BEH, 0, NULLP, 0, 0},
    {M_OUT_Z_NULL, "out steering.z NULL in 3D", BEH, 3, NULLP, 0, 0},
    {M_WANDER_NULL, "wander state NULL", EB(WANDER), 0, NULLP, 0, 0},
    {M_WANDER_Y_NULL, "wander direction.y NULL", EB(WANDER), 0, NULLP, 0, 0},
    {M_WANDER_Z_NULL, "wander direction.z NULL in 3D", EB(WANDER), 3, NULLP, 0, 0},
    {M_STEER_NULL, "steering NULL", EB(INTEGRATE), 0, NULLP, 0, 0},
    {M_STEER_Y_NULL, "steering.y NULL", EB(INTEGRATE), 0, NULLP, 0, 0},
    {M_DIMS, "dims 1", ALL, 0, CROWDSTEER_ERROR_DIMS, 1, 0},
    {M_DIMS, "dims 4", ALL, 0, CROWDSTEER_ERROR_DIMS, 4, 0},
    {M_DIMS, "dims 0", ALL, 0, CROWDSTEER_ERROR_DIMS, 0, 0},
    {M_DIMS, "dims -2", ALL, 0, CROWDSTEER_ERROR_DIMS, -2, 0},
    {M_RANGE, "begin > end", ALL, 0, CROWDSTEER_ERROR_RANGE, 6, 5},
    {M_RANGE, "end > count", ALL, 0, CROWDSTEER_ERROR_RANGE, 2, COUNT + 1},
    {M_RANGE, "empty range past count", ALL, 0, CROWDSTEER_ERROR_RANGE, COUNT + 1,
     COUNT + 1},
    {M_MAX_SPEED, "max_speed -1", MOVERS, 0, PARAM, -1, 0},
    {M_MAX_SPEED, "max_speed NaN", MOVERS, 0, PARAM, NAN_F, 0},
    {M_MAX_SPEED, "max_speed +inf", MOVERS, 0, PARAM, INF_F, 0},
    {M_MAX_SPEED, "max_speed -tiny", MOVERS, 0, PARAM, -1e-40f, 0},
    {M_MAX_FORCE, "max_force -1", EB(INTEGRATE), 0, PARAM, -1, 0},
    {M_MAX_FORCE, "max_force NaN", EB(INTEGRATE), 0, PARAM, NAN_F, 0},
    {M_MASS, "mass -1", EB(INTEGRATE), 0, PARAM, -1, 0},
    {M_MASS, "mass NaN", EB(INTEGRATE), 0, PARAM, NAN_F, 0},
    {M_MASS, "mass -inf", EB(INTEGRATE), 0, PARAM, -INF_F, 0},
    {M_TTT, "time_to_target -1", TGT, 0, PARAM, -1, 0},
    {M_TTT, "time_to_target NaN", TGT, 0, PARAM, NAN_F, 0},
    {M_DT, "dt -1", EB(INTEGRATE), 0, PARAM, -1, 0},
    {M_DT, "dt NaN", EB(INTEGRATE), 0, PARAM, NAN_F, 0},
    {M_DT, "dt +inf", EB(INTEGRATE), 0, PARAM, INF_F, 0},
    {M_TARGET_RADIUS, "target_radius -1", EB(ARRIVE), 0, PARAM, -1, 0},
    {M_TARGET_RADIUS, "target_radius NaN", EB(ARRIVE), 0, PARAM, NAN_F, 0},
    {M_SLOWING, "slowing_radius -1", EB(ARRIVE), 0, PARAM, -1, 0},
    {M_SLOWING, "slowing_radius NaN", EB(ARRIVE), 0, PARAM, NAN_F, 0},
    {M_PANIC, "panic_radius -1", EB(FLEE) | EB(EVADE), 0, PARAM, -1, 0},
    {M_PANIC, "panic_radius NaN", EB(FLEE) | EB(EVADE), 0, PARAM, NAN_F, 0},
    {M_DANGER, "danger_radius -1", EB(LEAVE), 0, PARAM, -1, 0},
    {M_DANGER, "danger_radius NaN", EB(LEAVE), 0, PARAM, NAN_F, 0},
    {M_ESCAPE, "escape_radius -1", EB(LEAVE), 0, PARAM, -1, 0},
    {M_ESCAPE, "escape_radius NaN", EB(LEAVE), 0, PARAM, NAN_F, 0},
    {M_PREDICTION, "max_prediction -1", PV, 0, PARAM, -1, 0},
    {M_PREDICTION, "max_prediction NaN", PV, 0, PARAM, NAN_F, 0},
    {M_JITTER, "jitter -1", EB(WANDER), 0, PARAM, -1, 0},
    {M_JITTER, "jitter NaN", EB(WANDER), 0, PARAM, NAN_F, 0},
    {M_JITTER, "jitter +inf", EB(WANDER), 0, PARAM, INF_F, 0},
    {M_WRADIUS, "wander_radius -1", EB(WANDER), 0, PARAM, -1, 0},
    {M_WRADIUS, "wander_radius NaN", EB(WANDER), 0, PARAM, NAN_F, 0},
    {M_WRADIUS, "wander_radius +inf", EB(WANDER), 0, PARAM, INF_F, 0},
    {M_WDIST, "wander_distance -1", EB(WANDER), 0, PARAM, -1, 0},
    {M_WDIST, "wander_distance NaN", EB(WANDER), 0, PARAM, NAN_F, 0},
    {M_WDIST, "wander_distance +inf", EB(WANDER), 0, PARAM, INF_F, 0},
    {M_WEIGHT, "weight NaN", BEH, 0, PARAM, NAN_F, 0},
    {M_WEIGHT, "weight +inf", BEH, 0, PARAM, INF_F, 0},
    {M_WEIGHT, "weight -inf", BEH, 0, PARAM, -INF_F, 0},
    /* one bad element in the middle, or last, of the range */
    {M_PA_MAX_SPEED, "max_speed[mid] -1", MOVERS, 0, PARAM, -1, MIDDLE},
    {M_PA_MAX_SPEED, "max_speed[mid] NaN", MOVERS, 0, PARAM, NAN_F, MIDDLE},
    {M_PA_MAX_SPEED, "max_speed[last] +inf", MOVERS, 0, PARAM, INF_F, LAST},
    {M_PA_MAX_SPEED, "max_speed[first] NaN", MOVERS, 0, PARAM, NAN_F, BEGIN},
    {M_PA_MAX_FORCE, "max_force[mid] -1", EB(INTEGRATE), 0, PARAM, -1, MIDDLE},
    {M_PA_MAX_FORCE, "max_force[last] NaN", EB(INTEGRATE), 0, PARAM, NAN_F, LAST},
    {M_PA_MASS, "mass[mid] 0 (literal)", EB(INTEGRATE), 0, PARAM, 0, MIDDLE},
    {M_PA_MASS, "mass[mid] -1", EB(INTEGRATE), 0, PARAM, -1, MIDDLE},
    {M_PA_MASS, "mass[last] NaN", EB(INTEGRATE), 0, PARAM, NAN_F, LAST},
    {M_PA_TARGET_RADIUS, "target_radius[mid] NaN", EB(ARRIVE), 0, PARAM, NAN_F, MIDDLE},
    {M_PA_TARGET_RADIUS, "target_radius[last] -1", EB(ARRIVE), 0, PARAM, -1, LAST},
    {M_PA_SLOWING, "slowing_radius[mid] -1", EB(ARRIVE), 0, PARAM, -1, MIDDLE},
    {M_PA_SLOWING, "slowing_radius[mid] NaN", EB(ARRIVE), 0, PARAM, NAN_F, MIDDLE},
    {M_PA_PANIC, "panic_radius[mid] -1", EB(FLEE) | EB(EVADE), 0, PARAM, -1, MIDDLE},
    {M_PA_PANIC, "panic_radius[last] NaN", EB(FLEE) | EB(EVADE), 0, PARAM, NAN_F, LAST},
    {M_PA_DANGER, "danger_radius[mid] NaN", EB(LEAVE), 0, PARAM, NAN_F, MIDDLE},
    {M_PA_DANGER, "danger_radius[mid] -1", EB(LEAVE), 0, PARAM, -1, MIDDLE},
    {M_PA_ESCAPE, "escape_radius[mid] -1", EB(LEAVE), 0, PARAM, -1, MIDDLE},
    {M_PA_ESCAPE, "escape_radius[last] NaN", EB(LEAVE), 0, PARAM, NAN_F, LAST},
    {M_PA_WRADIUS, "wander_radius[mid] +inf", EB(WANDER), 0, PARAM, INF_F, MIDDLE},
    {M_PA_WRADIUS, "wander_radius[mid] NaN", EB(WANDER), 0, PARAM, NAN_F, MIDDLE},
    {M_PA_WDIST, "wander_distance[mid] -1", EB(WANDER), 0, PARAM, -1, MIDDLE},
    {M_PA_WDIST, "wander_distance[last] +inf", EB(WANDER), 0, PARAM, INF_F, LAST},
    {M_PA_WEIGHT, "weight[mid] NaN", BEH, 0, PARAM, NAN_F, MIDDLE},
    {M_PA_WEIGHT, "weight[mid] +inf", BEH, 0, PARAM, INF_F, MIDDLE},
    {M_PA_WEIGHT, "weight[last] -inf", BEH, 0, PARAM, -INF_F, LAST},
    {M_INDEX, "index[mid] == count", TGT, 0, CROWDSTEER_ERROR_AGENT_INDEX, COUNT, MIDDLE},
    {M_INDEX, "index[last] huge", TGT, 0, CROWDSTEER_ERROR_AGENT_INDEX, 4e9f, LAST},
    {M_PA_TTT, "time_to_target[mid] 0 (literal)", TGT, 0, PARAM, 0, MIDDLE},
    {M_PA_TTT, "time_to_target[last] NaN", TGT, 0, PARAM, NAN_F, LAST},
    {M_PA_PREDICTION, "max_prediction[mid] -1", PV, 0, PARAM, -1, MIDDLE},
    {M_PA_PREDICTION, "max_prediction[last] NaN", PV, 0, PARAM, NAN_F, LAST},
    {M_PA_JITTER, "jitter[mid] +inf", EB(WANDER), 0, PARAM, INF_F, MIDDLE},
    {M_PA_JITTER, "jitter[last] -1", EB(WANDER), 0, PARAM, -1, LAST},
    {M_AGENT, "agent == count", TGT, 0, CROWDSTEER_ERROR_AGENT_INDEX, COUNT, 0},
    {M_AGENT, "agent huge", TGT, 0, CROWDSTEER_ERROR_AGENT_INDEX, 4e9f, 0},
    {M_KIND, "target kind 4", TGT, 0, PARAM, 4, 0},
    {M_KIND, "target kind 1000", TGT, 0, PARAM, 1000, 0},
    {M_MODE, "write mode 2", BEH, 0, PARAM, 2, 0},
    {M_MODE, "write mode 77", BEH, 0, PARAM, 77, 0},
};

/* Inputs a call must not look at: the call succeeds. */
static const mutation accepted[] = {
    {M_NONE, "baseline", ALL, 0, CROWDSTEER_OK, 0, 0},
    {M_PARAMS_NULL, "params NULL", ALL, 0, CROWDSTEER_OK, 0, 0},
    {M_PZ_NULL, "pz NULL in 2D", ALL, 2, CROWDSTEER_OK, 0, 0},
    {M_VZ_NULL, "vz NULL in 2D", ALL, 2, CROWDSTEER_OK, 0, 0},
    {M_TPOS_Z_NULL, "target position.z NULL in 2D", TGT, 2, CROWDSTEER_OK, 0, 0},
    {M_OUT_Z_NULL, "out steering.z NULL in 2D", BEH, 2, CROWDSTEER_OK, 0, 0},
    {M_WANDER_Z_NULL, "wander direction.z NULL in 2D", EB(WANDER), 2, CROWDSTEER_OK, 0,
     0},
    {M_TVEL_Y_NULL, "target velocity NULL, not needed",
     EB(SEEK) | EB(FLEE) | EB(ARRIVE) | EB(LEAVE), 0, CROWDSTEER_OK, 0, 0},
    {M_OVERWRITE_WEIGHT, "NaN weight in overwrite mode", BEH, 0, CROWDSTEER_OK, NAN_F, 0},
    {M_MAX_SPEED, "max_speed 0 (default 1)", MOVERS, 0, CROWDSTEER_OK, 0, 0},
    {M_MAX_SPEED, "max_speed -1 unused by wander", EB(WANDER), 0, CROWDSTEER_OK, -1, 0},
    {M_PANIC, "panic_radius -1 unused", ALL & ~(EB(FLEE) | EB(EVADE)), 0, CROWDSTEER_OK,
     -1, 0},
    {M_MASS, "mass -1 unused", BEH, 0, CROWDSTEER_OK, -1, 0},
    {M_DT, "dt NaN unused", BEH, 0, CROWDSTEER_OK, NAN_F, 0},
    {M_TTT, "time_to_target -1 unused", EB(WANDER) | EB(INTEGRATE), 0, CROWDSTEER_OK, -1,
     0},
    {M_JITTER, "jitter NaN unused", ALL & ~EB(WANDER), 0, CROWDSTEER_OK, NAN_F, 0},
    {M_PREDICTION, "max_prediction -1 unused", ALL & ~PV, 0, CROWDSTEER_OK, -1, 0},
    {M_PREDICTION, "max_prediction +inf", PV, 0, CROWDSTEER_OK, INF_F, 0},
    {M_MAX_FORCE, "max_force +inf", EB(INTEGRATE), 0, CROWDSTEER_OK, INF_F, 0},
    {M_DT, "dt 0 (default 1)", EB(INTEGRATE), 0, CROWDSTEER_OK, 0, 0},
    /* bad per-agent values and indices outside [begin, end) are not read */
    {M_PA_MAX_SPEED, "max_speed[0] NaN outside", MOVERS, 0, CROWDSTEER_OK, NAN_F, 0},
    {M_PA_MAX_SPEED, "max_speed[end] -1 outside", MOVERS, 0, CROWDSTEER_OK, -1, END},
    {M_PA_MASS, "mass[begin-1] 0 outside", EB(INTEGRATE), 0, CROWDSTEER_OK, 0, BEGIN - 1},
    {M_PA_MAX_FORCE, "max_force[count-1] NaN outside", EB(INTEGRATE), 0, CROWDSTEER_OK,
     NAN_F, COUNT - 1},
    {M_PA_SLOWING, "slowing_radius[end] NaN outside", EB(ARRIVE), 0, CROWDSTEER_OK, NAN_F,
     END},
    {M_PA_PANIC, "panic_radius[0] -1 outside", EB(FLEE) | EB(EVADE), 0, CROWDSTEER_OK, -1,
     0},
    {M_PA_DANGER, "danger_radius[end] NaN outside", EB(LEAVE), 0, CROWDSTEER_OK, NAN_F,
     END},
    {M_PA_WRADIUS, "wander_radius[1] inf outside", EB(WANDER), 0, CROWDSTEER_OK, INF_F,
     1},
    {M_PA_WEIGHT, "weight[end] NaN outside", BEH, 0, CROWDSTEER_OK, NAN_F, END},
    {M_INDEX, "index[end] == count outside", TGT, 0, CROWDSTEER_OK, COUNT, END},
    {M_INDEX, "index[0] huge outside", TGT, 0, CROWDSTEER_OK, 4e9f, 0},
    {M_PA_TTT, "time_to_target[end] 0 outside", TGT, 0, CROWDSTEER_OK, 0, END},
    {M_PA_PREDICTION, "max_prediction[mid] +inf", PV, 0, CROWDSTEER_OK, INF_F, MIDDLE},
    {M_PA_PREDICTION, "max_prediction[mid] 0 (literal)", PV, 0, CROWDSTEER_OK, 0, MIDDLE},
    {M_PA_JITTER, "jitter[0] NaN outside", EB(WANDER), 0, CROWDSTEER_OK, NAN_F, 0},
    {M_AGENT, "agent count - 1", TGT, 0, CROWDSTEER_OK, COUNT - 1, 0},
    {M_AGENT, "agent 0, outside the range", TGT, 0, CROWDSTEER_OK, 0, 0},
};

static void baseline(bh_call *c, bh_world *w, int dims) {
  bh_world_fill(w, 1.0f);
  for (int i = 0; i < BH_MAX; i++) {
    w->index[i] = (uint32_t)((i * 5 + 1) % COUNT);
    w->max_speed[i] = 1.5f, w->max_force[i] = 2, w->mass[i] = 1.25f;
    w->target_radius[i] = 0.1f, w->slowing_radius[i] = 3, w->panic_radius[i] = 50;
    w->danger_radius[i] = 40, w->escape_radius[i] = 2, w->wander_radius[i] = 1;
    w->wander_distance[i] = 2, w->weight[i] = 0.5f;
  }
  /* ARRAYS targets; rows about indices switch to AGENTS */
  bh_call_init(c, w, COUNT, dims, CROWDSTEER_TARGET_ARRAYS);
  crowdsteer_params *p = &c->params;
  p->max_speed_per_agent = w->max_speed;
  p->max_force_per_agent = w->max_force;
  p->mass_per_agent = w->mass;
  p->target_radius_per_agent = w->target_radius;
  p->slowing_radius_per_agent = w->slowing_radius;
  p->panic_radius_per_agent = w->panic_radius;
  p->danger_radius_per_agent = w->danger_radius;
  p->escape_radius_per_agent = w->escape_radius;
  p->wander_radius_per_agent = w->wander_radius;
  p->wander_distance_per_agent = w->wander_distance;
  p->time_to_target = 0.75f;
  p->dt = 0.5f;
  p->max_prediction = 10;
  p->jitter = 0.3f;
  c->wander.seed = 99;
}

/* A row that makes a pointer NULL: 1 when `m` is one. */
static int apply_null(const mutation *m, bh_call *c) {
  switch (m->id) {
  case M_PARAMS_NULL: c->params_ptr = NULL; break;
  case M_AGENTS_NULL: c->agents_ptr = NULL; break;
  case M_PX_NULL: c->agents.px = NULL; break;
  case M_PY_NULL: c->agents.py = NULL; break;
  case M_PZ_NULL: c->agents.pz = NULL; break;
  case M_VX_NULL: c->agents.vx = NULL; break;
  case M_VY_NULL: c->agents.vy = NULL; break;
  case M_VZ_NULL: c->agents.vz = NULL; break;
  case M_TARGET_NULL: c->target_ptr = NULL; break;
  case M_TPOS_X_NULL: c->target.position.x = NULL; break;
  case M_TPOS_Z_NULL: c->target.position.z = NULL; break;
  case M_TVEL_Y_NULL: c->target.velocity.y = NULL; break;
  case M_INDEX_NULL:
    c->target.kind = CROWDSTEER_TARGET_AGENTS;
    c->target.index = NULL;
    break;
  case M_OUT_NULL: c->out_ptr = NULL; break;
  case M_OUT_X_NULL: c->out.steering.x = NULL; break;
  case M_OUT_Z_NULL: c->out.steering.z = NULL; break;
  case M_WANDER_NULL: c->wander_ptr = NULL; break;
  case M_WANDER_Y_NULL: c->wander.direction.y = NULL; break;
  case M_WANDER_Z_NULL: c->wander.direction.z = NULL; break;
  case M_STEER_NULL: c->steering_ptr = NULL; break;
  case M_STEER_Y_NULL: c->steering.y = NULL; break;
  default: return 0;
  }
  return 1;
}

/* A row that sets a uniform parameter: 1 when `m` is one. */
static int apply_uniform(const mutation *m, bh_call *c) {
  crowdsteer_params *p = &c->params;
  const float v = m->value;
  switch (m->id) {
  case M_MAX_SPEED: p->max_speed = v, p->max_speed_per_agent = NULL; break;
  case M_MAX_FORCE: p->max_force = v, p->max_force_per_agent = NULL; break;
  case M_MASS: p->mass = v, p->mass_per_agent = NULL; break;
  case M_TTT: p->time_to_target = v; break;
  case M_DT: p->dt = v; break;
  case M_TARGET_RADIUS: p->target_radius = v, p->target_radius_per_agent = NULL; break;
  case M_SLOWING: p->slowing_radius = v, p->slowing_radius_per_agent = NULL; break;
  case M_PANIC: p->panic_radius = v, p->panic_radius_per_agent = NULL; break;
  case M_DANGER: p->danger_radius = v, p->danger_radius_per_agent = NULL; break;
  case M_ESCAPE: p->escape_radius = v, p->escape_radius_per_agent = NULL; break;
  case M_PREDICTION: p->max_prediction = v; break;
  case M_JITTER: p->jitter = v; break;
  case M_WRADIUS: p->wander_radius = v, p->wander_radius_per_agent = NULL; break;
  case M_WDIST: p->wander_distance = v, p->wander_distance_per_agent = NULL; break;
  case M_WEIGHT:
    c->out.mode = CROWDSTEER_ACCUMULATE;
    c->out.weight = v;
    break;
  case M_OVERWRITE_WEIGHT: c->out.weight = v; break;
  default: return 0;
  }
  return 1;
}

/* A row that sets one agent's value of a per-agent array: 1 when `m` is
 * one. */
static int apply_per_agent(const mutation *m, bh_call *c, bh_world *w) {
  crowdsteer_params *p = &c->params;
  const float v = m->value;
  const size_t at = (size_t)m->at;
  switch (m->id) {
  case M_PA_MAX_SPEED: w->max_speed[at] = v; break;
  case M_PA_MAX_FORCE: w->max_force[at] = v; break;
  case M_PA_MASS: w->mass[at] = v; break;
  case M_PA_TARGET_RADIUS: w->target_radius[at] = v; break;
  case M_PA_SLOWING: w->slowing_radius[at] = v; break;
  case M_PA_PANIC: w->panic_radius[at] = v; break;
  case M_PA_DANGER: w->danger_radius[at] = v; break;
  case M_PA_ESCAPE: w->escape_radius[at] = v; break;
  case M_PA_WRADIUS: w->wander_radius[at] = v; break;
  case M_PA_WDIST: w->wander_distance[at] = v; break;
  case M_PA_WEIGHT:
    c->out.mode = CROWDSTEER_ACCUMULATE;
    c->out.weight = 1;
    c->out.weight_per_agent = w->weight;
    w->weight[at] = v;
    break;
  case M_PA_TTT:
    p->time_to_target_per_agent = w->time_to_target;
    w->time_to_target[at] = v;
    break;
  case M_PA_PREDICTION:
    p->max_prediction_per_agent = w->max_prediction;
    w->max_prediction[at] = v;
    break;
  case M_PA_JITTER:
    p->jitter_per_agent = w->jitter;
    w->jitter[at] = v;
    break;
  default: return 0;
  }
  return 1;
}

/* Applies a row; returns the range to call. */
static void apply(const mutation *m, bh_call *c, bh_world *w, size_t *begin,
                  size_t *end) {
  float v = m->value;
  size_t at = (size_t)m->at;
  *begin = BEGIN;
  *end = END;
  if (apply_null(m, c) || apply_uniform(m, c) || apply_per_agent(m, c, w)) return;
  switch (m->id) {
  case M_NONE: break;
  case M_DIMS: c->agents.dims = (int)v; break;
  case M_RANGE:
    *begin = (size_t)v;
    *end = at;
    break;
  case M_AGENT:
    c->target.kind = CROWDSTEER_TARGET_AGENT;
    c->target.agent = v >= 4e9f ? UINT32_MAX : (uint32_t)v;
    break;
  case M_INDEX:
    c->target.kind = CROWDSTEER_TARGET_AGENTS;
    w->index[at] = v >= 4e9f ? UINT32_MAX : (uint32_t)v;
    break;
  case M_KIND: c->target.kind = (crowdsteer_target_kind)(int)v; break;
  case M_MODE: c->out.mode = (crowdsteer_write_mode)(int)v; break;
  default: break;
  }
}

/* Runs every row on every entry point it names, 2D and 3D. Rejected rows
 * must leave the world as it was; accepted rows must write something. */
static void run_rows(const mutation *rows, size_t n) {
  for (size_t r = 0; r < n; r++)
    for (int dims = 2; dims <= 3; dims++) {
      if (rows[r].dims_only && rows[r].dims_only != dims) continue;
      for (int e = 0; e < ENTRY_COUNT; e++) {
        if (!(rows[r].entries & (1u << e))) continue;
        static bh_world w, before;
        bh_call c;
        size_t begin, end;
        baseline(&c, &w, dims);
        apply(&rows[r], &c, &w, &begin, &end);
        before = w;
        crowdsteer_status got = bh_run((bh_entry)e, &c, begin, end);
        CHECK_MSG(got == rows[r].want, "%s %dD, %s: got %d (%s), expected %d (%s)",
                  entry_name(e), dims, rows[r].name, (int)got,
                  crowdsteer_status_string(got), (int)rows[r].want,
                  crowdsteer_status_string(rows[r].want));
        int changed = memcmp(&w, &before, sizeof w) != 0;
        if (rows[r].want != CROWDSTEER_OK)
          CHECK_MSG(!changed, "%s %dD, %s: rejected call wrote to an array",
                    entry_name(e), dims, rows[r].name);
        else
          CHECK_MSG(changed, "%s %dD, %s: accepted call wrote nothing", entry_name(e),
                    dims, rows[r].name);
      }
    }
}

/* An AGENT target's index is checked once per call, and only when the
 * range is not empty (nothing reads it otherwise). */
static void test_agent_target_empty_range(void) {
  for (int e = 0; e < ENTRY_COUNT; e++) {
    if (!bh_has_target((bh_entry)e)) continue;
    bh_world w;
    bh_call c;
    baseline(&c, &w, 2);
    c.target.kind = CROWDSTEER_TARGET_AGENT;
    c.target.agent = UINT32_MAX;
    CHECK_STATUS(bh_run((bh_entry)e, &c, 4, 4), CROWDSTEER_OK);
    CHECK_STATUS(bh_run((bh_entry)e, &c, 4, 5), CROWDSTEER_ERROR_AGENT_INDEX);
  }
}

/* AGENTS indices are checked over exactly [begin, end), wherever the one
 * bad index falls: vector bodies, their ends and the scalar tail (ranges up
 * to 100 agents cover two 16-lane vectors and more), for every bad value
 * (count, count + 1, 2^31, 2^32 - 1). */
static void test_index_check_every_position(void) {
  enum { N = 100 };
  static float px[N], py[N], vx[N], vy[N], sx[N], sy[N];
  static uint32_t index[N];
  const crowdsteer_agents agents = {N, 2, px, py, NULL, vx, vy, NULL, NULL};
  crowdsteer_target target;
  memset(&target, 0, sizeof target);
  target.kind = CROWDSTEER_TARGET_AGENTS;
  target.index = index;
  crowdsteer_params params;
  memset(&params, 0, sizeof params);
  crowdsteer_output out;
  memset(&out, 0, sizeof out);
  out.steering = (crowdsteer_vectors){sx, sy, NULL};
  static const uint32_t bad[] = {N, N + 1, 0x80000000u, 0xFFFFFFFFu};
  static const size_t begins[] = {0, 1, 3, 16, 31};
  for (size_t b = 0; b < sizeof begins / sizeof begins[0]; b++)
    for (size_t end = begins[b]; end <= N; end++)
      for (size_t at = 0; at < N; at++)
        for (size_t v = 0; v < sizeof bad / sizeof bad[0]; v++) {
          if (v > 0 && at != begins[b] && at + 1 != end) continue; /* ends only */
          for (size_t i = 0; i < N; i++)
            index[i] = (uint32_t)((i * 7 + 3) % N);
          index[at] = bad[v];
          const int inside = at >= begins[b] && at < end;
          CHECK_MSG(crowdsteer_seek(&agents, &target, &params, &out, begins[b], end) ==
                        (inside ? CROWDSTEER_ERROR_AGENT_INDEX : CROWDSTEER_OK),
                    "index[%zu] = %u, range [%zu, %zu)", at, bad[v], begins[b], end);
        }
}

/* The structs themselves are needed even for an empty range. */
static void test_null_structs_empty_range(void) {
  for (int e = 0; e < ENTRY_COUNT; e++) {
    for (int which = 0; which < 5; which++) {
      bh_world w;
      bh_call c;
      baseline(&c, &w, 3);
      const char *what = "agents";
      switch (which) {
      case 0: c.agents_ptr = NULL; break;
      case 1: c.target_ptr = NULL, what = "target"; break;
      case 2: c.out_ptr = NULL, what = "out"; break;
      case 3: c.wander_ptr = NULL, what = "wander state"; break;
      default: c.steering_ptr = NULL, what = "steering"; break;
      }
      int needed = which == 0 || (which == 1 && bh_has_target((bh_entry)e)) ||
                   (which == 2 && e != INTEGRATE) || (which == 3 && e == WANDER) ||
                   (which == 4 && e == INTEGRATE);
      crowdsteer_status got = bh_run((bh_entry)e, &c, 4, 4);
      CHECK_MSG(got == (needed ? CROWDSTEER_ERROR_NULL_POINTER : CROWDSTEER_OK),
                "%s: %s NULL on an empty range returned %d", entry_name(e), what,
                (int)got);
    }
  }
}

/* ---- overlap ------------------------------------------------------------------
 * Every array of a call in one pool, OV_SLOT elements apart; one written
 * array is then moved to sit `shift` elements from another one's start, and
 * the call must return OVERLAP (nothing written) exactly when the elements
 * the two touch meet, OK otherwise. What each touches is docs/guarantees.md
 * ("Memory"), written out here on its own: [BEGIN, END) at the agent's own
 * index, the whole batch where agent targets are gathered, the one agent of
 * an AGENT target; nothing for an array the call does not use. */

enum { OV_SLOT = 48, OV_AGENT = 0 };

typedef enum ov_role {
  OV_P,
  OV_V = OV_P + 3,
  OV_TP = OV_V + 3,
  OV_TV = OV_TP + 3,
  OV_OUT = OV_TV + 3,
  OV_WANDER = OV_OUT + 3,
  OV_INDEX = OV_WANDER + 3,
  OV_IDS,
  OV_WEIGHT,
  OV_MAX_SPEED,
  OV_TTT,
  OV_RADII,
  OV_PANIC,
  OV_LEAVE_RADII,
  OV_PREDICTION,
  OV_WANDER_RADIUS,
  OV_MAX_FORCE,
  OV_MASS,
  OV_ROLES
} ov_role;

static float ov_pool[(OV_ROLES + 2) * OV_SLOT];

static float *ov_at(int role, int shift_from_role, int shift) {
  const int slot = shift_from_role >= 0 ? shift_from_role : role;
  return ov_pool + (size_t)(slot + 1) * OV_SLOT + shift;
}

/* The element intervals of `role` a call touches (at most two), 0 when
 * it does not use it. */
typedef struct ov_extent {
  int n;
  size_t first[2], last[2];
  int written;
} ov_extent;

static ov_extent ov_touched(int entry, int dims, crowdsteer_target_kind kind,
                            int accumulate, int role) {
  ov_extent e = {0, {0, 0}, {0, 0}, 0};
  const int integrate = entry == INTEGRATE, wander = entry == WANDER;
  const int pv = entry == PURSUIT || entry == EVADE;
  const int axis = role < OV_INDEX ? role % 3 : 0;
  if (role < OV_INDEX && axis >= dims) return e; /* z in 2D */
  int own = 0;
  switch (role < OV_INDEX ? role - axis : role) {
  case OV_P:
  case OV_V:
    own = 1;
    e.written = integrate;
    if (!integrate && !wander && kind == CROWDSTEER_TARGET_AGENTS) {
      e.n = 1, e.first[0] = 0, e.last[0] = COUNT;
      return e;
    }
    if (!integrate && !wander && kind == CROWDSTEER_TARGET_AGENT)
      e.n = 1, e.first[0] = OV_AGENT, e.last[0] = OV_AGENT + 1;
    break;
  case OV_TP: own = !integrate && !wander && kind == CROWDSTEER_TARGET_ARRAYS; break;
  case OV_TV: own = pv && kind == CROWDSTEER_TARGET_ARRAYS; break;
  case OV_OUT: own = 1, e.written = !integrate; break; /* integrate: its steering */
  case OV_WANDER: own = wander, e.written = 1; break;
  case OV_INDEX: own = !integrate && !wander && kind == CROWDSTEER_TARGET_AGENTS; break;
  case OV_IDS: own = wander; break;
  case OV_WEIGHT: own = !integrate && accumulate; break;
  case OV_MAX_SPEED: own = !wander; break;
  case OV_TTT: own = !integrate && !wander; break;
  case OV_RADII: own = entry == ARRIVE; break;
  case OV_PANIC: own = entry == FLEE || entry == EVADE; break;
  case OV_LEAVE_RADII: own = entry == LEAVE; break;
  case OV_PREDICTION: own = pv; break;
  case OV_WANDER_RADIUS: own = wander; break;
  case OV_MAX_FORCE:
  case OV_MASS: own = integrate; break;
  default: break;
  }
  if (own) {
    e.first[e.n] = BEGIN, e.last[e.n] = END;
    e.n++;
  }
  return e;
}

/* A call with every array at its own slot, or `moved` at `shift` elements
 * from the start of `onto`'s slot. */
static void ov_call(bh_call *c, int dims, crowdsteer_target_kind kind, int accumulate,
                    int moved, int onto, int shift) {
  for (size_t i = 0; i < sizeof ov_pool / sizeof ov_pool[0]; i++)
    ov_pool[i] = 0.5f + 0.125f * (float)(i % 13);
  for (int i = 0; i < COUNT; i++) {
    const uint32_t index = (uint32_t)((i * 5 + 1) % COUNT), id = (uint32_t)(i + 100);
    memcpy(ov_at(OV_INDEX, -1, i), &index, sizeof index);
    memcpy(ov_at(OV_IDS, -1, i), &id, sizeof id);
  }
  float *a[OV_ROLES];
  for (int r = 0; r < OV_ROLES; r++)
    a[r] = r == moved ? ov_at(r, onto, shift) : ov_at(r, -1, 0);
  memset(c, 0, sizeof *c);
  crowdsteer_agents agents = {
      COUNT,       dims,        a[OV_P],
      a[OV_P + 1], a[OV_P + 2], a[OV_V],
      a[OV_V + 1], a[OV_V + 2], (const uint32_t *)(void *)a[OV_IDS]};
  c->agents = agents;
  c->target.kind = kind;
  c->target.agent = OV_AGENT;
  c->target.position = (crowdsteer_vectors){a[OV_TP], a[OV_TP + 1], a[OV_TP + 2]};
  c->target.velocity = (crowdsteer_vectors){a[OV_TV], a[OV_TV + 1], a[OV_TV + 2]};
  c->target.index = (const uint32_t *)(void *)a[OV_INDEX];
  c->out.steering = (crowdsteer_vectors){a[OV_OUT], a[OV_OUT + 1], a[OV_OUT + 2]};
  c->out.mode = accumulate ? CROWDSTEER_ACCUMULATE : CROWDSTEER_OVERWRITE;
  c->out.weight_per_agent = a[OV_WEIGHT];
  c->wander.direction =
      (crowdsteer_vectors){a[OV_WANDER], a[OV_WANDER + 1], a[OV_WANDER + 2]};
  c->steering = c->out.steering;
  crowdsteer_params *p = &c->params;
  p->max_speed_per_agent = a[OV_MAX_SPEED];
  p->time_to_target_per_agent = a[OV_TTT];
  p->target_radius_per_agent = a[OV_RADII];
  p->slowing_radius_per_agent = a[OV_RADII];
  p->panic_radius_per_agent = a[OV_PANIC];
  p->danger_radius_per_agent = a[OV_LEAVE_RADII];
  p->escape_radius_per_agent = a[OV_LEAVE_RADII];
  p->max_prediction_per_agent = a[OV_PREDICTION];
  p->wander_radius_per_agent = a[OV_WANDER_RADIUS];
  p->max_force_per_agent = a[OV_MAX_FORCE];
  p->mass_per_agent = a[OV_MASS];
  c->agents_ptr = &c->agents;
  c->target_ptr = &c->target;
  c->params_ptr = &c->params;
  c->out_ptr = &c->out;
  c->wander_ptr = &c->wander;
  c->steering_ptr = &c->steering;
}

static int ov_meet(const ov_extent *moved, const ov_extent *onto, int shift) {
  for (int i = 0; i < moved->n; i++)
    for (int j = 0; j < onto->n; j++) {
      const long lo = (long)moved->first[i] + shift, hi = (long)moved->last[i] + shift;
      if (lo < (long)onto->last[j] && (long)onto->first[j] < hi) return 1;
    }
  return 0;
}

static void test_overlaps(void) {
  static const int shifts[] = {-12, -10, -9, -8, -7, -2, -1, 0, 1, 7, 8, 9, 10, 12};
  static float before[sizeof ov_pool / sizeof ov_pool[0]];
  size_t refused = 0, allowed = 0;
  for (int e = 0; e < ENTRY_COUNT; e++)
    for (int dims = 2; dims <= 3; dims++)
      for (int kind = 0; kind < 4; kind++)
        for (int accumulate = 0; accumulate < 2; accumulate++) {
          if ((e == WANDER || e == INTEGRATE) && kind > 0) continue;
          if (e == INTEGRATE && accumulate) continue;
          const crowdsteer_target_kind k = (crowdsteer_target_kind)kind;
          for (int moved = 0; moved < OV_ROLES; moved++) {
            const ov_extent w = ov_touched(e, dims, k, accumulate, moved);
            if (!w.written || !w.n) continue;
            for (int onto = 0; onto < OV_ROLES; onto++) {
              if (onto == moved) continue;
              const ov_extent r = ov_touched(e, dims, k, accumulate, onto);
              for (size_t s = 0; s < sizeof shifts / sizeof shifts[0]; s++) {
                bh_call c;
                ov_call(&c, dims, k, accumulate, moved, onto, shifts[s]);
                memcpy(before, ov_pool, sizeof before);
                const int meet = r.n && ov_meet(&w, &r, shifts[s]);
                const crowdsteer_status got = bh_run((bh_entry)e, &c, BEGIN, END);
                CHECK_MSG(got == (meet ? CROWDSTEER_ERROR_OVERLAP : CROWDSTEER_OK),
                          "%s %dD, target kind %d, %s: array %d moved %d elements "
                          "onto array %d: %d (%s)",
                          entry_name(e), dims, kind,
                          accumulate ? "accumulate" : "overwrite", moved, shifts[s], onto,
                          (int)got, crowdsteer_status_string(got));
                if (got == CROWDSTEER_ERROR_OVERLAP)
                  CHECK_MSG(memcmp(before, ov_pool, sizeof before) == 0,
                            "%s: a refused overlap wrote", entry_name(e));
                refused += meet;
                allowed += !meet;
              }
            }
          }
        }
  /* Both answers are exercised (a layout generator that never overlaps would
   * pass anything). */
  CHECK_MSG(refused > 1000 && allowed > 1000, "refused %zu, allowed %zu", refused,
            allowed);
}

/* Two arrays cut from one allocation end to end, and two ranges of one
 * array used by two calls, are not overlaps. */
static void test_adjacent_is_legal(void) {
  static float block[9 * COUNT];
  float *p[2] = {block, block + COUNT}, *v[2] = {block + 2 * COUNT, block + 3 * COUNT};
  float *out[2] = {block + 4 * COUNT, block + 5 * COUNT};
  const crowdsteer_agents agents = {COUNT, 2, p[0], p[1], NULL, v[0], v[1], NULL, NULL};
  crowdsteer_target target;
  memset(&target, 0, sizeof target);
  crowdsteer_output o;
  memset(&o, 0, sizeof o);
  o.steering = (crowdsteer_vectors){out[0], out[1], NULL};
  CHECK_STATUS(crowdsteer_seek(&agents, &target, NULL, &o, 0, COUNT), CROWDSTEER_OK);
  /* Steering for agents [0, 6) in the first half of an array whose second
   * half holds their top speeds, for a call over that range only. */
  float *shared = block + 6 * COUNT;
  for (int i = 0; i < COUNT; i++)
    shared[i] = 2.0f;
  crowdsteer_params params;
  memset(&params, 0, sizeof params);
  params.max_speed_per_agent = shared; /* read at [6, 12) */
  o.steering =
      (crowdsteer_vectors){shared, block + 7 * COUNT, NULL}; /* written at [0, 6) */
  CHECK_STATUS(crowdsteer_seek(&agents, &target, &params, &o, 6, COUNT),
               CROWDSTEER_ERROR_OVERLAP);
  o.steering.x = shared - 6 + 0; /* x[6..12) = shared[0..6) */
  CHECK_STATUS(crowdsteer_seek(&agents, &target, &params, &o, 6, COUNT), CROWDSTEER_OK);
  /* The integrator's steering x starting at the last velocity y: steering
   * x[0] is vy[COUNT - 1], so only a range that reads agent 0's steering and
   * writes agent COUNT - 1's velocity touches that element twice. */
  const crowdsteer_vectors late = {v[1] + COUNT - 1, block + 8 * COUNT, NULL};
  CHECK_STATUS(crowdsteer_integrate(&agents, &late, NULL, 0, COUNT),
               CROWDSTEER_ERROR_OVERLAP);
  CHECK_STATUS(crowdsteer_integrate(&agents, &late, NULL, 0, COUNT - 1), CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_integrate(&agents, &late, NULL, 1, COUNT), CROWDSTEER_OK);
}

int main(void) {
  if (skip_if_forced_isa_unavailable()) return 77;
  run_rows(rejected, sizeof rejected / sizeof rejected[0]);
  run_rows(accepted, sizeof accepted / sizeof accepted[0]);
  test_null_structs_empty_range();
  test_agent_target_empty_range();
  test_index_check_every_position();
  test_overlaps();
  test_adjacent_is_legal();
  return check_report("test_behaviour_validation");
}
