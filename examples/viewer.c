/* crowdsteer-viewer: an SDL2 window where a crowd steers towards (or away
 * from) the mouse, keeping apart (separation, or ORCA avoidance), or flocks
 * (boids), among walls and pillars if asked; keys pick the behaviour, agent
 * count and ISA. */
#if defined(__linux__) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* setenv, execv */
#endif
#include <SDL.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __linux__
#include <unistd.h>
#endif

#include "../util/splitmix64.h"
#include "crowdsteer.h"
#include "obstacle_layout.h"
#include "pictures.h"

/* The modes: a single behaviour (keys 1-7, by its crowdsteer_behaviour
 * value), a mixed crowd and boids. */
enum behaviour { B_MIXED = CROWDSTEER_WANDER + 1, B_BOIDS, B_COUNT };

static const char *behaviour_name(int b) {
  if (b == B_MIXED) return "mixed";
  if (b == B_BOIDS) return "boids";
  return crowdsteer_behaviour_name((crowdsteer_behaviour)b);
}
/* The same hues as the pictures (pictures_draw.h), as ARGB. */
static const uint32_t behaviour_colour[B_COUNT] = {0xFFFF9628, 0xFFF03C3C, 0xFF50DC64,
                                                   0xFFE65AE6, 0xFF4696FF, 0xFF3CE1E1,
                                                   0xFFF0E146, 0xFFEBEBEB, 0xFF46D7D7};

/* Neighbours, in pixels: separation keeps agents this far apart (blended
 * into every behaviour while it is on); boids also cohere and align with the
 * flockmates within FLOCK_RADIUS. */
#define SEPARATION_RADIUS 5.0f
#define SEPARATION_WEIGHT 1.0f
#define FLOCK_RADIUS 12.0f
/* Avoidance (key a): bodies half the separation radius (they touch where
 * separation stops pushing), the 10 nearest within FLOCK_RADIUS (its grid
 * keeps velocities) looked at 4 frames ahead, walls (key o: the layout
 * the demo's --obstacles uses, stretched over the window) 2 frames ahead. */
#define BODY_RADIUS (0.5f * SEPARATION_RADIUS)
#define AVOID_HORIZON 4.0f
#define WALL_HORIZON 2.0f
#define WALL 0xFFB4B9C3u
/* Boids' blend: the weights of the flocking picture (docs/pictures.md). */
#define BOIDS_SEPARATION_WEIGHT 1.5f
#define BOIDS_COHESION_WEIGHT 0.3f
#define BOIDS_ALIGNMENT_WEIGHT 1.0f
#define BG 0xFF0E1117u
#define TEXT 0xFFEBEBEBu
#define DIM 0xFF969BA5u

/* Agent counts selectable with +/-: a 1-2-5 ladder. */
static const size_t ladder[] = {1000,  2000,   5000,   10000,  20000,
                                50000, 100000, 200000, 500000, 1000000};
enum { LADDER = sizeof ladder / sizeof ladder[0] };

typedef struct crowd {
  size_t n, cap;
  float *px, *py, *vx, *vy, *sx, *sy, *wx, *wy, *speed;
  uint64_t rng;
  /* Neighbour indexes, rebuilt every frame: cells of the separation radius;
   * boids' flockmates are farther, so they get a grid of their own. */
  crowdsteer_grid *grid, *flock_grid;
  crowdsteer_workspace *workspace; /* the steps' neighbour scratch */
  uint32_t *mask;                  /* the mixed crowd's behaviour bits (avoidance) */
  crowdsteer_obstacles *walls;     /* the layout over the window */
} crowd;

static float uniform(uint64_t *s, float lo, float hi) {
  return lo +
         (hi - lo) * ((float)(uint32_t)(splitmix64_next(s) >> 40) * (1.0f / 16777216.0f));
}

/* Grows (keeping existing agents) or shrinks to n; new agents are placed at
 * random over the window. */
static int crowd_resize(crowd *c, size_t n, int w, int h) {
  if (n > c->cap) {
    float **arrays[] = {&c->px, &c->py, &c->vx, &c->vy,   &c->sx,
                        &c->sy, &c->wx, &c->wy, &c->speed};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++) {
      float *p = realloc(*arrays[k], n * sizeof(float));
      if (!p) return -1;
      *arrays[k] = p;
    }
    uint32_t *mask = realloc(c->mask, n * sizeof *mask);
    if (!mask) return -1;
    c->mask = mask;
    c->cap = n;
  }
  for (size_t i = c->n; i < n; i++) {
    c->px[i] = uniform(&c->rng, 0, (float)w);
    c->py[i] = uniform(&c->rng, 0, (float)h);
    c->vx[i] = uniform(&c->rng, -1, 1);
    c->vy[i] = uniform(&c->rng, -1, 1);
    c->sx[i] = c->sy[i] = c->wx[i] = c->wy[i] = 0;
    c->speed[i] = uniform(&c->rng, 2.0f, 5.0f); /* a heterogeneous crowd */
  }
  c->n = n;
  return 0;
}

static void crowd_free(crowd *c) {
  float *arrays[] = {c->px, c->py, c->vx, c->vy, c->sx, c->sy, c->wx, c->wy, c->speed};
  for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
    free(arrays[k]);
  crowdsteer_grid_destroy(c->grid);
  crowdsteer_grid_destroy(c->flock_grid);
  crowdsteer_workspace_destroy(c->workspace);
  crowdsteer_obstacles_destroy(c->walls);
  free(c->mask);
  memset(c, 0, sizeof *c);
}

