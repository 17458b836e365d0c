/* Avoidance as the last stage of crowdsteer_step: bit for bit the
 * composition (a step without it gives the preferred velocities, then
 * crowdsteer_avoid on the state before the step, then p + v dt) for any
 * threads, tiles, in place or not, 2D with obstacles and 3D; and the walls
 * hold: a crowd seeking goals behind walls, in corners and through a
 * doorway never moves a centre across an edge (checked exactly over every
 * edge), and an agent inside a pillar stays put. */
#include "../common/check.h"
#include "avoid/exact.h"

enum { N = 1500 };

typedef struct state {
  float p[3][N], v[3][N];
} state;

static crowdsteer_agents agents_of(state *s, size_t n, int dims, const uint32_t *id) {
  crowdsteer_agents a = {n,
                         dims,
                         s->p[0],
                         s->p[1],
                         dims == 3 ? s->p[2] : NULL,
                         s->v[0],
                         s->v[1],
                         dims == 3 ? s->v[2] : NULL,
                         id};
  return a;
}

static uint32_t lcg(uint32_t *x) {
  *x = *x * 1664525u + 1013904223u;
  return *x >> 8;
}
static float uniform(uint32_t *x, float lo, float hi) {
  return lo + (hi - lo) * (float)lcg(x) / 16777216.0f;
}

/* A room 0..60 x 0..40 of walls with a doorway in a middle wall, and pillars. */
static crowdsteer_obstacles *make_world(void) {
  crowdsteer_obstacles *o = NULL;
  CHECK_STATUS(crowdsteer_obstacles_create(&o), CROWDSTEER_OK);
  const float walls[][4] = {{0, 0, 60, 0}, {60, 0, 60, 40}, {60, 40, 0, 40},
                            {0, 40, 0, 0}, {30, 0, 30, 18}, {30, 22, 30, 40}};
  for (size_t w = 0; w < sizeof walls / sizeof walls[0]; w++) {
    const float x[2] = {walls[w][0], walls[w][2]}, y[2] = {walls[w][1], walls[w][3]};
    CHECK_STATUS(crowdsteer_obstacles_add(o, x, y, 2), CROWDSTEER_OK);
  }
  for (int k = 0; k < 4; k++) {
    const float cx = 10.0f + 12.0f * (float)k, cy = k % 2 ? 12.0f : 28.0f;
    const float x[4] = {cx - 2, cx + 2, cx + 2, cx - 2},
                y[4] = {cy - 2, cy - 2, cy + 2, cy + 2};
    CHECK_STATUS(crowdsteer_obstacles_add(o, x, y, 4), CROWDSTEER_OK);
  }
  /* A concave L in a corner. */
  const float lx[6] = {50, 58, 58, 56, 56, 50}, ly[6] = {30, 30, 38, 38, 32, 32};
  CHECK_STATUS(crowdsteer_obstacles_add(o, lx, ly, 6), CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_obstacles_build(o, 0), CROWDSTEER_OK);
  return o;
}

/* Every edge of the world, for the exact crossing check. */
static const float world_edges[][4] = {
    {0, 0, 60, 0},    {60, 0, 60, 40},  {60, 40, 0, 40},  {0, 40, 0, 0},
    {30, 0, 30, 18},  {30, 22, 30, 40}, {50, 30, 58, 30}, {58, 30, 58, 38},
    {58, 38, 56, 38}, {56, 38, 56, 32}, {56, 32, 50, 32}, {50, 32, 50, 30}};

