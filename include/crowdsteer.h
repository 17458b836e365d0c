/* crowdsteer: batch steering behaviours for very large crowds, stored as
 * structure-of-arrays and computed with SIMD, bit-identical on every ISA. */
/** \file crowdsteer.h
 * The whole public API of crowdsteer (it includes the other headers). */
#ifndef CROWDSTEER_H
#define CROWDSTEER_H

/*
 * What this header offers
 * -----------------------
 *  Version      CROWDSTEER_VERSION_{MAJOR,MINOR,PATCH}, crowdsteer_version()
 *  Status       crowdsteer_status, crowdsteer_status_string()
 *  Data views   crowdsteer_agents (positions and velocities), crowdsteer_vectors
 *               (any other per-agent vector: steering, targets, wander state)
 *  Targets      crowdsteer_target: a shared point, per-agent arrays, indices
 *               of other agents in the same batch, or one agent of the batch
 *  Parameters   crowdsteer_params (uniform values or per-agent arrays; zero
 *               means the documented default)
 *  Output       crowdsteer_output (overwrite, or accumulate out += weight * s)
 *  Behaviours   crowdsteer_seek, _flee, _arrive, _leave, _pursuit, _evade,
 *               _wander (2D and 3D, chosen by crowdsteer_agents.dims); every
 *               behaviour by value: crowdsteer_behaviour, crowdsteer_run,
 *               crowdsteer_behaviour_name, _from_name, _inputs
 *  Integrator   crowdsteer_integrate
 *  Neighbours   crowdsteer_grid (a reusable hashed uniform grid: _create,
 *               _build, _bytes, _destroy), crowdsteer_neighbours, and
 *               crowdsteer_separation, _cohesion, _alignment (2D and 3D)
 *  Mixed crowds crowdsteer_step: several behaviours per agent (selected per
 *               agent), blended or by priority, then integrated, in one pass
 *               over memory, optionally multi-threaded; neighbour behaviours
 *               included (CROWDSTEER_SEPARATION, _COHESION, _ALIGNMENT), their
 *               scratch in a crowdsteer_workspace (_create, _bytes, _destroy)
 *  Other parts  in headers this one includes: agent targets by id
 *               (crowdsteer_ids.h), obstacles and ORCA avoidance
 *               (crowdsteer_avoid.h), neighbour forms and integrator motion
 *               (crowdsteer_flock.h), navigation fields (crowdsteer_nav.h),
 *               pathways (crowdsteer_path.h), neighbour queries
 *               (crowdsteer_query.h), world bounds: wrap-around and
 *               containment (crowdsteer_bounds.h)
 *  Threads      the library's own pool, OpenMP, or the host's job system:
 *               crowdsteer_task_system
 *  Random       crowdsteer_random (wander's counter-based generator)
 *  ISA          crowdsteer_isa, crowdsteer_active_isa, crowdsteer_force_isa,
 *               crowdsteer_isa_supported, crowdsteer_isa_name, crowdsteer_isa_from_name
 *
 * Every entry point works on the agent sub-range [begin, end) of a batch of
 * `count` agents; arrays are always indexed by the agent's index in the whole
 * batch, so a host can split one batch across threads and gets the same bits
 * as from one call. Every entry point validates all of its input before it
 * writes anything: a call that returns an error has changed no array.
 *
 * Every entry point computes in one fixed floating-point environment,
 * whatever the host set: round-to-nearest-even with denormals kept (no
 * FTZ/DAZ on x86, no FZ on aarch64), on the calling thread and on every
 * worker thread of crowdsteer_step, and gives each thread its own mode back
 * on return. A host running with FTZ/DAZ or another rounding direction gets
 * the same bits.
 *
 * Units are the caller's. With the defaults (dt = 1, mass = 1, unlimited
 * force, time_to_target = 1) the formulas are the per-frame form of the
 * classic steering articles: s = desired - v, v' = truncate(v + s, max_speed),
 * p' = p + v'. The exact semantics are in docs/behaviours.md.
 */

#include <stddef.h>
#include <stdint.h>

#define CROWDSTEER_VERSION_MAJOR 0 /**< major version: changes break the API */
#define CROWDSTEER_VERSION_MINOR 1 /**< minor version (in 0.x it may break the API) */
#define CROWDSTEER_VERSION_PATCH 0 /**< patch version: fixes only */
/** The version as one comparable number: major * 10000 + minor * 100 + patch. */
#define CROWDSTEER_VERSION_NUMBER                                                        \
  (CROWDSTEER_VERSION_MAJOR * 10000 + CROWDSTEER_VERSION_MINOR * 100 +                   \
   CROWDSTEER_VERSION_PATCH)

/* Public symbols are exported; everything else in the library is hidden. */
#if defined(CROWDSTEER_DOXYGEN)
/** Marks the library's exported functions (visibility or dllimport/export). */
#define CROWDSTEER_API
#elif defined(_WIN32) && !defined(CROWDSTEER_STATIC_DEFINE)
#if defined(CROWDSTEER_BUILDING)
#define CROWDSTEER_API __declspec(dllexport)
#else
#define CROWDSTEER_API __declspec(dllimport)
#endif
#elif defined(__GNUC__)
#define CROWDSTEER_API __attribute__((visibility("default")))
#else
#define CROWDSTEER_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** Status returned by every entry point. */
typedef enum crowdsteer_status {
  CROWDSTEER_OK = 0,
  /** A pointer the call needs is NULL (a struct, or an array the call reads
   *  or writes for a non-empty range). */
  CROWDSTEER_ERROR_NULL_POINTER = 1,
  /** crowdsteer_agents.dims is neither 2 nor 3. */
  CROWDSTEER_ERROR_DIMS = 2,
  /** begin > end, or end > count. */
  CROWDSTEER_ERROR_RANGE = 3,
  /** A parameter in effect (uniform or per-agent) is NaN or out of its
   *  documented range, or an enum field holds an unknown value. */
  CROWDSTEER_ERROR_PARAMETER = 4,
  /** A target agent index is not smaller than count. */
  CROWDSTEER_ERROR_AGENT_INDEX = 5,
  /** The ISA name or value is not one crowdsteer knows. */
  CROWDSTEER_ERROR_UNKNOWN_ISA = 6,
  /** The ISA is known but this build or this CPU cannot run it. */
  CROWDSTEER_ERROR_UNSUPPORTED_ISA = 7,
  /** Memory for a neighbour grid, id index, workspace or a step's scratch
   *  could not be allocated (the object is left as it was before the call,
   *  and nothing is written). */
  CROWDSTEER_ERROR_OUT_OF_MEMORY = 8,
  /** The neighbour grid was never built, or was built for another count or
   *  dims than the agents of the call; or an obstacle set is not built. */
  CROWDSTEER_ERROR_GRID = 9,
  /** An array the call uses (a float array, target indices, a behaviour
   *  mask) is not aligned to 4 bytes. */
  CROWDSTEER_ERROR_ALIGNMENT = 10,
  /** An array the call writes shares memory with another array the call
   *  reads or writes, within the elements the call touches (see "Memory
   *  overlap" below); nothing is written. */
  CROWDSTEER_ERROR_OVERLAP = 11,
  /** An obstacle polygon is not a simple counter-clockwise loop: two
   *  consecutive vertices coincide, the loop touches or crosses itself, or
   *  it turns clockwise (or encloses no area). Nothing is added. */
  CROWDSTEER_ERROR_GEOMETRY = 12,
  /** A navigation field's goal point lies in a blocked cell, or it has no
   *  free goal cell (crowdsteer_nav.h). Nothing is built. */
  CROWDSTEER_ERROR_GOAL = 13
} crowdsteer_status;

