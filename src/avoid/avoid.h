/* ORCA avoidance resolved for a call (crowdsteer_avoid, and later a step):
 * validated inputs with defaults applied, per-call scratch, and the
 * per-agent evaluation every caller shares. */
#ifndef CROWDSTEER_AVOID_AVOID_H
#define CROWDSTEER_AVOID_AVOID_H

#include <stdatomic.h>

#include "avoid/near.h"
#include "avoid/orca.h"
#include "avoid/orca3.h"
#include "neighbours/neighbours.h"

typedef struct cs_avoid_job {
  int dims;
  size_t count;
  /* The agents' state when there is no grid (with one, the grid's copy). */
  const float *pos[3], *vel[3];
  const uint32_t *id;
  cs_param radius, responsibility, max_speed;
  float inv_time_horizon, obstacle_time_horizon, inv_obstacle_time_horizon, inv_dt;
  int avoid_agents;
  cs_nb_job neighbours;   /* valid when avoid_agents */
  cs_avoid_scan_fn scan;  /* the candidate scan of the call's ISA */
  cs_orca_lines_fn lines; /* and its 2D agent lines */
  const crowdsteer_obstacles *obstacles;
} cs_avoid_job;

/* Agent i's parameters, id and report, asked for ahead of a walk in grid order,
 * where agent indices are far apart: a cache miss each otherwise (perf:
 * 8 % of the demo's step with ORCA on the first one read). Inlined
 * always: gcc counts a function of prefetches alone as free of side
 * effects and drops its calls before it would inline them. */
static inline __attribute__((always_inline)) void
cs_avoid_prefetch_agent(const cs_avoid_job *job, const uint32_t *report, size_t i) {
  if (report) __builtin_prefetch(report + i, 1);
  if (job->radius.array) __builtin_prefetch(job->radius.array + i);
  if (job->max_speed.array) __builtin_prefetch(job->max_speed.array + i);
  if (job->responsibility.array) __builtin_prefetch(job->responsibility.array + i);
  if (job->id) __builtin_prefetch(job->id + i);
}

/* Room past the cap for the widest kernels' last block. */
enum { CS_AVOID_PAD = 16 };

/* Memory one thread's agents use in turn. */
typedef struct cs_avoid_scratch {
  cs_avoid_near *near;  /* cap entries */
  cs_avoid_cand *cands; /* cap + CS_AVOID_SPARE entries */
  float *row_dd;        /* CS_AVOID_SPARE floats */
  uint32_t *runs;       /* 3 * CS_AVOID_RUNS: a narrowed scan's runs */
  cs_avoid_narrowed narrowed;
  /* The runs of the last agent's cells lo .. hi (rows_kept 0: none yet):
   * a walk in grid order meets the same cells agent after agent. */
  cs_nb_rows rows;
  uint32_t rows_lo[3], rows_hi[3];
  int rows_kept;
  /* The neighbours' state and parameters for the lines, padded */
  float *nb_floats; /* 6 arrays of nb_stride >= cap + CS_AVOID_PAD floats */
  size_t nb_stride;
  uint32_t *nb_ids;    /* cap + CS_AVOID_PAD */
  uint64_t *edge_keys; /* one per obstacle edge */
  uint32_t *edges;     /* one per obstacle edge */
  /* cap + edges constraints each: lines in 2D, planes in 3D */
  union {
    cs_orca_line *lines;
    cs_orca_plane *planes;
  } constraints, room;
  cs_obstacle_scratch obstacle;
} cs_avoid_scratch;

/* Validation and defaults (everything but the output). */
crowdsteer_status cs_avoid_prepare(cs_avoid_job *job, const crowdsteer_agents *agents,
                                   const crowdsteer_avoidance *avoidance,
                                   const crowdsteer_params *params, size_t begin,
                                   size_t end);

/* Bytes of one thread's scratch, and its layout in `memory`. */
size_t cs_avoid_scratch_bytes(const cs_avoid_job *job);
void cs_avoid_scratch_init(cs_avoid_scratch *s, const cs_avoid_job *job, void *memory);

/* Agent i's ORCA velocity from its state (p, v) and preferred velocity
 * (dims components each); returns its CROWDSTEER_REPORT_CROWDED bit. */
uint32_t cs_avoid_agent(const cs_avoid_job *job, cs_avoid_scratch *s, size_t i,
                        const float p[3], const float v[3], const float preferred[3],
                        float velocity[3]);

/* Takes a free one of `slots` scratch slots (at most that many takers run
 * at once, so one is free) and returns its number; give it back with
 * atomic_store(&busy[slot], 0). */
static inline size_t cs_avoid_take_slot(atomic_int *busy, size_t slots) {
  for (size_t slot = 0;; slot = (slot + 1) % slots) {
    int idle = 0;
    if (atomic_compare_exchange_strong(&busy[slot], &idle, 1)) return slot;
  }
}

#endif /* CROWDSTEER_AVOID_AVOID_H */
