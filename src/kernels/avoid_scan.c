/* The avoidance's candidate scan on CS_LANES lanes: the squared distances
 * of a block of candidates at once, and the lanes under the limit
 * collected in scan order (src/avoid/near.h), then ranked once: the same
 * neighbours, keys and order as the scalar scan, so the same bits. */
#include <math.h>

#include "avoid/near.h"
#include "kernels/vec.h"
#include "kernels/vec_nb.h"

CS_INLINE vf block_dd(const cs_nb_rows *rows, size_t slot, int dims, vf px, vf py,
                      vf pz) {
  const vf d0 = v_sub(px, v_load(rows->pos[0] + slot));
  const vf d1 = v_sub(py, v_load(rows->pos[1] + slot));
  vf dd = v_add(v_mul(d0, d0), v_mul(d1, d1));
  if (dims == 3) {
    const vf d2 = v_sub(pz, v_load(rows->pos[2] + slot));
    dd = v_add(dd, v_mul(d2, d2));
  }
  return dd;
}

static float float_of(uint32_t bits) {
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

/* Run r of the scan: the rows' own, or the narrowed ones (cs_avoid_narrow)
 * with the place of their first slot. */
CS_INLINE void run_at(const cs_avoid_scan *sc, int narrowed, int r, size_t *first,
                      size_t *last) {
  if (narrowed >= 0) {
    *first = sc->runs[3 * r], *last = sc->runs[3 * r + 1];
  } else {
    *first = sc->rows->first[r], *last = sc->rows->last[r];
  }
}

/* A first limit, so that few candidates are collected: the (cap + 1)-th
 * smallest squared distance among the first runs' slots (the agent's own
 * cells first, itself among them; runs are added until they hold twice
 * that many, at most CS_AVOID_SPARE slots) bounds the cap nearest's, found
 * bit by bit on the float's top 12 bits (bits LOW_BIT and up, which keeps
 * it within 2^-4 of it) by counting lanes. Without enough slots, or with
 * a group filter, or with fewer than cap + 1 slots under it, the radius's
 * limit (which the search would give then too). */
enum { LOW_BIT = 19 };
_Static_assert((31 - LOW_BIT) % 2 == 0, "the search takes the bits two at a time");

static float first_limit(const cs_avoid_scan *sc, int runs, int narrowed, vf px, vf py,
                         vf pz) {
  const cs_nb_rows *rows = sc->rows;
  const uint32_t k = sc->cap + 1u;
  if (sc->use_mask || k > CS_AVOID_SPARE / 2) return sc->within;
  float *dd = sc->row_dd; /* CS_AVOID_SPARE + CS_AVOID_PAD floats */
  size_t m = 0;
  for (int r = 0; r < runs && m < 2u * k; r++) {
    size_t first, last;
    run_at(sc, narrowed, r, &first, &last);
    size_t take = last - first;
    if (take > CS_AVOID_SPARE - m) take = CS_AVOID_SPARE - m;
    size_t j = 0;
    /* Whole blocks; one past the run's end is overwritten or padded. */
    for (; j < take && first + j + CS_LANES <= sc->slots; j += CS_LANES)
      v_store(dd + m + j, block_dd(rows, first + j, sc->dims, px, py, pz));
    for (; j < take; j++)
      dd[m + j] = cs_avoid_dd(sc, first + j);
    m += take;
  }
  if (m < k) return sc->within;
  size_t padded = m;
  for (; padded % CS_LANES; padded++)
    dd[padded] = INFINITY;
  uint32_t under = 0;
  const vf within = v_set1(sc->within);
  for (size_t b = 0; b < padded; b += CS_LANES)
    under += (uint32_t)m_count(v_lt(v_load(dd + b), within));
  if (under < k) return sc->within;
  /* Two bits a pass: the three trials a binary search could ask for those
   * two bits counted at once (each pass's counts wait on the one before,
   * so half the passes is about half the time); the bits are how many of
   * them leave fewer than k at or under (the counts grow with the trial). */
  uint32_t bound = 0;
  for (int bit = 30; bit > LOW_BIT; bit -= 2) {
    const uint32_t low = (1u << (bit - 1)) - 1u;
    const vf trial0 = v_set1(float_of(bound | low));
    const vf trial1 = v_set1(float_of(bound | 1u << (bit - 1) | low));
    const vf trial2 = v_set1(float_of(bound | 2u << (bit - 1) | low));
    uint32_t at_most0 = 0, at_most1 = 0, at_most2 = 0;
    for (size_t b = 0; b < padded; b += CS_LANES) {
      const vf d = v_load(dd + b);
      at_most0 += (uint32_t)m_count(v_le(d, trial0));
      at_most1 += (uint32_t)m_count(v_le(d, trial1));
      at_most2 += (uint32_t)m_count(v_le(d, trial2));
    }
    bound |= (uint32_t)((at_most0 < k) + (at_most1 < k) + (at_most2 < k)) << (bit - 1);
  }
  const float worst = float_of(bound | ((1u << LOW_BIT) - 1u));
  return worst < sc->within ? cs_avoid_bound(sqrtf(worst), sc->within) : sc->within;
}

/* Up to this many candidates are ranked on lanes; up to SORTED of them by
 * insertion. */
enum { LANE_RANKED = 64, SORTED = 8 };

/* Up to LANE_RANKED candidates in scan order, as the lanes rank them:
 * squared distances (then distances), ids and places with the sign bit
 * flipped (the lanes compare signed), slots. */
enum { RANK_ROOM = (LANE_RANKED + CS_LANES - 1) / CS_LANES * CS_LANES };
typedef struct lane_ranked {
  float dist[RANK_ROOM];
  uint32_t id[RANK_ROOM], order[RANK_ROOM], slot[RANK_ROOM];
} lane_ranked;

#if CS_LANES == 16 && defined(__AVX512F__)
/* rank_lanes' places for one block, all lanes at once: each lane against
 * the other 15 rotated past it (the same comparisons, so the same places),
 * then the cap nearest picked by place. No broadcast of a candidate and
 * no branch on whether it is kept. */
static uint32_t rank_block(const cs_avoid_scan *sc, const lane_ranked *r, uint32_t n,
                           cs_avoid_near *near) {
  const __m512 dist = _mm512_loadu_ps(r->dist);
  const __m512i id = _mm512_loadu_si512((const void *)r->id);
  const __m512i order = _mm512_loadu_si512((const void *)r->order);
  const __m512i lane = i_iota();
  const __m512i one = _mm512_set1_epi32(1), fifteen = _mm512_set1_epi32(15);
  __m512i place = _mm512_setzero_si512();
  for (int t = 1; t < 16; t++) {
    const __m512i from =
        _mm512_and_si512(_mm512_add_epi32(lane, _mm512_set1_epi32(t)), fifteen);
    const __m512 dj = _mm512_permutexvar_ps(from, dist);
    const __m512i ij = _mm512_permutexvar_epi32(from, id);
    const __m512i oj = _mm512_permutexvar_epi32(from, order);
    const __mmask16 same =
        _mm512_cmpeq_epi32_mask(_mm512_castps_si512(dj), _mm512_castps_si512(dist));
    const __mmask16 tie =
        _mm512_cmpgt_epi32_mask(id, ij) |
        (_mm512_cmpeq_epi32_mask(ij, id) & _mm512_cmpgt_epi32_mask(order, oj));
    const __mmask16 before = _mm512_cmp_ps_mask(dj, dist, _CMP_LT_OQ) | (same & tie);
    place = _mm512_mask_add_epi32(place, before, place, one);
  }
  const uint32_t kept = n < sc->cap ? n : sc->cap;
  for (uint32_t p = 0; p < kept; p++) { /* the entries' places are 0 to n - 1 */
    const uint32_t i = (uint32_t)__builtin_ctz(
        _mm512_cmpeq_epi32_mask(place, _mm512_set1_epi32((int)p)));
    near[p].key = cs_nb_nearness(r->dist[i], r->id[i] ^ 0x80000000u);
    near[p].order = r->order[i] ^ 0x80000000u;
    near[p].slot = r->slot[i];
  }
  return kept;
}
/* rank_block for 2 to 4 blocks: each block against every block rotated
 * past it. (One block keeps rank_block: this with a count of 1, even
 * inlined with it known, was 1-2 % slower at 10,000 agents.) */
static uint32_t rank_blocks(const cs_avoid_scan *sc, const lane_ranked *r, uint32_t n,
                            uint32_t blocks, cs_avoid_near *near) {
  enum { MOST = RANK_ROOM / 16 };
  __m512 dist[MOST];
  __m512i id[MOST], order[MOST], place[MOST];
  for (uint32_t b = 0; b < blocks; b++) {
    dist[b] = _mm512_loadu_ps(r->dist + 16 * b);
    id[b] = _mm512_loadu_si512((const void *)(r->id + 16 * b));
    order[b] = _mm512_loadu_si512((const void *)(r->order + 16 * b));
    place[b] = _mm512_setzero_si512();
  }
  const __m512i lane = i_iota();
  const __m512i one = _mm512_set1_epi32(1), fifteen = _mm512_set1_epi32(15);
  for (int t = 0; t < 16; t++) {
    const __m512i from =
        _mm512_and_si512(_mm512_add_epi32(lane, _mm512_set1_epi32(t)), fifteen);
    for (uint32_t jb = 0; jb < blocks; jb++) {
      const __m512 dj = _mm512_permutexvar_ps(from, dist[jb]);
      const __m512i ij = _mm512_permutexvar_epi32(from, id[jb]);
      const __m512i oj = _mm512_permutexvar_epi32(from, order[jb]);
      for (uint32_t ib = 0; ib < blocks; ib++) {
        if (t == 0 && ib == jb) continue; /* each lane itself */
        const __mmask16 same = _mm512_cmpeq_epi32_mask(_mm512_castps_si512(dj),
                                                       _mm512_castps_si512(dist[ib]));
        const __mmask16 tie = _mm512_cmpgt_epi32_mask(id[ib], ij) |
                              (_mm512_cmpeq_epi32_mask(ij, id[ib]) &
                               _mm512_cmpgt_epi32_mask(order[ib], oj));
        const __mmask16 before =
            _mm512_cmp_ps_mask(dj, dist[ib], _CMP_LT_OQ) | (same & tie);
        place[ib] = _mm512_mask_add_epi32(place[ib], before, place[ib], one);
      }
    }
  }
  const uint32_t kept = n < sc->cap ? n : sc->cap;
  for (uint32_t p = 0; p < kept; p++) { /* the entries' places are 0 to n - 1 */
    const __m512i want = _mm512_set1_epi32((int)p);
    uint64_t at = 0;
    for (uint32_t b = 0; b < blocks; b++)
      at |= (uint64_t)_mm512_cmpeq_epi32_mask(place[b], want) << (16 * b);
    const uint32_t i = (uint32_t)__builtin_ctzll(at);
    near[p].key = cs_nb_nearness(r->dist[i], r->id[i] ^ 0x80000000u);
    near[p].order = r->order[i] ^ 0x80000000u;
    near[p].slot = r->slot[i];
  }
  return kept;
}
#endif

/* The lanes of the last block past the n entries: the key never before
 * anything (INFINITY, then the largest id and place). */
static void pad_last_block(lane_ranked *r, uint32_t n, uint32_t k) {
  if (k == n) return;
  const uint32_t b = k - CS_LANES;
  const vmask real = m_first(n - b);
  v_store(r->dist + b, v_select(real, v_load(r->dist + b), v_set1(INFINITY)));
  i_store(r->id + b, i_select(real, i_load(r->id + b), i_set1(0x7fffffffu)));
  i_store(r->order + b, i_select(real, i_load(r->order + b), i_set1(0x7fffffffu)));
}

/* The n entries of r ranked: each one's place is the number of entries
 * before it by (distance, id, order), counted without a branch (the last
 * block's spare lanes hold the key never before anything: INFINITY, then
 * the largest id and place); the cap first go to `near` in order. A few
 * are sorted one by one instead (cheaper than a block's set-up). The
 * distances are sqrtf of the squared ones, as the keys take them. */
static uint32_t rank_lanes(const cs_avoid_scan *sc, lane_ranked *r, uint32_t n,
                           cs_avoid_near *near) {
  if (n <= SORTED && sc->cap > 0) {
    uint32_t kept = 0;
    for (uint32_t i = 0; i < n; i++) {
      const cs_avoid_near e = {cs_nb_nearness(sqrtf(r->dist[i]), r->id[i] ^ 0x80000000u),
                               r->order[i] ^ 0x80000000u, r->slot[i]};
      cs_avoid_keep_sorted(near, &kept, sc->cap, e);
    }
    return kept;
  }
  uint32_t k = (n + CS_LANES - 1) / CS_LANES * CS_LANES;
  pad_last_block(r, n, k);
  for (uint32_t b = 0; b < k; b += CS_LANES)
    v_store(r->dist + b, v_sqrt(v_load(r->dist + b)));
  /* Past a block: a candidate with cap or more strictly nearer ones (by
   * distance alone) cannot be kept, so the others (the kept ones and those
   * tied with them) are ranked alone; a kept one's place among them is its
   * place among all, every candidate before it being one of them. Counting
   * by distance is a compare and an add a pair, ranking several. */
  if (k > CS_LANES && sc->cap < n) {
    uint32_t nearer[RANK_ROOM];
    const vi one = i_set1(1), none = i_set1(0);
    for (uint32_t b = 0; b < k; b += CS_LANES) {
      const vf di = v_load(r->dist + b);
      vi count = none;
      for (uint32_t j = 0; j < n; j++)
        count = i_add(count, i_select(v_lt(v_set1(r->dist[j]), di), one, none));
      i_store(nearer + b, count);
    }
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++)
      if (nearer[i] < sc->cap) {
        r->dist[m] = r->dist[i], r->id[m] = r->id[i];
        r->order[m] = r->order[i], r->slot[m] = r->slot[i];
        m++;
      }
    n = m;
    k = (n + CS_LANES - 1) / CS_LANES * CS_LANES;
    pad_last_block(r, n, k);
  }
#if CS_LANES == 16 && defined(__AVX512F__)
  if (k == CS_LANES) return rank_block(sc, r, n, near);
  return rank_blocks(sc, r, n, k / CS_LANES, near);
#else
  for (uint32_t i = 0; i < n; i++) {
    const vf di = v_set1(r->dist[i]);
    const vi ii = i_set1(r->id[i]), oi = i_set1(r->order[i]);
    uint32_t place = 0;
    for (uint32_t b = 0; b < k; b += CS_LANES) {
      const vf dj = v_load(r->dist + b);
      const vi ij = i_load(r->id + b), oj = i_load(r->order + b);
      const vmask same = i_eq(v_bits(dj), v_bits(di));
      const vmask tie = m_or(i_gt(ii, ij), m_and(i_eq(ij, ii), i_gt(oi, oj)));
      place += (uint32_t)m_count(m_or(v_lt(dj, di), m_and(same, tie)));
    }
    if (place < sc->cap) {
      near[place].key = cs_nb_nearness(r->dist[i], r->id[i] ^ 0x80000000u);
      near[place].order = r->order[i] ^ 0x80000000u;
      near[place].slot = r->slot[i];
    }
  }
  return n < sc->cap ? n : sc->cap;
#endif
}

