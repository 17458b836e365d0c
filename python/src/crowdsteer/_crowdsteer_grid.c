/* crowdsteer._crowdsteer: Grid (the neighbour index, claimed by the calls that
 * use it with the GIL released) and Neighbours (who an agent sees). */
#include "_crowdsteer.h"

#include <string.h>
#include <structmember.h>

/* ---- Grid and Neighbours ----------------------------------------------------- */

struct GridObject {
  PyObject_HEAD crowdsteer_grid *grid;
  use_count use; /* calls using the grid with the GIL released */
};

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

/* One thread at a time may change a Grid or an Obstacles (`what`), and
 * never while it is read: else RuntimeError. */
int use_begin(use_count *u, int change, const char *what) {
  if (u->changing || (change && u->readers)) {
    PyErr_Format(PyExc_RuntimeError, "%s is being %s in another thread", what,
                 u->changing ? "changed" : "used");
    return -1;
  }
  if (change)
    u->changing = 1;
  else
    u->readers++;
  return 0;
}

void use_end(use_count *u, int change) {
  if (change)
    u->changing = 0;
  else
    u->readers--;
}

int grid_claim(GridObject *g, int build) {
  return use_begin(&g->use, build, "crowdsteer.Grid");
}

void grid_unclaim(GridObject *g, int build) { use_end(&g->use, build); }

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

PyTypeObject Grid_Type = {
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
                           "form",
                           "inner_radius",
                           NULL};
  PyObject *o[5] = {Py_None, Py_None, Py_None, Py_None, Py_None};
  PyObject *radius = NULL, *cos_fov = NULL, *max_neighbours = NULL, *mask = NULL;
  PyObject *inner = NULL, *form = NULL;
  crowdsteer_neighbours c = {0};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|$OOOOpOOOOOOO:Neighbours", kwlist,
                                   &o[0], &o[1], &radius, &o[2], &c.field_of_view,
                                   &cos_fov, &o[3], &max_neighbours, &mask, &o[4], &form,
                                   &inner) ||
      (form && int_from(form, NAME(NULL, "form"), &c.form) < 0) ||
      (inner && float32_from(inner, NAME(NULL, "inner_radius"), &c.inner_radius) < 0) ||
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
int neighbours_to_c(PyObject *obj, const arg_name *name, Py_ssize_t count,
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
    {"form", T_INT, offsetof(NeighboursObject, c.form), READONLY,
     "FORM_DEFAULT or FORM_REYNOLDS (unit steering, as OpenSteer)"},
    {"inner_radius", T_FLOAT, offsetof(NeighboursObject, c.inner_radius), READONLY,
     "with a field of view, seen whatever the angle within it (0: none)"},
    {NULL}};

