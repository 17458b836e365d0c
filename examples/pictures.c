/* Pictures of crowdsteer behaviours: the 5x7 font, image and drawing
 * primitives, the trail canvas, and the output (hash, PNG writer, the demo's
 * --pictures). The figures are in pictures_figures.c, the crowd in
 * pictures_crowd.c. */
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* mkdir */
#endif

#include "pictures.h"
#include "pictures_draw.h"

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

void put(pic_image *img, int x, int y, rgb c) {
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
int pix(float v) {
  if (!(v > -1e6f)) return -1000000;
  if (v > 1e6f) return 1000000;
  return (int)floorf(v);
}

int canvas_init(canvas *c, int w, int h) {
  c->w = w;
  c->h = h;
  c->ink = calloc((size_t)w * (size_t)h * 3, sizeof *c->ink);
  return c->ink ? 0 : -1;
}

void canvas_fade(canvas *c) {
  size_t n = (size_t)c->w * (size_t)c->h * 3;
  for (size_t i = 0; i < n; i++)
    c->ink[i] = (uint16_t)(c->ink[i] - (c->ink[i] >> 8));
}

/* Ink is kept as the brightest of what is there and what is drawn, so
 * crossing trails don't saturate into white. */
void canvas_plot(canvas *c, int x, int y, rgb col) {
  if (x < 0 || y < 0 || x >= c->w || y >= c->h) return;
  uint16_t *p = c->ink + 3 * ((size_t)y * (size_t)c->w + (size_t)x);
  uint16_t v[3] = {(uint16_t)(col.r << 8), (uint16_t)(col.g << 8),
                   (uint16_t)(col.b << 8)};
  for (int k = 0; k < 3; k++)
    if (v[k] > p[k]) p[k] = v[k];
}

/* Integer line (Bresenham), endpoints included. Long jumps (an agent
 * entering from far away) are skipped rather than drawn across the panel. */
void canvas_line(canvas *c, int x0, int y0, int x1, int y1, rgb col) {
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
void canvas_blit(const canvas *c, pic_image *img, int ox, int oy) {
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
void disc(pic_image *img, int cx, int cy, int r, rgb col) {
  for (int y = -r; y <= r; y++)
    for (int x = -r; x <= r; x++)
      if (x * x + y * y <= r * r + r) put(img, cx + x, cy + y, col);
}

/* Dashed circle (midpoint algorithm); dash = 0 draws it solid. */
void circle(pic_image *img, int cx, int cy, int r, rgb col, int dash) {
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

void cross(pic_image *img, int cx, int cy, int r, rgb col) {
  for (int k = -r; k <= r; k++) {
    put(img, cx + k, cy, col);
    put(img, cx, cy + k, col);
  }
}

rgb scale_rgb(rgb c, int num, int den) {
  rgb o = {(uint8_t)(c.r * num / den), (uint8_t)(c.g * num / den),
           (uint8_t)(c.b * num / den)};
  return o;
}

/* ---- deterministic numbers ------------------------------------------------- */

/* Uniform in [lo, hi), 24 random bits. */
float uniform(uint64_t *s, float lo, float hi) {
  return lo +
         (hi - lo) * ((float)(uint32_t)(splitmix64_next(s) >> 40) * (1.0f / 16777216.0f));
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
