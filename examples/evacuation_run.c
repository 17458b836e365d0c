/* crowdsteer-evacuation's run: the crowd placed in its rooms, one step
 * (grid, field following, ORCA and walls, agents leaving), the independent
 * walls-crossed check, and the printed figures. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../util/splitmix64.h"
#include "crossing.h"
#include "evacuation.h"
#include "evacuation_steer.h"
#include "spacing.h"

/* ---- walls crossed, checked without the library ------------------------------
 * Every wall is filed in the cells of a coarse grid it passes through; a
 * move is tested against the walls of the cells its bounding box covers. */

enum { CHECK_CELL = 4 };

typedef struct wall_check {
  plan_rect *walls;
  size_t wall_count;
  int cols, rows;
  size_t *start; /* cols * rows + 1 offsets into ids */
  uint32_t *ids;
} wall_check;

static int cell_coord(float v, int n) {
  int c = (int)floorf((v + (float)CHECK_CELL) / (float)CHECK_CELL);
  return c < 0 ? 0 : (c >= n ? n - 1 : c);
}

static wall_check *wall_check_new(const floor_plan *p) {
  wall_check *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  w->wall_count = plan_walls(p, NULL, 0);
  w->walls = malloc(w->wall_count * sizeof *w->walls);
  w->cols = (int)(plan_width(p) / CHECK_CELL) + 3;
  w->rows = (int)(plan_height(p) / CHECK_CELL) + 3;
  size_t cells = (size_t)w->cols * (size_t)w->rows;
  w->start = calloc(cells + 1, sizeof *w->start);
  if (!w->walls || !w->start) goto fail;
  plan_walls(p, w->walls, w->wall_count);
  /* Two passes: count each cell's walls, then file them. */
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 1) {
      for (size_t c = 0; c < cells; c++)
        w->start[c + 1] += w->start[c];
      w->ids = malloc((w->start[cells] ? w->start[cells] : 1) * sizeof *w->ids);
      if (!w->ids) goto fail;
    }
    for (size_t k = 0; k < w->wall_count; k++) {
      const plan_rect r = w->walls[k];
      int c0 = cell_coord(fminf(r.x0, r.x1), w->cols),
          c1 = cell_coord(fmaxf(r.x0, r.x1), w->cols);
      int r0 = cell_coord(fminf(r.y0, r.y1), w->rows),
          r1 = cell_coord(fmaxf(r.y0, r.y1), w->rows);
      for (int row = r0; row <= r1; row++)
        for (int col = c0; col <= c1; col++) {
          size_t c = (size_t)row * (size_t)w->cols + (size_t)col;
          if (pass == 0)
            w->start[c + 1]++;
          else
            w->ids[w->start[c]++] = (uint32_t)k;
        }
    }
    if (pass == 1) /* filing advanced each start to the next cell's: shift back */
      for (size_t c = cells; c > 0; c--)
        w->start[c] = w->start[c - 1];
    if (pass == 1) w->start[0] = 0;
  }
  return w;
fail:
  free(w->walls), free(w->start), free(w->ids), free(w);
  return NULL;
}

static void wall_check_free(wall_check *w) {
  if (w) free(w->walls), free(w->start), free(w->ids), free(w);
}

/* Whether the move from (x0, y0) to (x1, y1) passes through a wall near
 * it (crossing.h). */
static int crosses_wall(const wall_check *w, float x0, float y0, float x1, float y1) {
  int c0 = cell_coord(fminf(x0, x1), w->cols), c1 = cell_coord(fmaxf(x0, x1), w->cols);
  int r0 = cell_coord(fminf(y0, y1), w->rows), r1 = cell_coord(fmaxf(y0, y1), w->rows);
  for (int row = r0; row <= r1; row++)
    for (int col = c0; col <= c1; col++) {
      size_t c = (size_t)row * (size_t)w->cols + (size_t)col;
      for (size_t k = w->start[c]; k < w->start[c + 1]; k++) {
        const plan_rect s = w->walls[w->ids[k]];
        if (move_crosses_wall(s.x0, s.y0, s.x1, s.y1, x0, y0, x1, y1)) return 1;
      }
    }
  return 0;
}

/* ---- setup ---------------------------------------------------------------- */