static int crosses(const float p[2], const float q[2]) {
  enum { FIXED = sizeof world_edges / sizeof world_edges[0] };
  for (int e = 0; e < FIXED + 16; e++) {
    float a[2], b[2];
    if (e < FIXED) {
      a[0] = world_edges[e][0], a[1] = world_edges[e][1];
      b[0] = world_edges[e][2], b[1] = world_edges[e][3];
    } else { /* pillar k, side j */
      const int k = (e - FIXED) / 4, j = (e - FIXED) % 4;
      const float cx = 10.0f + 12.0f * (float)k, cy = k % 2 ? 12.0f : 28.0f;
      const float xs[5] = {cx - 2, cx + 2, cx + 2, cx - 2, cx - 2};
      const float ys[5] = {cy - 2, cy - 2, cy + 2, cy + 2, cy - 2};
      a[0] = xs[j], a[1] = ys[j], b[0] = xs[j + 1], b[1] = ys[j + 1];
    }
    /* Crossing: the ends on different sides (on the line counts as the
     * right side: outside a polygon, whose edges run one way; a wall is
     * both ways) and the segments touch. */
    for (int way = 0; way < (e < 6 ? 2 : 1); way++) {
      const float *u = way ? b : a, *w = way ? a : b;
      if ((cs_orient(u, w, p) > 0) != (cs_orient(u, w, q) > 0) &&
          cs_segments_touch(p, q, u, w))
        return 1;
    }
  }
  return 0;
}

static void place_crowd(state *s, float *goal_x, float *goal_y, size_t n) {
  uint32_t seed = 99;
  for (size_t i = 0; i < n; i++) {
    /* Left half or right half, away from walls and pillars. */
    for (;;) {
      const float x = uniform(&seed, 1.0f, 59.0f), y = uniform(&seed, 1.0f, 39.0f);
      int clear =
          fabsf(x - 30.0f) > 1.0f && !(x > 49.0f && x < 59.0f && y > 29.0f && y < 39.0f);
      for (int k = 0; k < 4 && clear; k++) {
        const float cx = 10.0f + 12.0f * (float)k, cy = k % 2 ? 12.0f : 28.0f;
        clear = fabsf(x - cx) > 3.0f || fabsf(y - cy) > 3.0f;
      }
      if (clear) {
        s->p[0][i] = x, s->p[1][i] = y;
        break;
      }
    }
    s->v[0][i] = s->v[1][i] = 0.0f;
    /* Goals: the other half (through the doorway), a corner, or beyond a wall. */
    const uint32_t kind = lcg(&seed) % 4;
    goal_x[i] = kind == 0 ? 0.0f : (kind == 1 ? 60.0f : 60.0f - s->p[0][i]);
    goal_y[i] = kind == 0 ? 0.0f : (kind == 1 ? 40.0f : s->p[1][i]);
    if (kind == 3) goal_x[i] = s->p[0][i] < 30.0f ? 100.0f : -40.0f; /* into the walls */
  }
}

typedef struct world {
  crowdsteer_obstacles *obstacles;
  crowdsteer_grid *grid;
  crowdsteer_neighbours nb;
  crowdsteer_avoidance av;
  crowdsteer_step_behaviour seek, separation;
  crowdsteer_neighbours sep_nb;
  crowdsteer_step_behaviour behaviours[2];
  crowdsteer_step_desc step;
  float goal_x[N], goal_y[N];
  uint32_t report[N];
} world;

static void make_step(world *w, int dims) {
  memset(&w->nb, 0, sizeof w->nb);
  w->nb.grid = w->grid;
  w->nb.radius = 3;
  w->nb.max_neighbours = 10;
  memset(&w->av, 0, sizeof w->av);
  w->av.radius = 0.3f;
  w->av.time_horizon = 2;
  w->av.obstacle_time_horizon = 1;
  w->av.neighbours = &w->nb;
  w->av.obstacles = dims == 2 ? w->obstacles : NULL;
  w->av.report = w->report;
  memset(w->behaviours, 0, sizeof w->behaviours);
  w->behaviours[0].behaviour = CROWDSTEER_SEEK;
  w->behaviours[0].target.kind = CROWDSTEER_TARGET_ARRAYS;
  w->behaviours[0].target.position.x = w->goal_x;
  w->behaviours[0].target.position.y = w->goal_y;
  w->behaviours[0].target.position.z = w->goal_y; /* 3D: any z */
  w->sep_nb = w->nb;
  w->behaviours[1].behaviour = CROWDSTEER_SEPARATION;
  w->behaviours[1].neighbours = &w->sep_nb;
  w->behaviours[1].weight = 0.5f;
  memset(&w->step, 0, sizeof w->step);
  w->step.behaviours = w->behaviours;
  w->step.behaviour_count = 2;
  w->step.integrator.max_speed = 1.5f;
  w->step.integrator.max_force = 3.0f;
  w->step.integrator.dt = 0.1f;
  w->step.avoidance = &w->av;
}

