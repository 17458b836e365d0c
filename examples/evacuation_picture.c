/* crowdsteer-evacuation's drawing: the floor plan (walls light, exits
 * green) with the agents still inside as a density, for --picture (a PNG)
 * and --view (an SDL window, evacuation_view.c). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "evacuation.h"
#include "pictures.h"

static void plot(const evac_canvas *c, double x, double y, uint8_t r, uint8_t g,
                 uint8_t b) {
  double px = (x - c->x0) * c->scale,
         py = (double)c->img.height - 1 - (y - c->y0) * c->scale;
  if (!(px >= 0.0 && py >= 0.0 && px < c->img.width && py < c->img.height)) return;
  uint8_t *p = c->img.rgb + 3 * ((size_t)py * (size_t)c->img.width + (size_t)px);
  p[0] = r, p[1] = g, p[2] = b;
}

static void line(const evac_canvas *c, plan_rect s, uint8_t r, uint8_t g, uint8_t b) {
  double len = fabs(s.x1 - s.x0) + fabs(s.y1 - s.y0);
  int n = (int)(len * c->scale) + 1;
  for (int k = 0; k <= n; k++) {
    double t = (double)k / n;
    plot(c, s.x0 + t * (s.x1 - s.x0), s.y0 + t * (s.y1 - s.y0), r, g, b);
  }
}

int evac_draw(const evacuation *ev, evac_canvas *c) {
  const int width = c->img.width, height = c->img.height;
  for (size_t k = 0; k < (size_t)width * (size_t)height; k++)
    c->img.rgb[3 * k] = PIC_BG_R, c->img.rgb[3 * k + 1] = PIC_BG_G,
                   c->img.rgb[3 * k + 2] = PIC_BG_B;
  /* Agents per pixel, tone-mapped: one agent dim, 2 a square metre bright. */
  uint16_t *count = calloc((size_t)width * (size_t)height, sizeof *count);
  if (!count) return 1;
  for (size_t i = 0; i < ev->agents.count; i++) {
    double px = (ev->agents.px[i] - c->x0) * c->scale;
    double py = (double)height - 1 - (ev->agents.py[i] - c->y0) * c->scale;
    if (!(px >= 0.0 && py >= 0.0 && px < width && py < height)) continue;
    uint16_t *n = &count[(size_t)py * (size_t)width + (size_t)px];
    *n += *n < 60000;
  }
  const double brightest = c->scale < 1.4 ? 2.0 / (c->scale * c->scale) : 1.0;
  for (size_t k = 0; k < (size_t)width * (size_t)height; k++) {
    if (!count[k]) continue;
    double t = count[k] / brightest;
    t = t > 1.0 ? 1.0 : t;
    uint8_t *q = c->img.rgb + 3 * k;
    q[0] = (uint8_t)(150 + 105 * t), q[1] = (uint8_t)(90 + 110 * t),
    q[2] = (uint8_t)(30 + 30 * t);
  }
  free(count);
  const floor_plan *p = &ev->plan;
  size_t walls = plan_walls(p, NULL, 0);
  plan_rect *wall = malloc(walls * sizeof *wall);
  if (!wall) return 1;
  plan_walls(p, wall, walls);
  for (size_t k = 0; k < walls; k++)
    line(c, wall[k], 200, 205, 215);
  free(wall);
  for (size_t e = 0; e < plan_exit_count(p); e++)
    line(c, plan_exit(p, e), 60, 220, 90);
  char label[96];
  snprintf(label, sizeof label, "%.0f S: %zu OF %zu INSIDE", ev->step * (double)EVAC_DT,
           ev->agents.count, ev->total);
  pic_draw_text(&c->img, 12, 12, label, 2, 235, 235, 235);
  return 0;
}

evac_canvas evac_fit(const evacuation *ev, int side) {
  const double w = plan_width(&ev->plan), h = plan_height(&ev->plan), margin = 8.0;
  evac_canvas c = {.scale = (side - 2 * margin) / (w > h ? w : h)};
  c.img.width = (int)(w * c.scale + 2 * margin) + 1;
  c.img.height = (int)(h * c.scale + 2 * margin) + 1;
  c.x0 = -margin / c.scale;
  c.y0 = -margin / c.scale;
  return c;
}

int evac_write_picture(const evacuation *ev, const char *path) {
  evac_canvas c = evac_fit(ev, 1000);
  int rc = pic_image_init(&c.img, c.img.width, c.img.height) || evac_draw(ev, &c) ||
           pic_write_png(&c.img, path);
  pic_image_free(&c.img);
  if (rc)
    fprintf(stderr, "crowdsteer-evacuation: cannot write %s\n", path);
  else
    printf("  picture: %s\n", path);
  return rc;
}
