/* crowdsteer._crowdsteer: obstacles and avoidance (ORCA): Obstacles (a static
 * 2D set, claimed by the calls that use it with the GIL released, as a Grid
 * is), Avoidance (crowdsteer_avoidance) and the avoid call. */
#include "_crowdsteer.h"

#include <string.h>
#include <structmember.h>

/* ---- Obstacles ------------------------------------------------------------------ */

struct ObstaclesObject {
  PyObject_HEAD crowdsteer_obstacles *set;
  /* Calls reading the set (avoid, steps, inside) with the GIL released, or
   * add or build changing it: the set is read-only to readers only. */
  use_count use;
};

static PyObject *Obstacles_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  if (!PyArg_ParseTuple(args, ":Obstacles") || (kwargs && PyDict_GET_SIZE(kwargs))) {
    if (!PyErr_Occurred())
      PyErr_SetString(PyExc_TypeError, "Obstacles() takes no arguments");
    return NULL;
  }
  ObstaclesObject *self = (ObstaclesObject *)type->tp_alloc(type, 0);
  if (!self) return NULL;
  crowdsteer_status status = crowdsteer_obstacles_create(&self->set);
  if (status != CROWDSTEER_OK) {
    Py_DECREF(self);
    return raise_status(status);
  }
  return (PyObject *)self;
}

/* No call can be using the set here: each holds a reference to it (through
 * its Avoidance, or as `self`) until it has returned. */
static void Obstacles_dealloc(ObstaclesObject *self) {
  crowdsteer_obstacles_destroy(self->set);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

int obstacles_claim(ObstaclesObject *o, int change) {
  return use_begin(&o->use, change, "crowdsteer.Obstacles");
}

void obstacles_unclaim(ObstaclesObject *o, int change) { use_end(&o->use, change); }

const crowdsteer_obstacles *obstacles_set(const ObstaclesObject *o) { return o->set; }

/* One coordinate list of add(): a float32 array (read where it is) or a
 * sequence of numbers (converted into `owned`, each as a float argument). */
typedef struct coords {
  const float *data;
  float *owned;
  Py_ssize_t n;
} coords;

/* Sequences first: a number's __float__ can run Python code, which could
 * move an array's memory, so arrays are read after (coords_array). */
static int coords_convert(PyObject *obj, const char *name, coords *c) {
  memset(c, 0, sizeof *c);
  if (PyArray_Check(obj)) return 0;
  PyObject *fast = PySequence_Fast(obj, "");
  if (!fast) {
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError,
                 "%s must be a float32 array or a sequence of numbers, not %.100s", name,
                 Py_TYPE(obj)->tp_name);
    return -1;
  }
  c->n = PySequence_Fast_GET_SIZE(fast);
  c->owned = PyMem_Malloc((c->n ? (size_t)c->n : 1) * sizeof(float));
  if (!c->owned) {
    Py_DECREF(fast);
    PyErr_NoMemory();
    return -1;
  }
  for (Py_ssize_t k = 0; k < c->n; k++)
    if (float32_from(PySequence_Fast_GET_ITEM(fast, k), ITEM(NAME(NULL, name), k),
                     &c->owned[k]) < 0) {
      Py_DECREF(fast);
      return -1;
    }
  Py_DECREF(fast);
  c->data = c->owned;
  return 0;
}

static int coords_array(PyObject *obj, const char *name, coords *c) {
  if (c->data) return 0;
  c->data = array_data(obj, NAME(NULL, name), NPY_FLOAT32, -1, READS);
  if (!c->data) return -1;
  c->n = PyArray_DIM((PyArrayObject *)obj, 0);
  return 0;
}