/* One step both ways; returns whether the bits agree. With `split` the
 * step is three calls: a small first range (the stage then runs chunk by
 * chunk in index order) and two larger ones (over the grid's slots after
 * the tiles). */
static int composition_holds(world *w, state *s, size_t n, int dims, int threads,
                             size_t tile, int in_place, int split) {
  static state before, pref_state, stepped, out;
  static float pref[3][N], vel[3][N];
  static uint32_t manual_report[N];
  crowdsteer_agents a = agents_of(s, n, dims, NULL);
  crowdsteer_grid_desc gd = {0};
  gd.cell_size = 3;
  CHECK_STATUS(crowdsteer_grid_build(w->grid, &a, &gd), CROWDSTEER_OK);
  before = *s;
  /* Preferred velocities: the step without avoidance, out of place. */
  crowdsteer_step_desc plain = w->step;
  plain.avoidance = NULL;
  pref_state = *s;
  crowdsteer_agents pa = agents_of(&pref_state, n, dims, NULL);
  plain.output = &pa;
  CHECK_STATUS(crowdsteer_step(&a, &plain, 0, n), CROWDSTEER_OK);
  for (int k = 0; k < dims; k++)
    memcpy(pref[k], pref_state.v[k], n * sizeof(float));
  crowdsteer_avoidance av = w->av;
  av.report = manual_report;
  crowdsteer_params params = w->step.integrator;
  const crowdsteer_vectors pv = {pref[0], pref[1], pref[2]},
                           vv = {vel[0], vel[1], vel[2]};
  CHECK_STATUS(crowdsteer_avoid(&a, &av, &params, &pv, &vv, 0, n), CROWDSTEER_OK);
  /* The step with avoidance. */
  crowdsteer_step_desc st = w->step;
  st.threads = threads;
  st.tile_size = tile;
  stepped = *s;
  crowdsteer_agents sa = agents_of(&stepped, n, dims, NULL);
  crowdsteer_agents oa = agents_of(&out, n, dims, NULL);
  if (!in_place) st.output = &oa;
  const size_t cuts[] = {0, split ? n / 8 : n, split ? n / 8 + n / 3 : n, n};
  for (int c = 0; c < 3; c++)
    if (cuts[c] < cuts[c + 1])
      CHECK_STATUS(crowdsteer_step(&sa, &st, cuts[c], cuts[c + 1]), CROWDSTEER_OK);
  const state *result = in_place ? &stepped : &out;
  int same = 1;
  for (size_t i = 0; i < n; i++) {
    for (int k = 0; k < dims; k++) {
      float v = vel[k][i], p = before.p[k][i] + v * params.dt;
      /* Where the walls stopped the move, the composition is the walls'. */
      if (w->report[i] & (CROWDSTEER_REPORT_WALL | CROWDSTEER_REPORT_INSIDE)) continue;
      same &= same_bits(result->p[k][i], p) && same_bits(result->v[k][i], v);
    }
    same &= (w->report[i] & CROWDSTEER_REPORT_CROWDED) == manual_report[i];
  }
  *s = *result;
  return same;
}

static void test_composition(int dims) {
  static world w;
  static state s;
  memset(&w, 0, sizeof w);
  w.obstacles = make_world();
  CHECK_STATUS(crowdsteer_grid_create(&w.grid), CROWDSTEER_OK);
  const size_t n = 1200;
  place_crowd(&s, w.goal_x, w.goal_y, n);
  uint32_t seed = 5;
  for (size_t i = 0; i < n; i++)
    s.p[2][i] = dims == 3 ? uniform(&seed, 0, 4) : 0.0f;
  make_step(&w, dims);
  const int threads[] = {1, 2, 1, 2};
  const size_t tiles[] = {0, 64, 300, 4096};
  for (int round = 0; round < 12; round++)
    CHECK_MSG(composition_holds(&w, &s, n, dims, threads[round % 4], tiles[round % 4],
                                round % 2, round >= 8),
              "%dD round %d: the step differs from its composition", dims, round);
  crowdsteer_grid_destroy(w.grid);
  crowdsteer_obstacles_destroy(w.obstacles);
}

