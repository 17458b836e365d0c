/* Pictures of crowdsteer behaviours: the six figures, each two panels of a
 * small deterministic flock with its trails. */
#include "pictures.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crowdsteer.h"
#include "pictures_draw.h"

/* ---- small flocks for the figures ----------------------------------------- */

enum { FLOCK_MAX = 128 };

typedef struct flock {
  size_t n;
  float px[FLOCK_MAX], py[FLOCK_MAX], vx[FLOCK_MAX], vy[FLOCK_MAX];
  float sx[FLOCK_MAX], sy[FLOCK_MAX], wx[FLOCK_MAX], wy[FLOCK_MAX];
  float ox[FLOCK_MAX], oy[FLOCK_MAX]; /* positions before the step */
  rgb colour[FLOCK_MAX];
  crowdsteer_agents a;
  crowdsteer_vectors steer;
} flock;

static flock *flock_new(size_t n) {
  flock *f = calloc(1, sizeof *f);
  if (!f) return NULL;
  f->n = n;
  f->a.count = n;
  f->a.dims = 2;
  f->a.px = f->px;
  f->a.py = f->py;
  f->a.vx = f->vx;
  f->a.vy = f->vy;
  f->steer.x = f->sx;
  f->steer.y = f->sy;
  return f;
}

static crowdsteer_output overwrite(flock *f) {
  crowdsteer_output o;
  memset(&o, 0, sizeof o);
  o.steering = f->steer;
  o.mode = CROWDSTEER_OVERWRITE;
  return o;
}

static crowdsteer_output accumulate(flock *f, float weight) {
  crowdsteer_output o = overwrite(f);
  o.mode = CROWDSTEER_ACCUMULATE;
  o.weight = weight;
  return o;
}

crowdsteer_target point_target(float x, float y, float vx, float vy) {
  crowdsteer_target t;
  memset(&t, 0, sizeof t);
  t.kind = CROWDSTEER_TARGET_POINT;
  t.point[0] = x;
  t.point[1] = y;
  t.point_velocity[0] = vx;
  t.point_velocity[1] = vy;
  return t;
}

/* Integrates, then draws each agent's step into the canvas. */
static int flock_step(flock *f, const crowdsteer_params *prm, canvas *c) {
  memcpy(f->ox, f->px, f->n * sizeof(float));
  memcpy(f->oy, f->py, f->n * sizeof(float));
  if (crowdsteer_integrate(&f->a, &f->steer, prm, 0, f->n) != CROWDSTEER_OK) return -1;
  for (size_t i = 0; i < f->n; i++)
    canvas_line(c, pix(f->ox[i]), pix(f->oy[i]), pix(f->px[i]), pix(f->py[i]),
                scale_rgb(f->colour[i], 3, 4));
  return 0;
}

/* Final agent dots, dark-rimmed so they stand out from their own trail. */
static void flock_dots(const flock *f, pic_image *img) {
  static const rgb rim = {PIC_BG_R, PIC_BG_G, PIC_BG_B};
  for (size_t i = 0; i < f->n; i++)
    disc(img, pix(f->px[i]), pix(f->py[i]), 4, rim);
  for (size_t i = 0; i < f->n; i++)
    disc(img, pix(f->px[i]), pix(f->py[i]), 3, f->colour[i]);
}

/* A scripted point (threat, quarry) with its own trail. */
typedef struct mover {
  float x, y, vx, vy;
} mover;

static void mover_step(mover *m, canvas *c) {
  int x0 = pix(m->x), y0 = pix(m->y);
  m->x = m->x + m->vx;
  m->y = m->y + m->vy;
  canvas_line(c, x0, y0, pix(m->x), pix(m->y), COL_DIM);
}

/* Rotates (x, y) by the angle whose sine is s (cosine from sqrt: exact IEEE). */
static void rotate(float *x, float *y, float s) {
  float c = sqrtf(1.0f - s * s);
  float nx = *x * c - *y * s, ny = *x * s + *y * c;
  *x = nx;
  *y = ny;
}

/* Per-panel state: a canvas, flocks and captions; draws into the figure. */
typedef struct panel {
  canvas cv;
  flock *f;
  pic_image img; /* drawn separately so nothing spills into the other panel */
} panel;

