"""Separation, cohesion and alignment through the binding: a Grid gives the
same bits as examining every pair, for any cell size; errors as statuses;
Grid.order() puts a crowd in cell order with the same bits."""
import numpy as np
import pytest

import crowdsteer as cs
from conftest import empty_vectors, f32, random_agents

BEHAVIOURS = [cs.separation, cs.cohesion, cs.alignment]


@pytest.mark.parametrize("dims", [2, 3])
@pytest.mark.parametrize("behaviour", BEHAVIOURS)
def test_grid_gives_the_bits_of_every_pair(dims, behaviour):
    rng = np.random.default_rng(dims)
    n = 700
    agents, _ = random_agents(rng, n, dims, spread=20.0)
    group = rng.integers(1, 8, n).astype(np.uint32)
    radius = rng.uniform(0, 3, n).astype(np.float32)
    params = cs.Params(max_speed=1.5)
    reference = empty_vectors(n, dims)
    behaviour(agents, cs.Neighbours(group=group, radius_per_agent=radius,
                                    neighbour_mask=3), params, reference)
    assert np.any(reference[0] != 0)
    grid = cs.Grid()
    for cell_size in (3.0, 4.5, 50.0):
        grid.build(agents, cell_size, group=group, threads=2)
        assert grid.bytes > 0
        got = empty_vectors(n, dims)
        behaviour(agents, cs.Neighbours(grid=grid, radius_per_agent=radius,
                                        neighbour_mask=3), params, got)
        assert b"".join(g.tobytes() for g in got) == \
            b"".join(r.tobytes() for r in reference), cell_size


def test_positions_only_grid_serves_separation():
    rng = np.random.default_rng(5)
    n = 400
    agents, _ = random_agents(rng, n, spread=12.0)
    full, lean = cs.Grid(), cs.Grid()
    full.build(agents, 2.0)
    lean.build(agents, 2.0, positions_only=True)
    assert lean.bytes < full.bytes
    want, got = empty_vectors(n), empty_vectors(n)
    cs.separation(agents, cs.Neighbours(grid=full, radius=2.0), None, want)
    cs.separation(agents, cs.Neighbours(grid=lean, radius=2.0), None, got)
    assert b"".join(g.tobytes() for g in got) == b"".join(w.tobytes() for w in want)
    for behaviour in (cs.cohesion, cs.alignment):  # they read velocities
        with pytest.raises(cs.ParameterError):
            behaviour(agents, cs.Neighbours(grid=lean, radius=2.0), None, got)


def test_neighbour_statuses():
    agents, _ = random_agents(np.random.default_rng(1), 50)
    steering = empty_vectors(50)
    grid = cs.Grid()
    with pytest.raises(cs.GridError):  # never built
        cs.cohesion(agents, cs.Neighbours(grid=grid, radius=1), None, steering)
    grid.build(agents, 2.0)
    with pytest.raises(cs.ParameterError):  # radius beyond the cell size
        cs.cohesion(agents, cs.Neighbours(grid=grid, radius=3), None, steering)
    other, _ = random_agents(np.random.default_rng(2), 51)
    with pytest.raises(cs.GridError):  # built for another count
        cs.cohesion(other, cs.Neighbours(grid=grid, radius=1), None, empty_vectors(51))
    with pytest.raises(TypeError, match="grid"):
        cs.Neighbours(grid=object())
    assert not np.any(steering[0]) and not np.any(steering[1])


