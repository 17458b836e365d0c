/* The avoidance's candidate scan on CS_LANES lanes: the squared distances
 * of a block of candidates at once, and the lanes under the radius's limit
 * handed to the shared keeping (src/avoid/near.h), in scan order: the same
 * neighbours, keys and order as the scalar scan, so the same bits. */
#include "avoid/near.h"
#include "kernels/vec.h"
#include "kernels/vec_nb.h"

static uint32_t scan(const cs_avoid_scan *sc, cs_avoid_near *near) {
  const cs_nb_rows *rows = sc->rows;
  const int dims = sc->dims;
  const vf px = v_set1(sc->p[0]), py = v_set1(sc->p[1]), pz = v_set1(sc->p[2]);
  float limit = sc->within;
  float dd_lanes[CS_LANES];
  uint32_t count = 0, order = 0;
  for (int r = 0; r < rows->count; r++) {
    size_t slot = rows->first[r];
    const size_t last = rows->last[r];
    for (; slot + CS_LANES <= last; slot += CS_LANES, order += CS_LANES) {
      const vf d0 = v_sub(px, v_load(rows->pos[0] + slot));
      const vf d1 = v_sub(py, v_load(rows->pos[1] + slot));
      vf dd = v_add(v_mul(d0, d0), v_mul(d1, d1));
      if (dims == 3) {
        const vf d2 = v_sub(pz, v_load(rows->pos[2] + slot));
        dd = v_add(dd, v_mul(d2, d2));
      }
      unsigned bits = m_bits(v_lt(dd, v_set1(limit)));
      if (!bits) continue;
      v_store(dd_lanes, dd);
      while (bits) {
        const int lane = __builtin_ctz(bits);
        bits &= bits - 1u;
        /* The limit may have tightened since the block was tested. */
        if (!(dd_lanes[lane] < limit)) continue;
        cs_avoid_offer(sc, near, &count, slot + (size_t)lane, order + (uint32_t)lane,
                       dd_lanes[lane]);
        limit = cs_avoid_limit(sc, near, count);
      }
    }
    cs_avoid_scan_range(sc, near, &count, slot, last, order, &limit);
    order += (uint32_t)(last - slot);
  }
  return count;
}

const cs_avoid_scan_fn CS_AVOID_SCAN = scan;