/** A short English sentence for a status; never NULL (unknown values get a
 *  generic string). */
CROWDSTEER_API const char *crowdsteer_status_string(crowdsteer_status status);

/** The library's version number (CROWDSTEER_VERSION_NUMBER of the build). */
CROWDSTEER_API unsigned crowdsteer_version(void);
/** The library's version as "major.minor.patch". */
CROWDSTEER_API const char *crowdsteer_version_string(void);

/**
 * A batch of agents in structure-of-arrays form. The arrays belong to the
 * caller; crowdsteer never copies or keeps them. In 2D, pz and vz are ignored
 * and may be NULL. Every array a call uses (here and in every other struct)
 * must be aligned to 4 bytes, as a float or uint32_t array is; no further
 * alignment is needed (CROWDSTEER_ERROR_ALIGNMENT otherwise).
 */
typedef struct crowdsteer_agents {
  size_t count; /**< number of agents in the batch */
  int dims;     /**< 2 or 3 */
  float *px;    /**< positions, x */
  float *py;    /**< positions, y */
  float *pz;    /**< positions, z (3D only) */
  float *vx;    /**< velocities, x */
  float *vy;    /**< velocities, y */
  float *vz;    /**< velocities, z (3D only) */
  /** Optional stable agent ids, `count` of them, or NULL: agent i's id is
   *  then i, its index in the batch (the results are exactly those without
   *  this field). The id is what the semantics call "the agent" wherever an
   *  agent's identity matters: wander's random stream, and the tie-breaks
   *  of the neighbour behaviours (nearest-k among equal distances,
   *  coincident agents). So a batch reordered (sorted by cell for
   *  locality) or split across processes, each agent keeping its id, gives
   *  every agent the same bits. Ids should be distinct; agents sharing an
   *  id get finite results whose tie-breaks between them may depend on the
   *  order. Read by wander and by the neighbour behaviours (and by a step
   *  that runs them) for the range; never by the other behaviours, the
   *  integrator, or a step's output or snapshot buffer. Target indices
   *  (CROWDSTEER_TARGET_AGENTS, _AGENT) stay indices in the batch: keep
   *  targets by id and resolve them with crowdsteer_id_index_lookup. */
  const uint32_t *id;
} crowdsteer_agents;

/** Per-agent vectors in structure-of-arrays form, `count` elements each
 *  (z unused, may be NULL, in 2D). */
typedef struct crowdsteer_vectors {
  float *x; /**< x components */
  float *y; /**< y components */
  float *z; /**< z components (3D only) */
} crowdsteer_vectors;

/** How a behaviour's target is given. */
typedef enum crowdsteer_target_kind {
  /** One point (and, for pursuit and evade, one velocity) for the batch. */
  CROWDSTEER_TARGET_POINT = 0,
  /** Per-agent arrays: agent i's target is position[i] (velocity[i]). */
  CROWDSTEER_TARGET_ARRAYS = 1,
  /** Per-agent indices: agent i's target is agent index[i] of the same batch
   *  (its position and velocity as they were before the call). */
  CROWDSTEER_TARGET_AGENTS = 2,
  /** One agent of the same batch, `agent`, for every agent of the call (its
   *  position and velocity as they were before the call): the same results
   *  as AGENTS with every index equal to `agent`, but the index is checked
   *  once per call (it must be below count when the range is not empty) and
   *  an in-place crowdsteer_step needs no snapshot for it (it reads that
   *  agent at the start of the call, so split an in-place step into several
   *  calls only with AGENTS targets and a snapshot). */
  CROWDSTEER_TARGET_AGENT = 3
} crowdsteer_target_kind;

/**
 * A target for seek, flee, arrive, leave, pursuit and evade. A zeroed struct
 * is the point at the origin, at rest. Only the fields of `kind` are read;
 * `velocity` and `point_velocity` only by pursuit and evade.
 */
typedef struct crowdsteer_target {
  crowdsteer_target_kind kind; /**< which of the fields below give the target */
  float point[3];              /**< POINT: position (z ignored in 2D) */
  float point_velocity[3];     /**< POINT: velocity, for pursuit and evade */
  crowdsteer_vectors position; /**< ARRAYS: per-agent target positions */
  crowdsteer_vectors velocity; /**< ARRAYS: per-agent target velocities */
  const uint32_t *index;       /**< AGENTS: index of each agent's target */
  uint32_t agent;              /**< AGENT: index of the one target agent */
} crowdsteer_target;

/**
 * Parameters of behaviours and of the integrator. Zero-initialise, then set
 * what you need. A uniform field left at 0 means its default (listed per
 * field); a per-agent array, when not NULL, replaces the uniform field for
 * every agent and its elements are taken literally (no default applies).
 * Each call validates only the fields it uses; see crowdsteer_status.
 * Per-agent arrays are indexed by the agent's index in the whole batch.
 */
