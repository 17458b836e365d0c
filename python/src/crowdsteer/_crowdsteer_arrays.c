/* crowdsteer._crowdsteer: the array checks, the overlap spans, and Agents,
 * whose arrays each call reads again (their memory can move between calls). */
#include "_crowdsteer.h"

#include <stdio.h>
#include <string.h>

/* ---- array checks -------------------------------------------------------------- */

/* The data of `obj` if it is a 1-D, C-contiguous, aligned, native-order array of
 * `typenum` with `count` elements (any length when count < 0), writeable when
 * the call writes it; otherwise NULL with a TypeError or ValueError naming it. */
void *array_data(PyObject *obj, const arg_name *arg, int typenum, Py_ssize_t count,
                 enum access access) {
  PyArrayObject *a = (PyArrayObject *)obj;
  if (PyArray_Check(obj) && PyArray_TYPE(a) == typenum && PyArray_ISNOTSWAPPED(a) &&
      PyArray_NDIM(a) == 1 && PyArray_IS_C_CONTIGUOUS(a) && PyArray_ISALIGNED(a) &&
      (access == READS || PyArray_ISWRITEABLE(a)) &&
      (count < 0 || PyArray_DIM(a, 0) == count))
    return PyArray_DATA(a);
  /* Which rule failed, said with the argument's name. */
  const char *type_name = typenum == NPY_FLOAT32 ? "float32" : "uint32";
  const rendered_name rendered = render(arg);
  const char *name = rendered.text;
  if (!PyArray_Check(obj)) {
    PyErr_Format(PyExc_TypeError, "%s must be a numpy.ndarray of %s, not %.100s", name,
                 type_name, Py_TYPE(obj)->tp_name);
    return NULL;
  }
  if (PyArray_TYPE(a) != typenum || !PyArray_ISNOTSWAPPED(a)) {
    PyObject *dtype = PyObject_Str((PyObject *)PyArray_DESCR(a));
    PyErr_Format(PyExc_TypeError, "%s must have dtype %s (native byte order), not %S",
                 name, type_name, dtype ? dtype : Py_None);
    Py_XDECREF(dtype);
    return NULL;
  }
  if (PyArray_NDIM(a) != 1) {
    PyErr_Format(PyExc_ValueError, "%s must be 1-dimensional, not %d-dimensional", name,
                 PyArray_NDIM(a));
    return NULL;
  }
  if (!PyArray_IS_C_CONTIGUOUS(a) || !PyArray_ISALIGNED(a)) {
    PyErr_Format(PyExc_ValueError,
                 "%s must be C-contiguous and aligned (crowdsteer uses arrays in "
                 "place; pass numpy.ascontiguousarray(...))",
                 name);
    return NULL;
  }
  if (access == WRITES && !PyArray_ISWRITEABLE(a)) {
    PyErr_Format(PyExc_ValueError, "%s is read-only, but this call writes it", name);
    return NULL;
  }
  PyErr_Format(PyExc_ValueError, "%s has %zd elements, but the agents' count is %zd",
               name, (Py_ssize_t)PyArray_DIM(a, 0), count);
  return NULL;
}

float *float_array(PyObject *obj, const arg_name *name, Py_ssize_t count,
                   enum access access) {
  return (float *)array_data(obj, name, NPY_FLOAT32, count, access);
}

/* An optional per-agent array: None gives NULL without error (*failed = 0). */
void *optional_array(PyObject *obj, const arg_name *name, int typenum, Py_ssize_t count,
                     int *failed) {
  if (!obj || obj == Py_None) return NULL;
  void *data = array_data(obj, name, typenum, count, READS);
  *failed |= data == NULL;
  return data;
}

/* A tuple or list of `dims` arrays (x, y[, z]) as crowdsteer_vectors. With
 * keep, the arrays are referenced into keep[] (the caller releases them) so
 * that they outlive the call even if another thread changes the list. */
