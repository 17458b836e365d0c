/* Internal contract between the public API layer (validation, defaults) and
 * the backends (scalar reference and SIMD kernels): one resolved job struct
 * and one table of kernels per ISA. */
#ifndef CROWDSTEER_INTERNAL_H
#define CROWDSTEER_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "crowdsteer.h"

/* The host's floating-point environment, saved by cs_fpenv_enter. Every
 * public entry point computes in one fixed environment (see fpenv.c) and
 * gives the host its own back:
 *   const cs_fpenv host = cs_fpenv_enter();
 *   return cs_fpenv_return(host, <the call's work>);
 * and so does every OpenMP worker, around its share of a parallel region
 * (the library's pool workers enter it once, for good). */
typedef struct cs_fpenv {
  uint64_t state; /* MXCSR, FPCR or the rounding direction */
  int changed;    /* whether the host was in another mode */
} cs_fpenv;
cs_fpenv cs_fpenv_enter(void);
void cs_fpenv_leave(cs_fpenv host);
static inline crowdsteer_status cs_fpenv_return(cs_fpenv host, crowdsteer_status status) {
  cs_fpenv_leave(host);
  return status;
}

/* Threads a call that asks for `requested` (0: the OpenMP default) runs on
 * when its work splits into `units` independent pieces: clamped to the
 * pieces, the OpenMP thread limit and four per processor (see step.c). */
int cs_team_size(int requested, size_t units);

/* A parameter after defaults: per-agent array when not NULL, else value. */
typedef struct cs_param {
  float value;
  const float *array;
} cs_param;

static inline float cs_param_at(cs_param p, size_t i) {
  return p.array ? p.array[i] : p.value;
}

/* Agent i's id: ids[i], or i itself without ids (crowdsteer_agents.id). */
static inline uint32_t cs_agent_id(const uint32_t *ids, size_t i) {
  return ids ? ids[i] : (uint32_t)i;
}

/* Pursuit's and evade's look-ahead limit of agent i: +inf is read as the
 * largest float, which is no limit for any T a finite state gives. */
static inline float cs_max_prediction(cs_param p, size_t i) {
  const float m = cs_param_at(p, i);
  return m < 0x1.fffffep127f ? m : 0x1.fffffep127f;
}

/* Which parameters a behaviour reads (cs_behaviour_row.params). */
enum {
  CS_USES_MAX_SPEED = 1 << 0,
  CS_USES_TIME_TO_TARGET = 1 << 1,
  CS_USES_ARRIVE_RADII = 1 << 2,
  CS_USES_PANIC_RADIUS = 1 << 3,
  CS_USES_LEAVE_RADII = 1 << 4,
  CS_USES_PREDICTION = 1 << 5,
  CS_USES_WANDER = 1 << 6,
  CS_USES_INTEGRATOR = 1 << 7
};

/* The machinery that computes a behaviour's steering (its row says which).
 * CS_RUNS_ON_KERNELS: row b of every backend (cs_backend_scalar in
 * reference.c, each SIMD backend in kernels.c), agent by agent.
 * CS_RUNS_ON_NEIGHBOURS: a query over every agent first (neighbours/); a
 * single call runs cs_nb_run, a step computes it before its tiles (the
 * backends' row b then reads that steering). */
typedef enum cs_machinery { CS_RUNS_ON_KERNELS = 0, CS_RUNS_ON_NEIGHBOURS } cs_machinery;

/* One row of the table of behaviours (behaviours.c), indexed by
 * crowdsteer_behaviour: what validation, dispatch and the step need to know. */
typedef struct cs_behaviour_row {
  const char *name;
  unsigned inputs;        /* CROWDSTEER_INPUT_* */
  unsigned params;        /* CS_USES_* */
  cs_machinery machinery; /* left out of a row: the kernels */
} cs_behaviour_row;
extern const cs_behaviour_row cs_behaviours[];

/* The row of a behaviour, NULL for a value out of the enum. */
const cs_behaviour_row *cs_behaviour_row_of(crowdsteer_behaviour behaviour);

/* Whether the neighbour machinery runs a behaviour (0 for an unknown one). */
static inline int cs_runs_on_neighbours(crowdsteer_behaviour behaviour) {
  const cs_behaviour_row *row = cs_behaviour_row_of(behaviour);
  return row && row->machinery == CS_RUNS_ON_NEIGHBOURS;
}

/* A behaviour's inputs, validated and with defaults applied: what it reads.
 * Arrays are indexed by global agent index; unused axes (z in 2D) are NULL. */