typedef struct crowdsteer_params {
  /** Top speed, >= 0 and finite. 0 means the integrator's: in a step the
   *  step's integrator's, elsewhere 1 (the integrator's default). Seek ..
   *  evade, separation, cohesion, and the integrator. */
  float max_speed;
  /** Largest steering force the integrator applies, >= 0. 0 means +inf. */
  float max_force;
  /** Agent mass for the integrator, > 0. 0 means 1. */
  float mass;
  /** Integration time step, >= 0 and finite. 0 means 1. */
  float dt;
  /** Time over which steering reaches the desired velocity:
   *  s = (desired - v) / time_to_target. > 0. 0 means 1. Seek .. evade,
   *  cohesion, alignment. */
  float time_to_target;
  /** Arrive: within this distance the agent brakes to a stop. >= 0, default 0. */
  float target_radius;
  /** Arrive: within this distance the desired speed ramps down linearly to
   *  zero at the target. >= 0, default 0 (no ramp). */
  float slowing_radius;
  /** Flee and evade: farther than this from the threat, no steering.
   *  >= 0. 0 means +inf. */
  float panic_radius;
  /** Leave: farther than this from the threat, no steering; 0 (the default)
   *  means leave never steers. >= 0. */
  float danger_radius;
  /** Leave: closer than this, flee at full speed. >= 0, default 0. */
  float escape_radius;
  /** Pursuit and evade: longest look-ahead time. >= 0. 0 means +inf. */
  float max_prediction;
  /** Wander: radius of the wander circle (sphere), >= 0 and finite, default 0. */
  float wander_radius;
  /** Wander: distance of the circle's centre ahead of the agent, >= 0 and
   *  finite, default 0. */
  float wander_distance;
  /** Wander: size of the random displacement per call, >= 0 and finite,
   *  default 0. */
  float jitter;

  /* Per-agent overrides (NULL: use the uniform field above). */
  const float *max_speed_per_agent;       /**< per-agent max_speed, or NULL */
  const float *max_force_per_agent;       /**< per-agent max_force, or NULL */
  const float *mass_per_agent;            /**< per-agent mass, or NULL */
  const float *target_radius_per_agent;   /**< per-agent target_radius, or NULL */
  const float *slowing_radius_per_agent;  /**< per-agent slowing_radius, or NULL */
  const float *panic_radius_per_agent;    /**< per-agent panic_radius, or NULL */
  const float *danger_radius_per_agent;   /**< per-agent danger_radius, or NULL */
  const float *escape_radius_per_agent;   /**< per-agent escape_radius, or NULL */
  const float *wander_radius_per_agent;   /**< per-agent wander_radius, or NULL */
  const float *wander_distance_per_agent; /**< per-agent wander_distance, or NULL */
  const float *time_to_target_per_agent;  /**< per-agent time_to_target, or NULL */
  const float *max_prediction_per_agent;  /**< per-agent max_prediction, or NULL */
  const float *jitter_per_agent;          /**< per-agent jitter, or NULL */
  /** The integrator's options (crowdsteer_flock.h), or NULL: none. */
  const struct crowdsteer_motion *motion;
} crowdsteer_params;

/** How a behaviour writes its steering. */
typedef enum crowdsteer_write_mode {
  /** out[i] = s[i] */
  CROWDSTEER_OVERWRITE = 0,
  /** out[i] = out[i] + weight * s[i], to blend behaviours */
  CROWDSTEER_ACCUMULATE = 1
} crowdsteer_write_mode;

/**
 * Where a behaviour writes its steering vectors. The output arrays must not
 * overlap any array the call reads (other than themselves in accumulate
 * mode) or each other: CROWDSTEER_ERROR_OVERLAP (see "Memory overlap").
 */
typedef struct crowdsteer_output {
  crowdsteer_vectors steering; /**< the arrays written, elements [begin, end) */
  crowdsteer_write_mode mode;  /**< overwrite or accumulate */
  /** ACCUMULATE: the blend weight, finite; 0 means 1 (like every other
   *  uniform field left at 0). */
  float weight;
  /** ACCUMULATE: per-agent weights replacing `weight` when not NULL (taken
   *  literally: 0 adds nothing). */
  const float *weight_per_agent;
} crowdsteer_output;

/**
 * Wander's per-agent state: a unit vector per agent (all zeros is a valid
 * start), plus the seed and tick of the counter-based random generator.
 * Each wander call reads and updates x, y (and z in 3D) for its range.
 * Advance `tick` once per simulation step to get fresh randomness.
 */
typedef struct crowdsteer_wander_state {
  crowdsteer_vectors direction; /**< each agent's unit wander direction */
  uint32_t seed;                /**< the random stream's seed */
  uint32_t tick;                /**< the step number the stream is keyed by */
} crowdsteer_wander_state;

/* ---- Memory overlap --------------------------------------------------------
 * Every entry point that writes caller arrays (the behaviours, crowdsteer_run,
 * crowdsteer_integrate, crowdsteer_step) returns CROWDSTEER_ERROR_OVERLAP,
 * writing nothing, when an array it writes shares a byte with another array
 * it reads or writes, counting only the elements the call touches:
 *   - an array read or written at the agent's own index (positions and
 *     velocities, target arrays and indices, per-agent parameters and
 *     weights, output, wander state, integrator steering, a step's mask and
 *     new state, ids for wander): elements [begin, end);
 *   - the agents' state an AGENTS target gathers (the agents, or an in-place
 *     step's snapshot), ids and group bits of the neighbour behaviours, and
 *     without a grid the agents' state a neighbour behaviour reads: [0, count);
 *   - an AGENT target: that agent's position and velocity;
 *   - with a grid, the neighbour behaviours read none of the agents' state.
 * An array written in place (accumulated steering, wander state, the
 * integrator's agents, an in-place step's agents) may meet itself, and a
 * step's wander behaviours may share one state (the very same arrays: each
 * updates it for the agents that select it, in behaviour order); read-only
 * arrays may overlap each other; a step's behaviour that no agent of the
 * range selects touches none of its arrays. So two arrays cut end to end
 * from one allocation, or two disjoint ranges of one array for two calls,
 * are fine. What cannot be checked: the arrays' lengths (an array shorter
 * than the elements a call touches is the caller's bug, as is memory
 * another thread writes during the call). crowdsteer_reorder reports its
 * own overlap as PARAMETER. */

/** Seek: s = (normalize(t - p) * max_speed - v) / time_to_target. */
CROWDSTEER_API crowdsteer_status crowdsteer_seek(const crowdsteer_agents *agents,
                                                 const crowdsteer_target *target,
                                                 const crowdsteer_params *params,
                                                 const crowdsteer_output *out,
                                                 size_t begin, size_t end);

/** Flee: like seek, away from t; no steering beyond panic_radius. */
CROWDSTEER_API crowdsteer_status crowdsteer_flee(const crowdsteer_agents *agents,
                                                 const crowdsteer_target *target,
                                                 const crowdsteer_params *params,
                                                 const crowdsteer_output *out,
                                                 size_t begin, size_t end);

/** Arrive: seek that slows linearly inside slowing_radius and brakes to a
 *  stop inside target_radius. */
CROWDSTEER_API crowdsteer_status crowdsteer_arrive(const crowdsteer_agents *agents,
                                                   const crowdsteer_target *target,
                                                   const crowdsteer_params *params,
                                                   const crowdsteer_output *out,
                                                   size_t begin, size_t end);

/** Leave: flee at full speed inside escape_radius, slower farther out,
 *  nothing beyond danger_radius. */
CROWDSTEER_API crowdsteer_status crowdsteer_leave(const crowdsteer_agents *agents,
                                                  const crowdsteer_target *target,
                                                  const crowdsteer_params *params,
                                                  const crowdsteer_output *out,
                                                  size_t begin, size_t end);