static int panels_init(panel p[2], size_t n0, size_t n1) {
  memset(p, 0, 2 * sizeof *p);
  for (int k = 0; k < 2; k++) {
    if (canvas_init(&p[k].cv, PIC_PANEL, PIC_PANEL)) return -1;
    if (pic_image_init(&p[k].img, PIC_PANEL, PIC_PANEL)) return -1;
    p[k].f = flock_new(k == 0 ? n0 : n1);
    if (!p[k].f) return -1;
  }
  return 0;
}

static void panels_free(panel p[2]) {
  for (int k = 0; k < 2; k++) {
    free(p[k].cv.ink);
    free(p[k].f);
    pic_image_free(&p[k].img);
  }
}

static void caption(pic_image *img, const char *title, rgb col, const char *sub) {
  pic_draw_text(img, 10, 10, title, 2, col.r, col.g, col.b);
  pic_draw_text(img, 10, 30, sub, 1, COL_DIM.r, COL_DIM.g, COL_DIM.b);
}

/* Trails first: everything else is drawn over them. */
static void blit_trails(panel p[2]) {
  for (int k = 0; k < 2; k++)
    canvas_blit(&p[k].cv, &p[k].img, 0, 0);
}

/* Both panels side by side into the figure. */
static void compose(panel p[2], pic_image *img) {
  for (int k = 0; k < 2; k++)
    for (int y = 0; y < PIC_PANEL; y++)
      memcpy(img->rgb +
                 3 * ((size_t)y * (size_t)img->width + (size_t)k * (PIC_PANEL + PIC_GAP)),
             p[k].img.rgb + 3 * (size_t)y * PIC_PANEL, 3 * (size_t)PIC_PANEL);
}

/* Seek overshoots the target and loops back; arrive ramps its speed down
 * inside slowing_radius and stops. Same starts, same limits. */
static int figure_seek_arrive(pic_image *img) {
  static const float start[8][4] = {{40, 70, 2, 0},    {360, 60, 0, 2},  {30, 350, 0, -2},
                                    {370, 360, -2, 0}, {200, 60, -2, 1}, {20, 210, 1, -2},
                                    {380, 220, 0, 2},  {210, 385, 2, 0}};
  panel p[2];
  int rc = -1;
  if (panels_init(p, 8, 8)) goto done;
  for (int k = 0; k < 2; k++)
    for (size_t i = 0; i < 8; i++) {
      p[k].f->px[i] = start[i][0];
      p[k].f->py[i] = start[i][1];
      p[k].f->vx[i] = start[i][2];
      p[k].f->vy[i] = start[i][3];
      p[k].f->colour[i] = k == 0 ? COL_SEEK : COL_ARRIVE;
    }
  crowdsteer_params prm;
  memset(&prm, 0, sizeof prm);
  prm.max_speed = 3.0f;
  prm.max_force = 0.07f;
  prm.slowing_radius = 90.0f;
  prm.target_radius = 2.0f;
  crowdsteer_target t = point_target(200, 220, 0, 0);
  for (int step = 0; step < 300; step++) {
    crowdsteer_output o0 = overwrite(p[0].f), o1 = overwrite(p[1].f);
    for (int k = 0; k < 2; k++)
      canvas_fade(&p[k].cv);
    if (crowdsteer_seek(&p[0].f->a, &t, &prm, &o0, 0, 8) ||
        crowdsteer_arrive(&p[1].f->a, &t, &prm, &o1, 0, 8))
      goto done;
    for (int k = 0; k < 2; k++)
      if (flock_step(p[k].f, &prm, &p[k].cv)) goto done;
  }
  blit_trails(p);
  circle(&p[1].img, 200, 220, 90, COL_ARRIVE, 4);
  for (int k = 0; k < 2; k++) {
    cross(&p[k].img, 200, 220, 7, COL_WHITE);
    flock_dots(p[k].f, &p[k].img);
  }
  caption(&p[0].img, "SEEK", COL_SEEK,
          "full speed at the target: overshoots, loops back");
  caption(&p[1].img, "ARRIVE", COL_ARRIVE,
          "slows inside slowing_radius 90, stops on target");
  compose(p, img);
  rc = 0;
done:
  panels_free(p);
  return rc;
}

/* A threat crosses a grid of resting agents. Flee runs at full speed inside
 * panic_radius and coasts on; leave slows to a stop at danger_radius. */