/* Many steps of a crowd pushing into walls, corners and the doorway. */
static void test_walls_hold(void) {
  static world w;
  static state s, before;
  memset(&w, 0, sizeof w);
  w.obstacles = make_world();
  CHECK_STATUS(crowdsteer_grid_create(&w.grid), CROWDSTEER_OK);
  const size_t n = N;
  place_crowd(&s, w.goal_x, w.goal_y, n);
  /* One agent starts inside a pillar: it must stay exactly there. */
  s.p[0][0] = 10.5f, s.p[1][0] = 28.25f;
  make_step(&w, 2);
  w.step.threads = 2;
  crowdsteer_workspace *ws = NULL;
  CHECK_STATUS(crowdsteer_workspace_create(&ws), CROWDSTEER_OK);
  w.step.workspace = ws;
  size_t crossings = 0, walls = 0, crowded = 0;
  crowdsteer_agents a = agents_of(&s, n, 2, NULL);
  crowdsteer_grid_desc gd = {0};
  gd.cell_size = 3;
  for (int t = 0; t < 300; t++) {
    /* The second half: avoidance that sees walls too late (a thousandth of
     * a second ahead) at thrice the speed, so only the walls' guarantee
     * keeps the agents in. */
    if (t == 150) {
      w.av.obstacle_time_horizon = 1e-3f;
      w.av.radius = 0.0f; /* point agents: no line for a wall they touch */
      w.step.integrator.max_speed = 4.5f;
    }
    CHECK_STATUS(crowdsteer_grid_build(w.grid, &a, &gd), CROWDSTEER_OK);
    before = s;
    CHECK_STATUS(crowdsteer_step(&a, &w.step, 0, n), CROWDSTEER_OK);
    for (size_t i = 0; i < n; i++) {
      const float p[2] = {before.p[0][i], before.p[1][i]}, q[2] = {s.p[0][i], s.p[1][i]};
      if (crosses(p, q) && crossings++ < 5)
        fprintf(stderr, "agent %zu step %d: (%a, %a) -> (%a, %a) report %u\n", i, t, p[0],
                p[1], q[0], q[1], w.report[i]);
      walls += (w.report[i] & CROWDSTEER_REPORT_WALL) != 0;
      crowded += (w.report[i] & CROWDSTEER_REPORT_CROWDED) != 0;
    }
    CHECK(w.report[0] == CROWDSTEER_REPORT_INSIDE ||
          w.report[0] == (CROWDSTEER_REPORT_INSIDE | CROWDSTEER_REPORT_CROWDED));
  }
  CHECK_MSG(crossings == 0, "%zu moves crossed a wall", crossings);
  size_t inside = 0;
  for (size_t i = 1; i < n; i++) {
    int in = 0;
    CHECK_STATUS(crowdsteer_obstacles_inside(w.obstacles, s.p[0][i], s.p[1][i], &in),
                 CROWDSTEER_OK);
    inside += (size_t)in;
  }
  CHECK_MSG(inside == 0, "%zu agents got inside an obstacle", inside);
  CHECK(s.p[0][0] == 10.5f && s.p[1][0] == 28.25f && s.v[0][0] == 0.0f &&
        s.v[1][0] == 0.0f);
  /* The crowd did push: moves were stopped at walls, and it was packed. */
  CHECK_MSG(walls > 0 && crowded > 0, "walls %zu crowded %zu", walls, crowded);
  printf("walls hold: %zu agents x 300 steps, 0 crossings, %zu wall stops, %zu crowded\n",
         n, walls, crowded);
  crowdsteer_workspace_destroy(ws);
  crowdsteer_grid_destroy(w.grid);
  crowdsteer_obstacles_destroy(w.obstacles);
}

