/* What the picture files share (private to pictures*.c): colours, the
 * drawing primitives and the trail canvas of pictures.c. */
#ifndef CROWDSTEER_PICTURES_DRAW_H
#define CROWDSTEER_PICTURES_DRAW_H

#include <stdint.h>

#include "crowdsteer.h"
#include "pictures.h"

/* Pixels must be the same bits everywhere, so nothing below that affects a
 * pixel uses a libm transcendental: only IEEE + - * / sqrt, floorf (exact)
 * and integer arithmetic. */

typedef struct rgb {
  uint8_t r, g, b;
} rgb;

/* ---- trail canvas ------------------------------------------------------------
 * Trails are "ink" above the background, 8.8 fixed point per channel, that
 * fades by 1/256 per step, so old path is dim and recent path bright. */

typedef struct canvas {
  int w, h;
  uint16_t *ink; /* w * h * 3 */
} canvas;

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

void put(pic_image *img, int x, int y, rgb c);
/* Float position to pixel, clamped far outside (NaN lands outside too). */
int pix(float v);
int canvas_init(canvas *c, int w, int h);
void canvas_fade(canvas *c);
void canvas_plot(canvas *c, int x, int y, rgb col);
void canvas_line(canvas *c, int x0, int y0, int x1, int y1, rgb col);
void canvas_blit(const canvas *c, pic_image *img, int ox, int oy);
void disc(pic_image *img, int cx, int cy, int r, rgb col);
void circle(pic_image *img, int cx, int cy, int r, rgb col, int dash);
void cross(pic_image *img, int cx, int cy, int r, rgb col);
rgb scale_rgb(rgb c, int num, int den);
/* Uniform in [lo, hi), 24 random bits of the splitmix64 stream s. */
float uniform(uint64_t *s, float lo, float hi);
/* A POINT target at (x, y) moving at (vx, vy) (pictures_figures.c). */
crowdsteer_target point_target(float x, float y, float vx, float vy);

#endif