static int figure_flee_leave(pic_image *img) {
  enum { G = 9, N = G * G };
  panel p[2];
  int rc = -1;
  if (panels_init(p, N, N)) goto done;
  for (int k = 0; k < 2; k++)
    for (size_t i = 0; i < N; i++) {
      p[k].f->px[i] = 40.0f + 40.0f * (float)(i % G);
      p[k].f->py[i] = 75.0f + 38.0f * (float)(i / G);
      p[k].f->colour[i] = k == 0 ? COL_FLEE : COL_LEAVE;
    }
  crowdsteer_params fp, lp;
  memset(&fp, 0, sizeof fp);
  fp.max_speed = 3.0f;
  fp.max_force = 0.25f;
  fp.panic_radius = 70.0f;
  lp = fp;
  lp.panic_radius = 0;
  lp.danger_radius = 70.0f;
  lp.escape_radius = 25.0f;
  mover threat = {-40.0f, 232.0f, 2.0f, -0.15f};
  for (int step = 0; step < 200; step++) {
    crowdsteer_target t = point_target(threat.x, threat.y, threat.vx, threat.vy);
    crowdsteer_output o0 = overwrite(p[0].f), o1 = overwrite(p[1].f);
    for (int k = 0; k < 2; k++)
      canvas_fade(&p[k].cv);
    if (crowdsteer_flee(&p[0].f->a, &t, &fp, &o0, 0, N) ||
        crowdsteer_leave(&p[1].f->a, &t, &lp, &o1, 0, N))
      goto done;
    if (flock_step(p[0].f, &fp, &p[0].cv) || flock_step(p[1].f, &lp, &p[1].cv)) goto done;
    mover copy = threat;
    mover_step(&threat, &p[0].cv);
    mover_step(&copy, &p[1].cv);
  }
  blit_trails(p);
  int hx = pix(threat.x), hy = pix(threat.y);
  circle(&p[0].img, hx, hy, 70, COL_FLEE, 4);
  circle(&p[1].img, hx, hy, 70, COL_LEAVE, 4);
  circle(&p[1].img, hx, hy, 25, COL_LEAVE, 2);
  for (int k = 0; k < 2; k++) {
    flock_dots(p[k].f, &p[k].img);
    disc(&p[k].img, hx, hy, 5, COL_WHITE);
  }
  caption(&p[0].img, "FLEE", COL_FLEE,
          "full speed inside panic_radius 70, then coasts on");
  caption(&p[1].img, "LEAVE", COL_LEAVE,
          "danger_radius 70, escape_radius 25: steps aside");
  compose(p, img);
  rc = 0;
done:
  panels_free(p);
  return rc;
}

/* The same quarry crossing the panel; pursuers lead it and cut it off,
 * seekers aim where it is and end up chasing its tail. */
static int figure_pursuit_seek(pic_image *img) {
  enum { N = 5 };
  panel p[2];
  int rc = -1;
  if (panels_init(p, N, N)) goto done;
  for (int k = 0; k < 2; k++)
    for (size_t i = 0; i < N; i++) {
      p[k].f->px[i] = 40.0f + 80.0f * (float)i;
      p[k].f->py[i] = 390.0f;
      p[k].f->vy[i] = -1.0f;
      p[k].f->colour[i] = k == 0 ? COL_PURSUIT : COL_SEEK;
    }
  crowdsteer_params prm;
  memset(&prm, 0, sizeof prm);
  prm.max_speed = 2.5f;
  prm.max_force = 0.3f;
  mover quarry = {10.0f, 110.0f, 2.2f, 0.0f};
  for (int step = 0; step < 175; step++) {
    crowdsteer_target t = point_target(quarry.x, quarry.y, quarry.vx, quarry.vy);
    crowdsteer_output o0 = overwrite(p[0].f), o1 = overwrite(p[1].f);
    for (int k = 0; k < 2; k++)
      canvas_fade(&p[k].cv);
    if (crowdsteer_pursuit(&p[0].f->a, &t, &prm, &o0, 0, N) ||
        crowdsteer_seek(&p[1].f->a, &t, &prm, &o1, 0, N))
      goto done;
    for (int k = 0; k < 2; k++)
      if (flock_step(p[k].f, &prm, &p[k].cv)) goto done;
    mover copy = quarry;
    mover_step(&quarry, &p[0].cv);
    mover_step(&copy, &p[1].cv);
    rotate(&quarry.vx, &quarry.vy, 0.003f);
  }
  blit_trails(p);
  for (int k = 0; k < 2; k++) {
    flock_dots(p[k].f, &p[k].img);
    disc(&p[k].img, pix(quarry.x), pix(quarry.y), 5, COL_WHITE);
  }
  caption(&p[0].img, "PURSUIT", COL_PURSUIT, "aims where the quarry (white) will be");
  caption(&p[1].img, "SEEK", COL_SEEK, "aims where it is: falls behind, tail chase");
  compose(p, img);
  rc = 0;
done:
  panels_free(p);
  return rc;
}

