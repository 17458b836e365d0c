/* Deterministic steering scenarios drawn as pictures: trails per behaviour,
 * a million-agent density image, a 5x7 font, and the PNG writer. */
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* mkdir */
#endif

#include "pictures.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/splitmix64.h"
#include "crowdsteer.h"

#ifdef CROWDSTEER_PICTURES_PNG
#include <png.h>
#endif
#ifdef _WIN32
#include <direct.h>
#else
#include <sys/stat.h>
#endif

/* Pixels must be the same bits everywhere, so nothing below that affects a
 * pixel uses a libm transcendental: only IEEE + - * / sqrt, floorf (exact)
 * and integer arithmetic. */

/* ---- font ----------------------------------------------------------------- */

/* ASCII 32..95, drawn by hand: 7 rows of 5 bits, bit 4 the leftmost. */
static const uint8_t font_5x7[64][PIC_FONT_H] = {
    {0, 0, 0, 0, 0, 0, 0},                      /* space */
    {0x04, 0x04, 0x04, 0x04, 0x04, 0x00, 0x04}, /* ! */
    {0x0A, 0x0A, 0, 0, 0, 0, 0},                /* " */
    {0x0A, 0x0A, 0x1F, 0x0A, 0x1F, 0x0A, 0x0A}, /* # */
    {0x04, 0x0F, 0x14, 0x0E, 0x05, 0x1E, 0x04}, /* $ */
    {0x18, 0x19, 0x02, 0x04, 0x08, 0x13, 0x03}, /* % */
    {0x0C, 0x12, 0x14, 0x08, 0x15, 0x12, 0x0D}, /* & */
    {0x04, 0x04, 0x08, 0, 0, 0, 0},             /* ' */
    {0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02}, /* ( */
    {0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08}, /* ) */
    {0, 0x04, 0x15, 0x0E, 0x15, 0x04, 0},       /* * */
    {0, 0x04, 0x04, 0x1F, 0x04, 0x04, 0},       /* + */
    {0, 0, 0, 0, 0x0C, 0x04, 0x08},             /* , */
    {0, 0, 0, 0x1F, 0, 0, 0},                   /* - */
    {0, 0, 0, 0, 0, 0x0C, 0x0C},                /* . */
    {0, 0x01, 0x02, 0x04, 0x08, 0x10, 0},       /* / */
    {0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E}, /* 0 */
    {0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E}, /* 1 */
    {0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F}, /* 2 */
    {0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E}, /* 3 */
    {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02}, /* 4 */
    {0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E}, /* 5 */
    {0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E}, /* 6 */
    {0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08}, /* 7 */
    {0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E}, /* 8 */
    {0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C}, /* 9 */
    {0, 0x0C, 0x0C, 0, 0x0C, 0x0C, 0},          /* : */
    {0, 0x0C, 0x0C, 0, 0x0C, 0x04, 0x08},       /* ; */
    {0x02, 0x04, 0x08, 0x10, 0x08, 0x04, 0x02}, /* < */
    {0, 0, 0x1F, 0, 0x1F, 0, 0},                /* = */
    {0x08, 0x04, 0x02, 0x01, 0x02, 0x04, 0x08}, /* > */
    {0x0E, 0x11, 0x01, 0x02, 0x04, 0x00, 0x04}, /* ? */
    {0x0E, 0x11, 0x17, 0x15, 0x17, 0x10, 0x0F}, /* @ */
    {0x0E, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11}, /* A */
    {0x1E, 0x11, 0x11, 0x1E, 0x11, 0x11, 0x1E}, /* B */
    {0x0E, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0E}, /* C */
    {0x1C, 0x12, 0x11, 0x11, 0x11, 0x12, 0x1C}, /* D */
    {0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F}, /* E */
    {0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x10}, /* F */
    {0x0E, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0F}, /* G */
    {0x11, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11}, /* H */
    {0x0E, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E}, /* I */
    {0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0C}, /* J */
    {0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11}, /* K */
    {0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F}, /* L */
    {0x11, 0x1B, 0x15, 0x15, 0x11, 0x11, 0x11}, /* M */
    {0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11}, /* N */
    {0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E}, /* O */
    {0x1E, 0x11, 0x11, 0x1E, 0x10, 0x10, 0x10}, /* P */
    {0x0E, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0D}, /* Q */
    {0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11}, /* R */
    {0x0F, 0x10, 0x10, 0x0E, 0x01, 0x01, 0x1E}, /* S */
    {0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04}, /* T */
    {0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E}, /* U */
    {0x11, 0x11, 0x11, 0x11, 0x11, 0x0A, 0x04}, /* V */
    {0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0A}, /* W */
    {0x11, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x11}, /* X */
    {0x11, 0x11, 0x11, 0x0A, 0x04, 0x04, 0x04}, /* Y */
    {0x1F, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1F}, /* Z */
    {0x0E, 0x08, 0x08, 0x08, 0x08, 0x08, 0x0E}, /* [ */
    {0, 0x10, 0x08, 0x04, 0x02, 0x01, 0},       /* backslash */
    {0x0E, 0x02, 0x02, 0x02, 0x02, 0x02, 0x0E}, /* ] */
    {0x04, 0x0A, 0x11, 0, 0, 0, 0},             /* ^ */
    {0, 0, 0, 0, 0, 0, 0x1F},                   /* _ */
};

