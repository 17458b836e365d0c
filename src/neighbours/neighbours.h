/* Internal contract of the neighbour behaviours: the grid's layout, the
 * resolved job of separation, cohesion and alignment, and the scalar pieces
 * every backend shares (cell hashing, the exact sums, the per-agent
 * steering formulas, nearest-k selection). The SIMD kernels vectorise only
 * the candidate loop; everything here is the definition they must match. */
#ifndef CROWDSTEER_NEIGHBOURS_H
#define CROWDSTEER_NEIGHBOURS_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"
#include "parallel.h"

typedef enum cs_nb_behaviour {
  CS_NB_SEPARATION = 0,
  CS_NB_COHESION = 1,
  CS_NB_ALIGNMENT = 2,
  CS_NB_COUNT
} cs_nb_behaviour;

/* Cell coordinates are clamped to [-CS_CELL_LIMIT, CS_CELL_LIMIT]: there a
 * float cell coordinate x / cell_size still has an ulp <= 1/4, so a query's
 * cell range is at most 4 cells per axis, and 4 consecutive cells always
 * land in distinct buckets (see cs_bucket). Agents farther out share the
 * edge cells; the exact distance test keeps them apart. */
#define CS_CELL_LIMIT 2097152.0f /* 2^21 */
#define CS_CELL_BIAS 2097152u

/* Smallest non-zero radius: radius^2 stays a normal float, so a neighbour's
 * every coordinate difference is below the radius (the query's cell range
 * relies on it; validation enforces it). */
#define CS_NB_MIN_RADIUS 0x1p-60f

/* The grid: counts and layout, the agents' state in bucket order (a stable
 * counting sort of the batch, so each bucket lists its agents by increasing
 * index), and per bucket the first slot of its agents. */
struct crowdsteer_grid {
  int built;
  int dims;
  size_t count;
  float cell_size;
  float inv_cell;       /* 1 / cell_size, the one rounding of cell coordinates */
  uint32_t bucket_mask; /* table size - 1 */
  int scan_all;         /* table too small to tell a query's cells apart */
  int has_group;
  float *pos[3], *vel[3]; /* bucket order */
  uint32_t *group;        /* bucket order, when has_group */
  uint32_t *index;        /* bucket order: each slot's agent index */
  uint32_t *start;        /* table size + 1 entries */
  /* The build's working memory (see grid.c): agent records grouped by
   * partition (a range of buckets), per-thread partition counts, the
   * partitions' starts, per-thread split counts of the first pass. */
  uint32_t *records;
  uint32_t *part_counts, *part_start, *part_split;
  size_t parts;
  /* Capacity of the two allocations (agents, table), never shrunk. */
  void *agent_block, *table_block;
  size_t agent_bytes, table_bytes;
};

/* A velocity component at `slot` of a grid's axis array (or the agents'),
 * 0 where the grid keeps none (positions only: its queries never use it). */
static inline float cs_velocity_at(const float *axis, size_t slot) {
  return axis ? axis[slot] : 0.0f;
}

/* A cell coordinate: floor(x * inv_cell), clamped (NaN goes to the high
 * edge). Monotone in x, which the query's range argument relies on. */
static inline uint32_t cs_cell(float x, float inv_cell) {
  float t = x * inv_cell;
  t = t < CS_CELL_LIMIT ? t : CS_CELL_LIMIT;
  t = t > -CS_CELL_LIMIT ? t : -CS_CELL_LIMIT;
  int32_t c = (int32_t)t; /* truncation, then down to the floor */
  c -= (float)c > t;
  return (uint32_t)(c + (int32_t)CS_CELL_BIAS);
}

/* The bucket of a cell: cells are grouped in blocks, CS_BLOCK_X(dims)
 * cells along x (64 in 2D, 32 in 3D) and 8 along y in 2D, 4 along y and z
 * in 3D (a 2D agent's rows above and below are in another block for a
 * quarter of the rows, not half: 4-10 % faster queries than 64 x 4); the
 * block is hashed, the cell's place inside it kept in the low bits (x
 * fastest). So
 * any 4 consecutive cells along each axis (a query's whole range) fall into
 * distinct buckets when the table has at least one block's cells of them,
 * the cells of one row of a block are consecutive buckets (long rows: the
 * kernels' tiles of agents stay in one row), and a walk in bucket order
 * stays inside a block's neighbourhood for a long time (in cache). */
