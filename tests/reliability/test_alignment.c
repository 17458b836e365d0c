/* Every array a call uses must be aligned to 4 bytes: each entry point and
 * crowdsteer_step, given one array 1, 2 or 3 bytes off, returns
 * CROWDSTEER_ERROR_ALIGNMENT and writes nothing, and an array the call does
 * not use may be anywhere. Whether a call uses an array is learnt from the
 * NULL rule (an array it needs cannot be NULL); per-agent parameters and
 * weights, which may be NULL, follow the table of what each call reads. */
#include "../common/all_kinds.h"

enum { COUNT = 37 };

typedef enum per_agent_field {
  MAX_SPEED,
  MAX_FORCE,
  MASS,
  TARGET_RADIUS,
  SLOWING_RADIUS,
  PANIC_RADIUS,
  DANGER_RADIUS,
  ESCAPE_RADIUS,
  WANDER_RADIUS,
  WANDER_DISTANCE,
  WEIGHT,
  TIME_TO_TARGET,
  MAX_PREDICTION,
  JITTER,
  PER_AGENT_FIELDS,
  NOT_PER_AGENT = PER_AGENT_FIELDS
} per_agent_field;

/* The scenario's array slots: state and outputs first, then per-agent. */
typedef struct slot {
  float **array;
  per_agent_field per_agent;
} slot;

static int list_slots(scenario *s, slot out[]) {
  int n = 0;
  float **groups[6] = {s->p, s->v, s->tp, s->tv, s->out, s->wander};
  for (int g = 0; g < 6; g++)
    for (int k = 0; k < 3; k++)
      out[n++] = (slot){&groups[g][k], NOT_PER_AGENT};
  float **per_agent[PER_AGENT_FIELDS] = {
      &s->max_speed,      &s->max_force,       &s->mass,          &s->target_radius,
      &s->slowing_radius, &s->panic_radius,    &s->danger_radius, &s->escape_radius,
      &s->wander_radius,  &s->wander_distance, &s->weight,        &s->time_to_target,
      &s->max_prediction, &s->jitter};
  for (int f = 0; f < PER_AGENT_FIELDS; f++)
    out[n++] = (slot){per_agent[f], (per_agent_field)f};
  return n;
}

/* Which per-agent arrays an entry point reads (entries.h sets them all). */
static int reads_per_agent(const variant *va, per_agent_field f) {
  if (!va->per_agent) return 0;
  switch (f) {
  case MAX_SPEED: return va->entry != WANDER;
  case MAX_FORCE:
  case MASS: return va->entry == INTEGRATE;
  case TARGET_RADIUS:
  case SLOWING_RADIUS: return va->entry == ARRIVE;
  case PANIC_RADIUS: return va->entry == FLEE || va->entry == EVADE;
  case DANGER_RADIUS:
  case ESCAPE_RADIUS: return va->entry == LEAVE;
  case WANDER_RADIUS:
  case WANDER_DISTANCE: return va->entry == WANDER;
  case WEIGHT: return va->accumulate && va->entry != INTEGRATE;
  /* entries.h passes the timing arrays only for per_agent 2 */
  case TIME_TO_TARGET: return va->per_agent >= 2 && va->entry <= EVADE;
  case MAX_PREDICTION:
    return va->per_agent >= 2 && (va->entry == PURSUIT || va->entry == EVADE);
  case JITTER: return va->per_agent >= 2 && va->entry == WANDER;
  default: return 0;
  }
}

static size_t storage_bytes(const scenario *s) {
  return (s->count + 32) * SCENARIO_FLOAT_ARRAYS * sizeof(float);
}

/* One call with one slot (or the index array, slot NULL) set to `where`;
 * the storage is restored afterwards. Returns the call's status and whether
 * it wrote anything. */
static crowdsteer_status call_with(scenario *s, const variant *va, float **slot_array,
                                   uintptr_t offset, int use_null, int *wrote) {
  float *before = (float *)malloc(storage_bytes(s));
  memcpy(before, s->storage, storage_bytes(s));
  uint32_t *saved_index = s->index;
  float *saved = slot_array ? *slot_array : NULL;
  if (slot_array)
    *slot_array = use_null ? NULL : (float *)((uintptr_t)saved + offset);
  else
    s->index = use_null ? NULL : (uint32_t *)((uintptr_t)saved_index + offset);
  crowdsteer_status status = run_entry(s, va, 0, s->count);
  if (slot_array) *slot_array = saved;
  s->index = saved_index;
  *wrote = memcmp(before, s->storage, storage_bytes(s)) != 0;
  memcpy(s->storage, before, storage_bytes(s));
  free(before);
  return status;
}

