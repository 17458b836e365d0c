/* One call of a single entry point as fuzz_case.c decodes it: its arrays
 * (world), its options (fuzz_case), and what runs it (fuzz_case_call.c). */
#ifndef CROWDSTEER_FUZZ_CASE_CALL_H
#define CROWDSTEER_FUZZ_CASE_CALL_H

#include <stddef.h>
#include <stdint.h>

#include "crowdsteer.h"
#include "fuzz_common.h"

enum field {
  F_PX,
  F_PY,
  F_PZ,
  F_VX,
  F_VY,
  F_VZ, /* agent state */
  F_TPX,
  F_TPY,
  F_TPZ,
  F_TVX,
  F_TVY,
  F_TVZ, /* target arrays */
  F_OX,
  F_OY,
  F_OZ, /* steering output */
  F_WX,
  F_WY,
  F_WZ, /* wander state */
  F_SX,
  F_SY,
  F_SZ, /* integrator's steering input */
  F_MAX_SPEED,
  F_MAX_FORCE,
  F_MASS,
  F_TARGET_RADIUS,
  F_SLOWING_RADIUS,
  F_PANIC_RADIUS,
  F_DANGER_RADIUS,
  F_ESCAPE_RADIUS,
  F_WANDER_RADIUS,
  F_WANDER_DISTANCE,
  F_WEIGHT, /* per-agent parameters */
  F_TIME_TO_TARGET,
  F_MAX_PREDICTION,
  F_JITTER,
  F_COUNT
};
enum { F_FIRST_PARAM = F_MAX_SPEED, VECTOR_FIELDS = F_MAX_SPEED };

/* Each array is its own allocation of exactly `count` elements, so any read
 * or write past the batch is an AddressSanitizer report. */
typedef struct world {
  size_t count;
  float *f[F_COUNT];
  uint32_t *index;
  uint32_t *id; /* stable agent ids (used when the case says so) */
} world;

/* The entry points the fuzzer calls: the behaviours with their own kernels,
 * by their crowdsteer_behaviour values (fuzz_neighbours.c has the others),
 * the integrator and the ISA functions. */
enum entry { E_INTEGRATE = CROWDSTEER_WANDER + 1, E_ISA, E_COUNT };

/* NULL-pointer choices: whole structs, then one bit per vector array. */
enum {
  N_AGENTS,
  N_TARGET,
  N_PARAMS,
  N_OUT,
  N_AUX,    /* AUX: wander state / steering */
  N_ARRAY0, /* + field, for F_PX .. F_SZ */
  N_INDEX = N_ARRAY0 + VECTOR_FIELDS,
  N_BITS
};

typedef struct fuzz_case {
  int entry, dims;
  size_t count, begin, end, split;
  int target_kind, mode;
  uint32_t nulls;     /* 1 << N_* */
  uint32_t per_agent; /* 1 << (field - F_FIRST_PARAM) */
  crowdsteer_params params;
  uint32_t agent; /* CROWDSTEER_TARGET_AGENT's index */
  float point[3], point_velocity[3], weight;
  uint32_t seed, tick;
  int nan_probe, nan_field;
  size_t nan_agent;
  int host_mode;      /* 0 .. CS_FUZZ_HOST_MODES - 1, for the call under test */
  int misalign_field; /* -1, a field, or F_COUNT for the indices */
  unsigned misalign_bytes;
  int id_mode; /* agents' ids: enum id_mode */
  /* One written array moved onto another array the call touches, where
   * they meet (overlap_of; the bytes pick which pair and where). */
  int overlap;
  uint8_t overlap_bytes[3];
} fuzz_case;

/* No ids (the index is the id), distinct ids, shared ids, or distinct ids
 * moved off their alignment (ALIGNMENT for the calls that read them). */
enum id_mode { IDS_NONE, IDS_DISTINCT, IDS_SHARED, IDS_MISALIGNED, ID_MODES };

static inline int is_null(const fuzz_case *c, int bit) { return (c->nulls >> bit) & 1u; }

static const float *param_array(const fuzz_case *c, const world *w, int field) {
  return (c->per_agent >> (field - F_FIRST_PARAM)) & 1u ? w->f[field] : NULL;
}

static inline unsigned inputs_of(int entry) {
  return entry < E_INTEGRATE ? crowdsteer_behaviour_inputs((crowdsteer_behaviour)entry)
                             : 0;
}
static inline int targeted(int entry) {
  return (inputs_of(entry) & CROWDSTEER_INPUT_TARGET) != 0;
}
static inline int with_velocity(int entry) {
  return (inputs_of(entry) & CROWDSTEER_INPUT_TARGET_VELOCITY) != 0;
}

void world_copy(world *dst, const world *src);
void world_free(world *w);
/* Runs the case's entry point on `w` over [begin, end) on the active ISA. */
crowdsteer_status call(const fuzz_case *c, world *w, size_t begin, size_t end);
/* call() with everything it must not touch poisoned under ASan. */
crowdsteer_status guarded_call(const fuzz_case *c, world *w, size_t begin, size_t end);
void decode_case(reader *r, fuzz_case *c, world *w, int *isa);
int uses_array(const fuzz_case *c, int field);
int overlap_of(const fuzz_case *c, const world *w, int *field, uintptr_t *to);

#endif