#define CS_BLOCK_X_BITS(dims) ((dims) == 3 ? 5 : 6)
#define CS_BLOCK_YZ_BITS(dims) ((dims) == 3 ? 2 : 3)
#define CS_BLOCK_X(dims) (1u << CS_BLOCK_X_BITS(dims))
#define CS_BLOCK_CELL_BITS(dims)                                                         \
  (CS_BLOCK_X_BITS(dims) + ((dims)-1) * CS_BLOCK_YZ_BITS(dims))
#define CS_MIN_TABLE(dims) ((size_t)1 << CS_BLOCK_CELL_BITS(dims))

/* The offset part of cs_bucket_row: the cell's place in its block but along
 * x (a block's corner, low bits all 0, has offset 0). */
static inline uint32_t cs_bucket_row_offset(const uint32_t cell[3], int dims) {
  const int x_bits = CS_BLOCK_X_BITS(dims);
  const int yz_bits = CS_BLOCK_YZ_BITS(dims);
  const uint32_t yz_low = (1u << yz_bits) - 1u;
  uint32_t offset = (cell[1] & yz_low) << x_bits;
  if (dims == 3) offset |= (cell[2] & yz_low) << (x_bits + yz_bits);
  return offset;
}

/* A cell's bucket before its place along x and the table's mask: the
 * same for every cell of one row of a block. */
static inline uint32_t cs_bucket_row(const uint32_t cell[3], int dims) {
  const int x_bits = CS_BLOCK_X_BITS(dims);
  const int yz_bits = CS_BLOCK_YZ_BITS(dims);
  uint32_t h = (cell[0] >> x_bits) * 0x9E3779B1u;
  h ^= (cell[1] >> yz_bits) * 0x85EBCA77u;
  if (dims == 3) h ^= (cell[2] >> yz_bits) * 0xC2B2AE3Du;
  return (cs_mix32(h) << CS_BLOCK_CELL_BITS(dims)) | cs_bucket_row_offset(cell, dims);
}

static inline uint32_t cs_bucket(const uint32_t cell[3], int dims, uint32_t mask) {
  return (cs_bucket_row(cell, dims) | (cell[0] & (CS_BLOCK_X(dims) - 1u))) & mask;
}

/* Everything a neighbour kernel needs, validated, defaults applied. */
typedef struct cs_nb_job {
  cs_nb_behaviour behaviour;
  int dims;
  size_t count;
  const crowdsteer_grid *grid; /* NULL: every pair (the brute force) */
  /* Without a grid, where the agents are read from. */
  const float *pos[3], *vel[3];
  const uint32_t *group; /* NULL: no group filter possible */
  const uint32_t *id;    /* the agents' ids for tie-breaks, NULL: indices */
  cs_param radius;       /* after the default */
  float within;          /* cs_within_limit(radius) when the radius is uniform */
  float inv_radius;      /* 1 / radius when the radius is uniform */
  int use_fov;
  cs_param cos_fov;
  uint32_t cap; /* 1 .. CROWDSTEER_MAX_NEIGHBOURS */
  int form; /* crowdsteer_form: the formulas (CROWDSTEER_FORM_REYNOLDS: unit steering) */
  float inner; /* always seen closer than this: 0 without a field of view */
  int use_mask;
  uint32_t mask;
  const uint32_t *mask_array;
  cs_param max_speed;
  cs_param time_to_target; /* uniform or per agent, like max_speed */
  /* Output, as crowdsteer_output (OVERWRITE or ACCUMULATE), indexed
   * out[k][i - out_base]; lane_select/lane_bit as in cs_policy. */
  float *out[3];
  crowdsteer_write_mode mode;
  cs_param weight;
  size_t out_base;
  const uint32_t *lane_select;
  uint32_t lane_bit;
  /* With a grid: only agents in slots [slot_first, slot_last) of the
   * grid's order (a thread's share of a step's neighbour pass). */
  size_t slot_first, slot_last;
  /* A step's alignment on a backend with cs_nb_backend.velocity_parts: the
   * grid's velocities by slot in the two parts of cs_fixed that alignment
   * sums (16 zeros past the end), so agent-by-agent walks read them as
   * they are; NULL otherwise. */
  const uint32_t *vel_high[3], *vel_low[3];
  /* A step's cohesion: an alignment job over the same neighbours (grid,
   * uniform radius, no group filter or field of view) that the same walk
   * gathers, so each candidate is read once for both; NULL otherwise. */
  const struct cs_nb_job *aligned;
} cs_nb_job;

