/* crowdsteer_step: a mixed crowd in one pass over memory. The batch is cut
 * into cache-sized tiles; per tile, each behaviour some agent of the tile
 * uses writes into a chunk-sized accumulator (blend or priority, masked per
 * agent), then the integrator consumes it; a tile (or chunk) whose agents
 * all use one behaviour runs in registers instead (cs_fused_chunk). Tiles
 * are independent, so they run on several threads and the bits never depend
 * on tiling or threads. */
#include <float.h>
#include <limits.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "avoid/step_avoid.h"
#include "bounds/bounds.h"
#include "internal.h"
#include "neighbours/step_neighbours.h"
#include "parallel.h"
#include "path/path.h"
#include "workspace.h"

enum { DEFAULT_TILE = 1024, MAX_TILE = 4096 };

int crowdsteer_step_max_threads(void) {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

/* A tile runs in chunks of this many agents: every behaviour the chunk
 * uses, then the integrator. The accumulator is chunk-sized, so a step
 * needs little stack (see crowdsteer.h), and the chunk stays in L1 between
 * its passes; the next tile's state is prefetched a part per chunk. */
#define CHUNK 256

/* A resolved step: one job per behaviour (in the caller's frame, sized by
 * the behaviour count), one resolved neighbour job per neighbour behaviour
 * (sized by their count), one for the integrator. */
typedef struct plan {
  cs_job *behaviour;
  cs_nb_job *neighbour;
  crowdsteer_behaviour kind[CROWDSTEER_STEP_MAX_BEHAVIOURS];
  size_t behaviour_count;
  uint32_t all_bits;
  uint32_t fused_bits; /* behaviours the backend runs in registers alone */
  int priority;
  const uint32_t *mask;
  cs_integrator integrator;
  size_t tile;
  cs_step_avoid avoid;        /* the last stage, when on */
  const crowdsteer_box *wrap; /* the new positions wrap around in it (or NULL) */
} plan;

/* A second state buffer (snapshot or output): same shape as the agents and
 * every array present (sharing memory with the agents: check_apart). */
static crowdsteer_status check_state_buffer(const crowdsteer_agents *agents,
                                            const crowdsteer_agents *buffer, size_t begin,
                                            size_t end) {
  if (!buffer) return CROWDSTEER_ERROR_NULL_POINTER;
  if (buffer->dims != agents->dims) return CROWDSTEER_ERROR_DIMS;
  if (buffer->count != agents->count) return CROWDSTEER_ERROR_RANGE;
  if (begin == end) return CROWDSTEER_OK;
  const float *const theirs[6] = {buffer->px, buffer->py, buffer->pz,
                                  buffer->vx, buffer->vy, buffer->vz};
  for (int a = 0; a < 6; a++) {
    if (agents->dims == 2 && (a == 2 || a == 5)) continue;
    if (!theirs[a]) return CROWDSTEER_ERROR_NULL_POINTER;
    if (!cs_aligned(theirs[a])) return CROWDSTEER_ERROR_ALIGNMENT;
  }
  return CROWDSTEER_OK;
}

/* The per-agent data of behaviour b (parameter arrays, target indices,
 * weights) for the agents of [first, last) that use it. Everything else was
 * validated once, by resolve_behaviour. */
static crowdsteer_status check_behaviour_run(const plan *pl,
                                             const crowdsteer_step_desc *step, size_t b,
                                             size_t first, size_t last) {
  crowdsteer_status fault;
  const crowdsteer_step_behaviour *desc = &step->behaviours[b];
  const cs_range r = {first, last, step->behaviour_mask, 1u << b};
  if (!cs_runs_on_neighbours(desc->behaviour) &&
      ((fault = cs_check_agent_data(&pl->behaviour[b].in, pl->kind[b], &r)) !=
           CROWDSTEER_OK ||
       (fault = cs_path_check_agents(pl->behaviour[b].in.path, &r)) != CROWDSTEER_OK))
    return fault;
  if (desc->weight_per_agent && !cs_aligned(desc->weight_per_agent))
    return CROWDSTEER_ERROR_ALIGNMENT;
  if (desc->weight_per_agent && !cs_all_finite(desc->weight_per_agent, &r))
    return CROWDSTEER_ERROR_PARAMETER;
  return CROWDSTEER_OK;
}

/* Whether behaviour b has per-agent data whose values need a pass. */
static int has_agent_data(const plan *pl, const crowdsteer_step_desc *step, size_t b) {
  if (step->behaviours[b].weight_per_agent) return 1;
  const crowdsteer_path_follow *path = pl->behaviour[b].in.path;
  if (path && (path->path_per_agent || path->direction_per_agent)) return 1;
  return !cs_runs_on_neighbours(pl->kind[b]) &&
         cs_has_agent_data(&pl->behaviour[b].in, pl->kind[b]);
}

/* Checks each behaviour's per-agent data exactly for the agents that use it.
 * Runs of tiles in which no agent uses a behaviour are not read at all, so a
 * crowd grouped by behaviour pays for each behaviour's data only where it is
 * used (the step itself skips the same chunks). Without per-agent data to
 * check, the mask is not read here. */
static crowdsteer_status check_agent_data(const plan *pl,
                                          const crowdsteer_step_desc *step, size_t begin,
                                          size_t end) {
  crowdsteer_status fault;
  uint32_t checked = 0;
  for (size_t b = 0; b < pl->behaviour_count; b++)
    if (has_agent_data(pl, step, b)) checked |= 1u << b;
  if (begin == end || !checked) return CROWDSTEER_OK;
  if (!pl->mask) {
    for (size_t b = 0; b < pl->behaviour_count; b++)
      if ((checked & (1u << b)) &&
          (fault = check_behaviour_run(pl, step, b, begin, end)) != CROWDSTEER_OK)
        return fault;
    return CROWDSTEER_OK;
  }
  enum { NO_RUN = 0 }; /* run_start holds first + 1, so 0 means "no run open" */
  size_t run_start[CROWDSTEER_STEP_MAX_BEHAVIOURS] = {0};
  for (size_t first = begin; first < end; first += pl->tile) {
    size_t last = end - first < pl->tile ? end : first + pl->tile;
    uint32_t used = 0;
    for (size_t i = first; i < last; i++)
      used |= pl->mask[i];
    for (size_t b = 0; b < pl->behaviour_count; b++) {
      if (!(checked & (1u << b))) continue;
      if (used & (1u << b)) {
        if (run_start[b] == NO_RUN) run_start[b] = first + 1;
      } else if (run_start[b] != NO_RUN) {
        if ((fault = check_behaviour_run(pl, step, b, run_start[b] - 1, first)) !=
            CROWDSTEER_OK)
          return fault;
        run_start[b] = NO_RUN;
      }
    }
  }
  for (size_t b = 0; b < pl->behaviour_count; b++)
    if ((run_start[b] != NO_RUN) &&
        (fault = check_behaviour_run(pl, step, b, run_start[b] - 1, end)) !=
            CROWDSTEER_OK)
      return fault;
  return CROWDSTEER_OK;
}

/* Whether some agent of [begin, end) selects behaviour bit `bit`. */
static int selected(const uint32_t *mask, uint32_t bit, size_t begin, size_t end) {
  if (!mask) return begin < end;
  uint32_t any = 0;
  for (size_t i = begin; i < end; i++)
    any |= mask[i];
  return (any & bit) != 0;
}

/* Behaviour b's validation, once: its inputs resolved over [begin, end) (a
 * neighbour behaviour checked whole). The arrays of a behaviour no agent
 * selects are not required: then only its shape and uniform values count. */
static crowdsteer_status resolve_behaviour(cs_job *job, cs_nb_job *nb_job,
                                           const crowdsteer_agents *agents,
                                           const crowdsteer_step_desc *step, size_t b,
                                           size_t begin, size_t end) {
  const crowdsteer_step_behaviour *desc = &step->behaviours[b];
  const uint32_t bit = 1u << b;
  memset(job, 0, sizeof *job);
  if (cs_runs_on_neighbours(desc->behaviour)) {
    job->in.dims = agents->dims;
    job->in.count = agents->count;
    crowdsteer_status st =
        cs_nb_step_check(nb_job, agents, desc, begin, end, step->behaviour_mask, bit);
    if (st != CROWDSTEER_OK && !selected(step->behaviour_mask, bit, begin, end))
      st = cs_nb_step_check(nb_job, agents, desc, begin, begin, NULL, 0);
    return st;
  }
  /* An AGENT target no agent selects is not gathered (its agent's state
   * may be anything): it resolves as a point the kernels never use. */
  const cs_behaviour_row *row = cs_behaviour_row_of(desc->behaviour);
  const int agent_target = row && (row->inputs & CROWDSTEER_INPUT_TARGET) &&
                           desc->target.kind == CROWDSTEER_TARGET_AGENT;
  crowdsteer_target unused;
  memset(&unused, 0, sizeof unused);
  unused.kind = CROWDSTEER_TARGET_POINT;
  const crowdsteer_target *target =
      agent_target && !selected(step->behaviour_mask, bit, begin, end) ? &unused
                                                                       : &desc->target;
  crowdsteer_status st =
      cs_resolve_behaviour(&job->in, desc->behaviour, agents, target, desc->wander,
                           desc->field, &desc->params, begin, end);
  if (st != CROWDSTEER_OK && !selected(step->behaviour_mask, bit, begin, end))
    st = cs_resolve_behaviour(&job->in, desc->behaviour, agents, target, desc->wander,
                              desc->field, &desc->params, begin, begin);
  if (st == CROWDSTEER_OK && row && (row->inputs & CROWDSTEER_INPUT_PATH))
    st = cs_path_resolve(&job->in, desc->path, begin,
                         selected(step->behaviour_mask, bit, begin, end) ? end : begin);
  /* Containment's region is required and checked whoever selects it. */
  if (st == CROWDSTEER_OK && row && (row->inputs & CROWDSTEER_INPUT_BOUNDS))
    st = cs_resolve_bounds(&job->in, desc->bounds);
  /* An AGENT target's one index is checked whatever the masks select (the
   * empty range just resolved does not look at it). */
  if (st == CROWDSTEER_OK && begin < end && agent_target &&
      desc->target.agent >= agents->count)
    st = CROWDSTEER_ERROR_AGENT_INDEX;
  return st;
}

/* What a behaviour shares with the whole step: an in-place step's snapshot
 * for AGENTS targets, a max_speed left at 0 that becomes the integrator's,
 * and the step's policy (blend or priority, its weight and mask bit). */
static crowdsteer_status share_step_inputs(cs_job *job, const plan *pl,
                                           const crowdsteer_agents *agents,
                                           const crowdsteer_step_desc *step, size_t b,
                                           size_t begin, size_t end) {
  crowdsteer_status fault;
  const crowdsteer_step_behaviour *desc = &step->behaviours[b];
  const cs_behaviour_row *row = cs_behaviour_row_of(desc->behaviour);
  if (step->output == NULL && (row->inputs & CROWDSTEER_INPUT_TARGET) &&
      desc->target.kind == CROWDSTEER_TARGET_AGENTS) {
    if ((fault = check_state_buffer(agents, step->snapshot, begin, end)) != CROWDSTEER_OK)
      return fault;
    const crowdsteer_agents *s = step->snapshot;
    const float *pos[3] = {s->px, s->py, agents->dims == 3 ? s->pz : NULL};
    const float *vel[3] = {s->vx, s->vy, agents->dims == 3 ? s->vz : NULL};
    memcpy(job->in.gather_pos, pos, sizeof pos);
    memcpy(job->in.gather_vel, vel, sizeof vel);
  }
  if ((row->params & CS_USES_MAX_SPEED) && desc->params.max_speed == 0.0f &&
      !desc->params.max_speed_per_agent)
    job->in.max_speed = pl->integrator.max_speed;
  cs_policy *policy = &job->policy;
  policy->mode =
      step->combine == CROWDSTEER_BLEND ? CS_WRITE_ACCUMULATE : CS_WRITE_PRIORITY;
  policy->weight.value = desc->weight == 0.0f ? 1.0f : desc->weight;
  policy->weight.array = desc->weight_per_agent;
  policy->lane_select = step->behaviour_mask;
  policy->lane_bit = 1u << b;
  policy->priority_threshold = step->priority_threshold;
  /* Only the weight in effect is checked (per-agent ones with the data). */
  if (!desc->weight_per_agent &&
      !(policy->weight.value >= -FLT_MAX && policy->weight.value <= FLT_MAX))
    return CROWDSTEER_ERROR_PARAMETER;
  return CROWDSTEER_OK;
}

/* The arrays of the step itself: the new state (written; in place it is
 * the agents, read at the same index), an out-of-place step's agents (read
 * at their own index), the behaviour mask and the integrator's per-agent
 * parameters. */
static void step_spans(cs_spans *spans, const plan *pl, const crowdsteer_agents *agents,
                       const crowdsteer_step_desc *step, size_t begin, size_t end) {
  const int dims = agents->dims;
  spans->n = 0;
  spans->written = 0;
  cs_spans_add_state(spans, step->output ? step->output : agents, dims, begin, end, 1);
  if (step->output) cs_spans_add_state(spans, agents, dims, begin, end, 0);
  cs_spans_add(spans, step->behaviour_mask, begin, end, 0);
  cs_spans_add(spans, pl->integrator.max_speed.array, begin, end, 0);
  cs_spans_add(spans, pl->integrator.max_force.array, begin, end, 0);
  cs_spans_add(spans, pl->integrator.mass.array, begin, end, 0);
  for (int k = 0; pl->integrator.smoothing > 0.0f && k < pl->integrator.dims; k++)
    cs_spans_add(spans, pl->integrator.accel[k], begin, end, 1);
  cs_step_avoid_spans(spans, &pl->avoid, agents, begin, end);
}

/* Behaviour b's own arrays over [begin, end), its weights included. Agent
 * targets are read from the agents out of place and, in place, AGENTS
 * targets from the snapshot; an in-place AGENT target is the agents' own
 * state read before the tiles, which the step's spans hold. */
static void behaviour_spans(cs_spans *spans, const crowdsteer_agents *agents,
                            const crowdsteer_step_desc *step, size_t b, size_t begin,
                            size_t end, int without_state) {
  const crowdsteer_step_behaviour *desc = &step->behaviours[b];
  spans->n = 0;
  spans->written = 0;
  cs_behaviour_spans(spans, desc->behaviour, agents, &desc->target,
                     without_state ? NULL : desc->wander, desc->neighbours, desc->field,
                     &desc->params, step->output ? agents : step->snapshot,
                     step->output ? agents : NULL, begin, end);
  const cs_behaviour_row *row = cs_behaviour_row_of(desc->behaviour);
  if (row && (row->inputs & CROWDSTEER_INPUT_PATH))
    cs_path_spans(spans, desc->path, begin, end);
  cs_spans_add(spans, desc->weight_per_agent, begin, end, 0);
}

/* Whether two wander behaviours of a step update the same state arrays. */
static int same_state(const crowdsteer_step_behaviour *a,
                      const crowdsteer_step_behaviour *b, int dims) {
  if (a->behaviour != CROWDSTEER_WANDER || b->behaviour != CROWDSTEER_WANDER ||
      !a->wander || !b->wander)
    return 0;
  const crowdsteer_vectors *x = &a->wander->direction, *y = &b->wander->direction;
  return x->x == y->x && x->y == y->y && (dims == 2 || x->z == y->z);
}

/* No array the step writes (the new state, wander states) shares memory with
 * another it reads or writes (CROWDSTEER_ERROR_OVERLAP). A behaviour that no
 * agent of the range selects touches none of its arrays, so a clash of its
 * arrays does not count; the mask is read only once a clash is found. Kept
 * out of make_plan's frame: its spans are not on the stack while the step
 * runs. */
static __attribute__((noinline)) crowdsteer_status
check_apart(const plan *pl, const crowdsteer_agents *agents,
            const crowdsteer_step_desc *step, size_t begin, size_t end) {
  if (begin == end) return CROWDSTEER_OK;
  cs_spans whole, mine, theirs;
  step_spans(&whole, pl, agents, step, begin, end);
  if (cs_spans_clash(&whole, &whole)) return CROWDSTEER_ERROR_OVERLAP;
  for (size_t b = 0; b < pl->behaviour_count; b++) {
    behaviour_spans(&mine, agents, step, b, begin, end, 0);
    int clash = cs_spans_clash(&mine, &mine) || cs_spans_clash(&mine, &whole);
    /* Another behaviour's arrays only meet b's written ones (its wander
     * state): each pair is seen from the behaviour that writes. Wander
     * behaviours may share one state (the very same arrays): each updates
     * it for its own agents, in behaviour order, whatever the ISA. */
    for (size_t c = 0; !clash && mine.written && c < pl->behaviour_count; c++) {
      if (c == b) continue;
      const int shared =
          same_state(&step->behaviours[b], &step->behaviours[c], agents->dims);
      behaviour_spans(&theirs, agents, step, c, begin, end, shared);
      clash = cs_spans_clash(&mine, &theirs) && selected(pl->mask, 1u << c, begin, end);
    }
    if (clash && selected(pl->mask, 1u << b, begin, end)) return CROWDSTEER_ERROR_OVERLAP;
  }
  return CROWDSTEER_OK;
}

static crowdsteer_status make_plan(plan *out, const crowdsteer_agents *agents,
                                   const crowdsteer_step_desc *step, size_t begin,
                                   size_t end) {
  crowdsteer_status fault;
  if (!agents || !step) return CROWDSTEER_ERROR_NULL_POINTER;
  if (!step->behaviours) return CROWDSTEER_ERROR_NULL_POINTER;
  if (step->behaviour_count == 0 ||
      step->behaviour_count > CROWDSTEER_STEP_MAX_BEHAVIOURS ||
      (step->combine != CROWDSTEER_BLEND && step->combine != CROWDSTEER_PRIORITY) ||
      !(step->priority_threshold >= 0.0f && step->priority_threshold <= FLT_MAX) ||
      step->tile_size > MAX_TILE || step->threads < 0)
    return CROWDSTEER_ERROR_PARAMETER;
  if ((fault = cs_prepare_integrator(&out->integrator, agents, &step->integrator, begin,
                                     end)) != CROWDSTEER_OK)
    return fault;
  if (step->output) {
    if ((fault = check_state_buffer(agents, step->output, begin, end)) != CROWDSTEER_OK)
      return fault;
    const crowdsteer_agents *o = step->output;
    float *pos[3] = {o->px, o->py, agents->dims == 3 ? o->pz : NULL};
    float *vel[3] = {o->vx, o->vy, agents->dims == 3 ? o->vz : NULL};
    memcpy(out->integrator.pos_rw, pos, sizeof pos);
    memcpy(out->integrator.vel_rw, vel, sizeof vel);
  }
  out->wrap = step->wrap;
  if (step->wrap && !cs_wrap_box_ok(step->wrap, agents->dims))
    return CROWDSTEER_ERROR_PARAMETER;
  out->behaviour_count = step->behaviour_count;
  out->all_bits =
      step->behaviour_count == 32 ? 0xFFFFFFFFu : (1u << step->behaviour_count) - 1u;
  out->mask = step->behaviour_mask;
  out->tile = step->tile_size ? step->tile_size : DEFAULT_TILE;
  if (out->mask && begin < end && !cs_aligned(out->mask))
    return CROWDSTEER_ERROR_ALIGNMENT;
  out->priority = step->combine == CROWDSTEER_PRIORITY;
  size_t neighbour = 0;
  for (size_t b = 0; b < step->behaviour_count; b++) {
    out->kind[b] = step->behaviours[b].behaviour;
    cs_nb_job *nb_job =
        cs_runs_on_neighbours(out->kind[b]) ? &out->neighbour[neighbour++] : NULL;
    if ((fault = resolve_behaviour(&out->behaviour[b], nb_job, agents, step, b, begin,
                                   end)) != CROWDSTEER_OK)
      return fault;
    if ((fault = share_step_inputs(&out->behaviour[b], out, agents, step, b, begin,
                                   end)) != CROWDSTEER_OK)
      return fault;
  }
  if ((fault = check_agent_data(out, step, begin, end)) != CROWDSTEER_OK) return fault;
  if ((fault = cs_step_avoid_prepare(&out->avoid, agents, step, out->integrator.pos_rw,
                                     out->integrator.vel_rw, CHUNK, begin, end)) !=
      CROWDSTEER_OK)
    return fault;
  return check_apart(out, agents, step, begin, end);
}

/* Asks for elements [first, last) of an array to be brought into the cache,
 * to be read (or written: `for_write`). A hint only: no fault, no effect on
 * any result. */
static void prefetch_range(const void *array, size_t element_size, size_t first,
                           size_t last, int for_write) {
  if (!array) return;
  const char *from = (const char *)array + first * element_size;
  const char *to = (const char *)array + last * element_size;
  for (; from < to; from += 64) {
#if defined(__GNUC__) || defined(__clang__)
    if (for_write)
      __builtin_prefetch(from, 1, 3);
    else
      __builtin_prefetch(from, 0, 3);
#else
    (void)for_write;
#endif
  }
}

/* The state of agents [first, last), which a large crowd has to fetch from
 * memory: agents, masks, wander state and an out-of-place step's output. */
static void prefetch_agents(const plan *pl, size_t first, size_t last) {
  const cs_integrator *in = &pl->integrator;
  const int dims = in->dims;
  if (last > in->count) last = in->count;
  if (first >= last) return;
  for (int k = 0; k < dims; k++) {
    prefetch_range(in->pos[k], sizeof(float), first, last, 0);
    prefetch_range(in->vel[k], sizeof(float), first, last, 0);
    if (in->pos_rw[k] != in->pos[k]) {
      prefetch_range(in->pos_rw[k], sizeof(float), first, last, 1);
      prefetch_range(in->vel_rw[k], sizeof(float), first, last, 1);
    }
  }
  prefetch_range(pl->mask, sizeof(uint32_t), first, last, 0);
  for (size_t b = 0; b < pl->behaviour_count; b++)
    for (int k = 0; k < dims; k++)
      prefetch_range(pl->behaviour[b].in.wander[k], sizeof(float), first, last, 1);
}

/* The behaviours some agent of [first, last) uses, and those all of them use. */
static void behaviours_of(const plan *pl, size_t first, size_t last, uint32_t *used,
                          uint32_t *everyone) {
  *used = *everyone = pl->all_bits;
  if (!pl->mask) return;
  uint32_t any = 0, all = pl->all_bits;
  for (size_t i = first; i < last; i++) {
    any |= pl->mask[i];
    all &= pl->mask[i];
  }
  *used &= any;
  *everyone &= all;
}

/* The behaviours the backend runs in registers (cs_backend.fuses) when a
 * range uses one of them alone, decided once per step: its shape, dims and
 * ISA do not change between ranges. Never a neighbour behaviour. (Several
 * behaviours per block in registers were measured slower than the
 * accumulator: docs/lab-notes.md, "The register-fused step".) */
static uint32_t fused_bits(const plan *pl, const cs_backend *backend) {
  uint32_t bits = 0;
  for (size_t b = 0; backend->fuses && b < pl->behaviour_count; b++) {
    if (cs_runs_on_neighbours(pl->kind[b])) continue;
    const cs_fused_chunk chunk = {&pl->behaviour[b], pl->kind[b], pl->priority,
                                  &pl->integrator};
    if (backend->fuses(&chunk)) bits |= 1u << b;
  }
  return bits;
}

/* The behaviour a range runs in registers with, or -1: every agent of the
 * range uses that one behaviour and no other, and it is in fused_bits. */
static int fused_behaviour(const plan *pl, uint32_t used, uint32_t everyone) {
  if (!used || (used & (used - 1u)) || !(used & pl->fused_bits) || !(used & everyone))
    return -1;
  int b = 0;
  while (!(used & (1u << b)))
    b++;
  return b;
}

static void run_fused(const plan *pl, const cs_job *jobs, const cs_backend *backend,
                      int b, size_t first, size_t last) {
  const cs_fused_chunk chunk = {&jobs[b], pl->kind[b], pl->priority, &pl->integrator};
  backend->fused(&chunk, first, last);
}

/* Agents [first, last) of one chunk: each behaviour some of them use into
 * the accumulator, then the integrator (or all of it in registers:
 * run_fused). `jobs` are this thread's copies of the plan's (their output
 * is pointed at the accumulator here). */
static void run_chunk(const plan *pl, cs_job *jobs, const cs_backend *backend,
                      size_t first, size_t last, uint32_t used, uint32_t everyone) {
  const int fused = fused_behaviour(pl, used, everyone);
  if (fused >= 0) {
    run_fused(pl, jobs, backend, fused, first, last);
    return;
  }
  float acc[3][CHUNK];
  float decided[CHUNK];
  const size_t n = last - first;
  const int dims = pl->integrator.dims;
  for (int k = 0; k < dims; k++)
    memset(acc[k], 0, n * sizeof(float));
  if (jobs[0].policy.mode == CS_WRITE_PRIORITY) memset(decided, 0, n * sizeof(float));
  for (size_t b = 0; b < pl->behaviour_count; b++) {
    if (!(used & (1u << b))) continue; /* no agent of this chunk uses it */
    for (int k = 0; k < dims; k++)
      jobs[b].policy.out[k] = acc[k];
    jobs[b].policy.out_base = first;
    jobs[b].policy.decided = decided;
    /* (A neighbour behaviour's row writes its precomputed steering.) */
    backend->behaviour[pl->kind[b]][dims - 2](&jobs[b], first, last);
  }
  cs_integrator integrate = pl->integrator;
  for (int k = 0; k < dims; k++)
    integrate.steering[k] = acc[k];
  integrate.steering_base = first;
  /* With avoidance the integrator's velocity is only the preferred one:
   * the state it overwrites is kept for the last stage. */
  cs_step_avoid *avoid = (cs_step_avoid *)&pl->avoid;
  const size_t slot = avoid->on ? cs_step_avoid_begin(avoid, first, last) : 0;
  backend->integrate(&integrate, first, last);
  if (avoid->on) cs_step_avoid_end(avoid, slot, first, last);
}

/* The chunks of tile [first, last) through the accumulator, with the
 * behaviours each one's agents use. */
static void run_chunks(const plan *pl, cs_job *jobs, const cs_backend *backend,
                       size_t first, size_t last, size_t chunks, const uint32_t *used,
                       const uint32_t *everyone) {
  const size_t ahead_per_chunk = (last - first + chunks - 1) / chunks;
  size_t ahead = last;
  for (size_t c = 0; c < chunks; c++) {
    const size_t from = first + c * CHUNK;
    /* The next tile's memory streams in while this tile computes. */
    prefetch_agents(pl, ahead, ahead + ahead_per_chunk);
    ahead += ahead_per_chunk;
    run_chunk(pl, jobs, backend, from, last - from < CHUNK ? last : from + CHUNK, used[c],
              everyone[c]);
  }
}

/* One tile [first, last), chunk by chunk. Chunks give the same bits: every
 * kernel's result for an agent ignores the range it ran in. */
static void run_tile(const plan *pl, cs_job *jobs, const cs_backend *backend,
                     size_t first, size_t last) {
  enum { MOST_CHUNKS = (MAX_TILE + CHUNK - 1) / CHUNK };
  const size_t chunks = (last - first + CHUNK - 1) / CHUNK;
  /* The behaviours of each chunk (`used` by some agent, by `everyone`):
   * one pass over the mask, for the tile's decision and the chunks'. */
  uint32_t used[MOST_CHUNKS], everyone[MOST_CHUNKS];
  uint32_t tile_used = 0, tile_everyone = pl->all_bits;
  for (size_t c = 0; c < chunks; c++) {
    const size_t from = first + c * CHUNK;
    behaviours_of(pl, from, last - from < CHUNK ? last : from + CHUNK, &used[c],
                  &everyone[c]);
    tile_used |= used[c];
    tile_everyone &= everyone[c];
  }
  /* A tile that runs in registers takes one call (its set-up copies the
   * job), after asking for the whole next tile. */
  const int fused = fused_behaviour(pl, tile_used, tile_everyone);
  if (fused >= 0) {
    prefetch_agents(pl, last, last + (last - first));
    run_fused(pl, jobs, backend, fused, first, last);
  } else {
    run_chunks(pl, jobs, backend, first, last, chunks, used, everyone);
  }
  /* The tile's agents have moved (avoidance after the tiles moves them
   * later: it wraps them then). */
  if (pl->wrap && !pl->avoid.after_tiles)
    cs_wrap_on(backend, pl->integrator.pos_rw, pl->wrap, pl->integrator.dims, first,
               last);
}

/* The tiles [t_first, t_last) of the step over [begin, end). */
static void run_tiles(const plan *pl, cs_job *jobs, const cs_backend *backend,
                      size_t begin, size_t end, size_t t_first, size_t t_last) {
  for (size_t t = t_first; t < t_last; t++) {
    size_t first = begin + t * pl->tile;
    run_tile(pl, jobs, backend, first, end - first < pl->tile ? end : first + pl->tile);
  }
}

/* What a worker's share of the tiles needs: the plan and the step's
 * backend and range. */
typedef struct tile_work {
  const plan *pl;
  const cs_backend *backend;
  size_t begin, end;
} tile_work;

/* Tiles [first, last) on a worker: its own copy of the jobs, which a tile
 * moves along its agents. */
static void worker_tiles(void *context, size_t first, size_t last) {
  const tile_work *work = context;
  cs_job mine[work->pl->behaviour_count];
  memcpy(mine, work->pl->behaviour, sizeof mine);
  run_tiles(work->pl, mine, work->backend, work->begin, work->end, first, last);
}

/* Every tile of a validated plan, on the step's spread. Tiles share
 * nothing, so any assignment gives the same bits; ranges of 4 tiles taken
 * dynamically keep a thread that shares its core with another process
 * from holding everyone back. */
static void run_plan(plan *pl, const cs_spread *spread, const cs_backend *backend,
                     size_t begin, size_t end) {
  /* Avoidance needs each chunk's preferred velocities: no chunk runs in
   * registers alone then. */
  pl->fused_bits = pl->avoid.on ? 0 : fused_bits(pl, backend);
  const size_t tiles = (end - begin + pl->tile - 1) / pl->tile;
  if (!spread->tasks && spread->threads == 1) {
    run_tiles(pl, pl->behaviour, backend, begin, end, 0, tiles);
    return;
  }
  tile_work work = {pl, backend, begin, end};
  cs_spread_run(spread, tiles, 4, worker_tiles, &work);
}

/* The wrap after avoidance that ran over the grid's slots: tile by tile,
 * on the tiles' spread. */
static void wrap_tiles(void *context, size_t first, size_t last) {
  const tile_work *work = context;
  const plan *pl = work->pl;
  for (size_t t = first; t < last; t++) {
    const size_t from = work->begin + t * pl->tile;
    const size_t to = work->end - from < pl->tile ? work->end : from + pl->tile;
    cs_wrap_on(work->backend, pl->integrator.pos_rw, pl->wrap, pl->integrator.dims, from,
               to);
  }
}

static void wrap_after(const plan *pl, const cs_backend *backend, const cs_spread *spread,
                       size_t begin, size_t end) {
  tile_work work = {pl, backend, begin, end};
  cs_spread_run(spread, (end - begin + pl->tile - 1) / pl->tile, 4, wrap_tiles, &work);
}

static crowdsteer_status step_here(const crowdsteer_agents *agents,
                                   const crowdsteer_step_desc *step, size_t begin,
                                   size_t end) {
  crowdsteer_status fault;
  /* The jobs live here, one per behaviour and one more per neighbour
   * behaviour: no allocation, and a stack that grows with the step's
   * behaviour count only (make_plan rejects a count out of range before any
   * job is used). */
  const size_t asked = step ? step->behaviour_count : 0;
  const int in_range = asked >= 1 && asked <= CROWDSTEER_STEP_MAX_BEHAVIOURS;
  size_t neighbours = 0;
  for (size_t b = 0; in_range && step->behaviours && b < asked; b++)
    neighbours += cs_runs_on_neighbours(step->behaviours[b].behaviour);
  cs_job jobs[in_range ? asked : 1];
  cs_nb_job nb_jobs[neighbours ? neighbours : 1];
  plan pl;
  pl.behaviour = jobs;
  pl.neighbour = nb_jobs;
  if ((fault = make_plan(&pl, agents, step, begin, end)) != CROWDSTEER_OK) return fault;
  if ((fault = cs_tasks_check(step->tasks)) != CROWDSTEER_OK) return fault;
  if (begin == end) return CROWDSTEER_OK;
  /* One ISA for the whole step, whatever other threads force meanwhile:
   * the neighbour pass pairs its jobs by what its backend takes. */
  const crowdsteer_isa isa = crowdsteer_active_isa();
  size_t floats;
  if (!cs_nb_step_floats(step, pl.neighbour, end - begin, agents->dims, isa, &floats))
    return CROWDSTEER_ERROR_OUT_OF_MEMORY;
  const size_t tiles = (end - begin + pl.tile - 1) / pl.tile;
  const cs_spread spread = cs_spread_for(step->tasks, step->threads, tiles);
  /* The avoidance stage's slots, one per thread that may run tiles, after
   * the neighbour behaviours' floats. */
  const size_t parts = cs_step_avoid_parts(&pl.avoid);
  const cs_spread part_spread = cs_spread_for(step->tasks, step->threads, parts);
  const size_t tile_width = cs_spread_width(&spread, tiles);
  const size_t part_width = parts ? cs_spread_width(&part_spread, parts) : 0;
  const size_t slots = (tile_width > part_width ? tile_width : part_width) + 1;
  const size_t avoid_floats = (cs_step_avoid_bytes(&pl.avoid, slots) + 3) / 4;
  if (avoid_floats > SIZE_MAX / 4 - floats) return CROWDSTEER_ERROR_OUT_OF_MEMORY;
  cs_scratch scratch;
  if ((fault = cs_scratch_take(&scratch, step->workspace, floats + avoid_floats)) !=
      CROWDSTEER_OK)
    return fault;
  /* No scratch (no neighbour behaviour, no avoidance): floats is NULL, and
   * even NULL + 0 is undefined behaviour (UBSan's pointer-overflow check). */
  if (scratch.floats) cs_step_avoid_attach(&pl.avoid, scratch.floats + floats, slots);
  cs_nb_step_run(agents, step, begin, end, isa, pl.behaviour, pl.neighbour,
                 scratch.floats);
  run_plan(&pl, &spread, cs_backend_for(isa), begin, end);
  cs_step_avoid_run_parts(&pl.avoid, &part_spread);
  if (pl.wrap && pl.avoid.after_tiles)
    wrap_after(&pl, cs_backend_for(isa), &spread, begin, end);
  cs_scratch_give_back(&scratch);
  return CROWDSTEER_OK;
}

crowdsteer_status crowdsteer_step(const crowdsteer_agents *agents,
                                  const crowdsteer_step_desc *step, size_t begin,
                                  size_t end) {
  const cs_fpenv host = cs_fpenv_enter();
  return cs_fpenv_return(host, step_here(agents, step, begin, end));
}
