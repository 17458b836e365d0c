/* crowdsteer._crowdsteer: crowdsteer_step, a mixed crowd in one pass (with
 * avoidance as its last stage when asked), and Behaviour, one entry of a
 * step. */
#include "_crowdsteer.h"

#include <string.h>
#include <structmember.h>
#include <time.h>

/* ---- Behaviour (one entry of a step) ------------------------------------------ */

typedef struct {
  PyObject_HEAD int kind;
  PyObject *target, *params, *wander, *weight_per_agent; /* None when unset */
  PyObject *neighbours;
  PyObject *field;  /* a FieldFollow, or None */
  PyObject *path;   /* a PathFollow, or None */
  PyObject *bounds; /* a Bounds, or None */
  float weight;
} BehaviourObject;

static PyObject *Behaviour_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"kind",   "target",           "params",     "wander",
                           "weight", "weight_per_agent", "neighbours", "field",
                           "path",   "bounds",           NULL};
  int kind;
  PyObject *kind_obj, *target = Py_None, *params = Py_None, *wander = Py_None,
                      *weight_obj = NULL, *weights = Py_None, *neighbours = Py_None,
                      *field = Py_None, *path = Py_None, *bounds = Py_None;
  float weight = 1.0f;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OOOOOOOOO:Behaviour", kwlist,
                                   &kind_obj, &target, &params, &wander, &weight_obj,
                                   &weights, &neighbours, &field, &path, &bounds) ||
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
  self->field = Py_NewRef(field);
  self->path = Py_NewRef(path);
  self->bounds = Py_NewRef(bounds);
  self->weight = weight;
  return (PyObject *)self;
}

static void Behaviour_dealloc(BehaviourObject *self) {
  Py_XDECREF(self->target);
  Py_XDECREF(self->params);
  Py_XDECREF(self->wander);
  Py_XDECREF(self->weight_per_agent);
  Py_XDECREF(self->neighbours);
  Py_XDECREF(self->field);
  Py_XDECREF(self->path);
  Py_XDECREF(self->bounds);
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
    {"field", T_OBJECT, offsetof(BehaviourObject, field), READONLY,
     "its FieldFollow (follow_field)"},
    {"path", T_OBJECT, offsetof(BehaviourObject, path), READONLY,
     "its PathFollow (follow_path), read at each step"},
    {"bounds", T_OBJECT, offsetof(BehaviourObject, bounds), READONLY,
     "its Bounds (contain), read at each step"},
    {NULL}};