/* One agent's view of the world for a query, with its parameters. */
typedef struct cs_nb_agent {
  uint32_t index;
  /* Tie-breaks compare ids: this agent's, and ids[q] for a candidate of
   * index q (q itself when ids is NULL). */
  uint32_t id;
  const uint32_t *ids;
  float p[3], v[3];
  float radius, inv_radius; /* 1 / radius, once per agent */
  float within;             /* cs_within_limit(radius) */
  float heading[3];
  int fov; /* the field of view applies (not at rest) */
  float cos_fov;
  int form;    /* as cs_nb_job */
  float inner; /* as cs_nb_job */
  int use_mask;
  uint32_t mask;
} cs_nb_agent;

/* Exact sums: contributions scaled by 2^24 and rounded to integers. */
typedef struct cs_nb_sum {
  int64_t s[3];
  uint32_t n;
} cs_nb_sum;

/* A contribution component clamped to +-2^24 (NaN counts as 0), scaled by
 * 2^24 and rounded to the nearest integer, ties to even. Every step is
 * exact but the rounding: adding and removing 2^23 rounds to an integer in
 * round-to-nearest-even (floats >= 2^23 are integers already). */
static inline int64_t cs_fixed(float c) {
  c = c == c ? c : 0.0f;
  c = c < 0x1p24f ? c : 0x1p24f;
  c = c > -0x1p24f ? c : -0x1p24f;
  float x = c * 0x1p24f;
  if (x < 0x1p23f && x > -0x1p23f) {
    const float magic = x < 0.0f ? -0x1p23f : 0x1p23f;
    const float shifted = x + magic; /* -ffp-contract=off, no fast-math: kept */
    x = shifted - magic;
  }
  return (int64_t)x;
}

/* The integer sum back to float: one rounding, then an exact scaling. */
static inline float cs_unfixed(int64_t s) { return (float)s * 0x1p-24f; }

/* The float next to t >= 0, toward 0 (t > 0) or toward infinity: a
 * non-negative float orders like its bits. As nextafterf, without libm:
 * its first call in a process is bound lazily, which took 1.3 KiB of stack
 * deep inside a neighbour query. */
static inline float cs_float_step(float t, int up) {
  uint32_t bits;
  memcpy(&bits, &t, sizeof bits);
  bits = up ? bits + 1u : bits - 1u;
  memcpy(&t, &bits, sizeof t);
  return t;
}

/* The least float T with sqrtf(T) >= radius (0 for any radius that is not
 * positive). sqrtf is correctly rounded, so monotone: for every float
 * dd >= 0 (and NaN), sqrtf(dd) < radius exactly when dd < T. Kernels test the radius on
 * the squared distance with it, and take square roots only where the formula needs the
 * distance itself (separation, the field of view). */
static inline float cs_within_limit(float radius) {
  /* NaN, 0 or negative (a per-agent radius outside the validated range may
   * be anything): no distance is below it, and none is below 0. */
  if (!(radius > 0.0f)) return 0.0f;
  float t = radius * radius; /* within an ulp or two of T, or infinity */
  while (t > 0.0f && sqrtf(t) >= radius)
    t = cs_float_step(t, 0);
  while (!(sqrtf(t) >= radius))
    t = cs_float_step(t, 1);
  return t;
}

/* The job's parameters of agent i (radius, view, form, group filter). */
static inline void cs_nb_agent_params(cs_nb_agent *a, const cs_nb_job *job, size_t i) {
  a->radius = cs_param_at(job->radius, i);
  a->inv_radius = job->radius.array ? 1.0f / a->radius : job->inv_radius;
  a->within = job->radius.array ? cs_within_limit(a->radius) : job->within;
  a->cos_fov = job->use_fov ? cs_param_at(job->cos_fov, i) : -1.0f;
  a->form = job->form;
  a->inner = job->inner;
  a->use_mask = job->use_mask;
  a->mask = job->mask_array ? job->mask_array[i] : job->mask;
}

