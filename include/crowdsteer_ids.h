/* crowdsteer's index from agent ids to batch indices, for agent targets
 * kept by id while a batch is re-sorted. Part of the public API: include
 * crowdsteer.h, which includes this header. */
/** \file crowdsteer_ids.h
 * Agent targets by id; included by crowdsteer.h. */
#ifndef CROWDSTEER_IDS_H
#define CROWDSTEER_IDS_H

#include "crowdsteer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Agent targets by id -------------------------------------------------
 * AGENTS targets name batch indices, which change when a crowd is reordered
 * (sorted by cell for locality) or split across processes. Keep each
 * agent's target as the target's id instead, and after every reorder turn
 * the ids into indices with an id index built from crowdsteer_agents.id:
 * the behaviours then see the same targets, and with ids in use every
 * result keeps its bits (see crowdsteer_agents.id). */

/** An index from agent ids to batch indices (opaque). Lookups only read it,
 *  so any number of threads may look up at once; a build must not run
 *  while another thread uses the index. */
typedef struct crowdsteer_id_index crowdsteer_id_index;

/** Makes an empty index (no memory beyond the handle until the first
 *  build). NULL_POINTER if `index` is NULL, OUT_OF_MEMORY. */
CROWDSTEER_API crowdsteer_status crowdsteer_id_index_create(crowdsteer_id_index **index);

/** Frees an index; NULL is ignored. */
CROWDSTEER_API void crowdsteer_id_index_destroy(crowdsteer_id_index *index);

/**
 * Indexes the whole batch by id: agents->id[i] for every i < count (the
 * index i itself when agents->id is NULL); nothing else of `agents` is
 * read. Ids must be distinct: PARAMETER when two agents share one (the
 * index is then empty, so every lookup fails until a good build). Memory
 * (8 bytes per agent and at least as many again: a hash table at most half
 * full) grows only when the count needs more than any earlier build; once
 * warm a build allocates nothing. Also NULL_POINTER, RANGE (count >= 2^32
 * - 1), ALIGNMENT (a misaligned id array), OUT_OF_MEMORY (the index then
 * keeps its previous contents).
 */
CROWDSTEER_API crowdsteer_status
crowdsteer_id_index_build(crowdsteer_id_index *index, const crowdsteer_agents *agents);

/** Agents in the index (0 before a successful build). */
CROWDSTEER_API size_t crowdsteer_id_index_count(const crowdsteer_id_index *index);

/** Bytes of memory the index holds now (0 for NULL). */
CROWDSTEER_API size_t crowdsteer_id_index_bytes(const crowdsteer_id_index *index);

/**
 * indices[i] = the batch index of the agent whose id is ids[i], for i < n:
 * the `index` array of an AGENTS target. AGENT_INDEX, writing nothing, when
 * some id is in no agent of the index; also NULL_POINTER, ALIGNMENT. `ids`
 * and `indices` may be the same array.
 */
CROWDSTEER_API crowdsteer_status crowdsteer_id_index_lookup(
    const crowdsteer_id_index *index, const uint32_t *ids, size_t n, uint32_t *indices);

#ifdef __cplusplus
}
#endif

#endif /* CROWDSTEER_IDS_H */