/* Left: a wolf pursues one sheep after another while every sheep evades it
 * (both through per-agent index targets), with a pull back to the pasture.
 * Right: wanderers with a weak pull to the centre. */
enum { EW_SHEEP = 40, EW_FLOCK = 1 + EW_SHEEP, EW_WANDERERS = 30 };

/* The wolf (agent 0) and its sheep in the left panel, every sheep watching
 * the wolf; the wanderers in the right one. */
static void place_evade_wander(panel p[2], uint32_t index[EW_FLOCK]) {
  uint64_t seed = 20240601;
  flock *f = p[0].f;
  f->px[0] = 30.0f;
  f->py[0] = 370.0f;
  f->colour[0] = COL_PURSUIT_BRIGHT;
  for (size_t i = 1; i < EW_FLOCK; i++) {
    f->px[i] = uniform(&seed, 130, 270);
    f->py[i] = uniform(&seed, 150, 290);
    f->colour[i] = COL_EVADE;
    index[i] = 0;
  }
  flock *w = p[1].f;
  for (size_t i = 0; i < EW_WANDERERS; i++) {
    w->px[i] = uniform(&seed, 120, 280);
    w->py[i] = uniform(&seed, 130, 290);
    w->vx[i] = uniform(&seed, -1, 1);
    w->vy[i] = uniform(&seed, -1, 1);
    w->colour[i] = COL_WANDER;
  }
}

static int figure_evade_wander(pic_image *img) {
  enum { N = EW_FLOCK, W = EW_WANDERERS };
  panel p[2];
  int rc = -1;
  uint32_t index[N];
  if (panels_init(p, N, W)) goto done;
  place_evade_wander(p, index);
  flock *f = p[0].f, *w = p[1].f;
  crowdsteer_params wolf, sheep, wan;
  memset(&wolf, 0, sizeof wolf);
  wolf.max_speed = 2.6f;
  wolf.max_force = 0.15f;
  sheep = wolf;
  sheep.max_speed = 2.2f;
  sheep.max_force = 0.2f;
  sheep.panic_radius = 80.0f;
  sheep.max_prediction = 15.0f;
  memset(&wan, 0, sizeof wan);
  wan.max_speed = 1.8f;
  wan.max_force = 0.15f;
  wan.wander_distance = 1.0f;
  wan.wander_radius = 0.6f;
  wan.jitter = 0.4f;
  crowdsteer_wander_state ws;
  memset(&ws, 0, sizeof ws);
  ws.direction.x = w->wx;
  ws.direction.y = w->wy;
  ws.seed = 7;
  crowdsteer_target home = point_target(200, 225, 0, 0);
  crowdsteer_target idx;
  memset(&idx, 0, sizeof idx);
  idx.kind = CROWDSTEER_TARGET_AGENTS;
  idx.index = index;
  index[0] = 23; /* the wolf's chosen sheep */
  for (int step = 0; step < 170; step++) {
    crowdsteer_output o0 = overwrite(f), a0 = accumulate(f, 0.12f);
    crowdsteer_output o1 = overwrite(w), a1 = accumulate(w, 0.05f);
    for (int k = 0; k < 2; k++)
      canvas_fade(&p[k].cv);
    ws.tick = (uint32_t)step;
    if (crowdsteer_pursuit(&f->a, &idx, &wolf, &o0, 0, 1) ||
        crowdsteer_evade(&f->a, &idx, &sheep, &o0, 1, N) ||
        crowdsteer_arrive(&f->a, &home, &sheep, &a0, 1, N) ||
        crowdsteer_wander(&w->a, &ws, &wan, &o1, 0, W) ||
        crowdsteer_seek(&w->a, &home, &wan, &a1, 0, W))
      goto done;
    /* Wolf and sheep have different limits: integrate each sub-range. */
    memcpy(f->ox, f->px, sizeof f->ox);
    memcpy(f->oy, f->py, sizeof f->oy);
    if (crowdsteer_integrate(&f->a, &f->steer, &wolf, 0, 1) ||
        crowdsteer_integrate(&f->a, &f->steer, &sheep, 1, N))
      goto done;
    for (size_t i = 0; i < N; i++)
      canvas_line(&p[0].cv, pix(f->ox[i]), pix(f->oy[i]), pix(f->px[i]), pix(f->py[i]),
                  scale_rgb(f->colour[i], 3, 4));
    if (flock_step(w, &wan, &p[1].cv)) goto done;
  }
  blit_trails(p);
  circle(&p[0].img, pix(f->px[0]), pix(f->py[0]), 80, COL_EVADE, 4);
  flock_dots(f, &p[0].img);
  disc(&p[0].img, pix(f->px[0]), pix(f->py[0]), 6, COL_PURSUIT_BRIGHT); /* wolf on top */
  flock_dots(w, &p[1].img);
  caption(&p[0].img, "EVADE", COL_EVADE, "sheep evade the wolf (pursuit, blue), go home");
  caption(&p[1].img, "WANDER", COL_WANDER, "counter-based random walk, weak pull home");
  compose(p, img);
  rc = 0;
done:
  panels_free(p);
  return rc;
}