/* One rule for every backend: which per-agent inputs a query uses (dims
 * is job->dims; a kernel's constant lets the compiler keep p and v in
 * registers: with job->dims read at run time it reloaded the fields just
 * stored, a store-forwarding stall at the head of every agent). */
static inline void cs_nb_agent_init_dims(cs_nb_agent *a, const cs_nb_job *job, size_t i,
                                         const float p[3], const float v[3],
                                         const int dims) {
  a->index = (uint32_t)i;
  a->ids = job->id;
  a->id = cs_agent_id(job->id, i);
  for (int k = 0; k < 3; k++) {
    a->p[k] = k < dims ? p[k] : 0.0f;
    a->v[k] = k < dims ? v[k] : 0.0f;
  }
  a->fov = 0;
  for (int k = 0; k < 3; k++)
    a->heading[k] = 0.0f;
  if (job->use_fov) { /* heading(v): only the field of view needs it */
    float vv = a->v[0] * a->v[0];
    for (int k = 1; k < dims; k++)
      vv += a->v[k] * a->v[k];
    const float speed = sqrtf(vv);
    for (int k = 0; k < dims; k++)
      a->heading[k] = speed > 0.0f ? a->v[k] / speed : 0.0f;
    a->fov = speed > 0.0f;
  }
  cs_nb_agent_params(a, job, i);
}

static inline void cs_nb_agent_init(cs_nb_agent *a, const cs_nb_job *job, size_t i,
                                    const float p[3], const float v[3]) {
  cs_nb_agent_init_dims(a, job, i, p, v, job->dims);
}

/* Separation's push from a coincident neighbour of id `id`, along x:
 * -1 for the agent of lower id, +1 for the other. */
static inline float cs_nb_apart_x(const cs_nb_agent *a, uint32_t id) {
  return a->id < id ? -1.0f : 1.0f;
}

/* The unit vector along x (0 for a zero, or a NaN, length): Reynolds'
 * normalize. */
static inline void cs_unit(const float x[3], int dims, float out[3]) {
  float xx = x[0] * x[0];
  for (int k = 1; k < dims; k++)
    xx += x[k] * x[k];
  const float l = sqrtf(xx);
  for (int k = 0; k < dims; k++)
    out[k] = l > 0.0f ? x[k] / l : 0.0f;
}

/* A Reynolds-form contribution (crowdsteer_flock.h): separation d / dd
 * (dd = |d|^2 as computed; a coincident q is the caller's), alignment
 * heading(v_q). Cohesion's is the default form's. */
static inline void cs_nb_reynolds(cs_nb_behaviour behaviour, int dims, const float d[3],
                                  float dd, const float vq[3], float c[3]) {
  for (int k = 0; k < 3; k++)
    c[k] = 0.0f;
  if (behaviour == CS_NB_SEPARATION) {
    for (int k = 0; k < dims; k++)
      c[k] = d[k] / dd;
  } else {
    cs_unit(vq, dims, c);
  }
}

/* The candidate q (index qi) against agent a: whether it is a neighbour
 * (before the nearest-k cap), its distance, and its contribution. */
