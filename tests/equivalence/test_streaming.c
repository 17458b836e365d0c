/* Outputs large enough for non-temporal stores (CROWDSTEER_STREAM_MIN_BYTES,
 * 64 MiB by default; the asan preset sets 1 byte) give the reference's bits:
 * every ISA, 2D and 3D, every start alignment of the output arrays (so every
 * split into a normally stored head, a streamed middle and a tail), arrays
 * that share an alignment (streamed) and arrays that do not (not streamed),
 * and ranges that start and end anywhere. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../common/check.h"

#ifndef CROWDSTEER_STREAM_MIN_BYTES
#error "tests/equivalence/CMakeLists.txt passes the library's threshold"
#endif

/* One float array of every kind a call touches, 64-byte aligned plus
 * `misalign` floats; `stagger` adds a different offset to each output axis so
 * that their alignments differ. */
typedef struct world {
  size_t count;
  float *block;
  float *p[3], *v[3], *out[3], *wander[3];
  uint32_t *index;
} world;

enum { SLACK = 64 };

static int world_make(world *w, size_t count, int dims, size_t misalign, int stagger) {
  const size_t stride = (count + SLACK + 15) / 16 * 16; /* whole 64-byte lines */
  memset(w, 0, sizeof *w);
  w->count = count;
  w->block = aligned_alloc(64, stride * 4 * (size_t)dims * sizeof(float));
  w->index = malloc((count + 1) * sizeof(uint32_t));
  if (!w->block || !w->index) return 0;
  float *next = w->block + misalign;
  for (int k = 0; k < dims; k++) {
    w->p[k] = next, next += stride;
    w->v[k] = next, next += stride;
    w->out[k] = next + (stagger ? (size_t)k * 3 : 0), next += stride;
    w->wander[k] = next, next += stride;
  }
  uint64_t state = 0x9e3779b97f4a7c15u ^ count;
  for (size_t i = 0; i < count; i++) {
    for (int k = 0; k < dims; k++) {
      state = state * 6364136223846793005u + 1442695040888963407u;
      float unit = (float)(state >> 40) * 0x1p-24f * 2.0f - 1.0f;
      w->p[k][i] = unit * 100.0f;
      w->v[k][i] = unit * -1.5f;
      w->wander[k][i] = unit;
      w->out[k][i] = 7.0f; /* every element is overwritten */
    }
    /* A nearby agent: random ones would make this test wait on DRAM. */
    w->index[i] = (uint32_t)((i + 1 + (state >> 60)) % count);
  }
  return 1;
}

static void world_free(world *w) {
  free(w->block);
  free(w->index);
}

typedef enum entry { SEEK_POINT, PURSUIT_AGENTS, WANDER, ENTRIES } entry;
static const char *const entry_names[ENTRIES] = {"seek (point)", "pursuit (agents)",
                                                 "wander"};

static crowdsteer_status run(world *w, int dims, entry e, size_t begin, size_t end) {
  crowdsteer_agents agents = {w->count, dims,    w->p[0], w->p[1], w->p[2],
                              w->v[0],  w->v[1], w->v[2], NULL};
  crowdsteer_params params = {0};
  params.max_speed = 2.0f;
  crowdsteer_output out = {
      {w->out[0], w->out[1], w->out[2]}, CROWDSTEER_OVERWRITE, 0, NULL};
  crowdsteer_target target = {0};
  switch (e) {
  case SEEK_POINT:
    target.kind = CROWDSTEER_TARGET_POINT;
    target.point[0] = 3.0f, target.point[1] = -4.0f, target.point[2] = 5.0f;
    return crowdsteer_seek(&agents, &target, &params, &out, begin, end);
  case PURSUIT_AGENTS:
    target.kind = CROWDSTEER_TARGET_AGENTS;
    target.index = w->index;
    return crowdsteer_pursuit(&agents, &target, &params, &out, begin, end);
  default: {
    crowdsteer_wander_state state = {{w->wander[0], w->wander[1], w->wander[2]}, 42u, 7u};
    params.wander_radius = 1.0f;
    params.wander_distance = 2.0f;
    params.jitter = 0.2f;
    return crowdsteer_wander(&agents, &state, &params, &out, begin, end);
  }
  }
}

