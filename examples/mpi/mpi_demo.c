/* crowdsteer-mpi: the demo's crowd (examples/demo.c) stepped over MPI ranks
 * by domain decomposition, giving the demo's state hash bit for bit. Every
 * rank steps its own agents with crowdsteer_step (ORCA avoidance and the
 * obstacles too, with --avoid, --obstacles); agents carry stable ids,
 * ghosts within the widest neighbour radius come from the neighbouring
 * ranks each step, agent targets owned elsewhere are fetched, and agents
 * migrate when they cross into another rank's strip. */

/* The demo itself, without its main (demo.h; CMake links its files): the
 * very same options, setup, markers and hash, so the two programs cannot
 * drift apart. */
#include "../demo.h"

#include <mpi.h>

/* ---- the decomposition: strips along x, dealt round-robin ------------------ */

/* Strip k = floor(x / width) belongs to rank k mod ranks, so the strips of
 * a rank's two neighbours are those of ranks rank - 1 and rank + 1 (mod
 * ranks), whatever the strip width. One strip per rank over the world by
 * default; narrow strips make agents cross boundaries all the time. */
typedef struct decomposition {
  int rank, ranks;
  double width; /* strip width along x */
  double ghost; /* ghost layer depth: agents this close to an edge */
} decomposition;

static long strip_of(const decomposition *d, float x) {
  const double k = floor((double)x / d->width);
  return isfinite(k) ? (long)fmax(fmin(k, 1e15), -1e15) : 0; /* NaN: strip 0 */
}

static int owner_of(const decomposition *d, float x) {
  const long k = strip_of(d, x) % d->ranks;
  return (int)(k < 0 ? k + d->ranks : k);
}

/* ---- the agents a rank holds ------------------------------------------------- */

/* Everything that travels with an agent: float columns, then uint32 ones. */
enum {
  C_PX,
  C_PY,
  C_PZ,
  C_VX,
  C_VY,
  C_VZ, /* state */
  C_WX,
  C_WY,
  C_WZ, /* wander direction */
  C_MAX_SPEED,
  C_INT_MAX_SPEED,
  C_INT_MAX_FORCE,
  C_WANDER_WEIGHT,
  C_SPOT_X,
  C_SPOT_Y,
  C_SPOT_Z,         /* arrivers' own targets */
  C_PATH_DIRECTION, /* --navigate: the path followers' way round */
  FLOAT_COLUMNS
};
/* --navigate: each follower's field and pathway are per-agent too. */
enum { U_ID, U_MASK, U_TARGET_ID, U_FIELD, U_PATH, UINT_COLUMNS };
enum { RECORD_WORDS = FLOAT_COLUMNS + UINT_COLUMNS, GHOST_WORDS = 7 };

/* Owned agents are [0, own) of every column; the step's batch appends
 * ghosts and fetched targets to the state columns and ids: [own, total). */
typedef struct local {
  size_t own, total, capacity;
  float *f[FLOAT_COLUMNS];
  uint32_t *u[UINT_COLUMNS];
  float *next[6];         /* the step's output buffer (px .. vz) */
  uint32_t *target_index; /* AGENTS targets as indices into the batch */
  uint32_t *report;       /* avoidance's report bits of the owned agents */
} local;

