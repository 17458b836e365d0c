/* crowdsteer._crowdsteer: what a behaviour steers by besides the agents:
 * Params (and its table of the C struct's fields), Target and WanderState. */
#include "_crowdsteer.h"

#include <string.h>

/* crowdsteer_params: uniform floats and per-agent arrays, by name. */
#define PARAM_FLOAT(field)                                                               \
  { #field, offsetof(crowdsteer_params, field) }
static const struct field_row {
  const char *name;
  size_t offset;
} param_float_rows[] = {
    PARAM_FLOAT(max_speed),
    PARAM_FLOAT(max_force),
    PARAM_FLOAT(mass),
    PARAM_FLOAT(dt),
    PARAM_FLOAT(time_to_target),
    PARAM_FLOAT(target_radius),
    PARAM_FLOAT(slowing_radius),
    PARAM_FLOAT(panic_radius),
    PARAM_FLOAT(danger_radius),
    PARAM_FLOAT(escape_radius),
    PARAM_FLOAT(max_prediction),
    PARAM_FLOAT(wander_radius),
    PARAM_FLOAT(wander_distance),
    PARAM_FLOAT(jitter),
};
static const struct field_row param_array_rows[] = {
    PARAM_FLOAT(max_speed_per_agent),      PARAM_FLOAT(max_force_per_agent),
    PARAM_FLOAT(mass_per_agent),           PARAM_FLOAT(target_radius_per_agent),
    PARAM_FLOAT(slowing_radius_per_agent), PARAM_FLOAT(panic_radius_per_agent),
    PARAM_FLOAT(danger_radius_per_agent),  PARAM_FLOAT(escape_radius_per_agent),
    PARAM_FLOAT(wander_radius_per_agent),  PARAM_FLOAT(wander_distance_per_agent),
    PARAM_FLOAT(time_to_target_per_agent), PARAM_FLOAT(max_prediction_per_agent),
    PARAM_FLOAT(jitter_per_agent),
};
enum {
  PARAM_FLOATS = sizeof param_float_rows / sizeof param_float_rows[0],
  PARAM_ARRAYS = sizeof param_array_rows / sizeof param_array_rows[0],
};

/* ---- Params (immutable; replace() makes a changed copy) -------------------- */

typedef struct {
  PyObject_HEAD crowdsteer_params c;
  PyObject *arrays[PARAM_ARRAYS];
} ParamsObject;

static float *param_float_slot(crowdsteer_params *c, int row) {
  return (float *)((char *)c + param_float_rows[row].offset);
}

static const float **param_array_slot(crowdsteer_params *c, int row) {
  return (const float **)((char *)c + param_array_rows[row].offset);
}

/* Sets one field by name; -1 with an exception for a bad name or value. */
static int params_set(ParamsObject *p, PyObject *key, PyObject *value) {
  const char *name = PyUnicode_AsUTF8(key);
  if (!name) return -1;
  for (int i = 0; i < PARAM_FLOATS; i++) {
    if (strcmp(name, param_float_rows[i].name) != 0) continue;
    return float32_from(value, NAME(NAME(NULL, "Params"), param_float_rows[i].name),
                        param_float_slot(&p->c, i));
  }
  for (int i = 0; i < PARAM_ARRAYS; i++) {
    if (strcmp(name, param_array_rows[i].name) != 0) continue;
    if (value != Py_None &&
        !float_array(value, NAME(NAME(NULL, "Params"), name), -1, READS))
      return -1;
    Py_XSETREF(p->arrays[i], value == Py_None ? NULL : Py_NewRef(value));
    return 0;
  }
  PyErr_Format(PyExc_TypeError, "Params got an unexpected keyword argument '%s'", name);
  return -1;
}

static int params_update(ParamsObject *p, PyObject *kwargs) {
  PyObject *key, *value;
  Py_ssize_t pos = 0;
  while (kwargs && PyDict_Next(kwargs, &pos, &key, &value))
    if (params_set(p, key, value) < 0) return -1;
  return 0;
}

static PyObject *Params_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  if (PyTuple_GET_SIZE(args) != 0) {
    PyErr_SetString(PyExc_TypeError, "Params takes keyword arguments only");
    return NULL;
  }
  ParamsObject *self = (ParamsObject *)type->tp_alloc(type, 0);
  if (self && params_update(self, kwargs) < 0) Py_CLEAR(self);
  return (PyObject *)self;
}

