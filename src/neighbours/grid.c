/* The neighbour grid: allocation that only grows, and the build, a stable
 * counting sort of the batch into bucket order. A large batch in random
 * order takes three passes over memory (pass 1: bucket keys with the
 * ISA's SIMD, counted per partition of buckets; pass 3: keys again, each
 * agent appended as a record to its partition; pass 4: each partition
 * sorted in cache into the cell-order arrays; pass 2 only places the
 * partitions), each split over threads by agent range or partition
 * range. A small batch, or one in (or near) bucket order, takes two
 * (sort_direct: keys counted per bucket, then each agent to its slot; on
 * a team each thread owns a range of buckets). Every way gives the same
 * order, so every result is the same for any thread count. */
#include <float.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "neighbours/neighbours.h"
#include "parallel.h"

enum {
  MAX_BUILD_THREADS = 64,
  AGENTS_PER_BUILD_THREAD = 16384,
  ALIGN = 64,
  /* Agents per partition of the build (its records and slots: ~100 KiB),
   * and at most this many partitions (write streams of the partition
   * pass); keys are computed KEY_BLOCK agents at a time. */
  PART_AGENTS = 2048,
  MAX_PARTS = 512,
  KEY_BLOCK = 256,
  /* Pass 3 fetches each partition's line this many records ahead of its
   * cursor (1M agents, random order: the pass took 3.6 ms at 8 records,
   * 3.7-3.8 at 16, 4.1 at 32, 5.6 without: fetched too early, a line can
   * be evicted before its records arrive). */
  PREFETCH_RECORDS = 8,
  COUNT_WAYS = 4,     /* pass 1's counts per partition and thread */
  SLOT_BLOCK = 1024,  /* pass 4's slots found before its stores */
  ORDER_SAMPLE = 64,  /* pass 4's keys that tell a partition's order */
  SCATTER_ARRAYS = 5, /* arrays from which pass 4 writes one at a time */
  /* Up to this many agents a build sorts straight into the arrays on one
   * thread, whatever their order and the threads asked for (sort_direct:
   * the slots it scatters to stay in cache, and a team's passes and
   * barriers cost more than they share: 65,536 agents in random order,
   * 0.31 ms on one thread, 0.45 on two); beyond, a one-thread build does
   * so for a batch that looks in bucket order. */
  DIRECT_UP_TO = 1 << 17
};

crowdsteer_status crowdsteer_grid_create(crowdsteer_grid **grid) {
  if (!grid) return CROWDSTEER_ERROR_NULL_POINTER;
  *grid = calloc(1, sizeof **grid);
  return *grid ? CROWDSTEER_OK : CROWDSTEER_ERROR_OUT_OF_MEMORY;
}

void crowdsteer_grid_destroy(crowdsteer_grid *grid) {
  if (!grid) return;
  free(grid->agent_block);
  free(grid->table_block);
  free(grid);
}

size_t crowdsteer_grid_bytes(const crowdsteer_grid *grid) {
  if (!grid) return 0;
  return sizeof *grid + grid->agent_bytes + grid->table_bytes;
}

static size_t round_up(size_t n) { return (n + ALIGN - 1) / ALIGN * ALIGN; }

/* Words of one agent's record in the build's partition pass: key, index,
 * positions and (unless positions only) velocities, dims each, group bits. */
static size_t record_words(int dims, int with_group, int with_vel) {
  return (size_t)(2 + (1 + with_vel) * dims + with_group);
}

/* Agents' arrays: positions and (unless positions only) velocities, dims
 * each, index, groups, and the build's records. */
static size_t agent_words(int dims, int with_group, int with_vel) {
  return (size_t)((1 + with_vel) * dims + 1 + with_group) +
         record_words(dims, with_group, with_vel);
}

/* Grows a block to at least `bytes` (plus alignment slack); the old block
 * stays untouched until every new one exists. */
static int grow(size_t have, size_t bytes, void **fresh) {
  *fresh = NULL;
  if (bytes <= have) return 1;
  *fresh = malloc(bytes + ALIGN);
  return *fresh != NULL;
}

static void *aligned_in(void *block) {
  uintptr_t p = (uintptr_t)block;
  return (void *)((p + ALIGN - 1) / ALIGN * ALIGN);
}

/* The table block: bucket starts, then per thread its partition counts,
 * then the partitions' starts, then per thread pass 1's split counts. */
static size_t table_words(size_t table, size_t parts, int threads) {
  return round_up((table + 1) * sizeof(uint32_t)) / sizeof(uint32_t) +
         (size_t)threads * parts + parts + 1 + (size_t)threads * COUNT_WAYS * parts;
}