/* Runs behaviour b on [begin, end) then blends a weak pull to the centre for
 * the behaviours that would otherwise leave the screen empty. */
static crowdsteer_status steer(crowd *c, int b, const crowdsteer_target *t,
                               crowdsteer_wander_state *ws, const crowdsteer_params *prm,
                               size_t begin, size_t end) {
  crowdsteer_agents a = {c->n, 2, c->px, c->py, NULL, c->vx, c->vy, NULL, NULL};
  crowdsteer_output o;
  memset(&o, 0, sizeof o);
  o.steering.x = c->sx;
  o.steering.y = c->sy;
  crowdsteer_step_behaviour d;
  memset(&d, 0, sizeof d);
  d.behaviour = (crowdsteer_behaviour)b;
  d.target = *t;
  d.params = *prm;
  d.wander = ws;
  return crowdsteer_run(&a, &d, &o, begin, end);
}

static crowdsteer_neighbours within(const crowdsteer_grid *grid, float radius) {
  crowdsteer_neighbours nb;
  memset(&nb, 0, sizeof nb);
  nb.grid = grid;
  nb.radius = radius;
  return nb;
}

typedef crowdsteer_status (*neighbour_call)(const crowdsteer_agents *,
                                            const crowdsteer_neighbours *,
                                            const crowdsteer_params *,
                                            const crowdsteer_output *, size_t, size_t);

/* One neighbour behaviour over the crowd, one range per OpenMP thread (the
 * calls only read the grid and each writes its own range); serial without
 * OpenMP. */
static crowdsteer_status on_threads(neighbour_call call, const crowdsteer_agents *a,
                                    const crowdsteer_neighbours *nb,
                                    const crowdsteer_params *prm,
                                    const crowdsteer_output *o) {
  enum { MAX_PARTS = 64 };
  crowdsteer_status status[MAX_PARTS];
  int parts = crowdsteer_step_max_threads();
  parts = parts < 1 ? 1 : parts > MAX_PARTS ? MAX_PARTS : parts;
#pragma omp parallel for num_threads(parts)
  for (int t = 0; t < parts; t++)
    status[t] = call(a, nb, prm, o, a->count * (size_t)t / (size_t)parts,
                     a->count * (size_t)(t + 1) / (size_t)parts);
  for (int t = 0; t < parts; t++)
    if (status[t] != CROWDSTEER_OK) return status[t];
  return CROWDSTEER_OK;
}

/* Separation from the state before the frame's integration, added to the
 * behaviour's steering. */
static crowdsteer_status add_separation(crowd *c, const crowdsteer_params *prm) {
  crowdsteer_agents a = {c->n, 2, c->px, c->py, NULL, c->vx, c->vy, NULL, NULL};
  crowdsteer_grid_desc desc;
  memset(&desc, 0, sizeof desc);
  desc.cell_size = SEPARATION_RADIUS; /* a cell per radius: fewest candidates */
  desc.positions_only = 1;            /* separation reads no velocity */
  crowdsteer_status st = crowdsteer_grid_build(c->grid, &a, &desc);
  crowdsteer_output o;
  memset(&o, 0, sizeof o);
  o.steering.x = c->sx;
  o.steering.y = c->sy;
  o.mode = CROWDSTEER_ACCUMULATE;
  o.weight = SEPARATION_WEIGHT;
  crowdsteer_neighbours apart = within(c->grid, SEPARATION_RADIUS);
  return st ? st : on_threads(crowdsteer_separation, &a, &apart, prm, &o);
}

/* The grids a step reads, from the state before it: separation's (cells of
 * its radius, positions only) and the flockmates' (cohesion, alignment and
 * ORCA read velocities too), each when asked for. */
static crowdsteer_status build_grids(crowd *c, const crowdsteer_agents *a, int apart,
                                     int mates) {
  crowdsteer_grid_desc desc;
  memset(&desc, 0, sizeof desc);
  desc.cell_size = SEPARATION_RADIUS;
  desc.positions_only = 1;
  crowdsteer_status st = apart ? crowdsteer_grid_build(c->grid, a, &desc) : CROWDSTEER_OK;
  desc.cell_size = FLOCK_RADIUS;
  desc.positions_only = 0;
  if (st == CROWDSTEER_OK && mates) st = crowdsteer_grid_build(c->flock_grid, a, &desc);
  return st;
}

/* Boids: separation, cohesion and alignment blended and integrated by one
 * crowdsteer_step, which splits its neighbour passes over its threads by
 * grid cells (each thread gathers only its own cells' candidates). */
static crowdsteer_status boids_step(crowd *c, const crowdsteer_params *prm,
                                    const crowdsteer_avoidance *avoid) {
  crowdsteer_agents a = {c->n, 2, c->px, c->py, NULL, c->vx, c->vy, NULL, NULL};
  crowdsteer_status st = build_grids(c, &a, 1, 1);
  if (st != CROWDSTEER_OK) return st;
  const crowdsteer_neighbours apart = within(c->grid, SEPARATION_RADIUS);
  const crowdsteer_neighbours mates = within(c->flock_grid, FLOCK_RADIUS);
  const crowdsteer_behaviour kinds[3] = {CROWDSTEER_SEPARATION, CROWDSTEER_COHESION,
                                         CROWDSTEER_ALIGNMENT};
  const float weights[3] = {BOIDS_SEPARATION_WEIGHT, BOIDS_COHESION_WEIGHT,
                            BOIDS_ALIGNMENT_WEIGHT};
  crowdsteer_step_behaviour b[3];
  memset(b, 0, sizeof b);
  for (int k = 0; k < 3; k++) {
    b[k].behaviour = kinds[k];
    b[k].params = *prm;
    b[k].weight = weights[k];
    b[k].neighbours = k == 0 ? &apart : &mates;
  }
  crowdsteer_step_desc step;
  memset(&step, 0, sizeof step);
  step.behaviours = b;
  step.behaviour_count = 3;
  step.combine = CROWDSTEER_BLEND;
  step.integrator = *prm;
  step.workspace = c->workspace;
  crowdsteer_avoidance av;
  if (avoid) { /* ORCA sees the flockmates' grid (it keeps velocities) */
    av = *avoid;
    av.neighbours = av.neighbours ? &mates : NULL;
    step.avoidance = &av;
  }
  return crowdsteer_step(&a, &step, 0, c->n);
}