static void Params_dealloc(ParamsObject *self) {
  release(self->arrays, PARAM_ARRAYS);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Params_replace(ParamsObject *self, PyObject *args, PyObject *kwargs) {
  if (PyTuple_GET_SIZE(args) != 0) {
    PyErr_SetString(PyExc_TypeError, "Params.replace takes keyword arguments only");
    return NULL;
  }
  ParamsObject *copy = (ParamsObject *)Params_Type.tp_alloc(Py_TYPE(self), 0);
  if (!copy) return NULL;
  copy->c = self->c;
  for (int i = 0; i < PARAM_ARRAYS; i++)
    copy->arrays[i] = Py_XNewRef(self->arrays[i]);
  if (params_update(copy, kwargs) < 0) Py_CLEAR(copy);
  return (PyObject *)copy;
}

static PyObject *Params_getattro(ParamsObject *self, PyObject *name) {
  const char *s = PyUnicode_AsUTF8(name);
  if (!s) return NULL;
  for (int i = 0; i < PARAM_FLOATS; i++)
    if (strcmp(s, param_float_rows[i].name) == 0)
      return PyFloat_FromDouble(*param_float_slot(&self->c, i));
  for (int i = 0; i < PARAM_ARRAYS; i++)
    if (strcmp(s, param_array_rows[i].name) == 0)
      return Py_NewRef(self->arrays[i] ? self->arrays[i] : Py_None);
  return PyObject_GenericGetAttr((PyObject *)self, name);
}

/* The set fields as a dict (uniform fields that are not 0, arrays not None). */
static PyObject *Params_fields(ParamsObject *self, PyObject *unused) {
  (void)unused;
  PyObject *d = PyDict_New();
  for (int i = 0; d && i < PARAM_FLOATS; i++) {
    float v = *param_float_slot(&self->c, i);
    if (v == 0.0f) continue;
    PyObject *f = PyFloat_FromDouble(v);
    if (!f || PyDict_SetItemString(d, param_float_rows[i].name, f) < 0) Py_CLEAR(d);
    Py_XDECREF(f);
  }
  for (int i = 0; d && i < PARAM_ARRAYS; i++)
    if (self->arrays[i] &&
        PyDict_SetItemString(d, param_array_rows[i].name, self->arrays[i]) < 0)
      Py_CLEAR(d);
  return d;
}

static PyObject *Params_repr(ParamsObject *self) {
  PyObject *d = Params_fields(self, NULL);
  if (!d) return NULL;
  PyObject *r = PyUnicode_FromFormat("crowdsteer.Params(**%R)", d);
  Py_DECREF(d);
  return r;
}

/* The struct for a call: per-agent arrays checked against the count. None is
 * the zeroed struct (every default). */
int params_to_c(PyObject *obj, const arg_name *name, Py_ssize_t count,
                crowdsteer_params *out) {
  memset(out, 0, sizeof *out);
  if (obj == Py_None || obj == NULL) return 0;
  if (!PyObject_TypeCheck(obj, &Params_Type)) {
    PyErr_Format(PyExc_TypeError, "%s must be a crowdsteer.Params or None, not %.100s",
                 render(name).text, Py_TYPE(obj)->tp_name);
    return -1;
  }
  ParamsObject *p = (ParamsObject *)obj;
  *out = p->c;
  for (int i = 0; i < PARAM_ARRAYS; i++) {
    if (!p->arrays[i]) continue;
    const float *data =
        float_array(p->arrays[i], NAME(name, param_array_rows[i].name), count, READS);
    if (!data) return -1;
    *param_array_slot(out, i) = data;
  }
  return 0;
}

static PyMethodDef Params_methods[] = {
    {"replace", (PyCFunction)(void (*)(void))Params_replace, METH_VARARGS | METH_KEYWORDS,
     "replace(**fields) -> Params: a copy with these fields changed."},
    {"fields", (PyCFunction)Params_fields, METH_NOARGS,
     "fields() -> dict: the fields that are set (non-zero, or an array)."},
    {NULL}};

PyTypeObject Params_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "crowdsteer.Params",
    .tp_basicsize = sizeof(ParamsObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Params(**fields)\n--\n\n"
              "crowdsteer_params: every field of the C struct by name (floats, 0 "
              "means the documented default) and every *_per_agent field as a "
              "float32 array or None. Immutable; replace() makes a changed copy.\n\n"
              "Fields are float32: a nonzero number that would round to 0 (and so "
              "mean the default) raises ValueError, one beyond float32 "
              "OverflowError, both naming the field; subnormal results are kept "
              "(the library keeps denormals). 0, inf and NaN pass as given (the "
              "library judges them).",
    .tp_new = Params_new,
    .tp_dealloc = (destructor)Params_dealloc,
    .tp_getattro = (getattrofunc)Params_getattro,
    .tp_repr = (reprfunc)Params_repr,
    .tp_methods = Params_methods,
};

/* ---- Target ------------------------------------------------------------------ */

typedef struct {
  PyObject_HEAD crowdsteer_target_kind kind;
  float point[3], point_velocity[3];
  PyObject *position, *velocity; /* ARRAYS: tuples of arrays (velocity may be NULL) */
  PyObject *index;               /* AGENTS: uint32 array */
  uint32_t agent;                /* AGENT: the one target agent */
} TargetObject;

static TargetObject *target_alloc(crowdsteer_target_kind kind) {
  TargetObject *t = (TargetObject *)Target_Type.tp_alloc(&Target_Type, 0);
  if (t) t->kind = kind;
  return t;
}

/* 2 or 3 numbers into xyz (z = 0 when 2 are given). */
static int point_from(PyObject *seq, const char *name, float xyz[3]) {
  PyObject *fast = PySequence_Fast(seq, "");
  if (!fast || PySequence_Fast_GET_SIZE(fast) < 2 || PySequence_Fast_GET_SIZE(fast) > 3) {
    Py_XDECREF(fast);
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "%s must be a sequence of 2 or 3 numbers", name);
    return -1;
  }
  xyz[2] = 0.0f;
  for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(fast); k++) {
    if (float32_from(PySequence_Fast_GET_ITEM(fast, k), ITEM(NAME(NULL, name), k),
                     &xyz[k]) < 0) {
      Py_DECREF(fast);
      return -1;
    }
  }
  Py_DECREF(fast);
  return 0;
}