const uint8_t *pic_font_glyph(char c) {
  int code = (unsigned char)c;
  if (code >= 'a' && code <= 'z') code -= 'a' - 'A';
  if (code < 32 || code > 95) code = '?';
  return font_5x7[code - 32];
}

/* ---- image primitives ----------------------------------------------------- */

int pic_image_init(pic_image *img, int width, int height) {
  img->width = width;
  img->height = height;
  img->rgb = NULL;
  if (width <= 0 || height <= 0) return -1;
  img->rgb = malloc((size_t)width * (size_t)height * 3);
  if (!img->rgb) return -1;
  for (size_t i = 0; i < (size_t)width * (size_t)height; i++) {
    img->rgb[3 * i] = PIC_BG_R;
    img->rgb[3 * i + 1] = PIC_BG_G;
    img->rgb[3 * i + 2] = PIC_BG_B;
  }
  return 0;
}

void pic_image_free(pic_image *img) {
  free(img->rgb);
  img->rgb = NULL;
  img->width = img->height = 0;
}

typedef struct rgb {
  uint8_t r, g, b;
} rgb;

static void put(pic_image *img, int x, int y, rgb c) {
  if (x < 0 || y < 0 || x >= img->width || y >= img->height) return;
  uint8_t *p = img->rgb + 3 * ((size_t)y * (size_t)img->width + (size_t)x);
  p[0] = c.r;
  p[1] = c.g;
  p[2] = c.b;
}

void pic_draw_text(pic_image *img, int x, int y, const char *text, int scale, uint8_t r,
                   uint8_t g, uint8_t b) {
  rgb c = {r, g, b};
  int cx = x;
  for (; *text; text++) {
    if (*text == '\n') {
      cx = x;
      y += (PIC_FONT_H + 2) * scale;
      continue;
    }
    const uint8_t *rows = pic_font_glyph(*text);
    for (int row = 0; row < PIC_FONT_H; row++)
      for (int col = 0; col < PIC_FONT_W; col++)
        if (rows[row] & (0x10 >> col))
          for (int dy = 0; dy < scale; dy++)
            for (int dx = 0; dx < scale; dx++)
              put(img, cx + col * scale + dx, y + row * scale + dy, c);
    cx += (PIC_FONT_W + 1) * scale;
  }
}

/* Float position to pixel, clamped far outside so the int conversion is
 * always defined (NaN lands outside too). */
static int pix(float v) {
  if (!(v > -1e6f)) return -1000000;
  if (v > 1e6f) return 1000000;
  return (int)floorf(v);
}

/* ---- trail canvas ------------------------------------------------------------
 * Trails are "ink" above the background, 8.8 fixed point per channel, that
 * fades by 1/256 per step, so old path is dim and recent path bright. */