/* With avoidance or walls, the behaviours, separation and integration run
 * as one crowdsteer_step whose last stage is ORCA (walls held): its grids
 * are built from the state before the step, separation's positions only,
 * ORCA's with velocities. The mixed crowd's sevenths select their
 * behaviour by mask. */
static crowdsteer_status avoiding_step(crowd *c, int b, const crowdsteer_target *t,
                                       crowdsteer_wander_state *ws,
                                       const crowdsteer_params *prm, int separation,
                                       const crowdsteer_avoidance *avoid) {
  crowdsteer_agents a = {c->n, 2, c->px, c->py, NULL, c->vx, c->vy, NULL, NULL};
  crowdsteer_status st = build_grids(c, &a, separation, avoid->neighbours != NULL);
  if (st != CROWDSTEER_OK) return st;
  const crowdsteer_neighbours apart = within(c->grid, SEPARATION_RADIUS);
  crowdsteer_neighbours near = within(c->flock_grid, FLOCK_RADIUS);
  near.max_neighbours = 10;
  crowdsteer_avoidance av = *avoid;
  av.neighbours = av.neighbours ? &near : NULL;
  enum { KINDS = CROWDSTEER_WANDER + 1 };
  crowdsteer_step_behaviour beh[KINDS + 1];
  memset(beh, 0, sizeof beh);
  const int first = b == B_MIXED ? 0 : b, last = b == B_MIXED ? KINDS - 1 : b;
  size_t count = 0;
  for (int k = first; k <= last; k++, count++) {
    beh[count].behaviour = (crowdsteer_behaviour)k;
    beh[count].target = *t;
    beh[count].params = *prm;
    beh[count].wander = ws;
    beh[count].weight = 1.0f;
  }
  if (separation) {
    beh[count].behaviour = CROWDSTEER_SEPARATION;
    beh[count].neighbours = &apart;
    beh[count].params = *prm;
    beh[count++].weight = SEPARATION_WEIGHT;
  }
  if (b == B_MIXED) /* agent i of seventh k: behaviour k, and separation */
    for (int k = 0; k < KINDS; k++)
      for (size_t i = c->n * (size_t)k / KINDS; i < c->n * (size_t)(k + 1) / KINDS; i++)
        c->mask[i] = 1u << k | (separation ? 1u << KINDS : 0u);
  crowdsteer_step_desc step;
  memset(&step, 0, sizeof step);
  step.behaviours = beh;
  step.behaviour_count = count;
  step.behaviour_mask = b == B_MIXED ? c->mask : NULL;
  step.combine = CROWDSTEER_BLEND;
  step.integrator = *prm;
  step.workspace = c->workspace;
  step.avoidance = &av;
  return crowdsteer_step(&a, &step, 0, c->n);
}

/* Puts the crowd in a grid's cell order, so the next frame's grid builds,
 * neighbour walks and drawing read memory nearly in order (agents keep
 * their neighbours for many frames). The steering arrays, rewritten every
 * frame, are the scratch: each array is gathered into one and takes its
 * place, half of them on each of two threads (the library's threads
 * allowing). No ids: a picture need not
 * keep an unsorted crowd's bits. */
static crowdsteer_status into_cell_order(crowd *c, const crowdsteer_grid *grid) {
  size_t n;
  const uint32_t *order = crowdsteer_grid_order(grid, &n);
  float **arrays[] = {&c->px, &c->py, &c->vx, &c->vy, &c->wx, &c->wy, &c->speed};
  float **scratch[2] = {&c->sx, &c->sy};
  enum { ARRAYS = sizeof arrays / sizeof arrays[0] };
  crowdsteer_status status[2] = {CROWDSTEER_OK, CROWDSTEER_OK};
  const int halves = crowdsteer_step_max_threads() > 1 ? 2 : 1;
#pragma omp parallel for num_threads(halves)
  for (int t = 0; t < 2; t++)
    for (int k = t; k < ARRAYS; k += 2) {
      status[t] = crowdsteer_reorder(*scratch[t], *arrays[k], order, n);
      if (status[t] != CROWDSTEER_OK) break;
      float *sorted = *scratch[t];
      *scratch[t] = *arrays[k];
      *arrays[k] = sorted;
    }
  return status[0] != CROWDSTEER_OK ? status[0] : status[1];
}

/* ---- drawing into the ARGB frame -------------------------------------------- */

typedef struct frame {
  uint32_t *px;
  int w, h;
} frame;

static void plot(frame *f, int x, int y, uint32_t c) {
  if (x >= 0 && y >= 0 && x < f->w && y < f->h) f->px[(size_t)y * f->w + x] = c;
}