int vectors_from(PyObject *seq, const arg_name *arg, int dims, Py_ssize_t count,
                 enum access access, crowdsteer_vectors *out, PyObject *keep[3]) {
  if (!PyTuple_Check(seq) && !PyList_Check(seq)) {
    PyErr_Format(PyExc_TypeError,
                 "%s must be a tuple of %d float32 arrays (x, y%s), not %.100s",
                 render(arg).text, dims, dims == 3 ? ", z" : "", Py_TYPE(seq)->tp_name);
    return -1;
  }
  if (PySequence_Fast_GET_SIZE(seq) != dims) {
    PyErr_Format(PyExc_ValueError, "%s must hold %d arrays (the agents are %dD), not %zd",
                 render(arg).text, dims, dims, PySequence_Fast_GET_SIZE(seq));
    return -1;
  }
  float *axes[3] = {NULL, NULL, NULL};
  for (int k = 0; k < dims; k++) {
    PyObject *item = PySequence_Fast_GET_ITEM(seq, k);
    axes[k] = float_array(item, ITEM(arg, k), count, access);
    if (!axes[k]) return -1;
  }
  for (int k = 0; keep && k < dims; k++)
    keep[k] = Py_NewRef(PySequence_Fast_GET_ITEM(seq, k));
  out->x = axes[0];
  out->y = axes[1];
  out->z = axes[2];
  return 0;
}

static const char *const agent_field_names[6] = {"px", "py", "pz", "vx", "vy", "vz"};

static float **agents_slot(crowdsteer_agents *c, int field) {
  float **slots[6] = {&c->px, &c->py, &c->pz, &c->vx, &c->vy, &c->vz};
  return slots[field];
}

/* ---- overlaps ------------------------------------------------------------------- */

void spans_init(spans *s) {
  s->items = s->local;
  s->n = 0;
  s->capacity = sizeof s->local / sizeof s->local[0];
}

void spans_free(spans *s) {
  if (s->items != s->local) PyMem_Free(s->items);
  spans_init(s);
}

int spans_add(spans *s, const void *data, size_t bytes, int behaviour, const char *field,
              const char *sub, int index, int written) {
  if (!data || bytes == 0) return 0;
  if (s->n == s->capacity) {
    size_t capacity = 2 * s->capacity;
    span *items = PyMem_Malloc(capacity * sizeof *items);
    if (!items) {
      PyErr_NoMemory();
      return -1;
    }
    memcpy(items, s->items, s->n * sizeof *items);
    if (s->items != s->local) PyMem_Free(s->items);
    s->items = items;
    s->capacity = capacity;
  }
  s->items[s->n++] = (span){
      (uintptr_t)data, (uintptr_t)data + bytes, behaviour, field, sub, index, written};
  return 0;
}

int spans_add_vectors(spans *s, const crowdsteer_vectors *v, int dims, size_t count,
                      int behaviour, const char *field, const char *sub, int written) {
  const float *axes[3] = {v->x, v->y, v->z};
  for (int k = 0; k < dims; k++)
    if (spans_add(s, axes[k], count * sizeof(float), behaviour, field, sub, k, written) <
        0)
      return -1;
  return 0;
}

int spans_add_agents(spans *s, const crowdsteer_agents *a, const char *field,
                     int written) {
  for (int f = 0; f < 6; f++)
    if (spans_add(s, *agents_slot((crowdsteer_agents *)a, f), a->count * sizeof(float),
                  -1, field, agent_field_names[f], -1, written) < 0)
      return -1;
  return spans_add(s, a->id, a->count * sizeof(uint32_t), -1, field, "id", -1, 0);
}

static void span_name(const span *p, char *buf, size_t size) {
  int n = 0;
  buf[0] = '\0';
  if (p->behaviour >= 0) n = snprintf(buf, size, "behaviours[%d].", p->behaviour);
  n += snprintf(buf + n, size - (size_t)n, "%s%s%s", p->field, p->sub ? "." : "",
                p->sub ? p->sub : "");
  if (p->index >= 0) snprintf(buf + n, size - (size_t)n, "[%d]", p->index);
}

/* Whether two spans are one array in one role: one WanderState in two wander
 * behaviours of a step, each agent updating it through the one it uses. */
static int same_role(const span *a, const span *b) {
  return a->begin == b->begin && a->end == b->end && a->index == b->index &&
         strcmp(a->field, b->field) == 0 &&
         (a->sub == b->sub || (a->sub && b->sub && !strcmp(a->sub, b->sub)));
}

