/* crowdsteer._crowdsteer: the CPython and NumPy binding of the crowdsteer C
 * API. Arrays are used in place (zero-copy); every argument is checked before
 * the library runs, and the library runs with the GIL released. The tables
 * below (statuses, constants, parameters, target kinds, behaviours) are the
 * only places that list the C API, so a new field or status is one row. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "crowdsteer.h"

/* CROWDSTEER_ERROR_OVERLAP = 11 (a written array overlaps one the call reads)
 * comes with the library's overlap checks. An enum constant is invisible to
 * #ifndef, so the binding spells the number; tests/test_arguments.py checks
 * it against the header once the header has it. The binding's own overlap
 * checks raise the same class. */
enum { STATUS_OVERLAP = 11 };

/* ---- tables ---------------------------------------------------------------- */

/* Every crowdsteer_status but OK; each becomes crowdsteer.<CamelCase>Error.
 * tests/test_arguments.py checks this list against include/crowdsteer.h. */
static const struct status_row {
  crowdsteer_status status;
  const char *c_name; /* without the CROWDSTEER_ERROR_ prefix */
} status_rows[] = {
    {CROWDSTEER_ERROR_NULL_POINTER, "NULL_POINTER"},
    {CROWDSTEER_ERROR_DIMS, "DIMS"},
    {CROWDSTEER_ERROR_RANGE, "RANGE"},
    {CROWDSTEER_ERROR_PARAMETER, "PARAMETER"},
    {CROWDSTEER_ERROR_AGENT_INDEX, "AGENT_INDEX"},
    {CROWDSTEER_ERROR_UNKNOWN_ISA, "UNKNOWN_ISA"},
    {CROWDSTEER_ERROR_UNSUPPORTED_ISA, "UNSUPPORTED_ISA"},
    {CROWDSTEER_ERROR_OUT_OF_MEMORY, "OUT_OF_MEMORY"},
    {CROWDSTEER_ERROR_GRID, "GRID"},
    {CROWDSTEER_ERROR_ALIGNMENT, "ALIGNMENT"},
    {(crowdsteer_status)STATUS_OVERLAP, "OVERLAP"},
};
enum { STATUS_ROWS = sizeof status_rows / sizeof status_rows[0] };

/* Integer constants exported as module attributes. */
static const struct constant_row {
  const char *name;
  long value;
} constant_rows[] = {
    {"TARGET_POINT", CROWDSTEER_TARGET_POINT},
    {"TARGET_ARRAYS", CROWDSTEER_TARGET_ARRAYS},
    {"TARGET_AGENTS", CROWDSTEER_TARGET_AGENTS},
    {"TARGET_AGENT", CROWDSTEER_TARGET_AGENT},
    {"OVERWRITE", CROWDSTEER_OVERWRITE},
    {"ACCUMULATE", CROWDSTEER_ACCUMULATE},
    {"BLEND", CROWDSTEER_BLEND},
    {"PRIORITY", CROWDSTEER_PRIORITY},
    {"STEP_MAX_BEHAVIOURS", CROWDSTEER_STEP_MAX_BEHAVIOURS},
    {"ISA_SCALAR", CROWDSTEER_ISA_SCALAR},
    {"ISA_SSE4", CROWDSTEER_ISA_SSE4},
    {"ISA_AVX2", CROWDSTEER_ISA_AVX2},
    {"ISA_AVX512", CROWDSTEER_ISA_AVX512},
    {"ISA_NEON", CROWDSTEER_ISA_NEON},
    {"ISA_COUNT", CROWDSTEER_ISA_COUNT},
    {"MAX_NEIGHBOURS", CROWDSTEER_MAX_NEIGHBOURS},
};

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

/* ---- errors ------------------------------------------------------------------ */

/* PyModule_AddObjectRef, taking over `obj` (a new reference, or NULL after a
 * failure) whatever happens. */
static int add_owned(PyObject *module, const char *name, PyObject *obj) {
  if (!obj) return -1;
  int result = PyModule_AddObjectRef(module, name, obj);
  Py_DECREF(obj);
  return result;
}

static PyObject *error_base;                 /* crowdsteer.Error */
static PyObject *error_classes[STATUS_ROWS]; /* one per status_rows entry */

static PyObject *overlap_class(void) {
  for (int i = 0; i < STATUS_ROWS; i++)
    if (status_rows[i].status == (crowdsteer_status)STATUS_OVERLAP)
      return error_classes[i];
  return PyExc_ValueError;
}

/* Raises the exception of a library status; returns NULL. */
static PyObject *raise_status(crowdsteer_status status) {
  for (int i = 0; i < STATUS_ROWS; i++)
    if (status_rows[i].status == status) {
      PyErr_SetString(error_classes[i], crowdsteer_status_string(status));
      return NULL;
    }
  PyErr_Format(error_base, "%s (status %d)", crowdsteer_status_string(status),
               (int)status);
  return NULL;
}

/* "NULL_POINTER" -> "NullPointerError". */
static void class_name_of(const char *c_name, char *out, size_t size) {
  size_t n = 0;
  int upper = 1;
  for (const char *c = c_name; *c && n + 6 < size; c++) {
    if (*c == '_') {
      upper = 1;
      continue;
    }
    out[n++] = upper ? *c : (char)(*c - 'A' + 'a');
    upper = 0;
  }
  memcpy(out + n, "Error", 6);
}

static int add_errors(PyObject *module) {
  error_base = PyErr_NewExceptionWithDoc(
      "crowdsteer.Error",
      "A crowdsteer library call returned an error status. Each status has its "
      "own subclass; `status` is the library's status number.",
      NULL, NULL);
  if (!error_base || PyObject_SetAttrString(error_base, "status", Py_None) < 0 ||
      PyModule_AddObjectRef(module, "Error", error_base) < 0)
    return -1;
  PyObject *by_status = PyDict_New();
  if (!by_status) return -1;
  for (int i = 0; i < STATUS_ROWS; i++) {
    char short_name[64], full_name[80];
    class_name_of(status_rows[i].c_name, short_name, sizeof short_name);
    snprintf(full_name, sizeof full_name, "crowdsteer.%s", short_name);
    const char *doc = crowdsteer_status_string(status_rows[i].status);
    /* An overlap is a bad argument that the binding finds itself too (naming
     * the arrays), so catching ValueError catches it whichever layer saw it. */
    PyObject *bases = status_rows[i].status == (crowdsteer_status)STATUS_OVERLAP
                          ? PyTuple_Pack(2, error_base, PyExc_ValueError)
                          : Py_NewRef(error_base);
    PyObject *cls = bases ? PyErr_NewExceptionWithDoc(full_name, doc, bases, NULL) : NULL;
    Py_XDECREF(bases);
    PyObject *code = PyLong_FromLong((long)status_rows[i].status);
    int failed = !cls || !code || PyObject_SetAttrString(cls, "status", code) < 0 ||
                 PyDict_SetItem(by_status, code, cls) < 0 ||
                 PyModule_AddObjectRef(module, short_name, cls) < 0;
    Py_XDECREF(code);
    error_classes[i] = cls;
    if (failed) {
      Py_DECREF(by_status);
      return -1;
    }
  }
  return add_owned(module, "errors_by_status", by_status);
}

/* ---- array checks -------------------------------------------------------------- */

enum access { READS = 0, WRITES = 1 };

/* An argument's name for error messages, parent.field[index] (no index when
 * index < 0), chained on the stack and rendered only when an error is raised:
 * formatting names for every check would cost more than the checks. */
typedef struct arg_name {
  const struct arg_name *parent;
  const char *field;
  Py_ssize_t index;
} arg_name;
#define NAME(parent, field) (&(const arg_name){(parent), (field), -1})
#define ITEM(parent, i) (&(const arg_name){(parent), NULL, (i)})

typedef struct rendered_name {
  char text[192];
} rendered_name;