/* Lays the grid's arrays out in its (possibly new) blocks. */
static void lay_out(crowdsteer_grid *g, size_t count, size_t table, int threads, int dims,
                    int with_group, int with_vel) {
  const size_t array = round_up(count * sizeof(float));
  const size_t state = (size_t)((1 + with_vel) * dims); /* arrays of floats */
  char *a = aligned_in(g->agent_block);
  for (int k = 0; k < 3; k++) {
    g->pos[k] = k < dims ? (float *)(a + (size_t)k * array) : NULL;
    g->vel[k] = k < dims && with_vel ? (float *)(a + (size_t)(dims + k) * array) : NULL;
  }
  g->index = (uint32_t *)(a + state * array);
  g->group = with_group ? (uint32_t *)(a + (state + 1) * array) : NULL;
  g->records = (uint32_t *)(a + (state + 1 + (size_t)with_group) * array);
  uint32_t *t = aligned_in(g->table_block);
  g->start = t;
  g->part_counts = t + round_up((table + 1) * sizeof(uint32_t)) / sizeof(uint32_t);
  g->part_start = g->part_counts + (size_t)threads * g->parts;
  g->part_split = g->part_start + g->parts + 1;
}

/* Nothing changes unless both blocks are had (a failed build leaves the
 * grid as it was). */
static crowdsteer_status reserve(crowdsteer_grid *g, size_t count, size_t table,
                                 size_t parts, int threads, int dims, int with_group,
                                 int with_vel) {
  const size_t agent_bytes =
      agent_words(dims, with_group, with_vel) * round_up(count * sizeof(float)) + ALIGN;
  const size_t table_bytes =
      table_words(table, parts, threads) * sizeof(uint32_t) + ALIGN;
  void *fresh_agents, *fresh_table;
  if (!grow(g->agent_bytes, agent_bytes, &fresh_agents))
    return CROWDSTEER_ERROR_OUT_OF_MEMORY;
  if (!grow(g->table_bytes, table_bytes, &fresh_table)) {
    free(fresh_agents);
    return CROWDSTEER_ERROR_OUT_OF_MEMORY;
  }
  if (fresh_agents) {
    free(g->agent_block);
    g->agent_block = fresh_agents;
    g->agent_bytes = agent_bytes;
  }
  if (fresh_table) {
    free(g->table_block);
    g->table_block = fresh_table;
    g->table_bytes = table_bytes;
  }
  g->parts = parts;
  lay_out(g, count, table, threads, dims, with_group, with_vel);
  return CROWDSTEER_OK;
}

static int is_power_of_two(size_t n) { return n && (n & (n - 1)) == 0; }

/* At most 2^31 buckets, as an explicit table_size: bucket numbers and one
 * past a run of them must fit 32 bits. */
static size_t automatic_table(size_t count, int dims) {
  size_t table = CS_MIN_TABLE(dims);
  while (table < count * 2 && table < ((size_t)1 << 31))
    table *= 2;
  return table;
}

/* Partitions of the build: a power of two of bucket ranges, each holding
 * about PART_AGENTS agents, so that its final scatter stays in cache. */
static size_t partitions(size_t count, size_t table) {
  size_t parts = 1;
  while (parts < MAX_PARTS && parts * 2 <= table && parts * 2 * PART_AGENTS <= count)
    parts *= 2;
  return parts;
}

/* How many chunks a build's passes cut the batch into: the threads asked
 * for (0: the OpenMP default) or the task system's workers, at most one
 * per AGENTS_PER_BUILD_THREAD agents and MAX_BUILD_THREADS. A chunk's
 * counts are its own, whichever thread runs it. */
static int build_chunks(const crowdsteer_grid_desc *desc, size_t count) {
  size_t chunks = 1;
  if (desc->tasks) {
    chunks = desc->tasks->worker_count;
  } else if (desc->threads) {
    chunks = (size_t)desc->threads;
  } else {
#ifdef _OPENMP
    chunks = (size_t)omp_get_max_threads();
#endif
  }
#ifndef _OPENMP
  if (!desc->tasks) chunks = 1;
#endif
  const size_t useful = count / AGENTS_PER_BUILD_THREAD + 1;
  if (chunks > useful) chunks = useful;
  if (chunks > MAX_BUILD_THREADS) chunks = MAX_BUILD_THREADS;
  return chunks < 1 ? 1 : (int)chunks;
}