/** Pursuit: seek where the target will be, T = len(d) / (max_speed +
 *  len(target velocity)) from now (at most max_prediction); a quarry ahead
 *  and coming head-on is sought directly. */
CROWDSTEER_API crowdsteer_status crowdsteer_pursuit(const crowdsteer_agents *agents,
                                                    const crowdsteer_target *target,
                                                    const crowdsteer_params *params,
                                                    const crowdsteer_output *out,
                                                    size_t begin, size_t end);

/** Evade: flee from where the pursuer will be (pursuit's prediction, no
 *  head-on shortcut), honouring panic_radius. */
CROWDSTEER_API crowdsteer_status crowdsteer_evade(const crowdsteer_agents *agents,
                                                  const crowdsteer_target *target,
                                                  const crowdsteer_params *params,
                                                  const crowdsteer_output *out,
                                                  size_t begin, size_t end);

/** Wander: w = normalize(w + jitter * r) (heading(v) if that is zero),
 *  s = heading(v) * wander_distance + w * wander_radius, with r from
 *  crowdsteer_random(seed, agent id, tick, axis). Updates `state`. */
CROWDSTEER_API crowdsteer_status crowdsteer_wander(const crowdsteer_agents *agents,
                                                   crowdsteer_wander_state *state,
                                                   const crowdsteer_params *params,
                                                   const crowdsteer_output *out,
                                                   size_t begin, size_t end);

/**
 * Integrator, in place on the agents' velocities and positions:
 *   f = truncate(s, max_force); a = f / mass;
 *   v = truncate(v + a * dt, max_speed); p = p + v * dt.
 * `steering` and the per-agent parameters must not overlap the agent arrays
 * (OVERLAP), nor the agent arrays each other.
 */
CROWDSTEER_API crowdsteer_status crowdsteer_integrate(const crowdsteer_agents *agents,
                                                      const crowdsteer_vectors *steering,
                                                      const crowdsteer_params *params,
                                                      size_t begin, size_t end);

/* ---- Host task systems --------------------------------------------------
 * An engine with its own job system can run crowdsteer's parallel work on
 * it instead of the library's own threads (the Box2D v3 style): grid
 * builds, steps (their tiles and neighbour passes) and the neighbour
 * behaviours' own calls take an optional crowdsteer_task_system. The
 * results are the same bits with any task system, any worker count, the
 * library's threads or one thread. */

/** Runs items [first, last) of a task crowdsteer handed to the host, with
 *  the context crowdsteer gave enqueue. Safe to call on any thread. */
typedef void crowdsteer_task_fn(uint32_t first, uint32_t last, void *task_context);

/** A host's job system. crowdsteer calls enqueue, then finish, from the
 *  thread of the call it is running, and never calls a task system from
 *  inside one of its own tasks. */
typedef struct crowdsteer_task_system {
  /** Must run task(first, last, task_context) so that every item of
   *  [0, item_count) is covered exactly once, in ranges of at least
   *  min_range items (a shorter last one allowed), on any threads (the
   *  caller's included), in any order, at once or not. Returns a handle
   *  for finish, or NULL after running every item itself. item_count is
   *  at least 1. */
  void *(*enqueue)(crowdsteer_task_fn *task, uint32_t item_count, uint32_t min_range,
                   void *task_context, void *host_context);
  /** Returns once every item of the task `handle` (enqueue's non-NULL
   *  result) has run, and its memory effects are visible to the caller. */
  void (*finish)(void *handle, void *host_context);
  /** How many of the host's threads may run tasks, 1 to 1024 (else
   *  PARAMETER): work that cannot be cut finer (a grid build's passes,
   *  a neighbour pass) is cut into this many pieces, at most. */
  uint32_t worker_count;
  /** Passed back to enqueue and finish. */
  void *host_context;
} crowdsteer_task_system;

/* ---- Neighbours ----------------------------------------------------------
 * Separation, cohesion and alignment see the agents within a radius. A
 * crowdsteer_grid is the index that finds them: a uniform grid of cubic
 * cells, hashed (agents anywhere in float range, no bounding box), holding
 * its own copy of the positions, velocities (unless built positions_only)
 * and group bits in cell order.
 * That copy is the state the neighbour behaviours read other agents from,
 * so build the grid from the state before a step and the step may then
 * update the agents in place. The grid is only an accelerator: the results
 * are the same bits for any cell size, table size, thread count or split,
 * and the same as without a grid (every pair examined). See the
 * "Neighbours" section of docs/behaviours.md. */

/** A reusable neighbour index (opaque). */
typedef struct crowdsteer_grid crowdsteer_grid;

/** How to build a grid. Zero-initialise, then set cell_size. */
typedef struct crowdsteer_grid_desc {
  /** Edge of a cell: a normal float, FLT_MIN (2^-126) <= cell_size <=
   *  FLT_MAX (else PARAMETER). Every radius the grid is queried with
   *  must be <= cell_size (else the query returns PARAMETER). The fastest
   *  choice is the largest radius in use. */
  float cell_size;
  /** Hash buckets: 0 means automatic (the smallest power of two >=
   *  2 * count, at least 512, at most 2^31); otherwise a
   *  power of two, at most 2^31. Smaller tables cost speed, never
   *  correctness. */
  size_t table_size;
  /** Per-agent group bits for the neighbour_mask filter, copied at build;
   *  NULL: the grid has no groups (a neighbour_mask is then an error). */
  const uint32_t *group;
  /** Threads for the build, as crowdsteer_step_desc.threads (0: every
   *  OpenMP thread; the result never depends on it). */
  int threads;
  /** Nonzero: the grid keeps positions (and group bits) but no velocities,
   *  and the build does not read the agents' velocity arrays (they may be
   *  NULL; a query, like every behaviour call, still takes them). It
   *  builds faster and holds 8 * dims bytes less per agent, and
   *  serves separation without a field of view only: cohesion, alignment
   *  and any field of view read velocities, and return PARAMETER on it. */
  int positions_only;
  /** Non-NULL: the build's passes run on this task system and `threads`
   *  is not read (NULL_POINTER if enqueue or finish is NULL). */
  const crowdsteer_task_system *tasks;
} crowdsteer_grid_desc;

/** Makes an empty grid (no memory beyond the handle until the first build).
 *  NULL_POINTER if `grid` is NULL, OUT_OF_MEMORY if allocation fails. */
CROWDSTEER_API crowdsteer_status crowdsteer_grid_create(crowdsteer_grid **grid);

/** Frees a grid and everything it holds; NULL is ignored. */
CROWDSTEER_API void crowdsteer_grid_destroy(crowdsteer_grid *grid);

