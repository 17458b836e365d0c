/* ORCA's lines from an agent's neighbours on CS_LANES lanes, one neighbour
 * a lane: each lane computes its own branch of the scalar definition
 * (cs_orca_agent_line, src/avoid/orca.c), operation for operation, its
 * operands chosen by mask; so the same bits, without the scalar code's
 * unpredictable branches. */
#include "avoid/orca.h"
#include "kernels/vec.h"
#include "kernels/vec_nb.h"

/* -x exactly (the sign of zero too). */
CS_INLINE vf negate(vf x) { return v_mul(x, v_set1(-1.0f)); }

static size_t lines(const cs_orca_agent *a, const cs_orca_neighbours *nb,
                    float inv_time_horizon, float inv_dt, cs_orca_line *out) {
  const vf zero = v_set1(0.0f);
  const vf ax = v_set1(a->p[0]), ay = v_set1(a->p[1]);
  const vf avx = v_set1(a->v[0]), avy = v_set1(a->v[1]);
  const vf a_radius = v_set1(a->radius), a_resp = v_set1(a->responsibility);
  const vf itau = v_set1(inv_time_horizon), idt = v_set1(inv_dt);
  const vi sign = i_set1(0x80000000u);
  const vi a_id = i_xor(i_set1(a->id), sign);
  size_t count = 0;
  for (size_t j = 0; j < nb->count; j += CS_LANES) {
    const vf rel0 = v_sub(v_load(nb->px + j), ax), rel1 = v_sub(v_load(nb->py + j), ay);
    const vf vrel0 = v_sub(avx, v_load(nb->vx + j)),
             vrel1 = v_sub(avy, v_load(nb->vy + j));
    const vf dist_sq = v_add(v_mul(rel0, rel0), v_mul(rel1, rel1));
    const vf r = v_add(a_radius, v_load(nb->radius + j));
    const vf r_sq = v_mul(r, r);

    /* Apart: nearest the cut-off circle, or nearest a leg; overlapping:
     * separate within one time step. Each lane needs one of the scalar
     * code's square roots of each kind and one quotient per component
     * (-(a / b) is (-a) / b exactly), so the operands are chosen first. */
    const vmask apart = v_gt(dist_sq, r_sq);
    const vf w0 = v_sub(vrel0, v_mul(itau, rel0)), w1 = v_sub(vrel1, v_mul(itau, rel1));
    const vf w_len_sq = v_add(v_mul(w0, w0), v_mul(w1, w1));
    const vf along = v_add(v_mul(w0, rel0), v_mul(w1, rel1));
    const vmask cutoff =
        m_and(apart,
              m_and(v_lt(along, zero), v_gt(v_mul(along, along), v_mul(r_sq, w_len_sq))));
    const vmask leg_side = m_and(apart, m_not(cutoff));
    const vf o0 = v_sub(vrel0, v_mul(idt, rel0)), o1 = v_sub(vrel1, v_mul(idt, rel1));
    const vf o_len_sq = v_add(v_mul(o0, o0), v_mul(o1, o1));
    /* w's length (apart) or o's (overlapping); the leg (apart) or the
     * distance (overlapping). */
    const vf len = v_sqrt(v_select(apart, w_len_sq, o_len_sq));
    const vf leg_or_dist = v_sqrt(v_select(apart, v_sub(dist_sq, r_sq), dist_sq));
    const vmask left = v_gt(v_sub(v_mul(rel0, w1), v_mul(rel1, w0)), zero);
    const vf leg_l0 = v_sub(v_mul(rel0, leg_or_dist), v_mul(rel1, r));
    const vf leg_l1 = v_add(v_mul(rel0, r), v_mul(rel1, leg_or_dist));
    const vf leg_r0 = negate(v_add(v_mul(rel0, leg_or_dist), v_mul(rel1, r)));
    const vf leg_r1 = negate(v_add(v_mul(negate(rel0), r), v_mul(rel1, leg_or_dist)));
    const vmask moving = v_gt(len, zero), spread = v_gt(dist_sq, zero);
    const vmask by_id = i_gt(i_xor(i_load(nb->id + j), sign), a_id); /* a's id < b's */
    const vf id_unit = v_select(by_id, v_set1(-1.0f), v_set1(1.0f));
    /* The quotients: w / |w|, the leg's direction, o / |o|, -rel / dist,
     * or the unit along x by id (over 1, exactly itself). */
    const vf one = v_set1(1.0f);
    const vf num0 =
        v_select(cutoff, w0,
                 v_select(leg_side, v_select(left, leg_l0, leg_r0),
                          v_select(moving, o0, v_select(spread, negate(rel0), id_unit))));
    const vf num1 =
        v_select(cutoff, w1,
                 v_select(leg_side, v_select(left, leg_l1, leg_r1),
                          v_select(moving, o1, v_select(spread, negate(rel1), zero))));
    const vf den =
        v_select(cutoff, len,
                 v_select(leg_side, dist_sq,
                          v_select(moving, len, v_select(spread, leg_or_dist, one))));
    const vf q0 = v_div(num0, den), q1 = v_div(num1, den);
    /* The line: through v_a + share u along `d`. */
    const vf push = v_sub(v_mul(r, v_select(apart, itau, idt)), len);
    const vf along_leg = v_add(v_mul(vrel0, q0), v_mul(vrel1, q1));
    const vf d0 = v_select(leg_side, q0, q1);
    const vf d1 = v_select(leg_side, q1, negate(q0));
    const vf u0 = v_select(leg_side, v_sub(v_mul(along_leg, q0), vrel0), v_mul(push, q0));
    const vf u1 = v_select(leg_side, v_sub(v_mul(along_leg, q1), vrel1), v_mul(push, q1));
    const vf b_resp = v_load(nb->responsibility + j);
    const vmask yields = v_gt(a_resp, zero);
    const vf share = v_select(yields, v_div(a_resp, v_add(a_resp, b_resp)), zero);
    const vf p0 = v_add(avx, v_mul(share, u0)), p1 = v_add(avy, v_mul(share, u1));

    float lane[4][CS_LANES];
    v_store(lane[0], p0), v_store(lane[1], p1), v_store(lane[2], d0),
        v_store(lane[3], d1);
    unsigned keep = m_bits(v_gt(share, zero));
    if (nb->count - j < CS_LANES) keep &= (1u << (nb->count - j)) - 1u;
    while (keep) {
      const int k = __builtin_ctz(keep);
      keep &= keep - 1u;
      cs_orca_line *line = &out[count++];
      line->point[0] = lane[0][k], line->point[1] = lane[1][k];
      line->direction[0] = lane[2][k], line->direction[1] = lane[3][k];
    }
  }
  return count;
}

const cs_orca_lines_fn CS_AVOID_LINES = lines;
