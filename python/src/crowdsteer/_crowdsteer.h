/* What the files of crowdsteer._crowdsteer share (private to the extension):
 * argument names, array checks, overlap spans and each file's entry points. */
#ifndef CROWDSTEER_PY_CROWDSTEER_H
#define CROWDSTEER_PY_CROWDSTEER_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
/* One NumPy C-API table for all the files; _crowdsteer.c imports it. */
#define PY_ARRAY_UNIQUE_SYMBOL crowdsteer_ARRAY_API
#ifndef CROWDSTEER_IMPORT_ARRAY
#define NO_IMPORT_ARRAY
#endif
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include <stddef.h>
#include <stdint.h>

#include "crowdsteer.h"

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

typedef struct GridObject GridObject;
typedef struct ObstaclesObject ObstaclesObject;
typedef struct FieldObject FieldObject;
typedef struct FieldFollowObject FieldFollowObject;

/* Who uses a Grid or an Obstacles with the GIL released: any number of calls
 * that read it, or one that changes it (build, add), never both; counted
 * under the GIL. The library's objects are read-only to readers only. */
typedef struct use_count {
  int readers, changing;
} use_count;

/* The types, ready by module init (_crowdsteer.c). */
extern PyTypeObject Agents_Type, Params_Type, Target_Type, Wander_Type, Behaviour_Type,
    Grid_Type, Neighbours_Type, Obstacles_Type, Avoidance_Type, Field_Type,
    FieldFollow_Type;

/* _crowdsteer.c: the errors. */
int add_owned(PyObject *module, const char *name, PyObject *obj);
PyObject *overlap_class(void);
PyObject *raise_status(crowdsteer_status status);

/* _crowdsteer_numbers.c: argument names and numbers. */
rendered_name render(const arg_name *n);
int uint32_from(PyObject *obj, const arg_name *name, uint32_t *out);
int int_from(PyObject *obj, const arg_name *name, int *out);
int size_from(PyObject *obj, const arg_name *name, size_t *out);
int float32_from(PyObject *obj, const arg_name *name, float *out);
int range_from(PyObject *begin_obj, PyObject *end_obj, size_t count, size_t *begin_out,
               size_t *end_out);

/* _crowdsteer_arrays.c: array checks, overlap spans and the Agents. */
void *array_data(PyObject *obj, const arg_name *arg, int typenum, Py_ssize_t count,
                 enum access access);
float *float_array(PyObject *obj, const arg_name *name, Py_ssize_t count,
                   enum access access);
void *optional_array(PyObject *obj, const arg_name *name, int typenum, Py_ssize_t count,
                     int *failed);
int vectors_from(PyObject *seq, const arg_name *arg, int dims, Py_ssize_t count,
                 enum access access, crowdsteer_vectors *out, PyObject *keep[3]);
void spans_init(spans *s);
void spans_free(spans *s);
int spans_add(spans *s, const void *data, size_t bytes, int behaviour, const char *field,
              const char *sub, int index, int written);
int spans_add_vectors(spans *s, const crowdsteer_vectors *v, int dims, size_t count,
                      int behaviour, const char *field, const char *sub, int written);
int spans_add_agents(spans *s, const crowdsteer_agents *a, const char *field,
                     int written);
int check_spans(const spans *s);
void release(PyObject **keep, int n);
/* The integrator's options from integrate()'s and step()'s smoothing,
 * turn_limit and acceleration (NULL objects: not given): *motion is set to
 * NULL when none is given, else to `storage`, filled; the acceleration
 * arrays (kept in keep[3]) are added to `memory` as written. */
int motion_from(PyObject *smoothing, PyObject *turn_limit, PyObject *acceleration,
                int dims, size_t count, crowdsteer_motion *storage,
                const crowdsteer_motion **motion, PyObject *keep[3], spans *memory);
int agents_to_c(AgentsObject *a, const char *name, enum access access,
                crowdsteer_agents *out);
AgentsObject *as_agents(PyObject *obj, const char *name);

/* _crowdsteer_params.c: Params, Target and WanderState. */
int params_to_c(PyObject *obj, const arg_name *name, Py_ssize_t count,
                crowdsteer_params *out);
int target_to_c(PyObject *obj, const arg_name *name, int dims, Py_ssize_t count,
                int needs_velocity, crowdsteer_target *out);
