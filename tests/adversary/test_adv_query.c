/* Neighbour queries under an adversary: what "its form and tasks are not
 * read" means (an unknown form is still PARAMETER, as in a behaviour; the
 * Reynolds form gives the default form's lists; a task system with no
 * functions is never called), with and without a grid. */
#include "check.h"

enum { N = 40, K = 6 };

typedef struct lists {
  uint32_t count[N], index[N * K], found[N];
  float dd[N * K];
} lists;

static crowdsteer_status query(const crowdsteer_agents *a,
                               const crowdsteer_neighbours *nb, lists *out) {
  memset(out, 0xA5, sizeof *out);
  const crowdsteer_status s = crowdsteer_neighbour_count(a, nb, out->count, 0, N);
  if (s != CROWDSTEER_OK) return s;
  return crowdsteer_neighbour_nearest(a, nb, K, out->index, out->dd, out->found, 0, N);
}

int main(void) {
  float px[N], py[N], vx[N], vy[N];
  for (int i = 0; i < N; i++) {
    px[i] = (float)(i % 7) * 0.5f;
    py[i] = (float)(i / 7) * 0.5f;
    vx[i] = (float)(i % 3) - 1.0f;
    vy[i] = 0.5f;
  }
  crowdsteer_agents agents = {N, 2, px, py, NULL, vx, vy, NULL, NULL};
  crowdsteer_grid *grid = NULL;
  CHECK_STATUS(crowdsteer_grid_create(&grid), CROWDSTEER_OK);
  crowdsteer_grid_desc gd = {0};
  gd.cell_size = 1.25f;
  CHECK_STATUS(crowdsteer_grid_build(grid, &agents, &gd), CROWDSTEER_OK);
  crowdsteer_task_system idle = {0}; /* enqueue and finish NULL */
  static lists want, got;
  for (int with_grid = 0; with_grid < 2; with_grid++) {
    crowdsteer_neighbours nb = {0};
    nb.grid = with_grid ? grid : NULL;
    nb.radius = 1.25f;
    nb.field_of_view = 1;
    nb.cos_field_of_view = -0.25f;
    nb.inner_radius = 0.6f;
    nb.max_neighbours = 5;
    CHECK_STATUS(query(&agents, &nb, &want), CROWDSTEER_OK);
    nb.form = CROWDSTEER_FORM_REYNOLDS;
    nb.tasks = &idle;
    CHECK_STATUS(query(&agents, &nb, &got), CROWDSTEER_OK);
    CHECK(memcmp(&want, &got, sizeof want) == 0);
    nb.form = 2;
    CHECK_STATUS(query(&agents, &nb, &got), CROWDSTEER_ERROR_PARAMETER);
    nb.form = -1;
    CHECK_STATUS(crowdsteer_neighbour_count(&agents, &nb, got.count, 0, N),
                 CROWDSTEER_ERROR_PARAMETER);
  }
  crowdsteer_grid_destroy(grid);
  return check_failures ? 1 : 0;
}
