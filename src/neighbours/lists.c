/* Neighbour counts and nearest-k lists (crowdsteer_query.h): each agent's
 * candidate runs (cs_nb_rows_for) tested by cs_nb_pair, the definition
 * every backend of the neighbour behaviours matches, so the set is theirs.
 * Scalar and on the caller's thread: a query reads each candidate once and
 * writes a few words per agent, far less than the behaviours' arithmetic. */
#include <math.h>
#include <string.h>

#include "neighbours/neighbours.h"

/* Where a query writes (NULL arrays: not asked for). */
typedef struct lists {
  int nearest; /* crowdsteer_neighbour_nearest: k is validated */
  uint32_t *count;
  uint32_t k;
  uint32_t *index;
  float *dd;
  uint32_t *found;
} lists;

/* Whether neighbour a comes before b: distance (the square root of the
 * squared distance, as cs_nb_pair takes it), id, index. */
static int before(float dd_a, uint32_t id_a, uint32_t i_a, float dd_b, uint32_t id_b,
                  uint32_t i_b) {
  const float a = sqrtf(dd_a), b = sqrtf(dd_b);
  if (a != b) return a < b;
  if (id_a != id_b) return id_a < id_b;
  return i_a < i_b;
}

/* Agent i's neighbours: their number, and the `keep` nearest sorted into
 * row_index / row_dd (insertion: a row holds at most k). */
static uint32_t agent_lists(const cs_nb_job *job, size_t i, const float p[3],
                            const float v[3], uint32_t keep, uint32_t *row_index,
                            float *row_dd) {
  const int dims = job->dims;
  cs_nb_agent a;
  cs_nb_agent_init(&a, job, i, p, v);
  cs_nb_rows rows;
  cs_nb_rows_for(job, &a, &rows);
  uint32_t n = 0, held = 0;
  for (int r = 0; r < rows.count; r++)
    for (size_t slot = rows.first[r]; slot < rows.last[r]; slot++) {
      float pq[3] = {0, 0, 0}, vq[3] = {0, 0, 0}, c[3], dist;
      for (int k = 0; k < dims; k++) {
        pq[k] = rows.pos[k][slot];
        vq[k] = cs_velocity_at(rows.vel[k], slot);
      }
      const uint32_t qi = rows.index ? rows.index[slot] : (uint32_t)slot;
      const uint32_t group = rows.group ? rows.group[slot] : 0u;
      if (!cs_nb_pair(&a, CS_NB_SEPARATION, dims, qi, pq, vq, group, &dist, c)) continue;
      n++;
      if (!keep) continue;
      float dd = (a.p[0] - pq[0]) * (a.p[0] - pq[0]); /* cs_nb_pair's order */
      for (int k = 1; k < dims; k++)
        dd += (a.p[k] - pq[k]) * (a.p[k] - pq[k]);
      const uint32_t id = cs_agent_id(a.ids, qi);
      uint32_t at = held < keep ? held : keep;
      while (at > 0 && before(dd, id, qi, row_dd[at - 1],
                              cs_agent_id(a.ids, row_index[at - 1]), row_index[at - 1]))
        at--;
      if (at == keep) continue;
      const uint32_t last = held < keep ? held : keep - 1;
      memmove(row_index + at + 1, row_index + at, (last - at) * sizeof *row_index);
      memmove(row_dd + at + 1, row_dd + at, (last - at) * sizeof *row_dd);
      row_index[at] = qi;
      row_dd[at] = dd;
      held += held < keep;
    }
  return n < job->cap ? n : job->cap;
}

static void agent_write(const cs_nb_job *job, const lists *out, size_t i,
                        const float p[3], const float v[3]) {
  uint32_t *row_index = out->index ? out->index + i * out->k : NULL;
  float *row_dd = out->dd ? out->dd + i * out->k : NULL;
  const uint32_t keep = out->index ? (out->k < job->cap ? out->k : job->cap) : 0;
  const uint32_t n = agent_lists(job, i, p, v, keep, row_index, row_dd);
  if (out->count) out->count[i] = n;
  if (!out->index) return;
  const uint32_t found = n < out->k ? n : out->k;
  for (uint32_t j = found; j < out->k; j++) {
    row_index[j] = UINT32_MAX;
    row_dd[j] = INFINITY;
  }
  if (out->found) out->found[i] = found;
}