static PyObject *Obstacles_add(ObstaclesObject *self, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"x", "y", NULL};
  PyObject *x_obj, *y_obj;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO:add", kwlist, &x_obj, &y_obj))
    return NULL;
  coords x = {0}, y = {0};
  int ok = coords_convert(x_obj, "x", &x) == 0 && coords_convert(y_obj, "y", &y) == 0 &&
           coords_array(x_obj, "x", &x) == 0 && coords_array(y_obj, "y", &y) == 0;
  if (ok && x.n != y.n) {
    PyErr_Format(PyExc_ValueError, "x has %zd vertices but y has %zd (one per vertex)",
                 x.n, y.n);
    ok = 0;
  }
  crowdsteer_status status = CROWDSTEER_OK;
  if (ok && obstacles_claim(self, 1) == 0) {
    PyThreadState *unlocked = PyEval_SaveThread(); /* the GIL is released */
    status = crowdsteer_obstacles_add(self->set, x.data, y.data, (size_t)x.n);
    PyEval_RestoreThread(unlocked);
    obstacles_unclaim(self, 1);
  } else {
    ok = 0;
  }
  PyMem_Free(x.owned);
  PyMem_Free(y.owned);
  if (!ok) return NULL;
  if (status != CROWDSTEER_OK) return raise_status(status);
  Py_RETURN_NONE;
}

static PyObject *Obstacles_build(ObstaclesObject *self, PyObject *args,
                                 PyObject *kwargs) {
  static char *kwlist[] = {"cell_size", NULL};
  PyObject *cell_obj = NULL;
  float cell_size = 0.0f;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:build", kwlist, &cell_obj) ||
      (cell_obj && float32_from(cell_obj, NAME(NULL, "cell_size"), &cell_size) < 0) ||
      obstacles_claim(self, 1) < 0)
    return NULL;
  PyThreadState *unlocked = PyEval_SaveThread(); /* the GIL is released */
  crowdsteer_status status = crowdsteer_obstacles_build(self->set, cell_size);
  PyEval_RestoreThread(unlocked);
  obstacles_unclaim(self, 1);
  if (status != CROWDSTEER_OK) return raise_status(status);
  Py_RETURN_NONE;
}

/* inside() of many points: a new bool array, the library called per point
 * with the GIL released. Both arrays float32, 1-D, of one length. */
static PyObject *inside_many(ObstaclesObject *self, PyObject *x_obj, PyObject *y_obj) {
  if (!PyArray_Check(x_obj) || !PyArray_Check(y_obj)) {
    PyErr_SetString(PyExc_TypeError,
                    "inside takes two numbers or two float32 arrays of one length");
    return NULL;
  }
  if (!array_data(x_obj, NAME(NULL, "x"), NPY_FLOAT32, -1, READS) ||
      !array_data(y_obj, NAME(NULL, "y"), NPY_FLOAT32, -1, READS))
    return NULL;
  npy_intp n = PyArray_DIM((PyArrayObject *)x_obj, 0);
  if (PyArray_DIM((PyArrayObject *)y_obj, 0) != n) {
    PyErr_Format(PyExc_ValueError, "x has %zd points but y has %zd", (Py_ssize_t)n,
                 (Py_ssize_t)PyArray_DIM((PyArrayObject *)y_obj, 0));
    return NULL;
  }
  PyObject *result = PyArray_SimpleNew(1, &n, NPY_BOOL);
  if (!result) return NULL;
  /* Read again: allocating the result can run Python code (a GC pass). */
  const float *x = array_data(x_obj, NAME(NULL, "x"), NPY_FLOAT32, n, READS);
  const float *y = x ? array_data(y_obj, NAME(NULL, "y"), NPY_FLOAT32, n, READS) : NULL;
  if (!y || obstacles_claim(self, 0) < 0) {
    Py_DECREF(result);
    return NULL;
  }
  npy_bool *out = PyArray_DATA((PyArrayObject *)result);
  crowdsteer_status status = CROWDSTEER_OK;
  PyThreadState *unlocked = PyEval_SaveThread(); /* the GIL is released */
  for (npy_intp k = 0; k < n && status == CROWDSTEER_OK; k++) {
    int in = 0;
    status = crowdsteer_obstacles_inside(self->set, x[k], y[k], &in);
    out[k] = (npy_bool)(in != 0);
  }
  PyEval_RestoreThread(unlocked);
  obstacles_unclaim(self, 0);
  if (status != CROWDSTEER_OK) {
    Py_DECREF(result);
    return raise_status(status);
  }
  return result;
}