PyTypeObject Neighbours_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "crowdsteer.Neighbours",
    .tp_basicsize = sizeof(NeighboursObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Neighbours(*, grid=None, group=None, radius=0.0, radius_per_agent=None, "
              "field_of_view=False, cos_field_of_view=0.0, "
              "cos_field_of_view_per_agent=None, max_neighbours=0, neighbour_mask=0, "
              "neighbour_mask_per_agent=None, form=FORM_DEFAULT, inner_radius=0.0)"
              "\n--\n\n"
              "Who an agent sees (crowdsteer_neighbours), for separation, cohesion and "
              "alignment. Without a grid every pair is examined (a step needs a grid). "
              "Immutable.",
    .tp_new = Neighbours_new,
    .tp_dealloc = (destructor)Neighbours_dealloc,
    .tp_members = Neighbours_members,
};

/* A grid's own copy of the group bits is used, not `group`: only the arrays
 * the library reads are listed. */
int spans_add_neighbours(spans *s, const crowdsteer_neighbours *nb, size_t count,
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

/* ---- neighbour queries (crowdsteer_query.h) ---------------------------------------- */

/* neighbour_count and neighbour_nearest: fresh output arrays (so they meet
 * nothing), the GIL released around the library call. */
static PyObject *neighbour_query(PyObject *args, PyObject *kwargs, int nearest) {
  static char *count_kwlist[] = {"agents", "neighbours", "begin", "end", NULL};
  static char *nearest_kwlist[] = {"agents", "neighbours", "k", "begin", "end", NULL};
  PyObject *agents_obj, *nb_obj, *k_obj = NULL, *begin_obj = NULL, *end_obj = Py_None;
  int parsed =
      nearest ? PyArg_ParseTupleAndKeywords(args, kwargs, "OOO|$OO:neighbour_nearest",
                                            nearest_kwlist, &agents_obj, &nb_obj, &k_obj,
                                            &begin_obj, &end_obj)
              : PyArg_ParseTupleAndKeywords(args, kwargs, "OO|$OO:neighbour_count",
                                            count_kwlist, &agents_obj, &nb_obj,
                                            &begin_obj, &end_obj);
  if (!parsed) return NULL;
  uint32_t k = 1;
  AgentsObject *a = as_agents(agents_obj, "agents");
  size_t b, e;
  if (!a || (nearest && uint32_from(k_obj, NAME(NULL, "k"), &k) < 0) ||
      range_from(begin_obj, end_obj, a->count, &b, &e) < 0)
    return NULL;
  if (nearest && (k == 0 || k > CROWDSTEER_MAX_NEIGHBOURS))
    return raise_status(CROWDSTEER_ERROR_PARAMETER);
  const npy_intp n = (npy_intp)a->count, rows[2] = {n, (npy_intp)k};
  PyObject *count = PyArray_ZEROS(1, &n, NPY_UINT32, 0);
  PyObject *index = nearest ? PyArray_EMPTY(2, rows, NPY_UINT32, 0) : NULL;
  PyObject *dd = nearest ? PyArray_EMPTY(2, rows, NPY_FLOAT32, 0) : NULL;
  crowdsteer_agents agents;
  crowdsteer_neighbours nb;
  GridObject *grid = NULL;
  if (!count || (nearest && (!index || !dd)) ||
      agents_to_c(a, "agents", READS, &agents) < 0 ||
      neighbours_to_c(nb_obj, NAME(NULL, "neighbours"), n, &nb, &grid) < 0 ||
      (grid && grid_claim(grid, 0) < 0)) {
    Py_XDECREF(count);
    Py_XDECREF(index);
    Py_XDECREF(dd);
    return NULL;
  }
  uint32_t *count_c = (uint32_t *)PyArray_DATA((PyArrayObject *)count);
  crowdsteer_status status;
  PyThreadState *unlocked = PyEval_SaveThread(); /* the GIL is released */
  if (nearest) {
    if (n > 0)
      for (npy_intp j = 0; j < n * (npy_intp)k; j++) { /* rows outside the range */
        ((uint32_t *)PyArray_DATA((PyArrayObject *)index))[j] = UINT32_MAX;
        ((float *)PyArray_DATA((PyArrayObject *)dd))[j] = (float)INFINITY;
      }
    status = crowdsteer_neighbour_nearest(
        &agents, &nb, k, (uint32_t *)PyArray_DATA((PyArrayObject *)index),
        (float *)PyArray_DATA((PyArrayObject *)dd), count_c, b, e);
  } else {
    status = crowdsteer_neighbour_count(&agents, &nb, count_c, b, e);
  }
  PyEval_RestoreThread(unlocked);
  if (grid) grid_unclaim(grid, 0);
  if (status != CROWDSTEER_OK) {
    Py_DECREF(count);
    Py_XDECREF(index);
    Py_XDECREF(dd);
    return raise_status(status);
  }
  if (!nearest) return count;
  return Py_BuildValue("(NNN)", index, dd, count);
}

PyObject *py_neighbour_count(PyObject *self, PyObject *args, PyObject *kwargs) {
  (void)self;
  return neighbour_query(args, kwargs, 0);
}

PyObject *py_neighbour_nearest(PyObject *self, PyObject *args, PyObject *kwargs) {
  (void)self;
  return neighbour_query(args, kwargs, 1);
}