/* The eighth of the circle v points into, counter-clockwise from +x, found
 * by comparisons only. */
static rgb heading_colour(float vx, float vy) {
  int upper = vy >= 0.0f, right = vx >= 0.0f;
  int steep = (vy < 0.0f ? -vy : vy) > (vx < 0.0f ? -vx : vx);
  int sector = upper ? (right ? steep : 3 - steep) : (right ? 7 - steep : 4 + steep);
  return COL_HEADING[sector];
}

/* |mean of the unit velocities|: 1 when every boid heads the same way. */
static float order_parameter(const flock *f) {
  float sx = 0.0f, sy = 0.0f;
  for (size_t i = 0; i < f->n; i++) {
    float speed = sqrtf(f->vx[i] * f->vx[i] + f->vy[i] * f->vy[i]);
    if (speed > 0.0f) {
      sx += f->vx[i] / speed;
      sy += f->vy[i] / speed;
    }
  }
  return sqrtf(sx * sx + sy * sy) / (float)f->n;
}

static crowdsteer_neighbours within(const crowdsteer_grid *grid, float radius) {
  crowdsteer_neighbours nb;
  memset(&nb, 0, sizeof nb);
  nb.grid = grid;
  nb.radius = radius;
  return nb;
}

/* The packed crowd's steering: arrive at the centre, plus separation. */
static int packed_steering(flock *f, crowdsteer_grid *grid, const crowdsteer_params *prm,
                           float radius) {
  crowdsteer_grid_desc desc = {.cell_size = radius, .threads = 1};
  crowdsteer_neighbours apart = within(grid, radius);
  crowdsteer_target centre = point_target(200, 230, 0, 0);
  crowdsteer_output o = overwrite(f), a = accumulate(f, 1.0f);
  return crowdsteer_grid_build(grid, &f->a, &desc) ||
         crowdsteer_arrive(&f->a, &centre, prm, &o, 0, f->n) ||
         crowdsteer_separation(&f->a, &apart, prm, &a, 0, f->n);
}

/* Boids: separation, cohesion, alignment, and a weak pull to the centre
 * that keeps the flock in the panel. */
static int boid_steering(flock *f, crowdsteer_grid *grid, const crowdsteer_params *prm) {
  crowdsteer_grid_desc desc = {.cell_size = 50.0f, .threads = 1};
  crowdsteer_neighbours apart = within(grid, 16.0f), flockmates = within(grid, 50.0f);
  crowdsteer_target centre = point_target(200, 220, 0, 0);
  crowdsteer_output o = overwrite(f), cohere = accumulate(f, 0.3f);
  crowdsteer_output align = accumulate(f, 1.0f), home = accumulate(f, 0.05f);
  return crowdsteer_grid_build(grid, &f->a, &desc) ||
         crowdsteer_separation(&f->a, &apart, prm, &o, 0, f->n) ||
         crowdsteer_cohesion(&f->a, &flockmates, prm, &cohere, 0, f->n) ||
         crowdsteer_alignment(&f->a, &flockmates, prm, &align, 0, f->n) ||
         crowdsteer_seek(&f->a, &centre, prm, &home, 0, f->n);
}

