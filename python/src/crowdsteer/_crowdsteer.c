/* crowdsteer._crowdsteer: the CPython and NumPy binding of the crowdsteer C
 * API. Arrays are used in place (zero-copy); every argument is checked before
 * the library runs, and the library runs with the GIL released. The tables
 * (statuses, constants, target kinds, behaviours below; parameters in
 * _crowdsteer_params.c) are the only places that list the C API, so a new
 * field or status is one row. This file: the errors, the module's functions
 * and its initialisation; _crowdsteer.h lists the other files. */
#define CROWDSTEER_IMPORT_ARRAY
#include "_crowdsteer.h"

#include <stdio.h>
#include <string.h>

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
    {CROWDSTEER_ERROR_GEOMETRY, "GEOMETRY"},
    {CROWDSTEER_ERROR_GOAL, "GOAL"},
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
    {"ISA_SIMD128", CROWDSTEER_ISA_SIMD128},
    {"ISA_COUNT", CROWDSTEER_ISA_COUNT},
    {"MAX_NEIGHBOURS", CROWDSTEER_MAX_NEIGHBOURS},
    {"FORM_DEFAULT", CROWDSTEER_FORM_DEFAULT},
    {"FORM_REYNOLDS", CROWDSTEER_FORM_REYNOLDS},
    {"REPORT_CROWDED", CROWDSTEER_REPORT_CROWDED},
    {"REPORT_WALL", CROWDSTEER_REPORT_WALL},
    {"REPORT_INSIDE", CROWDSTEER_REPORT_INSIDE},
    {"BOUNDS_SPHERE", CROWDSTEER_BOUNDS_SPHERE},
    {"BOUNDS_BOX", CROWDSTEER_BOUNDS_BOX},
};

/* ---- errors ------------------------------------------------------------------ */

/* PyModule_AddObjectRef, taking over `obj` (a new reference, or NULL after a
 * failure) whatever happens. */
int add_owned(PyObject *module, const char *name, PyObject *obj) {
  if (!obj) return -1;
  int result = PyModule_AddObjectRef(module, name, obj);
  Py_DECREF(obj);
  return result;
}

static PyObject *error_base;                 /* crowdsteer.Error */
static PyObject *error_classes[STATUS_ROWS]; /* one per status_rows entry */

PyObject *overlap_class(void) {
  for (int i = 0; i < STATUS_ROWS; i++)
    if (status_rows[i].status == (crowdsteer_status)STATUS_OVERLAP)
      return error_classes[i];
  return PyExc_ValueError;
}