typedef struct canvas {
  int w, h;
  uint16_t *ink; /* w * h * 3 */
} canvas;

static int canvas_init(canvas *c, int w, int h) {
  c->w = w;
  c->h = h;
  c->ink = calloc((size_t)w * (size_t)h * 3, sizeof *c->ink);
  return c->ink ? 0 : -1;
}

static void canvas_fade(canvas *c) {
  size_t n = (size_t)c->w * (size_t)c->h * 3;
  for (size_t i = 0; i < n; i++)
    c->ink[i] = (uint16_t)(c->ink[i] - (c->ink[i] >> 8));
}

/* Ink is kept as the brightest of what is there and what is drawn, so
 * crossing trails don't saturate into white. */
static void canvas_plot(canvas *c, int x, int y, rgb col) {
  if (x < 0 || y < 0 || x >= c->w || y >= c->h) return;
  uint16_t *p = c->ink + 3 * ((size_t)y * (size_t)c->w + (size_t)x);
  uint16_t v[3] = {(uint16_t)(col.r << 8), (uint16_t)(col.g << 8),
                   (uint16_t)(col.b << 8)};
  for (int k = 0; k < 3; k++)
    if (v[k] > p[k]) p[k] = v[k];
}

/* Integer line (Bresenham), endpoints included. Long jumps (an agent
 * entering from far away) are skipped rather than drawn across the panel. */
static void canvas_line(canvas *c, int x0, int y0, int x1, int y1, rgb col) {
  int dx = abs(x1 - x0), dy = -abs(y1 - y0);
  if (dx > 200 || -dy > 200) return;
  int sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1, err = dx + dy;
  for (;;) {
    canvas_plot(c, x0, y0, col);
    if (x0 == x1 && y0 == y1) break;
    int e2 = 2 * err;
    if (e2 >= dy) {
      err += dy;
      x0 += sx;
    }
    if (e2 <= dx) {
      err += dx;
      y0 += sy;
    }
  }
}

/* Composite the ink over the background into img at (ox, oy). */
static void canvas_blit(const canvas *c, pic_image *img, int ox, int oy) {
  static const int bg[3] = {PIC_BG_R, PIC_BG_G, PIC_BG_B};
  for (int y = 0; y < c->h; y++)
    for (int x = 0; x < c->w; x++) {
      int X = ox + x, Y = oy + y;
      if (X < 0 || Y < 0 || X >= img->width || Y >= img->height) continue;
      const uint16_t *p = c->ink + 3 * ((size_t)y * (size_t)c->w + (size_t)x);
      uint8_t *q = img->rgb + 3 * ((size_t)Y * (size_t)img->width + (size_t)X);
      for (int k = 0; k < 3; k++) {
        int v = bg[k] + (p[k] >> 8);
        q[k] = (uint8_t)(v > 255 ? 255 : v);
      }
    }
}

/* Filled disc of radius r (integer test, no sqrt). */
static void disc(pic_image *img, int cx, int cy, int r, rgb col) {
  for (int y = -r; y <= r; y++)
    for (int x = -r; x <= r; x++)
      if (x * x + y * y <= r * r + r) put(img, cx + x, cy + y, col);
}

/* Dashed circle (midpoint algorithm); dash = 0 draws it solid. */
static void circle(pic_image *img, int cx, int cy, int r, rgb col, int dash) {
  int x = r, y = 0, err = 1 - r, step = 0;
  while (x >= y) {
    if (!dash || (step / dash) % 2 == 0) {
      int pts[8][2] = {{x, y},   {y, x},   {-y, x}, {-x, y},
                       {-x, -y}, {-y, -x}, {y, -x}, {x, -y}};
      for (int k = 0; k < 8; k++)
        put(img, cx + pts[k][0], cy + pts[k][1], col);
    }
    step++;
    y++;
    if (err < 0) {
      err += 2 * y + 1;
    } else {
      x--;
      err += 2 * (y - x) + 1;
    }
  }
}