static void check_entry(const variant *va) {
  scenario s;
  scenario_make(&s, COUNT, va->dims, 7u + (uint64_t)va->entry, 0);
  slot slots[6 * 3 + PER_AGENT_FIELDS + 1];
  int n = list_slots(&s, slots);
  slots[n++] = (slot){NULL, NOT_PER_AGENT}; /* the target indices */
  for (int i = 0; i < n; i++) {
    int wrote;
    int used;
    if (slots[i].per_agent != NOT_PER_AGENT)
      used = reads_per_agent(va, slots[i].per_agent);
    else if (!slots[i].array) /* the indices: run_entry reads them for AGENT */
      used = va->entry <= EVADE && va->target_kind == CROWDSTEER_TARGET_AGENTS;
    else
      used = call_with(&s, va, slots[i].array, 0, 1, &wrote) ==
             CROWDSTEER_ERROR_NULL_POINTER;
    for (uintptr_t offset = 1; offset < 4; offset++) {
      crowdsteer_status status = call_with(&s, va, slots[i].array, offset, 0, &wrote);
      CHECK_MSG(status == (used ? CROWDSTEER_ERROR_ALIGNMENT : CROWDSTEER_OK),
                "%s %dd kind %d per_agent %d accumulate %d, array %d off by %d: "
                "status %d",
                entry_name(va->entry), va->dims, va->target_kind, va->per_agent,
                va->accumulate, i, (int)offset, (int)status);
      CHECK_MSG(!used || !wrote, "%s: a misaligned call wrote", entry_name(va->entry));
    }
  }
  scenario_free(&s);
}

/* crowdsteer_step over all_kinds.h's step (every behaviour is used by some
 * agent), in place with a snapshot or out of place into `other`, with one
 * array of `s` or `other` (or the mask, `array` NULL) moved by `offset` or
 * set to NULL. Both scenarios are restored afterwards. */
static crowdsteer_status step_with(scenario *s, scenario *other, int out_of_place,
                                   float **array, uintptr_t offset, int use_null,
                                   int *wrote) {
  float *before = (float *)malloc(2 * storage_bytes(s));
  memcpy(before, s->storage, storage_bytes(s));
  memcpy(before + storage_bytes(s) / sizeof(float), other->storage, storage_bytes(s));
  float *saved = array ? *array : NULL;
  if (array) *array = use_null ? NULL : (float *)((uintptr_t)saved + offset);
  all_kinds_step c;
  all_kinds_make(&c, s, other, CROWDSTEER_BLEND);
  if (out_of_place)
    c.step.output = &c.other;
  else
    c.step.snapshot = &c.other;
  if (!array) c.step.behaviour_mask = (const uint32_t *)((uintptr_t)c.mask + offset);
  crowdsteer_status status = crowdsteer_step(&c.agents, &c.step, 0, s->count);
  all_kinds_free(&c);
  if (array) *array = saved;
  *wrote = memcmp(before, s->storage, storage_bytes(s)) != 0 ||
           memcmp(before + storage_bytes(s) / sizeof(float), other->storage,
                  storage_bytes(s)) != 0;
  memcpy(s->storage, before, storage_bytes(s));
  memcpy(other->storage, before + storage_bytes(s) / sizeof(float), storage_bytes(s));
  free(before);
  return status;
}

static void check_step(int dims, int out_of_place) {
  scenario s, other;
  scenario_make(&s, COUNT, dims, 99, 0);
  scenario_make(&other, COUNT, dims, 98, 0);
  slot slots[2 * (6 * 3 + PER_AGENT_FIELDS) + 1];
  int n = list_slots(&s, slots);
  const int own_slots = n;
  n += list_slots(&other, slots + n);
  slots[n++] = (slot){NULL, NOT_PER_AGENT}; /* the behaviour mask */
  /* Per-agent arrays all_kinds.h's step reads: odd behaviours' and the
   * integrator's, and behaviour 1's weights. */
  static const int step_reads[PER_AGENT_FIELDS] = {
      [MAX_SPEED] = 1,     [MAX_FORCE] = 1,     [MASS] = 1,  [PANIC_RADIUS] = 1,
      [DANGER_RADIUS] = 1, [ESCAPE_RADIUS] = 1, [WEIGHT] = 1};
  for (int i = 0; i < n; i++) {
    int wrote, used;
    if (!slots[i].array)
      used = 1;
    else if (i >= own_slots) /* of the other buffer only p and v are used */
      used = i - own_slots < 6 && (dims == 3 || (i - own_slots) % 3 != 2);
    else if (slots[i].per_agent != NOT_PER_AGENT)
      used = step_reads[slots[i].per_agent];
    else
      used = step_with(&s, &other, out_of_place, slots[i].array, 0, 1, &wrote) ==
             CROWDSTEER_ERROR_NULL_POINTER;
    for (uintptr_t offset = 1; offset < 4; offset++) {
      crowdsteer_status status =
          step_with(&s, &other, out_of_place, slots[i].array, offset, 0, &wrote);
      CHECK_MSG(status == (used ? CROWDSTEER_ERROR_ALIGNMENT : CROWDSTEER_OK),
                "step %dd %s, array %d off by %d: status %d", dims,
                out_of_place ? "out of place" : "in place", i, (int)offset, (int)status);
      CHECK_MSG(!used || !wrote, "step: a misaligned call wrote (array %d)", i);
    }
  }
  scenario_free(&s);
  scenario_free(&other);
}

static void check_all(void) {
  for_each_variant(COUNT, 0, check_entry);
  for (int dims = 2; dims <= 3; dims++) {
    check_step(dims, 0);
    check_step(dims, 1);
  }
}

int main(void) {
  if (!on_every_isa(check_all)) return 77;
  return check_report("test_alignment");
}
