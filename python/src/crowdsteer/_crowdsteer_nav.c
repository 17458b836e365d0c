/* crowdsteer._crowdsteer: navigation fields (Field: build, rebuild, the
 * cells' times and directions) and FieldFollow, which fields agents follow
 * (follow_field, and Behaviour(FOLLOW_FIELD, field=...) in a step). */
#include "_crowdsteer.h"

#include <string.h>
#include <structmember.h>

/* ---- Field ----------------------------------------------------------------------- */

struct FieldObject {
  PyObject_HEAD crowdsteer_field *field;
  uint32_t width, height; /* of the last build, 0 before */
  /* Calls following the field with the GIL released, or a build changing
   * it: the field is read-only to readers only. */
  use_count use;
};

static PyObject *Field_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  if (!PyArg_ParseTuple(args, ":Field") || (kwargs && PyDict_GET_SIZE(kwargs))) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "Field() takes no arguments");
    return NULL;
  }
  FieldObject *self = (FieldObject *)type->tp_alloc(type, 0);
  if (!self) return NULL;
  crowdsteer_status status = crowdsteer_field_create(&self->field);
  if (status != CROWDSTEER_OK) {
    Py_DECREF(self);
    return raise_status(status);
  }
  return (PyObject *)self;
}

/* No call can be using the field here: each holds a reference to it. */
static void Field_dealloc(FieldObject *self) {
  crowdsteer_field_destroy(self->field);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

int field_claim(FieldObject *f, int change) {
  return use_begin(&f->use, change, "crowdsteer.Field");
}

void field_unclaim(FieldObject *f, int change) { use_end(&f->use, change); }

/* build() and rebuild()'s description: numbers first, arrays last (a
 * number's __float__ could move an array's memory). */
typedef struct field_args {
  PyObject *width, *height, *cell_size, *origin, *obstacles, *cost, *goal_x, *goal_y,
      *goal_regions, *region;
} field_args;

static int obstacles_arg(PyObject *obj, const char *name, ObstaclesObject **out) {
  *out = NULL;
  if (obj == Py_None) return 0;
  if (!PyObject_TypeCheck(obj, &Obstacles_Type)) {
    PyErr_Format(PyExc_TypeError, "%s must be a crowdsteer.Obstacles or None, not %.100s",
                 name, Py_TYPE(obj)->tp_name);
    return -1;
  }
  *out = (ObstaclesObject *)obj;
  return 0;
}

static int desc_from(const field_args *a, crowdsteer_field_desc *d,
                     ObstaclesObject **sets) {
  memset(d, 0, sizeof *d);
  PyObject *origin = NULL;
  if (uint32_from(a->width, NAME(NULL, "width"), &d->width) < 0 ||
      uint32_from(a->height, NAME(NULL, "height"), &d->height) < 0 ||
      float32_from(a->cell_size, NAME(NULL, "cell_size"), &d->cell_size) < 0)
    return -1;
  if (a->origin) {
    origin = PySequence_Fast(a->origin, "origin must be a sequence of two numbers");
    if (!origin) return -1;
    int bad = PySequence_Fast_GET_SIZE(origin) != 2;
    if (bad) PyErr_SetString(PyExc_ValueError, "origin must hold two numbers");
    for (int k = 0; !bad && k < 2; k++)
      bad = float32_from(PySequence_Fast_GET_ITEM(origin, k),
                         ITEM(NAME(NULL, "origin"), k), &d->origin[k]) < 0;
    Py_DECREF(origin);
    if (bad) return -1;
  }
  if (obstacles_arg(a->obstacles, "obstacles", &sets[0]) < 0 ||
      obstacles_arg(a->goal_regions, "goal_regions", &sets[1]) < 0)
    return -1;
  d->obstacles = sets[0] ? obstacles_set(sets[0]) : NULL;
  d->goal_regions = sets[1] ? obstacles_set(sets[1]) : NULL;
  int failed = 0;
  const Py_ssize_t cells = (Py_ssize_t)((size_t)d->width * d->height);
  d->cost = optional_array(a->cost, NAME(NULL, "cost"), NPY_FLOAT32, cells, &failed);
  if (failed) return -1;
  if ((a->goal_x == Py_None) != (a->goal_y == Py_None)) {
    PyErr_SetString(PyExc_ValueError, "give goal_x and goal_y together");
    return -1;
  }
  if (a->goal_x != Py_None) {
    if (!PyArray_Check(a->goal_x)) {
      PyErr_SetString(PyExc_TypeError, "goal_x must be a float32 array");
      return -1;
    }
    const Py_ssize_t n = PyArray_SIZE((PyArrayObject *)a->goal_x);
    d->goal_x = float_array(a->goal_x, NAME(NULL, "goal_x"), n, READS);
    d->goal_y = d->goal_x ? float_array(a->goal_y, NAME(NULL, "goal_y"), n, READS) : NULL;
    if (!d->goal_y) return -1;
    d->goal_point_count = (size_t)n;
  }
  return 0;
}

/* The description's obstacle sets are read by the build: claimed, with the
 * field, while the GIL is released. */
static PyObject *run_build(FieldObject *self, const field_args *a, int rebuild) {
  crowdsteer_field_desc d;
  ObstaclesObject *sets[2] = {NULL, NULL};
  uint32_t region[4] = {0, 0, 0, 0};
  if (rebuild) {
    PyObject *r = PySequence_Fast(a->region, "region must be (cx0, cy0, cx1, cy1)");
    if (!r) return NULL;
    int bad = PySequence_Fast_GET_SIZE(r) != 4;
    if (bad) PyErr_SetString(PyExc_ValueError, "region must be (cx0, cy0, cx1, cy1)");
    for (int k = 0; !bad && k < 4; k++)
      bad = uint32_from(PySequence_Fast_GET_ITEM(r, k), ITEM(NAME(NULL, "region"), k),
                        &region[k]) < 0;
    Py_DECREF(r);
    if (bad) return NULL;
  }
  if (desc_from(a, &d, sets) < 0) return NULL;
  if (field_claim(self, 1) < 0) return NULL;
  int claimed = 0;
  for (; claimed < 2; claimed++)
    if (sets[claimed] && obstacles_claim(sets[claimed], 0) < 0) break;
  crowdsteer_status status = CROWDSTEER_OK;
  if (claimed == 2) {
    PyThreadState *unlocked = PyEval_SaveThread(); /* the GIL is released */
    status = rebuild ? crowdsteer_field_rebuild(self->field, &d, region[0], region[1],
                                                region[2], region[3])
                     : crowdsteer_field_build(self->field, &d);
    PyEval_RestoreThread(unlocked);
  }
  for (int k = 0; k < claimed; k++)
    if (sets[k]) obstacles_unclaim(sets[k], 0);
  field_unclaim(self, 1);
  if (claimed < 2) return NULL;
  if (status != CROWDSTEER_OK) return raise_status(status);
  self->width = d.width;
  self->height = d.height;
  Py_RETURN_NONE;
}

static char *build_kwlist[] = {"width",        "height", "cell_size", "origin",
                               "obstacles",    "cost",   "goal_x",    "goal_y",
                               "goal_regions", "region", NULL};

static PyObject *Field_build(FieldObject *self, PyObject *args, PyObject *kwargs) {
  field_args a = {NULL,    NULL,    NULL,    NULL,    Py_None,
                  Py_None, Py_None, Py_None, Py_None, NULL};
  char *kwlist[10];
  memcpy(kwlist, build_kwlist, 9 * sizeof *kwlist);
  kwlist[9] = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO|$OOOOOO:build", kwlist, &a.width,
                                   &a.height, &a.cell_size, &a.origin, &a.obstacles,
                                   &a.cost, &a.goal_x, &a.goal_y, &a.goal_regions))
    return NULL;
  return run_build(self, &a, 0);
}