typedef struct cs_inputs {
  int dims;
  size_t count;
  const float *pos[3];
  const float *vel[3];

  crowdsteer_target_kind target_kind;
  float target_point[3];
  float target_point_velocity[3];
  const float *target_pos[3];
  const float *target_vel[3];
  const uint32_t *target_index;
  /* Where AGENTS targets are gathered from: the agents themselves, or the
   * snapshot of a mixed step. */
  const float *gather_pos[3];
  const float *gather_vel[3];
  /* Gather with the ISA's gather instruction (where it has one and every
   * index fits its signed 32 bits) rather than with scalar loads: which is
   * faster depends on the CPU, never the result (cs_gather_instruction_pays). */
  int gather_instruction;

  cs_param max_speed, time_to_target;
  cs_param target_radius, slowing_radius, panic_radius;
  cs_param danger_radius, escape_radius;
  cs_param wander_radius, wander_distance, jitter;
  /* Finite even when the caller asks for +inf, so tv * T never makes NaN
   * (per-agent elements are clamped where they are read: cs_max_prediction). */
  cs_param max_prediction;

  float *wander[3];
  /* cs_random_key(seed, tick, axis) of the call's wander state, per axis. */
  uint32_t wander_key[3];
  /* Wander's random stream is keyed by agent_id[i] (crowdsteer_agents.id),
   * or by i when it is NULL. */
  const uint32_t *agent_id;

  /* Follow-the-field (nav/follow.c): the fields' shared grid, agent i's
   * field (fields[field_index[i]], or fields[0] when field_index is NULL)
   * and its cell's direction (nav/field.h; cell field_cells outside). */
  const crowdsteer_field *const *fields;
  const uint32_t *field_index;
  uint32_t field_count;
  uint32_t field_width, field_cells;
  float field_origin[2], field_inverse_cell_size, field_width_f, field_height_f;
  /* Follow a path: the call's description, validated (path/follow.c). */
  const crowdsteer_path_follow *path;
  /* Containment: the region, validated (bounds/bounds.c); its centre is
   * the POINT target the agents outside seek. */
  const crowdsteer_bounds *bounds;
} cs_inputs;

/* How steering is written. A single call overwrites or accumulates (the
 * public crowdsteer_write_mode); crowdsteer_step accumulates (blend) or
 * gives each agent to its first behaviour whose weighted steering is longer
 * than priority_threshold (priority); a large overwrite streams its
 * vector-aligned middle (kernels.c, stream_split). */
typedef enum cs_write_mode {
  CS_WRITE_OVERWRITE,
  CS_WRITE_ACCUMULATE,
  CS_WRITE_PRIORITY,
  CS_WRITE_STREAM
} cs_write_mode;

/* Where and for which agents a behaviour's steering goes: the call's output
 * or, in a step, the tile's accumulator and the step's policy. */
typedef struct cs_policy {
  cs_write_mode mode;
  cs_param weight;
  /* Steering of agent i lives at out[k][i - out_base]: a mixed step points
   * it at a chunk-sized accumulator. 0 for a single call. */
  float *out[3];
  size_t out_base;
  /* Mixed steps: agent i takes part only if lane_select[i] & lane_bit
   * (all agents when lane_select is NULL); a behaviour still computes every
   * lane but writes only those, and reads no input of the others. */
  const uint32_t *lane_select;
  uint32_t lane_bit;
  /* CS_WRITE_PRIORITY: decided[i - out_base] becomes 1 once a behaviour won. */
  float *decided;
  float priority_threshold;
} cs_policy;

/* One behaviour's work: its inputs and where its steering goes. In a step,
 * a neighbour behaviour's steering is computed before the tiles and read
 * from precomputed[k][i - precomputed_base] (see step_neighbours.h). */
typedef struct cs_job {
  cs_inputs in;
  cs_policy policy;
  const float *precomputed[3];
  size_t precomputed_base;
} cs_job;

/* The integrator's inputs: it reads pos/vel and the steering of agent i at
 * steering[k][i - steering_base], writes pos_rw/vel_rw (the same arrays,
 * except for an out-of-place crowdsteer_step). */
typedef struct cs_integrator {
  int dims;
  size_t count;
  const float *pos[3];
  const float *vel[3];
  float *pos_rw[3];
  float *vel_rw[3];
  const float *steering[3];
  size_t steering_base;
  cs_param max_speed, max_force, mass;
  float dt;
  /* crowdsteer_motion (crowdsteer_flock.h): the low-speed turn limit's
   * fraction of max_speed (0: none), the acceleration smoothing rate (0:
   * none) and its per-agent state, read and written at index i. */
  float turn, smoothing;
  float *accel[3];
} cs_integrator;