/* A tuple of 2 or 3 float32 arrays of one length, for a target's arrays. */
static PyObject *array_tuple(PyObject *seq, const char *name) {
  if (!PyTuple_Check(seq) && !PyList_Check(seq)) {
    PyErr_Format(PyExc_TypeError, "%s must be a tuple of 2 or 3 float32 arrays", name);
    return NULL;
  }
  PyObject *t = PySequence_Tuple(seq);
  if (!t) return NULL;
  Py_ssize_t n = PyTuple_GET_SIZE(t);
  if (n < 2 || n > 3) {
    PyErr_Format(PyExc_ValueError, "%s must hold 2 or 3 arrays, not %zd", name, n);
    Py_DECREF(t);
    return NULL;
  }
  for (Py_ssize_t k = 0; k < n; k++) {
    if (!float_array(PyTuple_GET_ITEM(t, k), ITEM(NAME(NULL, name), k), -1, READS)) {
      Py_DECREF(t);
      return NULL;
    }
  }
  return t;
}

static PyObject *Target_point(PyObject *cls, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"position", "velocity", NULL};
  PyObject *position, *velocity = NULL;
  (void)cls;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O:Target.point", kwlist, &position,
                                   &velocity))
    return NULL;
  TargetObject *t = target_alloc(CROWDSTEER_TARGET_POINT);
  if (t && (point_from(position, "position", t->point) < 0 ||
            (velocity && velocity != Py_None &&
             point_from(velocity, "velocity", t->point_velocity) < 0)))
    Py_CLEAR(t);
  return (PyObject *)t;
}