static void agent_chunk(size_t count, int threads, int t, size_t *first, size_t *last) {
  *first = count * (size_t)t / (size_t)threads;
  *last = count * (size_t)(t + 1) / (size_t)threads;
}

/* What every pass of one build shares. */
typedef struct build {
  crowdsteer_grid *g;
  const float *pos[3], *vel[3];
  const uint32_t *group;
  cs_nb_keys_fn keys;
  cs_nb_ends_fn ends;
  int threads;    /* chunks of the passes (see build_chunks) */
  int part_shift; /* a bucket's partition: bucket >> part_shift */
  cs_spread spread;
  /* The direct sort on chunks: chunk t owns buckets [split[t], split[t +
   * 1]) and total[t] agents. */
  uint32_t *split, *total;
} build;

/* Pass 1: per thread, how many agents of its chunk go to each partition. */
static void count_partitions(const build *b, int t) {
  crowdsteer_grid *g = b->g;
  uint32_t *counts = g->part_counts + (size_t)t * g->parts;
  memset(counts, 0, g->parts * sizeof(uint32_t));
  size_t first, last;
  agent_chunk(g->count, b->threads, t, &first, &last);
  uint32_t keys[KEY_BLOCK];
  /* Four counts per partition, agent j into count j % 4: in a crowd in
   * (or near) cell order consecutive agents hit one or a few partitions,
   * and increments of one counter wait on each other's stores (and, when
   * the partitions alternate irregularly, on mispredicted store-to-load
   * forwarding). */
  const size_t parts = g->parts;
  const int shift = b->part_shift;
  uint32_t *const way0 = g->part_split + (size_t)t * COUNT_WAYS * parts;
  uint32_t *const way1 = way0 + parts, *const way2 = way1 + parts,
                  *const way3 = way2 + parts;
  memset(way0, 0, COUNT_WAYS * parts * sizeof(uint32_t));
  for (size_t i = first; i < last; i += KEY_BLOCK) {
    const size_t n = last - i < KEY_BLOCK ? last - i : KEY_BLOCK;
    b->keys(g, b->pos, i, i + n, keys);
    size_t j = 0;
    for (; j + COUNT_WAYS <= n; j += COUNT_WAYS) {
      way0[keys[j] >> shift]++;
      way1[keys[j + 1] >> shift]++;
      way2[keys[j + 2] >> shift]++;
      way3[keys[j + 3] >> shift]++;
    }
    for (; j < n; j++)
      way0[keys[j] >> shift]++;
  }
  for (size_t p = 0; p < parts; p++)
    counts[p] = way0[p] + way1[p] + way2[p] + way3[p];
}

/* Pass 2 (one thread, tiny): each partition's start, and each thread's
 * first record in it (thread order inside a partition: index order). */
static void place_partitions(const build *b) {
  crowdsteer_grid *g = b->g;
  uint32_t offset = 0;
  for (size_t p = 0; p < g->parts; p++) {
    g->part_start[p] = offset;
    for (int t = 0; t < b->threads; t++) {
      uint32_t *count = g->part_counts + (size_t)t * g->parts + p;
      const uint32_t n = *count;
      *count = offset;
      offset += n;
    }
  }
  g->part_start[g->parts] = offset;
}

static inline void put_float(uint32_t *word, float x) { memcpy(word, &x, sizeof x); }

/* Agent a's fields as records and the grid's arrays order them: index,
 * positions, velocities (unless positions only), group bits; how many. */
static inline __attribute__((always_inline)) int
agent_fields(uint32_t *out, size_t a, const float *const pos[3],
             const float *const vel[3], const uint32_t *group, const int dims,
             const int with_group, const int with_vel) {
  int n = 0;
  out[n++] = (uint32_t)a;
  for (int k = 0; k < dims; k++)
    put_float(out + n++, pos[k][a]);
  for (int k = 0; k < dims && with_vel; k++)
    put_float(out + n++, vel[k][a]);
  if (with_group) out[n++] = group[a];
  return n;
}

/* Pass 3: the thread's agents, as records, appended to their partitions
 * in index order: few write streams, so the writes stay in cache. */
