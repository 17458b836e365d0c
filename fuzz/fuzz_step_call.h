/* One crowdsteer_step call as fuzz_step.c decodes it: its arrays (sworld),
 * its options (scase), the structs it passes (call_view), and what decodes,
 * builds and runs it (fuzz_step_call.c). */
#ifndef CROWDSTEER_FUZZ_STEP_CALL_H
#define CROWDSTEER_FUZZ_STEP_CALL_H

#include <stddef.h>
#include <stdint.h>

#include "crowdsteer.h"
#include "fuzz_common.h"

enum { MAXB = CROWDSTEER_STEP_MAX_BEHAVIOURS };

/* Per-agent parameter arrays of crowdsteer_params, in struct order. */
enum {
  P_MAX_SPEED,
  P_MAX_FORCE,
  P_MASS,
  P_TARGET_RADIUS,
  P_SLOWING_RADIUS,
  P_PANIC_RADIUS,
  P_DANGER_RADIUS,
  P_ESCAPE_RADIUS,
  P_WANDER_RADIUS,
  P_WANDER_DISTANCE,
  P_TIME_TO_TARGET,
  P_MAX_PREDICTION,
  P_JITTER,
  P_COUNT
};

/* ---- the arrays of one step ------------------------------------------------
 * Every array is its own allocation of exactly `count` elements (ASan sees
 * any access past the batch) and only exists when the case uses it. */
typedef struct bworld {
  float *tpos[3], *tvel[3], *wdir[3], *param[P_COUNT], *weight;
  uint32_t *index;
} bworld;

typedef struct sworld {
  size_t count;
  float *agent[6], *output[6], *snap[6]; /* px py pz vx vy vz */
  float *iparam[P_COUNT];                /* the integrator's per-agent arrays */
  uint32_t *mask;
  bworld b[MAXB];
} sworld;

enum role {
  R_AGENT,
  R_OUTPUT,
  R_SNAP,
  R_IPARAM,
  R_MASK,
  R_TPOS,
  R_TVEL,
  R_WDIR,
  R_PARAM,
  R_WEIGHT,
  R_INDEX
};

/* One array slot of a world, so copy, compare, poison and free are one loop. */
typedef struct bufref {
  void **slot;
  int role, b, axis;
} bufref;
enum { MAX_BUFS = 6 * 3 + P_COUNT + 1 + MAXB * (3 * 3 + P_COUNT + 2) };

/* Floats and uint32_t have the same size, which keeps the loops simple. */
_Static_assert(sizeof(float) == sizeof(uint32_t), "4-byte elements");
enum { ELEM = sizeof(float) };

/* ---- the case ---------------------------------------------------------------*/

/* NULLs inside one behaviour (at most one per behaviour). */
enum {
  BN_NONE,
  BN_TPOS,
  BN_TVEL = BN_TPOS + 3,
  BN_INDEX = BN_TVEL + 3,
  BN_WANDER,
  BN_WDIR,
  BN_COUNT = BN_WDIR + 3
};

typedef struct bcase {
  int kind, target_kind;
  uint8_t agent_byte; /* decodes to `agent` once the count is known */
  uint32_t agent;     /* CROWDSTEER_TARGET_AGENT's index */
  float point[3], point_velocity[3];
  crowdsteer_params params; /* uniform values; arrays come from the world */
  uint32_t per_agent;       /* 1 << P_* */
  float weight;
  int weight_per_agent;
  uint32_t seed, tick;
  int null_what; /* BN_* */
} bcase;

/* Forms of the output and snapshot buffers; all but NONE and VALID are
 * invalid (except where the step ignores the buffer). */
enum { BUF_NONE, BUF_VALID, BUF_SAME, BUF_ALIAS, BUF_COUNT, BUF_DIMS, BUF_NULLARR };

/* Whole-call NULLs: bit 0 agents, 1 step, 2 behaviours, 3 + a agent array a. */
enum { SN_AGENTS, SN_STEP, SN_BEHAVIOURS, SN_ARRAY0, SN_BITS = SN_ARRAY0 + 6 };