typedef void (*cs_kernel)(const cs_job *job, size_t begin, size_t end);
typedef void (*cs_integrator_kernel)(const cs_integrator *job, size_t begin, size_t end);

/* A chunk of a step in which every agent takes part in one behaviour (not a
 * neighbour behaviour) and no other: each block of agents computes its
 * steering, combines it and integrates in registers, and stores its state
 * once, with the bits of the accumulator's path (step.c). The job's lane
 * selection and output are not read. */
typedef struct cs_fused_chunk {
  const cs_job *job;
  crowdsteer_behaviour kind;
  int priority; /* CROWDSTEER_PRIORITY, else blend */
  const cs_integrator *integrator;
} cs_fused_chunk;
typedef void (*cs_fused_kernel)(const cs_fused_chunk *chunk, size_t begin, size_t end);

/* One backend: a kernel per behaviour and dims, behaviour[b][dims - 2]
 * indexed by crowdsteer_behaviour (for the behaviours that run on the
 * neighbour machinery, a copy of the steering a step computed before its
 * tiles: cs_job.precomputed), and the integrator (2D and 3D). `run` runs a kernel for a
 * single-behaviour call (the SIMD backends stream a large OVERWRITE output). `fused` runs
 * a step's chunk in registers, for the chunks whose behaviour, shape and dims `fuses`
 * accepts (the others keep the accumulator; both NULL for the scalar reference, which
 * always goes through the accumulator). */
typedef struct cs_backend {
  const cs_kernel (*behaviour)[2];
  cs_integrator_kernel integrate;
  void (*run)(cs_kernel kernel, const cs_job *job, size_t begin, size_t end);
  int (*fuses)(const cs_fused_chunk *chunk);
  cs_fused_kernel fused;
  /* Whether every index[begin..end) is below limit (NULL: validation.c's loop). */
  int (*indices_below)(const uint32_t *index, size_t begin, size_t end, uint32_t limit);
  /* A step's wrap of positions [first, last) into the box, crowdsteer_wrap's
   * bits (NULL: cs_wrap_positions, bounds/bounds.h, the scalar definition). */
  void (*wrap)(float *const pos[3], const crowdsteer_box *box, int dims, size_t first,
               size_t last);
} cs_backend;

extern const cs_backend cs_backend_scalar;
/* The reference's seek of one agent towards t (s: dims components); the
 * same operations as every backend's seek. */
void cs_reference_seek(const float p[3], const float v[3], const float t[3],
                       float max_speed, float time_to_target, int dims, float s[3]);
extern const cs_backend cs_backend_sse4;
extern const cs_backend cs_backend_avx2;
extern const cs_backend cs_backend_avx512;
extern const cs_backend cs_backend_neon;
extern const cs_backend cs_backend_simd128;

/* The backend calls run on now (see dispatch.c). */
const cs_backend *cs_active_backend(void);
/* Whether this CPU's vector gather instruction beats scalar loads inserted
 * into a register: yes on Intel (Sapphire Rapids: 86 against 102 us for
 * seek_agents at 65,536), no on AMD (Zen 3 with AVX2, Zen 5 with AVX-512:
 * pursuit and evade with agent targets 15-45 % faster without it). Decided
 * once; tests set it both ways (the bits are the same). */
int cs_gather_instruction_pays(void);
void cs_set_gather_instruction(int use);
/* Whether the CPU has PREFETCHW (x86: cpuid 0x80000001 ECX bit 8; 0
 * elsewhere, where the plain write prefetch is the architecture's own),
 * decided once; the grid build's partition pass uses it. Tests turn it
 * off (0) and back to the CPU's answer (1): the grid is the same. */
int cs_write_prefetch(void);
void cs_set_write_prefetch(int allow);
/* How grid builds sort (grid.c): 0 each build chooses, 1 the partitioned
 * passes, 2 the direct sort. Tests force each way (the grid is the same). */
void cs_grid_set_sort(int way);
/* The nearest-k selection's work (neighbours/query.c), counted for the tests
 * while on (counting from 0 again each time it is turned on): the
 * selections past the kept buffer, their candidates, the candidates their
 * passes visited, and the most passes one took. */