/* Raises the exception of a library status; returns NULL. */
PyObject *raise_status(crowdsteer_status status) {
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
    {"contain", KW(py_contain),
     "contain(agents, bounds, params, steering, *, mode=OVERWRITE, weight=1.0, "
     "weight_per_agent=None, begin=0, end=None)\n--\n\nSteer agents outside a sphere "
     "or box (a Bounds), or outside within bounds.prediction, back towards its centre "
     "(seek's formula); the others get zero."},
    {"wrap", KW(py_wrap),
     "wrap(agents, box_min, box_max, *, begin=0, end=None)\n--\n\nWrap positions into "
     "the box in place: p - side where p >= max, p + side where p < min (one shift)."},
    {"periodic_ghosts", KW(py_periodic_ghosts),
     "periodic_ghosts(agents, count, box_min, box_max, reach, id, *, origin=None, "
     "group=None)\n--\n\nAppends ghosts of agents [0, count) near a face of the "
     "periodic box after them, in the agents' own arrays (their length is the "
     "capacity); id (uint32, that length) gets every slot's id, origin its source "
     "agent. Returns the total: run the neighbour calls on Agents of the first total "
     "elements with ids=id, for agents [0, count)."},
    {"follow_path", KW(py_follow_path),
     "follow_path(agents, follow, params, steering, *, mode=OVERWRITE, weight=1.0, "
     "weight_per_agent=None, begin=0, end=None)\n--\n\nFollow a pathway (a PathFollow: "
     "paths, path or path_per_agent, direction or direction_per_agent, prediction_time, "
     "lead_distance)."},
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
    {"follow_field", KW(py_follow_field),
     "follow_field(agents, follow, params, steering, *, mode=OVERWRITE, weight=1.0, "
     "weight_per_agent=None, begin=0, end=None)\n--\n\n"
     "Down the travel time of each agent's field (follow, a FieldFollow): desired = "
     "the cell's direction * max_speed (2D)."},
    {"neighbour_count", KW(py_neighbour_count),
     "neighbour_count(agents, neighbours, *, begin=0, end=None)\n--\n\n"
     "Each agent's number of neighbours (uint32, 0 outside the range), by the "
     "rules of separation, cohesion and alignment."},
    {"neighbour_nearest", KW(py_neighbour_nearest),
     "neighbour_nearest(agents, neighbours, k, *, begin=0, end=None)\n--\n\n"
     "(index, distance_squared, found): each agent's k nearest neighbours, by "
     "distance then id (rows of k; UINT32_MAX and inf past the found ones)."},
    {"integrate", KW(py_integrate),
     "integrate(agents, steering, params=None, *, begin=0, end=None, smoothing=0.0, "
     "turn_limit=0.0, acceleration=None)\n--\n\n"
     "v = truncate(v + truncate(s, max_force) / mass * dt, max_speed); p = p + v * dt, "
     "in place on the agents. smoothing, turn_limit, acceleration: crowdsteer_motion "
     "(acceleration: the smoothed acceleration per agent, updated in place)."},
    {"step", KW(py_step),
     "step(agents, behaviours, *, integrator=None, combine=BLEND, "
     "priority_threshold=0.0, mask=None, output=None, snapshot=None, tile_size=0, "
     "threads=0, begin=0, end=None, avoidance=None, smoothing=0.0, turn_limit=0.0, "
     "acceleration=None, wrap=None)\n--\n\n"
     "crowdsteer_step: each agent's behaviours (bit b of mask[i] selects "
     "behaviours[b]; no mask: all), blended or by priority, then integrated, in one "
     "pass. output: a second Agents buffer for the new state (else in place, with "
     "snapshot for AGENTS targets). OverlapError when what the step writes (output, "
     "or the agents in place, and wander directions) shares memory with another "
     "array of the step. Threads may step their own crowds over one built Grid at "
     "the same time. avoidance: an Avoidance as the step's last stage (its "
     "neighbours need a Grid built from the state before the step): the integrated "
     "velocity is the preferred one, ORCA picks the velocity, the agent moves by it "
     "from where it was, and with obstacles the walls hold (REPORT_WALL, "
     "REPORT_INSIDE in avoidance.report). wrap: (box_min, box_max), the new "
     "positions wrap around in that box last, as wrap() then would. "
     "Behaviour(CONTAIN, bounds=Bounds(...)) steers as contain() does."},
    {"avoid", KW(py_avoid),
     "avoid(agents, avoidance, params, preferred, velocity, *, begin=0, end=None)\n--\n\n"
     "crowdsteer_avoid (ORCA): writes velocity (a tuple of float32 arrays) for agents "
     "[begin, end): the velocity closest to preferred[i] with length <= max_speed "
     "(params; None: 1) that keeps agent i clear of its neighbours for "
     "avoidance.time_horizon and of the obstacles for obstacle_time_horizon, given "
     "every agent's position and velocity now (or the grid's copy); an agent "
     "already overlapping another aims to separate within params.dt. velocity may "
     "be the preferred arrays themselves, nothing else the call reads "
     "(OverlapError). avoidance.report, if any, gets each agent's REPORT_CROWDED "
     "bit. Nothing is written on error."},
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
  PyTypeObject *types[] = {&Agents_Type,     &Params_Type,      &Target_Type,
                           &Wander_Type,     &Behaviour_Type,   &Grid_Type,
                           &Neighbours_Type, &Obstacles_Type,   &Avoidance_Type,
                           &Field_Type,      &FieldFollow_Type, &Pathway_Type};
  const char *names[] = {"Agents",    "Params", "Target",      "WanderState",
                         "Behaviour", "Grid",   "Neighbours",  "Obstacles",
                         "Avoidance", "Field",  "FieldFollow", "Pathway"};
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
    if (strcmp(name, "unknown") == 0) continue; /* an id reserved for another behaviour */
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
  return add_param_fields(module);
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