/* An OverlapError (a crowdsteer.Error and a ValueError) naming the first
 * written span that shares memory with a span of another argument. Spans of
 * one argument (the agents' px and vx, say) are not compared with each other. */
int check_spans(const spans *s) {
  for (size_t w = 0; w < s->n; w++) {
    const span *a = &s->items[w];
    if (!a->written) continue;
    for (size_t r = 0; r < s->n; r++) {
      const span *b = &s->items[r];
      /* The address test first: it is the one that almost always decides. */
      if (a->begin >= b->end || b->begin >= a->end || r == w || (b->written && r < w) ||
          (a->behaviour == b->behaviour && strcmp(a->field, b->field) == 0) ||
          (b->written && same_role(a, b)))
        continue;
      char written[96], other[96];
      span_name(a, written, sizeof written);
      span_name(b, other, sizeof other);
      PyErr_Format(overlap_class(),
                   "%s shares memory with %s, which this call %s while writing %s",
                   written, other, b->written ? "also writes" : "reads", written);
      return -1;
    }
  }
  return 0;
}

void release(PyObject **keep, int n) {
  for (int i = 0; i < n; i++)
    Py_CLEAR(keep[i]);
}

/* ---- Agents ------------------------------------------------------------------ */

/* The agents for one call, from the arrays as they are now (their flags can
 * change after construction, their memory can move), checked for whether the
 * call may write them. Call it after every conversion that can run Python
 * code (__index__, __float__ of the other arguments), which could move them. */
int agents_to_c(AgentsObject *a, const char *name, enum access access,
                crowdsteer_agents *out) {
  memset(out, 0, sizeof *out);
  out->count = a->count;
  out->dims = a->dims;
  for (int f = 0; f < 6; f++) {
    if (!a->arrays[f]) continue;
    float *data = float_array(a->arrays[f], NAME(NAME(NULL, name), agent_field_names[f]),
                              (Py_ssize_t)a->count, access);
    if (!data) return -1;
    *agents_slot(out, f) = data;
  }
  if (a->id) {
    out->id = array_data(a->id, NAME(NAME(NULL, name), "id"), NPY_UINT32,
                         (Py_ssize_t)a->count, READS);
    if (!out->id) return -1;
  }
  return 0;
}

/* The Agents object itself (no arrays read yet: see agents_to_c). */
AgentsObject *as_agents(PyObject *obj, const char *name) {
  if (!PyObject_TypeCheck(obj, &Agents_Type)) {
    PyErr_Format(PyExc_TypeError, "%s must be a crowdsteer.Agents, not %.100s", name,
                 Py_TYPE(obj)->tp_name);
    return NULL;
  }
  return (AgentsObject *)obj;
}

static PyObject *Agents_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"px", "py", "vx", "vy", "pz", "vz", "id", NULL};
  PyObject *given[6] = {NULL}; /* in kwlist order */
  PyObject *id = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOO|OOO:Agents", kwlist, &given[0],
                                   &given[1], &given[3], &given[4], &given[2], &given[5],
                                   &id))
    return NULL;
  if (id == Py_None) id = NULL;
  /* given[] is now in field order px py pz vx vy vz. */
  for (int f = 2; f < 6; f += 3)
    if (given[f] == Py_None) given[f] = NULL;
  if ((given[2] == NULL) != (given[5] == NULL)) {
    PyErr_SetString(PyExc_TypeError, "Agents: give both pz and vz (3D) or neither (2D)");
    return NULL;
  }
  Py_ssize_t count = -1;
  for (int f = 0; f < 6; f++) {
    if (!given[f]) continue;
    const char *field_name = agent_field_names[f];
    if (!float_array(given[f], NAME(NULL, field_name), -1, READS)) return NULL;
    Py_ssize_t length = PyArray_DIM((PyArrayObject *)given[f], 0);
    if (count >= 0 && length != count) {
      PyErr_Format(PyExc_ValueError,
                   "Agents: %s has %zd elements, but px has %zd (one length for all)",
                   field_name, length, count);
      return NULL;
    }
    count = length;
  }
  if (id && !array_data(id, NAME(NULL, "id"), NPY_UINT32, count, READS)) return NULL;
  AgentsObject *self = (AgentsObject *)type->tp_alloc(type, 0);
  if (!self) return NULL;
  self->id = Py_XNewRef(id);
  self->count = (size_t)count;
  self->dims = given[2] ? 3 : 2;
  for (int f = 0; f < 6; f++)
    self->arrays[f] = Py_XNewRef(given[f]);
  return (PyObject *)self;
}