static inline __attribute__((always_inline)) void to_partitions(const build *b, int t,
                                                                const int dims,
                                                                const int with_group,
                                                                const int with_vel) {
  crowdsteer_grid *g = b->g;
  const size_t words = record_words(dims, with_group, with_vel);
  uint32_t *cursor = g->part_counts + (size_t)t * g->parts;
  size_t first, last;
  agent_chunk(g->count, b->threads, t, &first, &last);
  uint32_t keys[KEY_BLOCK];
  /* The current partition's cursor in a register: in a crowd in cell
   * order, agent after agent goes to the same partition, and a cursor
   * kept in memory makes each wait for the store of the one before. */
  size_t part = 0;
  uint32_t at = cursor[0];
  /* In locals: the records' byte copies could alias the build's fields,
   * which the loop would then load again after every store. */
  uint32_t *const records = g->records;
  const int shift = b->part_shift;
  const float *const pos[3] = {b->pos[0], b->pos[1], b->pos[2]};
  const float *const vel[3] = {b->vel[0], b->vel[1], b->vel[2]};
  const uint32_t *const group = b->group;
  for (size_t i = first; i < last; i += KEY_BLOCK) {
    const size_t n = last - i < KEY_BLOCK ? last - i : KEY_BLOCK;
    b->keys(g, b->pos, i, i + n, keys);
    for (size_t j = 0; j < n; j++) {
      const size_t a = i + j, p = keys[j] >> shift;
      if (p != part) {
        cursor[part] = at;
        at = cursor[p];
        part = p;
      }
      uint32_t *r = records + words * at++;
      /* Up to 512 write streams are more than the hardware prefetchers
       * follow, so every new line of a partition waited for its read for
       * ownership: fetched ahead, pass 3 took 3.6 instead of 5.6 ns per
       * agent (1M agents in random order). Past the last record the
       * address is only an address: a prefetch never faults. */
      __builtin_prefetch((const void *)((uintptr_t)r + 4 * words * PREFETCH_RECORDS), 1,
                         3);
      r[0] = keys[j];
      agent_fields(r + 1, a, pos, vel, group, dims, with_group, with_vel);
    }
  }
  cursor[part] = at;
}

static inline void put_word(void *array, size_t slot, const uint32_t *word) {
  memcpy((char *)array + 4 * slot, word, 4);
}

/* The grid's destination arrays of one build shape, in record field order
 * after the index: positions, velocities, groups. Fields are copied as
 * bytes (put_word), so a float keeps its effective type. */
static inline __attribute__((always_inline)) int
destinations(const crowdsteer_grid *g, const int dims, const int with_group,
             const int with_vel, void *to[8]) {
  int arrays = 0;
  to[arrays++] = g->index;
  for (int k = 0; k < dims; k++)
    to[arrays++] = g->pos[k];
  for (int k = 0; k < dims && with_vel; k++)
    to[arrays++] = g->vel[k];
  if (with_group) to[arrays++] = g->group;
  return arrays;
}

/* Pass 4: one partition's records to their slots, a counting sort over
 * its buckets in their own entries of the table: counts, then each
 * bucket's end (the backend's prefix sum, W buckets at a time), then each
 * record's slot, the one before its bucket's end, records from last to
 * first (stable), which leaves every entry at its bucket's start.
 * A partition in random order scatters to lines all over its range of
 * every array: the next partition's lines are fetched for writing while
 * this one counts, and the fields go out one array at a time (SLOT_BLOCK
 * slots found first), so the cache holds one array's lines at a time.
 * A partition in (nearly) bucket order writes each array in sequence,
 * and one loop over the records does it with fewer loads. */
static inline __attribute__((always_inline)) void sort_partition(const build *b, size_t p,
                                                                 const int dims,
                                                                 const int with_group,
                                                                 const int with_vel) {
  crowdsteer_grid *g = b->g;
  const size_t words = record_words(dims, with_group, with_vel);
  const size_t buckets = (size_t)1 << b->part_shift;
  const uint32_t base = (uint32_t)(p << b->part_shift);
  const uint32_t first_slot = g->part_start[p];
  const size_t n = g->part_start[p + 1] - first_slot;
  const uint32_t *const records = g->records + words * first_slot;
  uint32_t *const bucket = g->start + base;
  void *to[8];
  const int arrays = destinations(g, dims, with_group, with_vel, to);
  memset(bucket, 0, buckets * sizeof(uint32_t));
  /* In order or scattered, judged by the descents among its first keys;
   * with fewer arrays the one loop is as fast either way. */
  const size_t sample = n < ORDER_SAMPLE ? n : ORDER_SAMPLE;
  size_t descents = 0;
  for (size_t i = 1; i < sample; i++)
    descents += records[words * i] < records[words * (i - 1)];
  const int scattered = arrays >= SCATTER_ARRAYS && descents * 8 > sample;
  /* A scattered partition predicts a scattered next one: its lines are
   * fetched for writing while this one's records are counted. */
  if (scattered && p + 1 < g->parts) {
    const size_t next_first = g->part_start[p + 1] / 16 * 16,
                 next_last = g->part_start[p + 2];
    size_t line = next_first;
    int array = 0;
    for (size_t i = 0; i < n; i++) {
      bucket[records[words * i] - base]++;
      if (array < arrays) {
        __builtin_prefetch((char *)to[array] + 4 * line, 1, 3);
        line += 16;
        if (line >= next_last) {
          line = next_first;
          array++;
        }
      }
    }
  } else {
    for (size_t i = 0; i < n; i++)
      bucket[records[words * i] - base]++;
  }
  b->ends(bucket, buckets, first_slot);
  if (!scattered) {
    for (size_t i = n; i-- > 0;) {
      const uint32_t *const r = records + words * i;
      const uint32_t slot = --bucket[r[0] - base];
      for (int a = 0; a < arrays; a++)
        put_word(to[a], slot, r + 1 + a);
    }
    return;
  }
  uint32_t slots[SLOT_BLOCK];
  for (size_t last = n; last > 0;) {
    const size_t lo = last > SLOT_BLOCK ? last - SLOT_BLOCK : 0, m = last - lo;
    const uint32_t *const r = records + words * lo;
    for (size_t i = m; i-- > 0;)
      slots[i] = --bucket[r[words * i] - base];
    for (int a = 0; a < arrays; a++)
      for (size_t i = 0; i < m; i++)
        put_word(to[a], slots[i], r + words * i + 1 + a);
    last = lo;
  }
}

