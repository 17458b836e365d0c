/* crowdsteer._crowdsteer: pathways (Pathway, a built polyline with a radius)
 * and the follow description of follow_path (PathFollow's fields). */
#include "_crowdsteer.h"

#include <string.h>

struct PathwayObject {
  PyObject_HEAD crowdsteer_pathway *path;
  int dims;
};

/* A 1-D float32 copy of a coordinate sequence (the points are copied by
 * the library, so any array-like is fine). */
static PyArrayObject *coordinates(PyObject *obj, const char *name) {
  PyArrayObject *a = (PyArrayObject *)PyArray_FROMANY(
      obj, NPY_FLOAT32, 1, 1, NPY_ARRAY_CARRAY | NPY_ARRAY_FORCECAST);
  if (!a)
    PyErr_Format(PyExc_TypeError, "Pathway: %s must be a 1-D sequence of numbers", name);
  return a;
}

static PyObject *Pathway_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"x", "y", "z", "radius", "cyclic", NULL};
  PyObject *x_obj, *y_obj, *z_obj = Py_None, *radius_obj = NULL;
  int cyclic = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|O$Op:Pathway", kwlist, &x_obj,
                                   &y_obj, &z_obj, &radius_obj, &cyclic))
    return NULL;
  float radius = 0.0f;
  if (radius_obj && float32_from(radius_obj, NAME(NULL, "radius"), &radius) < 0)
    return NULL;
  PyArrayObject *axis[3] = {coordinates(x_obj, "x"), NULL, NULL};
  if (axis[0]) axis[1] = coordinates(y_obj, "y");
  if (axis[1] && z_obj != Py_None) axis[2] = coordinates(z_obj, "z");
  const int dims = z_obj != Py_None ? 3 : 2;
  PathwayObject *self = NULL;
  if (axis[0] && axis[1] && (dims == 2 || axis[2])) {
    const npy_intp n = PyArray_DIM(axis[0], 0);
    if (PyArray_DIM(axis[1], 0) != n || (dims == 3 && PyArray_DIM(axis[2], 0) != n)) {
      PyErr_SetString(PyExc_ValueError,
                      "Pathway: x, y (and z) must have the same length");
    } else {
      const crowdsteer_pathway_desc desc = {
          dims,
          (size_t)n,
          (const float *)PyArray_DATA(axis[0]),
          (const float *)PyArray_DATA(axis[1]),
          dims == 3 ? (const float *)PyArray_DATA(axis[2]) : NULL,
          radius,
          cyclic};
      crowdsteer_pathway *path = NULL;
      PyThreadState *unlocked = PyEval_SaveThread(); /* the GIL is released */
      const crowdsteer_status status = crowdsteer_pathway_create(&path, &desc);
      PyEval_RestoreThread(unlocked);
      if (status != CROWDSTEER_OK) {
        raise_status(status);
      } else if (!(self = (PathwayObject *)type->tp_alloc(type, 0))) {
        crowdsteer_pathway_destroy(path);
      } else {
        self->path = path;
        self->dims = dims;
      }
    }
  }
  for (int k = 0; k < 3; k++)
    Py_XDECREF(axis[k]);
  return (PyObject *)self;
}

