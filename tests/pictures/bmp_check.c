/* pictures_bmp_check FILE MIN: exits 0 when the uncompressed 24/32-bit BMP
 * FILE has at least MIN pixels that differ from its most common colour. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

static uint32_t le(const unsigned char *p, int n) {
  uint32_t v = 0;
  for (int i = n - 1; i >= 0; i--)
    v = (v << 8) | p[i];
  return v;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s FILE.bmp MIN_NON_BACKGROUND_PIXELS\n", argv[0]);
    return 2;
  }
  FILE *f = fopen(argv[1], "rb");
  if (!f) {
    perror(argv[1]);
    return 1;
  }
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *b = size > 54 ? malloc((size_t)size) : NULL;
  if (!b || fread(b, 1, (size_t)size, f) != (size_t)size) {
    fprintf(stderr, "%s: cannot read\n", argv[1]);
    return 1;
  }
  fclose(f);
  uint32_t offset = le(b + 10, 4), compression = le(b + 30, 4);
  int32_t width = (int32_t)le(b + 18, 4), height = (int32_t)le(b + 22, 4);
  int bpp = (int)le(b + 28, 2);
  if (height < 0) height = -height; /* top-down rows: order doesn't matter */
  /* 32-bit BMPs come as BI_BITFIELDS (3); the masks don't matter for a
   * comparison against the first pixel. */
  if (b[0] != 'B' || b[1] != 'M' || (bpp != 24 && bpp != 32) ||
      (compression != 0 && compression != 3) || width <= 0) {
    fprintf(stderr, "%s: not an uncompressed 24/32-bit BMP\n", argv[1]);
    return 1;
  }
  size_t bytes = (size_t)bpp / 8, stride = ((size_t)width * bytes + 3) & ~(size_t)3;
  if ((size_t)offset + stride * (size_t)height > (size_t)size) {
    fprintf(stderr, "%s: truncated\n", argv[1]);
    return 1;
  }
  size_t total = (size_t)width * (size_t)height, n = 0;
  uint32_t *px = malloc(total * sizeof *px);
  if (!px) return 1;
  for (int32_t y = 0; y < height; y++)
    for (int32_t x = 0; x < width; x++) {
      const unsigned char *p = b + offset + (size_t)y * stride + (size_t)x * bytes;
      px[n++] = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
    }
  /* The background is the most common colour (sorted runs). */
  qsort(px, total, sizeof *px, cmp_u32);
  size_t best = 0, colours = 0;
  for (size_t i = 0, j; i < total; i = j) {
    for (j = i; j < total && px[j] == px[i]; j++) {
    }
    if (j - i > best) best = j - i;
    colours++;
  }
  long differ = (long)(total - best);
  free(px);
  long min = atol(argv[2]);
  printf("%s: %dx%d, %zu colours, %ld non-background pixels (need %ld)\n", argv[1],
         (int)width, (int)height, colours, differ, min);
  free(b);
  return differ >= min ? 0 : 1;
}
