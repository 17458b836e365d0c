/* crowdsteer_id_index: agent ids to batch indices, for targets kept by id.
 * An open-addressing hash table (linear probing, at most half full) built
 * from the batch's ids in index order, so duplicates are found at build
 * and every lookup is a few probes; memory grows with the count, never per
 * build once warm. Integer work only: no floating-point mode to fix. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct crowdsteer_id_index {
  size_t count;    /* agents indexed; 0 also when never built or failed */
  uint32_t mask;   /* capacity - 1 */
  uint32_t *key;   /* the id in a used slot */
  uint32_t *value; /* batch index + 1 of a used slot; 0: empty */
  size_t capacity; /* slots allocated (a power of two) */
};

crowdsteer_status crowdsteer_id_index_create(crowdsteer_id_index **index) {
  if (!index) return CROWDSTEER_ERROR_NULL_POINTER;
  *index = (crowdsteer_id_index *)calloc(1, sizeof **index);
  return *index ? CROWDSTEER_OK : CROWDSTEER_ERROR_OUT_OF_MEMORY;
}

void crowdsteer_id_index_destroy(crowdsteer_id_index *index) {
  if (!index) return;
  free(index->key);
  free(index->value);
  free(index);
}

size_t crowdsteer_id_index_bytes(const crowdsteer_id_index *index) {
  return index ? sizeof *index + index->capacity * 2 * sizeof(uint32_t) : 0;
}

/* Slots for `count` agents: a power of two at least twice the count. */
static size_t slots_for(size_t count) {
  size_t slots = 16;
  while (slots < 2 * count)
    slots *= 2;
  return slots;
}

static crowdsteer_status reserve(crowdsteer_id_index *index, size_t slots) {
  if (slots <= index->capacity) return CROWDSTEER_OK;
  uint32_t *key = (uint32_t *)malloc(slots * sizeof(uint32_t));
  uint32_t *value = (uint32_t *)malloc(slots * sizeof(uint32_t));
  if (!key || !value) {
    free(key);
    free(value);
    return CROWDSTEER_ERROR_OUT_OF_MEMORY;
  }
  free(index->key);
  free(index->value);
  index->key = key;
  index->value = value;
  index->capacity = slots;
  return CROWDSTEER_OK;
}

/* The slot holding `id`, or the empty slot where it would go. */
static uint32_t probe(const crowdsteer_id_index *index, uint32_t id) {
  uint32_t slot = cs_mix32(id) & index->mask;
  while (index->value[slot] && index->key[slot] != id)
    slot = (slot + 1) & index->mask;
  return slot;
}

crowdsteer_status crowdsteer_id_index_build(crowdsteer_id_index *index,
                                            const crowdsteer_agents *agents) {
  if (!index || !agents) return CROWDSTEER_ERROR_NULL_POINTER;
  if (agents->count > UINT32_MAX - 1) return CROWDSTEER_ERROR_RANGE;
  if (agents->count && agents->id && !cs_aligned(agents->id))
    return CROWDSTEER_ERROR_ALIGNMENT;
  const size_t slots = slots_for(agents->count);
  const crowdsteer_status grown = reserve(index, slots);
  if (grown != CROWDSTEER_OK) return grown;
  index->count = 0;
  index->mask = (uint32_t)(slots - 1);
  memset(index->value, 0, slots * sizeof(uint32_t));
  for (size_t i = 0; i < agents->count; i++) {
    const uint32_t id = cs_agent_id(agents->id, i);
    const uint32_t slot = probe(index, id);
    if (index->value[slot]) { /* a second agent with this id */
      memset(index->value, 0, slots * sizeof(uint32_t));
      return CROWDSTEER_ERROR_PARAMETER;
    }
    index->key[slot] = id;
    index->value[slot] = (uint32_t)i + 1u;
  }
  index->count = agents->count;
  return CROWDSTEER_OK;
}

size_t crowdsteer_id_index_count(const crowdsteer_id_index *index) {
  return index ? index->count : 0;
}

crowdsteer_status crowdsteer_id_index_lookup(const crowdsteer_id_index *index,
                                             const uint32_t *ids, size_t n,
                                             uint32_t *indices) {
  if (!index) return CROWDSTEER_ERROR_NULL_POINTER;
  if (n == 0) return CROWDSTEER_OK;
  if (!ids || !indices) return CROWDSTEER_ERROR_NULL_POINTER;
  if (!cs_aligned(ids) || !cs_aligned(indices)) return CROWDSTEER_ERROR_ALIGNMENT;
  if (!index->count) return CROWDSTEER_ERROR_AGENT_INDEX;
  /* Every id first, so a miss writes nothing (ids and indices may be the
   * same array). */
  for (size_t i = 0; i < n; i++)
    if (!index->value[probe(index, ids[i])]) return CROWDSTEER_ERROR_AGENT_INDEX;
  for (size_t i = 0; i < n; i++)
    indices[i] = index->value[probe(index, ids[i])] - 1u;
  return CROWDSTEER_OK;
}
