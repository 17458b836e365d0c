/* The evacuation's floor plan: where the rooms, doors, corridors and exits
 * are, and the wall segments that make them (floor_plan.h). */
#include "floor_plan.h"

#include <math.h>
#include <stdlib.h>

static int plan_blocks(const floor_plan *p) {
  return (p->rooms_x + p->block - 1) / p->block;
}
static float band_height(const floor_plan *p) { return 2.0f * p->room + p->corridor; }
/* West edge of block b and the rooms it holds. */
static float block_x(const floor_plan *p, int b) {
  return (float)b * ((float)p->block * p->room + p->corridor);
}
static int block_rooms(const floor_plan *p, int b) {
  int left = p->rooms_x - b * p->block;
  return left < p->block ? left : p->block;
}

floor_plan floor_plan_for_rooms(size_t rooms) {
  floor_plan p = {.block = 8, .room = 10.0f, .corridor = 4.0f, .door = 1.6f};
  /* A square building: rooms_x * 10.5 m wide is about bands * 24 m high,
   * and there are 2 * bands * rooms_x rooms. */
  double bands = ceil(sqrt((double)(rooms ? rooms : 1) / 4.57));
  p.bands = (int)bands;
  p.rooms_x = (int)ceil((double)(rooms ? rooms : 1) / (2.0 * bands));
  return p;
}

size_t plan_room_count(const floor_plan *p) {
  return 2u * (size_t)p->bands * (size_t)p->rooms_x;
}
float plan_width(const floor_plan *p) {
  return (float)p->rooms_x * p->room + (float)(plan_blocks(p) - 1) * p->corridor;
}
float plan_height(const floor_plan *p) { return (float)p->bands * band_height(p); }

plan_rect plan_room(const floor_plan *p, size_t k) {
  int row = (int)(k / (size_t)p->rooms_x), j = (int)(k % (size_t)p->rooms_x);
  int band = row / 2, upper = row % 2;
  float x0 = block_x(p, j / p->block) + (float)(j % p->block) * p->room;
  float y0 = (float)band * band_height(p) + (upper ? p->room + p->corridor : 0.0f);
  return (plan_rect){x0, y0, x0 + p->room, y0 + p->room};
}

size_t plan_exit_count(const floor_plan *p) {
  return 2u * (size_t)p->bands + 2u * (size_t)(plan_blocks(p) - 1);
}

plan_rect plan_exit(const floor_plan *p, size_t k) {
  if (k < 2u * (size_t)p->bands) {
    float x = (k % 2) ? plan_width(p) : 0.0f;
    float y0 = (float)(k / 2) * band_height(p) + p->room;
    return (plan_rect){x, y0, x, y0 + p->corridor};
  }
  size_t m = k - 2u * (size_t)p->bands;
  float x1 = block_x(p, (int)(m / 2) + 1);
  float y = (m % 2) ? plan_height(p) : 0.0f;
  return (plan_rect){x1 - p->corridor, y, x1, y};
}

/* Squared distance from (x, y) to a zero-width rectangle (a segment). */
static double to_opening(plan_rect r, float x, float y) {
  double cx = x < r.x0 ? r.x0 : (x > r.x1 ? r.x1 : x);
  double cy = y < r.y0 ? r.y0 : (y > r.y1 ? r.y1 : y);
  return (x - cx) * (x - cx) + (y - cy) * (y - cy);
}

size_t plan_exit_of(const floor_plan *p, float x, float y) {
  size_t best = 0;
  double best_d = INFINITY;
  for (size_t k = 0; k < plan_exit_count(p); k++) {
    double d = to_opening(plan_exit(p, k), x, y);
    if (d < best_d) best_d = d, best = k;
  }
  return best;
}

/* Appends a wall unless it has no length. */
typedef struct wall_list {
  plan_rect *walls;
  size_t cap, count;
} wall_list;
static void add_wall(wall_list *w, float x0, float y0, float x1, float y1) {
  if (x0 == x1 && y0 == y1) return;
  if (w->count < w->cap) w->walls[w->count] = (plan_rect){x0, y0, x1, y1};
  w->count++;
}

/* A horizontal wall from x0 to x1 at y with the given openings (sorted,
 * inside [x0, x1]) left out. */