/* The thread's share of pass 3, one copy of the loop per shape (constant
 * dims and flags let the compiler unroll the record's fields). */
#define CS_GRID_SHAPES(call, ...)                                                        \
  do {                                                                                   \
    const int dims_ = b->g->dims, group_ = b->group != NULL,                             \
              vel_ = b->g->vel[0] != NULL;                                               \
    if (dims_ == 2 && vel_)                                                              \
      group_ ? call(__VA_ARGS__, 2, 1, 1) : call(__VA_ARGS__, 2, 0, 1);                  \
    else if (dims_ == 2)                                                                 \
      group_ ? call(__VA_ARGS__, 2, 1, 0) : call(__VA_ARGS__, 2, 0, 0);                  \
    else if (vel_)                                                                       \
      group_ ? call(__VA_ARGS__, 3, 1, 1) : call(__VA_ARGS__, 3, 0, 1);                  \
    else                                                                                 \
      group_ ? call(__VA_ARGS__, 3, 1, 0) : call(__VA_ARGS__, 3, 0, 0);                  \
  } while (0)

static void partition_pass_plain(const build *b, int t) {
  CS_GRID_SHAPES(to_partitions, b, t);
}

#if defined(__x86_64__) || defined(__i386__)
/* The same with PREFETCHW, which fetches a line ready to be written: the
 * baseline x86-64 has no such instruction (a CPU without it may fault),
 * so this copy runs only where cpuid reports it. AMD Zen 5, 1M agents in
 * random order, the build on 1 / 2 threads against no prefetch: 0.86 /
 * 0.94 of the time with the read prefetch the baseline compiler emits,
 * 0.85 / 0.84 with PREFETCHW. */
__attribute__((target("prfchw"))) static void partition_pass_prefetchw(const build *b,
                                                                       int t) {
  CS_GRID_SHAPES(to_partitions, b, t);
}
#endif

static void partition_pass(const build *b, int t) {
#if defined(__x86_64__) || defined(__i386__)
  if (cs_write_prefetch()) {
    partition_pass_prefetchw(b, t);
    return;
  }
#endif
  partition_pass_plain(b, t);
}

/* Pass 4 for one partition, one copy per shape as pass 3. */
static void sort_one_partition(const build *b, size_t p) {
  CS_GRID_SHAPES(sort_partition, b, p);
}

/* The thread's share of pass 4: a contiguous run of partitions. */
static void sort_pass(const build *b, int t) {
  size_t first, last;
  agent_chunk(b->g->parts, b->threads, t, &first, &last);
  for (size_t p = first; p < last; p++)
    sort_one_partition(b, p);
}

/* The direct sort: a plain counting sort straight into the arrays, two
 * passes over memory instead of the partitioned three. Each key is kept
 * in the records' memory and counted into its bucket's entry; then, from
 * the last agent to the first (stable), each agent goes to the slot
 * before its bucket's end, which leaves every entry at its bucket's start.
 * In a batch in bucket order the counts and the slots follow the agents
 * nearly in sequence, and a small batch's stay in cache, so the records'
 * extra pass would only add traffic. On a team each thread owns a range
 * of buckets and scans every key in index order, so each bucket's agents
 * keep their order whatever the thread count. */

