/* Deterministic crowd scenarios for collision avoidance (ORCA): the classic
 * examples of the reference ORCA implementations (RVO2 in 2D, RVO2-3D in 3D),
 * scaled to any number of agents, and a dense random crowd. Shared by our own
 * examples and by the RVO2 comparison driver (bench/rvo2), so that both run
 * exactly the same crowd, goals, obstacles and preferred-velocity rule: only
 * the simulator step differs. Plain C11, no dependency but libm.
 *
 * Every scenario is a set of agents with start positions and goals, one set
 * of agent parameters (all agents alike), a time step, static polygon
 * obstacles (2D only), a preferred-velocity rule applied before every step,
 * and a "reached" test. A simulation loop is:
 *
 *   scn_scenario s;
 *   scn_circle(&s, 1000);
 *   do {
 *     scn_pref_velocities(&s, positions, pref);  (positions: n * dims floats)
 *     ... one simulator step with those preferred velocities ...
 *     steps++;
 *   } while (!scn_reached(&s, positions));
 *   scn_free(&s);
 *
 * which is the examples' own loop (set preferred velocities, step, then test
 * the goals), so "steps to completion" counts steps.
 *
 * The scenarios:
 *
 * circle(N): RVO2's Circle example (250 agents on one ring of radius 200,
 *   each going to its antipode) scaled to N agents at the example's spacing.
 *   The arc spacing is s = 2 pi 200 / 250 (= 1.6 pi, about 5.03). The outer
 *   ring has radius R0 = 200 sqrt(N / 250); ring k (k = 0, 1, ...) has radius
 *   R_k = R0 - k s and room for c_k = floor(2 pi R_k / s) = floor(1.25 R_k)
 *   agents (computed in double with a 1e-9 allowance, so that the example's
 *   ring holds exactly 250). Rings are filled from the outside in, in index
 *   order: ring k takes m_k = min(c_k, agents still to place) agents, at the
 *   angles i * 2 pi / m_k, i = 0 .. m_k - 1 (the last, partial ring is thus
 *   spread evenly round its circle). Agent i's position is, in float,
 *   R_k * (cosf(a), sinf(a)) with a = ((float)i * 2pi_f) * (1.0f / m_k), as
 *   the example computes it: circle(250) gives the example's agents bit for
 *   bit. Goal: the antipode, -position. Agents: neighbour distance 15, 10 max
 *   neighbours, time horizon 10 (agents) and 10 (obstacles), radius 1.5, max
 *   speed 2; time step 0.25. Preferred velocity: goal - position, scaled to
 *   length 1 when its squared length exceeds 1. Reached: every agent within
 *   its radius of its goal (squared distance <= radius^2). No obstacles.
 *
 * blocks(seed): RVO2's Blocks example. 100 agents, added in the example's
 *   order: for i, j in 0..4 (i outer), the four agents
 *   ( 55 + 10i,  55 + 10j) to (-75, -75), (-55 - 10i,  55 + 10j) to (75, -75),
 *   ( 55 + 10i, -55 - 10j) to (-75,  75), (-55 - 10i, -55 - 10j) to (75,  75).
 *   Four square obstacles, vertices in the example's (counterclockwise) order:
 *   (-10,40) (-40,40) (-40,10) (-10,10); (10,40) (10,10) (40,10) (40,40);
 *   (10,-40) (40,-40) (40,-10) (10,-10); (-10,-40) (-10,-10) (-40,-10) (-40,-40).
 *   Agents: neighbour distance 15, 10 max neighbours, time horizons 5 and 5,
 *   radius 2, max speed 2; time step 0.25. Preferred velocity: as circle,
 *   then, for every agent in index order, a perturbation "to avoid deadlocks
 *   due to perfect symmetry": two draws u1 then u2 from the scenario's
 *   generator (below), angle = u1 * 2pi_f, dist = u2 * 0.0001f, and
 *   pref += dist * (cosf(angle), sinf(angle)). The example draws rand() seeded
 *   from the clock; here the generator is splitmix64 (util/splitmix64.h)
 *   started at `seed`, and a draw is the top 24 bits of its next number times
 *   2^-24 (a float in [0, 1)). Reached: every agent within 20 of its goal
 *   (squared distance <= 400, the example's test).
 *
 * roadmap(seed): RVO2's Roadmap example: blocks' agents, obstacles and agent
 *   parameters, with goals given as roadmap vertices 0..3 ((-75,-75),
 *   (75,-75), (-75,75), (75,75); agents in blocks' order take vertices 0, 1,
 *   2, 3 in turn) and 16 more vertices round the obstacles, in this order:
 *   (-42,-42) (-42,-8) (-42,8) (-42,42) (-8,-42) (-8,-8) (-8,8) (-8,42)
 *   (8,-42) (8,-8) (8,8) (8,42) (42,-42) (42,-8) (42,8) (42,42). The example
 *   joins u -> v when RVO2's visibility query (obstacle tree, radius 2) says
 *   v is visible from u; that query is not plain geometry (its answer for a
 *   segment exactly 2 from an edge, as the segments between these vertices
 *   often are, hangs on how the tree split the edges, and it is not
 *   symmetric), so the edge set is given as data: the example's own, listed
 *   in scenarios.c (183 ordered pairs, the 20 self-loops included). dist[v][g] is
 *   then as the example computes it: Dijkstra from goal vertex g, relaxing
 *   dist[v] = dist[u] + sqrtf(dx*dx + dy*dy) over the edges u -> v, in
 *   float (infinity when unreachable). Preferred velocity of agent i with
 *   goal vertex g, at p: over the vertices v in index order, keep the first v
 *   that lowers d = sqrtf(|v - p|^2) + dist[v][g] strictly below the best so
 *   far and is visible from p (scn_visible(p, v, radius)). None: pref = 0.
 *   If the kept vertex is exactly at p: pref = 0 when it is the goal, else
 *   the unit vector towards the goal; otherwise the unit vector towards the
 *   kept vertex (always length 1, never clamped). Then blocks' perturbation,
 *   two draws per agent in index order. Reached: within 20 of the goal vertex.
 *   The example tests that per-step visibility with RVO2's query too;
 *   scn_visible is a plain geometric test instead (below), and the driver
 *   counts the queries where the two disagree.
 *
 * dense(N, seed): a dense random crowd: one agent per 10 square units, in the
 *   square [-L/2, L/2]^2 with L = sqrt(10 N); circle's agent parameters and
 *   preferred-velocity rule; no obstacles. Discs of radius 1.5 at that
 *   density cover 70.7 % of the square, far above what random sequential
 *   rejection can reach (jamming near 55 %), so rejecting starts closer than
 *   2 radii to an earlier agent cannot place them all. Instead: uniform
 *   random starts (splitmix64 from `seed`, x then y per agent, each
 *   (u - 0.5) L with u a 53-bit double draw in [0, 1)), then a deterministic
 *   relaxation in double precision: sweeps in which every pair (i < j, in
 *   grid order, below) closer than D = 2 radius + 0.01 is pushed apart
 *   symmetrically to distance D + 0.01 (a coincident pair along +x), each
 *   agent then clamped into the square, until a sweep pushes no pair. A
 *   sweep sorts the agents into a grid of floor(L / D) by floor(L / D)
 *   square cells (side at least D; the last row and column also take the
 *   edge x or y = L/2) by their positions at its start (row-major, rows
 *   going up in y; in a cell, by index) and visits the cells row-major and,
 *   for each agent of a cell in turn, the later agents of its cell and all
 *   those of the cells at (+1, 0), (-1, +1), (0, +1) and (+1, +1), with
 *   positions updated as it goes. The starts are that result
 *   rounded to float, and no two are closer than 2 radii (checked exactly
 *   on the floats; scn_dense fails otherwise). The crowd stays disordered
 *   (random close packing of discs is near 82 %). Goals: a random
 *   permutation of the starts (Fisher-Yates from the same generator, j = next
 *   % (i + 1), for i = N-1 down to 1); agent i goes to start perm[i].
 *   Reached: as circle.
 *
 * sphere(N): RVO2-3D's Sphere example (812 agents on a sphere of radius 100,
 *   each going to its antipode) scaled to N. The example's sphere of radius R
 *   has rings i = 0, 1, ... while (float)i < (h * 0.5f) * 2pi_f, h = R / 10
 *   (rings 10 apart along the meridian), ring i at z = R cosf(i / h) with
 *   radius r = R sinf(i / h), and agents j = 0, 1, ... while (float)j <
 *   r / 2.5f at (r cosf(j 2pi_f / (r / 2.5f)), r sinf(...), z) (about 15.7
 *   apart along the ring). Scaled: shells of radius R_k = R0 - 10 k,
 *   R0 = 100 sqrt(N / 812), each laid out like that, filled from the
 *   outermost shell inwards, ring by ring, agent by agent, until N are placed
 *   (the last shell keeps its first rings only). sphere(812) gives the
 *   example's agents bit for bit, and like the example some start closer
 *   than two radii: a ring's last agent sits just short of its first when
 *   r / 2.5 is just above a whole number (the example has 3 such pairs, the
 *   closest 0.29 apart; sphere(10000) has 17). Agents: neighbour distance 15, 10 max
 *   neighbours, time horizon 10, radius 1.5, max speed 2; time step 0.125.
 *   Preferred velocity as circle (in 3D). Reached: every agent within two
 *   radii of its goal (the example's test, squared distance <= 4 radius^2). */
