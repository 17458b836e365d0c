/* crowdsteer._crowdsteer: argument names for error messages, and every number
 * argument (integers, float32, ranges) converted with its C field's checks. */
#include "_crowdsteer.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static void render_into(const arg_name *n, char *buf, size_t size) {
  if (!n) return;
  render_into(n->parent, buf, size);
  size_t used = strlen(buf);
  if (n->field) snprintf(buf + used, size - used, "%s%s", used ? "." : "", n->field);
  used = strlen(buf);
  if (n->index >= 0) snprintf(buf + used, size - used, "[%zd]", n->index);
}

rendered_name render(const arg_name *n) {
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
  int fn(PyObject *obj, const arg_name *name, type *out) {                               \
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
int float32_from(PyObject *obj, const arg_name *name, float *out) {
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

/* [begin, end) (end None: the count). */
int range_from(PyObject *begin_obj, PyObject *end_obj, size_t count, size_t *begin_out,
               size_t *end_out) {
  *begin_out = 0;
  *end_out = count;
  if (begin_obj && size_from(begin_obj, NAME(NULL, "begin"), begin_out) < 0) return -1;
  if (end_obj && end_obj != Py_None && size_from(end_obj, NAME(NULL, "end"), end_out) < 0)
    return -1;
  return 0;
}