static void render_into(const arg_name *n, char *buf, size_t size) {
  if (!n) return;
  render_into(n->parent, buf, size);
  size_t used = strlen(buf);
  if (n->field) snprintf(buf + used, size - used, "%s%s", used ? "." : "", n->field);
  used = strlen(buf);
  if (n->index >= 0) snprintf(buf + used, size - used, "[%zd]", n->index);
}

static rendered_name render(const arg_name *n) {
  rendered_name r = {{0}};
  render_into(n, r.text, sizeof r.text);
  return r;
}

/* ---- numbers ------------------------------------------------------------------ */

/* Every integer argument goes through here: a Python int or anything with
 * __index__ (NumPy integer scalars), never a float or a str; outside [lo, hi],
 * the range of the C field it fills, is an OverflowError naming it. The C
 * API takes fixed-width fields, and a wrapped value (2**64 + 3 as 3, -1 as
 * 0xFFFFFFFF) would be a different, valid-looking request. */
static int integer_from(PyObject *obj, const arg_name *name, long long lo, long long hi,
                        long long *out) {
  PyObject *index = PyNumber_Index(obj);
  if (!index) {
    if (!PyErr_ExceptionMatches(PyExc_TypeError)) return -1;
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "%s must be an integer, not %.100s", render(name).text,
                 Py_TYPE(obj)->tp_name);
    return -1;
  }
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(index, &overflow);
  if (v == -1 && PyErr_Occurred()) {
    Py_DECREF(index);
    return -1;
  }
  if (overflow || v < lo || v > hi) {
    PyErr_Format(PyExc_OverflowError, "%s must be an integer from %lld to %lld, not %S",
                 render(name).text, lo, hi, index);
    Py_DECREF(index);
    return -1;
  }
  Py_DECREF(index);
  *out = v;
  return 0;
}

/* integer_from for one C type: uint32_t fields, int fields (enums included:
 * the library judges which values mean something, an unknown mode is its
 * ParameterError) and size_t fields (counts, indices, table and tile sizes). */
#define INTEGER_FROM(fn, type, lo, hi)                                                   \
  static int fn(PyObject *obj, const arg_name *name, type *out) {                        \
    long long v;                                                                         \
    if (integer_from(obj, name, (lo), (hi), &v) < 0) return -1;                          \
    *out = (type)v;                                                                      \
    return 0;                                                                            \
  }
INTEGER_FROM(uint32_from, uint32_t, 0, UINT32_MAX)
INTEGER_FROM(int_from, int, INT_MIN, INT_MAX)
INTEGER_FROM(size_from, size_t, 0, PY_SSIZE_T_MAX)

/* Every float argument goes through here: the C API takes float32, and a
 * field left at 0 means its default, so a nonzero number that rounds to 0
 * (1e-50) would silently become the default (max_speed 1) and one beyond
 * float32 would become infinite: both are errors naming the field, for every
 * float argument alike (one rule, whether or not 0 is a default there). NaN and
 * infinity pass as given (the library refuses them where they are invalid).
 * Subnormal float32 results are kept: the library computes with denormals
 * (src/fpenv.c), so they keep their meaning. */
static int float32_from(PyObject *obj, const arg_name *name, float *out) {
  double d = PyFloat_AsDouble(obj);
  if (d == -1.0 && PyErr_Occurred()) {
    if (PyErr_ExceptionMatches(PyExc_OverflowError)) { /* an int beyond double */
      PyErr_Clear();
      PyErr_Format(PyExc_OverflowError, "%s = %S does not fit in float32",
                   render(name).text, obj);
    } else if (PyErr_ExceptionMatches(PyExc_TypeError)) {
      PyErr_Clear();
      PyErr_Format(PyExc_TypeError, "%s must be a number, not %.100s", render(name).text,
                   Py_TYPE(obj)->tp_name);
    }
    return -1;
  }
  const float f = (float)d;
  const int overflows = isinf(f) && isfinite(d), underflows = f == 0.0f && d != 0.0;
  if (overflows || underflows) {
    PyObject *given = PyFloat_FromDouble(d);
    PyObject *bound = PyFloat_FromDouble(overflows ? (double)FLT_MAX : FLT_TRUE_MIN);
    if (given && bound && overflows)
      PyErr_Format(PyExc_OverflowError,
                   "%s = %R does not fit in float32 (largest finite: %R)",
                   render(name).text, given, bound);
    else if (given && bound)
      PyErr_Format(PyExc_ValueError,
                   "%s = %R underflows to 0 in float32 (where 0 often means the "
                   "default): give 0, or a magnitude of at least %R",
                   render(name).text, given, bound);
    Py_XDECREF(given);
    Py_XDECREF(bound);
    return -1;
  }
  *out = f;
  return 0;
}

/* The data of `obj` if it is a 1-D, C-contiguous, aligned, native-order array of
 * `typenum` with `count` elements (any length when count < 0), writeable when
 * the call writes it; otherwise NULL with a TypeError or ValueError naming it. */