static crowdsteer_status run(const crowdsteer_agents *agents,
                             const crowdsteer_neighbours *nb, const lists *out,
                             size_t begin, size_t end) {
  crowdsteer_status fault;
  cs_nb_job job;
  if ((fault = cs_nb_prepare(&job, CS_NB_SEPARATION, agents, nb, NULL, begin, end, NULL,
                             0)) != CROWDSTEER_OK)
    return fault;
  job.form = CROWDSTEER_FORM_DEFAULT; /* the contributions are not used */
  const size_t k = out->nearest ? out->k : 1;
  if (out->nearest && (k == 0 || k > CROWDSTEER_MAX_NEIGHBOURS))
    return CROWDSTEER_ERROR_PARAMETER;
  if (end > SIZE_MAX / sizeof(float) / k) return CROWDSTEER_ERROR_RANGE;
  if (begin == end) return CROWDSTEER_OK;
  uint32_t *const written[3] = {out->count, out->index, out->found};
  if (!out->count && !(out->index && out->dd)) return CROWDSTEER_ERROR_NULL_POINTER;
  for (int w = 0; w < 3; w++)
    if (written[w] && !cs_aligned(written[w])) return CROWDSTEER_ERROR_ALIGNMENT;
  if (out->dd && !cs_aligned(out->dd)) return CROWDSTEER_ERROR_ALIGNMENT;
  cs_spans spans;
  spans.n = 0;
  spans.written = 0;
  cs_behaviour_spans(&spans, CROWDSTEER_SEPARATION, agents, NULL, NULL, nb, NULL, NULL,
                     agents, agents, begin, end);
  if (!nb->grid) cs_spans_add_state(&spans, agents, agents->dims, 0, agents->count, 0);
  cs_spans_add(&spans, out->count, begin, end, 1);
  cs_spans_add(&spans, out->found, begin, end, 1);
  cs_spans_add(&spans, out->index, begin * k, end * k, 1);
  cs_spans_add(&spans, out->dd, begin * k, end * k, 1);
  if (cs_spans_clash(&spans, &spans)) return CROWDSTEER_ERROR_OVERLAP;
  const int dims = job.dims;
  float p[3] = {0, 0, 0}, v[3] = {0, 0, 0};
  if (!job.grid) {
    for (size_t i = begin; i < end; i++) {
      for (int d = 0; d < dims; d++) {
        p[d] = job.pos[d][i];
        v[d] = cs_velocity_at(job.vel[d], i);
      }
      agent_write(&job, out, i, p, v);
    }
    return CROWDSTEER_OK;
  }
  const crowdsteer_grid *g = job.grid;
  for (size_t slot = 0; slot < g->count; slot++) {
    const size_t i = g->index[slot];
    if (i < begin || i >= end) continue;
    for (int d = 0; d < dims; d++) {
      p[d] = g->pos[d][slot];
      v[d] = cs_velocity_at(g->vel[d], slot);
    }
    agent_write(&job, out, i, p, v);
  }
  return CROWDSTEER_OK;
}

crowdsteer_status crowdsteer_neighbour_count(const crowdsteer_agents *agents,
                                             const crowdsteer_neighbours *nb,
                                             uint32_t *count, size_t begin, size_t end) {
  const cs_fpenv host = cs_fpenv_enter();
  const lists out = {0, count, 0, NULL, NULL, NULL};
  if (!count && begin < end) return cs_fpenv_return(host, CROWDSTEER_ERROR_NULL_POINTER);
  return cs_fpenv_return(host, run(agents, nb, &out, begin, end));
}

crowdsteer_status crowdsteer_neighbour_nearest(const crowdsteer_agents *agents,
                                               const crowdsteer_neighbours *nb,
                                               uint32_t k, uint32_t *index,
                                               float *distance_squared, uint32_t *found,
                                               size_t begin, size_t end) {
  const cs_fpenv host = cs_fpenv_enter();
  if ((!index || !distance_squared) && begin < end)
    return cs_fpenv_return(host, CROWDSTEER_ERROR_NULL_POINTER);
  const lists out = {1, NULL, k, index, distance_squared, found};
  return cs_fpenv_return(host, run(agents, nb, &out, begin, end));
}