/* The n (<= LANE_RANKED) collected candidates ranked on lanes. */
static uint32_t rank_collected(const cs_avoid_scan *sc, uint32_t n, cs_avoid_near *near) {
  lane_ranked r;
  const cs_avoid_cand *c = sc->cands;
  for (uint32_t k = 0; k < n; k++) {
    r.dist[k] = c[k].dd, r.id[k] = c[k].id ^ 0x80000000u;
    r.order[k] = c[k].order ^ 0x80000000u, r.slot[k] = c[k].slot;
  }
  return rank_lanes(sc, &r, n, near);
}

/* Where the lanes pack in registers (CS_PACK_IN_REGISTERS), the scan packs
 * its candidates' squared distances, slots and places in the scan into
 * `row_dd` (its first limit done with it) while at most LANE_RANKED are
 * found: no branch a lane, as collecting them one by one takes. */
typedef struct packed_cands {
  float *dd;
  uint32_t *slot, *order;
  uint32_t count;
} packed_cands;

enum { PACK_ROOM = LANE_RANKED + CS_LANES };
_Static_assert(3 * PACK_ROOM <= CS_AVOID_SPARE, "row_dd holds the packed candidates");

/* The packed candidates ranked (copied a block at a time: the blocks the
 * ranking loads then come from whole stores, not from lanes stored one by
 * one, which a load waits on). */