static PyObject *Target_arrays(PyObject *cls, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"position", "velocity", NULL};
  PyObject *position, *velocity = NULL;
  (void)cls;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O:Target.arrays", kwlist, &position,
                                   &velocity))
    return NULL;
  TargetObject *t = target_alloc(CROWDSTEER_TARGET_ARRAYS);
  if (!t) return NULL;
  t->position = array_tuple(position, "position");
  if (t->position && velocity && velocity != Py_None)
    t->velocity = array_tuple(velocity, "velocity");
  if (!t->position || (velocity && velocity != Py_None && !t->velocity)) Py_CLEAR(t);
  return (PyObject *)t;
}

static PyObject *Target_agents(PyObject *cls, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"index", NULL};
  PyObject *index;
  (void)cls;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O:Target.agents", kwlist, &index))
    return NULL;
  if (!array_data(index, NAME(NULL, "index"), NPY_UINT32, -1, READS)) return NULL;
  TargetObject *t = target_alloc(CROWDSTEER_TARGET_AGENTS);
  if (t) t->index = Py_NewRef(index);
  return (PyObject *)t;
}

static PyObject *Target_agent(PyObject *cls, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"agent", NULL};
  PyObject *agent_obj;
  uint32_t agent;
  (void)cls;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O:Target.agent", kwlist, &agent_obj) ||
      uint32_from(agent_obj, NAME(NULL, "agent"), &agent) < 0)
    return NULL;
  TargetObject *t = target_alloc(CROWDSTEER_TARGET_AGENT);
  if (t) t->agent = agent;
  return (PyObject *)t;
}

