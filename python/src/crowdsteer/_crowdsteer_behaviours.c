/* crowdsteer._crowdsteer: the single-behaviour calls (seek ... wander,
 * separation, cohesion, alignment) and integrate. */
#include "_crowdsteer.h"

#include <string.h>

/* ---- calls ------------------------------------------------------------------------- */

/* Each call converts its numbers first and reads its arrays last: a number's
 * __index__ or __float__ can run Python code, which could move an array's
 * memory between the check and the library call. */

/* The arrays the last call handed the library to write, for the zero-copy
 * tests (addresses only). */
static const void *last_written[6];

static void remember_written(const void *a, const void *b, const void *c) {
  memset(last_written, 0, sizeof last_written);
  last_written[0] = a;
  last_written[1] = b;
  last_written[2] = c;
}

PyObject *py_last_written(PyObject *self, PyObject *unused) {
  (void)self, (void)unused;
  PyObject *t = PyTuple_New(6);
  for (int i = 0; t && i < 6; i++)
    PyTuple_SET_ITEM(t, i, PyLong_FromVoidPtr((void *)last_written[i]));
  return t;
}

/* A behaviour call from Python: agents, what the behaviour steers by (a
 * Target, a WanderState or Neighbours), params, steering and the output
 * options. One parser and one runner serve every behaviour. */
typedef struct behaviour_call {
  PyObject *agents, *subject, *params, *steering, *mode, *weight, *weights, *begin, *end;
  /* Filled by prepare_call: */
  AgentsObject *a;
  crowdsteer_agents agents_c;
  crowdsteer_params c_params;
  crowdsteer_output out;
  PyObject *keep[3];
  size_t b, e;
  spans memory; /* every array the call hands the library; last (see prepare_call) */
} behaviour_call;

/* Parses (agents, <subject>, params, steering, *, mode, weight,
 * weight_per_agent, begin, end) and checks everything but the subject, whose
 * arrays the caller adds to c->memory before check_spans. */
static int prepare_call(behaviour_call *c, PyObject *args, PyObject *kwargs,
                        char **kwlist, const char *format) {
  /* Not the spans' local storage: zeroing it would cost more than the checks. */
  memset(c, 0, offsetof(behaviour_call, memory));
  spans_init(&c->memory);
  c->weights = c->end = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, format, kwlist, &c->agents, &c->subject,
                                   &c->params, &c->steering, &c->mode, &c->weight,
                                   &c->weights, &c->begin, &c->end))
    return -1;
  int mode = CROWDSTEER_OVERWRITE;
  c->out.weight = 1.0f;
  c->a = as_agents(c->agents, "agents");
  if (!c->a || (c->mode && int_from(c->mode, NAME(NULL, "mode"), &mode) < 0) ||
      (c->weight && float32_from(c->weight, NAME(NULL, "weight"), &c->out.weight) < 0) ||
      range_from(c->begin, c->end, c->a->count, &c->b, &c->e) < 0)
    return -1;
  c->out.mode = (crowdsteer_write_mode)mode;
  const size_t count = c->a->count;
  int failed = 0;
  if (agents_to_c(c->a, "agents", READS, &c->agents_c) < 0 ||
      params_to_c(c->params, NAME(NULL, "params"), (Py_ssize_t)count, &c->c_params) < 0 ||
      vectors_from(c->steering, NAME(NULL, "steering"), c->a->dims, (Py_ssize_t)count,
                   WRITES, &c->out.steering, c->keep) < 0)
    return -1;
  c->out.weight_per_agent = optional_array(c->weights, NAME(NULL, "weight_per_agent"),
                                           NPY_FLOAT32, (Py_ssize_t)count, &failed);
  if (failed || spans_add_agents(&c->memory, &c->agents_c, "agents", 0) < 0 ||
      spans_add_params(&c->memory, &c->c_params, count, -1, "params") < 0 ||
      spans_add(&c->memory, c->out.weight_per_agent, count * sizeof(float), -1,
                "weight_per_agent", NULL, -1, 0) < 0 ||
      spans_add_vectors(&c->memory, &c->out.steering, c->a->dims, count, -1, "steering",
                        NULL, 1) < 0)
    return -1;
  remember_written(c->out.steering.x, c->out.steering.y, c->out.steering.z);
  return 0;
}

/* Releases what prepare_call holds. */
static void end_call(behaviour_call *c) {
  release(c->keep, 3);
  spans_free(&c->memory);
}

