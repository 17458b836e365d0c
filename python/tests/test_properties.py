"""Property tests (hypothesis): the binding against the float64 model and the
library's own invariants on generated crowds, and the binding's edges: arrays
whose memory moves between calls, integers beyond their C field, floats that
do not survive float32."""
import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st

import crowdsteer as cs
import model

# Coordinates on a 1/64 grid: exact in float32, and distinct points are never
# so close that float32 and float64 disagree on whether a length is zero.
coord = st.integers(-64 * 500, 64 * 500).map(lambda k: k / 64.0)
speed = st.integers(1, 64 * 4).map(lambda k: k / 64.0)


@st.composite
def crowds(draw, max_agents=40):
    n = draw(st.integers(1, max_agents))
    dims = draw(st.sampled_from([2, 3]))
    vectors = [np.array(draw(st.lists(coord, min_size=n, max_size=n)), np.float32)
               for _ in range(3 * dims)]
    return n, dims, vectors


def agents_of(dims, vectors):
    if dims == 2:
        return cs.Agents(*vectors[:4])
    px, py, pz, vx, vy, vz = vectors[:6]
    return cs.Agents(px, py, vx, vy, pz=pz, vz=vz)


@settings(max_examples=60, deadline=None)
@given(crowds(), speed)
def test_seek_matches_the_model(crowd, max_speed):
    n, dims, vectors = crowd
    agents = agents_of(dims, vectors)
    target = tuple(vectors[2 * dims:])
    steering = tuple(np.zeros(n, np.float32) for _ in range(dims))
    cs.seek(agents, cs.Target.arrays(target), cs.Params(max_speed=max_speed), steering)
    p64 = [v.astype(np.float64) for v in vectors]
    want = model.seek(p64[:dims], p64[dims:2 * dims], p64[2 * dims:], max_speed)
    scale = max_speed + model.length(p64[dims:2 * dims])
    for got, w in zip(steering, want):
        assert np.all(np.abs(got - w) <= 2e-6 * scale)


@settings(max_examples=60, deadline=None)
@given(crowds(), speed, st.integers(0, 40), st.integers(0, 60))
def test_integrated_speed_never_exceeds_max_speed_and_splits_agree(crowd, max_speed,
                                                                    split, force):
    n, dims, vectors = crowd
    split = min(split, n)
    whole = [v.copy() for v in vectors[:2 * dims]]
    parts = [v.copy() for v in vectors[:2 * dims]]
    steering = tuple(vectors[2 * dims:])
    params = cs.Params(max_speed=max_speed, max_force=force / 8.0)
    cs.integrate(agents_of(dims, whole), steering, params)
    a = agents_of(dims, parts)
    cs.integrate(a, steering, params, end=split)
    cs.integrate(a, steering, params, begin=split)
    assert b"".join(x.tobytes() for x in whole) == b"".join(x.tobytes() for x in parts)
    speeds = model.length([v.astype(np.float64) for v in whole[dims:]])
    assert np.all(speeds <= max_speed * (1 + 1e-6))


@settings(max_examples=40, deadline=None)
@given(crowds(max_agents=24), st.sampled_from(cs.supported_isas()))
def test_every_isa_gives_the_scalar_bits(crowd, isa):
    n, dims, vectors = crowd
    agents = agents_of(dims, vectors)
    results = []
    for which in ("scalar", isa):
        cs.force_isa(which)
        out = tuple(np.zeros(n, np.float32) for _ in range(dims))
        cs.flee(agents, cs.Target.arrays(tuple(vectors[2 * dims:])),
                cs.Params(panic_radius=100), out)
        results.append(b"".join(o.tobytes() for o in out))
    assert results[0] == results[1]


# The tester's cases as properties: memory that moves between calls, integers
# beyond their C field, floats that do not survive float32.

@settings(max_examples=40, deadline=None)
@given(crowds(max_agents=24), st.integers(0, 7), st.sampled_from(["resize", "data"]),
       st.integers(1, 3))
def test_calls_after_an_array_moved_match_a_twin_that_never_moved(crowd, which, how, calls):
    from test_moved_memory import move
    n, dims, vectors = crowd
    moved = [v.copy() for v in vectors]
    twin = [v.copy() for v in vectors]
    runs = []
    for arrays in (moved, twin):
        agents = agents_of(dims, arrays)
        steering = tuple(arrays[2 * dims:])
        params = cs.Params(max_speed=3)
        runs.append(lambda agents=agents, steering=steering, params=params:
                    cs.integrate(agents, steering, params))
    for run in runs:
        run()
    k = which % len(moved)  # an agent array or a steering array
    move(moved[k], how)
    twin[k][:] = np.roll(twin[k].copy(), 1)
    for _ in range(calls):
        for run in runs:
            run()
    assert b"".join(a.tobytes() for a in moved) == b"".join(a.tobytes() for a in twin)


uint32_fields = [
    ("agent", lambda v: cs.Target.agent(v).agent_index),
    ("seed", lambda v: cs.WanderState((np.zeros(1, np.float32),) * 2, seed=v).seed),
    ("neighbour_mask", lambda v: cs.Neighbours(neighbour_mask=v).neighbour_mask),
    ("max_neighbours", lambda v: cs.Neighbours(max_neighbours=v).max_neighbours),
]


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.integers(-2**70, 2**70), st.integers(-2, 2).map(lambda d: 2**32 + d),
                 st.integers(-2, 2).map(lambda d: 2**64 + d)),
       st.sampled_from(uint32_fields),
       st.sampled_from([int, np.int64, np.uint64, np.uint32]))
def test_uint32_fields_are_exact_or_refused(value, field, kind):
    name, make = field
    if kind is not int:  # a NumPy integer, of a value its type holds
        assume(np.iinfo(kind).min <= value <= np.iinfo(kind).max)
    given_value = kind(value)
    if 0 <= value < 2**32:
        assert make(given_value) == value
    else:
        with pytest.raises(OverflowError, match=name):
            make(given_value)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.floats(), st.floats(-1e-30, 1e-30), st.floats(3e38, 1e40),
                 st.floats(-1e-44, 1e-44)),
       st.sampled_from([float, np.float64]))
def test_floats_survive_float32_or_are_refused(value, kind):
    with np.errstate(over="ignore", under="ignore"):
        single = float(np.float32(value))
    lost = value != 0 and (single == 0 or (np.isinf(single) and np.isfinite(value)))
    if lost:
        with pytest.raises((ValueError, OverflowError), match="max_speed"):
            cs.Params(max_speed=kind(value))
        with pytest.raises((ValueError, OverflowError), match="weight"):
            cs.Behaviour(cs.SEEK, weight=kind(value))
    else:
        got = cs.Params(max_speed=kind(value)).max_speed
        assert got == single or (np.isnan(got) and np.isnan(value))
        if single != 0:
            assert got != 0  # nonzero stays nonzero: never the default