static void Target_dealloc(TargetObject *self) {
  Py_XDECREF(self->position);
  Py_XDECREF(self->velocity);
  Py_XDECREF(self->index);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *xyz_tuple(const float v[3]) {
  return Py_BuildValue("(ddd)", (double)v[0], (double)v[1], (double)v[2]);
}

static PyObject *Target_get(TargetObject *self, void *closure) {
  switch ((intptr_t)closure) {
  case 0: return PyLong_FromLong((long)self->kind);
  case 1: return xyz_tuple(self->point);
  case 2: return xyz_tuple(self->point_velocity);
  case 3: return Py_NewRef(self->position ? self->position : Py_None);
  case 4: return Py_NewRef(self->velocity ? self->velocity : Py_None);
  case 6: return PyLong_FromUnsignedLong(self->agent);
  default: return Py_NewRef(self->index ? self->index : Py_None);
  }
}

/* The struct for a call, checked against the agents' dims and count. */
int target_to_c(PyObject *obj, const arg_name *name, int dims, Py_ssize_t count,
                int needs_velocity, crowdsteer_target *out) {
  memset(out, 0, sizeof *out);
  if (!PyObject_TypeCheck(obj, &Target_Type)) {
    PyErr_Format(PyExc_TypeError, "%s must be a crowdsteer.Target, not %.100s",
                 render(name).text, Py_TYPE(obj)->tp_name);
    return -1;
  }
  TargetObject *t = (TargetObject *)obj;
  out->kind = t->kind;
  memcpy(out->point, t->point, sizeof out->point);
  memcpy(out->point_velocity, t->point_velocity, sizeof out->point_velocity);
  out->agent = t->agent;
  /* The target holds its arrays (it is immutable): nothing more to keep. */
  switch (t->kind) {
  case CROWDSTEER_TARGET_ARRAYS:
    if (vectors_from(t->position, NAME(name, "position"), dims, count, READS,
                     &out->position, NULL) < 0)
      return -1;
    if (!needs_velocity) return 0;
    if (!t->velocity) {
      PyErr_Format(PyExc_TypeError, "%s.velocity is needed by pursuit and evade",
                   render(name).text);
      return -1;
    }
    return vectors_from(t->velocity, NAME(name, "velocity"), dims, count, READS,
                        &out->velocity, NULL);
  case CROWDSTEER_TARGET_AGENTS:
    out->index = array_data(t->index, NAME(name, "index"), NPY_UINT32, count, READS);
    return out->index ? 0 : -1;
  default: return 0;
  }
}

static PyGetSetDef Target_getset[] = {
    {"kind", (getter)Target_get, NULL, "TARGET_POINT, TARGET_ARRAYS or TARGET_AGENTS",
     (void *)0},
    {"point_position", (getter)Target_get, NULL, "POINT: the position (x, y, z)",
     (void *)1},
    {"point_velocity", (getter)Target_get, NULL, "POINT: the velocity (x, y, z)",
     (void *)2},
    {"position", (getter)Target_get, NULL, "ARRAYS: per-agent positions", (void *)3},
    {"velocity", (getter)Target_get, NULL, "ARRAYS: per-agent velocities", (void *)4},
    {"index", (getter)Target_get, NULL, "AGENTS: per-agent target indices", (void *)5},
    {"agent_index", (getter)Target_get, NULL, "AGENT: the one target agent", (void *)6},
    {NULL}};

static PyMethodDef Target_methods[] = {
    {"point", (PyCFunction)(void (*)(void))Target_point,
     METH_VARARGS | METH_KEYWORDS | METH_CLASS,
     "point(position, velocity=None) -> Target: one point (and velocity, for pursuit "
     "and evade) for the whole batch; 2 or 3 numbers each."},
    {"arrays", (PyCFunction)(void (*)(void))Target_arrays,
     METH_VARARGS | METH_KEYWORDS | METH_CLASS,
     "arrays(position, velocity=None) -> Target: per-agent target positions (and "
     "velocities, needed by pursuit and evade), tuples of float32 arrays."},
    {"agents", (PyCFunction)(void (*)(void))Target_agents,
     METH_VARARGS | METH_KEYWORDS | METH_CLASS,
     "agents(index) -> Target: agent i's target is agent index[i] of the same batch "
     "(a uint32 array)."},
    {"agent", (PyCFunction)(void (*)(void))Target_agent,
     METH_VARARGS | METH_KEYWORDS | METH_CLASS,
     "agent(agent) -> Target: one agent of the same batch is every agent's target "
     "(as Target.agents with every index equal, checked once; an in-place step "
     "needs no snapshot for it)."},
    {NULL}};

PyTypeObject Target_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "crowdsteer.Target",
    .tp_basicsize = sizeof(TargetObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A behaviour's target (crowdsteer_target); make one with Target.point, "
              "Target.arrays or Target.agents. Immutable.",
    .tp_dealloc = (destructor)Target_dealloc,
    .tp_getset = Target_getset,
    .tp_methods = Target_methods,
};

/* ---- WanderState ------------------------------------------------------------- */

/* The directions' addresses are read at each call (wander_to_c), into the
 * call's own crowdsteer_wander_state: their memory can move between calls,
 * and a struct shared by calls in several threads would be written by one
 * while another's library call reads it. */
typedef struct {
  PyObject_HEAD PyObject *direction; /* tuple of 2 or 3 float32 arrays */
  uint32_t seed, tick;
} WanderObject;

static PyObject *Wander_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"direction", "seed", "tick", NULL};
  PyObject *direction, *seed_obj = NULL, *tick_obj = NULL;
  uint32_t seed = 0, tick = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OO:WanderState", kwlist, &direction,
                                   &seed_obj, &tick_obj) ||
      (seed_obj && uint32_from(seed_obj, NAME(NULL, "seed"), &seed) < 0) ||
      (tick_obj && uint32_from(tick_obj, NAME(NULL, "tick"), &tick) < 0))
    return NULL;
  PyObject *axes = array_tuple(direction, "direction");
  if (!axes) return NULL;
  WanderObject *self = (WanderObject *)type->tp_alloc(type, 0);
  if (!self) {
    Py_DECREF(axes);
    return NULL;
  }
  self->direction = axes;
  self->seed = seed;
  self->tick = tick;
  return (PyObject *)self;
}