static inline int cs_nb_pair(const cs_nb_agent *a, cs_nb_behaviour behaviour, int dims,
                             uint32_t qi, const float pq[3], const float vq[3],
                             uint32_t group_q, float *dist_out, float c[3]) {
  if (qi == a->index) return 0;
  float d[3] = {0.0f, 0.0f, 0.0f};
  for (int k = 0; k < dims; k++)
    d[k] = a->p[k] - pq[k]; /* p_i - p_q */
  float dd = d[0] * d[0];
  for (int k = 1; k < dims; k++)
    dd += d[k] * d[k];
  const float dist = sqrtf(dd);
  if (!(dist < a->radius)) return 0;
  if (a->use_mask && (group_q & a->mask) == 0) return 0;
  if (a->fov && dist > 0.0f && !(dist < a->inner)) {
    /* dot(heading(v_i), normalize(p_q - p_i)); p_q - p_i is exactly -d. */
    float view = a->heading[0] * (-d[0] / dist);
    for (int k = 1; k < dims; k++)
      view += a->heading[k] * (-d[k] / dist);
    if (!(view >= a->cos_fov)) return 0;
  }
  *dist_out = dist;
  if (a->form == CROWDSTEER_FORM_REYNOLDS && behaviour != CS_NB_COHESION) {
    if (behaviour == CS_NB_SEPARATION && !(dist > 0.0f)) { /* coincident */
      for (int k = 0; k < 3; k++)
        c[k] = 0.0f;
      c[0] = cs_nb_apart_x(a, cs_agent_id(a->ids, qi));
    } else {
      cs_nb_reynolds(behaviour, dims, d, dd, vq, c);
    }
  } else if (behaviour == CS_NB_SEPARATION) {
    if (dist > 0.0f) {
      const float w = 1.0f / dist - a->inv_radius;
      for (int k = 0; k < dims; k++)
        c[k] = d[k] * w;
    } else {
      for (int k = 0; k < dims; k++)
        c[k] = 0.0f;
      c[0] = cs_nb_apart_x(a, cs_agent_id(a->ids, qi));
    }
  } else if (behaviour == CS_NB_COHESION) {
    for (int k = 0; k < dims; k++)
      c[k] = -d[k] / a->radius; /* (p_q - p_i) / radius */
  } else {
    for (int k = 0; k < dims; k++)
      c[k] = vq[k];
  }
  return 1;
}

static inline void cs_nb_add(cs_nb_sum *sum, const float c[3], int dims) {
  for (int k = 0; k < dims; k++)
    sum->s[k] += cs_fixed(c[k]);
  sum->n++;
}

/* Steering from the exact sum, per behaviour (zero for no neighbour). */
static inline void cs_nb_steering(const cs_nb_job *job, const cs_nb_agent *a,
                                  const cs_nb_sum *sum, size_t i, float s[3]) {
  const int dims = job->dims;
  float C[3] = {0.0f, 0.0f, 0.0f};
  for (int k = 0; k < 3; k++)
    s[k] = 0.0f;
  if (sum->n == 0) return;
  for (int k = 0; k < dims; k++)
    C[k] = cs_unfixed(sum->s[k]);
  if (job->form == CROWDSTEER_FORM_REYNOLDS) {
    /* Unit steering: the direction of the sum (separation, cohesion), or
     * of the mean heading less the agent's own (alignment). */
    if (job->behaviour == CS_NB_ALIGNMENT) {
      float own[3] = {0.0f, 0.0f, 0.0f};
      cs_unit(a->v, dims, own);
      const float n = (float)sum->n;
      for (int k = 0; k < dims; k++)
        C[k] = C[k] / n - own[k];
    }
    cs_unit(C, dims, s);
    return;
  }
  const float max_speed = cs_param_at(job->max_speed, i);
  if (job->behaviour == CS_NB_SEPARATION) {
    for (int k = 0; k < dims; k++)
      s[k] = C[k] * max_speed;
    return;
  }
  float desired[3] = {0.0f, 0.0f, 0.0f};
  if (job->behaviour == CS_NB_COHESION) {
    float cc = C[0] * C[0];
    for (int k = 1; k < dims; k++)
      cc += C[k] * C[k];
    const float l = sqrtf(cc);
    for (int k = 0; k < dims; k++)
      desired[k] = l > 0.0f ? C[k] / l * max_speed : 0.0f;
  } else {
    const float n = (float)sum->n;
    for (int k = 0; k < dims; k++)
      desired[k] = C[k] / n;
  }
  for (int k = 0; k < dims; k++)
    s[k] = (desired[k] - a->v[k]) / cs_param_at(job->time_to_target, i);
}

/* Writes agent i's steering as the job's output mode says. */
static inline void cs_nb_write(const cs_nb_job *job, size_t i, const float s[3]) {
  const size_t slot = i - job->out_base;
  if (job->mode == CROWDSTEER_OVERWRITE) {
    for (int k = 0; k < job->dims; k++)
      job->out[k][slot] = s[k];
  } else {
    const float weight = cs_param_at(job->weight, i);
    for (int k = 0; k < job->dims; k++)
      job->out[k][slot] = job->out[k][slot] + weight * s[k];
  }
}

/* Where an agent's candidates are: `rows` runs of slots [first, last) in
 * the source arrays (the grid's, or the agents' for the brute force). */