/* Agents whose key lies in buckets [lo, hi), from the last to the first,
 * each to the slot before its bucket's end. */
static inline __attribute__((always_inline)) void place_range(const build *b, uint32_t lo,
                                                              uint32_t hi, const int dims,
                                                              const int with_group,
                                                              const int with_vel) {
  crowdsteer_grid *g = b->g;
  const uint32_t *const keys = g->records;
  uint32_t *const bucket = g->start;
  const float *const pos[3] = {b->pos[0], b->pos[1], b->pos[2]};
  const float *const vel[3] = {b->vel[0], b->vel[1], b->vel[2]};
  void *to[8];
  destinations(g, dims, with_group, with_vel, to);
  for (size_t i = g->count; i-- > 0;) {
    if (keys[i] - lo >= hi - lo) continue;
    const uint32_t slot = --bucket[keys[i]];
    uint32_t word[8];
    const int fields =
        agent_fields(word, i, pos, vel, b->group, dims, with_group, with_vel);
    for (int w = 0; w < fields; w++)
      put_word(to[w], slot, word + w);
  }
}

static void place_all_range(const build *b, uint32_t lo, uint32_t hi) {
  CS_GRID_SHAPES(place_range, b, lo, hi);
}

/* One thread: the keys computed and counted a block at a time (counted
 * while in cache), then every agent placed. */
static void sort_direct(const build *b, size_t table) {
  crowdsteer_grid *g = b->g;
  const size_t n = g->count;
  uint32_t *const keys = g->records; /* at least one word per agent */
  uint32_t *const bucket = g->start;
  memset(bucket, 0, table * sizeof(uint32_t));
  for (size_t i = 0; i < n; i += KEY_BLOCK) {
    const size_t m = n - i < KEY_BLOCK ? n - i : KEY_BLOCK;
    b->keys(g, b->pos, i, i + m, keys + i);
    for (size_t j = i; j < i + m; j++)
      bucket[keys[j]]++;
  }
  b->ends(bucket, table, 0);
  place_all_range(b, 0, (uint32_t)table);
}

/* On chunks: keys by agent range; then chunk t owns buckets [split[t],
 * split[t + 1]), cut where the agent ranges meet (in a batch in order,
 * about as many agents each), counts its keys, and after every chunk's
 * total is known, places its agents. */
static void direct_keys(void *context, size_t first, size_t last) {
  const build *b = context;
  for (size_t t = first; t < last; t++) {
    size_t from, to;
    agent_chunk(b->g->count, b->threads, (int)t, &from, &to);
    b->keys(b->g, b->pos, from, to, b->g->records + from);
  }
}

static void direct_count(void *context, size_t first, size_t last) {
  const build *b = context;
  const uint32_t *const keys = b->g->records;
  uint32_t *const bucket = b->g->start;
  for (size_t t = first; t < last; t++) {
    const uint32_t lo = b->split[t], hi = b->split[t + 1];
    memset(bucket + lo, 0, (size_t)(hi - lo) * sizeof(uint32_t));
    uint32_t mine = 0;
    for (size_t i = 0; i < b->g->count; i++)
      if (keys[i] - lo < hi - lo) {
        bucket[keys[i]]++;
        mine++;
      }
    b->total[t] = mine;
  }
}

static void direct_place(void *context, size_t first, size_t last) {
  const build *b = context;
  for (size_t t = first; t < last; t++) {
    const uint32_t lo = b->split[t], hi = b->split[t + 1];
    uint32_t before = 0;
    for (size_t u = 0; u < t; u++)
      before += b->total[u];
    b->ends(b->g->start + lo, hi - lo, before);
    place_all_range(b, lo, hi);
  }
}

static void sort_direct_on_chunks(build *b, size_t table) {
  const size_t n = b->g->count, chunks = (size_t)b->threads;
  const uint32_t *const keys = b->g->records;
  uint32_t split[MAX_BUILD_THREADS + 1], total[MAX_BUILD_THREADS];
  b->split = split;
  b->total = total;
  cs_spread_run(&b->spread, chunks, 1, direct_keys, b);
  split[0] = 0;
  for (size_t u = 1; u < chunks; u++) {
    const uint32_t at = keys[n * u / chunks];
    split[u] = at > split[u - 1] ? at : split[u - 1];
  }
  split[chunks] = (uint32_t)table;
  cs_spread_run(&b->spread, chunks, 1, direct_count, b);
  cs_spread_run(&b->spread, chunks, 1, direct_place, b);
}