typedef struct cs_selection_work {
  uint64_t selections, candidates, visits, most_passes;
} cs_selection_work;
void cs_count_selections(int on);
cs_selection_work cs_selection_counts(void);
/* The backend compiled in for an ISA, NULL if none (whatever the CPU). */
const cs_backend *cs_backend_for(crowdsteer_isa isa);

/* The agents a validation covers: [begin, end), and of those only the ones
 * with select[i] & bit (all of them when select is NULL). */
typedef struct cs_range {
  size_t begin, end;
  const uint32_t *select;
  uint32_t bit;
} cs_range;

/* ---- validation (validation.c), below every entry point ------------------ */

/* Validation and defaults of one behaviour, once per call, except for the
 * values of its per-agent data: the arrays it reads are present and aligned
 * (for a non-empty [begin, end)), its uniform values are in range, an AGENT
 * target is read (from in->gather_*, the agents). Shared by the
 * single-behaviour entry points and crowdsteer_step. */
crowdsteer_status cs_resolve_behaviour(cs_inputs *in, crowdsteer_behaviour behaviour,
                                       const crowdsteer_agents *agents,
                                       const crowdsteer_target *target,
                                       const crowdsteer_wander_state *wander,
                                       const crowdsteer_field_follow *field,
                                       const crowdsteer_params *params, size_t begin,
                                       size_t end);
/* The values of a resolved behaviour's per-agent data (parameter arrays,
 * agent indices) for the agents `r` covers; and whether it has any. */
crowdsteer_status cs_check_agent_data(const cs_inputs *in, crowdsteer_behaviour behaviour,
                                      const cs_range *r);
int cs_has_agent_data(const cs_inputs *in, crowdsteer_behaviour behaviour);
/* Both, for the agents of [begin, end) whose select[i] has select_bit (all
 * when select is NULL). */
crowdsteer_status cs_prepare_behaviour(
    cs_inputs *in, crowdsteer_behaviour behaviour, const crowdsteer_agents *agents,
    const crowdsteer_target *target, const crowdsteer_wander_state *wander,
    const crowdsteer_field_follow *field, const crowdsteer_params *params, size_t begin,
    size_t end, const uint32_t *select, uint32_t select_bit);
/* Resolves a CROWDSTEER_TARGET_AGENT target into the inputs as a POINT
 * target holding that agent's state, read now from in->gather_* (so a mixed
 * step reads it before any tile writes): checks the index against count. */
crowdsteer_status cs_resolve_target_agent(cs_inputs *in, const crowdsteer_target *target,
                                          int needs_velocity);
/* Follow-the-field's fields (nav/follow.c): present, built, sharing one
 * grid, 2D agents; the uniform index below field_count. Per-agent indices
 * are checked with the agent data (cs_check_agent_data). */
crowdsteer_status cs_resolve_field(cs_inputs *in, const crowdsteer_field_follow *follow,
                                   size_t begin, size_t end);
/* Validation and defaults of the integrator (all but its steering input). */
crowdsteer_status cs_prepare_integrator(cs_integrator *job,
                                        const crowdsteer_agents *agents,
                                        const crowdsteer_params *params, size_t begin,
                                        size_t end);
/* Validation of crowdsteer_integrate's steering input, after
 * cs_prepare_integrator: present, and for a non-empty range aligned. */
crowdsteer_status cs_prepare_steering(cs_integrator *job,
                                      const crowdsteer_vectors *steering, size_t begin,
                                      size_t end);
/* Validation of a single call's output. */
crowdsteer_status cs_prepare_output(cs_policy *policy, int dims,
                                    const crowdsteer_output *out, size_t begin,
                                    size_t end);
/* The memory a call may touch, for CROWDSTEER_ERROR_OVERLAP: per array, the
 * bytes of its elements [first, last) (every element is 4 bytes), and
 * whether the call writes them. An array written in place (accumulated
 * steering, wander state, an in-place step's agents) is one span: it may
 * meet itself, nothing else may meet a written span, and read-only spans
 * may overlap each other. NULL arrays and empty extents touch nothing and
 * are left out. At most CS_SPANS_MAX spans: one behaviour call adds 42 at
 * most (cs_behaviour_spans and its caller), a step's own arrays 22. */
