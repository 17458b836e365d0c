// A headless driver for OpenSteer's boids, for bench/opensteer/run: the
// rules of OpenSteer's Boids plugin (plugins/Boids.cpp: separation 5 /
// -0.707 / 12, alignment 7.5 / 0.7 / 8, cohesion 9 / -0.15 / 8, top speed 9,
// force 27, start at 0.3 of top speed in a ball of 20, wrap sphere of 50,
// banking local space) through OpenSteer's own SimpleVehicle, SteerLibrary
// and LQ proximity database, without its demo, drawing or OpenGL. Sizes
// above the plugin's 200 scale both radii by (n / 200)^(1/3): the same
// density. Prints ns per boid-step (the best of `repeat` timed runs of
// `frames` frames at 60 Hz, after as many warm-up frames), as
// examples/boids.c does for crowdsteer.
// Usage: opensteer-boids boids frames repeat
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "OpenSteer/Proximity.h"
#include "OpenSteer/SimpleVehicle.h"

using namespace OpenSteer;
typedef AbstractProximityDatabase<AbstractVehicle *> ProximityDatabase;
typedef AbstractTokenForProximityDatabase<AbstractVehicle *> ProximityToken;

static float world_radius = 50.0f, start_radius = 20.0f;

class Boid : public SimpleVehicle {
public:
  explicit Boid(ProximityDatabase &pd) : token(pd.allocateToken(this)) {
    SimpleVehicle::reset();
    setMaxForce(27);
    setMaxSpeed(9);
    setSpeed(maxSpeed() * 0.3f);
    regenerateOrthonormalBasisUF(RandomUnitVector());
    setPosition(RandomVectorInUnitRadiusSphere() * start_radius);
    token->updateForNewPosition(position());
  }
  ~Boid() { delete token; }
  void update(const float, const float dt) {
    applySteeringForce(flock(), dt);
    if (position().length() > world_radius)
      setPosition(position().sphericalWrapAround(Vec3::zero, world_radius));
    token->updateForNewPosition(position());
  }
  void regenerateLocalSpace(const Vec3 &velocity, const float dt) {
    regenerateLocalSpaceForBanking(velocity, dt);
  }

private:
  Vec3 flock() {
    neighbours.clear();
    token->findNeighbors(position(), 9.0f, neighbours);
    return steerForSeparation(5.0f, -0.707f, neighbours) * 12.0f +
           steerForAlignment(7.5f, 0.7f, neighbours) * 8.0f +
           steerForCohesion(9.0f, -0.15f, neighbours) * 8.0f;
  }
  ProximityToken *token;
  AVGroup neighbours;
};

int main(int argc, char **argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 200;
  const int frames = argc > 2 ? std::atoi(argv[2]) : 200;
  const int repeat = argc > 3 ? std::atoi(argv[3]) : 3;
  const float scale = std::cbrt(n / 200.0f);
  world_radius *= scale;
  start_radius *= scale;
  const float diameter = world_radius * 1.1f * 2;
  LQProximityDatabase<AbstractVehicle *> pd(
      Vec3::zero, Vec3(diameter, diameter, diameter), Vec3(10, 10, 10));
  std::vector<Boid *> boids;
  for (int i = 0; i < n; i++)
    boids.push_back(new Boid(pd));
  const float dt = 1.0f / 60.0f;
  double best = 1e300;
  for (int r = 0; r <= repeat; r++) {
    const auto start = std::chrono::steady_clock::now();
    for (int f = 0; f < frames; f++)
      for (Boid *b : boids)
        b->update(0.0f, dt);
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (r > 0 && s < best) best = s; /* run 0 warms up */
  }
  std::printf("opensteer boids %d frames %d ns_per_boid_step %.1f\n", n, frames,
              best * 1e9 / ((double)n * frames));
  for (Boid *b : boids)
    delete b;
  return 0;
}