def test_step_with_neighbour_behaviours_equals_its_composition():
    rng = np.random.default_rng(9)
    n = 500
    agents, arrays = random_agents(rng, n, spread=15.0)
    grid = cs.Grid()
    grid.build(agents, 2.0)
    nb = cs.Neighbours(grid=grid, radius=2.0)
    point = cs.Target.point((0, 0))
    seek_params, sep_params = cs.Params(max_speed=1), cs.Params(max_speed=2)
    out = cs.Agents(*[np.zeros(n, np.float32) for _ in range(4)])
    integrator = cs.Params(max_speed=1.5)
    cs.step(agents, [cs.Behaviour(cs.SEEK, point, seek_params),
                     cs.Behaviour(cs.SEPARATION, params=sep_params, weight=0.7,
                                  neighbours=nb),
                     cs.Behaviour(cs.ALIGNMENT, neighbours=nb, weight=0.25)],
            integrator=integrator, output=out, tile_size=100, threads=2)
    steering = empty_vectors(n)
    cs.seek(agents, point, seek_params, steering, mode=cs.ACCUMULATE)
    cs.separation(agents, nb, sep_params, steering, mode=cs.ACCUMULATE, weight=0.7)
    cs.alignment(agents, nb, None, steering, mode=cs.ACCUMULATE, weight=0.25)
    cs.integrate(agents, steering, integrator)
    assert b"".join(a.tobytes() for a in arrays) == \
        b"".join(a.tobytes() for a in (out.px, out.py, out.vx, out.vy))
    with pytest.raises(TypeError, match=r"behaviours\[0\]\.neighbours"):
        cs.step(agents, [cs.Behaviour(cs.COHESION)], output=out)


def test_ids_make_a_permuted_crowd_give_the_same_bits():
    """Agents(id=...): a crowd reordered, each agent keeping its id, gives
    every agent the same wander and separation bits (nearest-k ties and
    coincident agents included); without the ids it does not."""
    rng = np.random.default_rng(17)
    n = 400
    px = (rng.integers(0, 24, n) * 0.25).astype(np.float32)
    py = (rng.integers(0, 24, n) * 0.25).astype(np.float32)
    px[1::9], py[1::9] = px[0::9][:len(px[1::9])], py[0::9][:len(py[1::9])]
    vx, vy = (rng.uniform(-1, 1, n).astype(np.float32) for _ in range(2))
    ids = (np.arange(n, dtype=np.uint64) * 2654435761 % (1 << 32)).astype(np.uint32)
    perm = rng.permutation(n)

    def run(order, with_ids):
        arrays = [np.ascontiguousarray(a[order]) for a in (px, py, vx, vy)]
        agents = cs.Agents(*arrays, id=np.ascontiguousarray(ids[order]) if with_ids else None)
        assert (agents.id is None) != with_ids
        grid = cs.Grid()
        grid.build(agents, 0.6)
        sep = empty_vectors(n)
        cs.separation(agents, cs.Neighbours(grid=grid, radius=0.6, max_neighbours=3),
                      cs.Params(), sep)
        state = cs.WanderState(tuple(np.full(n, 0.5, np.float32) for _ in range(2)), seed=3)
        wan = empty_vectors(n)
        cs.wander(agents, state, cs.Params(wander_radius=1, jitter=0.5), wan)
        out = np.empty((4, n), np.float32)
        out[:, order] = np.stack(sep + wan)
        return out.tobytes()

    original = run(np.arange(n), True)
    assert run(perm, True) == original
    assert run(perm, False) != run(np.arange(n), False)
    with pytest.raises(ValueError, match="id"):
        cs.Agents(px, py, vx, vy, id=ids[:-1])
    with pytest.raises(TypeError, match="id"):
        cs.Agents(px, py, vx, vy, id=ids.astype(np.int64))


@pytest.mark.parametrize("dims", [2, 3])
def test_grid_order_puts_a_crowd_in_cell_order_with_the_same_bits(dims):
    """Grid.order(): a permutation; the crowd reordered by it (ids the old
    indices) builds the identity order and gives every agent the same bits
    (nearest-k ties broken by id, so the cap must not change them)."""
    rng = np.random.default_rng(23 + dims)
    n = 600
    arrays = [f32(rng.uniform(-15, 15, n)) for _ in range(dims)]
    arrays += [f32(rng.uniform(-2, 2, n)) for _ in range(dims)]
    ids = np.arange(n, dtype=np.uint32)

    def agents_of(arrays, ids):
        p, v = arrays[:dims], arrays[dims:]
        z = dict(pz=p[2], vz=v[2]) if dims == 3 else {}
        return cs.Agents(p[0], p[1], v[0], v[1], id=ids, **z)

    def separation_bits(agents, grid):
        got = empty_vectors(n, dims)
        cs.separation(agents, cs.Neighbours(grid=grid, radius=2.0, max_neighbours=5),
                      cs.Params(max_speed=1.5), got)
        assert np.any(got[0] != 0)
        return np.stack(got).view(np.uint32)

    agents, grid = agents_of(arrays, ids), cs.Grid()
    grid.build(agents, 2.0)
    order = grid.order()
    assert order.dtype == np.uint32 and order.shape == (n,)
    assert np.array_equal(np.sort(order), np.arange(n))
    assert not np.array_equal(order, np.arange(n))  # random: not already in order
    before = separation_bits(agents, grid)
    copies = [a.copy() for a in arrays]
    sorted_ids = ids.copy()
    for a in copies + [sorted_ids]:
        a[:] = a[order]
    assert np.array_equal(sorted_ids, order)
    assert np.array_equal(order, grid.order())  # a copy: the grid's array is unchanged

    sorted_agents = agents_of(copies, sorted_ids)
    grid.build(sorted_agents, 2.0)
    assert np.array_equal(grid.order(), np.arange(n))
    order[:] = 0  # the returned array is the caller's own
    assert np.array_equal(grid.order(), np.arange(n))
    after = separation_bits(sorted_agents, grid)
    assert np.array_equal(before[:, sorted_ids], after)