enum { CS_SPANS_MAX = 48 };
typedef struct cs_spans {
  uintptr_t lo[CS_SPANS_MAX], hi[CS_SPANS_MAX];
  uint64_t written; /* bit s: span s is written */
  int n;
} cs_spans;
static inline void cs_spans_add(cs_spans *spans, const void *array, size_t first,
                                size_t last, int written) {
  if (!array || first >= last || spans->n == CS_SPANS_MAX) return;
  const uintptr_t base = (uintptr_t)array;
  const int s = spans->n++;
  spans->lo[s] = base + first * sizeof(float);
  /* A span that would wrap the address space reaches its top instead: an
   * array that long cannot exist, and the compare stays exact below it. */
  const uintptr_t hi = base + last * sizeof(float);
  spans->hi[s] = hi > spans->lo[s] ? hi : UINTPTR_MAX;
  if (written) spans->written |= UINT64_C(1) << s;
}
/* The dims axes of a vector array (z ignored in 2D). */
void cs_spans_add_vectors(cs_spans *spans, const crowdsteer_vectors *v, int dims,
                          size_t first, size_t last, int written);
/* The positions and velocities of a state buffer over [first, last). */
void cs_spans_add_state(cs_spans *spans, const crowdsteer_agents *state, int dims,
                        size_t first, size_t last, int written);
/* Whether a written span of either set meets a span of the other (a and b
 * may be the same set: a span is then not compared with itself). */
int cs_spans_clash(const cs_spans *a, const cs_spans *b);
/* The arrays behaviour `behaviour` reads or writes over [begin, end) other
 * than the agents' own state at their own index and its output: target
 * arrays and indices, the agent state agent targets are read from (AGENTS
 * from `gather` over the whole batch, AGENT from `point` at its one index;
 * either NULL: not a separate array), per-agent parameters, wander state
 * (written) and ids, the neighbour description's per-agent arrays (and,
 * without a grid, its group bits and the agents' state over the whole
 * batch). Reads only pointers, never an element. */
void cs_behaviour_spans(cs_spans *spans, crowdsteer_behaviour behaviour,
                        const crowdsteer_agents *agents, const crowdsteer_target *target,
                        const crowdsteer_wander_state *wander,
                        const crowdsteer_neighbours *nb,
                        const crowdsteer_field_follow *field,
                        const crowdsteer_params *params, const crowdsteer_agents *gather,
                        const crowdsteer_agents *point, size_t begin, size_t end);

/* Whether an array is aligned to 4 bytes, as every float (and uint32_t)
 * array a call uses must be: it is read and written as such. */
int cs_aligned(const void *array);
/* Every element of `a` that `r` covers is finite. */
int cs_all_finite(const float *a, const cs_range *r);

/* crowdsteer_run and crowdsteer_integrate with an explicit backend:
 * validation and defaults included. Benchmarks use them to run competitors
 * built outside the library's backends. */
crowdsteer_status cs_run(const cs_backend *backend, const crowdsteer_agents *agents,
                         const crowdsteer_step_behaviour *behaviour,
                         const crowdsteer_output *out, size_t begin, size_t end);
crowdsteer_status cs_run_integrate(const cs_backend *backend,
                                   const crowdsteer_agents *agents,
                                   const crowdsteer_vectors *steering,
                                   const crowdsteer_params *params, size_t begin,
                                   size_t end);

/* A neighbour behaviour's single call (neighbours/neighbours.c), for the
 * entry points of api.c: validation included, on the active ISA. */
crowdsteer_status cs_nb_run(crowdsteer_behaviour behaviour,
                            const crowdsteer_agents *agents,
                            const crowdsteer_neighbours *nb,
                            const crowdsteer_params *params, const crowdsteer_output *out,
                            size_t begin, size_t end);

/* Wander's counter-based generator. A bijective 32-bit mixer (the "lowbias32"
 * constants) keyed by seed, tick and axis once per call, then by the agent's
 * id (its global index without ids) once per agent and axis. Kernels reimplement this
 * with vector integer ops and must match it exactly. */
#define CS_GOLDEN 0x9E3779B9u
static inline uint32_t cs_mix32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

static inline uint32_t cs_random_key(uint32_t seed, uint32_t tick, uint32_t axis) {
  return cs_mix32(cs_mix32(seed + axis * CS_GOLDEN) ^ tick);
}

/* 24 random bits scaled to a multiple of 2^-23 in [-1, 1); every step exact. */
static inline float cs_random_from_key(uint32_t key, uint32_t agent_id) {
  uint32_t h = cs_mix32(key ^ agent_id);
  return (float)(int32_t)(h >> 8) * 0x1p-23f - 1.0f;
}

#endif /* CROWDSTEER_INTERNAL_H */
