// A C++-only consumer (the project enables no C): a crowdsteer_step with
// OpenMP threads over a pursuing crowd, to prove that an installed static
// crowdsteer links from C++ alone (its OpenMP runtime included).
#include <cmath>
#include <cstdio>
#include <vector>

#include "crowdsteer.h"

int main() {
  const std::size_t n = 4096;
  std::vector<float> px(n), py(n), vx(n, 0.0f), vy(n, 0.0f);
  for (std::size_t i = 0; i < n; i++) {
    px[i] = static_cast<float>(i % 64) - 32.0f;
    py[i] = static_cast<float>(i / 64) - 32.0f;
  }
  crowdsteer_agents crowd{};
  crowd.count = n;
  crowd.dims = 2;
  crowd.px = px.data();
  crowd.py = py.data();
  crowd.vx = vx.data();
  crowd.vy = vy.data();

  crowdsteer_step_behaviour seek{};
  seek.behaviour = CROWDSTEER_SEEK;
  seek.target.kind = CROWDSTEER_TARGET_POINT; // the origin
  seek.params.max_speed = 0.5f;
  crowdsteer_step_desc step{};
  step.behaviours = &seek;
  step.behaviour_count = 1;
  step.integrator.max_speed = 0.5f;
  step.tile_size = 256;
  step.threads = 2;

  for (int t = 0; t < 200; t++) {
    crowdsteer_status status = crowdsteer_step(&crowd, &step, 0, n);
    if (status != CROWDSTEER_OK) {
      std::fprintf(stderr, "crowdsteer: %s\n", crowdsteer_status_string(status));
      return 1;
    }
  }
  for (std::size_t i = 0; i < n; i++) {
    if (!(std::hypot(px[i], py[i]) <= 0.5f)) {
      std::fprintf(stderr, "agent %zu did not reach the origin\n", i);
      return 1;
    }
  }
  std::printf("crowdsteer %s from C++: %zu agents at the origin, %d threads available\n",
              crowdsteer_version_string(), n, crowdsteer_step_max_threads());
  return 0;
}
