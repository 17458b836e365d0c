/* Avoidance as the last stage of crowdsteer_step: agents are integrated as
 * without it (the preferred velocity), then ORCA picks the velocity, the
 * agents move by it, and the walls hold: chunk by chunk right after their
 * integration, or, with a grid and most of the batch to move, after every
 * tile over the grid's slots (neighbours in the same cells follow each
 * other in memory; the same bits). The stage's working memory is a few
 * slots (one per thread at most) in the step's scratch. */
#ifndef CROWDSTEER_AVOID_STEP_AVOID_H
#define CROWDSTEER_AVOID_STEP_AVOID_H

#include <stdatomic.h>

#include "avoid/avoid.h"
#include "parallel.h"

typedef struct cs_step_avoid {
  int on;
  const crowdsteer_avoidance *desc;
  cs_avoid_job job;
  int dims;
  const float *pos[3], *vel[3]; /* the state before the step */
  float *out_pos[3], *out_vel[3];
  float dt;
  size_t chunk; /* most agents per chunk */
  /* Slots: a busy flag each, then their memory (scratch and the saved
   * state of one chunk). */
  size_t slots, slot_bytes;
  atomic_int *busy;
  char *memory;
  int after_tiles; /* runs over the grid's slots once every tile is done */
  size_t begin, end;
} cs_step_avoid;

/* Validation of crowdsteer_step_desc.avoidance (off when NULL) against the
 * step's agents and integrator (max_speed, dt); `out_pos`/`out_vel` are
 * where the integrator writes. */
crowdsteer_status cs_step_avoid_prepare(cs_step_avoid *sa,
                                        const crowdsteer_agents *agents,
                                        const crowdsteer_step_desc *step,
                                        float *const out_pos[3], float *const out_vel[3],
                                        size_t chunk, size_t begin, size_t end);

/* The arrays the stage touches, for the step's overlap check. */
void cs_step_avoid_spans(cs_spans *spans, const cs_step_avoid *sa,
                         const crowdsteer_agents *agents, size_t begin, size_t end);

/* Bytes of scratch for `slots` threads (0 when off), and handing it over. */
size_t cs_step_avoid_bytes(const cs_step_avoid *sa, size_t slots);
void cs_step_avoid_attach(cs_step_avoid *sa, void *memory, size_t slots);

/* Around the integration of agents [first, last) (at most `chunk`): begin
 * takes a slot and keeps their state before it is overwritten; end runs
 * ORCA and the walls, writes the new state and gives the slot back. */
size_t cs_step_avoid_begin(cs_step_avoid *sa, size_t first, size_t last);
void cs_step_avoid_end(cs_step_avoid *sa, size_t slot, size_t first, size_t last);

/* The grid parts the stage runs in after the tiles (0 when it runs with
 * them), and running them: every agent of the range, its own state the
 * grid's copy (the grid being built from the state before the step). */
size_t cs_step_avoid_parts(const cs_step_avoid *sa);
void cs_step_avoid_run_parts(cs_step_avoid *sa, const cs_spread *spread);

#endif /* CROWDSTEER_AVOID_STEP_AVOID_H */