/* One point agent moved by a step whose avoidance sees walls far too late
 * (obstacle time horizon 1e-6), so that only the walls' rule decides:
 * returns its report; its new position and velocity in p and v. */
static uint32_t wall_move(const crowdsteer_obstacles *o, float p[2], float v[2],
                          float dt) {
  float px[1] = {p[0]}, py[1] = {p[1]}, vx[1] = {v[0]}, vy[1] = {v[1]};
  crowdsteer_agents a = {1, 2, px, py, NULL, vx, vy, NULL, NULL};
  uint32_t report[1] = {99};
  crowdsteer_avoidance av;
  memset(&av, 0, sizeof av);
  av.obstacle_time_horizon = 1e-6f;
  av.obstacles = o;
  av.report = report;
  /* A seek the mask leaves out: no steering, the velocity as it is. */
  crowdsteer_step_behaviour seek;
  memset(&seek, 0, sizeof seek);
  static const uint32_t no_behaviour[1] = {0};
  crowdsteer_step_desc step;
  memset(&step, 0, sizeof step);
  step.behaviours = &seek;
  step.behaviour_count = 1;
  step.behaviour_mask = no_behaviour;
  step.integrator.max_speed = 1.5e19f; /* its square still a float */
  step.integrator.dt = dt;
  step.avoidance = &av;
  CHECK_STATUS(crowdsteer_step(&a, &step, 0, 1), CROWDSTEER_OK);
  p[0] = px[0], p[1] = py[0], v[0] = vx[0], v[1] = vy[0];
  return report[0];
}

static crowdsteer_obstacles *obstacles_of(const float (*walls)[4], int wall_count,
                                          int with_square) {
  crowdsteer_obstacles *o = NULL;
  CHECK_STATUS(crowdsteer_obstacles_create(&o), CROWDSTEER_OK);
  for (int w = 0; w < wall_count; w++) {
    const float x[2] = {walls[w][0], walls[w][2]}, y[2] = {walls[w][1], walls[w][3]};
    CHECK_STATUS(crowdsteer_obstacles_add(o, x, y, 2), CROWDSTEER_OK);
  }
  if (with_square) { /* (0, 0) .. (2, 2), counter-clockwise */
    const float x[4] = {0, 2, 2, 0}, y[4] = {0, 0, 2, 2};
    CHECK_STATUS(crowdsteer_obstacles_add(o, x, y, 4), CROWDSTEER_OK);
  }
  CHECK_STATUS(crowdsteer_obstacles_build(o, 0), CROWDSTEER_OK);
  return o;
}

#define CHECK_MOVE(p, v, want_px, want_py, want_vx, want_vy)                             \
  CHECK_MSG((p)[0] == (want_px) && (p)[1] == (want_py) && (v)[0] == (want_vx) &&         \
                (v)[1] == (want_vy),                                                     \
            "moved to (%a, %a) at (%a, %a), want (%a, %a) at (%a, %a)", (double)(p)[0],  \
            (double)(p)[1], (double)(v)[0], (double)(v)[1], (double)(want_px),           \
            (double)(want_py), (double)(want_vx), (double)(want_vy))

/* The walls' rule of docs/guarantees.md, case by case: a crossing move
 * slides along the edge; where the slide crosses too, the move is halved
 * until it crosses nothing (or dropped); landing on an edge from outside is
 * allowed and leaving it inwards is not; an agent inside stays at rest; a
 * move to a non-finite position is dropped. */