/* The start's small jitter and the run hash, the same on every machine. */
static uint64_t mix(uint64_t x) { return splitmix64_next(&x); }
static float jitter(uint64_t key) {
  return (float)((double)(mix(key) >> 40) / 16777216.0 - 0.5) * 0.2f * EVAC_SPACING;
}

enum { PER_SIDE = (int)(10.0f / EVAC_SPACING), PER_ROOM = PER_SIDE * PER_SIDE };

static void place_agents(evacuation *ev) {
  for (size_t i = 0; i < ev->total; i++) {
    plan_rect room = plan_room(&ev->plan, i / PER_ROOM);
    int m = (int)(i % PER_ROOM), row = m / PER_SIDE, col = m % PER_SIDE;
    ev->agents.px[i] = room.x0 + EVAC_SPACING * (0.5f + (float)col) + jitter(2 * i);
    ev->agents.py[i] = room.y0 + EVAC_SPACING * (0.5f + (float)row) + jitter(2 * i + 1);
    ev->agents.vx[i] = ev->agents.vy[i] = 0.0f;
    ev->id[i] = (uint32_t)i;
  }
}

int evac_setup(evacuation *ev, const evac_options *opts) {
  memset(ev, 0, sizeof *ev);
  ev->opts = *opts;
  ev->total = opts->agents;
  ev->plan = floor_plan_for_rooms((opts->agents + PER_ROOM - 1) / PER_ROOM);
  const size_t n = ev->total, exits = plan_exit_count(&ev->plan);
  float **arrays[] = {&ev->agents.px, &ev->agents.py, &ev->agents.vx,
                      &ev->agents.vy, &ev->before_x,  &ev->before_y};
  for (size_t k = 0; k < sizeof arrays / sizeof *arrays; k++)
    if (!(*arrays[k] = malloc(n * sizeof(float)))) goto oom;
  ev->id = malloc(n * sizeof *ev->id);
  ev->report = malloc(n * sizeof *ev->report);
  ev->left_by_exit = calloc(exits, sizeof(size_t));
  ev->first_out = calloc(exits, sizeof(size_t));
  ev->last_out = calloc(exits, sizeof(size_t));
  ev->walls = wall_check_new(&ev->plan);
  if (!ev->id || !ev->report || !ev->left_by_exit || !ev->first_out || !ev->last_out ||
      !ev->walls)
    goto oom;
  ev->agents.count = n;
  ev->agents.dims = 2;
  ev->agents.id = ev->id;
  place_agents(ev);
  crowdsteer_status st = plan_obstacles(&ev->plan, &ev->obstacles);
  if (st == CROWDSTEER_OK) st = crowdsteer_grid_create(&ev->grid);
  if (st == CROWDSTEER_OK) st = crowdsteer_workspace_create(&ev->workspace);
  if (st == CROWDSTEER_OK) st = evac_steer_setup(ev);
  if (st != CROWDSTEER_OK) {
    fprintf(stderr, "crowdsteer-evacuation: setup: %s\n", crowdsteer_status_string(st));
    return 1;
  }
  return 0;
oom:
  fputs("crowdsteer-evacuation: out of memory\n", stderr);
  return 1;
}

void evac_free(evacuation *ev) {
  free(ev->agents.px), free(ev->agents.py), free(ev->agents.vx), free(ev->agents.vy);
  free(ev->before_x), free(ev->before_y), free(ev->id), free(ev->report);
  free(ev->left_by_exit), free(ev->first_out), free(ev->last_out);
  wall_check_free(ev->walls);
  evac_steer_free(ev);
  crowdsteer_obstacles_destroy(ev->obstacles);
  crowdsteer_grid_destroy(ev->grid);
  crowdsteer_workspace_destroy(ev->workspace);
  memset(ev, 0, sizeof *ev);
}

/* ---- a step ---------------------------------------------------------------- */

/* Agent i leaves the batch: the last one takes its place (it keeps its id,
 * so its results do not change). */
static void remove_agent(evacuation *ev, size_t i) {
  size_t last = --ev->agents.count;
  ev->agents.px[i] = ev->agents.px[last];
  ev->agents.py[i] = ev->agents.py[last];
  ev->agents.vx[i] = ev->agents.vx[last];
  ev->agents.vy[i] = ev->agents.vy[last];
  ev->id[i] = ev->id[last];
  ev->report[i] = ev->report[last];
  ev->before_x[i] = ev->before_x[last];
  ev->before_y[i] = ev->before_y[last];
}