static void cross(pic_image *img, int cx, int cy, int r, rgb col) {
  for (int k = -r; k <= r; k++) {
    put(img, cx + k, cy, col);
    put(img, cx, cy + k, col);
  }
}

/* ---- colours: one per behaviour, shared with the viewer's legend ------------ */

static const rgb COL_SEEK = {255, 150, 40};
static const rgb COL_FLEE = {240, 60, 60};
static const rgb COL_ARRIVE = {80, 220, 100};
static const rgb COL_LEAVE = {230, 90, 230};
static const rgb COL_PURSUIT = {70, 150, 255};
static const rgb COL_PURSUIT_BRIGHT = {120, 185, 255}; /* one wolf among many sheep */
static const rgb COL_EVADE = {60, 225, 225};
static const rgb COL_WANDER = {240, 225, 70};
static const rgb COL_WHITE = {235, 235, 235};
static const rgb COL_DIM = {150, 155, 165};
static const rgb COL_SEPARATION = {255, 120, 170};
/* Boids are hued by heading, one of eight sectors (no trigonometry). */
static const rgb COL_HEADING[8] = {{255, 90, 80},   {255, 170, 60}, {230, 230, 80},
                                   {90, 220, 110},  {70, 215, 215}, {80, 140, 255},
                                   {170, 110, 255}, {240, 100, 210}};

static rgb scale_rgb(rgb c, int num, int den) {
  rgb o = {(uint8_t)(c.r * num / den), (uint8_t)(c.g * num / den),
           (uint8_t)(c.b * num / den)};
  return o;
}

/* ---- deterministic numbers ------------------------------------------------- */

/* Uniform in [lo, hi), 24 random bits. */
static float uniform(uint64_t *s, float lo, float hi) {
  return lo +
         (hi - lo) * ((float)(uint32_t)(splitmix64_next(s) >> 40) * (1.0f / 16777216.0f));
}

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

static crowdsteer_target point_target(float x, float y, float vx, float vy) {
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

const char *pic_figure_name(int figure) {
  static const char *names[PIC_FIGURE_COUNT] = {
      "seek_arrive", "flee_leave", "pursuit_seek", "evade_wander", "flocking"};
  return figure >= 0 && figure < PIC_FIGURE_COUNT ? names[figure] : NULL;
}

int pic_render_figure(int figure, pic_image *out) {
  static int (*const fn[PIC_FIGURE_COUNT])(pic_image *) = {
      figure_seek_arrive, figure_flee_leave, figure_pursuit_seek, figure_evade_wander,
      figure_flocking};
  if (figure < 0 || figure >= PIC_FIGURE_COUNT) return -1;
  if (pic_image_init(out, PIC_FIGURE_WIDTH, PIC_FIGURE_HEIGHT)) return -1;
  if (fn[figure](out)) {
    pic_image_free(out);
    return -1;
  }
  return 0;
}

/* ---- the big crowd ---------------------------------------------------------- */

/* log2(x) in 16.16 fixed point for x >= 1: the exponent exactly, the
 * mantissa linearly (within 0.09), which is plenty for tone mapping and
 * is integer arithmetic, so identical everywhere. */
static uint32_t log2_q16(uint32_t x) {
  int e = 31;
  while (!(x >> e))
    e--;
  uint64_t frac = ((uint64_t)(x - (1u << e)) << 16) >> e;
  return ((uint32_t)e << 16) + (uint32_t)frac;
}

enum { CROWD_GROUPS = 5 };
static const rgb crowd_colour[CROWD_GROUPS] = {
    {255, 150, 40}, {80, 220, 100}, {240, 225, 70}, {240, 60, 60}, {70, 150, 255}};

/* Each group starts as a disc of its own; every agent gets a random velocity,
 * top speed and (for pursuers) a wanderer to hunt. */
static void scatter_crowd(size_t n, const size_t edge[CROWD_GROUPS + 1], float *buf,
                          uint32_t *index) {
  float *px = buf, *py = buf + n, *vx = buf + 2 * n, *vy = buf + 3 * n;
  float *speed = buf + 8 * n;
  uint64_t seed = 0xC0FFEE;
  /* centre x, y and radius */
  static const float start[CROWD_GROUPS][3] = {{500, 500, 430},
                                               {180, 800, 150},
                                               {720, 720, 110},
                                               {740, 270, 120},
                                               {120, 200, 100}};
  for (size_t i = 0, g = 0; i < n; i++) {
    while (i >= edge[g + 1])
      g++;
    float dx, dy;
    do { /* uniform in the unit disc by rejection: no trigonometry */
      dx = uniform(&seed, -1, 1);
      dy = uniform(&seed, -1, 1);
    } while (dx * dx + dy * dy > 1.0f);
    px[i] = start[g][0] + start[g][2] * dx;
    py[i] = start[g][1] + start[g][2] * dy;
    vx[i] = uniform(&seed, -1, 1);
    vy[i] = uniform(&seed, -1, 1);
    speed[i] = uniform(&seed, 1.0f, 4.0f); /* heterogeneous crowd */
    index[i] =
        (uint32_t)(edge[2] + (size_t)(splitmix64_next(&seed) % (edge[3] - edge[2])));
  }
}

/* A 3x3 box filter of counts and colour sums: per-pixel counting noise
 * otherwise dominates (and bloats the PNG) where the crowd is thin. Replaces
 * both arrays; -1 when out of memory. */
static int box_filter(uint32_t **count, uint32_t **sum, int size) {
  uint32_t *bc = calloc((size_t)size * size, sizeof *bc);
  uint32_t *bs = calloc((size_t)size * size * 3, sizeof *bs);
  if (!bc || !bs) {
    free(bc);
    free(bs);
    return -1;
  }
  for (int y = 0; y < size; y++)
    for (int x = 0; x < size; x++) {
      size_t k = (size_t)y * (size_t)size + (size_t)x;
      for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
          int X = x + dx, Y = y + dy;
          if (X < 0 || Y < 0 || X >= size || Y >= size) continue;
          size_t j = (size_t)Y * (size_t)size + (size_t)X;
          bc[k] += (*count)[j];
          for (int ch = 0; ch < 3; ch++)
            bs[3 * k + ch] += (*sum)[3 * j + ch];
        }
    }
  free(*count);
  free(*sum);
  *count = bc;
  *sum = bs;
  return 0;
}