static void test_wall_rules(void) {
  const float floor_wall[1][4] = {{-10, 0, 10, 0}};
  crowdsteer_obstacles *o = obstacles_of(floor_wall, 1, 0);
  float p[2] = {0, 1}, v[2] = {1, -2};
  /* (0, 1) + (1, -2) crosses y = 0: slid along it to (1, 1). */
  CHECK(wall_move(o, p, v, 1.0f) == CROWDSTEER_REPORT_WALL);
  CHECK_MOVE(p, v, 1.0f, 1.0f, 1.0f, 0.0f);
  /* Along the wall, above it: not held. */
  p[0] = 0, p[1] = 1, v[0] = 3, v[1] = -0.5f;
  CHECK(wall_move(o, p, v, 1.0f) == 0);
  CHECK_MOVE(p, v, 3.0f, 0.5f, 3.0f, -0.5f);
  crowdsteer_obstacles_destroy(o);

  /* A corner: the slide along the floor crosses the wall x = 1; halves of
   * the move: 1/2 crosses both, 1/4 neither. */
  const float corner[2][4] = {{-10, 0, 10, 0}, {1, -10, 1, 10}};
  o = obstacles_of(corner, 2, 0);
  p[0] = 0, p[1] = 1, v[0] = 2, v[1] = -2.5f;
  CHECK(wall_move(o, p, v, 1.0f) == CROWDSTEER_REPORT_WALL);
  CHECK_MOVE(p, v, 0.5f, 0.375f, 0.5f, -0.625f);
  /* Into the corner from where every part of the move crosses: dropped. */
  p[0] = 1, p[1] = 0.5f, v[0] = 1, v[1] = -1;
  CHECK(wall_move(o, p, v, 1.0f) == CROWDSTEER_REPORT_WALL);
  CHECK(p[0] >= 1.0f && p[1] >= 0.0f); /* on the walls' side it came from */
  crowdsteer_obstacles_destroy(o);

  o = obstacles_of(NULL, 0, 1);
  /* From outside onto the square's bottom edge: allowed. */
  p[0] = 1, p[1] = -1, v[0] = 0, v[1] = 1;
  CHECK(wall_move(o, p, v, 1.0f) == 0);
  CHECK_MOVE(p, v, 1.0f, 0.0f, 0.0f, 1.0f);
  /* From the edge inwards: the slide along it is no move at all. */
  CHECK(wall_move(o, p, v, 1.0f) == CROWDSTEER_REPORT_WALL);
  CHECK_MOVE(p, v, 1.0f, 0.0f, 0.0f, 0.0f);
  /* Strictly inside: stays, at rest. */
  p[0] = 1, p[1] = 1, v[0] = 1, v[1] = 0;
  CHECK(wall_move(o, p, v, 1.0f) == CROWDSTEER_REPORT_INSIDE);
  CHECK_MOVE(p, v, 1.0f, 1.0f, 0.0f, 0.0f);
  /* A move past the largest float: dropped. */
  p[0] = 5, p[1] = 5, v[0] = 1e19f, v[1] = 0;
  const uint32_t far_report = wall_move(o, p, v, 1e20f);
  CHECK_MSG(far_report == CROWDSTEER_REPORT_WALL, "report %u", (unsigned)far_report);
  CHECK_MOVE(p, v, 5.0f, 5.0f, 0.0f, 0.0f);
  crowdsteer_obstacles_destroy(o);
}

/* A step that seeks `goal` on n agents at p (in place), every one
 * steered the same way, with obstacles `o` and a wrap in `box`. */
static crowdsteer_status wrapped_step(float *const p[2], float *const v[2], size_t n,
                                      const crowdsteer_obstacles *o,
                                      const crowdsteer_box *box, const float goal[2]) {
  crowdsteer_agents a = {n, 2, p[0], p[1], NULL, v[0], v[1], NULL, NULL};
  crowdsteer_avoidance av;
  memset(&av, 0, sizeof av);
  av.obstacles = o;
  av.obstacle_time_horizon = 1e-6f; /* the walls' rule alone decides */
  crowdsteer_step_behaviour seek;
  memset(&seek, 0, sizeof seek);
  seek.behaviour = CROWDSTEER_SEEK;
  seek.target.kind = CROWDSTEER_TARGET_POINT;
  seek.target.point[0] = goal[0], seek.target.point[1] = goal[1];
  crowdsteer_step_desc step;
  memset(&step, 0, sizeof step);
  step.behaviours = &seek;
  step.behaviour_count = 1;
  step.integrator.max_speed = 0.5f;
  step.integrator.max_force = 100.0f;
  step.integrator.dt = 0.25f;
  step.avoidance = &av;
  step.wrap = box;
  return crowdsteer_step(&a, &step, 0, n);
}