static void tally_and_remove(evacuation *ev) {
  const float width = plan_width(&ev->plan), height = plan_height(&ev->plan);
  for (size_t i = 0; i < ev->agents.count;) {
    const float x = ev->agents.px[i], y = ev->agents.py[i];
    uint32_t r = ev->report[i];
    ev->wall_contacts += (r & CROWDSTEER_REPORT_WALL) != 0;
    ev->inside_obstacles += (r & CROWDSTEER_REPORT_INSIDE) != 0;
    ev->crowded += (r & CROWDSTEER_REPORT_CROWDED) != 0;
    ev->walls_crossed +=
        (size_t)crosses_wall(ev->walls, ev->before_x[i], ev->before_y[i], x, y);
    if (x >= 0.0f && x <= width && y >= 0.0f && y <= height) {
      i++;
      continue;
    }
    size_t e = plan_exit_of(&ev->plan, x, y);
    uint32_t bx, by;
    memcpy(&bx, &x, sizeof bx);
    memcpy(&by, &y, sizeof by);
    ev->out_hash += mix(mix(mix((uint64_t)ev->id[i] << 32 | ev->step) ^ bx) ^ by);
    if (ev->left_by_exit[e]++ == 0) ev->first_out[e] = ev->step;
    ev->last_out[e] = ev->step;
    remove_agent(ev, i);
  }
  if (ev->agents.count == 0 && ev->all_out_step == 0) ev->all_out_step = ev->step;
}

int evac_step(evacuation *ev) {
  const size_t n = ev->agents.count;
  memcpy(ev->before_x, ev->agents.px, n * sizeof(float));
  memcpy(ev->before_y, ev->agents.py, n * sizeof(float));
  crowdsteer_grid_desc gd = {.cell_size = EVAC_REACH, .threads = ev->opts.threads};
  crowdsteer_status st = crowdsteer_grid_build(ev->grid, &ev->agents, &gd);
  crowdsteer_neighbours nb = {
      .grid = ev->grid, .radius = EVAC_REACH, .max_neighbours = EVAC_NEIGHBOURS};
  crowdsteer_avoidance avoid = {.radius = EVAC_RADIUS,
                                .time_horizon = EVAC_TIME_HORIZON,
                                .obstacle_time_horizon = EVAC_OBSTACLE_TIME_HORIZON,
                                .neighbours = &nb,
                                .obstacles = ev->obstacles,
                                .report = ev->report};
  crowdsteer_step_behaviour follow;
  evac_steer_behaviour(ev, &follow);
  crowdsteer_step_desc desc = {.behaviours = &follow,
                               .behaviour_count = 1,
                               .integrator = {.max_speed = EVAC_SPEED,
                                              .max_force = 2.0f * EVAC_SPEED / EVAC_DT,
                                              .dt = EVAC_DT},
                               .threads = ev->opts.threads,
                               .workspace = ev->workspace,
                               .avoidance = &avoid};
  if (st == CROWDSTEER_OK) st = crowdsteer_step(&ev->agents, &desc, 0, n);
  if (st != CROWDSTEER_OK) {
    fprintf(stderr, "crowdsteer-evacuation: step %zu: %s\n", ev->step,
            crowdsteer_status_string(st));
    return 1;
  }
  ev->step++;
  tally_and_remove(ev);
  return 0;
}

double evac_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ---- figures ------------------------------------------------------------------ */

uint64_t evac_hash(const evacuation *ev) {
  /* A sum of per-agent hashes: the same whatever order the agents are in. */
  uint64_t sum = 0;
  for (size_t i = 0; i < ev->agents.count; i++) {
    float v[4] = {ev->agents.px[i], ev->agents.py[i], ev->agents.vx[i], ev->agents.vy[i]};
    uint64_t h = mix(ev->id[i]);
    for (int k = 0; k < 4; k++) {
      uint32_t bits;
      memcpy(&bits, &v[k], sizeof bits);
      h = mix(h ^ bits);
    }
    sum += h;
  }
  return sum + ev->out_hash;
}