static void text(frame *f, int x, int y, int scale, uint32_t c, const char *s) {
  for (int cx = x; *s; s++, cx += (PIC_FONT_W + 1) * scale) {
    const uint8_t *rows = pic_font_glyph(*s);
    for (int r = 0; r < PIC_FONT_H; r++)
      for (int col = 0; col < PIC_FONT_W; col++)
        if (rows[r] & (0x10 >> col))
          for (int dy = 0; dy < scale; dy++)
            for (int dx = 0; dx < scale; dx++)
              plot(f, cx + col * scale + dx, y + r * scale + dy, c);
  }
}

/* Text on a dark box so it stays readable over a dense crowd. */
static void label(frame *f, int x, int y, int scale, uint32_t c, const char *s) {
  int w = (int)strlen(s) * (PIC_FONT_W + 1) * scale + 2 * scale,
      h = (PIC_FONT_H + 2) * scale;
  for (int yy = y - scale; yy < y - scale + h; yy++)
    for (int xx = x - scale; xx < x - scale + w; xx++)
      plot(f, xx, yy, BG);
  text(f, x, y, scale, c, s);
}

static void circle(frame *f, int cx, int cy, int r, uint32_t c) {
  if (r <= 0 || r > 4000) return;
  for (int x = r, y = 0, err = 1 - r, k = 0; x >= y; k++) {
    if ((k / 4) % 2 == 0) { /* dashed */
      int pts[8][2] = {{x, y},   {y, x},   {-y, x}, {-x, y},
                       {-x, -y}, {-y, -x}, {y, -x}, {x, -y}};
      for (int i = 0; i < 8; i++)
        plot(f, cx + pts[i][0], cy + pts[i][1], c);
    }
    y++;
    if (err < 0) {
      err += 2 * y + 1;
    } else {
      x--;
      err += 2 * (y - x) + 1;
    }
  }
}

/* A line two pixels thick (Bresenham, then its neighbour below/right). */
static void thick_line(frame *f, int x0, int y0, int x1, int y1, uint32_t c) {
  int dx = abs(x1 - x0), dy = -abs(y1 - y0), sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
  for (int err = dx + dy;;) {
    plot(f, x0, y0, c);
    plot(f, x0 + (dx < -dy), y0 + (dx >= -dy), c);
    if (x0 == x1 && y0 == y1) break;
    int e2 = 2 * err;
    if (e2 >= dy) err += dy, x0 += sx;
    if (e2 <= dx) err += dx, y0 += sy;
  }
}

/* The obstacle layout, as the avoidance sees it: every edge. */
static void draw_walls(frame *f) {
  for (size_t k = 0; k < layout_count(); k++) {
    float x[LAYOUT_MAX_VERTICES], y[LAYOUT_MAX_VERTICES];
    size_t n =
        layout_obstacle(k, f->w * 0.5f, f->h * 0.5f, f->w * 0.5f, f->h * 0.5f, x, y);
    for (size_t i = 0; i < (n == 2 ? 1 : n); i++)
      thick_line(f, (int)x[i], (int)y[i], (int)x[(i + 1) % n], (int)y[(i + 1) % n], WALL);
  }
}

/* Agents as single pixels, added (saturating) so dense regions glow. */
static void draw_agents(frame *f, const crowd *c, size_t begin, size_t end,
                        uint32_t colour) {
  uint32_t add = (colour >> 1) & 0x007F7F7Fu; /* half of each channel */
  for (size_t i = begin; i < end; i++) {
    float x = c->px[i], y = c->py[i];
    if (!(x >= 0 && y >= 0 && x < (float)f->w && y < (float)f->h)) continue;
    uint32_t *p = f->px + (size_t)(int)y * f->w + (int)x;
    uint32_t v = *p;
    uint32_t r = ((v >> 16) & 255) + ((add >> 16) & 255);
    uint32_t g = ((v >> 8) & 255) + ((add >> 8) & 255);
    uint32_t b = (v & 255) + (add & 255);
    *p = 0xFF000000u | (r > 255 ? 255 : r) << 16 | (g > 255 ? 255 : g) << 8 |
         (b > 255 ? 255 : b);
  }
}

/* ---- main --------------------------------------------------------------------- */

typedef struct options {
  size_t agents;
  int behaviour, script, width, height, vsync, separation, avoid, obstacles;
  const char *screenshot, *isa, *keys;
} options;

static int usage(const char *argv0) {
  fprintf(
      stderr,
      "usage: %s [options]\n"
      "  --agents N          initial agent count (default 20000)\n"
      "  --behaviour NAME    seek flee arrive leave pursuit evade wander mixed boids\n"
      "  --separation on|off agents keep apart (default on; key s)\n"
      "  --avoid on|off      ORCA collision avoidance (default off; key a)\n"
      "  --obstacles on|off  walls, pillars and doorways (default off; key o)\n"
      "  --isa NAME          start on this ISA (scalar sse4 avx2 avx512 neon)\n"
      "  --size WxH          window size (default 1280x720)\n"
      "  --vsync             cap the frame rate to the display\n"
      "  --script N          move the target on a fixed path, run N frames, exit\n"
      "  --screenshot FILE   with --script: save the last frame (.bmp, or .png)\n"
      "  --keys KEYS         press these keys, one per frame from the first\n"
      "                      (digits, lower-case letters, +, -), as a user would\n",
      argv0);
  return 2;
}