/* A wrap is a jump the walls do not see: a step with both is refused
 * unless no wrap can carry an agent past an obstacle (docs/guarantees.md).
 * Refused, nothing written: a pillar or a wall within a move of a face, a
 * corridor wall that stops at the faces (a move crossing the seam and the
 * wall's line just past its end crossed the wall after the wrap), a
 * polygon inside past one face and not the other, an agent outside the
 * box. Allowed: a corridor whose walls run past the faces, a pillar well
 * inside; then a crowd pushing both ways across the seam and into the
 * walls for 400 steps stays between the walls and out of the pillar. */
static void test_wrap_with_walls(void) {
  enum { M = 600 };
  static float px[M], py[M], vx[M], vy[M];
  float *const p[2] = {px, py}, *const v[2] = {vx, vy};
  const crowdsteer_box box = {{0, -1, 0}, {20, 6, 0}};
  const float goals[4][2] = {{1e4f, 1e4f}, {1e4f, -1e4f}, {-1e4f, 1e4f}, {-1e4f, -1e4f}};
  const float *const up = goals[0];
  const float walls_past[2][4] = {{-1, 0, 21, 0}, {-1, 5, 21, 5}};
  const float walls_to_faces[2][4] = {{0, 0, 20, 0}, {0, 5, 20, 5}};
  const float wall_near_face[1][4] = {{0.05f, 1, 0.05f, 4}};
  /* A pillar near a face; a polygon whose only edge in reach runs along x
   * across the box, but which covers the top face and not the bottom one
   * (a wrap down through y = -1 would land inside it). */
  const float pillar_x[4] = {0.01f, 0.5f, 0.5f, 0.01f}, pillar_y[4] = {2, 2, 3, 3};
  const float half_x[4] = {-1, 21, 21, -1}, half_y[4] = {2, 2, 100, 100};
  crowdsteer_obstacles *refused[4] = {obstacles_of(walls_to_faces, 2, 0),
                                      obstacles_of(wall_near_face, 1, 0), NULL, NULL};
  for (int k = 2; k < 4; k++) {
    CHECK_STATUS(crowdsteer_obstacles_create(&refused[k]), CROWDSTEER_OK);
    CHECK_STATUS(crowdsteer_obstacles_add(refused[k], k == 2 ? pillar_x : half_x,
                                          k == 2 ? pillar_y : half_y, 4),
                 CROWDSTEER_OK);
    CHECK_STATUS(crowdsteer_obstacles_build(refused[k], 0), CROWDSTEER_OK);
  }
  for (int k = 0; k < 4; k++) {
    px[0] = 19.95f, py[0] = 4.97f, vx[0] = vy[0] = 0;
    CHECK_STATUS(wrapped_step(p, v, 1, refused[k], &box, up), CROWDSTEER_ERROR_PARAMETER);
    CHECK(px[0] == 19.95f && py[0] == 4.97f && vx[0] == 0 && vy[0] == 0);
    crowdsteer_obstacles_destroy(refused[k]);
  }
  /* The corridor with a pillar inside: allowed, but not for an agent
   * outside the box (a NaN one is no reason to refuse). */
  crowdsteer_obstacles *o = NULL;
  CHECK_STATUS(crowdsteer_obstacles_create(&o), CROWDSTEER_OK);
  for (int w = 0; w < 2; w++) {
    const float x[2] = {walls_past[w][0], walls_past[w][2]};
    const float y[2] = {walls_past[w][1], walls_past[w][3]};
    CHECK_STATUS(crowdsteer_obstacles_add(o, x, y, 2), CROWDSTEER_OK);
  }
  const float block_x[4] = {8, 12, 12, 8}, block_y[4] = {2, 2, 3, 3};
  CHECK_STATUS(crowdsteer_obstacles_add(o, block_x, block_y, 4), CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_obstacles_build(o, 0), CROWDSTEER_OK);
  px[0] = 20.5f, py[0] = 1;
  CHECK_STATUS(wrapped_step(p, v, 1, o, &box, up), CROWDSTEER_ERROR_PARAMETER);
  CHECK(px[0] == 20.5f && py[0] == 1);
  px[0] = NAN, py[0] = 1;
  CHECK_STATUS(wrapped_step(p, v, 1, o, &box, up), CROWDSTEER_OK);
  /* Leftwards across x = 0 by a move of 0.125 from just under 0.125: the
   * wrap rounds -2^-22 + 20 onto the high face, 20, and the next steps
   * still run (the box holds its agents to a rounding). */
  px[0] = 0.125f - 0x1p-22f, py[0] = 2.5f, vx[0] = -0.5f, vy[0] = 0;
  const float left[2] = {-1e4f, 2.5f};
  CHECK_STATUS(wrapped_step(p, v, 1, o, &box, left), CROWDSTEER_OK);
  CHECK_MSG(px[0] == 20.0f, "the wrap left x = %a", (double)px[0]);
  for (int t = 0; t < 3; t++)
    CHECK_STATUS(wrapped_step(p, v, 1, o, &box, left), CROWDSTEER_OK);
  uint32_t seed = 7;
  for (size_t i = 0; i < M; i++) {
    do {
      px[i] = uniform(&seed, 0, 20), py[i] = uniform(&seed, 0.01f, 4.99f);
    } while (px[i] > 7.9f && px[i] < 12.1f && py[i] > 1.9f && py[i] < 3.1f);
    vx[i] = vy[i] = 0;
  }
  long outside = 0, inside = 0;
  for (int t = 0; t < 400; t++) {
    /* Right and left across the seam (leftwards a wrap may round onto the
     * high face: still accepted next step), up and down into the walls. */
    CHECK_STATUS(wrapped_step(p, v, M, o, &box, goals[t / 40 % 4]), CROWDSTEER_OK);
    for (size_t i = 0; i < M; i++) {
      int in = 0;
      CHECK_STATUS(crowdsteer_obstacles_inside(o, px[i], py[i], &in), CROWDSTEER_OK);
      inside += in;
      outside += !(py[i] >= 0 && py[i] <= 5);
    }
  }
  CHECK_MSG(outside == 0 && inside == 0,
            "%ld agent-steps past the walls, %ld in the pillar", outside, inside);
  crowdsteer_obstacles_destroy(o);
}