static int same_arrays(const world *want, const world *got, int dims, entry e,
                       const char *how) {
  for (int k = 0; k < dims; k++)
    for (size_t i = 0; i < want->count; i++)
      if (!same_bits(want->out[k][i], got->out[k][i]) ||
          !same_bits(want->wander[k][i], got->wander[k][i])) {
        fprintf(stderr,
                "MISMATCH %s %dd count=%zu [%s] isa=%s agent %zu axis %d: "
                "steering %a vs %a, wander %a vs %a\n",
                entry_names[e], dims, want->count, how,
                crowdsteer_isa_name(crowdsteer_active_isa()), i, k,
                (double)want->out[k][i], (double)got->out[k][i],
                (double)want->wander[k][i], (double)got->wander[k][i]);
        return 0;
      }
  return 1;
}

static void check(size_t count, int dims, entry e, size_t misalign, int stagger,
                  const crowdsteer_isa *isas, int isa_count) {
  world want, got; /* world_make is deterministic: every copy starts alike */
  CHECK(world_make(&want, count, dims, misalign, stagger));
  CHECK(crowdsteer_force_isa(CROWDSTEER_ISA_SCALAR) == CROWDSTEER_OK);
  CHECK_STATUS(run(&want, dims, e, 0, count), CROWDSTEER_OK);
  for (int n = 0; n < isa_count; n++) {
    CHECK(crowdsteer_force_isa(isas[n]) == CROWDSTEER_OK);
    CHECK(world_make(&got, count, dims, misalign, stagger));
    CHECK_STATUS(run(&got, dims, e, 0, count), CROWDSTEER_OK);
    CHECK(same_arrays(&want, &got, dims, e, "one call"));
    world_free(&got);
    /* Ranges starting at every alignment, each still above the threshold
     * when the whole call is: the second piece is the larger one. */
    CHECK(world_make(&got, count, dims, misalign, stagger));
    size_t cut = 1 + misalign % 7;
    CHECK_STATUS(run(&got, dims, e, cut, count), CROWDSTEER_OK);
    CHECK_STATUS(run(&got, dims, e, 0, cut), CROWDSTEER_OK);
    CHECK(same_arrays(&want, &got, dims, e, "split ranges"));
    world_free(&got);
  }
  world_free(&want);
}

int main(void) {
  crowdsteer_isa isas[CROWDSTEER_ISA_COUNT];
  int isa_count = isas_to_test(CROWDSTEER_ISA_SCALAR, isas);
  if (isa_count < 0) return 77;
  const size_t threshold = (size_t)CROWDSTEER_STREAM_MIN_BYTES;
  if (threshold >= (1u << 20)) {
    /* The production threshold (tens of MiB): two calls just above it,
     * about a second per ISA. */
    check(threshold / (2 * sizeof(float)) + 37, 2, SEEK_POINT, 0, 0, isas, isa_count);
    check(threshold / (3 * sizeof(float)) + 37, 3, PURSUIT_AGENTS, 5, 0, isas, isa_count);
  } else {
    /* A tiny threshold (the asan and aarch64 presets): every entry, every
     * alignment within a 64-byte line, counts around the vector widths, and
     * outputs with and without a shared alignment. */
    for (int dims = 2; dims <= 3; dims++) {
      size_t at_threshold = threshold / ((size_t)dims * sizeof(float)) + 1;
      for (int e = 0; e < ENTRIES; e++)
        for (size_t misalign = 0; misalign < 16; misalign++)
          for (int stagger = 0; stagger < 2; stagger++)
            check(at_threshold + misalign * 3, dims, (entry)e, misalign, stagger, isas,
                  isa_count);
    }
  }
  printf("threshold %zu bytes, %d ISA(s)\n", threshold, isa_count);
  return check_report("test_streaming");
}