static void Wander_dealloc(WanderObject *self) {
  Py_XDECREF(self->direction);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Wander_get(WanderObject *self, void *closure) {
  if ((intptr_t)closure == 0) return Py_NewRef(self->direction);
  return PyLong_FromUnsignedLong((intptr_t)closure == 1 ? self->seed : self->tick);
}

static int Wander_set(WanderObject *self, PyObject *value, void *closure) {
  const char *name = (intptr_t)closure == 1 ? "seed" : "tick";
  if (!value) {
    PyErr_Format(PyExc_TypeError, "WanderState.%s cannot be deleted", name);
    return -1;
  }
  return uint32_from(value, NAME(NAME(NULL, "WanderState"), name),
                     (intptr_t)closure == 1 ? &self->seed : &self->tick);
}

/* The state for a call, into the call's own struct: the direction arrays
 * checked and pointed to as they are now. */
int wander_to_c(PyObject *obj, const arg_name *name, int dims, Py_ssize_t count,
                crowdsteer_wander_state *out) {
  memset(out, 0, sizeof *out);
  if (!PyObject_TypeCheck(obj, &Wander_Type)) {
    PyErr_Format(PyExc_TypeError, "%s must be a crowdsteer.WanderState, not %.100s",
                 render(name).text, Py_TYPE(obj)->tp_name);
    return -1;
  }
  WanderObject *w = (WanderObject *)obj;
  out->seed = w->seed;
  out->tick = w->tick;
  return vectors_from(w->direction, NAME(name, "direction"), dims, count, WRITES,
                      &out->direction, NULL);
}

static PyGetSetDef Wander_getset[] = {
    {"direction", (getter)Wander_get, NULL, "per-agent unit vectors (x, y[, z])",
     (void *)0},
    {"seed", (getter)Wander_get, (setter)Wander_set, "the generator's seed", (void *)1},
    {"tick", (getter)Wander_get, (setter)Wander_set,
     "the generator's tick: advance it once per simulation step", (void *)2},
    {NULL}};

PyTypeObject Wander_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "crowdsteer.WanderState",
    .tp_basicsize = sizeof(WanderObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "WanderState(direction, seed=0, tick=0)\n--\n\n"
              "Wander's per-agent state (crowdsteer_wander_state): direction is a tuple "
              "of float32 arrays (all zeros is a valid start), updated in place by "
              "each wander call; seed and tick drive the random generator (integers "
              "from 0 to 2**32 - 1, else OverflowError).",
    .tp_new = Wander_new,
    .tp_dealloc = (destructor)Wander_dealloc,
    .tp_getset = Wander_getset,
};

int spans_add_params(spans *s, const crowdsteer_params *p, size_t count, int behaviour,
                     const char *field) {
  for (int i = 0; i < PARAM_ARRAYS; i++)
    if (spans_add(s, *param_array_slot((crowdsteer_params *)p, i), count * sizeof(float),
                  behaviour, field, param_array_rows[i].name, -1, 0) < 0)
      return -1;
  return 0;
}

int spans_add_target(spans *s, const crowdsteer_target *t, int dims, size_t count,
                     int behaviour) {
  if (t->kind == CROWDSTEER_TARGET_AGENTS)
    return spans_add(s, t->index, count * sizeof(uint32_t), behaviour, "target", "index",
                     -1, 0);
  if (t->kind != CROWDSTEER_TARGET_ARRAYS) return 0;
  return spans_add_vectors(s, &t->position, dims, count, behaviour, "target", "position",
                           0) < 0 ||
                 spans_add_vectors(s, &t->velocity, dims, count, behaviour, "target",
                                   "velocity", 0) < 0
             ? -1
             : 0;
}

/* PARAM_FIELDS and PARAM_ARRAY_FIELDS, the module's names of the fields. */
int add_param_fields(PyObject *module) {
  PyObject *floats = PyTuple_New(PARAM_FLOATS), *arrays = PyTuple_New(PARAM_ARRAYS);
  for (int i = 0; floats && i < PARAM_FLOATS; i++)
    PyTuple_SET_ITEM(floats, i, PyUnicode_FromString(param_float_rows[i].name));
  for (int i = 0; arrays && i < PARAM_ARRAYS; i++)
    PyTuple_SET_ITEM(arrays, i, PyUnicode_FromString(param_array_rows[i].name));
  if (add_owned(module, "PARAM_FIELDS", floats) < 0 ||
      add_owned(module, "PARAM_ARRAY_FIELDS", arrays) < 0)
    return -1;
  return 0;
}