void evac_print_setup(const evacuation *ev) {
  const floor_plan *p = &ev->plan;
  printf("crowdsteer-evacuation: %zu agents (radius %.2f m, %.2f m/s, steps of %.1f s), "
         "ISA %s\n",
         ev->total, (double)EVAC_RADIUS, (double)EVAC_SPEED, (double)EVAC_DT,
         crowdsteer_isa_name(crowdsteer_active_isa()));
  printf("  building %.0f x %.0f m: %zu rooms of %.0f m (%d rows of %d), doors %.1f m, "
         "corridors and %zu exits %.1f m wide, %zu walls\n",
         (double)plan_width(p), (double)plan_height(p), plan_room_count(p),
         (double)p->room, p->bands * 2, p->rooms_x, (double)p->door, plan_exit_count(p),
         (double)p->corridor, plan_walls(p, NULL, 0));
  evac_steer_print(ev);
}

void evac_print_progress(evacuation *ev) {
  spacing_figures f = {0};
  size_t overlaps = 0;
  if (ev->agents.count >= 2 &&
      spacing_measure2(&ev->agents, 0, ev->agents.count, 2.0 * EVAC_RADIUS,
                       2.0 * EVAC_RADIUS, &f) == 0)
    overlaps = f.close_pairs;
  if (overlaps > ev->max_overlaps) ev->max_overlaps = overlaps;
  printf("  step %6zu (%7.1f s): %8zu inside, %8zu out, overlapping pairs %zu, "
         "walls crossed %zu\n",
         ev->step, (double)ev->step * EVAC_DT, ev->agents.count,
         ev->total - ev->agents.count, overlaps, ev->walls_crossed);
  fflush(stdout);
}

void evac_print_summary(const evacuation *ev, double seconds) {
  const floor_plan *p = &ev->plan;
  const size_t exits = plan_exit_count(p);
  if (ev->all_out_step)
    printf("  evacuation time: %.1f s (%zu steps)\n", (double)ev->all_out_step * EVAC_DT,
           ev->all_out_step);
  else
    printf("  evacuation time: not over after %.1f s (%zu steps): %zu of %zu inside\n",
           (double)ev->step * EVAC_DT, ev->step, ev->agents.count, ev->total);
  for (size_t i = 0; ev->agents.count <= 5 && i < ev->agents.count; i++)
    printf("    still inside: agent %" PRIu32
           " at (%.3f, %.3f) v (%.3g, %.3g) report %u\n",
           ev->id[i], (double)ev->agents.px[i], (double)ev->agents.py[i],
           (double)ev->agents.vx[i], (double)ev->agents.vy[i], ev->report[i]);
  /* Flow per exit over the time it was in use (first to last agent out). */
  double flow_sum = 0.0;
  size_t used = 0, busiest = 0;
  for (size_t e = 0; e < exits; e++) {
    if (!ev->left_by_exit[e]) continue;
    used++;
    double span = (double)(ev->last_out[e] - ev->first_out[e] + 1) * EVAC_DT;
    flow_sum += (double)ev->left_by_exit[e] / span;
    if (ev->left_by_exit[e] > ev->left_by_exit[busiest]) busiest = e;
  }
  printf("  exits used: %zu of %zu; mean flow per exit %.2f persons/s (%.2f per metre)\n",
         used, exits, used ? flow_sum / (double)used : 0.0,
         used ? flow_sum / (double)used / (double)p->corridor : 0.0);
  printf("  flow per exit (agents out; persons/s while in use):");
  for (size_t e = 0, shown = 0; e < exits; e++) {
    if (!ev->left_by_exit[e]) continue;
    double span = (double)(ev->last_out[e] - ev->first_out[e] + 1) * EVAC_DT;
    printf("%s %zu:%zu;%.2f", shown++ % 6 ? "" : "\n   ", e, ev->left_by_exit[e],
           (double)ev->left_by_exit[e] / span);
  }
  printf("\n  busiest exit %zu: %zu agents\n", busiest, ev->left_by_exit[busiest]);
  printf("  walls crossed: %zu (checked apart from the library; the step stopped or slid "
         "%zu moves at a wall)\n",
         ev->walls_crossed, ev->wall_contacts);
  printf("  agent-steps inside an obstacle: %zu; crowded (no velocity clear of every "
         "neighbour): %zu\n",
         ev->inside_obstacles, ev->crowded);
  printf("  most overlapping pairs at a report: %zu\n", ev->max_overlaps);
  printf("  %zu steps in %.2f s: %.2f steps/s\n", ev->step, seconds,
         seconds > 0.0 ? (double)ev->step / seconds : 0.0);
  printf("  state hash: %016" PRIx64 "\n", evac_hash(ev));
}