/* The library's status of a prepared call, as None or an exception. */
static PyObject *finish_call(behaviour_call *c, crowdsteer_status status) {
  end_call(c);
  if (status != CROWDSTEER_OK) return raise_status(status);
  Py_RETURN_NONE;
}

/* A call that fails before reaching the library. */
static PyObject *abandon_call(behaviour_call *c) {
  end_call(c);
  return NULL;
}

typedef crowdsteer_status (*targeted_fn)(const crowdsteer_agents *,
                                         const crowdsteer_target *,
                                         const crowdsteer_params *,
                                         const crowdsteer_output *, size_t, size_t);

static char *targeted_kwlist[] = {"agents", "target", "params",           "steering",
                                  "mode",   "weight", "weight_per_agent", "begin",
                                  "end",    NULL};

/* seek, flee, arrive, leave, pursuit, evade. */
static PyObject *call_targeted(targeted_fn fn, int needs_velocity, PyObject *args,
                               PyObject *kwargs, const char *format) {
  behaviour_call c;
  crowdsteer_target target;
  if (prepare_call(&c, args, kwargs, targeted_kwlist, format) < 0 ||
      target_to_c(c.subject, NAME(NULL, "target"), c.a->dims, (Py_ssize_t)c.a->count,
                  needs_velocity, &target) < 0 ||
      spans_add_target(&c.memory, &target, c.a->dims, c.a->count, -1) < 0 ||
      check_spans(&c.memory) < 0)
    return abandon_call(&c);
  PyThreadState *unlocked = PyEval_SaveThread(); /* the GIL is released */
  crowdsteer_status status = fn(&c.agents_c, &target, &c.c_params, &c.out, c.b, c.e);
  PyEval_RestoreThread(unlocked);
  return finish_call(&c, status);
}

#define TARGETED(name, needs_velocity)                                                   \
  PyObject *py_##name(PyObject *self, PyObject *args, PyObject *kwargs) {                \
    (void)self;                                                                          \
    return call_targeted(crowdsteer_##name, needs_velocity, args, kwargs,                \
                         "OOOO|$OOOOO:" #name);                                          \
  }
TARGETED(seek, 0)
TARGETED(flee, 0)
TARGETED(arrive, 0)
TARGETED(leave, 0)
TARGETED(pursuit, 1)
TARGETED(evade, 1)

PyObject *py_wander(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"agents", "state",  "params",           "steering",
                           "mode",   "weight", "weight_per_agent", "begin",
                           "end",    NULL};
  behaviour_call c;
  crowdsteer_wander_state state;
  (void)self;
  if (prepare_call(&c, args, kwargs, kwlist, "OOOO|$OOOOO:wander") < 0 ||
      wander_to_c(c.subject, NAME(NULL, "state"), c.a->dims, (Py_ssize_t)c.a->count,
                  &state) < 0 ||
      spans_add_vectors(&c.memory, &state.direction, c.a->dims, c.a->count, -1, "state",
                        "direction", 1) < 0 ||
      check_spans(&c.memory) < 0)
    return abandon_call(&c);
  PyThreadState *unlocked = PyEval_SaveThread(); /* the GIL is released */
  crowdsteer_status status =
      crowdsteer_wander(&c.agents_c, &state, &c.c_params, &c.out, c.b, c.e);
  PyEval_RestoreThread(unlocked);
  return finish_call(&c, status);
}

PyObject *py_follow_field(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"agents", "follow",           "params", "steering", "mode",
                           "weight", "weight_per_agent", "begin",  "end",      NULL};
  behaviour_call c;
  crowdsteer_field_follow follow;
  FieldFollowObject *fields;
  (void)self;
  if (prepare_call(&c, args, kwargs, kwlist, "OOOO|$OOOOO:follow_field") < 0 ||
      follow_to_c(c.subject, NAME(NULL, "follow"), (Py_ssize_t)c.a->count, &follow,
                  &fields) < 0 ||
      spans_add(&c.memory, follow.field_index, c.a->count * sizeof(uint32_t), -1,
                "follow", "field_index", -1, 0) < 0 ||
      check_spans(&c.memory) < 0 || follow_claim(fields) < 0)
    return abandon_call(&c);
  PyThreadState *unlocked = PyEval_SaveThread(); /* the GIL is released */
  crowdsteer_status status =
      crowdsteer_follow_field(&c.agents_c, &follow, &c.c_params, &c.out, c.b, c.e);
  PyEval_RestoreThread(unlocked);
  follow_unclaim(fields);
  return finish_call(&c, status);
}