static void Agents_dealloc(AgentsObject *self) {
  release(self->arrays, 6);
  Py_CLEAR(self->id);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Agents_field(AgentsObject *self, void *closure) {
  PyObject *a = self->arrays[(intptr_t)closure];
  return Py_NewRef(a ? a : Py_None);
}

static PyObject *Agents_id(AgentsObject *self, void *closure) {
  (void)closure;
  return Py_NewRef(self->id ? self->id : Py_None);
}

static PyObject *Agents_count(AgentsObject *self, void *closure) {
  (void)closure;
  return PyLong_FromSize_t(self->count);
}

static PyObject *Agents_dims(AgentsObject *self, void *closure) {
  (void)closure;
  return PyLong_FromLong(self->dims);
}

/* The addresses a call would hand the library now, for the zero-copy tests
 * (0 for an absent z array). */
static PyObject *Agents_pointers(AgentsObject *self, PyObject *unused) {
  (void)unused;
  PyObject *d = PyDict_New();
  for (int f = 0; d && f < 6; f++) {
    PyObject *a = self->arrays[f];
    PyObject *v = PyLong_FromVoidPtr(a ? PyArray_DATA((PyArrayObject *)a) : NULL);
    if (!v || PyDict_SetItemString(d, agent_field_names[f], v) < 0) Py_CLEAR(d);
    Py_XDECREF(v);
  }
  return d;
}

static PyGetSetDef Agents_getset[] = {
    {"px", (getter)Agents_field, NULL, "positions, x", (void *)0},
    {"py", (getter)Agents_field, NULL, "positions, y", (void *)1},
    {"pz", (getter)Agents_field, NULL, "positions, z (None in 2D)", (void *)2},
    {"vx", (getter)Agents_field, NULL, "velocities, x", (void *)3},
    {"vy", (getter)Agents_field, NULL, "velocities, y", (void *)4},
    {"vz", (getter)Agents_field, NULL, "velocities, z (None in 2D)", (void *)5},
    {"id", (getter)Agents_id, NULL, "stable agent ids, uint32 (None: the index)", NULL},
    {"count", (getter)Agents_count, NULL, "number of agents (the arrays' length)", NULL},
    {"dims", (getter)Agents_dims, NULL, "2 or 3", NULL},
    {NULL}};

static PyMethodDef Agents_methods[] = {{"_pointers", (PyCFunction)Agents_pointers,
                                        METH_NOARGS,
                                        "Data addresses passed to the library (tests)."},
                                       {NULL}};

PyTypeObject Agents_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "crowdsteer.Agents",
    .tp_basicsize = sizeof(AgentsObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Agents(px, py, vx, vy, pz=None, vz=None, id=None)\n--\n\n"
              "A batch of agents: positions and velocities as float32 arrays of one "
              "length (the count), used in place. 3D when pz and vz are given. id: "
              "stable agent ids (uint32, one per agent) for wander's random stream "
              "and the neighbour tie-breaks; None: the index is the id.\n\n"
              "It holds the arrays, not their memory: every call reads each array's "
              "data address, flags and length as they are then, so an array resized "
              "in place or given new memory between calls is used where it is now "
              "(a changed length raises ValueError naming it). Every other object "
              "holding arrays (Target, Params, WanderState, Neighbours, Behaviour) "
              "does the same. Moving an array's memory while a call that uses it "
              "runs in another thread is the host's error, as in C.",
    .tp_new = Agents_new,
    .tp_dealloc = (destructor)Agents_dealloc,
    .tp_getset = Agents_getset,
    .tp_methods = Agents_methods,
};
