"""Property tests (hypothesis): the binding against the float64 model and the
library's own invariants on generated crowds."""
import numpy as np
from hypothesis import given, settings, strategies as st

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