/**
 * Indexes the whole batch (positions, velocities unless positions_only,
 * and, if given, group bits) by a stable counting sort into cell order.
 * Reads every agent's state (velocities only without positions_only); any
 * values are accepted (NaN or infinite positions only keep that agent out
 * of every neighbourhood). Memory grows only when count, dims, table size,
 * thread count, group bits or velocities (a full build after positions-only
 * ones) need more than any earlier build: once warm, a build allocates
 * nothing.
 * Per agent it holds (4 * dims + 3) * 4 bytes
 * ((2 * dims + 3) * 4 with positions_only; +8 with groups: the agents in
 * cell order and the build's records), plus
 * 4 bytes per bucket and up to 10 KiB per build thread;
 * crowdsteer_grid_bytes tells the total. On error the grid keeps its
 * previous contents. count must be below 2^32 - 1 (else RANGE).
 */
CROWDSTEER_API crowdsteer_status crowdsteer_grid_build(crowdsteer_grid *grid,
                                                       const crowdsteer_agents *agents,
                                                       const crowdsteer_grid_desc *desc);

/** Bytes of memory the grid holds now (0 for NULL). */
CROWDSTEER_API size_t crowdsteer_grid_bytes(const crowdsteer_grid *grid);

/**
 * The agent order of the grid's last successful build: order[s] is the
 * batch index of the agent in slot s (the agents bucket by bucket, each
 * bucket's by increasing index; every index below the count exactly once),
 * and *count (if count is not NULL) the number of slots. NULL, with *count
 * 0, for a NULL grid or one never built successfully (a build of an empty
 * batch gives a non-NULL pointer and 0). The array belongs to the grid:
 * valid until its next build or its destruction.
 *
 * A batch reordered by it (every per-agent array the calls read through
 * crowdsteer_reorder: positions, velocities, ids, wander directions,
 * per-agent parameters, masks, group bits, target arrays) keeps each agent
 * next to its neighbours in memory, so later builds, neighbour calls and
 * steps read and write memory nearly in order and run faster
 * (docs/benchmarks.md); as agents change cells the order decays, so
 * re-sort every so many steps.
 * With ids (crowdsteer_agents.id; a batch without them first gets the ids
 * 0 .. count - 1, its indices) every agent gets the same bits in either
 * order; keep agent targets by id. A grid built from the reordered batch
 * with the same cell_size and table size (an automatic one: the same
 * count) has the identity order.
 */
CROWDSTEER_API const uint32_t *crowdsteer_grid_order(const crowdsteer_grid *grid,
                                                     size_t *count);

/**
 * out[s] = in[order[s]] for every s < count, for arrays of 4-byte elements
 * (floats, ids, group bits, target indices), copied bit for bit; none of
 * the three needs any alignment. With crowdsteer_grid_order's array it puts
 * a batch in cell order. count 0 returns OK and touches nothing; otherwise
 * NULL_POINTER for a NULL pointer, PARAMETER (not OVERLAP) if out overlaps
 * in or order, RANGE if an entry of order is >= count. On error nothing is
 * written.
 */
CROWDSTEER_API crowdsteer_status crowdsteer_reorder(void *out, const void *in,
                                                    const uint32_t *order, size_t count);

/** Largest neighbour set: beyond it only the nearest count (ties broken by
 *  the lower agent id). */
#define CROWDSTEER_MAX_NEIGHBOURS 16384u

/**
 * Who an agent sees. Zero-initialise, then set grid (or group) and radius.
 * Agent i's neighbours are the agents q != i with len(p_q - p_i) < radius,
 * that pass the group filter and the field of view, and of those the
 * max_neighbours nearest (ties by lower id: crowdsteer_agents.id, or the
 * index). Per-agent arrays replace the uniform field for every agent and
 * are taken literally.
 */
typedef struct crowdsteer_neighbours {
  /** The index built from the agents' state; NULL examines every pair
   *  (O(count^2): the definition itself, for small batches and tests) in
   *  the behaviours' own entry points and crowdsteer_run; a step needs
   *  one. */
  const crowdsteer_grid *grid;
  /** Without a grid: per-agent group bits (NULL: no groups). With a grid
   *  it is ignored: the grid's copy is used. */
  const uint32_t *group;
  /** Radius, 0 or in [2^-60, cell_size] (any value >= 2^-60 without a
   *  grid), finite. A uniform 0 means the grid's cell size (an error
   *  without a grid); a per-agent 0 means that agent sees no one. */
  float radius;
  const float *radius_per_agent; /**< per-agent radius, or NULL */
  /** Nonzero: agent i sees only agents q with dot(heading(v_i),
   *  normalize(p_q - p_i)) >= cos_field_of_view (an agent at rest, and a
   *  coincident q, see all round; at rest means len(v_i) is not positive:
   *  a zero velocity, one whose squared length underflows to 0, or one
   *  with a NaN). 0: all round. */
  int field_of_view;
  /** Cosine of the half-angle of view, in [-1, 1] (no trigonometry is
   *  needed: 0 is a half-plane, -1 all round, 1 a single ray). */
  float cos_field_of_view;
  const float *cos_field_of_view_per_agent; /**< per-agent cos_field_of_view, or NULL */
  /** The nearest this many at most; 0 or anything above
   *  CROWDSTEER_MAX_NEIGHBOURS means CROWDSTEER_MAX_NEIGHBOURS. A cap that
   *  binds costs an agent past it at most 12 more passes over its
   *  candidates whatever the cap, about 4 (docs/behaviours.md). */
  uint32_t max_neighbours;
  /** Group filter: agent i sees q only if group[q] & mask != 0. A uniform
   *  0 means no filter; per-agent masks are taken literally (0 sees no
   *  one). Needs group bits (grid or `group`) when in effect. */
  uint32_t neighbour_mask;
  const uint32_t *neighbour_mask_per_agent; /**< per-agent neighbour_mask, or NULL */
  /** Non-NULL: a behaviour's own call (crowdsteer_separation, ...,
   *  crowdsteer_avoid) with a grid spreads its walk over this task system (NULL_POINTER
   * if enqueue or finish is NULL); NULL: it runs on the caller's thread. A step does not
   * read it (crowdsteer_step_desc.tasks). */
  const crowdsteer_task_system *tasks;
  int form;           /**< crowdsteer_form (crowdsteer_flock.h); 0: the formulas below */
  float inner_radius; /**< seen whatever the view within it (crowdsteer_flock.h) */
} crowdsteer_neighbours;