static PyObject *Field_rebuild(FieldObject *self, PyObject *args, PyObject *kwargs) {
  field_args a = {NULL,    NULL,    NULL,    NULL,    Py_None,
                  Py_None, Py_None, Py_None, Py_None, NULL};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO|$OOOOOOO:rebuild", build_kwlist,
                                   &a.width, &a.height, &a.cell_size, &a.origin,
                                   &a.obstacles, &a.cost, &a.goal_x, &a.goal_y,
                                   &a.goal_regions, &a.region))
    return NULL;
  if (!a.region) {
    PyErr_SetString(PyExc_TypeError, "rebuild() needs region=(cx0, cy0, cx1, cy1)");
    return NULL;
  }
  return run_build(self, &a, 1);
}

/* times(): T per cell, a new (height, width) float64 array; directions():
 * a new (2, height, width) float32 array of each cell's direction. */
static PyObject *cells_array(FieldObject *self, int directions) {
  if (!self->width) return raise_status(CROWDSTEER_ERROR_GRID);
  if (field_claim(self, 0) < 0) return NULL;
  npy_intp shape[3] = {2, self->height, self->width};
  PyObject *out = directions ? PyArray_SimpleNew(3, shape, NPY_FLOAT32)
                             : PyArray_SimpleNew(2, shape + 1, NPY_FLOAT64);
  if (out) {
    const size_t cells = (size_t)self->width * self->height;
    void *data = PyArray_DATA((PyArrayObject *)out);
    size_t c = 0;
    PyThreadState *unlocked = PyEval_SaveThread(); /* the GIL is released */
    for (uint32_t y = 0; y < self->height; y++)
      for (uint32_t x = 0; x < self->width; x++, c++) {
        if (directions) {
          int blocked;
          crowdsteer_field_direction(self->field, x, y, (float *)data + c,
                                     (float *)data + cells + c, &blocked);
        } else {
          crowdsteer_field_time(self->field, x, y, (double *)data + c);
        }
      }
    PyEval_RestoreThread(unlocked);
  }
  field_unclaim(self, 0);
  return out;
}