typedef crowdsteer_status (*neighbour_fn)(const crowdsteer_agents *,
                                          const crowdsteer_neighbours *,
                                          const crowdsteer_params *,
                                          const crowdsteer_output *, size_t, size_t);

/* separation, cohesion, alignment. */
static PyObject *call_neighbour(neighbour_fn fn, PyObject *args, PyObject *kwargs,
                                const char *format) {
  static char *kwlist[] = {"agents", "neighbours",       "params", "steering", "mode",
                           "weight", "weight_per_agent", "begin",  "end",      NULL};
  behaviour_call c;
  crowdsteer_neighbours nb;
  GridObject *grid;
  if (prepare_call(&c, args, kwargs, kwlist, format) < 0 ||
      neighbours_to_c(c.subject, NAME(NULL, "neighbours"), (Py_ssize_t)c.a->count, &nb,
                      &grid) < 0 ||
      spans_add_neighbours(&c.memory, &nb, c.a->count, -1, "neighbours") < 0 ||
      check_spans(&c.memory) < 0 || (grid && grid_claim(grid, 0) < 0))
    return abandon_call(&c);
  PyThreadState *unlocked = PyEval_SaveThread(); /* the GIL is released */
  crowdsteer_status status = fn(&c.agents_c, &nb, &c.c_params, &c.out, c.b, c.e);
  PyEval_RestoreThread(unlocked);
  if (grid) grid_unclaim(grid, 0);
  return finish_call(&c, status);
}

#define NEIGHBOUR(name)                                                                  \
  PyObject *py_##name(PyObject *self, PyObject *args, PyObject *kwargs) {                \
    (void)self;                                                                          \
    return call_neighbour(crowdsteer_##name, args, kwargs, "OOOO|$OOOOO:" #name);        \
  }
NEIGHBOUR(separation)
NEIGHBOUR(cohesion)
NEIGHBOUR(alignment)

PyObject *py_follow_path(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"agents", "follow",           "params", "steering", "mode",
                           "weight", "weight_per_agent", "begin",  "end",      NULL};
  behaviour_call c;
  path_follow_c f;
  (void)self;
  memset(&f, 0, sizeof f);
  if (prepare_call(&c, args, kwargs, kwlist, "OOOO|$OOOOO:follow_path") < 0 ||
      path_follow_to_c(c.subject, NAME(NULL, "follow"), c.a->dims, (Py_ssize_t)c.a->count,
                       &f) < 0 ||
      spans_add_path_follow(&c.memory, &f.follow, c.a->count, -1, "follow") < 0 ||
      check_spans(&c.memory) < 0) {
    path_follow_release(&f);
    return abandon_call(&c);
  }
  PyThreadState *unlocked = PyEval_SaveThread(); /* the GIL is released */
  crowdsteer_status status =
      crowdsteer_follow_path(&c.agents_c, &f.follow, &c.c_params, &c.out, c.b, c.e);
  PyEval_RestoreThread(unlocked);
  path_follow_release(&f);
  return finish_call(&c, status);
}

int motion_from(PyObject *smoothing, PyObject *turn_limit, PyObject *acceleration,
                int dims, size_t count, crowdsteer_motion *storage,
                const crowdsteer_motion **motion, PyObject *keep[3], spans *memory) {
  memset(storage, 0, sizeof *storage);
  *motion = NULL;
  if (!smoothing && !turn_limit && (!acceleration || acceleration == Py_None)) return 0;
  if ((smoothing &&
       float32_from(smoothing, NAME(NULL, "smoothing"), &storage->smoothing) < 0) ||
      (turn_limit &&
       float32_from(turn_limit, NAME(NULL, "turn_limit"), &storage->turn_limit) < 0))
    return -1;
  if (acceleration && acceleration != Py_None &&
      (vectors_from(acceleration, NAME(NULL, "acceleration"), dims, (Py_ssize_t)count,
                    WRITES, &storage->acceleration, keep) < 0 ||
       spans_add_vectors(memory, &storage->acceleration, dims, count, -1, "acceleration",
                         NULL, 1) < 0))
    return -1;
  *motion = storage;
  return 0;
}