static int parse(int argc, char **argv, options *o) {
  memset(o, 0, sizeof *o);
  o->agents = 20000;
  o->behaviour = CROWDSTEER_SEEK;
  o->width = 1280;
  o->height = 720;
  o->separation = 1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--vsync") == 0) {
      o->vsync = 1;
      continue;
    }
    if (!v) return -1;
    i++;
    if (strcmp(a, "--agents") == 0) {
      long long n = atoll(v);
      if (n < 1 || n > 100000000) return -1;
      o->agents = (size_t)n;
    } else if (strcmp(a, "--behaviour") == 0 || strcmp(a, "--behavior") == 0) {
      o->behaviour = -1;
      for (int b = 0; b < B_COUNT; b++)
        if (strcmp(v, behaviour_name(b)) == 0) o->behaviour = b;
      if (o->behaviour < 0) return -1;
    } else if (strcmp(a, "--isa") == 0) {
      o->isa = v;
    } else if (strcmp(a, "--separation") == 0 || strcmp(a, "--avoid") == 0 ||
               strcmp(a, "--obstacles") == 0) {
      if (strcmp(v, "on") != 0 && strcmp(v, "off") != 0) return -1;
      int *flag = a[2] == 's' ? &o->separation : a[2] == 'a' ? &o->avoid : &o->obstacles;
      *flag = strcmp(v, "on") == 0;
    } else if (strcmp(a, "--size") == 0) {
      if (sscanf(v, "%dx%d", &o->width, &o->height) != 2 || o->width < 320 ||
          o->height < 240 || o->width > 8192 || o->height > 8192)
        return -1;
    } else if (strcmp(a, "--script") == 0) {
      o->script = atoi(v);
      if (o->script < 1) return -1;
    } else if (strcmp(a, "--screenshot") == 0) {
      o->screenshot = v;
    } else if (strcmp(a, "--keys") == 0) {
      o->keys = v;
    } else {
      return -1;
    }
  }
  return 0;
}

static int ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && SDL_strcasecmp(s + a - b, suffix) == 0;
}

/* Saves an ARGB8888 frame as BMP, or as PNG when the name says so. */
static int save_frame(const uint32_t *px, int w, int h, const char *path) {
  if (ends_with(path, ".png")) {
    pic_image img;
    if (pic_image_init(&img, w, h)) return -1;
    for (size_t i = 0; i < (size_t)w * h; i++) {
      img.rgb[3 * i] = (uint8_t)(px[i] >> 16);
      img.rgb[3 * i + 1] = (uint8_t)(px[i] >> 8);
      img.rgb[3 * i + 2] = (uint8_t)px[i];
    }
    int rc = pic_write_png(&img, path);
    pic_image_free(&img);
    return rc;
  }
  SDL_Surface *s = SDL_CreateRGBSurfaceWithFormatFrom((void *)px, w, h, 32, w * 4,
                                                      SDL_PIXELFORMAT_ARGB8888);
  if (!s) return -1;
  int rc = SDL_SaveBMP(s, path);
  SDL_FreeSurface(s);
  return rc == 0 ? 0 : -1;
}

/* The viewer's state between frames. */
typedef struct view {
  const options *opt;
  int W, H;
  SDL_Window *win;
  SDL_Renderer *ren;
  SDL_Texture *tex;
  SDL_RendererInfo info;
  uint32_t *pixels;
  crowd c;
  int behaviour, separation, avoid, obstacles, paused, help, running, rc;
  size_t rung;
  float tx, ty, ptx, pty;
  crowdsteer_wander_state ws;
  crowdsteer_params prm;
  double freq, sim_ms, frame_ms, draw_ms, total_sim, total_frame, total_draw,
      total_present;
  uint64_t last;
} view;

/* Window, renderer, frame buffer and crowd; 1 when any is missing. */
static int view_open(view *v, const options *opt) {
  memset(v, 0, sizeof *v);
  v->opt = opt;
  v->W = opt->width;
  v->H = opt->height;
  SDL_SetMainReady();
  if (SDL_Init(SDL_INIT_VIDEO) != 0) {
    fprintf(stderr, "crowdsteer-viewer: SDL_Init: %s\n", SDL_GetError());
    return 1;
  }
  v->win = SDL_CreateWindow("crowdsteer viewer", SDL_WINDOWPOS_CENTERED,
                            SDL_WINDOWPOS_CENTERED, v->W, v->H, 0);
  v->ren =
      v->win ? SDL_CreateRenderer(v->win, -1, opt->vsync ? SDL_RENDERER_PRESENTVSYNC : 0)
             : NULL;
  v->tex = v->ren ? SDL_CreateTexture(v->ren, SDL_PIXELFORMAT_ARGB8888,
                                      SDL_TEXTUREACCESS_STREAMING, v->W, v->H)
                  : NULL;
  v->pixels = malloc((size_t)v->W * v->H * sizeof *v->pixels);
  v->c.rng = 12345;
  if (!v->tex || !v->pixels || crowd_resize(&v->c, opt->agents, v->W, v->H) ||
      crowdsteer_grid_create(&v->c.grid) != CROWDSTEER_OK ||
      crowdsteer_grid_create(&v->c.flock_grid) != CROWDSTEER_OK ||
      crowdsteer_workspace_create(&v->c.workspace) != CROWDSTEER_OK ||
      layout_build(&v->c.walls, v->W * 0.5f, v->H * 0.5f, v->W * 0.5f, v->H * 0.5f) !=
          CROWDSTEER_OK) {
    fprintf(stderr, "crowdsteer-viewer: setup failed: %s\n", SDL_GetError());
    return 1;
  }
  SDL_GetRendererInfo(v->ren, &v->info);
  return 0;
}