/* Test hook: 0 lets each build choose its sort, 1 forces the partitioned
 * passes, 2 the direct sort (the grid is the same either way). */
static atomic_int forced_sort;

void cs_grid_set_sort(int way) { atomic_store(&forced_sort, way); }

/* How nearly the batch is in bucket order: the fraction, in 1/256ths, of
 * consecutive agents in four sampled blocks of 256 spread over it whose
 * keys lie within a few blocks of cells of each other (1/256 in a random
 * order; 248 in a crowd sorted and then moved up to 0.1 cell, 238 up to
 * 0.25, 163 up to 2 cells, 29 up to 15: 1M agents, 2D). A wrong guess costs
 * time, never a bit: every sort gives the same grid. */
static unsigned order_sampled(const build *b, size_t table) {
  const crowdsteer_grid *g = b->g;
  enum { SAMPLES = 4 };
  const uint32_t near = table / 64 < 4096 ? (uint32_t)(table / 64) : 4096u;
  uint32_t keys[KEY_BLOCK];
  size_t close = 0;
  for (size_t s = 0; s < SAMPLES; s++) {
    const size_t first = (g->count - KEY_BLOCK) / (SAMPLES - 1) * s;
    b->keys(g, b->pos, first, first + KEY_BLOCK, keys);
    for (size_t j = 1; j < KEY_BLOCK; j++)
      close +=
          (keys[j] > keys[j - 1] ? keys[j] - keys[j - 1] : keys[j - 1] - keys[j]) <= near;
  }
  return (unsigned)(close * 256 / (SAMPLES * (KEY_BLOCK - 1)));
}

/* The partitioned passes on chunks (pass 2 on the caller's thread). */
static void count_chunks(void *context, size_t first, size_t last) {
  for (size_t t = first; t < last; t++)
    count_partitions(context, (int)t);
}

static void partition_chunks(void *context, size_t first, size_t last) {
  for (size_t t = first; t < last; t++)
    partition_pass(context, (int)t);
}

static void sort_chunks(void *context, size_t first, size_t last) {
  for (size_t t = first; t < last; t++)
    sort_pass(context, (int)t);
}

static void sort_on_chunks(build *b) {
  const size_t chunks = (size_t)b->threads;
  cs_spread_run(&b->spread, chunks, 1, count_chunks, b);
  place_partitions(b);
  cs_spread_run(&b->spread, chunks, 1, partition_chunks, b);
  cs_spread_run(&b->spread, chunks, 1, sort_chunks, b);
}

static void sort_into_buckets(crowdsteer_grid *g, const crowdsteer_agents *agents,
                              const crowdsteer_grid_desc *desc, size_t table,
                              int threads) {
  const uint32_t *group = desc->group;
  const cs_nb_backend *backend = cs_nb_backend_for(crowdsteer_active_isa()); /* once */
  build b = {
      g,
      {agents->px, agents->py, agents->pz},
      {agents->vx, agents->vy, agents->vz},
      group,
      backend->keys,
      backend->ends,
      threads,
      0,
      cs_spread_for(desc->tasks, threads == 1 ? 1 : desc->threads, (size_t)threads),
      NULL,
      NULL};
  while (((size_t)1 << b.part_shift) * g->parts < table)
    b.part_shift++;
  /* The direct sort: up to DIRECT_UP_TO agents on one thread; past it on
   * one thread when the batch is about in order (1M agents moved up to a
   * cell after sorting: 4.2 ms where the partitioned passes take 7.7), on
   * a team only when nearly sorted (moved up to 0.05 cells: 4.3 against
   * 4.9 ms on 2 threads; up to 1 cell 6.1 against 5.5). One thread makes
   * no OpenMP call, as in crowdsteer_step: a host thread (a small stack, a
   * fiber) never gets OpenMP state from a build. */
  const int way = atomic_load_explicit(&forced_sort, memory_order_relaxed);
  const int small = g->count <= DIRECT_UP_TO;
  const unsigned order = way || small ? 0 : order_sampled(&b, table);
  if (way == 2 ? threads == 1 : !way && (small || (threads == 1 && order >= 128))) {
    sort_direct(&b, table);
  } else if (way == 2 || (!way && order >= 240)) {
    sort_direct_on_chunks(&b, table);
  } else {
    sort_on_chunks(&b);
  }
  g->start[table] = (uint32_t)g->count;
}