/* Average colour per pixel, brightness on a log scale up to a white point. */
static void tone_map(const uint32_t *count, const uint32_t *sum, int size,
                     pic_image *out) {
  /* White point: the 99.5th percentile of non-empty pixels, so a few pixels
   * where thousands of arrivers stand don't make the rest dark. */
  uint32_t hist[16385];
  memset(hist, 0, sizeof hist);
  size_t nonempty = 0;
  for (size_t k = 0; k < (size_t)size * size; k++)
    if (count[k]) {
      hist[count[k] > 16384 ? 16384 : count[k]]++;
      nonempty++;
    }
  uint32_t white = 1;
  for (size_t acc_n = 0, c = 1; c <= 16384; c++) {
    acc_n += hist[c];
    white = (uint32_t)c;
    if (acc_n * 1000 >= nonempty * 995) break;
  }
  uint32_t lw = log2_q16(white + 1);
  for (size_t k = 0; k < (size_t)size * size; k++) {
    if (!count[k]) continue;
    uint32_t c = count[k] > white ? white : count[k];
    /* brightness 0.25 .. 1 of the average colour: one agent stays visible */
    uint64_t b = 64 + (uint64_t)191 * log2_q16(c + 1) / lw;
    b &= ~(uint64_t)7; /* 24 brightness levels: smooth bands, small PNG */
    uint8_t *q = out->rgb + 3 * k;
    static const int bg[3] = {PIC_BG_R, PIC_BG_G, PIC_BG_B};
    for (int ch = 0; ch < 3; ch++) {
      uint64_t v = ((uint64_t)sum[3 * k + ch] / count[k] & ~(uint64_t)7) * b / 255;
      uint64_t m = v > (uint64_t)bg[ch] ? v : (uint64_t)bg[ch];
      q[ch] = (uint8_t)(m > 255 ? 255 : m);
    }
  }
}