/* The starting mode, target and parameters. */
static void view_start(view *v) {
  v->behaviour = v->opt->behaviour;
  v->separation = v->opt->separation;
  v->avoid = v->opt->avoid;
  v->obstacles = v->opt->obstacles;
  v->help = 1;
  v->running = 1;
  while (v->rung + 1 < LADDER && ladder[v->rung] < v->c.n)
    v->rung++;
  v->tx = v->ptx = v->W * 0.5f;
  v->ty = v->pty = v->H * 0.5f;
  v->ws = (crowdsteer_wander_state){{NULL, NULL, NULL}, 42, 0};
  crowdsteer_params *prm = &v->prm;
  prm->max_force = 0.25f;
  prm->slowing_radius = 150.0f;
  prm->target_radius = 3.0f;
  prm->panic_radius = 220.0f;
  prm->danger_radius = 220.0f;
  prm->escape_radius = 60.0f;
  prm->max_prediction = 30.0f;
  prm->wander_distance = 1.0f;
  prm->wander_radius = 0.6f;
  prm->jitter = 0.4f;
  v->freq = (double)SDL_GetPerformanceFrequency();
  v->last = SDL_GetPerformanceCounter();
}

static void handle_key(view *v, SDL_Keycode k) {
  if (k >= SDLK_1 && k <= SDLK_9)
    v->behaviour = (int)(k - SDLK_1);
  else if (k == SDLK_s)
    v->separation = !v->separation;
  else if (k == SDLK_a)
    v->avoid = !v->avoid;
  else if (k == SDLK_o)
    v->obstacles = !v->obstacles;
  else if (k == SDLK_ESCAPE || k == SDLK_q)
    v->running = 0;
  else if (k == SDLK_SPACE)
    v->paused = !v->paused;
  else if (k == SDLK_h)
    v->help = !v->help;
  else if (k == SDLK_r) {
    v->c.n = 0;
    if (crowd_resize(&v->c, ladder[v->rung], v->W, v->H)) v->running = 0;
  } else if ((k == SDLK_PLUS || k == SDLK_EQUALS || k == SDLK_KP_PLUS) &&
             v->rung + 1 < LADDER) {
    if (crowd_resize(&v->c, ladder[++v->rung], v->W, v->H)) v->running = 0;
  } else if ((k == SDLK_MINUS || k == SDLK_KP_MINUS) && v->rung > 0) {
    if (crowd_resize(&v->c, ladder[--v->rung], v->W, v->H)) v->running = 0;
  } else if (k == SDLK_i) { /* next ISA this build and CPU can run */
    int cur = (int)crowdsteer_active_isa();
    for (int s = 1; s <= CROWDSTEER_ISA_COUNT; s++) {
      crowdsteer_isa isa = (crowdsteer_isa)((cur + s) % CROWDSTEER_ISA_COUNT);
      if (crowdsteer_isa_supported(isa) && crowdsteer_force_isa(isa) == CROWDSTEER_OK)
        break;
    }
  }
}

/* --keys: frame n's key goes through SDL's event queue, as a pressed key
 * does (printable keys' SDL keycodes are their characters). */
static void press_scripted_key(const view *v, int frame_no) {
  const char *keys = v->opt->keys;
  if (!keys || (size_t)frame_no >= strlen(keys)) return;
  SDL_Event e;
  SDL_zero(e);
  e.type = SDL_KEYDOWN;
  e.key.keysym.sym = (SDL_Keycode)(unsigned char)keys[frame_no];
  SDL_PushEvent(&e);
}

static void poll_events(view *v) {
  SDL_Event e;
  while (SDL_PollEvent(&e)) {
    if (e.type == SDL_QUIT) v->running = 0;
    if (e.type == SDL_KEYDOWN) handle_key(v, e.key.keysym.sym);
  }
}

/* This frame's target: the mouse, or a Lissajous path with --script. */
static crowdsteer_target follow_target(view *v, int frame_no) {
  if (v->opt->script) {
    double t = frame_no * 0.008;
    v->tx = (float)(v->W * (0.5 + 0.33 * sin(t * 1.3)));
    v->ty = (float)(v->H * (0.5 + 0.33 * sin(t * 2.1 + 0.5)));
  } else {
    int mx, my;
    SDL_GetMouseState(&mx, &my);
    v->tx = (float)mx;
    v->ty = (float)my;
  }
  crowdsteer_target t;
  memset(&t, 0, sizeof t);
  t.point[0] = v->tx;
  t.point[1] = v->ty;
  t.point_velocity[0] = v->tx - v->ptx;
  t.point_velocity[1] = v->ty - v->pty;
  v->ptx = v->tx;
  v->pty = v->ty;
  return t;
}