def test_grid_order_of_a_grid_never_built_is_empty():
    grid = cs.Grid()
    order = grid.order()
    assert order.dtype == np.uint32 and order.shape == (0,)
    agents, _ = random_agents(np.random.default_rng(3), 40)
    with pytest.raises(cs.Error):  # a failed build leaves it never built
        grid.build(agents, -1.0)
    assert grid.order().shape == (0,)
    grid.build(agents, 2.0)
    assert grid.order().shape == (40,)
    with pytest.raises(TypeError):
        grid.order(agents)


def _reynolds(arrays, dims, radius, which):
    """Reynolds' forms (docs/behaviours.md, "Forms") in double precision."""
    p = np.stack([a.astype(np.float64) for a in arrays[:dims]], axis=1)
    v = np.stack([a.astype(np.float64) for a in arrays[dims:]], axis=1)

    def unit(x):
        n = np.linalg.norm(x)
        return x / n if n > 0 else np.zeros_like(x)

    out = np.zeros_like(p)
    for i in range(len(p)):
        d = p[i] - p
        dist = np.linalg.norm(d, axis=1)
        seen = (dist < radius) & (np.arange(len(p)) != i)
        if not seen.any():
            continue
        if which == "separation":
            out[i] = unit((d[seen] / (dist[seen] ** 2)[:, None]).sum(axis=0))
        elif which == "cohesion":
            out[i] = unit((-d[seen] / radius).sum(axis=0))
        else:
            headings = np.array([unit(w) for w in v[seen]])
            out[i] = unit(headings.mean(axis=0) - unit(v[i]))
    return out


@pytest.mark.parametrize("dims", [2, 3])
@pytest.mark.parametrize("behaviour", BEHAVIOURS)
def test_reynolds_forms(dims, behaviour):
    rng = np.random.default_rng(40 + dims)
    n = 300
    agents, arrays = random_agents(rng, n, dims, spread=6.0)
    want = _reynolds(arrays, dims, 1.5, behaviour.__name__)
    brute = empty_vectors(n, dims)
    behaviour(agents, cs.Neighbours(radius=1.5, form=cs.FORM_REYNOLDS), None, brute)
    got = np.stack(brute, axis=1)
    assert np.abs(got - want).max() < 1e-4
    seen = np.linalg.norm(want, axis=1) > 0
    assert seen.sum() > n // 2
    assert np.allclose(np.linalg.norm(got[seen], axis=1), 1.0, atol=1e-6)
    grid = cs.Grid()
    grid.build(agents, 2.0)
    on_grid = empty_vectors(n, dims)
    nb = cs.Neighbours(grid=grid, radius=1.5, form=cs.FORM_REYNOLDS,
                       field_of_view=True, cos_field_of_view=0.0, inner_radius=0.5)
    assert nb.form == cs.FORM_REYNOLDS and nb.inner_radius == 0.5
    behaviour(agents, nb, None, on_grid)
    brute = empty_vectors(n, dims)
    behaviour(agents, cs.Neighbours(radius=1.5, form=cs.FORM_REYNOLDS,
                                    field_of_view=True, cos_field_of_view=0.0,
                                    inner_radius=0.5), None, brute)
    assert b"".join(g.tobytes() for g in on_grid) == \
        b"".join(b.tobytes() for b in brute)
    for bad in ({"form": 2}, {"inner_radius": -1.0}, {"inner_radius": np.inf}):
        with pytest.raises(cs.ParameterError):
            behaviour(agents, cs.Neighbours(radius=1.5, **bad), None, brute)


