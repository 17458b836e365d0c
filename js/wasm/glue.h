/* The functions js/wasm/glue.c exports to the package's JavaScript
 * (js/src/index.js calls them as Module._csjs_*). */
#ifndef CROWDSTEER_JS_GLUE_H
#define CROWDSTEER_JS_GLUE_H
#include <stdint.h>

#include "crowdsteer.h"

typedef struct js_crowd js_crowd;

js_crowd *csjs_crowd_new(uint32_t count, int dims);
void csjs_crowd_free(js_crowd *c);
void *csjs_crowd_array(js_crowd *c, int k);
void csjs_wander_seed(js_crowd *c, uint32_t seed, uint32_t tick);
int csjs_behaviour(js_crowd *c, int behaviour, int kind, float x, float y, float z,
                   float vx, float vy, float vz, uint32_t agent, int accumulate,
                   float weight, uint32_t begin, uint32_t end);
void csjs_bounds_set(js_crowd *c, int shape, float cx, float cy, float cz, float radius,
                     float lx, float ly, float lz, float hx, float hy, float hz,
                     float prediction);
int csjs_contain(js_crowd *c, int accumulate, float weight, uint32_t begin, uint32_t end);
int csjs_wrap(js_crowd *c, uint32_t begin, uint32_t end);
void csjs_step_bounds(js_crowd *c);
void csjs_step_wrap(js_crowd *c, int on);
int csjs_grid_build(js_crowd *c, float cell_size, int positions_only);
int csjs_neighbour_behaviour(js_crowd *c, int behaviour, float radius,
                             uint32_t max_neighbours, int accumulate, float weight,
                             uint32_t begin, uint32_t end);
int csjs_integrate(js_crowd *c, uint32_t begin, uint32_t end);
void csjs_step_clear(js_crowd *c);
int csjs_step_add(js_crowd *c, int behaviour, int kind, float x, float y, float z,
                  float vx, float vy, float vz, uint32_t agent, float weight,
                  float radius, uint32_t max_neighbours);
int csjs_step_run(js_crowd *c, int combine, float priority_threshold, int use_mask,
                  uint32_t tile_size, uint32_t begin, uint32_t end);
void csjs_step_avoid(js_crowd *c, int on, float radius, float time_horizon,
                     float obstacle_time_horizon, float neighbour_radius,
                     uint32_t max_neighbours, const crowdsteer_obstacles *obstacles);
void csjs_step_follow(js_crowd *c, const crowdsteer_field *field,
                      const crowdsteer_pathway *path, float direction,
                      float prediction_time, float lead_distance);
int csjs_follow_field(js_crowd *c, const crowdsteer_field *field, int accumulate,
                      float weight, uint32_t begin, uint32_t end);
int csjs_follow_path(js_crowd *c, const crowdsteer_pathway *path, float direction,
                     float prediction_time, float lead_distance, int accumulate,
                     float weight, uint32_t begin, uint32_t end);
crowdsteer_field *csjs_field_new(void);
void csjs_field_free(crowdsteer_field *f);
int csjs_field_build(crowdsteer_field *f, float origin_x, float origin_y, float cell_size,
                     uint32_t width, uint32_t height,
                     const crowdsteer_obstacles *obstacles, const float *cost,
                     const float *goal_x, const float *goal_y, uint32_t goal_count,
                     const crowdsteer_obstacles *goal_regions, int rebuild, uint32_t cx0,
                     uint32_t cy0, uint32_t cx1, uint32_t cy1);
int csjs_field_cell(const crowdsteer_field *f, uint32_t cx, uint32_t cy, double *time,
                    float *out);
uint32_t csjs_field_bytes(const crowdsteer_field *f);
crowdsteer_pathway *csjs_pathway_new(int dims, uint32_t n, const float *x, const float *y,
                                     const float *z, float radius, int cyclic,
                                     int *status);
void csjs_pathway_free(crowdsteer_pathway *p);
float csjs_pathway_length(const crowdsteer_pathway *p);
uint32_t csjs_pathway_bytes(const crowdsteer_pathway *p);
crowdsteer_obstacles *csjs_obstacles_new(void);
void csjs_obstacles_free(crowdsteer_obstacles *o);
int csjs_obstacles_add(crowdsteer_obstacles *o, const float *x, const float *y,
                       uint32_t n);
int csjs_obstacles_build(crowdsteer_obstacles *o, float cell_size);
int csjs_obstacles_inside(const crowdsteer_obstacles *o, float x, float y);
uint32_t csjs_obstacles_edge_count(const crowdsteer_obstacles *o);
uint32_t csjs_obstacles_bytes(const crowdsteer_obstacles *o);
uint32_t *csjs_crowd_hash(js_crowd *c, int arrays);
float csjs_random(uint32_t seed, uint32_t agent, uint32_t tick, uint32_t axis);
const char *csjs_status_string(int status);
const char *csjs_isa_name(void);
int csjs_force_isa(const char *name);
const char *csjs_version(void);

#endif