/* Steering and integration: the part crowdsteer does. */
static crowdsteer_status simulate(view *v, const crowdsteer_target *t, int frame_no) {
  crowd *c = &v->c;
  v->prm.max_speed_per_agent = c->speed;
  v->ws.direction.x = c->wx;
  v->ws.direction.y = c->wy;
  v->ws.tick = (uint32_t)frame_no;
  crowdsteer_avoidance av;
  memset(&av, 0, sizeof av);
  av.radius = BODY_RADIUS;
  av.time_horizon = AVOID_HORIZON;
  av.obstacle_time_horizon = WALL_HORIZON;
  /* A placeholder: non-NULL means "avoid the agents"; the step functions
   * point it at the grid they build. */
  av.neighbours = v->avoid ? &(crowdsteer_neighbours){0} : NULL;
  av.obstacles = v->obstacles ? c->walls : NULL;
  const crowdsteer_avoidance *avoid = v->avoid || v->obstacles ? &av : NULL;
  if (v->behaviour == B_BOIDS) {
    crowdsteer_status st = boids_step(c, &v->prm, avoid);
    return st == CROWDSTEER_OK ? into_cell_order(c, c->flock_grid) : st;
  }
  if (avoid) {
    crowdsteer_status st =
        avoiding_step(c, v->behaviour, t, &v->ws, &v->prm, v->separation, avoid);
    const crowdsteer_grid *order = v->avoid ? c->flock_grid : c->grid;
    if (st == CROWDSTEER_OK && v->behaviour != B_MIXED && (v->avoid || v->separation))
      st = into_cell_order(c, order);
    return st;
  }
  crowdsteer_status st = CROWDSTEER_OK;
  if (v->behaviour == B_MIXED) {
    for (int b = 0; b < CROWDSTEER_WANDER + 1 && st == CROWDSTEER_OK; b++)
      st = steer(c, b, t, &v->ws, &v->prm, c->n * b / 7, c->n * (b + 1) / 7);
  } else {
    st = steer(c, v->behaviour, t, &v->ws, &v->prm, 0, c->n);
  }
  if (st == CROWDSTEER_OK && v->separation) st = add_separation(c, &v->prm);
  crowdsteer_agents a = {c->n, 2, c->px, c->py, NULL, c->vx, c->vy, NULL, NULL};
  crowdsteer_vectors s = {c->sx, c->sy, NULL};
  if (st == CROWDSTEER_OK) st = crowdsteer_integrate(&a, &s, &v->prm, 0, c->n);
  /* (The mixed crowd's behaviours are index ranges: it keeps its order.) */
  if (st == CROWDSTEER_OK && v->separation && v->behaviour != B_MIXED)
    st = into_cell_order(c, c->grid);
  return st;
}

/* The screen wraps around, so fleeing crowds stay in view. */
static void wrap_around(view *v) {
  crowd *c = &v->c;
  for (size_t i = 0; i < c->n; i++) {
    if (c->px[i] < 0)
      c->px[i] += (float)v->W;
    else if (c->px[i] >= (float)v->W)
      c->px[i] -= (float)v->W;
    if (c->py[i] < 0)
      c->py[i] += (float)v->H;
    else if (c->py[i] >= (float)v->H)
      c->py[i] -= (float)v->H;
  }
}

/* The agents, the target and the radii of the behaviour shown. */
static void draw_scene(const view *v, frame *f) {
  const int behaviour = v->behaviour;
  for (size_t i = 0; i < (size_t)v->W * v->H; i++)
    v->pixels[i] = BG;
  if (behaviour == B_MIXED) {
    for (int b = 0; b < 7; b++)
      draw_agents(f, &v->c, v->c.n * b / 7, v->c.n * (b + 1) / 7, behaviour_colour[b]);
  } else {
    draw_agents(f, &v->c, 0, v->c.n, behaviour_colour[behaviour]);
  }
  if (v->obstacles) draw_walls(f);
  int cx = (int)v->tx, cy = (int)v->ty;
  for (int k = -8; k <= 8; k++) {
    plot(f, cx + k, cy, TEXT);
    plot(f, cx, cy + k, TEXT);
  }
  if (behaviour == CROWDSTEER_ARRIVE)
    circle(f, cx, cy, (int)v->prm.slowing_radius, behaviour_colour[CROWDSTEER_ARRIVE]);
  if (behaviour == CROWDSTEER_FLEE || behaviour == CROWDSTEER_EVADE)
    circle(f, cx, cy, (int)v->prm.panic_radius, behaviour_colour[behaviour]);
  if (behaviour == CROWDSTEER_LEAVE) {
    circle(f, cx, cy, (int)v->prm.danger_radius, behaviour_colour[CROWDSTEER_LEAVE]);
    circle(f, cx, cy, (int)v->prm.escape_radius, behaviour_colour[CROWDSTEER_LEAVE]);
  }
}

/* The mode, the timings and (unless hidden) the keys. */
static void draw_text(const view *v, frame *f) {
  char line[256];
  snprintf(line, sizeof line, "%s%s%s%s  %zu agents  ISA %s%s",
           behaviour_name(v->behaviour),
           v->separation && v->behaviour != B_BOIDS ? " + separation" : "",
           v->avoid ? " + avoidance" : "", v->obstacles ? " + walls" : "", v->c.n,
           crowdsteer_isa_name(crowdsteer_active_isa()), v->paused ? "  [paused]" : "");
  label(f, 10, 10, 2, behaviour_colour[v->behaviour], line);
  snprintf(line, sizeof line,
           "frame %.2f ms (%.0f fps)   steer+integrate %.2f ms = %.1f M agents/s   "
           "draw %.2f ms",
           v->frame_ms, v->frame_ms > 0 ? 1000.0 / v->frame_ms : 0.0, v->sim_ms,
           v->sim_ms > 0 ? (double)v->c.n / v->sim_ms / 1000.0 : 0.0, v->draw_ms);
  label(f, 10, 34, 1, TEXT, line);
  if (!v->help) return;
  int x = 10, y = v->H - 40;
  for (int b = 0; b < B_COUNT; b++) {
    snprintf(line, sizeof line, "%d %s", b + 1, behaviour_name(b));
    label(f, x, y, 1, behaviour_colour[b], line);
    x += ((int)strlen(line) + 2) * (PIC_FONT_W + 1);
  }
  label(f, 10, v->H - 22, 1, DIM,
        "s separation   a avoidance (ORCA)   o walls   +/- agents   i cycle ISA   "
        "space pause   r reset   h hide keys   esc quit   mouse = target");
}