static void wall_with_gaps(wall_list *w, float x0, float x1, float y, const float *gap_lo,
                           const float *gap_hi, int gaps) {
  float start = x0;
  for (int g = 0; g < gaps; g++) {
    add_wall(w, start, y, gap_lo[g], y);
    start = gap_hi[g];
  }
  add_wall(w, start, y, x1, y);
}

static void outer_walls(const floor_plan *p, wall_list *w) {
  const float width = plan_width(p), height = plan_height(p);
  /* South and north: openings at the vertical corridors. */
  for (int side = 0; side < 2; side++) {
    float y = side ? height : 0.0f, start = 0.0f;
    for (int b = 1; b < plan_blocks(p); b++) {
      add_wall(w, start, y, block_x(p, b) - p->corridor, y);
      start = block_x(p, b);
    }
    add_wall(w, start, y, width, y);
  }
  /* West and east: openings at the bands' corridors. */
  for (int side = 0; side < 2; side++) {
    float x = side ? width : 0.0f, start = 0.0f;
    for (int band = 0; band < p->bands; band++) {
      float y0 = (float)band * band_height(p) + p->room;
      add_wall(w, x, start, x, y0);
      start = y0 + p->corridor;
    }
    add_wall(w, x, start, x, height);
  }
}

/* One block's walls in one band: the wall between this band and the one
 * below, both corridor-side walls with their doors, and the partitions. */
static void block_walls(const floor_plan *p, wall_list *w, int band, int b) {
  enum { MAX_BLOCK = 64 };
  const float x0 = block_x(p, b), base = (float)band * band_height(p);
  const int rooms = block_rooms(p, b);
  const float x1 = x0 + (float)rooms * p->room;
  if (band > 0) add_wall(w, x0, base, x1, base);
  float lo[MAX_BLOCK] = {0}, hi[MAX_BLOCK] = {0};
  for (int j = 0; j < rooms && j < MAX_BLOCK; j++) {
    float centre = x0 + ((float)j + 0.5f) * p->room;
    lo[j] = centre - 0.5f * p->door;
    hi[j] = centre + 0.5f * p->door;
  }
  int gaps = rooms < MAX_BLOCK ? rooms : MAX_BLOCK;
  wall_with_gaps(w, x0, x1, base + p->room, lo, hi, gaps);
  wall_with_gaps(w, x0, x1, base + p->room + p->corridor, lo, hi, gaps);
  const int last_block = b == plan_blocks(p) - 1;
  for (int j = 0; j <= rooms; j++) {
    if ((b == 0 && j == 0) || (last_block && j == rooms)) continue; /* the outer wall */
    float x = x0 + (float)j * p->room;
    add_wall(w, x, base, x, base + p->room);
    add_wall(w, x, base + p->room + p->corridor, x, base + band_height(p));
  }
}

size_t plan_walls(const floor_plan *p, plan_rect *walls, size_t cap) {
  wall_list w = {walls, cap, 0};
  outer_walls(p, &w);
  for (int band = 0; band < p->bands; band++)
    for (int b = 0; b < plan_blocks(p); b++)
      block_walls(p, &w, band, b);
  return w.count;
}

crowdsteer_status plan_obstacles(const floor_plan *p, crowdsteer_obstacles **out) {
  *out = NULL;
  size_t count = plan_walls(p, NULL, 0);
  plan_rect *walls = malloc(count * sizeof *walls);
  crowdsteer_obstacles *set = NULL;
  crowdsteer_status st =
      walls ? crowdsteer_obstacles_create(&set) : CROWDSTEER_ERROR_OUT_OF_MEMORY;
  if (st == CROWDSTEER_OK) plan_walls(p, walls, count);
  for (size_t k = 0; st == CROWDSTEER_OK && k < count; k++) {
    float x[2] = {walls[k].x0, walls[k].x1}, y[2] = {walls[k].y0, walls[k].y1};
    st = crowdsteer_obstacles_add(set, x, y, 2);
  }
  if (st == CROWDSTEER_OK) st = crowdsteer_obstacles_build(set, 0.0f);
  free(walls);
  if (st != CROWDSTEER_OK) {
    crowdsteer_obstacles_destroy(set);
    return st;
  }
  *out = set;
  return CROWDSTEER_OK;
}