#ifndef CROWDSTEER_EXAMPLES_SCENARIOS_H
#define CROWDSTEER_EXAMPLES_SCENARIOS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The preferred-velocity rules (see above). */
typedef enum scn_rule {
  SCN_TO_GOAL = 0,       /* circle, dense, sphere */
  SCN_TO_GOAL_PERTURBED, /* blocks */
  SCN_ROADMAP_PERTURBED  /* roadmap */
} scn_rule;

/* One set of ORCA agent parameters, RVO2's setAgentDefaults order. */
typedef struct scn_agent_params {
  float neighbor_dist;     /* how far other agents are considered */
  size_t max_neighbors;    /* at most this many nearest agents */
  float time_horizon;      /* against agents */
  float time_horizon_obst; /* against obstacles (2D only) */
  float radius;
  float max_speed;
} scn_agent_params;

typedef struct scn_scenario {
  const char *name; /* "circle", "blocks", "roadmap", "dense", "sphere" */
  int dims;         /* 2 or 3 */
  size_t n;         /* agents */
  float *start;     /* n * dims: x, y (, z) of agent 0, then agent 1, ... */
  float *goal;      /* n * dims */
  scn_agent_params agent;
  float time_step;
  float reach_sq; /* reached when every |position - goal|^2 <= reach_sq */
  scn_rule rule;
  uint64_t rng; /* the perturbation generator's splitmix64 state */

  /* Obstacles: polygon k has the vertices obstacle_xy[2 * v], v in
   * [obstacle_first[k], obstacle_first[k + 1]), in RVO2's order
   * (counterclockwise; an agent outside a polygon is on the right of its
   * edges). */
  size_t num_obstacles;
  size_t *obstacle_first; /* num_obstacles + 1 entries */
  float *obstacle_xy;

  /* Roadmap (roadmap only): vertex positions, the edge matrix
   * (edge[u * num_vertices + v] != 0: u sees v) and dist[v * 4 + g]. */
  size_t num_vertices;
  float *vertex_xy;
  unsigned char *edge;
  float *dist;
  size_t *goal_vertex; /* per agent: its goal vertex, 0..3 */
} scn_scenario;