static void *grow(void *array, size_t count) {
  void *fresh = realloc(array, (count ? count : 1) * 4);
  if (!fresh) {
    fprintf(stderr, "crowdsteer-mpi: out of memory (%zu words)\n", count);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return fresh;
}

static void reserve(local *l, size_t count) {
  if (count <= l->capacity) return;
  size_t capacity = l->capacity ? l->capacity : 1024;
  while (capacity < count)
    capacity *= 2;
  for (int c = 0; c < FLOAT_COLUMNS; c++)
    l->f[c] = grow(l->f[c], capacity);
  for (int c = 0; c < UINT_COLUMNS; c++)
    l->u[c] = grow(l->u[c], capacity);
  for (int k = 0; k < 6; k++)
    l->next[k] = grow(l->next[k], capacity);
  l->target_index = grow(l->target_index, capacity);
  l->report = grow(l->report, capacity);
  l->capacity = capacity;
}

static void local_free(local *l) {
  for (int c = 0; c < FLOAT_COLUMNS; c++)
    free(l->f[c]);
  for (int c = 0; c < UINT_COLUMNS; c++)
    free(l->u[c]);
  for (int k = 0; k < 6; k++)
    free(l->next[k]);
  free(l->target_index);
  free(l->report);
}

/* The demo's global array behind each float column (NULL: z in 2D): its
 * state arrays first, as the columns are. */
static void global_columns(const scenario *sc, float *g[FLOAT_COLUMNS]) {
  state_arrays(sc, g);
  float *rest[FLOAT_COLUMNS - STATE_ARRAYS] = {sc->max_speed,
                                               sc->integrate_max_speed,
                                               sc->integrate_max_force,
                                               sc->wander_weight,
                                               sc->spot.x,
                                               sc->spot.y,
                                               sc->spot.z,
                                               sc->path_direction};
  memcpy(g + STATE_ARRAYS, rest, sizeof rest);
}

/* Agent `id` of the demo's batch, appended to the owned agents. */
static void adopt(local *l, const scenario *sc, float *const g[FLOAT_COLUMNS],
                  uint32_t id) {
  reserve(l, l->own + 1);
  const size_t i = l->own++;
  for (int c = 0; c < FLOAT_COLUMNS; c++)
    l->f[c][i] = g[c] ? g[c][id] : 0.0f;
  l->u[U_ID][i] = id;
  l->u[U_MASK][i] = sc->mask[id];
  l->u[U_TARGET_ID][i] = sc->target_agent[id];
  l->u[U_FIELD][i] = sc->field_index ? sc->field_index[id] : 0;
  l->u[U_PATH][i] = sc->path_index ? sc->path_index[id] : 0;
  l->total = l->own;
}

/* A record (one agent, every column) as 32-bit words, and back. */
static void pack(const local *l, size_t i, uint32_t *out) {
  for (int c = 0; c < FLOAT_COLUMNS; c++)
    memcpy(&out[c], &l->f[c][i], 4);
  for (int c = 0; c < UINT_COLUMNS; c++)
    out[FLOAT_COLUMNS + c] = l->u[c][i];
}

static void unpack(local *l, size_t i, const uint32_t *in) {
  for (int c = 0; c < FLOAT_COLUMNS; c++)
    memcpy(&l->f[c][i], &in[c], 4);
  for (int c = 0; c < UINT_COLUMNS; c++)
    l->u[c][i] = in[FLOAT_COLUMNS + c];
}

/* ---- timing and counters ------------------------------------------------------ */

/* Waiting: a barrier before each exchange (and the step's all-reduce of
 * its status), so that the exchanges' times hold their own cost and not
 * that of a late partner: load imbalance and, oversubscribed, time
 * slicing. */
enum { T_COMPUTE, T_WAIT, T_GHOSTS, T_TARGETS, T_MIGRATION, TIMERS };
static const char *const timer_names[TIMERS] = {"compute (grid + step)",
                                                "waiting for all ranks", "ghost exchange",
                                                "target fetch", "migration"};

typedef struct counters {
  double seconds[TIMERS];
  double ghosts, fetched, migrated, own; /* sums over steps */
  double ghost_bytes, fetch_bytes, migration_bytes, messages;
  double crowded, walled; /* the demo's avoidance totals, agent-steps */
} counters;

/* Sends `count` words to `to` while receiving any number from `from` (a
 * count, then the data); the received words are returned, to be freed. */
static uint32_t *sendrecv_words(const uint32_t *send, int count, int to, int from,
                                int tag, int *received, counters *n) {
  int incoming = 0;
  MPI_Sendrecv(&count, 1, MPI_INT, to, tag, &incoming, 1, MPI_INT, from, tag,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  uint32_t *recv = grow(NULL, (size_t)incoming);
  MPI_Sendrecv(send, count, MPI_UINT32_T, to, tag + 1, recv, incoming, MPI_UINT32_T, from,
               tag + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  *received = incoming;
  n->messages += 2;
  n->ghost_bytes += 4.0 * count;
  return recv;
}

/* Appends agents given as (id, px, py, pz, vx, vy, vz) words to the batch;
 * returns the index of the first. */
static size_t append_state(local *l, const uint32_t *words, size_t agents) {
  const size_t first = l->total;
  reserve(l, l->total + agents);
  for (size_t a = 0; a < agents; a++, words += GHOST_WORDS) {
    l->u[U_ID][l->total] = words[0];
    for (int c = 0; c < 6; c++)
      memcpy(&l->f[C_PX + c][l->total], &words[1 + c], 4);
    l->total++;
  }
  return first;
}

static void state_words(const local *l, size_t i, uint32_t *out) {
  out[0] = l->u[U_ID][i];
  for (int c = 0; c < 6; c++)
    memcpy(&out[1 + c], &l->f[C_PX + c][i], 4);
}

/* Ghosts: every owned agent within the ghost depth of its strip's left
 * (right) edge goes to the rank on the left (right). Strips are wider than
 * twice the depth, so no agent is sent twice to one rank, and everyone
 * within the neighbour radius of an owned agent is owned or a ghost. */
static void exchange_ghosts(local *l, const decomposition *d, counters *n) {
  l->total = l->own;
  if (d->ranks == 1 || d->ghost <= 0.0) return;
  uint32_t *side[2];
  int words[2] = {0, 0};
  for (int s = 0; s < 2; s++)
    side[s] = grow(NULL, l->own * GHOST_WORDS);
  for (size_t i = 0; i < l->own; i++) {
    const double x = l->f[C_PX][i];
    const double left_edge = (double)strip_of(d, l->f[C_PX][i]) * d->width;
    if (x - left_edge < d->ghost) {
      state_words(l, i, side[0] + words[0]);
      words[0] += GHOST_WORDS;
    }
    if (left_edge + d->width - x <= d->ghost) {
      state_words(l, i, side[1] + words[1]);
      words[1] += GHOST_WORDS;
    }
  }
  const int left = (d->rank + d->ranks - 1) % d->ranks, right = (d->rank + 1) % d->ranks;
  for (int s = 0; s < 2; s++) {
    int received = 0;
    uint32_t *in = sendrecv_words(side[s], words[s], s ? right : left, s ? left : right,
                                  10 + 2 * s, &received, n);
    append_state(l, in, (size_t)received / GHOST_WORDS);
    free(in);
    free(side[s]);
  }
  n->ghosts += (double)(l->total - l->own);
}

/* Where each of `ranks` blocks of `counts` words starts when they are laid
 * end to end; returns the total. */
static int offsets(const int *counts, int *at, int ranks) {
  int total = 0;
  for (int r = 0; r < ranks; r++) {
    at[r] = total;
    total += counts[r];
  }
  return total;
}

/* Block r of `out` (send_counts[r] words at send_at[r]) goes to rank r;
 * returns what all ranks sent here, `*incoming` words, to be freed. */
static uint32_t *all_to_all(const uint32_t *out, const int *send_counts,
                            const int *send_at, int ranks, int *incoming) {
  int *recv_counts = grow(NULL, (size_t)ranks), *recv_at = grow(NULL, (size_t)ranks);
  MPI_Alltoall(send_counts, 1, MPI_INT, recv_counts, 1, MPI_INT, MPI_COMM_WORLD);
  *incoming = offsets(recv_counts, recv_at, ranks);
  uint32_t *in = grow(NULL, (size_t)*incoming);
  MPI_Alltoallv(out, send_counts, send_at, MPI_UINT32_T, in, recv_counts, recv_at,
                MPI_UINT32_T, MPI_COMM_WORLD);
  free(recv_counts);
  free(recv_at);
  return in;
}

/* ---- agent targets owned by other ranks ------------------------------------- */

/* The first `count` agents of the batch indexed by id: the library's
 * crowdsteer_id_index, so a rank needs memory for its own batch only. */
static void index_batch(crowdsteer_id_index *index, const local *l, size_t count) {
  crowdsteer_agents batch;
  memset(&batch, 0, sizeof batch);
  batch.count = count;
  batch.dims = 2;
  batch.id = l->u[U_ID];
  if (crowdsteer_id_index_build(index, &batch) != CROWDSTEER_OK) {
    fprintf(stderr, "crowdsteer-mpi: agent ids on this rank are not distinct\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

static int find(const crowdsteer_id_index *index, uint32_t id, uint32_t *slot) {
  return crowdsteer_id_index_lookup(index, &id, 1, slot) == CROWDSTEER_OK;
}

static int by_value(const void *a, const void *b) {
  const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

/* Every rank's missing target ids, gathered on every rank; each owner
 * (`owned`: this rank's own agents by id) answers its askers with the
 * agents' state (one all-to-all). Returns the answers this rank received,
 * `*received` words. */
static uint32_t *ask_owners(const uint32_t *wanted, int count, const local *l,
                            const crowdsteer_id_index *owned, int ranks, int *received,
                            counters *n) {
  int *asked = grow(NULL, (size_t)ranks), *at = grow(NULL, (size_t)ranks);
  MPI_Allgather(&count, 1, MPI_INT, asked, 1, MPI_INT, MPI_COMM_WORLD);
  const int total = offsets(asked, at, ranks);
  uint32_t *all = grow(NULL, (size_t)total);
  MPI_Allgatherv(wanted, count, MPI_UINT32_T, all, asked, at, MPI_UINT32_T,
                 MPI_COMM_WORLD);
  int *send_counts = grow(NULL, (size_t)ranks), *send_at = grow(NULL, (size_t)ranks);
  uint32_t *answers = grow(NULL, (size_t)total * GHOST_WORDS);
  int words = 0;
  for (int r = 0; r < ranks; r++) {
    send_at[r] = words;
    for (int q = at[r]; q < at[r] + asked[r]; q++) {
      uint32_t slot;
      if (!find(owned, all[q], &slot)) continue; /* not mine */
      state_words(l, slot, answers + words);
      words += GHOST_WORDS;
    }
    send_counts[r] = words - send_at[r];
  }
  int incoming = 0;
  uint32_t *in = all_to_all(answers, send_counts, send_at, ranks, &incoming);
  n->messages += 4.0 * (ranks - 1);
  n->fetch_bytes += 4.0 * (count * (ranks - 1) + words);
  *received = incoming;
  free(asked), free(at), free(all), free(answers);
  free(send_counts), free(send_at);
  return in;
}

/* Resolves every owned agent's target id (for the behaviours with AGENTS
 * targets, `bits`) into an index of the batch with id indexes: owned
 * agents and ghosts are there already, the others are fetched from their
 * owners and appended. */
static void fetch_targets(local *l, crowdsteer_id_index *batch,
                          crowdsteer_id_index *owned, uint32_t bits, int ranks,
                          counters *n) {
  index_batch(owned, l, l->own);
  index_batch(batch, l, l->total);
  uint32_t *wanted = grow(NULL, l->own);
  int count = 0;
  for (size_t i = 0; i < l->own; i++) {
    uint32_t slot;
    const uint32_t t = l->u[U_TARGET_ID][i];
    if ((l->u[U_MASK][i] & bits) && !find(batch, t, &slot)) wanted[count++] = t;
  }
  qsort(wanted, (size_t)count, sizeof *wanted, by_value); /* each id asked once */
  int distinct = 0;
  for (int i = 0; i < count; i++)
    if (i == 0 || wanted[i] != wanted[distinct - 1]) wanted[distinct++] = wanted[i];
  int received = 0;
  uint32_t *in = ask_owners(wanted, distinct, l, owned, ranks, &received, n);
  const size_t first = append_state(l, in, (size_t)received / GHOST_WORDS);
  n->fetched += (double)(l->total - first);
  index_batch(batch, l, l->total);
  for (size_t i = 0; i < l->own; i++) { /* agents without one: themselves */
    const int uses = (l->u[U_MASK][i] & bits) != 0;
    l->target_index[i] = uses ? l->u[U_TARGET_ID][i] : l->u[U_ID][i];
  }
  if (crowdsteer_id_index_lookup(batch, l->target_index, l->own, l->target_index) !=
      CROWDSTEER_OK) {
    fprintf(stderr, "crowdsteer-mpi: some target is owned by no rank\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  free(wanted);
  free(in);
}

/* ---- the step on a rank's batch --------------------------------------------- */

/* The local column of a per-agent array of the demo's step (NULL stays
 * NULL). Anything else would be a global array the ranks do not share. */
static const float *localise(const scenario *sc, const local *l, const float *global) {
  if (!global) return NULL;
  float *g[FLOAT_COLUMNS];
  global_columns(sc, g);
  for (int c = 0; c < FLOAT_COLUMNS; c++)
    if (g[c] == global) return l->f[c];
  fprintf(stderr, "crowdsteer-mpi: the demo reads a per-agent array this example does "
                  "not distribute\n");
  MPI_Abort(MPI_COMM_WORLD, 1);
  return NULL;
}

static void localise_params(const scenario *sc, const local *l, crowdsteer_params *p) {
  const float **fields[] = {&p->max_speed_per_agent,      &p->max_force_per_agent,
                            &p->mass_per_agent,           &p->target_radius_per_agent,
                            &p->slowing_radius_per_agent, &p->panic_radius_per_agent,
                            &p->danger_radius_per_agent,  &p->escape_radius_per_agent,
                            &p->wander_radius_per_agent,  &p->wander_distance_per_agent,
                            &p->time_to_target_per_agent, &p->max_prediction_per_agent,
                            &p->jitter_per_agent};
  for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++)
    *fields[f] = localise(sc, l, *fields[f]);
}

static void localise_target(const scenario *sc, const local *l, crowdsteer_target *t) {
  crowdsteer_vectors *v[2] = {&t->position, &t->velocity};
  for (int k = 0; k < 2; k++) {
    v[k]->x = (float *)localise(sc, l, v[k]->x);
    v[k]->y = (float *)localise(sc, l, v[k]->y);
    v[k]->z = (float *)localise(sc, l, v[k]->z);
  }
  if (t->kind == CROWDSTEER_TARGET_AGENTS) t->index = l->target_index;
}

/* The local views of one step: the batch, its output buffer, wander's state
 * (global seed and tick), the neighbours (local grids), the behaviours and
 * the avoidance stage. */
typedef struct step_views {
  crowdsteer_agents batch, output;
  crowdsteer_wander_state wander;
  crowdsteer_neighbours neighbours, avoid_neighbours;
  crowdsteer_step_behaviour behaviours[MAX_SLOT_COUNT];
  crowdsteer_field_follow field_follow;
  crowdsteer_path_follow path_follow;
  crowdsteer_avoidance avoidance;
  crowdsteer_step_desc desc;
} step_views;

/* The demo's avoidance over the local batch: ORCA's neighbours through the
 * rank's own grid, the report into the local column. The obstacle set is
 * every rank's own copy of the same layout (scenario_setup builds it), so
 * it is used as it is. */
static void localise_avoidance(const scenario *sc, const local *l,
                               crowdsteer_grid *avoid_grid, step_views *v) {
  v->avoidance = sc->avoidance;
  v->avoidance.radius_per_agent = localise(sc, l, v->avoidance.radius_per_agent);
  v->avoidance.responsibility_per_agent =
      localise(sc, l, v->avoidance.responsibility_per_agent);
  v->avoidance.report = l->report;
  if (sc->avoidance.neighbours) {
    v->avoid_neighbours = sc->avoid_neighbours;
    v->avoid_neighbours.grid = avoid_grid;
    v->avoid_neighbours.radius_per_agent =
        localise(sc, l, v->avoid_neighbours.radius_per_agent);
    v->avoidance.neighbours = &v->avoid_neighbours;
  }
  v->desc.avoidance = &v->avoidance;
}

static void make_views(const scenario *sc, local *l, crowdsteer_grid *grid,
                       crowdsteer_grid *avoid_grid, step_views *v) {
  const int dims = sc->opts.dims, z = dims == 3;
  float **f = l->f;
  v->batch = (crowdsteer_agents){l->total,           dims,    f[C_PX], f[C_PY],
                                 z ? f[C_PZ] : NULL, f[C_VX], f[C_VY], z ? f[C_VZ] : NULL,
                                 l->u[U_ID]};
  v->output =
      (crowdsteer_agents){l->total,   dims,       l->next[0], l->next[1], l->next[2],
                          l->next[3], l->next[4], l->next[5], NULL};
  v->wander = sc->wander;
  v->wander.direction = (crowdsteer_vectors){f[C_WX], f[C_WY], z ? f[C_WZ] : NULL};
  v->neighbours = sc->neighbours;
  v->neighbours.grid = grid;
  for (size_t s = 0; s < sc->step_desc.behaviour_count; s++) {
    crowdsteer_step_behaviour *b = &v->behaviours[s];
    *b = sc->behaviours[s];
    if (s >= FIRST_GROUP_SLOT &&
        s < SLOT_COUNT) { /* as step_at_once: the markers moved */
      b->target = sc->groups[s - FIRST_GROUP_SLOT].target;
      b->params = sc->groups[s - FIRST_GROUP_SLOT].params;
    }
    localise_target(sc, l, &b->target);
    localise_params(sc, l, &b->params);
    b->weight_per_agent = localise(sc, l, b->weight_per_agent);
    if (b->wander) b->wander = &v->wander;
    if (b->neighbours) b->neighbours = &v->neighbours;
    if (b->field) { /* --navigate's followers: their choices travel with them */
      v->field_follow = *b->field;
      v->field_follow.field_index = l->u[U_FIELD];
      b->field = &v->field_follow;
    }
    if (b->path) {
      v->path_follow = *b->path;
      v->path_follow.path_per_agent = l->u[U_PATH];
      v->path_follow.direction_per_agent = l->f[C_PATH_DIRECTION];
      b->path = &v->path_follow;
    }
  }
  v->desc = sc->step_desc;
  v->desc.behaviours = v->behaviours;
  v->desc.behaviour_mask = l->u[U_MASK];
  localise_params(sc, l, &v->desc.integrator);
  v->desc.output = &v->output;
  v->desc.snapshot = NULL;
  if (sc->step_desc.avoidance) localise_avoidance(sc, l, avoid_grid, v);
}

/* The neighbour grids over the whole batch (separation's; ORCA's, cells as
 * wide as its reach, as the demo builds them), then one crowdsteer_step over
 * the owned agents; their new state replaces the old. */
static crowdsteer_status compute(const scenario *sc, local *l, crowdsteer_grid *grid,
                                 crowdsteer_grid *avoid_grid, counters *n) {
  step_views v;
  make_views(sc, l, grid, avoid_grid, &v);
  crowdsteer_grid *const grids[2] = {grid, avoid_grid};
  const float cells[2] = {sc->opts.separation, sc->avoid_neighbours.radius};
  for (int k = 0; k < 2; k++) {
    if (!grids[k]) continue;
    const crowdsteer_grid_desc desc = {.cell_size = cells[k],
                                       .threads = sc->opts.threads};
    const crowdsteer_status status = crowdsteer_grid_build(grids[k], &v.batch, &desc);
    if (status != CROWDSTEER_OK) return status;
  }
  const crowdsteer_status status = crowdsteer_step(&v.batch, &v.desc, 0, l->own);
  if (status != CROWDSTEER_OK) return status;
  for (int k = 0; k < 6; k++)
    if (k % 3 < sc->opts.dims) memcpy(l->f[C_PX + k], l->next[k], l->own * sizeof(float));
  if (sc->step_desc.avoidance) /* the demo counts its steered agents only */
    for (size_t i = 0; i < l->own; i++) {
      if (l->u[U_ID][i] < DRIVEN_AGENTS) continue;
      n->crowded += (l->report[i] & CROWDSTEER_REPORT_CROWDED) != 0;
      n->walled += (l->report[i] & CROWDSTEER_REPORT_WALL) != 0;
    }
  return CROWDSTEER_OK;
}

/* ---- after the step: the driven agents, then migration ----------------------- */

/* The demo moves agents 0 and 1 itself (place_markers, on every rank's copy
 * of the scenario): their owner takes their new state from there. */
static void drive(local *l, const scenario *sc) {
  float *g[FLOAT_COLUMNS];
  global_columns(sc, g);
  for (size_t i = 0; i < l->own; i++)
    if (l->u[U_ID][i] < DRIVEN_AGENTS)
      for (int c = C_PX; c <= C_VZ; c++)
        if (g[c]) l->f[c][i] = g[c][l->u[U_ID][i]];
}

/* Agents now in another rank's strip move there, with every column. */
static void migrate(local *l, const decomposition *d, counters *n) {
  const int ranks = d->ranks;
  int *send_counts = calloc((size_t)ranks, sizeof(int)),
      *send_at = grow(NULL, (size_t)ranks);
  int *dest = grow(NULL, l->own);
  for (size_t i = 0; i < l->own; i++) {
    dest[i] = owner_of(d, l->f[C_PX][i]);
    send_counts[dest[i]] += dest[i] == d->rank ? 0 : RECORD_WORDS;
  }
  const int words = offsets(send_counts, send_at, ranks);
  uint32_t *out = grow(NULL, (size_t)words);
  int *fill = grow(NULL, (size_t)ranks);
  memcpy(fill, send_at, (size_t)ranks * sizeof(int));
  /* A leaver's place is taken by the last agent (ids make the order
   * irrelevant), so only leavers and the agents filling in move. */
  size_t kept = l->own;
  uint32_t record[RECORD_WORDS];
  for (size_t i = 0; i < kept;) {
    if (dest[i] == d->rank) {
      i++;
      continue;
    }
    pack(l, i, out + fill[dest[i]]);
    fill[dest[i]] += RECORD_WORDS;
    if (--kept != i) {
      pack(l, kept, record);
      unpack(l, i, record);
      dest[i] = dest[kept];
    }
  }
  int incoming = 0;
  uint32_t *in = all_to_all(out, send_counts, send_at, ranks, &incoming);
  l->own = kept;
  reserve(l, kept + (size_t)incoming / RECORD_WORDS);
  for (int w = 0; w < incoming; w += RECORD_WORDS)
    unpack(l, l->own++, in + w);
  l->total = l->own;
  n->migrated += words / RECORD_WORDS;
  n->migration_bytes += 4.0 * words;
  n->messages += 2.0 * (ranks - 1);
  free(send_counts), free(send_at);
  free(dest), free(out), free(fill), free(in);
}

/* ---- the final state, gathered by id ------------------------------------------ */

enum { FINAL_WORDS = 10 }; /* id, position, velocity, wander direction */

/* Rank 0 puts every agent's final state back at its id in its copy of the
 * demo's arrays; returns the number of agents it got each id of exactly
 * once (the crowd's count when nothing was lost or doubled). */
static size_t gather_by_id(const local *l, scenario *sc, const decomposition *d) {
  const int ranks = d->ranks;
  int words = (int)(l->own * FINAL_WORDS);
  uint32_t *mine = grow(NULL, l->own * FINAL_WORDS);
  for (size_t i = 0; i < l->own; i++) {
    mine[i * FINAL_WORDS] = l->u[U_ID][i];
    for (int c = 0; c < FINAL_WORDS - 1; c++)
      memcpy(&mine[i * FINAL_WORDS + 1 + c], &l->f[C_PX + c][i], 4);
  }
  int *counts = grow(NULL, (size_t)ranks), *at = grow(NULL, (size_t)ranks);
  MPI_Gather(&words, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
  const int total = d->rank == 0 ? offsets(counts, at, ranks) : 0; /* root's counts */
  uint32_t *all = grow(NULL, (size_t)total);
  MPI_Gatherv(mine, words, MPI_UINT32_T, all, counts, at, MPI_UINT32_T, 0,
              MPI_COMM_WORLD);
  size_t distinct = 0;
  if (d->rank == 0) {
    float *g[FLOAT_COLUMNS];
    global_columns(sc, g);
    unsigned char *seen = calloc(sc->agents.count, 1);
    for (int w = 0; seen && w < total; w += FINAL_WORDS) {
      const uint32_t id = all[w];
      if (id >= sc->agents.count || seen[id]++) continue;
      distinct++;
      for (int c = 0; c < FINAL_WORDS - 1; c++)
        if (g[C_PX + c]) memcpy(&g[C_PX + c][id], &all[w + 1 + c], 4);
    }
    for (size_t id = 0; seen && id < sc->agents.count; id++)
      distinct -= seen[id] > 1;
    free(seen);
  }
  free(mine), free(counts), free(at), free(all);
  return distinct;
}

/* ---- options, report, main ------------------------------------------------------ */

/* Takes this program's own option (--strip W) out of argv; the rest are the
 * demo's. Returns 0, or 2 for a bad value. */
static int take_strip_option(int *argc, char **argv, double *width) {
  int kept = 1;
  for (int i = 1; i < *argc; i++) {
    const char *value = NULL;
    if (strcmp(argv[i], "--strip") == 0 && i + 1 < *argc)
      value = argv[++i];
    else if (strncmp(argv[i], "--strip=", 8) == 0)
      value = argv[i] + 8;
    if (!value) {
      argv[kept++] = argv[i];
      continue;
    }
    char *end = NULL;
    *width = strtod(value, &end);
    if (*value == '\0' || *end != '\0' || !(*width > 0.0 && *width < 1e30)) {
      fprintf(stderr, "crowdsteer-mpi: --strip needs a width > 0: %s\n", value);
      return EXIT_USAGE;
    }
  }
  *argc = kept;
  return 0;
}

/* The farthest any agent looks at another: separation's radius, and ORCA's
 * reach with --avoid on or only (the demo's own float product, demo.h). */
static double neighbour_reach(const demo_options *o) {
  const float avoid = o->avoid != AVOID_OFF ? AVOID_REACH * o->body_radius : 0.0f;
  return fmax((double)o->separation, (double)avoid);
}

/* Every option of the demo but those that change what is computed here
 * (separate calls and pictures are the demo's own). */
static int check_options(const demo_options *o, const decomposition *d) {
  if (o->mode != MODE_STEP || o->pictures_dir) {
    fprintf(stderr, "crowdsteer-mpi: --mode separate and --pictures are the demo's "
                    "only\n");
    return EXIT_USAGE;
  }
  if (d->ranks > 1 && d->ghost > 0.0 && !(d->width > 2.0 * d->ghost)) {
    fprintf(stderr,
            "crowdsteer-mpi: strips (%g wide) must be wider than twice the ghost "
            "depth (%g, twice the separation radius or ORCA's reach, the larger)\n",
            d->width, d->ghost);
    return EXIT_USAGE;
  }
  return 0;
}

static void report(const counters *n, const decomposition *d, unsigned steps,
                   int avoiding) {
  double max[TIMERS], sum[TIMERS], totals[10],
      mine[10] = {n->ghosts,      n->fetched,     n->migrated,        n->own,
                  n->ghost_bytes, n->fetch_bytes, n->migration_bytes, n->messages,
                  n->crowded,     n->walled};
  MPI_Reduce(n->seconds, max, TIMERS, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(n->seconds, sum, TIMERS, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(mine, totals, 10, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (d->rank != 0) return;
  const double per = 1.0 / ((double)steps * d->ranks); /* per rank and step */
  printf("\ntime per step, mean over ranks (max rank), ms:\n");
  double all = 0.0;
  for (int t = 0; t < TIMERS; t++)
    all += sum[t];
  for (int t = 0; t < TIMERS; t++)
    printf("  %-22s %9.3f (%9.3f)  %5.1f%%\n", timer_names[t], 1e3 * sum[t] * per,
           1e3 * max[t] / steps, 100.0 * sum[t] / all);
  printf("per rank and step: %.0f owned agents, %.1f ghosts (%.3f%% of owned), %.2f "
         "targets fetched, %.2f agents migrated out\n",
         totals[3] * per, totals[0] * per, 100.0 * totals[0] / totals[3], totals[1] * per,
         totals[2] * per);
  printf("per rank and step: %.0f bytes of ghosts, %.0f of targets, %.0f of migrants, "
         "%.1f messages (collectives counted as ranks - 1 each)\n",
         totals[4] * per, totals[5] * per, totals[6] * per, totals[7] * per);
  /* The demo's words, so that the test compares the step's other output. */
  if (avoiding)
    printf("avoidance whole run: %.0f crowded and %.0f wall agent-steps\n", totals[8],
           totals[9]);
}

/* The behaviours whose targets are other agents (by index, here by id). */
static uint32_t agent_target_bits(const scenario *sc) {
  uint32_t bits = 0;
  for (int g = 0; g < GROUP_COUNT; g++)
    if (sc->groups[g].target.kind == CROWDSTEER_TARGET_AGENTS) bits |= group_bit(g);
  return bits;
}

/* Adds the time since `since` to timer k; returns now. */
static double lap(counters *n, int k, double since) {
  const double now = MPI_Wtime();
  n->seconds[k] += now - since;
  return now;
}

static void wait_for_all(counters *n) {
  const double start = MPI_Wtime();
  MPI_Barrier(MPI_COMM_WORLD);
  n->seconds[T_WAIT] += MPI_Wtime() - start;
}

/* The demo's steps, distributed; 0 when every step succeeded. */
static int run_steps(scenario *sc, local *l, const decomposition *d, counters *n) {
  crowdsteer_grid *grid = NULL, *avoid_grid = NULL;
  if (sc->opts.separation > 0.0f && crowdsteer_grid_create(&grid) != CROWDSTEER_OK)
    return 1;
  if (sc->avoidance.neighbours && crowdsteer_grid_create(&avoid_grid) != CROWDSTEER_OK)
    return 1;
  crowdsteer_id_index *batch = NULL, *owned = NULL;
  if (crowdsteer_id_index_create(&batch) != CROWDSTEER_OK ||
      crowdsteer_id_index_create(&owned) != CROWDSTEER_OK)
    return 1;
  const uint32_t bits = agent_target_bits(sc);
  int failed = 0;
  for (unsigned s = 0; s < sc->opts.steps; s++) {
    wait_for_all(n);
    double t = MPI_Wtime();
    exchange_ghosts(l, d, n);
    lap(n, T_GHOSTS, t);
    wait_for_all(n);
    t = MPI_Wtime();
    fetch_targets(l, batch, owned, bits, d->ranks, n);
    t = lap(n, T_TARGETS, t);
    n->own += (double)l->own;
    const crowdsteer_status status = compute(sc, l, grid, avoid_grid, n);
    if (status != CROWDSTEER_OK) {
      fprintf(stderr, "crowdsteer-mpi: rank %d, step %u: %s\n", d->rank, s,
              crowdsteer_status_string(status));
      failed = 1;
    }
    t = lap(n, T_COMPUTE, t);
    int any = failed;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any) {
      failed = 1;
      break;
    }
    t = lap(n, T_WAIT, t);
    sc->wander.tick++; /* global, as every parameter */
    sc->step++;
    place_markers(sc);
    drive(l, sc);
    migrate(l, d, n);
    lap(n, T_MIGRATION, t);
  }
  crowdsteer_id_index_destroy(batch);
  crowdsteer_id_index_destroy(owned);
  crowdsteer_grid_destroy(grid);
  crowdsteer_grid_destroy(avoid_grid);
  return failed;
}

/* Options, the demo's scenario on every rank (setup is cheap next to the
 * steps), and this rank's share of it; 0 on success, else an exit code. */
static int setup(int argc, char **argv, scenario *sc, local *l, decomposition *d) {
  demo_options opts;
  int code = take_strip_option(&argc, argv, &d->width);
  if (code) return code;
  code = parse_options(argc, argv, &opts);
  if (code >= 0) return code ? code : -1; /* -1: --help, done */
  if (d->width == 0.0) d->width = 2.0 * WORLD_HALF_SIZE / d->ranks;
  d->ghost = 2.0 * neighbour_reach(&opts);
  code = check_options(&opts, d);
  if (!code) code = choose_isa(opts.isa_name);
  if (code) return code;
  if (scenario_setup(sc, &opts) != 0) MPI_Abort(MPI_COMM_WORLD, 1); /* this rank only */
  float *g[FLOAT_COLUMNS];
  global_columns(sc, g);
  for (size_t i = 0; i < sc->agents.count; i++)
    if (owner_of(d, sc->agents.px[i]) == d->rank) adopt(l, sc, g, (uint32_t)i);
  if (d->rank == 0) {
    printf("crowdsteer %s mpi demo: %zu agents (%d driven), %dD, %u steps, seed %" PRIu32
           ", %d ranks, strips %g wide along x (round-robin), ghost depth %g\n",
           crowdsteer_version_string(), opts.agents, DRIVEN_AGENTS, opts.dims, opts.steps,
           opts.seed, d->ranks, d->width, d->ghost);
    print_supported_isas();
    print_mode(sc);
  }
  return 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  decomposition d = {0};
  MPI_Comm_rank(MPI_COMM_WORLD, &d.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &d.ranks);
  scenario sc;
  local l;
  memset(&l, 0, sizeof l);
  int code = setup(argc, argv, &sc, &l, &d);
  if (code != 0) {
    MPI_Finalize();
    return code < 0 ? 0 : code;
  }
  counters n;
  memset(&n, 0, sizeof n);
  const double start = MPI_Wtime();
  code = run_steps(&sc, &l, &d, &n);
  const double wall = MPI_Wtime() - start;
  const size_t distinct = gather_by_id(&l, &sc, &d);
  report(&n, &d, sc.opts.steps, sc.step_desc.avoidance != NULL);
  if (d.rank == 0 && !code) {
    size_t non_finite = 0;
    float *g[FLOAT_COLUMNS];
    global_columns(&sc, g);
    for (int c = C_PX; c <= C_WZ; c++)
      non_finite += count_non_finite(g[c], sc.agents.count);
    printf("%.2f s wall for the whole loop\n", wall);
    printf("  agents gathered by id: %zu of %zu\n", distinct, sc.agents.count);
    printf("  state hash: %016" PRIx64 " (gathered by id from %d ranks)\n",
           state_hash(&sc), d.ranks);
    printf("  NaN/inf values in the state: %zu\n", non_finite);
    code = distinct == sc.agents.count && non_finite == 0 ? 0 : 1;
  }
  MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
  scenario_free(&sc);
  local_free(&l);
  MPI_Finalize();
  return code;
}
