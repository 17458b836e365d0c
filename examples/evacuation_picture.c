/* crowdsteer-evacuation --picture: the floor plan (walls white, exits
 * green) with the agents still inside as a density, one pixel per cell of
 * the building scaled to fit 1,000 pixels. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "evacuation.h"
#include "pictures.h"

enum { PICTURE_SIDE = 1000, MARGIN = 8 };

typedef struct view {
  pic_image img;
  double scale; /* pixels per metre */
} view;

static void plot(view *v, double x, double y, uint8_t r, uint8_t g, uint8_t b) {
  int px = MARGIN + (int)(x * v->scale), py = v->img.height - 1 - MARGIN - (int)(y * v->scale);
  if (px < 0 || py < 0 || px >= v->img.width || py >= v->img.height) return;
  uint8_t *p = v->img.rgb + 3 * ((size_t)py * (size_t)v->img.width + (size_t)px);
  p[0] = r, p[1] = g, p[2] = b;
}

static void line(view *v, plan_rect s, uint8_t r, uint8_t g, uint8_t b) {
  double len = fabs(s.x1 - s.x0) + fabs(s.y1 - s.y0);
  int n = (int)(len * v->scale) + 1;
  for (int k = 0; k <= n; k++) {
    double t = (double)k / n;
    plot(v, s.x0 + t * (s.x1 - s.x0), s.y0 + t * (s.y1 - s.y0), r, g, b);
  }
}

int evac_write_picture(const evacuation *ev, const char *path) {
  const floor_plan *p = &ev->plan;
  const double w = plan_width(p), h = plan_height(p);
  view v = {.scale = (PICTURE_SIDE - 2 * MARGIN) / (w > h ? w : h)};
  int width = (int)(w * v.scale) + 2 * MARGIN + 1, height = (int)(h * v.scale) + 2 * MARGIN + 1;
  if (pic_image_init(&v.img, width, height)) return fputs("out of memory\n", stderr), 1;
  /* Agents per pixel, tone-mapped: 1 dim orange, a packed pixel bright. */
  uint16_t *count = calloc((size_t)width * (size_t)height, sizeof *count);
  if (!count) return pic_image_free(&v.img), fputs("out of memory\n", stderr), 1;
  for (size_t i = 0; i < ev->agents.count; i++) {
    int px = MARGIN + (int)(ev->agents.px[i] * v.scale);
    int py = height - 1 - MARGIN - (int)(ev->agents.py[i] * v.scale);
    if (px >= 0 && py >= 0 && px < width && py < height && count[py * width + px] < 60000)
      count[(size_t)py * (size_t)width + (size_t)px]++;
  }
  double per_pixel = 2.0 / (v.scale * v.scale); /* 2 agents a square metre: the brightest */
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      unsigned c = count[(size_t)y * (size_t)width + (size_t)x];
      if (!c) continue;
      double t = c / per_pixel;
      t = t > 1.0 ? 1.0 : t;
      uint8_t *q = v.img.rgb + 3 * ((size_t)y * (size_t)width + (size_t)x);
      q[0] = (uint8_t)(150 + 105 * t), q[1] = (uint8_t)(90 + 110 * t), q[2] = (uint8_t)(30 + 30 * t);
    }
  free(count);
  size_t walls = plan_walls(p, NULL, 0);
  plan_rect *wall = malloc(walls * sizeof *wall);
  if (wall) {
    plan_walls(p, wall, walls);
    for (size_t k = 0; k < walls; k++) line(&v, wall[k], 200, 205, 215);
    free(wall);
  }
  for (size_t e = 0; e < plan_exit_count(p); e++) line(&v, plan_exit(p, e), 60, 220, 90);
  char label[96];
  snprintf(label, sizeof label, "%.0f S: %zu OF %zu INSIDE", ev->step * (double)EVAC_DT,
           ev->agents.count, ev->total);
  pic_draw_text(&v.img, MARGIN + 4, MARGIN + 4, label, 2, 235, 235, 235);
  int rc = pic_write_png(&v.img, path);
  pic_image_free(&v.img);
  if (rc) fprintf(stderr, "crowdsteer-evacuation: cannot write %s\n", path);
  else printf("  picture: %s\n", path);
  return rc ? 1 : 0;
}