static PyObject *Obstacles_inside(ObstaclesObject *self, PyObject *args,
                                  PyObject *kwargs) {
  static char *kwlist[] = {"x", "y", NULL};
  PyObject *x_obj, *y_obj;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO:inside", kwlist, &x_obj, &y_obj))
    return NULL;
  if (PyArray_Check(x_obj) || PyArray_Check(y_obj))
    return inside_many(self, x_obj, y_obj);
  float x, y;
  if (float32_from(x_obj, NAME(NULL, "x"), &x) < 0 ||
      float32_from(y_obj, NAME(NULL, "y"), &y) < 0 || obstacles_claim(self, 0) < 0)
    return NULL;
  int in = 0;
  PyThreadState *unlocked = PyEval_SaveThread(); /* the GIL is released */
  crowdsteer_status status = crowdsteer_obstacles_inside(self->set, x, y, &in);
  PyEval_RestoreThread(unlocked);
  obstacles_unclaim(self, 0);
  if (status != CROWDSTEER_OK) return raise_status(status);
  return PyBool_FromLong(in);
}

/* bytes and edge_count read the set too: not while add or build runs. */
static PyObject *Obstacles_size(ObstaclesObject *self, void *closure) {
  if (obstacles_claim(self, 0) < 0) return NULL;
  size_t v = closure ? crowdsteer_obstacles_edge_count(self->set)
                     : crowdsteer_obstacles_bytes(self->set);
  obstacles_unclaim(self, 0);
  return PyLong_FromSize_t(v);
}

static PyMethodDef Obstacles_methods[] = {
    {"add", (PyCFunction)(void (*)(void))Obstacles_add, METH_VARARGS | METH_KEYWORDS,
     "add(x, y)\n--\n\n"
     "Adds an obstacle of len(x) vertices (x[k], y[k]), float32 arrays or sequences "
     "of numbers: three or more are a polygon, counter-clockwise (the obstacle on "
     "the left of each edge); two are a wall segment, blocking both sides. The "
     "vertices are copied. Checked exactly, adding nothing on error: ParameterError "
     "for fewer than 2 vertices or a coordinate NaN or infinite, GeometryError for "
     "two consecutive vertices equal (the last and first included) or a polygon "
     "that touches or crosses itself, turns clockwise or encloses no area. "
     "Polygons may overlap each other. The set is unbuilt until the next build()."},
    {"build", (PyCFunction)(void (*)(void))Obstacles_build, METH_VARARGS | METH_KEYWORDS,
     "build(cell_size=0.0)\n--\n\n"
     "Files every edge in a grid of cells over the vertices (cell_size 0: about "
     "16 cells an edge; otherwise positive and finite, else ParameterError). "
     "Avoidance and inside() need a built set (GridError otherwise). An empty set "
     "builds too."},
    {"inside", (PyCFunction)(void (*)(void))Obstacles_inside,
     METH_VARARGS | METH_KEYWORDS,
     "inside(x, y)\n--\n\n"
     "Whether the point (x, y) is strictly inside a polygon of the set (a point on "
     "an edge is outside; walls have no inside), decided exactly: a bool for two "
     "numbers, a new bool array for two float32 arrays of one length. GridError "
     "if the set is not built."},
    {NULL}};

static PyGetSetDef Obstacles_getset[] = {
    {"bytes", (getter)Obstacles_size, NULL,
     "memory the set holds (vertices and grid), in bytes", NULL},
    {"edge_count", (getter)Obstacles_size, NULL,
     "edges in the set (a polygon of n vertices has n, a wall 2)", (void *)1},
    {NULL}};

PyTypeObject Obstacles_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "crowdsteer.Obstacles",
    .tp_basicsize = sizeof(ObstaclesObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Obstacles()\n--\n\n"
              "A static 2D obstacle set (crowdsteer_obstacles): add() polygons and "
              "walls, build() it, then pass it in an Avoidance.\n\n"
              "A built set is read-only to avoid(), steps and inside(), so any number "
              "of threads may use it at once (the GIL is released). add() and build() "
              "need it to themselves: calling them while another thread uses the set, "
              "or using it while they run, raises RuntimeError. An Avoidance keeps "
              "its Obstacles alive.",
    .tp_new = Obstacles_new,
    .tp_dealloc = (destructor)Obstacles_dealloc,
    .tp_methods = Obstacles_methods,
    .tp_getset = Obstacles_getset,
};

/* ---- Avoidance ------------------------------------------------------------------ */