static void Pathway_dealloc(PathwayObject *self) {
  crowdsteer_pathway_destroy(self->path);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *point_tuple(const float point[3], int dims) {
  return dims == 3 ? Py_BuildValue("(ddd)", (double)point[0], (double)point[1],
                                   (double)point[2])
                   : Py_BuildValue("(dd)", (double)point[0], (double)point[1]);
}

static PyObject *Pathway_point_at(PathwayObject *self, PyObject *arg) {
  float distance, point[3];
  if (float32_from(arg, NAME(NULL, "distance"), &distance) < 0) return NULL;
  PyThreadState *unlocked = PyEval_SaveThread(); /* the GIL is released */
  const crowdsteer_status status =
      crowdsteer_pathway_point_at(self->path, distance, point);
  PyEval_RestoreThread(unlocked);
  if (status != CROWDSTEER_OK) return raise_status(status);
  return point_tuple(point, self->dims);
}

static PyObject *Pathway_nearest(PathwayObject *self, PyObject *arg) {
  float q[3] = {0.0f, 0.0f, 0.0f}, point[3], along;
  PyObject *seq = PySequence_Fast(arg, "nearest: a position (a sequence of numbers)");
  if (!seq) return NULL;
  if (PySequence_Fast_GET_SIZE(seq) != self->dims) {
    Py_DECREF(seq);
    PyErr_Format(PyExc_ValueError, "nearest: the position needs %d numbers", self->dims);
    return NULL;
  }
  for (int k = 0; k < self->dims; k++)
    if (float32_from(PySequence_Fast_GET_ITEM(seq, k), NAME(NULL, "position"), &q[k]) <
        0) {
      Py_DECREF(seq);
      return NULL;
    }
  Py_DECREF(seq);
  PyThreadState *unlocked = PyEval_SaveThread(); /* the GIL is released */
  const crowdsteer_status status =
      crowdsteer_pathway_nearest(self->path, q, point, &along);
  PyEval_RestoreThread(unlocked);
  if (status != CROWDSTEER_OK) return raise_status(status);
  PyObject *p = point_tuple(point, self->dims);
  return p ? Py_BuildValue("(Nd)", p, (double)along) : NULL;
}

static PyObject *Pathway_length(PathwayObject *self, void *closure) {
  (void)closure;
  return PyFloat_FromDouble((double)crowdsteer_pathway_length(self->path));
}

static PyObject *Pathway_bytes(PathwayObject *self, void *closure) {
  (void)closure;
  return PyLong_FromSize_t(crowdsteer_pathway_bytes(self->path));
}

static PyObject *Pathway_dims(PathwayObject *self, void *closure) {
  (void)closure;
  return PyLong_FromLong(self->dims);
}

static PyMethodDef Pathway_methods[] = {
    {"point_at", (PyCFunction)Pathway_point_at, METH_O,
     "point_at(distance)\n--\n\nThe path point at `distance` along the path (clamped, "
     "or wrapped when cyclic)."},
    {"nearest", (PyCFunction)Pathway_nearest, METH_O,
     "nearest(position)\n--\n\n(point, distance along the path) of the path point "
     "nearest "
     "`position` (ties: the lower segment)."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef Pathway_getset[] = {
    {"length", (getter)Pathway_length, NULL, "the path's length", NULL},
    {"bytes", (getter)Pathway_bytes, NULL, "memory the pathway holds", NULL},
    {"dims", (getter)Pathway_dims, NULL, "2 or 3", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

PyTypeObject Pathway_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "crowdsteer.Pathway",
    .tp_basicsize = sizeof(PathwayObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc =
        "Pathway(x, y, z=None, *, radius=0.0, cyclic=False)\n--\n\n"
        "A polyline with a radius (2D, or 3D with z), optionally closed; the points "
        "are copied and checked (crowdsteer_pathway_create).",
    .tp_new = Pathway_new,
    .tp_dealloc = (destructor)Pathway_dealloc,
    .tp_methods = Pathway_methods,
    .tp_getset = Pathway_getset,
};

/* ---- the follow description ------------------------------------------------ */

void path_follow_release(path_follow_c *p) {
  PyMem_Free(p->paths);
  Py_XDECREF(p->keep);
  memset(p, 0, sizeof *p);
}

/* An attribute of the follow object, or NULL with *absent set (no error). */
static PyObject *field(PyObject *obj, const char *name) {
  PyObject *v = PyObject_GetAttrString(obj, name);
  if (!v && PyErr_ExceptionMatches(PyExc_AttributeError)) PyErr_Clear();
  return v;
}

/* PathFollow's fields into the C struct. Numbers first, arrays last (see
 * _crowdsteer_behaviours.c); the pathways are held until release. */
int path_follow_to_c(PyObject *obj, const arg_name *name, int dims, Py_ssize_t count,
                     path_follow_c *out) {
  memset(out, 0, sizeof *out);
  PyObject *paths = field(obj, "paths"), *v;
  if (!paths) {
    if (!PyErr_Occurred())
      PyErr_Format(PyExc_TypeError,
                   "%s must be a crowdsteer.PathFollow (a `paths` sequence of Pathway), "
                   "not %.100s",
                   render(name).text, Py_TYPE(obj)->tp_name);
    return -1;
  }
  out->keep = PySequence_Tuple(paths);
  Py_DECREF(paths);
  if (!out->keep) return -1;
  const Py_ssize_t n = PyTuple_GET_SIZE(out->keep);
  out->paths = PyMem_Calloc(n ? (size_t)n : 1u, sizeof *out->paths);
  if (!out->paths) return PyErr_NoMemory(), -1;
  for (Py_ssize_t k = 0; k < n; k++) {
    PyObject *item = PyTuple_GET_ITEM(out->keep, k);
    if (!PyObject_TypeCheck(item, &Pathway_Type)) {
      PyErr_Format(PyExc_TypeError, "%s must be a crowdsteer.Pathway, not %.100s",
                   render(ITEM(NAME(name, "paths"), k)).text, Py_TYPE(item)->tp_name);
      return -1;
    }
    out->paths[k] = ((PathwayObject *)item)->path;
  }
  crowdsteer_path_follow *f = &out->follow;
  f->paths = (const crowdsteer_pathway *const *)out->paths;
  f->path_count = (size_t)n;
  /* One field at a time, stopping at the first error: no call may run with
   * an exception set (it would be lost, or returned as NULL without one). */
  int failed = 0;
  if ((v = field(obj, "path")) && v != Py_None)
    failed = uint32_from(v, NAME(name, "path"), &f->path) < 0;
  Py_XDECREF(v);
  if (failed || PyErr_Occurred()) return -1;
  if ((v = field(obj, "direction")) && v != Py_None)
    failed = int_from(v, NAME(name, "direction"), &f->direction) < 0;
  Py_XDECREF(v);
  if (failed || PyErr_Occurred()) return -1;
  if ((v = field(obj, "prediction_time")) && v != Py_None)
    failed = float32_from(v, NAME(name, "prediction_time"), &f->prediction_time) < 0;
  Py_XDECREF(v);
  if (failed || PyErr_Occurred()) return -1;
  if ((v = field(obj, "lead_distance")) && v != Py_None)
    failed = float32_from(v, NAME(name, "lead_distance"), &f->lead_distance) < 0;
  Py_XDECREF(v);
  if (failed || PyErr_Occurred()) return -1;
  (void)dims;
  v = field(obj, "path_per_agent");
  f->path_per_agent =
      v ? optional_array(v, NAME(name, "path_per_agent"), NPY_UINT32, count, &failed)
        : NULL;
  Py_XDECREF(v);
  if (failed || PyErr_Occurred()) return -1;
  v = field(obj, "direction_per_agent");
  f->direction_per_agent = v ? optional_array(v, NAME(name, "direction_per_agent"),
                                              NPY_FLOAT32, count, &failed)
                             : NULL;
  Py_XDECREF(v);
  return failed || PyErr_Occurred() ? -1 : 0;
}

int spans_add_path_follow(spans *s, const crowdsteer_path_follow *f, size_t count,
                          int behaviour, const char *field) {
  if (spans_add(s, f->path_per_agent, count * sizeof(uint32_t), behaviour, field,
                "path_per_agent", -1, 0) < 0)
    return -1;
  return spans_add(s, f->direction_per_agent, count * sizeof(float), behaviour, field,
                   "direction_per_agent", -1, 0);
}