PyObject *py_integrate(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"agents",    "steering",   "params",       "begin", "end",
                           "smoothing", "turn_limit", "acceleration", NULL};
  PyObject *agents_obj, *steering, *params_obj = Py_None, *begin_obj = NULL,
                                   *end_obj = Py_None;
  PyObject *smoothing = NULL, *turn_limit = NULL, *acceleration = NULL;
  (void)self;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|O$OOOOO:integrate", kwlist,
                                   &agents_obj, &steering, &params_obj, &begin_obj,
                                   &end_obj, &smoothing, &turn_limit, &acceleration))
    return NULL;
  AgentsObject *a = as_agents(agents_obj, "agents");
  size_t b, e;
  if (!a || range_from(begin_obj, end_obj, a->count, &b, &e) < 0) return NULL;
  const Py_ssize_t count = (Py_ssize_t)a->count;
  crowdsteer_agents agents;
  crowdsteer_vectors s;
  crowdsteer_params params;
  PyObject *keep[3] = {NULL}, *keep_motion[3] = {NULL};
  crowdsteer_motion motion;
  spans memory;
  spans_init(&memory);
  int ok =
      agents_to_c(a, "agents", WRITES, &agents) == 0 &&
      params_to_c(params_obj, NAME(NULL, "params"), count, &params) == 0 &&
      vectors_from(steering, NAME(NULL, "steering"), a->dims, count, READS, &s, keep) ==
          0 &&
      spans_add_agents(&memory, &agents, "agents", 1) == 0 &&
      spans_add_params(&memory, &params, a->count, -1, "params") == 0 &&
      spans_add_vectors(&memory, &s, a->dims, a->count, -1, "steering", NULL, 0) == 0 &&
      motion_from(smoothing, turn_limit, acceleration, a->dims, a->count, &motion,
                  &params.motion, keep_motion, &memory) == 0 &&
      check_spans(&memory) == 0;
  spans_free(&memory);
  if (!ok) {
    release(keep, 3);
    release(keep_motion, 3);
    return NULL;
  }
  remember_written(agents.px, agents.py, agents.pz);
  last_written[3] = agents.vx, last_written[4] = agents.vy, last_written[5] = agents.vz;
  crowdsteer_status status;
  PyThreadState *unlocked = PyEval_SaveThread(); /* the GIL is released */
  status = crowdsteer_integrate(&agents, &s, &params, b, e);
  PyEval_RestoreThread(unlocked);
  release(keep, 3);
  release(keep_motion, 3);
  if (status != CROWDSTEER_OK) return raise_status(status);
  Py_RETURN_NONE;
}

/* ---- world bounds (crowdsteer_bounds.h) --------------------------------------- */

/* Up to 3 numbers of a sequence (a point or a corner) into out[0..2]; the
 * library reads the first dims. */
int bounds_point_from(PyObject *obj, const arg_name *name, float out[3]) {
  PyObject *seq = PySequence_Fast(obj, "must be a sequence of 2 or 3 numbers");
  if (!seq) return -1;
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  int failed = n < 2 || n > 3;
  if (failed)
    PyErr_Format(PyExc_ValueError, "%s must have 2 or 3 numbers", render(name).text);
  out[0] = out[1] = out[2] = 0.0f;
  for (Py_ssize_t k = 0; k < n && !failed; k++)
    failed = float32_from(PySequence_Fast_GET_ITEM(seq, k), ITEM(name, k), &out[k]) < 0;
  Py_DECREF(seq);
  return failed ? -1 : 0;
}

int bounds_to_c(PyObject *obj, crowdsteer_bounds *out) {
  memset(out, 0, sizeof *out);
  static const char *const fields[] = {"shape",   "centre",  "radius",
                                       "box_min", "box_max", "prediction"};
  for (int f = 0; f < 6; f++) {
    PyObject *v = PyObject_GetAttrString(obj, fields[f]);
    if (!v) return -1;
    const arg_name *name = NAME(NAME(NULL, "bounds"), fields[f]);
    int shape = 0, failed = 0;
    switch (f) {
    case 0:
      failed = int_from(v, name, &shape) < 0;
      out->shape = (crowdsteer_bounds_shape)shape;
      break;
    case 1: failed = bounds_point_from(v, name, out->centre) < 0; break;
    case 2: failed = float32_from(v, name, &out->radius) < 0; break;
    case 3: failed = bounds_point_from(v, name, out->box.min) < 0; break;
    case 4: failed = bounds_point_from(v, name, out->box.max) < 0; break;
    default: failed = float32_from(v, name, &out->prediction) < 0; break;
    }
    Py_DECREF(v);
    if (failed) return -1;
  }
  return 0;
}