int wander_to_c(PyObject *obj, const arg_name *name, int dims, Py_ssize_t count,
                crowdsteer_wander_state *out);
int spans_add_params(spans *s, const crowdsteer_params *p, size_t count, int behaviour,
                     const char *field);
int spans_add_target(spans *s, const crowdsteer_target *t, int dims, size_t count,
                     int behaviour);
int add_param_fields(PyObject *module);

/* _crowdsteer_grid.c: Grid and Neighbours, and the use counts. */
int use_begin(use_count *u, int change, const char *what);
void use_end(use_count *u, int change);
int grid_claim(GridObject *g, int build);
void grid_unclaim(GridObject *g, int build);
int neighbours_to_c(PyObject *obj, const arg_name *name, Py_ssize_t count,
                    crowdsteer_neighbours *out, GridObject **grid);
int spans_add_neighbours(spans *s, const crowdsteer_neighbours *nb, size_t count,
                         int behaviour, const char *field);

/* _crowdsteer_avoid.c: Obstacles, Avoidance and avoid. One call's avoidance:
 * the struct, its neighbours, and the Grid and Obstacles the call claims. */
typedef struct avoidance_call {
  crowdsteer_avoidance c;
  crowdsteer_neighbours neighbours;
  GridObject *grid;           /* or NULL */
  ObstaclesObject *obstacles; /* or NULL */
} avoidance_call;
int obstacles_claim(ObstaclesObject *o, int change);
void obstacles_unclaim(ObstaclesObject *o, int change);
const crowdsteer_obstacles *obstacles_set(const ObstaclesObject *o);
int avoidance_to_c(PyObject *obj, const arg_name *name, Py_ssize_t count,
                   avoidance_call *out);
int spans_add_avoidance(spans *s, const avoidance_call *a, size_t count);
int avoidance_claim(avoidance_call *a);
void avoidance_unclaim(avoidance_call *a);
PyObject *py_avoid(PyObject *self, PyObject *args, PyObject *kwargs);

/* _crowdsteer_behaviours.c and _crowdsteer_step.c: the module's calls. */
PyObject *py_seek(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *py_flee(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *py_arrive(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *py_leave(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *py_pursuit(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *py_evade(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *py_wander(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *py_follow_field(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *py_separation(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *py_cohesion(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *py_alignment(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *py_integrate(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *py_contain(PyObject *self, PyObject *args, PyObject *kwargs);
/* A point of 2 or 3 numbers (z 0 when 2), and a crowdsteer.Bounds (shape,
 * centre, radius, box_min, box_max, prediction) into the C struct, one
 * field at a time: contain's and a step's Behaviour(CONTAIN, bounds=...). */
int bounds_point_from(PyObject *obj, const arg_name *name, float out[3]);
int bounds_to_c(PyObject *obj, crowdsteer_bounds *out);
PyObject *py_wrap(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *py_periodic_ghosts(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *py_neighbour_count(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *py_neighbour_nearest(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *py_last_written(PyObject *self, PyObject *unused);
PyObject *py_step(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *py_last_step_seconds(PyObject *self, PyObject *unused);

/* _crowdsteer_nav.c: Field and FieldFollow. A FieldFollow in C (its field
 * index read now), and the Fields a call claims while it runs. */
int follow_to_c(PyObject *obj, const arg_name *name, Py_ssize_t count,
                crowdsteer_field_follow *out, FieldFollowObject **claimable);
int follow_claim(FieldFollowObject *f);
void follow_unclaim(FieldFollowObject *f);

/* Pathways and follow_path (_crowdsteer_path.c). A follow description in C:
 * the struct, its pathway pointers and the tuple that keeps them alive. */
typedef struct PathwayObject PathwayObject;
extern PyTypeObject Pathway_Type;
typedef struct path_follow_c {
  crowdsteer_path_follow follow;
  const crowdsteer_pathway **paths;
  PyObject *keep;
} path_follow_c;
int path_follow_to_c(PyObject *obj, const arg_name *name, int dims, Py_ssize_t count,
                     path_follow_c *out);
void path_follow_release(path_follow_c *p);
int spans_add_path_follow(spans *s, const crowdsteer_path_follow *f, size_t count,
                          int behaviour, const char *field);
PyObject *py_follow_path(PyObject *self, PyObject *args, PyObject *kwargs);

#endif