/* Each builder fills *s (all owned memory freed by scn_free) and returns 0,
 * or -1 (out of memory, n out of range; *s then holds nothing to free). */
int scn_circle(scn_scenario *s, size_t n);
int scn_blocks(scn_scenario *s, uint64_t seed);
int scn_roadmap(scn_scenario *s, uint64_t seed);
int scn_dense(scn_scenario *s, size_t n, uint64_t seed);
int scn_sphere(scn_scenario *s, size_t n);
void scn_free(scn_scenario *s);

/* By name ("circle", "blocks", "roadmap", "dense", "sphere"); n and seed
 * are ignored by the scenarios that have none. */
int scn_make(scn_scenario *s, const char *name, size_t n, uint64_t seed);

/* Writes every agent's preferred velocity (n * dims floats) for the
 * positions `pos` (n * dims), agents in index order; advances s->rng for the
 * perturbed rules. */
void scn_pref_velocities(scn_scenario *s, const float *pos, float *pref);

/* 1 when every agent at `pos` is within the reach distance of its goal. */
int scn_reached(const scn_scenario *s, const float *pos);

/* 1 when the segment q1-q2 keeps at least `radius` from every obstacle edge
 * (closed: a distance of exactly `radius` is visible) and, for radius 0,
 * crosses or touches none. Computed in double from the floats given. */
int scn_visible(const scn_scenario *s, const float q1[2], const float q2[2],
                float radius);

#ifdef __cplusplus
}
#endif

#endif /* CROWDSTEER_EXAMPLES_SCENARIOS_H */
