/* Workspaces: the scratch memory a step's neighbour pass and avoidance, and
 * crowdsteer_avoid, take from a caller's workspace while they hold it, or
 * allocate for the call. */
#include "workspace.h"

#include <stdatomic.h>
#include <stdlib.h>

struct crowdsteer_workspace {
  atomic_flag busy; /* held by the call using it */
  float *scratch;
  _Atomic size_t floats; /* capacity; atomic so bytes() may read it any time */
};

crowdsteer_status crowdsteer_workspace_create(crowdsteer_workspace **workspace) {
  if (!workspace) return CROWDSTEER_ERROR_NULL_POINTER;
  crowdsteer_workspace *w = calloc(1, sizeof *w);
  if (!w) return CROWDSTEER_ERROR_OUT_OF_MEMORY;
  atomic_flag_clear(&w->busy);
  atomic_init(&w->floats, 0);
  *workspace = w;
  return CROWDSTEER_OK;
}

void crowdsteer_workspace_destroy(crowdsteer_workspace *workspace) {
  if (!workspace) return;
  free(workspace->scratch);
  free(workspace);
}

size_t crowdsteer_workspace_bytes(const crowdsteer_workspace *workspace) {
  if (!workspace) return 0;
  return sizeof *workspace +
         atomic_load_explicit(&workspace->floats, memory_order_relaxed) * sizeof(float);
}

crowdsteer_status cs_scratch_take(cs_scratch *scratch, crowdsteer_workspace *workspace,
                                  size_t floats) {
  scratch->floats = NULL;
  scratch->held = NULL;
  if (!floats) return CROWDSTEER_OK;
  if (workspace &&
      !atomic_flag_test_and_set_explicit(&workspace->busy, memory_order_acquire)) {
    if (floats > atomic_load_explicit(&workspace->floats, memory_order_relaxed)) {
      float *fresh = malloc(floats * sizeof(float));
      if (!fresh) {
        atomic_flag_clear_explicit(&workspace->busy, memory_order_release);
        return CROWDSTEER_ERROR_OUT_OF_MEMORY;
      }
      free(workspace->scratch);
      workspace->scratch = fresh;
      atomic_store_explicit(&workspace->floats, floats, memory_order_relaxed);
    }
    scratch->floats = workspace->scratch;
    scratch->held = workspace;
    return CROWDSTEER_OK;
  }
  /* No workspace, or another call holds it: this call's own memory. */
  scratch->floats = malloc(floats * sizeof(float));
  return scratch->floats ? CROWDSTEER_OK : CROWDSTEER_ERROR_OUT_OF_MEMORY;
}

void cs_scratch_give_back(cs_scratch *scratch) {
  if (scratch->held)
    atomic_flag_clear_explicit(&scratch->held->busy, memory_order_release);
  else
    free(scratch->floats);
  scratch->floats = NULL;
  scratch->held = NULL;
}