/* Left: a crowd arrives at one point while separation keeps each agent
 * about a radius from the others, so it packs into a disc instead of a dot.
 * Right: boids (separation + cohesion + alignment) from random headings;
 * trails are hued by heading, so an aligned flock is one colour. */
static int figure_flocking(pic_image *img) {
  enum { PACKED = 110, BOIDS = 120 };
  const float packed_radius = 20.0f;
  panel p[2];
  int rc = -1;
  crowdsteer_grid *grid = NULL;
  if (panels_init(p, PACKED, BOIDS) || crowdsteer_grid_create(&grid)) goto done;
  uint64_t seed = 20261123;
  flock *f = p[0].f, *b = p[1].f;
  for (size_t i = 0; i < PACKED; i++) {
    f->px[i] = uniform(&seed, 15, 385);
    f->py[i] = i % 2 ? uniform(&seed, 60, 110) : uniform(&seed, 340, 390);
    f->colour[i] = COL_SEPARATION;
  }
  for (size_t i = 0; i < BOIDS; i++) {
    b->px[i] = uniform(&seed, 40, 360);
    b->py[i] = uniform(&seed, 70, 370);
    b->vx[i] = uniform(&seed, -2, 2);
    b->vy[i] = uniform(&seed, -2, 2);
  }
  crowdsteer_params packed, boid;
  memset(&packed, 0, sizeof packed);
  packed.max_speed = 2.0f;
  packed.max_force = 0.2f;
  packed.slowing_radius = 60.0f;
  boid = packed;
  boid.max_speed = 2.5f;
  boid.max_force = 0.08f;
  boid.time_to_target = 2.0f;
  float order_start = order_parameter(b);
  for (int step = 0; step < 400; step++) {
    for (int k = 0; k < 2; k++)
      canvas_fade(&p[k].cv);
    if (packed_steering(f, grid, &packed, packed_radius) ||
        flock_step(f, &packed, &p[0].cv))
      goto done;
    for (size_t i = 0; i < BOIDS; i++)
      b->colour[i] = heading_colour(b->vx[i], b->vy[i]);
    if (boid_steering(b, grid, &boid) || flock_step(b, &boid, &p[1].cv)) goto done;
  }
  blit_trails(p);
  circle(&p[0].img, pix(f->px[0]), pix(f->py[0]), (int)packed_radius, COL_DIM, 3);
  flock_dots(f, &p[0].img);
  for (size_t i = 0; i < BOIDS; i++)
    b->colour[i] = heading_colour(b->vx[i], b->vy[i]);
  flock_dots(b, &p[1].img);
  char order[64];
  snprintf(order, sizeof order, "separation+cohesion+alignment, order %.2f -> %.2f",
           (double)order_start, (double)order_parameter(b));
  caption(&p[0].img, "SEPARATION", COL_SEPARATION,
          "arrive at one point, keep 20 px apart");
  caption(&p[1].img, "BOIDS", COL_HEADING[4], order);
  compose(p, img);
  rc = 0;
done:
  crowdsteer_grid_destroy(grid);
  panels_free(p);
  return rc;
}

/* ---- avoidance: a crowd through a doorway ---------------------------------- */

/* The doorway scene, in panel pixels: a wall across the panel with a
 * doorway, a pillar below it, agents starting above, heading for the
 * doorway (a waypoint: ORCA is local, it plans no route round a wall) and
 * then arriving at a point below. Both panels run crowdsteer_step with the
 * walls (obstacle avoidance holds them); the left one keeps apart by
 * separation only, the right one by ORCA. */
#define DOOR_WALL_Y 200.0f
#define DOOR_LEFT 172.0f
#define DOOR_RIGHT 228.0f
#define DOOR_BODY 6.0f /* body radius, px */
enum { DOOR_AGENTS = 90, DOOR_STEPS = 300 };

