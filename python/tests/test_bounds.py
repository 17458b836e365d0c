"""World bounds through the binding: wrap (positions into a box) and contain
(seek's bits towards the centre outside, zero inside), errors."""
import numpy as np
import pytest

import crowdsteer as cs
from conftest import empty_vectors, f32, random_agents


def test_wrap_moves_each_axis_by_one_side():
    px, py = f32([3.0, 3.5, -1.5, 0.25, 12.0]), f32([1.0, 2.0, -0.5, 1.0, 1.0])
    agents = cs.Agents(px, py, np.zeros(5, np.float32), np.zeros(5, np.float32))
    cs.wrap(agents, (-1.0, 0.0), (3.0, 2.0))
    assert px.tolist() == [-1.0, -0.5, 2.5, 0.25, 8.0]
    assert py.tolist() == [1.0, 0.0, 1.5, 1.0, 1.0]


def test_wrap_refuses_a_bad_box_and_writes_nothing():
    agents, arrays = random_agents(np.random.default_rng(1), 8)
    before = [a.copy() for a in arrays]
    with pytest.raises(cs.ParameterError):
        cs.wrap(agents, (0.0, 0.0), (0.0, 1.0))
    with pytest.raises(cs.ParameterError):
        cs.wrap(agents, (0.0, float("nan")), (1.0, 1.0))
    with pytest.raises(ValueError):
        cs.wrap(agents, (0.0,), (1.0, 1.0))
    assert all((a == b).all() for a, b in zip(arrays, before))


@pytest.mark.parametrize("dims", [2, 3])
@pytest.mark.parametrize("shape", [cs.BOUNDS_SPHERE, cs.BOUNDS_BOX])
def test_contain_is_seek_to_the_centre_outside_and_zero_inside(dims, shape):
    rng = np.random.default_rng(dims + 10 * shape)
    n = 300
    agents, arrays = random_agents(rng, n, dims=dims, spread=30.0)
    bounds = cs.Bounds(shape=shape, centre=(1.0, -2.0, 3.0), radius=20.0,
                       box_min=(-20.0, -15.0, -25.0), box_max=(18.0, 25.0, 12.0),
                       prediction=1.5)
    params = cs.Params(max_speed=1.5, time_to_target=0.75)
    got, seek = empty_vectors(n, dims), empty_vectors(n, dims)
    cs.contain(agents, bounds, params, got)
    if shape == cs.BOUNDS_SPHERE:
        centre = bounds.centre[:dims]
    else:
        centre = tuple(float(np.float32(lo) * np.float32(0.5) + np.float32(hi) *
                             np.float32(0.5)) for lo, hi in zip(bounds.box_min,
                                                                bounds.box_max))[:dims]
    cs.seek(agents, cs.Target.point(centre), params, seek)
    p = np.array(arrays[:dims], np.float64)
    v = np.array(arrays[dims:], np.float64)
    q = p + v * 1.5
    c = np.array(centre, np.float64)[:, None]
    if shape == cs.BOUNDS_SPHERE:
        margin = 20.0 - np.sqrt(((q - c) ** 2).sum(axis=0))
    else:
        lo = np.array(bounds.box_min[:dims])[:, None]
        hi = np.array(bounds.box_max[:dims])[:, None]
        margin = np.minimum(q - lo, hi - q).min(axis=0)
    got_a, seek_a = np.array(got), np.array(seek)
    outside, inside = margin < -1e-3, margin > 1e-3
    assert outside.sum() > 20 and inside.sum() > 20
    assert (got_a[:, inside] == 0).all()
    assert got_a[:, outside].tobytes() == seek_a[:, outside].tobytes()


def test_contain_refuses_bad_bounds_and_writes_nothing():
    agents, _ = random_agents(np.random.default_rng(2), 8)
    out = empty_vectors(8, fill=7.0)
    for bad in (cs.Bounds(radius=-1.0), cs.Bounds(radius=1.0, prediction=-1.0),
                cs.Bounds(shape=2, radius=1.0),
                cs.Bounds(shape=cs.BOUNDS_BOX, box_min=(1.0, 0.0), box_max=(0.0, 1.0))):
        with pytest.raises(cs.ParameterError):
            cs.contain(agents, bad, None, out)
    with pytest.raises(AttributeError):
        cs.contain(agents, object(), None, out)
    assert all((a == 7.0).all() for a in out)


def test_periodic_ghosts_let_agents_see_across_the_seam():
    cap = 16
    px = f32([0.25, 9.875] + [0.0] * (cap - 2))
    py = f32([5.0, 5.0] + [0.0] * (cap - 2))
    vx, vy = np.zeros(cap, np.float32), np.zeros(cap, np.float32)
    ids, origin = np.zeros(cap, np.uint32), np.zeros(cap, np.uint32)
    total = cs.periodic_ghosts(cs.Agents(px, py, vx, vy), 2, (0.0, 0.0), (10.0, 10.0),
                               1.0, ids, origin=origin)
    assert total == 4 and origin[:total].tolist() == [0, 1, 0, 1]
    assert px[2] == np.float32(10.25) and px[3] == np.float32(-0.125)
    batch = cs.Agents(px[:total], py[:total], vx[:total], vy[:total], id=ids[:total])
    index, dd, _ = cs.neighbour_nearest(batch, cs.Neighbours(radius=1.0), 1, end=2)
    assert origin[index[:2].ravel()].tolist() == [1, 0]
    assert dd[:2].ravel().tolist() == [0.375 ** 2, 0.375 ** 2]
    with pytest.raises(cs.ParameterError):  # sides must exceed 2 * 1.0625 * reach
        cs.periodic_ghosts(cs.Agents(px, py, vx, vy), 2, (0.0, 0.0), (10.0, 10.0),
                           5.0, ids)
    with pytest.raises(cs.RangeError):  # no room for the ghosts
        cs.periodic_ghosts(cs.Agents(px[:3], py[:3], vx[:3], vy[:3]), 2, (0.0, 0.0),
                           (10.0, 10.0), 1.0, ids[:3])