PyTypeObject Behaviour_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "crowdsteer.Behaviour",
    .tp_basicsize = sizeof(BehaviourObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Behaviour(kind, target=None, params=None, wander=None, weight=1.0, "
              "weight_per_agent=None, neighbours=None, field=None, path=None, "
              "bounds=None)\n--\n\n"
              "One behaviour of a mixed step (crowdsteer_step_behaviour). Immutable.",
    .tp_new = Behaviour_new,
    .tp_dealloc = (destructor)Behaviour_dealloc,
    .tp_members = Behaviour_members,
};

/* ---- step ------------------------------------------------------------------------ */

/* One step entry in C: its neighbours and wander state, which the
 * crowdsteer_step_behaviour points to, and the Grid the step must claim. */
typedef struct step_entry {
  crowdsteer_neighbours neighbours;
  crowdsteer_wander_state wander;
  GridObject *grid;
  crowdsteer_field_follow follow;
  FieldFollowObject *fields; /* claimed with the grids */
  path_follow_c path;        /* its pathways held until the step returns (read-only,
                                so nothing to claim) */
  crowdsteer_bounds bounds;  /* contain's region, a copy */
} step_entry;

/* An entry's Grid and Fields, claimed for reading while the step runs (all
 * or none of them). */
static int entry_claim(step_entry *e) {
  if (e->grid && grid_claim(e->grid, 0) < 0) return -1;
  if (e->fields && follow_claim(e->fields) < 0) {
    if (e->grid) grid_unclaim(e->grid, 0);
    return -1;
  }
  return 0;
}

static void entry_unclaim(step_entry *e) {
  if (e->grid) grid_unclaim(e->grid, 0);
  if (e->fields) follow_unclaim(e->fields);
}

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
  if (b->kind == CROWDSTEER_FOLLOW_FIELD) {
    out->field = &entry->follow;
    return follow_to_c(b->field, NAME(name, "field"), (Py_ssize_t)count, &entry->follow,
                       &entry->fields) < 0 ||
                   spans_add(memory, entry->follow.field_index, count * sizeof(uint32_t),
                             (int)i, "field", "field_index", -1, 0) < 0
               ? -1
               : 0;
  }
  if (b->kind == CROWDSTEER_FOLLOW_PATH) {
    out->path = &entry->path.follow;
    return path_follow_to_c(b->path, NAME(name, "path"), dims, (Py_ssize_t)count,
                            &entry->path) < 0 ||
                   spans_add_path_follow(memory, &entry->path.follow, count, (int)i,
                                         "path") < 0
               ? -1
               : 0;
  }
  if (b->kind == CROWDSTEER_CONTAIN) { /* None: the library's NULL_POINTER */
    if (b->bounds == Py_None) return 0;
    out->bounds = &entry->bounds;
    return bounds_to_c(b->bounds, &entry->bounds);
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
  PyObject *avoidance; /* an Avoidance, or None */
  PyObject *wrap;      /* (box_min, box_max), or None */
  crowdsteer_box box;
  PyObject *smoothing, *turn_limit, *acceleration; /* the integrator's options */
  crowdsteer_motion motion;
  PyObject *keep_motion[3];
} step_args;

/* The step's wrap box, a pair of points (box_min, box_max), or None. */
static int wrap_from(step_args *in, crowdsteer_step_desc *d) {
  if (!in->wrap || in->wrap == Py_None) return 0;
  if (!PyTuple_Check(in->wrap) || PyTuple_GET_SIZE(in->wrap) != 2) {
    PyErr_SetString(PyExc_TypeError, "wrap must be a tuple (box_min, box_max) or None");
    return -1;
  }
  if (bounds_point_from(PyTuple_GET_ITEM(in->wrap, 0), ITEM(NAME(NULL, "wrap"), 0),
                        in->box.min) < 0 ||
      bounds_point_from(PyTuple_GET_ITEM(in->wrap, 1), ITEM(NAME(NULL, "wrap"), 1),
                        in->box.max) < 0)
    return -1;
  d->wrap = &in->box;
  return 0;
}

/* The step's numbers, converted before any array is read. */
static int step_numbers(step_args *in, size_t count, crowdsteer_step_desc *d, size_t *b,
                        size_t *e) {
  int combine = CROWDSTEER_BLEND;
  memset(d, 0, sizeof *d);
  if ((in->combine && int_from(in->combine, NAME(NULL, "combine"), &combine) < 0) ||
      (in->priority_threshold &&
       float32_from(in->priority_threshold, NAME(NULL, "priority_threshold"),
                    &d->priority_threshold) < 0) ||
      (in->tile_size &&
       size_from(in->tile_size, NAME(NULL, "tile_size"), &d->tile_size) < 0) ||
      (in->threads && int_from(in->threads, NAME(NULL, "threads"), &d->threads) < 0) ||
      wrap_from(in, d) < 0 || range_from(in->begin, in->end, count, b, e) < 0)
    return -1;
  d->combine = (crowdsteer_combine)combine;
  return 0;
}

/* The step's arrays: the agents, every behaviour's, the mask, the integrator's,
 * the second buffers and the avoidance's, read now and checked for overlaps. */
static int step_arrays(step_args *in, AgentsObject *a, PyObject *list,
                       crowdsteer_step_behaviour *behaviours, step_entry *entries,
                       crowdsteer_agents *agents, crowdsteer_agents second[2],
                       avoidance_call *av, crowdsteer_step_desc *d) {
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
      motion_from(in->smoothing, in->turn_limit, in->acceleration, a->dims, count,
                  &in->motion, &d->integrator.motion, in->keep_motion, &memory) < 0 ||
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
  if (in->avoidance != Py_None) {
    if (avoidance_to_c(in->avoidance, NAME(NULL, "avoidance"), (Py_ssize_t)count, av) <
            0 ||
        spans_add_avoidance(&memory, av, count) < 0)
      goto fail;
    d->avoidance = &av->c;
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

PyObject *py_last_step_seconds(PyObject *self, PyObject *unused) {
  (void)self, (void)unused;
  return PyFloat_FromDouble(last_step_seconds);
}

PyObject *py_step(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {
      "agents",       "behaviours", "integrator", "combine",   "priority_threshold",
      "mask",         "output",     "snapshot",   "tile_size", "threads",
      "begin",        "end",        "avoidance",  "smoothing", "turn_limit",
      "acceleration", "wrap",       NULL};
  step_args in = {.integrator = Py_None,
                  .mask = Py_None,
                  .output = Py_None,
                  .snapshot = Py_None,
                  .end = Py_None,
                  .avoidance = Py_None};
  (void)self;
  if (!PyArg_ParseTupleAndKeywords(
          args, kwargs, "OO|$OOOOOOOOOOOOOOO:step", kwlist, &in.agents, &in.behaviours,
          &in.integrator, &in.combine, &in.priority_threshold, &in.mask, &in.output,
          &in.snapshot, &in.tile_size, &in.threads, &in.begin, &in.end, &in.avoidance,
          &in.smoothing, &in.turn_limit, &in.acceleration, &in.wrap))
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
  avoidance_call av = {0};
  crowdsteer_status status = CROWDSTEER_OK;
  Py_ssize_t claimed = 0;
  int ok =
      behaviours && entries &&
      step_arrays(&in, a, list, behaviours, entries, &agents, second, &av, &desc) == 0;
  if (!behaviours || !entries) PyErr_NoMemory();
  for (; ok && claimed < n; claimed++)
    if (entry_claim(&entries[claimed]) < 0) ok = 0;
  const Py_ssize_t held = claimed - !ok; /* behaviours whose claims hold */
  /* The avoidance's grid and obstacles last, when every other claim held. */
  int avoiding = 0;
  if (ok && desc.avoidance) ok = avoiding = avoidance_claim(&av) == 0;
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
  for (Py_ssize_t i = 0; i < held; i++)
    entry_unclaim(&entries[i]);
  /* Every entry's pathways, those of a failed or unread entry included
   * (zeroed: nothing to release). */
  for (Py_ssize_t i = 0; entries && i < n; i++)
    path_follow_release(&entries[i].path);
  if (avoiding) avoidance_unclaim(&av);
  PyMem_Free(behaviours);
  PyMem_Free(entries);
  Py_DECREF(list);
  release(in.keep_motion, 3);
  if (!ok) return NULL;
  if (status != CROWDSTEER_OK) return raise_status(status);
  Py_RETURN_NONE;
}
