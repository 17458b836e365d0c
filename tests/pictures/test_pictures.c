/* The pictures rasteriser: each figure and a small crowd render the same
 * pixels twice in a process, match hashes recorded on x86 (the same on every
 * ISA and platform: no libm transcendentals touch pixels), and are not blank. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../common/check.h"
#include "pictures.h"

/* FNV-1a of the pixel buffers, recorded with `test_pictures --print`. */
static const uint64_t recorded_figure[PIC_FIGURE_COUNT] = {
#include "recorded_hashes.inc"
};
static const uint64_t recorded_crowd = RECORDED_CROWD;

static size_t count_non_background(const pic_image *img, int x0, int x1, int y0) {
  size_t n = 0;
  for (int y = y0; y < img->height; y++)
    for (int x = x0; x < x1; x++) {
      const uint8_t *p = img->rgb + 3 * ((size_t)y * (size_t)img->width + (size_t)x);
      if (p[0] != PIC_BG_R || p[1] != PIC_BG_G || p[2] != PIC_BG_B) n++;
    }
  return n;
}

static size_t count_colours(const pic_image *img) {
  static uint8_t seen[1 << 21]; /* one bit per 24-bit colour */
  memset(seen, 0, sizeof seen);
  size_t n = 0;
  for (size_t i = 0; i < (size_t)img->width * (size_t)img->height; i++) {
    const uint8_t *p = img->rgb + 3 * i;
    uint32_t c = (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
    if (!(seen[c >> 3] & (1u << (c & 7)))) {
      seen[c >> 3] |= (uint8_t)(1u << (c & 7));
      n++;
    }
  }
  return n;
}

int main(int argc, char **argv) {
  int print = argc > 1 && strcmp(argv[1], "--print") == 0;
  if (skip_if_forced_isa_unavailable()) return 77;
  printf("ISA %s\n", crowdsteer_isa_name(crowdsteer_active_isa()));
  for (int f = 0; f < PIC_FIGURE_COUNT; f++) {
    pic_image a, b;
    CHECK(pic_render_figure(f, &a) == 0);
    CHECK(pic_render_figure(f, &b) == 0);
    if (!a.rgb || !b.rgb) return 1;
    uint64_t ha = pic_hash(&a), hb = pic_hash(&b);
    printf("%-14s %016" PRIx64 "\n", pic_figure_name(f), ha);
    if (print) printf("    0x%016" PRIx64 "ull, /* %s */\n", ha, pic_figure_name(f));
    CHECK(a.width == PIC_FIGURE_WIDTH && a.height == PIC_FIGURE_HEIGHT);
    CHECK_MSG(ha == hb, "%s: two renders differ", pic_figure_name(f));
    CHECK_MSG(memcmp(a.rgb, b.rgb, (size_t)a.width * a.height * 3) == 0, "%s",
              pic_figure_name(f));
    CHECK_MSG(ha == recorded_figure[f], "%s: hash %016" PRIx64 ", recorded %016" PRIx64,
              pic_figure_name(f), ha, recorded_figure[f]);
    /* Below the captions (y >= 45), so text alone cannot pass. */
    size_t left = count_non_background(&a, 0, PIC_PANEL, 45);
    size_t right = count_non_background(&a, PIC_PANEL + PIC_GAP, PIC_FIGURE_WIDTH, 45);
    size_t colours = count_colours(&a);
    CHECK_MSG(left > 1500 && right > 1500, "%s: non-background pixels %zu | %zu",
              pic_figure_name(f), left, right);
    CHECK_MSG(colours > 100, "%s: only %zu colours", pic_figure_name(f), colours);
    pic_image_free(&a);
    pic_image_free(&b);
  }
  pic_image a, b;
  CHECK(pic_render_crowd(20000, 60, 200, &a) == 0);
  CHECK(pic_render_crowd(20000, 60, 200, &b) == 0);
  if (!a.rgb || !b.rgb) return 1;
  uint64_t ha = pic_hash(&a);
  printf("%-14s %016" PRIx64 "\n", "crowd", ha);
  if (print) printf("#define RECORDED_CROWD 0x%016" PRIx64 "ull\n", ha);
  CHECK(ha == pic_hash(&b));
  CHECK_MSG(ha == recorded_crowd, "crowd: hash %016" PRIx64 ", recorded %016" PRIx64, ha,
            recorded_crowd);
  size_t lit = count_non_background(&a, 0, a.width, 0);
  CHECK_MSG(lit > 10000, "crowd: only %zu non-background pixels", lit);
  CHECK(count_colours(&a) > 100);
  pic_image_free(&a);
  pic_image_free(&b);

  /* The font covers what the captions and the viewer draw. */
  CHECK(pic_font_glyph('A')[0] != 0 && pic_font_glyph('a') == pic_font_glyph('A'));
  CHECK(pic_font_glyph('~') == pic_font_glyph('?'));
  CHECK(pic_render_figure(PIC_FIGURE_COUNT, &a) == -1);
  CHECK(pic_render_crowd(10, 1, 100, &a) == -1);

  return check_report("test_pictures");
}
