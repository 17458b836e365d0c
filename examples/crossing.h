/* The examples' own check that walls hold, independent of the library:
 * whether an agent's move passes through a wall segment. */
#ifndef CROWDSTEER_EXAMPLES_CROSSING_H
#define CROWDSTEER_EXAMPLES_CROSSING_H

static inline double crossing_orient(double ax, double ay, double bx, double by,
                                     double cx, double cy) {
  return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
}

/* Whether the move (x0,y0)->(x1,y1) ends on the other side of the wall
 * (ax,ay)-(bx,by) it passes: start and end strictly on opposite sides of
 * the wall's line, the wall's ends not strictly on one side of the move (so
 * passing exactly through a wall's end counts). In double, exact for float
 * coordinates of these sizes (differences and products fit 53 bits). */
static inline int move_crosses_wall(double ax, double ay, double bx, double by, double x0,
                                    double y0, double x1, double y1) {
  const double a = crossing_orient(ax, ay, bx, by, x0, y0);
  const double b = crossing_orient(ax, ay, bx, by, x1, y1);
  if (!((a > 0 && b < 0) || (a < 0 && b > 0))) return 0;
  const double c = crossing_orient(x0, y0, x1, y1, ax, ay);
  const double d = crossing_orient(x0, y0, x1, y1, bx, by);
  return !((c > 0 && d > 0) || (c < 0 && d < 0));
}

#endif /* CROWDSTEER_EXAMPLES_CROSSING_H */