/* The neighbour behaviours below write steering like every other behaviour
 * (crowdsteer_output), for agents [begin, end). With a grid, every position
 * and velocity they use, agent i's own included, is the grid's copy (the
 * agents' position and velocity arrays are not read; count and dims must
 * match the build; ids, if any, are read from the agents: give the ids of
 * the batch the grid was built from); without one they read the agents. An
 * agent with no neighbour gets zero steering.
 * Sums over neighbours are exact (64-bit integer sums of contributions
 * rounded to multiples of 2^-24), so the visiting order never matters.
 * Per-agent arrays are read for the agents of [begin, end) only. A call
 * walks the whole grid in cell order and takes the agents of [begin, end)
 * it finds in tiles of one row of cells, so ranges of indices scattered
 * over space (a batch split by index over threads) each walk almost every
 * cell: to spread one behaviour over threads, prefer crowdsteer_step with
 * threads > 1 (it splits the grid's cells) or a batch sorted by cell. */

/** Separation: s = max_speed * sum over neighbours of d * (1/dist - 1/radius),
 *  d = p_i - p_q (coincident agents push apart along x: -x for the agent of
 *  lower id, +x for the other). Reads max_speed from params. */
CROWDSTEER_API crowdsteer_status crowdsteer_separation(const crowdsteer_agents *agents,
                                                       const crowdsteer_neighbours *nb,
                                                       const crowdsteer_params *params,
                                                       const crowdsteer_output *out,
                                                       size_t begin, size_t end);

/** Cohesion: seek the neighbours' centre, desired = normalize(sum of
 *  (p_q - p_i) / radius) * max_speed, s = (desired - v) / time_to_target. */
CROWDSTEER_API crowdsteer_status crowdsteer_cohesion(const crowdsteer_agents *agents,
                                                     const crowdsteer_neighbours *nb,
                                                     const crowdsteer_params *params,
                                                     const crowdsteer_output *out,
                                                     size_t begin, size_t end);

/** Alignment: s = (mean neighbour velocity - v) / time_to_target. */
CROWDSTEER_API crowdsteer_status crowdsteer_alignment(const crowdsteer_agents *agents,
                                                      const crowdsteer_neighbours *nb,
                                                      const crowdsteer_params *params,
                                                      const crowdsteer_output *out,
                                                      size_t begin, size_t end);

/** Behaviours, for crowdsteer_step. */
typedef enum crowdsteer_behaviour {
  CROWDSTEER_SEEK = 0,
  CROWDSTEER_FLEE = 1,
  CROWDSTEER_ARRIVE = 2,
  CROWDSTEER_LEAVE = 3,
  CROWDSTEER_PURSUIT = 4,
  CROWDSTEER_EVADE = 5,
  CROWDSTEER_WANDER = 6,
  /** Neighbour behaviours: read crowdsteer_step_behaviour.neighbours. */
  CROWDSTEER_SEPARATION = 7,
  CROWDSTEER_COHESION = 8,
  CROWDSTEER_ALIGNMENT = 9,
  /** Reads crowdsteer_step_behaviour.field (crowdsteer_nav.h); 2D. */
  CROWDSTEER_FOLLOW_FIELD = 10,
  /** Follow a pathway: reads crowdsteer_step_behaviour.path. */
  CROWDSTEER_FOLLOW_PATH = 11,
  /** Containment: reads crowdsteer_step_behaviour.bounds (crowdsteer_bounds.h). */
  CROWDSTEER_CONTAIN = 12,
  /** How many behaviours there are (not a behaviour): loop over
   *  0 .. CROWDSTEER_BEHAVIOUR_COUNT - 1 to visit each one. */
  CROWDSTEER_BEHAVIOUR_COUNT = 13
} crowdsteer_behaviour;

/** The inputs a behaviour reads besides the agents and its parameters, as
 *  returned by crowdsteer_behaviour_inputs (bits). */
enum {
  /** crowdsteer_step_behaviour.target (every target form) */
  CROWDSTEER_INPUT_TARGET = 1,
  /** the target's velocity too (pursuit, evade) */
  CROWDSTEER_INPUT_TARGET_VELOCITY = 2,
  /** crowdsteer_step_behaviour.wander, read and updated */
  CROWDSTEER_INPUT_WANDER = 4,
  /** crowdsteer_step_behaviour.neighbours */
  CROWDSTEER_INPUT_NEIGHBOURS = 8,
  /** crowdsteer_step_behaviour.field */
  CROWDSTEER_INPUT_FIELD = 16,
  /** crowdsteer_step_behaviour.path (crowdsteer_path.h) */
  CROWDSTEER_INPUT_PATH = 32,
  /** crowdsteer_step_behaviour.bounds (crowdsteer_bounds.h) */
  CROWDSTEER_INPUT_BOUNDS = 64
};

/** "seek", "flee", "arrive", "leave", "pursuit", "evade", "wander",
 *  "separation", "cohesion", "alignment", "follow_field", "follow_path" or "contain";
 *  "unknown" otherwise. */
CROWDSTEER_API const char *crowdsteer_behaviour_name(crowdsteer_behaviour behaviour);

/** Parses a name as returned by crowdsteer_behaviour_name (PARAMETER if it
 *  names no behaviour; NULL_POINTER if an argument is NULL). */
CROWDSTEER_API crowdsteer_status
crowdsteer_behaviour_from_name(const char *name, crowdsteer_behaviour *behaviour);

/** The CROWDSTEER_INPUT_* bits of a behaviour; 0 for an unknown value. */
CROWDSTEER_API unsigned crowdsteer_behaviour_inputs(crowdsteer_behaviour behaviour);

/** One behaviour of a mixed step. Zero-initialise, then set what you need. */
typedef struct crowdsteer_step_behaviour {
  crowdsteer_behaviour behaviour; /**< which behaviour */
  /** Its target (unused by wander). In place, AGENTS targets read the
   *  step's snapshot; an AGENT target is read by the step itself. */
  crowdsteer_target target;
  /** Its parameters (only the behaviour's own fields are read). A max_speed
   *  left at 0, without max_speed_per_agent, is the integrator's (its
   *  uniform value or its per-agent array), not 1. */
  crowdsteer_params params;
  /** Wander's state (wander only); updated only for agents that use it. */
  crowdsteer_wander_state *wander;
  /** Weight of this behaviour's steering, finite; 0 means 1. */
  float weight;
  /** Per-agent weights replacing `weight` when not NULL (taken literally). */
  const float *weight_per_agent;
  /** Separation, cohesion, alignment: who each agent sees (required, with
   *  its grid: unlike the behaviour's own entry point a step does not
   *  examine every pair, and returns NULL_POINTER without one). The step
   *  computes these behaviours for its range, cell by cell, before it
   *  moves anyone, into scratch memory (crowdsteer_step_desc.workspace:
   *  dims floats per agent of the range per behaviour, and for alignment
   *  on 8- or 16-lane backends 8 * dims bytes per agent of the grid), so
   *  a step in place needs no snapshot for them. The step only reads the
   *  grid: any number of steps and queries may share one grid at once. */
  const crowdsteer_neighbours *neighbours;
  /** Follow-the-field: which fields agents follow (crowdsteer_nav.h). */
  const struct crowdsteer_field_follow *field;
  /** Follow a path: who follows which pathway (crowdsteer_path.h). */
  const struct crowdsteer_path_follow *path;
  /** Containment: its region (crowdsteer_bounds.h; required, NULL_POINTER). */
  const struct crowdsteer_bounds *bounds;
} crowdsteer_step_behaviour;