PyObject *py_contain(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"agents", "bounds",           "params", "steering", "mode",
                           "weight", "weight_per_agent", "begin",  "end",      NULL};
  behaviour_call c;
  crowdsteer_bounds bounds;
  (void)self;
  if (prepare_call(&c, args, kwargs, kwlist, "OOOO|$OOOOO:contain") < 0 ||
      bounds_to_c(c.subject, &bounds) < 0 || check_spans(&c.memory) < 0)
    return abandon_call(&c);
  PyThreadState *unlocked = PyEval_SaveThread(); /* the GIL is released */
  crowdsteer_status status =
      crowdsteer_contain(&c.agents_c, &bounds, &c.c_params, &c.out, c.b, c.e);
  PyEval_RestoreThread(unlocked);
  return finish_call(&c, status);
}

PyObject *py_wrap(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"agents", "box_min", "box_max", "begin", "end", NULL};
  PyObject *agents_obj, *lo, *hi, *begin_obj = NULL, *end_obj = Py_None;
  (void)self;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO|$OO:wrap", kwlist, &agents_obj, &lo,
                                   &hi, &begin_obj, &end_obj))
    return NULL;
  AgentsObject *a = as_agents(agents_obj, "agents");
  size_t b, e;
  crowdsteer_box box;
  crowdsteer_agents agents;
  if (!a || range_from(begin_obj, end_obj, a->count, &b, &e) < 0 ||
      bounds_point_from(lo, NAME(NULL, "box_min"), box.min) < 0 ||
      bounds_point_from(hi, NAME(NULL, "box_max"), box.max) < 0 ||
      agents_to_c(a, "agents", WRITES, &agents) < 0)
    return NULL;
  remember_written(agents.px, agents.py, agents.pz);
  PyThreadState *unlocked = PyEval_SaveThread(); /* the GIL is released */
  const crowdsteer_status status = crowdsteer_wrap(&agents, &box, b, e);
  PyEval_RestoreThread(unlocked);
  if (status != CROWDSTEER_OK) return raise_status(status);
  Py_RETURN_NONE;
}

/* A writable uint32 array of `capacity` elements, or NULL for None. */
static int written_ids(PyObject *obj, const char *name, Py_ssize_t capacity,
                       uint32_t **out) {
  *out = NULL;
  if (!obj || obj == Py_None) return 0;
  *out = array_data(obj, NAME(NULL, name), NPY_UINT32, capacity, WRITES);
  return *out ? 0 : -1;
}

PyObject *py_periodic_ghosts(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"agents", "count",  "box_min", "box_max", "reach",
                           "id",     "origin", "group",   NULL};
  PyObject *agents_obj, *count_obj, *lo, *hi, *reach_obj, *id_obj, *origin_obj = Py_None,
                                                                   *group_obj = Py_None;
  (void)self;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOOOO|$OO:periodic_ghosts", kwlist,
                                   &agents_obj, &count_obj, &lo, &hi, &reach_obj, &id_obj,
                                   &origin_obj, &group_obj))
    return NULL;
  AgentsObject *a = as_agents(agents_obj, "agents");
  crowdsteer_box box;
  crowdsteer_agents agents;
  float reach;
  size_t count;
  uint32_t *id, *origin, *group;
  if (!a || size_from(count_obj, NAME(NULL, "count"), &count) < 0 ||
      bounds_point_from(lo, NAME(NULL, "box_min"), box.min) < 0 ||
      bounds_point_from(hi, NAME(NULL, "box_max"), box.max) < 0 ||
      float32_from(reach_obj, NAME(NULL, "reach"), &reach) < 0 ||
      agents_to_c(a, "agents", WRITES, &agents) < 0)
    return NULL;
  const Py_ssize_t capacity = (Py_ssize_t)a->count;
  if (count > a->count) {
    PyErr_SetString(PyExc_ValueError,
                    "periodic_ghosts: count exceeds the agents' length");
    return NULL;
  }
  if (written_ids(id_obj, "id", capacity, &id) < 0 || !id ||
      written_ids(origin_obj, "origin", capacity, &origin) < 0 ||
      written_ids(group_obj, "group", capacity, &group) < 0) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "id must be an array");
    return NULL;
  }
  agents.count = count;
  remember_written(agents.px, agents.py, agents.pz);
  size_t total = 0;
  PyThreadState *unlocked = PyEval_SaveThread(); /* the GIL is released */
  const crowdsteer_status status = crowdsteer_periodic_ghosts(
      &agents, group, &box, reach, (size_t)capacity, id, origin, &total);
  PyEval_RestoreThread(unlocked);
  if (status != CROWDSTEER_OK) return raise_status(status);
  return PyLong_FromSize_t(total);
}