static PyObject *Field_times(FieldObject *self, PyObject *unused) {
  (void)unused;
  return cells_array(self, 0);
}

static PyObject *Field_directions(FieldObject *self, PyObject *unused) {
  (void)unused;
  return cells_array(self, 1);
}

static PyObject *Field_bytes(FieldObject *self, void *closure) {
  (void)closure;
  return PyLong_FromSize_t(crowdsteer_field_bytes(self->field));
}

static PyMethodDef Field_methods[] = {
    {"build", (PyCFunction)(void (*)(void))Field_build, METH_VARARGS | METH_KEYWORDS,
     "build(width, height, cell_size, *, origin=(0, 0), obstacles=None, cost=None, "
     "goal_x=None, goal_y=None, goal_regions=None)\n--\n\n"
     "Builds the field (crowdsteer_field_build): obstacles and goal_regions are "
     "Obstacles (the first built), cost a float32 array of width * height cells or "
     "None, goal_x and goal_y float32 arrays of goal points."},
    {"rebuild", (PyCFunction)(void (*)(void))Field_rebuild, METH_VARARGS | METH_KEYWORDS,
     "rebuild(width, height, cell_size, *, ..., region)\n--\n\n"
     "crowdsteer_field_rebuild over region=(cx0, cy0, cx1, cy1): the same bits as "
     "build() when nothing changed outside it."},
    {"times", (PyCFunction)Field_times, METH_NOARGS,
     "times()\n--\n\nT of every cell, a new (height, width) float64 array (inf where "
     "blocked or unreachable)."},
    {"directions", (PyCFunction)Field_directions, METH_NOARGS,
     "directions()\n--\n\nEvery cell's direction, a new (2, height, width) float32 "
     "array (x, then y)."},
    {NULL}};

static PyGetSetDef Field_getset[] = {
    {"bytes", (getter)Field_bytes, NULL, "memory the field holds", NULL}, {NULL}};

PyTypeObject Field_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "crowdsteer.Field",
    .tp_basicsize = sizeof(FieldObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Field()\n--\n\nA navigation field (crowdsteer_field): travel time to the "
              "nearest goal over a grid of an obstacle set. build() it, then follow it "
              "with follow_field or a step (FieldFollow).",
    .tp_new = Field_new,
    .tp_dealloc = (destructor)Field_dealloc,
    .tp_methods = Field_methods,
    .tp_getset = Field_getset,
};

/* ---- FieldFollow ----------------------------------------------------------------- */

struct FieldFollowObject {
  PyObject_HEAD PyObject *fields; /* a tuple of Field */
  PyObject *field_index;          /* a uint32 array or None, read at each call */
  uint32_t field;
  const crowdsteer_field **c_fields;
};