typedef struct cs_nb_rows {
  const float *pos[3], *vel[3];
  const uint32_t *group; /* NULL: every group bit 0 */
  const uint32_t *index; /* NULL: slot == agent index */
  size_t first[64], last[64];
  int count;
} cs_nb_rows;

/* Grids of at most this many agents give every agent one run, the whole
 * grid: below it W candidates per vector over every slot beat the cell
 * lookups. OpenSteer's boids (examples/boids.c, AVX-512, one thread),
 * Reynolds' forms: 200 boids 520-710 ns per boid-step against 1,570, 500
 * boids 1,620 against 2,350, 1,000 boids 3,050 against 2,700; 256 leaves
 * room for narrower vectors. With a step's shared walk (nb_flock.h) and
 * one lookup per row of cells, whole-grid runs up to 2,048 agents against
 * cells, alternated on a loaded Xeon: 500 boids 920 against 897, 1,000
 * boids 1,402 against 1,311: still no gain past a few hundred. The results
 * are the same bits either way. */
enum { CS_NB_SCAN_ALL = 256 };

/* Whether every query of grid g is one run of the whole grid (a small grid,
 * or a table too small to tell cells apart). */
static inline int cs_nb_whole_grid(const crowdsteer_grid *g) {
  return g->scan_all || g->count <= CS_NB_SCAN_ALL;
}

/* Fills `rows` with the candidate runs of agent a (every agent that can be
 * within its radius); see query.c. */
void cs_nb_rows_for(const cs_nb_job *job, const cs_nb_agent *a, cs_nb_rows *rows);
/* The cells lo .. hi a grid query of agent a covers: cs_cell of its
 * p - radius and p + radius on each axis (0 past dims). */
void cs_nb_cells_for(const crowdsteer_grid *g, const cs_nb_agent *a, int dims,
                     uint32_t lo[3], uint32_t hi[3]);
/* The runs of a grid's cells lo .. hi (cs_nb_cells_for), as cs_nb_rows_for
 * finds them. */
void cs_nb_rows_in_cells(const crowdsteer_grid *g, const uint32_t lo[3],
                         const uint32_t hi[3], int dims, cs_nb_rows *rows);

/* Neighbours kept for the nearest-k selection: each one's ordering key
 * (cs_nb_nearness) and contribution, in the order the candidates were
 * scanned. At most CS_NB_NEAREST neighbours (1.3 KiB); more go through the
 * radix selection of cs_nb_sum_nearest. */
enum { CS_NB_NEAREST = 64 };
typedef struct cs_nb_nearest {
  uint32_t count;
  uint64_t key[CS_NB_NEAREST];
  float c[CS_NB_NEAREST][3];
} cs_nb_nearest;

/* 64-bit ordering key of a neighbour: distance first (a non-negative float
 * orders like its bits), then agent id. */
static inline uint64_t cs_nb_nearness(float dist, uint32_t id) {
  uint32_t bits;
  memcpy(&bits, &dist, sizeof bits);
  return (uint64_t)bits << 32 | id;
}

/* The exact sum of the job's cap nearest of `kept` (all of them when they
 * are no more): the smallest key cap times, the first in scan order among
 * equal keys (agents sharing an id). Overwrites the keys. */
void cs_nb_sum_kept(const cs_nb_job *job, cs_nb_nearest *kept, cs_nb_sum *sum);

/* Sums the contributions of the `cap` nearest of the candidates in `rows`
 * (ties by lower id), when more than `cap` qualify; see query.c. */
void cs_nb_sum_nearest(const cs_nb_job *job, const cs_nb_agent *a, const cs_nb_rows *rows,
                       cs_nb_sum *sum);

/* The radix selection of the cap-th smallest key past CS_NB_NEAREST
 * neighbours (query.c), driven once for every backend: each runs its
 * own passes over the candidates. The bucket is the keys k with
 * (k & known) == prefix, `known` a run of bits from bit 63 down; the next
 * histogram counts key bits [shift, shift + CS_NB_DIGIT_BITS) of its keys. */
typedef struct cs_nb_select {
  uint64_t prefix, known;
  uint32_t need;    /* the cap-th smallest key is the bucket's need-th */
  uint32_t members; /* the bucket's keys, once counted */
  int shift;
} cs_nb_select;

