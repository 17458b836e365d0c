"""The binding agrees with a float64 NumPy model of the documented formulas
(seek, flee, arrive, integrator) on random input, within float32 rounding."""
import numpy as np
import pytest

import crowdsteer as cs
import model
from conftest import empty_vectors, f32, random_agents


def assert_close(got, want, scale, what, skip=None):
    for k, (g, w) in enumerate(zip(got, want)):
        err = np.abs(np.asarray(g, np.float64) - w)
        bad = err > 2e-6 * scale + 1e-30
        if skip is not None:
            bad &= ~skip
        assert not bad.any(), "%s axis %d: %d agents off, worst %g" % (
            what, k, bad.sum(), err.max())


def as64(arrays):
    return [np.asarray(a, np.float64) for a in arrays]


@pytest.mark.parametrize("dims", [2, 3])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_seek_flee_arrive_match_the_model(dims, seed):
    rng = np.random.default_rng(seed)
    n = 1000
    agents, arrays = random_agents(rng, n, dims)
    pos, vel = as64(arrays[:dims]), as64(arrays[dims:])
    tpos = [f32(rng.uniform(-100, 100, n)) for _ in range(dims)]
    max_speed = f32(rng.uniform(0.1, 3.0, n))
    ms = max_speed.astype(np.float64)
    speed_scale = ms + model.length(vel)
    steering = empty_vectors(n, dims)
    target = cs.Target.arrays(tuple(tpos))
    t64 = as64(tpos)

    cs.seek(agents, target, cs.Params(max_speed_per_agent=max_speed, time_to_target=0.5),
            steering)
    assert_close(steering, model.seek(pos, vel, t64, ms, 0.5), speed_scale / 0.5, "seek")

    panic = f32(rng.uniform(0, 150, n))
    dist = model.length([p - t for p, t in zip(pos, t64)])
    near_edge = np.abs(dist - panic) < 1e-3
    cs.flee(agents, target, cs.Params(max_speed_per_agent=max_speed,
                                      panic_radius_per_agent=panic), steering)
    assert_close(steering, model.flee(pos, vel, t64, ms, panic.astype(np.float64)),
                 speed_scale, "flee", skip=near_edge)

    radius, slowing = 20.0, 60.0
    near_edge = np.abs(dist - radius) < 1e-3
    cs.arrive(agents, target, cs.Params(max_speed_per_agent=max_speed,
                                        target_radius=radius, slowing_radius=slowing),
              steering)
    assert_close(steering, model.arrive(pos, vel, t64, ms, radius, slowing), speed_scale,
                 "arrive", skip=near_edge)


@pytest.mark.parametrize("dims", [2, 3])
def test_integrator_matches_the_model(dims):
    rng = np.random.default_rng(dims)
    n = 1000
    agents, arrays = random_agents(rng, n, dims)
    pos, vel = as64(arrays[:dims]), as64(arrays[dims:])
    steering = tuple(f32(rng.uniform(-3, 3, n)) for _ in range(dims))
    max_speed = f32(rng.uniform(0.5, 2.5, n))
    max_force = f32(rng.uniform(0.1, 4.0, n))
    mass = f32(rng.uniform(0.5, 2.0, n))
    params = cs.Params(max_speed_per_agent=max_speed, max_force_per_agent=max_force,
                       mass_per_agent=mass, dt=0.25)
    want_p, want_v = model.integrate(pos, vel, as64(steering), max_speed.astype(np.float64),
                                     max_force.astype(np.float64),
                                     mass.astype(np.float64), 0.25)
    cs.integrate(agents, steering, params)
    scale = 4.0 + model.length(vel) + max_speed
    assert_close(arrays[dims:], want_v, scale, "velocity")
    assert_close(arrays[:dims], want_p, 100 + scale, "position")


def test_seek_on_the_target_cancels_the_velocity():
    agents, arrays = random_agents(np.random.default_rng(5), 8)
    steering = empty_vectors(8)
    cs.seek(agents, cs.Target.arrays((arrays[0].copy(), arrays[1].copy())), None, steering)
    assert np.array_equal(steering[0], -arrays[2]) and np.array_equal(steering[1], -arrays[3])