static void *array_data(PyObject *obj, const arg_name *arg, int typenum, Py_ssize_t count,
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

static float *float_array(PyObject *obj, const arg_name *name, Py_ssize_t count,
                          enum access access) {
  return (float *)array_data(obj, name, NPY_FLOAT32, count, access);
}

/* An optional per-agent array: None gives NULL without error (*failed = 0). */
static void *optional_array(PyObject *obj, const arg_name *name, int typenum,
                            Py_ssize_t count, int *failed) {
  if (!obj || obj == Py_None) return NULL;
  void *data = array_data(obj, name, typenum, count, READS);
  *failed |= data == NULL;
  return data;
}

/* A tuple or list of `dims` arrays (x, y[, z]) as crowdsteer_vectors. With
 * keep, the arrays are referenced into keep[] (the caller releases them) so
 * that they outlive the call even if another thread changes the list. */
static int vectors_from(PyObject *seq, const arg_name *arg, int dims, Py_ssize_t count,
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

/* The library may not write an array that the same call reads or writes
 * through another argument: its results would depend on the order of its
 * work (tiles, threads, SIMD lanes). A call lists the memory it hands the
 * library, each span named by where it came from (rendered only for an
 * error), and every written span is checked against every other span of
 * another argument before the library runs. The library checks the same
 * (CROWDSTEER_ERROR_OVERLAP); here the error can name both arrays. */
typedef struct span {
  uintptr_t begin, end; /* bytes [begin, end) */
  int behaviour;        /* behaviours[behaviour] of a step, or -1 */
  const char *field;    /* "steering", "target", "agents", ... */
  const char *sub;      /* "position", "px", "max_speed_per_agent", or NULL */
  int index;            /* [index] of a tuple of arrays, or -1 */
  int written;
} span;

typedef struct spans {
  span *items;
  size_t n, capacity;
  span local[32]; /* a behaviour call needs no more (30); a step may grow */
} spans;

static void spans_init(spans *s) {
  s->items = s->local;
  s->n = 0;
  s->capacity = sizeof s->local / sizeof s->local[0];
}

static void spans_free(spans *s) {
  if (s->items != s->local) PyMem_Free(s->items);
  spans_init(s);
}

static int spans_add(spans *s, const void *data, size_t bytes, int behaviour,
                     const char *field, const char *sub, int index, int written) {
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

static int spans_add_vectors(spans *s, const crowdsteer_vectors *v, int dims,
                             size_t count, int behaviour, const char *field,
                             const char *sub, int written) {
  const float *axes[3] = {v->x, v->y, v->z};
  for (int k = 0; k < dims; k++)
    if (spans_add(s, axes[k], count * sizeof(float), behaviour, field, sub, k, written) <
        0)
      return -1;
  return 0;
}

static int spans_add_agents(spans *s, const crowdsteer_agents *a, const char *field,
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
static int check_spans(const spans *s) {
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

/* The arrays the last call handed the library to write, for the zero-copy
 * tests (addresses only). */
static const void *last_written[6];

static void remember_written(const void *a, const void *b, const void *c) {
  memset(last_written, 0, sizeof last_written);
  last_written[0] = a;
  last_written[1] = b;
  last_written[2] = c;
}

static void release(PyObject **keep, int n) {
  for (int i = 0; i < n; i++)
    Py_CLEAR(keep[i]);
}

/* ---- Agents ------------------------------------------------------------------ */

/* No data address is kept: NumPy lets the host move an array's memory
 * between two calls (ndarray.resize(refcheck=False), assigning .data), so
 * each call reads the addresses, flags and lengths again (agents_to_c). The
 * count and dims are the Agents' own and never change. */
typedef struct {
  PyObject_HEAD PyObject *arrays[6]; /* px py pz vx vy vz; z entries NULL in 2D */
  PyObject *id;                      /* uint32 stable ids, or NULL */
  size_t count;
  int dims;
} AgentsObject;

static PyTypeObject Agents_Type;

/* The agents for one call, from the arrays as they are now (their flags can
 * change after construction, their memory can move), checked for whether the
 * call may write them. Call it after every conversion that can run Python
 * code (__index__, __float__ of the other arguments), which could move them. */
static int agents_to_c(AgentsObject *a, const char *name, enum access access,
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
static AgentsObject *as_agents(PyObject *obj, const char *name) {
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

static PyTypeObject Agents_Type = {
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

/* ---- Params (immutable; replace() makes a changed copy) -------------------- */

typedef struct {
  PyObject_HEAD crowdsteer_params c;
  PyObject *arrays[PARAM_ARRAYS];
} ParamsObject;

static PyTypeObject Params_Type;

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
static int params_to_c(PyObject *obj, const arg_name *name, Py_ssize_t count,
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

static PyTypeObject Params_Type = {
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

static PyTypeObject Target_Type;

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
static int target_to_c(PyObject *obj, const arg_name *name, int dims, Py_ssize_t count,
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

static PyTypeObject Target_Type = {
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

static PyTypeObject Wander_Type;

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
static int wander_to_c(PyObject *obj, const arg_name *name, int dims, Py_ssize_t count,
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

static PyTypeObject Wander_Type = {
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

/* ---- Behaviour (one entry of a step) ------------------------------------------ */

typedef struct {
  PyObject_HEAD int kind;
  PyObject *target, *params, *wander, *weight_per_agent; /* None when unset */
  PyObject *neighbours;
  float weight;
} BehaviourObject;

static PyTypeObject Behaviour_Type;

static PyObject *Behaviour_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"kind",   "target",           "params",     "wander",
                           "weight", "weight_per_agent", "neighbours", NULL};
  int kind;
  PyObject *kind_obj, *target = Py_None, *params = Py_None, *wander = Py_None,
                      *weight_obj = NULL, *weights = Py_None, *neighbours = Py_None;
  float weight = 1.0f;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OOOOOO:Behaviour", kwlist, &kind_obj,
                                   &target, &params, &wander, &weight_obj, &weights,
                                   &neighbours) ||
      int_from(kind_obj, NAME(NULL, "kind"), &kind) < 0 ||
      (weight_obj && float32_from(weight_obj, NAME(NULL, "weight"), &weight) < 0))
    return NULL;
  BehaviourObject *self = (BehaviourObject *)type->tp_alloc(type, 0);
  if (!self) return NULL;
  self->kind = kind;
  self->target = Py_NewRef(target);
  self->params = Py_NewRef(params);
  self->wander = Py_NewRef(wander);
  self->weight_per_agent = Py_NewRef(weights);
  self->neighbours = Py_NewRef(neighbours);
  self->weight = weight;
  return (PyObject *)self;
}

static void Behaviour_dealloc(BehaviourObject *self) {
  Py_XDECREF(self->target);
  Py_XDECREF(self->params);
  Py_XDECREF(self->wander);
  Py_XDECREF(self->weight_per_agent);
  Py_XDECREF(self->neighbours);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMemberDef Behaviour_members[] = {
    {"kind", T_INT, offsetof(BehaviourObject, kind), READONLY, "SEEK ... WANDER"},
    {"target", T_OBJECT, offsetof(BehaviourObject, target), READONLY, "its Target"},
    {"params", T_OBJECT, offsetof(BehaviourObject, params), READONLY, "its Params"},
    {"wander", T_OBJECT, offsetof(BehaviourObject, wander), READONLY,
     "its WanderState (wander only)"},
    {"weight", T_FLOAT, offsetof(BehaviourObject, weight), READONLY,
     "weight of its steering (0 means 1)"},
    {"weight_per_agent", T_OBJECT, offsetof(BehaviourObject, weight_per_agent), READONLY,
     "per-agent weights (float32) or None"},
    {"neighbours", T_OBJECT, offsetof(BehaviourObject, neighbours), READONLY,
     "its Neighbours (separation, cohesion, alignment)"},
    {NULL}};

static PyTypeObject Behaviour_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "crowdsteer.Behaviour",
    .tp_basicsize = sizeof(BehaviourObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Behaviour(kind, target=None, params=None, wander=None, weight=1.0, "
              "weight_per_agent=None, neighbours=None)\n--\n\n"
              "One behaviour of a mixed step (crowdsteer_step_behaviour). Immutable.",
    .tp_new = Behaviour_new,
    .tp_dealloc = (destructor)Behaviour_dealloc,
    .tp_members = Behaviour_members,
};

/* ---- Grid and Neighbours ----------------------------------------------------- */

typedef struct {
  PyObject_HEAD crowdsteer_grid *grid;
  /* Calls using the grid with the GIL released; a build waits for none. */
  int users, building;
} GridObject;

static PyTypeObject Grid_Type;

static PyObject *Grid_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  if (!PyArg_ParseTuple(args, ":Grid") || (kwargs && PyDict_GET_SIZE(kwargs))) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "Grid() takes no arguments");
    return NULL;
  }
  GridObject *self = (GridObject *)type->tp_alloc(type, 0);
  if (!self) return NULL;
  crowdsteer_status status = crowdsteer_grid_create(&self->grid);
  if (status != CROWDSTEER_OK) {
    Py_DECREF(self);
    return raise_status(status);
  }
  return (PyObject *)self;
}

static void Grid_dealloc(GridObject *self) {
  crowdsteer_grid_destroy(self->grid);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

/* One thread at a time may build a grid, and never while it is queried. */
static int grid_claim(GridObject *g, int build) {
  if (g->building || (build && g->users)) {
    PyErr_SetString(PyExc_RuntimeError,
                    "crowdsteer.Grid is being built or queried in another thread");
    return -1;
  }
  if (build)
    g->building = 1;
  else
    g->users++;
  return 0;
}

static void grid_unclaim(GridObject *g, int build) {
  if (build)
    g->building = 0;
  else
    g->users--;
}

static PyObject *Grid_build(GridObject *self, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"agents",  "cell_size",      "table_size", "group",
                           "threads", "positions_only", NULL};
  PyObject *agents_obj, *cell_size, *table_size = NULL, *group = Py_None, *threads = NULL;
  crowdsteer_grid_desc desc = {0};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|$OOOp:build", kwlist, &agents_obj,
                                   &cell_size, &table_size, &group, &threads,
                                   &desc.positions_only))
    return NULL;
  AgentsObject *a = as_agents(agents_obj, "agents");
  crowdsteer_agents agents;
  if (!a || float32_from(cell_size, NAME(NULL, "cell_size"), &desc.cell_size) < 0 ||
      (table_size &&
       size_from(table_size, NAME(NULL, "table_size"), &desc.table_size) < 0) ||
      (threads && int_from(threads, NAME(NULL, "threads"), &desc.threads) < 0) ||
      agents_to_c(a, "agents", READS, &agents) < 0)
    return NULL;
  int failed = 0;
  desc.group = optional_array(group, NAME(NULL, "group"), NPY_UINT32,
                              (Py_ssize_t)agents.count, &failed);
  if (failed || grid_claim(self, 1) < 0) return NULL;
  PyThreadState *unlocked = PyEval_SaveThread(); /* the GIL is released */
  crowdsteer_status status = crowdsteer_grid_build(self->grid, &agents, &desc);
  PyEval_RestoreThread(unlocked);
  grid_unclaim(self, 1);
  if (status != CROWDSTEER_OK) return raise_status(status);
  Py_RETURN_NONE;
}

static PyObject *Grid_bytes(GridObject *self, void *closure) {
  (void)closure;
  return PyLong_FromSize_t(crowdsteer_grid_bytes(self->grid));
}

/* A copy, not a view: the grid's array is rewritten by the next build. Empty
 * for a grid never built, as in C (NULL, count 0), where nothing tells it
 * from a build of no agents, so no error. The claim keeps a build in another
 * thread out while the copy is allocated (which can run Python code). */
static PyObject *Grid_order(GridObject *self, PyObject *unused) {
  (void)unused;
  if (grid_claim(self, 0) < 0) return NULL;
  size_t count;
  const uint32_t *order = crowdsteer_grid_order(self->grid, &count);
  npy_intp length = (npy_intp)count;
  PyObject *copy = PyArray_SimpleNew(1, &length, NPY_UINT32);
  if (copy && count)
    memcpy(PyArray_DATA((PyArrayObject *)copy), order, count * sizeof *order);
  grid_unclaim(self, 0);
  return copy;
}

static PyMethodDef Grid_methods[] = {
    {"build", (PyCFunction)(void (*)(void))Grid_build, METH_VARARGS | METH_KEYWORDS,
     "build(agents, cell_size, *, table_size=0, group=None, threads=0, "
     "positions_only=False)\n--\n\n"
     "Indexes the agents' state (a copy, in cell order), with optional uint32 group "
     "bits; every radius queried must be <= cell_size. Build it from the state before "
     "a step. positions_only: no velocities kept (faster, smaller), for separation "
     "without a field of view only."},
    {"order", (PyCFunction)Grid_order, METH_NOARGS,
     "order()\n--\n\n"
     "The agent order of the last successful build (crowdsteer_grid_order), as a "
     "new uint32 array: order[s] is the batch index of the agent in slot s, every "
     "index below the count once. A copy: the grid's own array changes at the next "
     "build. Empty for a grid never built (no error, as in C).\n\n"
     "A batch put in this order keeps each agent next to its neighbours in memory, "
     "so builds, neighbour calls and steps run faster; re-sort every so many steps "
     "as agents move. Reorder every per-agent array in place (a[order] gathers a "
     "copy first, and the Agents keeps using the same arrays), ids included: with "
     "ids (the old indices on the first sort) every agent gets the same bits in "
     "either order, and a grid built again has the identity order:\n\n"
     "    ids = np.arange(n, dtype=np.uint32)\n"
     "    agents = cs.Agents(px, py, vx, vy, id=ids)\n"
     "    grid.build(agents, cell_size)\n"
     "    order = grid.order()\n"
     "    for a in (px, py, vx, vy, ids):  # and per-agent params, group bits\n"
     "        a[:] = a[order]\n\n"
     "Target.agents indices name agents by position, so they are renumbered as "
     "well: index[:] = np.argsort(order)[index[order]]."},
    {NULL}};

static PyGetSetDef Grid_getset[] = {
    {"bytes", (getter)Grid_bytes, NULL, "memory the grid holds now", NULL}, {NULL}};

static PyTypeObject Grid_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "crowdsteer.Grid",
    .tp_basicsize = sizeof(GridObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Grid()\n--\n\n"
              "A reusable neighbour index (crowdsteer_grid): build() it from the agents, "
              "then pass it in Neighbours. Only an accelerator: the same bits as without."
              "\n\nA built grid is read-only to queries and steps, so any number of "
              "threads may query it and step their own crowds over it at the same time "
              "(the GIL is released; each step's scratch memory is its own). build() "
              "needs the grid to itself: building while another thread queries or steps "
              "over it, or querying while it is built, raises RuntimeError.",
    .tp_new = Grid_new,
    .tp_dealloc = (destructor)Grid_dealloc,
    .tp_methods = Grid_methods,
    .tp_getset = Grid_getset,
};

typedef struct {
  PyObject_HEAD crowdsteer_neighbours c; /* uniform fields; pointers set per call */
  PyObject *grid, *group, *radius_per_agent, *cos_per_agent, *mask_per_agent;
} NeighboursObject;

static PyTypeObject Neighbours_Type;

static PyObject *Neighbours_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"grid",
                           "group",
                           "radius",
                           "radius_per_agent",
                           "field_of_view",
                           "cos_field_of_view",
                           "cos_field_of_view_per_agent",
                           "max_neighbours",
                           "neighbour_mask",
                           "neighbour_mask_per_agent",
                           NULL};
  PyObject *o[5] = {Py_None, Py_None, Py_None, Py_None, Py_None};
  PyObject *radius = NULL, *cos_fov = NULL, *max_neighbours = NULL, *mask = NULL;
  crowdsteer_neighbours c = {0};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|$OOOOpOOOOO:Neighbours", kwlist, &o[0],
                                   &o[1], &radius, &o[2], &c.field_of_view, &cos_fov,
                                   &o[3], &max_neighbours, &mask, &o[4]) ||
      (radius && float32_from(radius, NAME(NULL, "radius"), &c.radius) < 0) ||
      (cos_fov && float32_from(cos_fov, NAME(NULL, "cos_field_of_view"),
                               &c.cos_field_of_view) < 0) ||
      (max_neighbours && uint32_from(max_neighbours, NAME(NULL, "max_neighbours"),
                                     &c.max_neighbours) < 0) ||
      (mask && uint32_from(mask, NAME(NULL, "neighbour_mask"), &c.neighbour_mask) < 0))
    return NULL;
  if (o[0] != Py_None && !PyObject_TypeCheck(o[0], &Grid_Type)) {
    PyErr_SetString(PyExc_TypeError, "grid must be a crowdsteer.Grid or None");
    return NULL;
  }
  static const char *const names[5] = {NULL, "group", "radius_per_agent",
                                       "cos_field_of_view_per_agent",
                                       "neighbour_mask_per_agent"};
  for (int i = 1; i < 5; i++) {
    int failed = 0, typenum = i == 1 || i == 4 ? NPY_UINT32 : NPY_FLOAT32;
    optional_array(o[i], NAME(NULL, names[i]), typenum, -1, &failed);
    if (failed) return NULL;
  }
  NeighboursObject *self = (NeighboursObject *)type->tp_alloc(type, 0);
  if (!self) return NULL;
  self->c = c;
  PyObject **slots[5] = {&self->grid, &self->group, &self->radius_per_agent,
                         &self->cos_per_agent, &self->mask_per_agent};
  for (int i = 0; i < 5; i++)
    *slots[i] = Py_NewRef(o[i]);
  return (PyObject *)self;
}

static void Neighbours_dealloc(NeighboursObject *self) {
  Py_XDECREF(self->grid);
  Py_XDECREF(self->group);
  Py_XDECREF(self->radius_per_agent);
  Py_XDECREF(self->cos_per_agent);
  Py_XDECREF(self->mask_per_agent);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

/* The struct for a call, its arrays checked against the count; *grid is the
 * Grid to claim for the call (NULL without one). */
static int neighbours_to_c(PyObject *obj, const arg_name *name, Py_ssize_t count,
                           crowdsteer_neighbours *out, GridObject **grid) {
  if (!PyObject_TypeCheck(obj, &Neighbours_Type)) {
    PyErr_Format(PyExc_TypeError, "%s must be a crowdsteer.Neighbours, not %.100s",
                 render(name).text, Py_TYPE(obj)->tp_name);
    return -1;
  }
  NeighboursObject *n = (NeighboursObject *)obj;
  int failed = 0;
  *out = n->c;
  *grid = n->grid == Py_None ? NULL : (GridObject *)n->grid;
  out->grid = *grid ? (*grid)->grid : NULL;
  out->group = optional_array(n->group, NAME(name, "group"), NPY_UINT32, count, &failed);
  out->radius_per_agent = optional_array(
      n->radius_per_agent, NAME(name, "radius_per_agent"), NPY_FLOAT32, count, &failed);
  out->cos_field_of_view_per_agent =
      optional_array(n->cos_per_agent, NAME(name, "cos_field_of_view_per_agent"),
                     NPY_FLOAT32, count, &failed);
  out->neighbour_mask_per_agent =
      optional_array(n->mask_per_agent, NAME(name, "neighbour_mask_per_agent"),
                     NPY_UINT32, count, &failed);
  return failed ? -1 : 0;
}

static PyMemberDef Neighbours_members[] = {
    {"grid", T_OBJECT, offsetof(NeighboursObject, grid), READONLY, "the Grid, or None"},
    {"group", T_OBJECT, offsetof(NeighboursObject, group), READONLY,
     "group bits without a grid (uint32), or None"},
    {"radius", T_FLOAT, offsetof(NeighboursObject, c.radius), READONLY,
     "who is near: len(p_q - p_i) < radius (0: the grid's cell size)"},
    {"radius_per_agent", T_OBJECT, offsetof(NeighboursObject, radius_per_agent), READONLY,
     "per-agent radii (float32), or None"},
    {"field_of_view", T_INT, offsetof(NeighboursObject, c.field_of_view), READONLY,
     "nonzero: only agents in the cone cos_field_of_view"},
    {"cos_field_of_view", T_FLOAT, offsetof(NeighboursObject, c.cos_field_of_view),
     READONLY, "cosine of the half-angle of view"},
    {"cos_field_of_view_per_agent", T_OBJECT, offsetof(NeighboursObject, cos_per_agent),
     READONLY, "per-agent cosines (float32), or None"},
    {"max_neighbours", T_UINT, offsetof(NeighboursObject, c.max_neighbours), READONLY,
     "the nearest this many at most (0: CROWDSTEER_MAX_NEIGHBOURS)"},
    {"neighbour_mask", T_UINT, offsetof(NeighboursObject, c.neighbour_mask), READONLY,
     "group filter (0: none)"},
    {"neighbour_mask_per_agent", T_OBJECT, offsetof(NeighboursObject, mask_per_agent),
     READONLY, "per-agent group filters (uint32), or None"},
    {NULL}};

static PyTypeObject Neighbours_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "crowdsteer.Neighbours",
    .tp_basicsize = sizeof(NeighboursObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Neighbours(*, grid=None, group=None, radius=0.0, radius_per_agent=None, "
              "field_of_view=False, cos_field_of_view=0.0, "
              "cos_field_of_view_per_agent=None, max_neighbours=0, neighbour_mask=0, "
              "neighbour_mask_per_agent=None)\n--\n\n"
              "Who an agent sees (crowdsteer_neighbours), for separation, cohesion and "
              "alignment. Without a grid every pair is examined (a step needs a grid). "
              "Immutable.",
    .tp_new = Neighbours_new,
    .tp_dealloc = (destructor)Neighbours_dealloc,
    .tp_members = Neighbours_members,
};

/* ---- calls ------------------------------------------------------------------------- */

/* Each call converts its numbers first and reads its arrays last: a number's
 * __index__ or __float__ can run Python code, which could move an array's
 * memory between the check and the library call. */

/* [begin, end) (end None: the count). */
static int range_from(PyObject *begin_obj, PyObject *end_obj, size_t count,
                      size_t *begin_out, size_t *end_out) {
  *begin_out = 0;
  *end_out = count;
  if (begin_obj && size_from(begin_obj, NAME(NULL, "begin"), begin_out) < 0) return -1;
  if (end_obj && end_obj != Py_None && size_from(end_obj, NAME(NULL, "end"), end_out) < 0)
    return -1;
  return 0;
}

static int spans_add_params(spans *s, const crowdsteer_params *p, size_t count,
                            int behaviour, const char *field) {
  for (int i = 0; i < PARAM_ARRAYS; i++)
    if (spans_add(s, *param_array_slot((crowdsteer_params *)p, i), count * sizeof(float),
                  behaviour, field, param_array_rows[i].name, -1, 0) < 0)
      return -1;
  return 0;
}

static int spans_add_target(spans *s, const crowdsteer_target *t, int dims, size_t count,
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

/* A grid's own copy of the group bits is used, not `group`: only the arrays
 * the library reads are listed. */
static int spans_add_neighbours(spans *s, const crowdsteer_neighbours *nb, size_t count,
                                int behaviour, const char *field) {
  const size_t bytes = count * sizeof(float); /* uint32 and float32 alike */
  return (!nb->grid &&
          spans_add(s, nb->group, bytes, behaviour, field, "group", -1, 0) < 0) ||
                 spans_add(s, nb->radius_per_agent, bytes, behaviour, field,
                           "radius_per_agent", -1, 0) < 0 ||
                 spans_add(s, nb->cos_field_of_view_per_agent, bytes, behaviour, field,
                           "cos_field_of_view_per_agent", -1, 0) < 0 ||
                 spans_add(s, nb->neighbour_mask_per_agent, bytes, behaviour, field,
                           "neighbour_mask_per_agent", -1, 0) < 0
             ? -1
             : 0;
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
  static PyObject *py_##name(PyObject *self, PyObject *args, PyObject *kwargs) {         \
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

static PyObject *py_wander(PyObject *self, PyObject *args, PyObject *kwargs) {
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
  static PyObject *py_##name(PyObject *self, PyObject *args, PyObject *kwargs) {         \
    (void)self;                                                                          \
    return call_neighbour(crowdsteer_##name, args, kwargs, "OOOO|$OOOOO:" #name);        \
  }
NEIGHBOUR(separation)
NEIGHBOUR(cohesion)
NEIGHBOUR(alignment)

static PyObject *py_integrate(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"agents", "steering", "params", "begin", "end", NULL};
  PyObject *agents_obj, *steering, *params_obj = Py_None, *begin_obj = NULL,
                                   *end_obj = Py_None;
  (void)self;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|O$OO:integrate", kwlist, &agents_obj,
                                   &steering, &params_obj, &begin_obj, &end_obj))
    return NULL;
  AgentsObject *a = as_agents(agents_obj, "agents");
  size_t b, e;
  if (!a || range_from(begin_obj, end_obj, a->count, &b, &e) < 0) return NULL;
  const Py_ssize_t count = (Py_ssize_t)a->count;
  crowdsteer_agents agents;
  crowdsteer_vectors s;
  crowdsteer_params params;
  PyObject *keep[3] = {NULL};
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
      check_spans(&memory) == 0;
  spans_free(&memory);
  if (!ok) {
    release(keep, 3);
    return NULL;
  }
  remember_written(agents.px, agents.py, agents.pz);
  last_written[3] = agents.vx, last_written[4] = agents.vy, last_written[5] = agents.vz;
  crowdsteer_status status;
  PyThreadState *unlocked = PyEval_SaveThread(); /* the GIL is released */
  status = crowdsteer_integrate(&agents, &s, &params, b, e);
  PyEval_RestoreThread(unlocked);
  release(keep, 3);
  if (status != CROWDSTEER_OK) return raise_status(status);
  Py_RETURN_NONE;
}

/* One step entry in C: its neighbours and wander state, which the
 * crowdsteer_step_behaviour points to, and the Grid the step must claim. */
typedef struct step_entry {
  crowdsteer_neighbours neighbours;
  crowdsteer_wander_state wander;
  GridObject *grid;
} step_entry;

static int is_neighbour_behaviour(int kind) {
  return kind == CROWDSTEER_SEPARATION || kind == CROWDSTEER_COHESION ||
         kind == CROWDSTEER_ALIGNMENT;
}

/* One Behaviour into its C struct, its arrays listed in `memory` as
 * behaviours[i]'s. */
static int behaviour_to_c(PyObject *obj, Py_ssize_t i, int dims, size_t count,
                          crowdsteer_step_behaviour *out, step_entry *entry,
                          spans *memory) {
  const arg_name *name = ITEM(NAME(NULL, "behaviours"), i);
  memset(out, 0, sizeof *out);
  if (!PyObject_TypeCheck(obj, &Behaviour_Type)) {
    PyErr_Format(PyExc_TypeError, "%s must be a crowdsteer.Behaviour, not %.100s",
                 render(name).text, Py_TYPE(obj)->tp_name);
    return -1;
  }
  BehaviourObject *b = (BehaviourObject *)obj;
  out->behaviour = (crowdsteer_behaviour)b->kind;
  out->weight = b->weight;
  int failed = 0;
  if (params_to_c(b->params, NAME(name, "params"), (Py_ssize_t)count, &out->params) < 0)
    return -1;
  out->weight_per_agent =
      optional_array(b->weight_per_agent, NAME(name, "weight_per_agent"), NPY_FLOAT32,
                     (Py_ssize_t)count, &failed);
  if (failed || spans_add_params(memory, &out->params, count, (int)i, "params") < 0 ||
      spans_add(memory, out->weight_per_agent, count * sizeof(float), (int)i,
                "weight_per_agent", NULL, -1, 0) < 0)
    return -1;
  if (b->kind == CROWDSTEER_WANDER) {
    out->wander = &entry->wander;
    return wander_to_c(b->wander, NAME(name, "wander"), dims, (Py_ssize_t)count,
                       &entry->wander) < 0 ||
                   spans_add_vectors(memory, &entry->wander.direction, dims, count,
                                     (int)i, "wander", "direction", 1) < 0
               ? -1
               : 0;
  }
  if (is_neighbour_behaviour(b->kind)) {
    out->neighbours = &entry->neighbours;
    return neighbours_to_c(b->neighbours, NAME(name, "neighbours"), (Py_ssize_t)count,
                           &entry->neighbours, &entry->grid) < 0 ||
                   spans_add_neighbours(memory, &entry->neighbours, count, (int)i,
                                        "neighbours") < 0
               ? -1
               : 0;
  }
  if (b->target == Py_None) return 0; /* the zeroed target: the origin */
  return target_to_c(b->target, NAME(name, "target"), dims, (Py_ssize_t)count,
                     b->kind == CROWDSTEER_PURSUIT || b->kind == CROWDSTEER_EVADE,
                     &out->target) < 0 ||
                 spans_add_target(memory, &out->target, dims, count, (int)i) < 0
             ? -1
             : 0;
}

/* The step's optional second buffer (output or snapshot): same count and dims. */
static int second_buffer(PyObject *obj, const char *name, const AgentsObject *agents,
                         enum access access, crowdsteer_agents *c) {
  if (obj == Py_None) return 0;
  AgentsObject *s = as_agents(obj, name);
  if (!s) return -1;
  if (s->count != agents->count || s->dims != agents->dims) {
    PyErr_Format(PyExc_ValueError, "%s must have the agents' count and dims (%zu, %d)",
                 name, agents->count, agents->dims);
    return -1;
  }
  return agents_to_c(s, name, access, c);
}

typedef struct step_args {
  PyObject *agents, *behaviours, *integrator, *mask, *output, *snapshot;
  PyObject *combine, *priority_threshold, *tile_size, *threads, *begin, *end;
} step_args;

/* The step's numbers, converted before any array is read. */
static int step_numbers(const step_args *in, size_t count, crowdsteer_step_desc *d,
                        size_t *b, size_t *e) {
  int combine = CROWDSTEER_BLEND;
  memset(d, 0, sizeof *d);
  if ((in->combine && int_from(in->combine, NAME(NULL, "combine"), &combine) < 0) ||
      (in->priority_threshold &&
       float32_from(in->priority_threshold, NAME(NULL, "priority_threshold"),
                    &d->priority_threshold) < 0) ||
      (in->tile_size &&
       size_from(in->tile_size, NAME(NULL, "tile_size"), &d->tile_size) < 0) ||
      (in->threads && int_from(in->threads, NAME(NULL, "threads"), &d->threads) < 0) ||
      range_from(in->begin, in->end, count, b, e) < 0)
    return -1;
  d->combine = (crowdsteer_combine)combine;
  return 0;
}

/* The step's arrays: the agents, every behaviour's, the mask, the integrator's
 * and the second buffers, read now and checked for overlaps. */
static int step_arrays(const step_args *in, AgentsObject *a, PyObject *list,
                       crowdsteer_step_behaviour *behaviours, step_entry *entries,
                       crowdsteer_agents *agents, crowdsteer_agents second[2],
                       crowdsteer_step_desc *d) {
  const size_t count = a->count;
  const Py_ssize_t n = PyTuple_GET_SIZE(list);
  const int in_place = in->output == Py_None;
  int failed = 0;
  spans memory;
  spans_init(&memory);
  /* In place (no output) the step writes the agents; otherwise only reads them. */
  if (agents_to_c(a, "agents", in_place ? WRITES : READS, agents) < 0 ||
      spans_add_agents(&memory, agents, "agents", in_place) < 0)
    goto fail;
  for (Py_ssize_t i = 0; i < n; i++)
    if (behaviour_to_c(PyTuple_GET_ITEM(list, i), i, a->dims, count, &behaviours[i],
                       &entries[i], &memory) < 0)
      goto fail;
  d->behaviours = behaviours;
  d->behaviour_count = (size_t)n;
  d->behaviour_mask = optional_array(in->mask, NAME(NULL, "mask"), NPY_UINT32,
                                     (Py_ssize_t)count, &failed);
  if (failed ||
      spans_add(&memory, d->behaviour_mask, count * sizeof(uint32_t), -1, "mask", NULL,
                -1, 0) < 0 ||
      params_to_c(in->integrator, NAME(NULL, "integrator"), (Py_ssize_t)count,
                  &d->integrator) < 0 ||
      spans_add_params(&memory, &d->integrator, count, -1, "integrator") < 0 ||
      second_buffer(in->output, "output", a, WRITES, &second[0]) < 0 ||
      second_buffer(in->snapshot, "snapshot", a, READS, &second[1]) < 0)
    goto fail;
  if (!in_place) {
    d->output = &second[0];
    if (spans_add_agents(&memory, &second[0], "output", 1) < 0) goto fail;
  }
  if (in->snapshot != Py_None) {
    d->snapshot = &second[1];
    /* Listed even when an output makes the step ignore it: a snapshot that
     * shares memory with what the step writes is a mistake either way. */
    if (spans_add_agents(&memory, &second[1], "snapshot", 0) < 0) goto fail;
  }
  if (check_spans(&memory) < 0) goto fail;
  spans_free(&memory);
  return 0;
fail:
  spans_free(&memory);
  return -1;
}

/* How long the library's crowdsteer_step took in the last step call, for
 * python/compare_speed.py (the binding's share of a step). */
static double last_step_seconds;

static PyObject *py_last_step_seconds(PyObject *self, PyObject *unused) {
  (void)self, (void)unused;
  return PyFloat_FromDouble(last_step_seconds);
}

static PyObject *py_step(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {
      "agents", "behaviours", "integrator", "combine",   "priority_threshold",
      "mask",   "output",     "snapshot",   "tile_size", "threads",
      "begin",  "end",        NULL};
  step_args in = {.integrator = Py_None,
                  .mask = Py_None,
                  .output = Py_None,
                  .snapshot = Py_None,
                  .end = Py_None};
  (void)self;
  if (!PyArg_ParseTupleAndKeywords(
          args, kwargs, "OO|$OOOOOOOOOO:step", kwlist, &in.agents, &in.behaviours,
          &in.integrator, &in.combine, &in.priority_threshold, &in.mask, &in.output,
          &in.snapshot, &in.tile_size, &in.threads, &in.begin, &in.end))
    return NULL;
  AgentsObject *a = as_agents(in.agents, "agents");
  if (!a) return NULL;
  if (!PyTuple_Check(in.behaviours) && !PyList_Check(in.behaviours)) {
    PyErr_SetString(PyExc_TypeError, "behaviours must be a list of crowdsteer.Behaviour");
    return NULL;
  }
  crowdsteer_step_desc desc;
  size_t b, e;
  if (step_numbers(&in, a->count, &desc, &b, &e) < 0) return NULL;
  /* A tuple copy keeps every Behaviour (immutable, holding its objects) alive
   * while the GIL is released. */
  PyObject *list = PySequence_Tuple(in.behaviours);
  if (!list) return NULL;
  Py_ssize_t n = PyTuple_GET_SIZE(list);
  crowdsteer_step_behaviour *behaviours =
      PyMem_Calloc(n ? (size_t)n : 1, sizeof *behaviours);
  step_entry *entries = PyMem_Calloc(n ? (size_t)n : 1, sizeof *entries);
  crowdsteer_agents agents, second[2];
  crowdsteer_status status = CROWDSTEER_OK;
  Py_ssize_t claimed = 0;
  int ok = behaviours && entries &&
           step_arrays(&in, a, list, behaviours, entries, &agents, second, &desc) == 0;
  if (!behaviours || !entries) PyErr_NoMemory();
  for (; ok && claimed < n; claimed++)
    if (entries[claimed].grid && grid_claim(entries[claimed].grid, 0) < 0) ok = 0;
  if (ok) {
    PyThreadState *unlocked = PyEval_SaveThread(); /* the GIL is released */
    struct timespec start, stop;
    clock_gettime(CLOCK_MONOTONIC, &start);
    status = crowdsteer_step(&agents, &desc, b, e);
    clock_gettime(CLOCK_MONOTONIC, &stop);
    PyEval_RestoreThread(unlocked);
    last_step_seconds = (double)(stop.tv_sec - start.tv_sec) +
                        1e-9 * (double)(stop.tv_nsec - start.tv_nsec);
  }
  for (Py_ssize_t i = 0; i < claimed - !ok; i++)
    if (entries[i].grid) grid_unclaim(entries[i].grid, 0);
  PyMem_Free(behaviours);
  PyMem_Free(entries);
  Py_DECREF(list);
  if (!ok) return NULL;
  if (status != CROWDSTEER_OK) return raise_status(status);
  Py_RETURN_NONE;
}

/* ---- ISA, random, version -------------------------------------------------------- */

/* An ISA given by name or number. */
static int isa_from(PyObject *obj, crowdsteer_isa *isa) {
  if (PyUnicode_Check(obj)) {
    const char *name = PyUnicode_AsUTF8(obj);
    if (!name) return -1;
    crowdsteer_status status = crowdsteer_isa_from_name(name, isa);
    if (status != CROWDSTEER_OK) {
      raise_status(status);
      return -1;
    }
    return 0;
  }
  if (!PyIndex_Check(obj)) {
    PyErr_Format(PyExc_TypeError,
                 "isa must be a name (str) or an ISA_* number, not %.100s",
                 Py_TYPE(obj)->tp_name);
    return -1;
  }
  int v;
  if (int_from(obj, NAME(NULL, "isa"), &v) < 0) return -1;
  *isa = (crowdsteer_isa)v;
  return 0;
}

static PyObject *py_active_isa(PyObject *self, PyObject *unused) {
  (void)self, (void)unused;
  crowdsteer_isa isa;
  PyThreadState *unlocked = PyEval_SaveThread(); /* the GIL is released */
  isa = crowdsteer_active_isa();
  PyEval_RestoreThread(unlocked);
  return PyUnicode_FromString(crowdsteer_isa_name(isa));
}

static PyObject *py_force_isa(PyObject *self, PyObject *arg) {
  (void)self;
  crowdsteer_isa isa;
  if (isa_from(arg, &isa) < 0) return NULL;
  crowdsteer_status status;
  PyThreadState *unlocked = PyEval_SaveThread(); /* the GIL is released */
  status = crowdsteer_force_isa(isa);
  PyEval_RestoreThread(unlocked);
  if (status != CROWDSTEER_OK) return raise_status(status);
  Py_RETURN_NONE;
}

static PyObject *py_isa_supported(PyObject *self, PyObject *arg) {
  (void)self;
  crowdsteer_isa isa;
  if (isa_from(arg, &isa) < 0) {
    if (!PyErr_ExceptionMatches(error_base)) return NULL;
    PyErr_Clear(); /* an unknown name is simply not supported */
    Py_RETURN_FALSE;
  }
  int supported;
  PyThreadState *unlocked = PyEval_SaveThread(); /* the GIL is released */
  supported = crowdsteer_isa_supported(isa);
  PyEval_RestoreThread(unlocked);
  return PyBool_FromLong(supported);
}

static PyObject *py_isa_name(PyObject *self, PyObject *arg) {
  (void)self;
  int v;
  if (int_from(arg, NAME(NULL, "isa"), &v) < 0) return NULL;
  return PyUnicode_FromString(crowdsteer_isa_name((crowdsteer_isa)v));
}

static PyObject *py_isa_from_name(PyObject *self, PyObject *arg) {
  (void)self;
  crowdsteer_isa isa;
  if (!PyUnicode_Check(arg)) {
    PyErr_SetString(PyExc_TypeError, "isa_from_name takes a str");
    return NULL;
  }
  if (isa_from(arg, &isa) < 0) return NULL;
  return PyLong_FromLong((long)isa);
}

static PyObject *py_random(PyObject *self, PyObject *args) {
  static const char *const names[4] = {"seed", "agent_index", "tick", "axis"};
  PyObject *given[4];
  uint32_t v[4];
  (void)self;
  if (!PyArg_ParseTuple(args, "OOOO:random", &given[0], &given[1], &given[2], &given[3]))
    return NULL;
  for (int i = 0; i < 4; i++)
    if (uint32_from(given[i], NAME(NULL, names[i]), &v[i]) < 0) return NULL;
  return PyFloat_FromDouble(crowdsteer_random(v[0], v[1], v[2], v[3]));
}

static PyObject *py_status_string(PyObject *self, PyObject *arg) {
  (void)self;
  int v;
  if (int_from(arg, NAME(NULL, "status"), &v) < 0) return NULL;
  return PyUnicode_FromString(crowdsteer_status_string((crowdsteer_status)v));
}

static PyObject *py_step_max_threads(PyObject *self, PyObject *unused) {
  (void)self, (void)unused;
  int n;
  PyThreadState *unlocked = PyEval_SaveThread(); /* the GIL is released */
  n = crowdsteer_step_max_threads();
  PyEval_RestoreThread(unlocked);
  return PyLong_FromLong(n);
}

static PyObject *py_last_written(PyObject *self, PyObject *unused) {
  (void)self, (void)unused;
  PyObject *t = PyTuple_New(6);
  for (int i = 0; t && i < 6; i++)
    PyTuple_SET_ITEM(t, i, PyLong_FromVoidPtr((void *)last_written[i]));
  return t;
}

static PyObject *py_version(PyObject *self, PyObject *unused) {
  (void)self, (void)unused;
  return PyLong_FromUnsignedLong(crowdsteer_version());
}

static PyObject *py_version_string(PyObject *self, PyObject *unused) {
  (void)self, (void)unused;
  return PyUnicode_FromString(crowdsteer_version_string());
}

/* ---- module ------------------------------------------------------------------------ */

#define KW(f) (PyCFunction)(void (*)(void))(f), METH_VARARGS | METH_KEYWORDS
#define TARGETED_DOC(what)                                                               \
  "(agents, target, params, steering, *, mode=OVERWRITE, weight=1.0, "                   \
  "weight_per_agent=None, begin=0, end=None)\n--\n\n" what                               \
  " Writes steering (a tuple of float32 arrays) for agents [begin, end); "               \
  "ACCUMULATE adds weight * s. Raises crowdsteer.Error subclasses for library "          \
  "statuses, OverlapError when steering shares memory with another array of the "        \
  "call; nothing is written on error."

static PyMethodDef module_methods[] = {
    {"seek", KW(py_seek), "seek" TARGETED_DOC("Full speed towards the target.")},
    {"flee", KW(py_flee),
     "flee" TARGETED_DOC("Full speed away from the target, "
                         "within panic_radius.")},
    {"arrive", KW(py_arrive),
     "arrive" TARGETED_DOC("Seek, slowing inside "
                           "slowing_radius, stopping inside "
                           "target_radius.")},
    {"leave", KW(py_leave),
     "leave" TARGETED_DOC("Flee, full speed inside escape_radius, "
                          "nothing beyond danger_radius.")},
    {"pursuit", KW(py_pursuit),
     "pursuit" TARGETED_DOC("Seek where a moving target "
                            "will be.")},
    {"evade", KW(py_evade),
     "evade" TARGETED_DOC("Flee from where a moving target will "
                          "be.")},
    {"separation", KW(py_separation),
     "separation(agents, neighbours, params, steering, *, mode=OVERWRITE, weight=1.0, "
     "weight_per_agent=None, begin=0, end=None)\n--\n\n"
     "Away from the neighbours: s = max_speed * sum of d * (1/dist - 1/radius)."},
    {"cohesion", KW(py_cohesion),
     "cohesion(agents, neighbours, params, steering, *, mode=OVERWRITE, weight=1.0, "
     "weight_per_agent=None, begin=0, end=None)\n--\n\n"
     "Seek the neighbours' centre."},
    {"alignment", KW(py_alignment),
     "alignment(agents, neighbours, params, steering, *, mode=OVERWRITE, weight=1.0, "
     "weight_per_agent=None, begin=0, end=None)\n--\n\n"
     "Steer to the neighbours' mean velocity."},
    {"wander", KW(py_wander),
     "wander(agents, state, params, steering, *, mode=OVERWRITE, weight=1.0, "
     "weight_per_agent=None, begin=0, end=None)\n--\n\n"
     "Smooth random walk; reads and updates state (a WanderState)."},
    {"integrate", KW(py_integrate),
     "integrate(agents, steering, params=None, *, begin=0, end=None)\n--\n\n"
     "v = truncate(v + truncate(s, max_force) / mass * dt, max_speed); p = p + v * dt, "
     "in place on the agents."},
    {"step", KW(py_step),
     "step(agents, behaviours, *, integrator=None, combine=BLEND, "
     "priority_threshold=0.0, mask=None, output=None, snapshot=None, tile_size=0, "
     "threads=0, begin=0, end=None)\n--\n\n"
     "crowdsteer_step: each agent's behaviours (bit b of mask[i] selects "
     "behaviours[b]; no mask: all), blended or by priority, then integrated, in one "
     "pass. output: a second Agents buffer for the new state (else in place, with "
     "snapshot for AGENTS targets). OverlapError when what the step writes (output, "
     "or the agents in place, and wander directions) shares memory with another "
     "array of the step. Threads may step their own crowds over one built Grid at "
     "the same time."},
    {"active_isa", py_active_isa, METH_NOARGS,
     "active_isa() -> str: the ISA calls run on ('avx512', ...)."},
    {"force_isa", py_force_isa, METH_O,
     "force_isa(isa): makes every later call use isa (a name or ISA_* number)."},
    {"isa_supported", py_isa_supported, METH_O,
     "isa_supported(isa) -> bool: this build contains it and this CPU runs it."},
    {"isa_name", py_isa_name, METH_O, "isa_name(number) -> str"},
    {"isa_from_name", py_isa_from_name, METH_O, "isa_from_name(name) -> int"},
    {"random", py_random, METH_VARARGS,
     "random(seed, agent_index, tick, axis) -> float: wander's random number, a "
     "multiple of 2**-23 in [-1, 1)."},
    {"status_string", py_status_string, METH_O,
     "status_string(status) -> str: the library's sentence for a status."},
    {"step_max_threads", py_step_max_threads, METH_NOARGS,
     "step_max_threads() -> int: threads step uses when threads=0."},
    {"_last_step_seconds", py_last_step_seconds, METH_NOARGS,
     "_last_step_seconds() -> float: seconds crowdsteer_step itself took in the "
     "last step call (speed measurements)."},
    {"_last_written", py_last_written, METH_NOARGS,
     "_last_written() -> tuple: addresses the last behaviour or integrate call "
     "handed the library to write (tests)."},
    {"version", py_version, METH_NOARGS,
     "version() -> int: major * 10000 + minor * 100 + patch."},
    {"version_string", py_version_string, METH_NOARGS,
     "version_string() -> str: 'major.minor.patch'."},
    {NULL}};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "crowdsteer._crowdsteer",
    "The crowdsteer C library, bound to CPython and NumPy (see the crowdsteer "
    "package).",
    -1, module_methods};

static int add_types(PyObject *module) {
  PyTypeObject *types[] = {&Agents_Type,    &Params_Type, &Target_Type,    &Wander_Type,
                           &Behaviour_Type, &Grid_Type,   &Neighbours_Type};
  const char *names[] = {"Agents",    "Params", "Target",    "WanderState",
                         "Behaviour", "Grid",   "Neighbours"};
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
    if (PyType_Ready(types[i]) < 0 ||
        PyModule_AddObjectRef(module, names[i], (PyObject *)types[i]) < 0)
      return -1;
  return 0;
}

/* SEEK .. ALIGNMENT from the library's behaviour table (its names, upper
 * case), so a behaviour added there needs no edit here. */
static int add_behaviour_constants(PyObject *module) {
  for (int b = 0; b < CROWDSTEER_BEHAVIOUR_COUNT; b++) {
    char upper[32];
    const char *name = crowdsteer_behaviour_name((crowdsteer_behaviour)b);
    size_t n = 0;
    for (; name[n] && n + 1 < sizeof upper; n++)
      upper[n] = (char)(name[n] >= 'a' && name[n] <= 'z' ? name[n] - 'a' + 'A' : name[n]);
    upper[n] = '\0';
    if (PyModule_AddIntConstant(module, upper, b) < 0) return -1;
  }
  return PyModule_AddIntConstant(module, "BEHAVIOUR_COUNT", CROWDSTEER_BEHAVIOUR_COUNT);
}

static int add_tables(PyObject *module) {
  if (add_behaviour_constants(module) < 0) return -1;
  for (size_t i = 0; i < sizeof constant_rows / sizeof constant_rows[0]; i++)
    if (PyModule_AddIntConstant(module, constant_rows[i].name, constant_rows[i].value) <
        0)
      return -1;
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

PyMODINIT_FUNC PyInit__crowdsteer(void) {
  import_array();
  PyObject *module = PyModule_Create(&module_def);
  if (!module) return NULL;
  if (add_errors(module) < 0 || add_types(module) < 0 || add_tables(module) < 0) {
    Py_DECREF(module);
    return NULL;
  }
  return module;
}