/* Digits of 7 bits and a bucket kept from 32 members: 8 bits (a 1 KiB
 * histogram) and 64 took 0.35 KiB more stack than the 10.5 KiB the
 * neighbour pass may add (test_limits, AVX-512). */
enum { CS_NB_DIGIT_BITS = 7, CS_NB_DIGITS = 1 << CS_NB_DIGIT_BITS, CS_NB_BUCKET = 32 };

typedef struct cs_nb_histogram {
  uint32_t count[CS_NB_DIGITS];
  uint64_t all_and, all_or; /* of every key counted: the bits they share */
} cs_nb_histogram;

/* The bucket's members in scan order: keys and slots in the rows' arrays
 * (the few added are evaluated again, by cs_nb_pair). */
typedef struct cs_nb_bucket {
  uint32_t count;
  uint32_t slot[CS_NB_BUCKET];
  uint64_t key[CS_NB_BUCKET];
} cs_nb_bucket;

/* What a selection holds at once: a histogram, then the bucket. */
typedef union cs_nb_select_room {
  cs_nb_histogram histogram;
  cs_nb_bucket bucket;
} cs_nb_select_room;

typedef enum cs_nb_pass {
  /* Count the digit of the bucket's keys into room->histogram (cleared),
   * with their AND and OR. */
  CS_NB_HISTOGRAM,
  /* Add the keys below s->prefix to `sum` (zeroed) and append the bucket's
   * members (at most CS_NB_BUCKET) to room->bucket (empty). */
  CS_NB_COLLECT,
  /* Add to `sum` (zeroed) the keys below s->prefix, and those equal to it
   * while the sum holds fewer than the cap, in scan order (known is all
   * ones). */
  CS_NB_UP_TO
} cs_nb_pass;

/* A backend's pass over the candidates of the agent `context` holds. */
typedef void (*cs_nb_pass_fn)(void *context, cs_nb_pass pass, const cs_nb_select *s,
                              cs_nb_select_room *room, cs_nb_sum *sum);

/* The job's cap nearest of agent a's candidates `rows`, more than
 * CS_NB_NEAREST neighbours, into `sum` through the backend's passes. */
void cs_nb_select_run(const cs_nb_job *job, const cs_nb_agent *a, const cs_nb_rows *rows,
                      cs_nb_sum *sum, cs_nb_pass_fn pass, void *context);

/* Validation and defaults of a neighbour behaviour (everything but its
 * output), as cs_prepare_behaviour: per-agent data is checked for the agents
 * of [begin, end) with select[i] & select_bit (all when select is NULL). */
crowdsteer_status cs_nb_prepare(cs_nb_job *job, cs_nb_behaviour behaviour,
                                const crowdsteer_agents *agents,
                                const crowdsteer_neighbours *nb,
                                const crowdsteer_params *params, size_t begin, size_t end,
                                const uint32_t *select, uint32_t select_bit);

/* A backend's neighbour kernel: steering of the agents with index in
 * [begin, end) (and selected by lane_select), written per job->mode. */
typedef void (*cs_nb_kernel)(const cs_nb_job *job, size_t begin, size_t end);

/* Agents per thread of a neighbour pass, at least: below it a second thread
 * costs more than it shares (1,024 agents, seek + separation, idle Xeon:
 * 48.8 us on two threads, 39.2 on one; and much more when one core is
 * busy: 137 against 44). */
enum { CS_NB_AGENTS_PER_THREAD = 8192 };

/* A grid job's steering for [begin, end) by `kernel`, its grid's slots cut
 * into parts over the spread: one part on one thread, four per worker
 * otherwise (taken dynamically: a worker the host keeps busy holds back
 * one part only). */
void cs_nb_walk(const cs_nb_job *job, cs_nb_kernel kernel, size_t begin, size_t end,
                const cs_spread *spread);

/* A backend's bucket keys for the grid build: keys[i - first] = the
 * bucket of agent i (cs_cell, cs_bucket) for i in [first, last). */
typedef void (*cs_nb_keys_fn)(const crowdsteer_grid *g, const float *const pos[3],
                              size_t first, size_t last, uint32_t *keys);

/* A backend's bucket ends for the grid build: counts[k] becomes start +
 * counts[0] + ... + counts[k] for k < n (an inclusive prefix sum). */
