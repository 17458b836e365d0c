/* Divide and square-root throughput of each x86 vector width (divider.c):
 * the ceiling of exact-mode kernels, which must use IEEE division and sqrt. */
#ifndef CROWDSTEER_BENCH_DIVIDER_H
#define CROWDSTEER_BENCH_DIVIDER_H

/** The widths measured: one float (divss/sqrtss, what the scalar reference
 *  issues), then 4, 8 and 16 lanes (SSE, AVX, AVX-512). */
typedef enum divider_width {
  DIVIDER_SCALAR,
  DIVIDER_SSE,
  DIVIDER_AVX,
  DIVIDER_AVX512,
  DIVIDER_WIDTH_COUNT
} divider_width;

typedef enum divider_op { DIVIDER_DIV, DIVIDER_SQRT } divider_op;

/** Floats per instruction at this width. */
int divider_lanes(divider_width width);

/** Whether this CPU (and OS) runs the width; always 0 off x86. */
int divider_supported(divider_width width);

/** Issues `rounds` rounds of DIVIDER_CHAINS independent div (or sqrt)
 *  instructions of this width; returns a value that depends on all of them.
 *  That is rounds * DIVIDER_CHAINS * lanes results. */
float divider_run(divider_width width, divider_op op, long rounds);

#define DIVIDER_CHAINS 12

#endif /* CROWDSTEER_BENCH_DIVIDER_H */