static crowdsteer_status door_obstacles(crowdsteer_obstacles **out) {
  crowdsteer_obstacles *o = NULL;
  crowdsteer_status st = crowdsteer_obstacles_create(&o);
  const float walls[2][4] = {{0, DOOR_WALL_Y, DOOR_LEFT, DOOR_WALL_Y},
                             {DOOR_RIGHT, DOOR_WALL_Y, 400, DOOR_WALL_Y}};
  for (int w = 0; w < 2 && st == CROWDSTEER_OK; w++) {
    const float x[2] = {walls[w][0], walls[w][2]}, y[2] = {walls[w][1], walls[w][3]};
    st = crowdsteer_obstacles_add(o, x, y, 2);
  }
  /* The pillar: counter-clockwise in these coordinates (y grows down the
   * picture, so it turns clockwise on screen). */
  const float px[4] = {185, 215, 215, 185}, py[4] = {265, 265, 295, 295};
  if (st == CROWDSTEER_OK) st = crowdsteer_obstacles_add(o, px, py, 4);
  if (st == CROWDSTEER_OK) st = crowdsteer_obstacles_build(o, 0.0f);
  if (st != CROWDSTEER_OK) {
    crowdsteer_obstacles_destroy(o);
    o = NULL;
  }
  *out = o;
  return st;
}

/* Pairs of the flock closer than two body radii (every pair: a small flock). */
static size_t overlapping_pairs(const flock *f) {
  size_t pairs = 0;
  for (size_t i = 0; i < f->n; i++)
    for (size_t j = i + 1; j < f->n; j++) {
      float dx = f->px[i] - f->px[j], dy = f->py[i] - f->py[j];
      pairs += dx * dx + dy * dy < 4.0f * DOOR_BODY * DOOR_BODY;
    }
  return pairs;
}

/* One step of a doorway panel: arrive at the goal, separation blended in
 * (left) or ORCA against the neighbours (right), walls held in both. */
static int door_step(flock *f, crowdsteer_grid *grid, const crowdsteer_obstacles *walls,
                     int orca, canvas *c) {
  crowdsteer_grid_desc desc = {.cell_size = 40.0f, .threads = 1};
  if (crowdsteer_grid_build(grid, &f->a, &desc) != CROWDSTEER_OK) return -1;
  crowdsteer_params prm;
  memset(&prm, 0, sizeof prm);
  prm.max_speed = 2.0f;
  prm.max_force = 0.3f;
  prm.slowing_radius = 60.0f;
  crowdsteer_neighbours near = within(grid, 40.0f), apart = within(grid, 2 * DOOR_BODY);
  near.max_neighbours = 10;
  crowdsteer_step_behaviour b[2];
  memset(b, 0, sizeof b);
  for (size_t i = 0; i < f->n; i++) { /* the doorway until through it */
    const int above = f->py[i] < DOOR_WALL_Y + DOOR_BODY;
    f->wx[i] = 200.0f;
    f->wy[i] = above ? DOOR_WALL_Y + 20.0f : 325.0f;
  }
  b[0].behaviour = CROWDSTEER_ARRIVE;
  b[0].target.kind = CROWDSTEER_TARGET_ARRAYS;
  b[0].target.position.x = f->wx;
  b[0].target.position.y = f->wy;
  b[0].params = prm;
  b[0].weight = 1.0f;
  b[1].behaviour = CROWDSTEER_SEPARATION;
  b[1].neighbours = &apart;
  b[1].params = prm;
  b[1].weight = 2.0f;
  crowdsteer_avoidance av;
  memset(&av, 0, sizeof av);
  av.radius = DOOR_BODY;
  av.time_horizon = 10.0f;
  av.obstacle_time_horizon = 5.0f;
  av.neighbours = orca ? &near : NULL; /* NULL: the walls only */
  av.obstacles = walls;
  crowdsteer_step_desc step;
  memset(&step, 0, sizeof step);
  step.behaviours = b;
  step.behaviour_count = orca ? 1 : 2;
  step.integrator = prm;
  step.threads = 1;
  step.avoidance = &av;
  memcpy(f->ox, f->px, f->n * sizeof(float));
  memcpy(f->oy, f->py, f->n * sizeof(float));
  if (crowdsteer_step(&f->a, &step, 0, f->n) != CROWDSTEER_OK) return -1;
  for (size_t i = 0; i < f->n; i++)
    canvas_line(c, pix(f->ox[i]), pix(f->oy[i]), pix(f->px[i]), pix(f->py[i]),
                scale_rgb(f->colour[i], 1, 2));
  return 0;
}