typedef void (*cs_nb_ends_fn)(uint32_t *counts, size_t n, uint32_t start);

/* A backend's alignment parts for a step: high[i] and low[i] for i in
 * [first, last), cs_fixed(vel[i]) = high * 2^24 + low (see cs_nb_job). */
typedef void (*cs_nb_parts_fn)(const float *vel, size_t first, size_t last,
                               uint32_t *high, uint32_t *low);

/* A step's neighbour jobs that walk their candidates once for all of them
 * (cs_nb_flockable: one grid, uniform radii, one group filter, one form,
 * agent by agent; at most one job per behaviour): each candidate's
 * distance and view are computed once and tested against every job's
 * radius and field of view. An agent past a job's cap is evaluated again
 * for that job alone. The jobs' walk slots are [slot_first, slot_last). */
enum { CS_NB_FLOCK_MAX = 3 };
typedef struct cs_nb_flock {
  const cs_nb_job *job[CS_NB_FLOCK_MAX];
  int count;
  int widest; /* the job of the largest radius: its candidate runs are read */
  size_t slot_first, slot_last;
} cs_nb_flock;

/* A backend's walk of a flock, steering of [begin, end) written per job. */
typedef void (*cs_nb_flock_fn)(const cs_nb_flock *flock, size_t begin, size_t end);

/* Whether jobs a and b may share a flock's walk. */
static inline int cs_nb_flockable(const cs_nb_job *a, const cs_nb_job *b) {
  return a->grid && a->grid == b->grid && a->behaviour != b->behaviour &&
         !a->radius.array && !b->radius.array && a->form == b->form &&
         a->use_mask == b->use_mask && a->mask == b->mask &&
         a->mask_array == b->mask_array && (a->form || a->inner > 0.0f) &&
         (b->form || b->inner > 0.0f);
}

/* A flock's walk for [begin, end) by `fn`, cut into parts as cs_nb_walk. */
void cs_nb_flock_walk(const cs_nb_flock *flock, cs_nb_flock_fn fn, size_t begin,
                      size_t end, const cs_spread *spread);

typedef struct cs_nb_backend {
  cs_nb_kernel kernel;
  cs_nb_keys_fn keys;
  cs_nb_ends_fn ends;
  /* NULL where the kernel's walks never read the parts (4 lanes on x86). */
  cs_nb_parts_fn velocity_parts;
  /* NULL: every job walks on its own (the scalar backend). */
  cs_nb_flock_fn flock;
} cs_nb_backend;

/* Whether a job can run with cs_nb_job.aligned or vel_high: a uniform
 * radius, no group filter, no field of view (the agent-by-agent walk). */
static inline int cs_nb_plain(const cs_nb_job *job) {
  return job->grid && !job->radius.array && !job->use_mask && !job->use_fov &&
         !job->form && !job->grid->scan_all;
}

/* Whether a grid job must run agent by agent over its candidate runs (the
 * kernels' evaluate): Reynolds' forms and an inner radius are there only. */
static inline int cs_nb_by_agent(const cs_nb_job *job) {
  return job->grid->scan_all || job->form || job->inner > 0.0f;
}

/* The backend of an ISA (the scalar one where no SIMD kernel is built;
 * dispatch.c). A call reads the active ISA once and keeps its backend
 * throughout. */
const cs_nb_backend *cs_nb_backend_for(crowdsteer_isa isa);

/* The scalar kernel and keys (query.c: every backend's fallback, the tails
 * of the SIMD keys) and the per-ISA tables (kernels/neighbours.c). */
void cs_nb_kernel_scalar(const cs_nb_job *job, size_t begin, size_t end);
void cs_nb_keys_scalar(const crowdsteer_grid *g, const float *const pos[3], size_t first,
                       size_t last, uint32_t *keys);
void cs_nb_ends_scalar(uint32_t *counts, size_t n, uint32_t start);
extern const cs_nb_backend cs_nb_kernel_sse4;
extern const cs_nb_backend cs_nb_kernel_avx2;
extern const cs_nb_backend cs_nb_kernel_avx512;
extern const cs_nb_backend cs_nb_kernel_neon;
extern const cs_nb_backend cs_nb_kernel_simd128;

#endif /* CROWDSTEER_NEIGHBOURS_H */
