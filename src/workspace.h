/* The scratch memory of a step's neighbour pass and avoidance stage and of
 * crowdsteer_avoid: a caller's workspace while the call holds it, or the
 * call's own allocation. */
#ifndef CROWDSTEER_WORKSPACE_H
#define CROWDSTEER_WORKSPACE_H

#include "internal.h"

/* A call's scratch: its workspace's memory while the call holds it, or the
 * call's own allocation. */
typedef struct cs_scratch {
  float *floats;
  crowdsteer_workspace *held; /* NULL: floats is the call's own */
} cs_scratch;

/* Takes `floats` of scratch from `workspace` (growing it) when it is given
 * and free, else from the heap; nothing is allocated for 0 floats.
 * OUT_OF_MEMORY leaves the workspace as it was. */
crowdsteer_status cs_scratch_take(cs_scratch *scratch, crowdsteer_workspace *workspace,
                                  size_t floats);

/* Gives the workspace back, or frees the call's own memory. */
void cs_scratch_give_back(cs_scratch *scratch);

#endif