typedef struct scase {
  int dims, isa, tame;
  size_t count, begin, end, split;
  size_t behaviour_count;
  int arrays_for; /* behaviours with decoded data: min(count, 32) */
  int descs;      /* behaviour descriptors allocated (exactly this many) */
  int combine;
  float threshold;
  int mask_form, mask_run;
  int out_form, out_arg, snap_form, snap_arg, snap_targets_only;
  size_t tile, alt_tile;
  int threads, alt_threads;
  uint32_t nulls;
  /* The call under test: host floating-point mode, run on a thread with a
   * small stack, and the mask moved off its alignment by this many bytes. */
  int host_mode, small_stack;
  unsigned misalign_mask;
  /* One written array moved onto another array the step touches, where
   * they meet (alias_on; the bytes pick which pair and where). */
  int alias_on;
  uint8_t alias_written, alias_other, alias_shift;
  crowdsteer_params integ;
  uint32_t integ_per_agent;
  bcase b[MAXB + 1];
} scase;

static inline int in_range(const scase *c) {
  return c->begin <= c->end && c->end <= c->count;
}
/* What the library's table says of behaviour k (0 for a value out of it). */
static inline unsigned inputs_of(int k) {
  return crowdsteer_behaviour_inputs((crowdsteer_behaviour)k);
}
/* The behaviours this fuzzer drives: all but the neighbour ones
 * (fuzz_neighbours.c has those); any other value is a bad kind. */
static inline int valid_kind(int k) {
  return inputs_of(k) != 0 && !(inputs_of(k) & CROWDSTEER_INPUT_NEIGHBOURS);
}
static inline int targeted_kind(int k) {
  return valid_kind(k) && (inputs_of(k) & CROWDSTEER_INPUT_TARGET);
}
static inline int with_velocity(int k) {
  return (inputs_of(k) & CROWDSTEER_INPUT_TARGET_VELOCITY) != 0;
}

/* Agent i takes part in behaviour b (bits beyond the count are ignored). */
static inline int selected(const scase *c, const sworld *w, size_t i, int b) {
  if (c->mask_form == 0) return 1;
  return (w->mask[i] >> b) & 1u;
}

/* Behaviour b targets one agent of the batch (read by the step itself). */
static inline int single_target(const scase *c, int b) {
  return targeted_kind(c->b[b].kind) && c->b[b].target_kind == CROWDSTEER_TARGET_AGENT;
}

/* Behaviour b gathers agent state through its indices. */
static inline int gathers(const scase *c, const sworld *w, int b) {
  return targeted_kind(c->b[b].kind) && c->b[b].target_kind == CROWDSTEER_TARGET_AGENTS &&
         w->b[b].index;
}

static inline int any_selected(const scase *c, const sworld *w, int b) {
  for (size_t i = c->begin; in_range(c) && i < c->end; i++)
    if (selected(c, w, i, b)) return 1;
  return 0;
}

/* The structs one call passes; they point into a world. */
typedef struct call_view {
  crowdsteer_agents agents, output, snapshot;
  crowdsteer_wander_state wander[MAXB + 1];
  crowdsteer_step_behaviour desc[MAXB + 1];
  crowdsteer_step_behaviour *descs; /* exactly c->descs of them, on the heap */
  crowdsteer_step_desc step;
  int aliased; /* a written array was moved onto another one (apply_alias) */
} call_view;

/* Lists every array slot of w into out (MAX_BUFS); returns how many. */
int list_buffers(sworld *w, bufref *out);
void sworld_copy(sworld *dst, const sworld *src);
void sworld_free(sworld *w);
void decode_step(reader *r, scase *c, sworld *w);
void build_view(const scase *c, sworld *w, call_view *v, size_t tile, int threads);
/* crowdsteer_step as the case says, over [begin, end) with this tile and
 * thread count, everything it must not touch poisoned under ASan. */
crowdsteer_status run_step(const scase *c, sworld *w, size_t begin, size_t end,
                           size_t tile, int threads);

#endif