static uint32_t rank_packed(const cs_avoid_scan *sc, const packed_cands *pk,
                            cs_avoid_near *near) {
  lane_ranked r;
  const vi sign = i_set1(0x80000000u);
  for (uint32_t b = 0; b < pk->count; b += CS_LANES) {
    v_store(r.dist + b, v_load(pk->dd + b));
    i_store(r.slot + b, i_load(pk->slot + b));
    i_store(r.order + b, i_xor(i_load(pk->order + b), sign));
  }
  const uint32_t *index = sc->rows->index;
  for (uint32_t k = 0; k < pk->count; k++) {
    const uint32_t slot = r.slot[k];
    r.id[k] = cs_agent_id(sc->ids, index ? index[slot] : slot) ^ 0x80000000u;
  }
  return rank_lanes(sc, &r, pk->count, near);
}

/* Past LANE_RANKED packed: the packed ones collected as the scalar scan
 * collects them (its test, in scan order), and packing stops. */
static void unpack(const cs_avoid_scan *sc, packed_cands *pk, uint32_t *n, float *limit) {
  for (uint32_t k = 0; k < pk->count; k++)
    cs_avoid_collect(sc, n, pk->slot[k], pk->order[k], pk->dd[k], limit);
  pk->count = 0;
}

static uint32_t scan(const cs_avoid_scan *sc, cs_avoid_near *near) {
  const cs_nb_rows *rows = sc->rows;
  const int dims = sc->dims;
  const vf px = v_set1(sc->p[0]), py = v_set1(sc->p[1]), pz = v_set1(sc->p[2]);
  /* A small grid is one run of every slot (cs_nb_rows_for): its agents
   * read the cells within the radius's reach instead. */
  const int narrowed = rows->count == 1 && sc->grid && rows->first[0] == 0 &&
                               rows->last[0] == sc->grid->count &&
                               rows->last[0] >= CS_AVOID_NARROW_FROM
                           ? cs_avoid_narrow(sc, sc->within)
                           : -1;
  const int runs = narrowed >= 0 ? narrowed : rows->count;
  float limit = first_limit(sc, runs, narrowed, px, py, pz);
  float dd_lanes[CS_LANES];
  uint32_t n = 0, order = 0;
  packed_cands pk = {sc->row_dd, (uint32_t *)(sc->row_dd + PACK_ROOM),
                     (uint32_t *)(sc->row_dd + 2 * PACK_ROOM), 0};
  int packing = CS_PACK_IN_REGISTERS && !sc->use_mask && sc->cap > 0;
  for (int r = 0; r < runs; r++) {
    size_t slot, last;
    run_at(sc, narrowed, r, &slot, &last);
    if (narrowed >= 0) order = sc->runs[3 * r + 2];
    const size_t run_first = slot;
    const uint32_t row_order = order;
    for (; slot < last; slot += CS_LANES, order += CS_LANES) {
      /* A whole block; the row's tail is one too, starting at its slot or
       * ending at the row's end, with the lanes outside it masked off,
       * where the arrays hold a block there. */
      size_t base = slot;
      unsigned lanes = (1u << CS_LANES) - 1u;
      if (slot + CS_LANES > last) {
        if (slot + CS_LANES > sc->slots) {
          if (last < CS_LANES) {
            if (packing) unpack(sc, &pk, &n, &limit);
            packing = 0;
            cs_avoid_scan_range(sc, &n, slot, last, order, &limit);
            break;
          }
          base = last - CS_LANES;
        }
        lanes = ((1u << (last - base)) - 1u) & ~((1u << (slot - base)) - 1u);
      }
      const vf dd = block_dd(rows, base, dims, px, py, pz);
      if (packing) {
        vmask under = v_lt(dd, v_set1(limit));
        if (lanes != (1u << CS_LANES) - 1u) under = m_and(under, m_from_bits(lanes));
        const vi lane = i_iota(), slots = i_add(i_set1((uint32_t)base), lane);
        /* Not the agent itself (in its own cell, at distance 0). */
        under = m_andnot(under, i_eq(rows->index ? i_load(rows->index + base) : slots,
                                     i_set1(sc->self)));
        v_pack(pk.dd + pk.count, under, dd);
        i_pack(pk.slot + pk.count, under, slots);
        i_pack(pk.order + pk.count, under,
               i_add(i_set1(order + (uint32_t)(base - slot)), lane));
        pk.count += (uint32_t)m_count(under);
        if (pk.count > LANE_RANKED) {
          unpack(sc, &pk, &n, &limit);
          packing = 0;
        }
        continue;
      }
      unsigned bits = m_bits(v_lt(dd, v_set1(limit))) & lanes;
      if (!bits) continue;
      v_store(dd_lanes, dd);
      while (bits) {
        const int lane = __builtin_ctz(bits);
        bits &= bits - 1u;
        /* The limit may have tightened since the block was tested. */
        if (dd_lanes[lane] < limit)
          cs_avoid_collect(sc, &n, base + (size_t)lane,
                           order + (uint32_t)(base + (size_t)lane - slot), dd_lanes[lane],
                           &limit);
      }
    }
    order = row_order + (uint32_t)(last - run_first);
  }
  if (packing) return rank_packed(sc, &pk, near);
  return n <= LANE_RANKED ? rank_collected(sc, n, near) : cs_avoid_rank(sc, n, near);
}

const cs_avoid_scan_fn CS_AVOID_SCAN = scan;