@pytest.mark.parametrize("dims", [2, 3])
@pytest.mark.parametrize("shape", [cs.BOUNDS_SPHERE, cs.BOUNDS_BOX])
@pytest.mark.parametrize("threads", [1, 2])
def test_step_contain_is_contain_then_integrate(dims, shape, threads):
    """Behaviour(CONTAIN) in a step: contain's steering, weighted, per-agent
    mask, then integrate, bit for bit."""
    rng = np.random.default_rng(dims + 4 * shape)
    n = 700
    bounds = cs.Bounds(shape=shape, centre=(1.0, -2.0, 3.0), radius=20.0,
                       box_min=(-20.0, -15.0, -25.0), box_max=(18.0, 25.0, 12.0),
                       prediction=1.5)
    params = cs.Params(max_speed=1.5, time_to_target=0.75)
    integrator = cs.Params(max_speed=3.0)
    mask = np.where(rng.uniform(size=n) < 0.7, 1, 0).astype(np.uint32)
    mask[:300] = 1  # whole tiles of contain alone
    want, want_arrays = random_agents(np.random.default_rng(5), n, dims=dims, spread=30.0)
    got, got_arrays = random_agents(np.random.default_rng(5), n, dims=dims, spread=30.0)
    steering = empty_vectors(n, dims)
    cs.contain(want, bounds, params, steering)
    weighted = tuple(np.where(mask == 1, np.float32(2.5) * s, np.float32(0)).astype(
        np.float32) + np.float32(0) for s in steering)
    cs.integrate(want, weighted, integrator)
    cs.step(got, [cs.Behaviour(cs.CONTAIN, params=params, weight=2.5, bounds=bounds)],
            integrator=integrator, mask=mask, threads=threads, tile_size=128)
    assert all(a.tobytes() == b.tobytes() for a, b in zip(want_arrays, got_arrays))
    assert any((a != b).any() for a, b in zip(want_arrays, random_agents(
        np.random.default_rng(5), n, dims=dims, spread=30.0)[1]))


@pytest.mark.parametrize("dims", [2, 3])
def test_step_wrap_is_step_then_wrap(dims):
    n = 500
    lo, hi = (-10.0, -8.0, -9.0)[:dims], (9.0, 10.0, 11.0)[:dims]
    want, want_arrays = random_agents(np.random.default_rng(9), n, dims=dims, spread=9.0)
    got, got_arrays = random_agents(np.random.default_rng(9), n, dims=dims, spread=9.0)
    seek = [cs.Behaviour(cs.SEEK, target=cs.Target.point((40.0,) * dims))]
    integrator = cs.Params(max_speed=4.0)
    cs.step(want, seek, integrator=integrator)
    moved = [a.copy() for a in want_arrays]
    cs.wrap(want, lo, hi)
    assert any((a != b).any() for a, b in zip(moved, want_arrays))  # some wrapped
    cs.step(got, seek, integrator=integrator, wrap=(lo, hi), threads=2)
    assert all(a.tobytes() == b.tobytes() for a, b in zip(want_arrays, got_arrays))


def test_crowd_step_takes_step_s_wrap_turn_limit_and_smoothing():
    n, lo, hi = 300, (-10.0, -8.0), (9.0, 10.0)
    crowd = cs.Crowd(n)
    want, want_arrays = random_agents(np.random.default_rng(4), n, spread=9.0)
    for name, a in zip(("px", "py", "vx", "vy"), want_arrays):
        getattr(crowd, name)[:] = a
    seek = [cs.Behaviour(cs.SEEK, target=cs.Target.point((40.0, 3.0)))]
    options = dict(integrator=cs.Params(max_speed=4.0), wrap=(lo, hi), turn_limit=0.5,
                   smoothing=0.25)
    accelerations = [empty_vectors(n) for _ in range(2)]
    crowd.step(seek, acceleration=accelerations[0], **options)
    cs.step(want, seek, acceleration=accelerations[1], **options)
    got = (crowd.px, crowd.py, crowd.vx, crowd.vy)
    assert all(a.tobytes() == b.tobytes() for a, b in zip(want_arrays, got))
    assert all(a.tobytes() == b.tobytes() for a, b in zip(*accelerations))


def test_step_refuses_missing_or_bad_bounds_and_wrap_and_writes_nothing():
    agents, arrays = random_agents(np.random.default_rng(3), 16)
    before = [a.copy() for a in arrays]
    with pytest.raises(cs.NullPointerError):
        cs.step(agents, [cs.Behaviour(cs.CONTAIN)])
    with pytest.raises(cs.ParameterError):
        cs.step(agents, [cs.Behaviour(cs.CONTAIN, bounds=cs.Bounds(radius=-1.0))])
    ok = [cs.Behaviour(cs.CONTAIN, bounds=cs.Bounds(radius=5.0))]
    with pytest.raises(cs.ParameterError):
        cs.step(agents, ok, wrap=((0.0, 0.0), (0.0, 1.0)))
    with pytest.raises(TypeError):
        cs.step(agents, ok, wrap=(0.0, 1.0, 2.0))
    with pytest.raises(AttributeError):
        cs.step(agents, [cs.Behaviour(cs.CONTAIN, bounds=object())])
    assert all((a == b).all() for a, b in zip(arrays, before))