typedef struct {
  PyObject_HEAD crowdsteer_avoidance c; /* uniform fields; pointers set per call */
  PyObject *radius_per_agent, *responsibility_per_agent, *report; /* None or arrays */
  PyObject *neighbours, *obstacles;                               /* None or objects */
} AvoidanceObject;

static PyObject *Avoidance_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"radius",         "radius_per_agent",
                           "time_horizon",   "obstacle_time_horizon",
                           "responsibility", "responsibility_per_agent",
                           "neighbours",     "obstacles",
                           "report",         NULL};
  PyObject *radius = NULL, *tau = NULL, *tau_o = NULL, *responsibility = NULL;
  PyObject *radii = Py_None, *shares = Py_None, *nb = Py_None, *obstacles = Py_None,
           *report = Py_None;
  crowdsteer_avoidance c = {0};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|$OOOOOOOOO:Avoidance", kwlist, &radius,
                                   &radii, &tau, &tau_o, &responsibility, &shares, &nb,
                                   &obstacles, &report) ||
      (radius && float32_from(radius, NAME(NULL, "radius"), &c.radius) < 0) ||
      (tau && float32_from(tau, NAME(NULL, "time_horizon"), &c.time_horizon) < 0) ||
      (tau_o && float32_from(tau_o, NAME(NULL, "obstacle_time_horizon"),
                             &c.obstacle_time_horizon) < 0) ||
      (responsibility &&
       float32_from(responsibility, NAME(NULL, "responsibility"), &c.responsibility) < 0))
    return NULL;
  if (nb != Py_None && !PyObject_TypeCheck(nb, &Neighbours_Type)) {
    PyErr_Format(PyExc_TypeError,
                 "neighbours must be a crowdsteer.Neighbours or None, not %.100s",
                 Py_TYPE(nb)->tp_name);
    return NULL;
  }
  if (obstacles != Py_None && !PyObject_TypeCheck(obstacles, &Obstacles_Type)) {
    PyErr_Format(PyExc_TypeError,
                 "obstacles must be a crowdsteer.Obstacles or None, not %.100s",
                 Py_TYPE(obstacles)->tp_name);
    return NULL;
  }
  int failed = 0;
  optional_array(radii, NAME(NULL, "radius_per_agent"), NPY_FLOAT32, -1, &failed);
  optional_array(shares, NAME(NULL, "responsibility_per_agent"), NPY_FLOAT32, -1,
                 &failed);
  if (failed || (report != Py_None &&
                 !array_data(report, NAME(NULL, "report"), NPY_UINT32, -1, WRITES)))
    return NULL;
  AvoidanceObject *self = (AvoidanceObject *)type->tp_alloc(type, 0);
  if (!self) return NULL;
  self->c = c;
  self->radius_per_agent = Py_NewRef(radii);
  self->responsibility_per_agent = Py_NewRef(shares);
  self->report = Py_NewRef(report);
  self->neighbours = Py_NewRef(nb);
  self->obstacles = Py_NewRef(obstacles);
  return (PyObject *)self;
}

