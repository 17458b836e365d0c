/* Pictures of crowdsteer behaviours: deterministic scenarios rasterised into
 * in-memory RGB images (no libpng needed), plus a PNG writer and a tiny font. */
#ifndef CROWDSTEER_PICTURES_H
#define CROWDSTEER_PICTURES_H

#include <stddef.h>
#include <stdint.h>

/* An 8-bit RGB image, rows top to bottom, no padding (stride = 3 * width). */
typedef struct pic_image {
  int width, height;
  uint8_t *rgb;
} pic_image;

/* Background colour of every picture (tests count pixels that differ). */
#define PIC_BG_R 14
#define PIC_BG_G 17
#define PIC_BG_B 23

/* Each figure is two square panels side by side, PIC_PANEL pixels each,
 * separated by PIC_GAP background columns. */
#define PIC_PANEL 400
#define PIC_GAP 4
#define PIC_FIGURE_WIDTH (2 * PIC_PANEL + PIC_GAP)
#define PIC_FIGURE_HEIGHT PIC_PANEL

typedef enum pic_figure {
  PIC_SEEK_ARRIVE = 0,  /* seek overshoots, arrive slows inside its radius */
  PIC_FLEE_LEAVE = 1,   /* flee vs leave from a passing threat */
  PIC_PURSUIT_SEEK = 2, /* pursuit intercepts, seek trails the same quarry */
  PIC_EVADE_WANDER = 3, /* sheep evade wolves (agent targets); wanderers */
  PIC_FLOCKING = 4,     /* separation packs a crowd; boids align */
  PIC_AVOIDANCE = 5,    /* a crowd through a doorway: separation vs ORCA */
  PIC_FIGURE_COUNT = 6
} pic_figure;

/* Allocates a width x height image filled with the background; 0 on success. */
int pic_image_init(pic_image *img, int width, int height);
void pic_image_free(pic_image *img);

/* File stem of a figure ("seek_arrive", ...), NULL for an unknown figure. */
const char *pic_figure_name(int figure);

/* Runs a figure's scenario and draws it into a freshly initialised image of
 * PIC_FIGURE_WIDTH x PIC_FIGURE_HEIGHT. Returns 0, or -1 on failure (the
 * image is then freed). Bit-for-bit the same on every ISA and platform. */
int pic_render_figure(int figure, pic_image *out);

/* A mixed 2D crowd of `agents` agents run for `steps` steps, drawn as a
 * size x size density picture (counts per pixel over the last steps, log
 * tone-mapped, hue by behaviour). Returns 0, or -1 (image freed). */
int pic_render_crowd(size_t agents, int steps, int size, pic_image *out);

/* 64-bit FNV-1a of the pixel bytes (for reproducibility tests). */
uint64_t pic_hash(const pic_image *img);

/* Writes the image as a PNG file. Returns 0, or -1 (also when this build
 * has no libpng: CROWDSTEER_PICTURES_PNG undefined). */
int pic_write_png(const pic_image *img, const char *path);

/* The built-in 5x7 font: rows of glyph c (7 bytes, bit 4 = leftmost
 * column). Lower case is drawn as upper case; unknown characters as '?'. */
#define PIC_FONT_W 5
#define PIC_FONT_H 7
const uint8_t *pic_font_glyph(char c);

/* Draws text at (x, y) (top-left), each font pixel as a scale x scale
 * block, advancing (PIC_FONT_W + 1) * scale per character; '\n' starts a
 * new line. Clipped to the image. */
void pic_draw_text(pic_image *img, int x, int y, const char *text, int scale, uint8_t r,
                   uint8_t g, uint8_t b);

/* The demo's --pictures DIR: writes every figure and the million-agent
 * crowd as PNGs into dir (created if missing). Returns 0 on success. */
int demo_write_pictures(const char *dir);

#endif /* CROWDSTEER_PICTURES_H */