/** Scratch memory of crowdsteer_step's neighbour behaviours and avoidance,
 *  and of crowdsteer_avoid (opaque). One per thread that steps: it belongs
 *  to one call at a time (a call finding it busy allocates for itself
 *  instead, see crowdsteer_step_desc). */
typedef struct crowdsteer_workspace crowdsteer_workspace;

/** Makes an empty workspace (no memory beyond the handle until a step
 *  needs it). NULL_POINTER if `workspace` is NULL, OUT_OF_MEMORY if
 *  allocation fails. */
CROWDSTEER_API crowdsteer_status
crowdsteer_workspace_create(crowdsteer_workspace **workspace);

/** Frees a workspace and its memory; NULL is ignored. It must not be in
 *  use by a running step. */
CROWDSTEER_API void crowdsteer_workspace_destroy(crowdsteer_workspace *workspace);

/** Bytes of memory the workspace holds now (0 for NULL); safe to call
 *  while a step uses it. */
CROWDSTEER_API size_t crowdsteer_workspace_bytes(const crowdsteer_workspace *workspace);

/** How a step combines the steering of an agent's behaviours. */
typedef enum crowdsteer_combine {
  /** s = sum over the agent's behaviours, in order, of weight * s_b
   *  (starting from zero; a behaviour the agent does not use adds nothing). */
  CROWDSTEER_BLEND = 0,
  /** s = weight * s_b of the first of the agent's behaviours, in order, with
   *  len(weight * s_b) > priority_threshold; if none, of its last behaviour;
   *  zero for an agent with no behaviour. */
  CROWDSTEER_PRIORITY = 1
} crowdsteer_combine;

/** Most behaviours one step can hold (one bit each in behaviour_mask). */
#define CROWDSTEER_STEP_MAX_BEHAVIOURS 32

/**
 * A mixed-crowd step: every agent's behaviours, combined, then integrated,
 * in one pass over memory. The result for each agent is bit-identical to
 * calling its behaviours one by one on that agent, combining as described
 * in crowdsteer_combine, and calling crowdsteer_integrate with `integrator`,
 * whatever the tile size and thread count.
 */
typedef struct crowdsteer_step_desc {
  const crowdsteer_step_behaviour
      *behaviours;            /**< behaviour_count behaviours, in order */
  size_t behaviour_count;     /**< 1 .. CROWDSTEER_STEP_MAX_BEHAVIOURS */
  crowdsteer_combine combine; /**< blend or priority */
  /** PRIORITY: steering magnitude a behaviour must exceed to win, >= 0. */
  float priority_threshold;
  /** Per agent, bit b set when behaviours[b] applies to that agent. NULL:
   *  every behaviour applies to every agent. Bits beyond behaviour_count are
   *  ignored. */
  const uint32_t *behaviour_mask;
  /** Integrator parameters (max_speed, max_force, mass, dt). */
  crowdsteer_params integrator;
  /** Where the new state goes. NULL: in place, into `agents`. Otherwise a
   *  second state buffer of the same count and dims, not overlapping
   *  `agents` (OVERLAP), which the step only reads then: swap the two
   *  buffers after each step (classic double buffering). Only the range is
   *  written. */
  const crowdsteer_agents *output;
  /** In place only (output NULL): the agents' state as it was before the
   *  step, for AGENTS targets (not AGENT ones), so an agent sees its target's old state
   *  whatever order tiles run in. Same count and dims as the agents, arrays
   *  not overlapping them (OVERLAP; a copy made before the step; copying
   *  only the agents that are targets is enough). Required when any behaviour has an
   *  AGENTS target and the step is in place; ignored otherwise (an
   *  out-of-place step reads targets from `agents`). */
  const crowdsteer_agents *snapshot;
  /** Agents per tile, 0 means 1024; at most 4096. Tiles small enough to stay
   *  in cache make the step one pass over memory. */
  size_t tile_size;
  /** Threads over tiles: 0 means every OpenMP thread (omp_get_max_threads),
   *  1 runs on the caller's thread. Any value from 0 to INT_MAX is valid:
   *  the team is clamped to the number of tiles, to omp_get_thread_limit(),
   *  to 4 * omp_get_num_procs() and to 1024. The caller and the library's
   *  own pool of workers run the team: idle workers sleep, and the caller
   *  never waits for a worker that has not started its part. A call that
   *  finds the pool busy with another host thread's call runs on its
   *  caller alone (same bits). The environment variable
   *  CROWDSTEER_THREADS=openmp, read once, makes teams OpenMP's instead
   *  (not clamped to 1024 then). Without OpenMP support every value runs
   *  on the caller's thread. */
  int threads;
  /** Where a step with separation, cohesion or alignment keeps their
   *  steering while it runs. NULL: the step allocates that memory for the
   *  call and frees it before returning (a step without them never
   *  allocates). A workspace grows when a step needs more and is then
   *  reused, so warm steps allocate nothing: give each thread that steps
   *  its own. A step that finds its workspace in use by another step at
   *  that moment does not wait and does not touch it: it allocates for
   *  the call as with NULL. Results never depend on the workspace. */
  crowdsteer_workspace *workspace;
  /** Non-NULL: the step's tiles and neighbour passes run on this task
   *  system and `threads` is not read (NULL_POINTER if enqueue or finish
   *  is NULL); its workers need the stack an OpenMP worker needs. The
   *  neighbours' own `tasks` fields are not read by a step. */
  const crowdsteer_task_system *tasks;
  /** Non-NULL: avoidance (ORCA, crowdsteer_avoid.h) as the step's last
   *  stage. Each agent's integrated velocity is its preferred velocity;
   *  the velocity ORCA picks (with the integrator's max_speed and dt)
   *  replaces it, and the agent moves by it from where it was. Its
   *  neighbours need a grid built from the state before the step
   *  (NULL_POINTER without one); NULL neighbours avoids obstacles only.
   *  With obstacles the walls hold: no agent's move crosses an obstacle
   *  edge (a move that would slides along the edge or stops short, and its
   *  velocity becomes the move made over dt: CROWDSTEER_REPORT_WALL), and
   *  an agent inside a polygon stays where it is, at rest
   *  (CROWDSTEER_REPORT_INSIDE). The results are those of integrating,
   *  then crowdsteer_avoid, then moving, whatever the threads or tiles;
   *  with a grid each agent's own position and velocity before the step
   *  are read from the grid's copy (as crowdsteer_avoid reads them), and
   *  when the range holds a quarter of the grid's agents or more the
   *  stage runs after every tile, over the grid's slots (neighbours in
   *  one cell follow each other in memory). */
  const struct crowdsteer_avoidance *avoidance;
  /** Non-NULL: the new positions wrap around in this box, last, exactly as
   *  crowdsteer_wrap then does (crowdsteer_bounds.h; its validation). With
   *  avoidance's obstacles too, PARAMETER unless no wrap can carry an agent
   *  past an obstacle: the range's agents start inside the box, no edge
   *  comes within a move of a face but one running along that axis from
   *  beyond one face to beyond the other, and no polygon but one across
   *  the box on one axis and inside it on the other (docs/guarantees.md). */
  const struct crowdsteer_box *wrap;
} crowdsteer_step_desc;