static void Avoidance_dealloc(AvoidanceObject *self) {
  Py_XDECREF(self->radius_per_agent);
  Py_XDECREF(self->responsibility_per_agent);
  Py_XDECREF(self->report);
  Py_XDECREF(self->neighbours);
  Py_XDECREF(self->obstacles);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

/* The struct for a call, its arrays read now and checked against the count
 * (the report as written); out->grid and out->obstacles are what the call
 * claims (avoidance_claim) while the GIL is released. */
int avoidance_to_c(PyObject *obj, const arg_name *name, Py_ssize_t count,
                   avoidance_call *out) {
  memset(out, 0, sizeof *out);
  if (!PyObject_TypeCheck(obj, &Avoidance_Type)) {
    PyErr_Format(PyExc_TypeError, "%s must be a crowdsteer.Avoidance, not %.100s",
                 render(name).text, Py_TYPE(obj)->tp_name);
    return -1;
  }
  AvoidanceObject *a = (AvoidanceObject *)obj;
  out->c = a->c;
  if (a->neighbours != Py_None) {
    if (neighbours_to_c(a->neighbours, NAME(name, "neighbours"), count, &out->neighbours,
                        &out->grid) < 0)
      return -1;
    out->c.neighbours = &out->neighbours;
  }
  if (a->obstacles != Py_None) {
    out->obstacles = (ObstaclesObject *)a->obstacles;
    out->c.obstacles = out->obstacles->set;
  }
  int failed = 0;
  out->c.radius_per_agent = optional_array(
      a->radius_per_agent, NAME(name, "radius_per_agent"), NPY_FLOAT32, count, &failed);
  out->c.responsibility_per_agent =
      optional_array(a->responsibility_per_agent, NAME(name, "responsibility_per_agent"),
                     NPY_FLOAT32, count, &failed);
  if (failed) return -1;
  if (a->report != Py_None) {
    out->c.report =
        array_data(a->report, NAME(name, "report"), NPY_UINT32, count, WRITES);
    if (!out->c.report) return -1;
  }
  return 0;
}

/* The avoidance's arrays, each its own argument for the overlap checks (a
 * report over the per-agent radii is an error like any other). */
int spans_add_avoidance(spans *s, const avoidance_call *a, size_t count) {
  const size_t bytes = count * sizeof(float); /* uint32 and float32 alike */
  return spans_add(s, a->c.radius_per_agent, bytes, -1, "avoidance.radius_per_agent",
                   NULL, -1, 0) < 0 ||
                 spans_add(s, a->c.responsibility_per_agent, bytes, -1,
                           "avoidance.responsibility_per_agent", NULL, -1, 0) < 0 ||
                 spans_add(s, a->c.report, bytes, -1, "avoidance.report", NULL, -1, 1) <
                     0 ||
                 (a->c.neighbours && spans_add_neighbours(s, &a->neighbours, count, -1,
                                                          "avoidance.neighbours") < 0)
             ? -1
             : 0;
}

/* Claims the avoidance's grid and obstacles for a call (RuntimeError while
 * another thread builds or changes them). */
int avoidance_claim(avoidance_call *a) {
  if (a->grid && grid_claim(a->grid, 0) < 0) return -1;
  if (a->obstacles && obstacles_claim(a->obstacles, 0) < 0) {
    if (a->grid) grid_unclaim(a->grid, 0);
    return -1;
  }
  return 0;
}

void avoidance_unclaim(avoidance_call *a) {
  if (a->grid) grid_unclaim(a->grid, 0);
  if (a->obstacles) obstacles_unclaim(a->obstacles, 0);
}

static PyMemberDef Avoidance_members[] = {
    {"radius", T_FLOAT, offsetof(AvoidanceObject, c.radius), READONLY,
     "body radius, >= 0 (0: point agents)"},
    {"radius_per_agent", T_OBJECT, offsetof(AvoidanceObject, radius_per_agent), READONLY,
     "per-agent radii (float32), or None"},
    {"time_horizon", T_FLOAT, offsetof(AvoidanceObject, c.time_horizon), READONLY,
     "how far ahead agents avoid each other, > 0 (0 means 1)"},
    {"obstacle_time_horizon", T_FLOAT, offsetof(AvoidanceObject, c.obstacle_time_horizon),
     READONLY, "the same for obstacles, > 0 (0 means time_horizon)"},
    {"responsibility", T_FLOAT, offsetof(AvoidanceObject, c.responsibility), READONLY,
     "the share of avoiding another agent this agent takes, in [0, 1] (0 means 0.5)"},
    {"responsibility_per_agent", T_OBJECT,
     offsetof(AvoidanceObject, responsibility_per_agent), READONLY,
     "per-agent responsibilities (float32, taken literally), or None"},
    {"neighbours", T_OBJECT, offsetof(AvoidanceObject, neighbours), READONLY,
     "the Neighbours each agent avoids, or None (obstacles only)"},
    {"obstacles", T_OBJECT, offsetof(AvoidanceObject, obstacles), READONLY,
     "a built Obstacles (2D only), or None"},
    {"report", T_OBJECT, offsetof(AvoidanceObject, report), READONLY,
     "per-agent REPORT_* bits (uint32, written by every call), or None"},
    {NULL}};

PyTypeObject Avoidance_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "crowdsteer.Avoidance",
    .tp_basicsize = sizeof(AvoidanceObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc =
        "Avoidance(*, radius=0.0, radius_per_agent=None, time_horizon=0.0, "
        "obstacle_time_horizon=0.0, responsibility=0.0, responsibility_per_agent=None, "
        "neighbours=None, obstacles=None, report=None)\n--\n\n"
        "Avoidance of agents and obstacles (ORCA, crowdsteer_avoidance), for avoid() "
        "and step(avoidance=...). neighbours: who each agent avoids (None: obstacles "
        "only; a Grid that keeps velocities, not positions_only; a step needs one, "
        "built from the state before the step). obstacles: a built Obstacles (2D "
        "only). report: a uint32 array the calls write REPORT_CROWDED, REPORT_WALL "
        "and REPORT_INSIDE bits into. Fields are checked by the calls (negative "
        "radius, horizons not positive, responsibility outside [0, 1]: "
        "ParameterError). Immutable; it keeps its Neighbours and Obstacles alive.",
    .tp_new = Avoidance_new,
    .tp_dealloc = (destructor)Avoidance_dealloc,
    .tp_members = Avoidance_members,
};

/* ---- avoid ---------------------------------------------------------------------- */

/* Whether two vectors are the same arrays, axis by axis: the library lets
 * the output be the preferred velocities themselves, nothing else. */
static int same_vectors(const crowdsteer_vectors *a, const crowdsteer_vectors *b,
                        int dims) {
  return a->x == b->x && a->y == b->y && (dims == 2 || a->z == b->z);
}

PyObject *py_avoid(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"agents",   "avoidance", "params", "preferred",
                           "velocity", "begin",     "end",    NULL};
  PyObject *agents_obj, *avoidance_obj, *params_obj, *preferred_obj, *velocity_obj;
  PyObject *begin_obj = NULL, *end_obj = Py_None;
  (void)self;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOOO|$OO:avoid", kwlist, &agents_obj,
                                   &avoidance_obj, &params_obj, &preferred_obj,
                                   &velocity_obj, &begin_obj, &end_obj))
    return NULL;
  AgentsObject *a = as_agents(agents_obj, "agents");
  size_t b, e;
  if (!a || range_from(begin_obj, end_obj, a->count, &b, &e) < 0) return NULL;
  const Py_ssize_t count = (Py_ssize_t)a->count;
  crowdsteer_agents agents;
  crowdsteer_params params;
  avoidance_call av;
  crowdsteer_vectors preferred, velocity;
  PyObject *keep[6] = {NULL};
  spans memory;
  spans_init(&memory);
  /* Numbers are converted; from here on nothing runs Python code until the
   * library has returned, so the arrays read stay where they are. */
  int ok = agents_to_c(a, "agents", READS, &agents) == 0 &&
           params_to_c(params_obj, NAME(NULL, "params"), count, &params) == 0 &&
           avoidance_to_c(avoidance_obj, NAME(NULL, "avoidance"), count, &av) == 0 &&
           vectors_from(preferred_obj, NAME(NULL, "preferred"), a->dims, count, READS,
                        &preferred, keep) == 0 &&
           vectors_from(velocity_obj, NAME(NULL, "velocity"), a->dims, count, WRITES,
                        &velocity, keep + 3) == 0;
  ok = ok && spans_add_agents(&memory, &agents, "agents", 0) == 0 &&
       spans_add_params(&memory, &params, a->count, -1, "params") == 0 &&
       spans_add_avoidance(&memory, &av, a->count) == 0 &&
       (same_vectors(&preferred, &velocity, a->dims) ||
        spans_add_vectors(&memory, &preferred, a->dims, a->count, -1, "preferred", NULL,
                          0) == 0) &&
       spans_add_vectors(&memory, &velocity, a->dims, a->count, -1, "velocity", NULL,
                         1) == 0 &&
       check_spans(&memory) == 0 && avoidance_claim(&av) == 0;
  spans_free(&memory);
  crowdsteer_status status = CROWDSTEER_OK;
  if (ok) {
    PyThreadState *unlocked = PyEval_SaveThread(); /* the GIL is released */
    status = crowdsteer_avoid(&agents, &av.c, &params, &preferred, &velocity, b, e);
    PyEval_RestoreThread(unlocked);
    avoidance_unclaim(&av);
  }
  release(keep, 6);
  if (!ok) return NULL;
  if (status != CROWDSTEER_OK) return raise_status(status);
  Py_RETURN_NONE;
}