/* The walls (3 px thick) and the pillar (filled). */
static void draw_door(pic_image *img) {
  for (int x = 0; x < PIC_PANEL; x++)
    if (x <= (int)DOOR_LEFT || x >= (int)DOOR_RIGHT)
      for (int y = -1; y <= 1; y++)
        put(img, x, (int)DOOR_WALL_Y + y, COL_WHITE);
  for (int y = 265; y <= 295; y++)
    for (int x = 185; x <= 215; x++)
      put(img, x, y, COL_DIM);
}

/* Agents as discs of their body radius, dark-rimmed so overlaps show. */
static void body_discs(const flock *f, pic_image *img) {
  static const rgb rim = {PIC_BG_R, PIC_BG_G, PIC_BG_B};
  for (size_t i = 0; i < f->n; i++) {
    disc(img, pix(f->px[i]), pix(f->py[i]), (int)DOOR_BODY, rim);
    disc(img, pix(f->px[i]), pix(f->py[i]), (int)DOOR_BODY - 1, f->colour[i]);
  }
}

/* Left: separation keeps a crowd through a doorway only loosely apart, and
 * at the goal it piles up; right: ORCA keeps every body clear. */
static int figure_avoidance(pic_image *img) {
  panel p[2];
  int rc = -1;
  crowdsteer_grid *grid = NULL;
  crowdsteer_obstacles *walls = NULL;
  if (panels_init(p, DOOR_AGENTS, DOOR_AGENTS) || crowdsteer_grid_create(&grid) ||
      door_obstacles(&walls))
    goto done;
  uint64_t seed = 20260041;
  for (size_t i = 0; i < DOOR_AGENTS; i++) {
    const float x = uniform(&seed, 30, 370), y = uniform(&seed, 60, 180);
    for (int k = 0; k < 2; k++) {
      p[k].f->px[i] = x;
      p[k].f->py[i] = y;
      p[k].f->colour[i] = k == 0 ? COL_SEPARATION : COL_EVADE;
    }
  }
  size_t start = overlapping_pairs(p[0].f);
  for (int step = 0; step < DOOR_STEPS; step++)
    for (int k = 0; k < 2; k++) {
      canvas_fade(&p[k].cv);
      if (door_step(p[k].f, grid, walls, k, &p[k].cv)) goto done;
    }
  blit_trails(p);
  char line[2][80];
  for (int k = 0; k < 2; k++) {
    draw_door(&p[k].img);
    body_discs(p[k].f, &p[k].img);
    snprintf(line[k], sizeof line[k], "through a doorway, %s: %zu -> %zu pairs overlap",
             k == 0 ? "separation" : "ORCA (radius 6)", start, overlapping_pairs(p[k].f));
  }
  caption(&p[0].img, "SEPARATION", COL_SEPARATION, line[0]);
  caption(&p[1].img, "AVOIDANCE (ORCA)", COL_EVADE, line[1]);
  compose(p, img);
  rc = 0;
done:
  crowdsteer_obstacles_destroy(walls);
  crowdsteer_grid_destroy(grid);
  panels_free(p);
  return rc;
}

const char *pic_figure_name(int figure) {
  static const char *names[PIC_FIGURE_COUNT] = {"seek_arrive",  "flee_leave",
                                                "pursuit_seek", "evade_wander",
                                                "flocking",     "avoidance"};
  return figure >= 0 && figure < PIC_FIGURE_COUNT ? names[figure] : NULL;
}

int pic_render_figure(int figure, pic_image *out) {
  static int (*const fn[PIC_FIGURE_COUNT])(pic_image *) = {
      figure_seek_arrive,  figure_flee_leave, figure_pursuit_seek,
      figure_evade_wander, figure_flocking,   figure_avoidance};
  if (figure < 0 || figure >= PIC_FIGURE_COUNT) return -1;
  if (pic_image_init(out, PIC_FIGURE_WIDTH, PIC_FIGURE_HEIGHT)) return -1;
  if (fn[figure](out)) {
    pic_image_free(out);
    return -1;
  }
  return 0;
}