@pytest.mark.parametrize("dims", [2, 3])
def test_neighbour_queries_against_brute_force(dims):
    rng = np.random.default_rng(70 + dims)
    n, k = 250, 4
    agents, arrays = random_agents(rng, n, dims, spread=5.0)
    p = np.stack(arrays[:dims], axis=1)
    nb = cs.Neighbours(radius=1.2, max_neighbours=6)
    count = cs.neighbour_count(agents, nb)
    index, dd, found = cs.neighbour_nearest(agents, nb, k)
    assert count.dtype == np.uint32 and index.shape == (n, k) and dd.dtype == np.float32
    for i in range(n):
        d = (p[i] - p).astype(np.float32)
        sq = np.zeros(n, np.float32)
        for axis in range(dims):  # summed x, y, z in float, as the library does
            sq = sq + d[:, axis] * d[:, axis]
        dist = np.sqrt(sq)
        near = [q for q in range(n) if q != i and dist[q] < np.float32(1.2)]
        near.sort(key=lambda q: (dist[q], q))
        near = near[:6]
        assert count[i] == len(near)
        assert found[i] == min(k, len(near))
        assert list(index[i, :found[i]]) == near[:k]
        assert np.array_equal(dd[i, :found[i]], sq[near[:k]])
        assert np.all(index[i, found[i]:] == np.uint32(0xFFFFFFFF))
    grid = cs.Grid()
    grid.build(agents, 1.5)
    on_grid = cs.Neighbours(grid=grid, radius=1.2, max_neighbours=6)
    assert np.array_equal(cs.neighbour_count(agents, on_grid), count)
    got = cs.neighbour_nearest(agents, on_grid, k)
    assert all(np.array_equal(a, b) for a, b in zip(got, (index, dd, found)))
    part = cs.neighbour_count(agents, on_grid, begin=10, end=20)
    assert np.array_equal(part[10:20], count[10:20]) and not part[:10].any()
    with pytest.raises(cs.ParameterError):
        cs.neighbour_nearest(agents, nb, 0)


@pytest.mark.parametrize("dims", [2, 3])
def test_motion_options_in_integrate_and_step(dims):
    """Smoothing and the turn limit: a step is its behaviour then integrate."""
    rng = np.random.default_rng(90 + dims)
    n = 200
    agents, arrays = random_agents(rng, n, dims, spread=5.0)
    for v in arrays[dims:]:
        v *= np.float32(0.05)  # slow: the turn limit applies
    copy, copy_arrays = random_agents(np.random.default_rng(90 + dims), n, dims, spread=5.0)
    for v in copy_arrays[dims:]:
        v *= np.float32(0.05)
    acc = empty_vectors(n, dims, 0.1)
    acc_copy = empty_vectors(n, dims, 0.1)
    params = cs.Params(max_speed=1.5, dt=0.25)
    target = cs.Target.point([3.0, -1.0, 0.5][:dims])
    cs.step(agents, [cs.Behaviour(cs.SEEK, target=target)], integrator=params,
            smoothing=0.15, turn_limit=0.2, acceleration=acc)
    steering = empty_vectors(n, dims)
    cs.seek(copy, target, params, steering)
    cs.integrate(copy, steering, params, smoothing=0.15, turn_limit=0.2,
                 acceleration=acc_copy)
    assert all(a.tobytes() == b.tobytes() for a, b in zip(arrays, copy_arrays))
    assert all(a.tobytes() == b.tobytes() for a, b in zip(acc, acc_copy))
    assert np.any(acc[0] != np.float32(0.1))
    with pytest.raises(cs.ParameterError):
        cs.integrate(copy, steering, params, smoothing=2.0, acceleration=acc_copy)
    with pytest.raises(cs.NullPointerError):
        cs.integrate(copy, steering, params, smoothing=0.5)