static crowdsteer_status check_build(const crowdsteer_agents *agents,
                                     const crowdsteer_grid_desc *desc) {
  if (!agents || !desc) return CROWDSTEER_ERROR_NULL_POINTER;
  if (agents->dims != 2 && agents->dims != 3) return CROWDSTEER_ERROR_DIMS;
  if (agents->count > UINT32_MAX - 1) return CROWDSTEER_ERROR_RANGE;
  /* A normal float: the cell coordinate is x * (1 / cell_size), and that
   * reciprocal must be finite. */
  crowdsteer_status fault;
  if ((fault = cs_tasks_check(desc->tasks)) != CROWDSTEER_OK) return fault;
  if (!(desc->cell_size >= FLT_MIN && desc->cell_size <= FLT_MAX) || desc->threads < 0 ||
      (desc->table_size && !is_power_of_two(desc->table_size)) ||
      desc->table_size > ((size_t)1 << 31))
    return CROWDSTEER_ERROR_PARAMETER;
  if (agents->count == 0) return CROWDSTEER_OK;
  /* Velocities are read only when the grid keeps them. */
  const float *const needed[6] = {agents->px, agents->py, agents->pz,
                                  agents->vx, agents->vy, agents->vz};
  const int arrays = desc->positions_only ? 3 : 6;
  for (int a = 0; a < arrays; a++)
    if (!needed[a] && !(agents->dims == 2 && (a == 2 || a == 5)))
      return CROWDSTEER_ERROR_NULL_POINTER;
  for (int a = 0; a < arrays; a++)
    if (!(agents->dims == 2 && (a == 2 || a == 5)) && !cs_aligned(needed[a]))
      return CROWDSTEER_ERROR_ALIGNMENT;
  if (desc->group && !cs_aligned(desc->group)) return CROWDSTEER_ERROR_ALIGNMENT;
  return CROWDSTEER_OK;
}

static crowdsteer_status grid_build_here(crowdsteer_grid *grid,
                                         const crowdsteer_agents *agents,
                                         const crowdsteer_grid_desc *desc) {
  crowdsteer_status fault;
  if (!grid) return CROWDSTEER_ERROR_NULL_POINTER;
  if ((fault = check_build(agents, desc)) != CROWDSTEER_OK) return fault;
  const int dims = agents->dims;
  const size_t count = agents->count;
  const size_t table = desc->table_size ? desc->table_size : automatic_table(count, dims);
  const int threads = build_chunks(desc, count);
  const int with_group = desc->group != NULL, with_vel = !desc->positions_only;
  const size_t parts = partitions(count, table);
  if ((fault = reserve(grid, count, table, parts, threads, dims, with_group, with_vel)) !=
      CROWDSTEER_OK)
    return fault;
  grid->built = 1;
  grid->dims = dims;
  grid->count = count;
  grid->cell_size = desc->cell_size;
  grid->inv_cell = 1.0f / desc->cell_size;
  grid->bucket_mask = (uint32_t)(table - 1);
  grid->scan_all = table < CS_MIN_TABLE(dims);
  grid->has_group = with_group;
  sort_into_buckets(grid, agents, desc, table, threads);
  return CROWDSTEER_OK;
}

crowdsteer_status crowdsteer_grid_build(crowdsteer_grid *grid,
                                        const crowdsteer_agents *agents,
                                        const crowdsteer_grid_desc *desc) {
  const cs_fpenv host = cs_fpenv_enter();
  return cs_fpenv_return(host, grid_build_here(grid, agents, desc));
}

const uint32_t *crowdsteer_grid_order(const crowdsteer_grid *grid, size_t *count) {
  if (count) *count = 0;
  if (!grid || !grid->built) return NULL;
  if (count) *count = grid->count;
  return grid->index;
}

static int overlap(const void *a, const void *b, size_t bytes) {
  const uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
  return x < y + bytes && y < x + bytes;
}

crowdsteer_status crowdsteer_reorder(void *out, const void *in, const uint32_t *order,
                                     size_t count) {
  if (count == 0) return CROWDSTEER_OK;
  if (!out || !in || !order) return CROWDSTEER_ERROR_NULL_POINTER;
  if (count > SIZE_MAX / 4) return CROWDSTEER_ERROR_RANGE;
  const size_t bytes = count * 4;
  if (overlap(out, in, bytes) || overlap(out, order, bytes))
    return CROWDSTEER_ERROR_PARAMETER;
  for (size_t s = 0; s < count; s++)
    if (order[s] >= count) return CROWDSTEER_ERROR_RANGE;
  unsigned char *to = out;
  const unsigned char *from = in;
  for (size_t s = 0; s < count; s++)
    memcpy(to + 4 * s, from + 4 * (size_t)order[s], 4);
  return CROWDSTEER_OK;
}