/* Reads back what the renderer drew (or, if it cannot, our own frame). */
static void save_screenshot(view *v) {
  const int W = v->W, H = v->H;
  uint32_t *shot = malloc((size_t)W * H * sizeof *shot);
  if (shot &&
      SDL_RenderReadPixels(v->ren, NULL, SDL_PIXELFORMAT_ARGB8888, shot, W * 4) != 0)
    memcpy(shot, v->pixels, (size_t)W * H * sizeof *shot);
  if (!shot || save_frame(shot, W, H, v->opt->screenshot)) {
    fprintf(stderr, "crowdsteer-viewer: cannot save %s: %s\n", v->opt->screenshot,
            SDL_GetError());
    v->rc = 1;
  }
  free(shot);
}

/* One frame: input, simulation (timed alone), drawing, presentation. */
static void run_frame(view *v, int frame_no) {
  press_scripted_key(v, frame_no);
  poll_events(v);
  const crowdsteer_target t = follow_target(v, frame_no);
  uint64_t t0 = SDL_GetPerformanceCounter();
  if (!v->paused) {
    crowdsteer_status st = simulate(v, &t, frame_no);
    if (st != CROWDSTEER_OK) {
      fprintf(stderr, "crowdsteer-viewer: %s\n", crowdsteer_status_string(st));
      v->rc = 1;
      v->running = 0;
      return;
    }
  }
  uint64_t t1 = SDL_GetPerformanceCounter();
  if (!v->paused) wrap_around(v);
  uint64_t t2 = SDL_GetPerformanceCounter();
  frame f = {v->pixels, v->W, v->H};
  draw_scene(v, &f);
  v->sim_ms = (double)(t1 - t0) * 1000.0 / v->freq;
  draw_text(v, &f);
  uint64_t t3 = SDL_GetPerformanceCounter();
  v->draw_ms = (double)(t3 - t2) * 1000.0 / v->freq;
  const uint64_t t_present = SDL_GetPerformanceCounter();
  SDL_UpdateTexture(v->tex, NULL, v->pixels, v->W * (int)sizeof *v->pixels);
  SDL_RenderClear(v->ren);
  SDL_RenderCopy(v->ren, v->tex, NULL, NULL);
  if (v->opt->script && frame_no + 1 == v->opt->script) {
    if (v->opt->screenshot) save_screenshot(v);
    v->running = 0;
  }
  SDL_RenderPresent(v->ren);
  uint64_t now = SDL_GetPerformanceCounter();
  v->frame_ms = (double)(now - v->last) * 1000.0 / v->freq;
  v->last = now;
  if (frame_no > 0) { /* the first frame includes window setup */
    v->total_sim += v->sim_ms;
    v->total_frame += v->frame_ms;
    v->total_draw += v->draw_ms;
    v->total_present += (double)(now - t_present) * 1000.0 / v->freq;
  }
}

static void print_summary(const view *v) {
  const options *opt = v->opt;
  int frames = opt->script > 1 ? opt->script - 1 : 1;
  printf(
      "crowdsteer-viewer: %d frames, %zu agents, %s%s%s%s, ISA %s, renderer %s: "
      "mean frame %.2f ms (%.1f fps), steer+integrate %.3f ms (%.1f M agents/s), "
      "drawing %.2f ms, presenting %.2f ms\n",
      opt->script, v->c.n, behaviour_name(v->behaviour),
      v->separation && v->behaviour != B_BOIDS ? " + separation" : "",
      v->avoid ? " + avoidance" : "", v->obstacles ? " + walls" : "",
      crowdsteer_isa_name(crowdsteer_active_isa()), v->info.name, v->total_frame / frames,
      v->total_frame > 0 ? 1000.0 * frames / v->total_frame : 0.0, v->total_sim / frames,
      v->total_sim > 0 ? (double)v->c.n * frames / v->total_sim / 1000.0 : 0.0,
      v->total_draw / frames, v->total_present / frames);
}

static void view_close(view *v) {
  crowd_free(&v->c);
  free(v->pixels);
  SDL_DestroyTexture(v->tex);
  SDL_DestroyRenderer(v->ren);
  SDL_DestroyWindow(v->win);
  SDL_Quit();
}

/* OpenMP workers that finish a parallel region spin before they sleep
 * (libgomp's default wait policy), on the cores that the drawing, Mesa and
 * the X server need: with 2 cores, 100,000 boids ran at 64-65 fps instead
 * of 74-76 (docs/benchmarks.md). The policy is read before main, so the
 * viewer runs itself again with the passive one, unless its user chose a
 * policy; if that cannot be done it carries on as it is. */
static void prefer_sleeping_workers(char **argv) {
#ifdef __linux__
  if (getenv("OMP_WAIT_POLICY")) return;
  if (setenv("OMP_WAIT_POLICY", "passive", 1) != 0) return;
  execv("/proc/self/exe", argv);
#else
  (void)argv;
#endif
}

int main(int argc, char **argv) {
  prefer_sleeping_workers(argv);
  options opt;
  if (parse(argc, argv, &opt)) return usage(argv[0]);
  if (opt.isa) {
    crowdsteer_isa isa;
    crowdsteer_status st = crowdsteer_isa_from_name(opt.isa, &isa);
    if (st == CROWDSTEER_OK) st = crowdsteer_force_isa(isa);
    if (st != CROWDSTEER_OK) {
      fprintf(stderr, "crowdsteer-viewer: --isa %s: %s\n", opt.isa,
              crowdsteer_status_string(st));
      return 2;
    }
  }
  static view v; /* large: its crowd and frame buffer live on the heap, but not
                    every platform's main stack is generous */
  if (view_open(&v, &opt)) return 1;
  view_start(&v);
  for (int frame_no = 0; v.running; frame_no++)
    run_frame(&v, frame_no);
  if (opt.script) print_summary(&v);
  view_close(&v);
  return v.rc;
}