/* The title and each group's colour. */
static void crowd_legend(pic_image *out, size_t n, int steps, int size) {
  char label[96];
  snprintf(label, sizeof label, "%zu AGENTS, %d STEPS", n, steps);
  if (size >= 300) {
    pic_draw_text(out, 10, 10, label, 2, COL_WHITE.r, COL_WHITE.g, COL_WHITE.b);
    static const char *names[CROWD_GROUPS] = {"seek", "arrive", "wander+seek",
                                              "flee+seek", "pursuit"};
    for (int g = 0; g < CROWD_GROUPS; g++) {
      int y = size - 14 * (CROWD_GROUPS - g) - 6;
      disc(out, 14, y + 3, 3, crowd_colour[g]);
      pic_draw_text(out, 24, y, names[g], 1, COL_DIM.r, COL_DIM.g, COL_DIM.b);
    }
  }
}

/* Adds each agent to its pixel's count and its group's colour to the
 * pixel's colour sums (counts saturate). */
static void accumulate_density(const float *px, const float *py, const size_t *edge,
                               float scale, int size, uint32_t *count, uint32_t *sum) {
  for (int g = 0; g < CROWD_GROUPS; g++)
    for (size_t i = edge[g]; i < edge[g + 1]; i++) {
      int x = pix(px[i] * scale), y = pix(py[i] * scale);
      if (x < 0 || y < 0 || x >= size || y >= size) continue;
      size_t k = (size_t)y * (size_t)size + (size_t)x;
      if (count[k] == UINT32_MAX) continue;
      count[k]++;
      sum[3 * k] += crowd_colour[g].r;
      sum[3 * k + 1] += crowd_colour[g].g;
      sum[3 * k + 2] += crowd_colour[g].b;
    }
}

int pic_render_crowd(size_t agents, int steps, int size, pic_image *out) {
  if (agents < 100 || agents > 100000000 || steps < 1 || size < 16) return -1;
  if (pic_image_init(out, size, size)) return -1;
  const float world = 1000.0f;
  size_t n = agents;
  /* Groups by index range: seekers orbiting the centre, arrivers, wanderers,
   * fleers around a threat, pursuers of wanderers. */
  size_t edge[CROWD_GROUPS + 1] = {
      0, n * 30 / 100, n * 50 / 100, n * 70 / 100, n * 85 / 100, n};
  float *buf = calloc(n * 9, sizeof(float));
  uint32_t *index = calloc(n, sizeof *index);
  uint32_t *count = calloc((size_t)size * size, sizeof *count);
  uint32_t *sum = calloc((size_t)size * size * 3, sizeof *sum);
  int rc = -1;
  if (!buf || !index || !count || !sum) goto done;
  float *px = buf, *py = buf + n, *vx = buf + 2 * n, *vy = buf + 3 * n;
  float *sx = buf + 4 * n, *sy = buf + 5 * n, *wx = buf + 6 * n, *wy = buf + 7 * n;
  float *speed = buf + 8 * n;
  scatter_crowd(n, edge, buf, index);
  crowdsteer_agents a = {n, 2, px, py, NULL, vx, vy, NULL, NULL};
  crowdsteer_vectors s = {sx, sy, NULL};
  crowdsteer_output o, acc;
  memset(&o, 0, sizeof o);
  o.steering = s;
  acc = o;
  acc.mode = CROWDSTEER_ACCUMULATE;
  acc.weight = 0.03f;
  crowdsteer_params prm;
  memset(&prm, 0, sizeof prm);
  prm.max_speed_per_agent = speed;
  prm.max_force = 0.08f;
  prm.slowing_radius = 120.0f;
  prm.target_radius = 4.0f;
  prm.panic_radius = 230.0f;
  prm.wander_distance = 1.0f;
  prm.wander_radius = 0.7f;
  prm.jitter = 0.5f;
  crowdsteer_wander_state ws = {{wx, wy, NULL}, 99, 0};
  crowdsteer_target centre = point_target(500, 500, 0, 0);
  crowdsteer_target corner = point_target(230, 250, 0, 0);
  crowdsteer_target threat = point_target(720, 280, 0, 0);
  crowdsteer_target hunt;
  memset(&hunt, 0, sizeof hunt);
  hunt.kind = CROWDSTEER_TARGET_AGENTS;
  hunt.index = index;
  const int accumulate_from = steps - 12 > 0 ? steps - 12 : 0;
  const float scale = (float)size / world;
  for (int step = 0; step < steps; step++) {
    ws.tick = (uint32_t)step;
    if (crowdsteer_seek(&a, &centre, &prm, &o, edge[0], edge[1]) ||
        crowdsteer_arrive(&a, &corner, &prm, &o, edge[1], edge[2]) ||
        crowdsteer_wander(&a, &ws, &prm, &o, edge[2], edge[3]) ||
        crowdsteer_seek(&a, &centre, &prm, &acc, edge[2], edge[3]) ||
        crowdsteer_flee(&a, &threat, &prm, &o, edge[3], edge[4]) ||
        crowdsteer_seek(&a, &centre, &prm, &acc, edge[3], edge[4]) ||
        crowdsteer_pursuit(&a, &hunt, &prm, &o, edge[4], edge[5]) ||
        crowdsteer_integrate(&a, &s, &prm, 0, n))
      goto done;
    if (step >= accumulate_from)
      accumulate_density(px, py, edge, scale, size, count, sum);
  }
  if (box_filter(&count, &sum, size)) goto done;
  tone_map(count, sum, size, out);
  crowd_legend(out, n, steps, size);
  rc = 0;
done:
  free(buf);
  free(index);
  free(count);
  free(sum);
  if (rc) pic_image_free(out);
  return rc;
}