/** Runs a mixed step on agents [begin, end). It allocates nothing (but a
 *  step with neighbour behaviours or avoidance allocates its scratch
 *  memory per call without a workspace, and grows its workspace when
 *  needed). With threads = 1 it needs about 9 KiB of the caller's stack
 *  plus 0.7 KiB per behaviour, 0.3 KiB more per neighbour behaviour, so a
 *  step of a few behaviours runs on a 32 KiB thread or fiber stack (the
 *  measured figures, and what the neighbour pass and lazy binding add:
 *  docs/guarantees.md); with more threads the caller and each worker (the
 *  pool's have the system's default thread stack; OpenMP's OMP_STACKSIZE)
 *  need that plus 0.6 KiB per behaviour. Validates everything first
 *  and writes nothing on error: the step's fields, every behaviour as its
 *  own entry point would (a neighbour behaviour's grid is required too,
 *  NULL_POINTER without one), except for the mask contract: every per-agent
 *  array a behaviour uses (parameters, weights, target arrays and indices,
 *  wander state) must be readable over [begin, end), but the values of the
 *  agents the behaviour does not select are never validated and never
 *  change any result (wander neither reads nor writes their state, and no
 *  target is gathered through their indices); and that no array it writes
 *  overlaps another it touches ("Memory overlap"). When the input has
 *  several faults, the status of any one of them may be returned. */
CROWDSTEER_API crowdsteer_status crowdsteer_step(const crowdsteer_agents *agents,
                                                 const crowdsteer_step_desc *step,
                                                 size_t begin, size_t end);

/** Runs one behaviour, described as for a step, on agents [begin, end):
 *  the same validation and bits as its own entry point (crowdsteer_seek,
 *  ..., crowdsteer_alignment), which are this call with the behaviour's
 *  inputs filled in. Reads `behaviour->behaviour`, `params` and the inputs
 *  crowdsteer_behaviour_inputs names (target, wander, neighbours); the
 *  steering is written as `out` says (its weight applies: the step fields
 *  weight and weight_per_agent are not read). A max_speed left at 0 means
 *  1 (no integrator is given: its default), as for the named entry points.
 *  PARAMETER for an unknown behaviour. */
CROWDSTEER_API crowdsteer_status crowdsteer_run(
    const crowdsteer_agents *agents, const crowdsteer_step_behaviour *behaviour,
    const crowdsteer_output *out, size_t begin, size_t end);

/** How many threads crowdsteer_step uses when its `threads` field is 0: the
 *  OpenMP default (OMP_NUM_THREADS or the cores), or 1 in a build without
 *  OpenMP. Thread-safe. (The library's pool's idle workers poll for about
 *  10 us, then sleep; with CROWDSTEER_THREADS=openmp, idle OpenMP workers
 *  spin longer under libgomp's default OMP_WAIT_POLICY.) */
CROWDSTEER_API int crowdsteer_step_max_threads(void);

/** Wander's random number for (seed, agent id, tick, axis 0..2): a
 *  multiple of 2^-23 in [-1, 1), the same on every ISA. The agent id is
 *  crowdsteer_agents.id[i], or the index i in the batch without ids. */
CROWDSTEER_API float crowdsteer_random(uint32_t seed, uint32_t agent_id, uint32_t tick,
                                       uint32_t axis);

/** Instruction sets a backend can use. */
typedef enum crowdsteer_isa {
  CROWDSTEER_ISA_SCALAR = 0, /**< the scalar reference, everywhere */
  CROWDSTEER_ISA_SSE4 = 1,   /**< x86 SSE4.1, 4 lanes */
  CROWDSTEER_ISA_AVX2 = 2,   /**< x86 AVX2, 8 lanes */
  CROWDSTEER_ISA_AVX512 = 3, /**< x86 AVX-512 F/DQ/BW/VL, 16 lanes */
  CROWDSTEER_ISA_NEON = 4,   /**< ARM NEON (aarch64), 4 lanes */
  /** WebAssembly SIMD (the wasm build), 4 lanes */
  CROWDSTEER_ISA_SIMD128 = 5,
  CROWDSTEER_ISA_COUNT = 6
} crowdsteer_isa;

/** The ISA the behaviours run on now. On first use it is the best ISA the
 *  build and CPU support, unless the environment variable CROWDSTEER_ISA
 *  (scalar, sse4, avx2, avx512, neon, simd128) names another. Thread-safe. */
CROWDSTEER_API crowdsteer_isa crowdsteer_active_isa(void);

/** Whether this build contains `isa` and this CPU (and OS) can run it. */
CROWDSTEER_API int crowdsteer_isa_supported(crowdsteer_isa isa);

/** Makes every later call use `isa`. Returns UNKNOWN_ISA or UNSUPPORTED_ISA
 *  (and changes nothing) if it cannot. Thread-safe, but calls already running
 *  finish on the ISA they started with. */
CROWDSTEER_API crowdsteer_status crowdsteer_force_isa(crowdsteer_isa isa);

/** "scalar", "sse4", "avx2", "avx512", "neon" or "simd128"; "unknown" otherwise. */
CROWDSTEER_API const char *crowdsteer_isa_name(crowdsteer_isa isa);

/** Parses an ISA name as accepted by CROWDSTEER_ISA. */
CROWDSTEER_API crowdsteer_status crowdsteer_isa_from_name(const char *name,
                                                          crowdsteer_isa *isa);

#ifdef __cplusplus
}
#endif

/* The API's other parts, each in its own header (see the list on top). */
#include "crowdsteer_avoid.h"
#include "crowdsteer_bounds.h"
#include "crowdsteer_flock.h"
#include "crowdsteer_ids.h"
#include "crowdsteer_nav.h"
#include "crowdsteer_path.h"
#include "crowdsteer_query.h"

#endif /* CROWDSTEER_H */
