/* Exact signs for the obstacle geometry. A float is a double exactly, so
 * the products are evaluated in double with a bound on their rounding; only
 * when the bound cannot decide is the value summed exactly, as an expansion
 * of doubles (Dekker's and Knuth's error-free sums and products; no FMA:
 * the library builds with -ffp-contract=off). Inputs are finite floats, so
 * nothing here overflows (|product| < 2^257) or underflows (every term is a
 * multiple of 2^-298, far above double's smallest normal). */
#include "avoid/exact.h"

#include <math.h>

static void two_sum(double a, double b, double *sum, double *error) {
  const double s = a + b;
  const double b_virtual = s - a;
  const double a_virtual = s - b_virtual;
  *sum = s;
  *error = (a - a_virtual) + (b - b_virtual);
}

/* a = high + low, each with at most 26 significant bits. */
static void split(double a, double *high, double *low) {
  const double c = 134217729.0 * a; /* 2^27 + 1 */
  *high = c - (c - a);
  *low = a - *high;
}

static void two_product(double a, double b, double *product, double *error) {
  double ah, al, bh, bl;
  const double p = a * b;
  split(a, &ah, &al);
  split(b, &bh, &bl);
  *product = p;
  *error = al * bl - (((p - ah * bh) - al * bh) - ah * bl);
}

/* (x1 - x0) (y1 - y0) as four exact terms appended to `terms`. */
static int append_product(double x1, double x0, double y1, double y0, double *terms) {
  double xs, xe, ys, ye;
  two_sum(x1, -x0, &xs, &xe);
  two_sum(y1, -y0, &ys, &ye);
  const double parts[4][2] = {{xs, ys}, {xs, ye}, {xe, ys}, {xe, ye}};
  int n = 0;
  for (int k = 0; k < 4; k++) {
    double p, e;
    two_product(parts[k][0], parts[k][1], &p, &e);
    terms[n++] = p;
    terms[n++] = e;
  }
  return n;
}

/* The sign of the exact sum of `n` doubles: grown into a non-overlapping
 * expansion (smallest magnitude first), whose largest non-zero component
 * carries the sign of the whole. */
static int exact_sum_sign(const double *terms, int n) {
  double expansion[16];
  int length = 0;
  for (int t = 0; t < n; t++) {
    double q = terms[t];
    for (int k = 0; k < length; k++) {
      double h;
      two_sum(q, expansion[k], &q, &h);
      expansion[k] = h;
    }
    expansion[length++] = q;
  }
  for (int k = length - 1; k >= 0; k--)
    if (expansion[k] != 0.0) return expansion[k] > 0.0 ? 1 : -1;
  return 0;
}

int cs_exact_sign2(float a1, float a0, float b1, float b0, float c1, float c0, float d1,
                   float d0) {
  const double p = ((double)a1 - a0) * ((double)b1 - b0);
  const double q = ((double)c1 - c0) * ((double)d1 - d0);
  const double value = p + q;
  /* Two rounded differences, one rounded product, one rounded sum: within
   * (3 + 16 eps) eps (|p| + |q|) of the exact value (Shewchuk's bound for
   * the same shape of expression). */
  const double eps = 0x1p-53;
  const double bound = (3.0 + 16.0 * eps) * eps * (fabs(p) + fabs(q));
  if (value > bound) return 1;
  if (-value > bound) return -1;
  double terms[16];
  int n = append_product(a1, a0, b1, b0, terms);
  n += append_product(c1, c0, d1, d0, terms + n);
  return exact_sum_sign(terms, n);
}

/* Whether c, collinear with ab, lies on the closed segment ab. */
static int on_collinear_segment(const float a[2], const float b[2], const float c[2]) {
  return cs_dot_sign(c, a, c, b) <= 0; /* (a - c) . (b - c) <= 0 */
}

int cs_segments_touch(const float a[2], const float b[2], const float c[2],
                      const float d[2]) {
  const int abc = cs_orient(a, b, c), abd = cs_orient(a, b, d);
  const int cda = cs_orient(c, d, a), cdb = cs_orient(c, d, b);
  if (abc * abd < 0 && cda * cdb < 0) return 1;
  if (abc == 0 && on_collinear_segment(a, b, c)) return 1;
  if (abd == 0 && on_collinear_segment(a, b, d)) return 1;
  if (cda == 0 && on_collinear_segment(c, d, a)) return 1;
  if (cdb == 0 && on_collinear_segment(c, d, b)) return 1;
  return 0;
}