/* ---- output ------------------------------------------------------------------ */

uint64_t pic_hash(const pic_image *img) {
  uint64_t h = 0xcbf29ce484222325ull;
  size_t n = (size_t)img->width * (size_t)img->height * 3;
  for (size_t i = 0; i < n; i++) {
    h ^= img->rgb[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

int pic_write_png(const pic_image *img, const char *path) {
#ifdef CROWDSTEER_PICTURES_PNG
  png_image pi;
  memset(&pi, 0, sizeof pi);
  pi.version = PNG_IMAGE_VERSION;
  pi.width = (png_uint_32)img->width;
  pi.height = (png_uint_32)img->height;
  pi.format = PNG_FORMAT_RGB;
  if (!png_image_write_to_file(&pi, path, 0, img->rgb, img->width * 3, NULL)) {
    fprintf(stderr, "pictures: cannot write %s: %s\n", path, pi.message);
    return -1;
  }
  return 0;
#else
  (void)img;
  fprintf(stderr, "pictures: built without libpng, cannot write %s\n", path);
  return -1;
#endif
}

static int make_dir(const char *dir) {
#ifdef _WIN32
  int r = _mkdir(dir);
#else
  int r = mkdir(dir, 0777);
#endif
  return r == 0 || errno == EEXIST ? 0 : -1;
}

static int write_one(const pic_image *img, const char *dir, const char *stem) {
  char path[4096];
  if (snprintf(path, sizeof path, "%s/%s.png", dir, stem) >= (int)sizeof path) return -1;
  if (pic_write_png(img, path)) return -1;
  printf("wrote %s\n", path);
  return 0;
}

int demo_write_pictures(const char *dir) {
  if (!dir || make_dir(dir)) {
    fprintf(stderr, "pictures: cannot create directory %s\n", dir ? dir : "(null)");
    return -1;
  }
  for (int f = 0; f < PIC_FIGURE_COUNT; f++) {
    pic_image img;
    if (pic_render_figure(f, &img)) return -1;
    int rc = write_one(&img, dir, pic_figure_name(f));
    pic_image_free(&img);
    if (rc) return -1;
  }
  pic_image img;
  if (pic_render_crowd(1000000, 160, 640, &img)) return -1;
  int rc = write_one(&img, dir, "crowd");
  pic_image_free(&img);
  return rc;
}