static PyObject *FieldFollow_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"fields", "field_index", "field", NULL};
  PyObject *fields_obj, *index = Py_None, *field_obj = NULL;
  uint32_t field = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OO:FieldFollow", kwlist, &fields_obj,
                                   &index, &field_obj) ||
      (field_obj && uint32_from(field_obj, NAME(NULL, "field"), &field) < 0))
    return NULL;
  PyObject *fields = PySequence_Tuple(fields_obj);
  if (!fields) return NULL;
  const Py_ssize_t n = PyTuple_GET_SIZE(fields);
  for (Py_ssize_t i = 0; i < n; i++)
    if (!PyObject_TypeCheck(PyTuple_GET_ITEM(fields, i), &Field_Type)) {
      PyErr_Format(PyExc_TypeError, "fields[%zd] must be a crowdsteer.Field", i);
      Py_DECREF(fields);
      return NULL;
    }
  FieldFollowObject *self = (FieldFollowObject *)type->tp_alloc(type, 0);
  if (!self) {
    Py_DECREF(fields);
    return NULL;
  }
  self->fields = fields;
  self->field_index = Py_NewRef(index);
  self->field = field;
  self->c_fields = PyMem_Calloc((size_t)(n ? n : 1), sizeof *self->c_fields);
  if (!self->c_fields) {
    Py_DECREF(self);
    return PyErr_NoMemory();
  }
  for (Py_ssize_t i = 0; i < n; i++)
    self->c_fields[i] = ((FieldObject *)PyTuple_GET_ITEM(fields, i))->field;
  return (PyObject *)self;
}

static void FieldFollow_dealloc(FieldFollowObject *self) {
  Py_XDECREF(self->fields);
  Py_XDECREF(self->field_index);
  PyMem_Free(self->c_fields);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMemberDef FieldFollow_members[] = {
    {"fields", T_OBJECT, offsetof(FieldFollowObject, fields), READONLY, "the Fields"},
    {"field_index", T_OBJECT, offsetof(FieldFollowObject, field_index), READONLY,
     "per-agent field indices (uint32) or None"},
    {"field", T_UINT, offsetof(FieldFollowObject, field), READONLY,
     "the field of every agent when field_index is None"},
    {NULL}};

PyTypeObject FieldFollow_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "crowdsteer.FieldFollow",
    .tp_basicsize = sizeof(FieldFollowObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "FieldFollow(fields, field_index=None, field=0)\n--\n\n"
              "Which field each agent follows (crowdsteer_field_follow). Immutable.",
    .tp_new = FieldFollow_new,
    .tp_dealloc = (destructor)FieldFollow_dealloc,
    .tp_members = FieldFollow_members,
};

int follow_to_c(PyObject *obj, const arg_name *name, Py_ssize_t count,
                crowdsteer_field_follow *out, FieldFollowObject **claimable) {
  memset(out, 0, sizeof *out);
  *claimable = NULL;
  if (!PyObject_TypeCheck(obj, &FieldFollow_Type)) {
    PyErr_Format(PyExc_TypeError, "%s must be a crowdsteer.FieldFollow, not %.100s",
                 render(name).text, Py_TYPE(obj)->tp_name);
    return -1;
  }
  FieldFollowObject *f = (FieldFollowObject *)obj;
  int failed = 0;
  out->field_index = optional_array(f->field_index, NAME(name, "field_index"), NPY_UINT32,
                                    count, &failed);
  if (failed) return -1;
  out->fields = f->c_fields;
  out->field_count = (size_t)PyTuple_GET_SIZE(f->fields);
  out->field = f->field;
  *claimable = f;
  return 0;
}

int follow_claim(FieldFollowObject *f) {
  const Py_ssize_t n = PyTuple_GET_SIZE(f->fields);
  for (Py_ssize_t i = 0; i < n; i++)
    if (field_claim((FieldObject *)PyTuple_GET_ITEM(f->fields, i), 0) < 0) {
      while (i-- > 0)
        field_unclaim((FieldObject *)PyTuple_GET_ITEM(f->fields, i), 0);
      return -1;
    }
  return 0;
}

void follow_unclaim(FieldFollowObject *f) {
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(f->fields); i++)
    field_unclaim((FieldObject *)PyTuple_GET_ITEM(f->fields, i), 0);
}
