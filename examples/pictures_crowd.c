/* Pictures of crowdsteer behaviours: the million-agent mixed crowd as a
 * density image (counts per pixel, log tone-mapped, hue by behaviour). */
#include "pictures.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/splitmix64.h"
#include "crowdsteer.h"
#include "pictures_draw.h"

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