static void test_validation(void) {
  static world w;
  static state s;
  memset(&w, 0, sizeof w);
  w.obstacles = make_world();
  CHECK_STATUS(crowdsteer_grid_create(&w.grid), CROWDSTEER_OK);
  place_crowd(&s, w.goal_x, w.goal_y, 10);
  crowdsteer_agents a = agents_of(&s, 10, 2, NULL);
  make_step(&w, 2);
  w.nb.grid = NULL; /* a step needs a grid for the neighbours */
  w.sep_nb.grid = w.grid;
  crowdsteer_grid_desc gd = {0};
  gd.cell_size = 3;
  CHECK_STATUS(crowdsteer_grid_build(w.grid, &a, &gd), CROWDSTEER_OK);
  state copy = s;
  CHECK_STATUS(crowdsteer_step(&a, &w.step, 0, 10), CROWDSTEER_ERROR_NULL_POINTER);
  w.nb.grid = w.grid;
  w.av.time_horizon = -1;
  CHECK_STATUS(crowdsteer_step(&a, &w.step, 0, 10), CROWDSTEER_ERROR_PARAMETER);
  w.av.time_horizon = 2;
  w.av.report = (uint32_t *)s.p[0]; /* the report over the positions */
  CHECK_STATUS(crowdsteer_step(&a, &w.step, 0, 10), CROWDSTEER_ERROR_OVERLAP);
  CHECK(memcmp(&copy, &s, sizeof s) == 0);
  crowdsteer_grid_destroy(w.grid);
  crowdsteer_obstacles_destroy(w.obstacles);
}

int main(void) {
  test_composition(2);
  test_composition(3);
  test_walls_hold();
  test_wall_rules();
  test_wrap_with_walls();
  test_validation();
  return check_report("test_step_avoid");
}
