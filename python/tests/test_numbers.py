"""Numbers at the binding's edge: every integer argument fits its C field or
raises OverflowError naming it (never wraps), and takes NumPy integers as a
Python int; every float argument that is not 0 stays nonzero and finite in
float32 or raises naming it (0 means "the default" in most fields, so an
underflow would silently become the default)."""
import numpy as np
import pytest

import crowdsteer as cs
from conftest import empty_vectors, random_agents

N = 16


@pytest.fixture
def world():
    agents, arrays = random_agents(np.random.default_rng(8), N)
    return agents, arrays, empty_vectors(N)


def integer_calls(agents, steering):
    """(argument name, call taking the integer) for every integer argument."""
    point = cs.Target.point((1, 1))
    seek = [cs.Behaviour(cs.SEEK, point)]
    direction = empty_vectors(N)
    state = cs.WanderState(direction)
    grid = cs.Grid()
    return [
        ("agent", lambda v: cs.Target.agent(v)),
        ("seed", lambda v: cs.WanderState(direction, seed=v)),
        ("tick", lambda v: cs.WanderState(direction, tick=v)),
        ("WanderState.seed", lambda v: setattr(state, "seed", v)),
        ("WanderState.tick", lambda v: setattr(state, "tick", v)),
        ("max_neighbours", lambda v: cs.Neighbours(max_neighbours=v)),
        ("neighbour_mask", lambda v: cs.Neighbours(neighbour_mask=v)),
        ("kind", lambda v: cs.Behaviour(v)),
        ("isa", lambda v: cs.force_isa(v)),
        ("isa", lambda v: cs.isa_supported(v)),
        ("isa", lambda v: cs.isa_name(v)),
        ("status", lambda v: cs.status_string(v)),
        ("seed", lambda v: cs.random(v, 0, 0, 0)),
        ("agent_index", lambda v: cs.random(0, v, 0, 0)),
        ("tick", lambda v: cs.random(0, 0, v, 0)),
        ("axis", lambda v: cs.random(0, 0, 0, v)),
        ("mode", lambda v: cs.seek(agents, point, None, steering, mode=v)),
        ("begin", lambda v: cs.seek(agents, point, None, steering, begin=v)),
        ("end", lambda v: cs.seek(agents, point, None, steering, end=v)),
        ("begin", lambda v: cs.integrate(agents, steering, begin=v)),
        ("end", lambda v: cs.integrate(agents, steering, end=v)),
        ("combine", lambda v: cs.step(agents, seek, combine=v)),
        ("tile_size", lambda v: cs.step(agents, seek, tile_size=v)),
        ("threads", lambda v: cs.step(agents, seek, threads=v)),
        ("begin", lambda v: cs.step(agents, seek, begin=v)),
        ("end", lambda v: cs.step(agents, seek, end=v)),
        ("table_size", lambda v: grid.build(agents, 2.0, table_size=v)),
        ("threads", lambda v: grid.build(agents, 2.0, threads=v)),
    ]


# Beyond every field: uint32 and size_t fields refuse negatives, int fields
# refuse 2**31; 2**64 + 3 wrapped to 3 and 2**40 to 0 before.
OUT_OF_RANGE = [2**64 + 3, 2**64, -(2**63) - 1]
OUT_OF_UINT32 = [2**32, 2**32 + 1, -1]


def test_out_of_range_integers_raise_overflow_naming_the_argument(world):
    agents, arrays, steering = world
    before = [a.tobytes() for a in arrays]
    for name, call in integer_calls(agents, steering):
        for value in OUT_OF_RANGE + ([2**31] if name in ("kind", "isa", "status", "mode",
                                                         "combine", "threads") else []):
            with pytest.raises(OverflowError, match=name.replace(".", r"\.")):
                call(value)
    assert [a.tobytes() for a in arrays] == before
    assert not any(s.any() for s in steering)


@pytest.mark.parametrize("name,make", [
    ("agent", lambda v: cs.Target.agent(v)),
    ("seed", lambda v: cs.WanderState(empty_vectors(N), seed=v)),
    ("max_neighbours", lambda v: cs.Neighbours(max_neighbours=v)),
    ("neighbour_mask", lambda v: cs.Neighbours(neighbour_mask=v)),
    ("axis", lambda v: cs.random(0, 0, 0, v)),
])
def test_uint32_fields_refuse_what_wrapped_before(name, make):
    for value in OUT_OF_UINT32:
        with pytest.raises(OverflowError, match=name):
            make(value)
    make(2**32 - 1)
    make(0)


def test_integers_that_are_not_integers_raise_type_error_naming_them(world):
    agents, _, steering = world
    for name, call in integer_calls(agents, steering):
        if name == "isa":
            continue  # a str is a name there
        for value in (4.0, "4") + ((None,) if name != "end" else ()):  # None: the count
            with pytest.raises(TypeError, match=name.replace(".", r"\.")):
                call(value)


NUMPY_INTEGERS = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
                  np.uint64]


@pytest.mark.parametrize("kind", NUMPY_INTEGERS, ids=lambda t: t.__name__)
def test_numpy_integers_are_python_ints(kind):
    v = kind(3)
    assert cs.Target.agent(v).agent_index == 3
    state = cs.WanderState(empty_vectors(N), seed=v, tick=kind(2))
    assert (state.seed, state.tick) == (3, 2)
    state.tick = kind(5)
    assert state.tick == 5
    nb = cs.Neighbours(max_neighbours=v, neighbour_mask=kind(5))
    assert (nb.max_neighbours, nb.neighbour_mask) == (3, 5)
    assert cs.Behaviour(kind(cs.ARRIVE)).kind == cs.ARRIVE
    assert cs.isa_name(kind(0)) == "scalar" and cs.isa_supported(kind(0))
    cs.force_isa(kind(cs.ISA_SCALAR))
    assert cs.active_isa() == "scalar"
    assert cs.status_string(kind(2)) == cs.status_string(2)
    assert cs.random(v, kind(1), kind(2), kind(0)) == cs.random(3, 1, 2, 0)
    crowd = cs.Crowd(kind(5), dims=kind(3))
    assert (crowd.count, crowd.dims) == (5, 3)

    def run(convert):
        agents, arrays = random_agents(np.random.default_rng(4), N)
        steering = empty_vectors(N)
        point = cs.Target.point((1, 1))
        cs.seek(agents, point, None, steering, mode=convert(cs.ACCUMULATE),
                begin=convert(1), end=convert(12))
        cs.integrate(agents, steering, begin=convert(2), end=convert(14))
        grid = cs.Grid()
        grid.build(agents, 2.0, table_size=convert(64), threads=convert(1))
        cs.step(agents, [cs.Behaviour(cs.SEEK, point),
                         cs.Behaviour(cs.SEPARATION, neighbours=cs.Neighbours(grid=grid))],
                combine=convert(cs.PRIORITY), tile_size=convert(8), threads=convert(1),
                begin=convert(3), end=convert(11))
        return b"".join(a.tobytes() for a in list(arrays) + list(steering))

    assert run(kind) == run(int)


def float_calls(agents, steering):
    """(field name, call taking the float) for every float argument."""
    point = cs.Target.point((1, 1))
    grid = cs.Grid()
    return [
        ("Params.max_speed", lambda v: cs.Params(max_speed=v)),
        ("Params.jitter", lambda v: cs.Params(max_speed=2).replace(jitter=v)),
        ("weight", lambda v: cs.seek(agents, point, None, steering, mode=cs.ACCUMULATE,
                                     weight=v)),
        ("weight", lambda v: cs.Behaviour(cs.SEEK, weight=v)),
        (r"position\[0\]", lambda v: cs.Target.point((v, 0))),
        (r"velocity\[1\]", lambda v: cs.Target.point((0, 0), (0, v))),
        ("radius", lambda v: cs.Neighbours(radius=v)),
        ("cos_field_of_view", lambda v: cs.Neighbours(cos_field_of_view=v)),
        ("cell_size", lambda v: grid.build(agents, v)),
        ("priority_threshold", lambda v: cs.step(agents, [cs.Behaviour(cs.SEEK)],
                                                 combine=cs.PRIORITY,
                                                 priority_threshold=v)),
    ]


def test_floats_that_do_not_survive_float32_raise_naming_the_field(world):
    agents, arrays, steering = world
    before = [a.tobytes() for a in arrays]
    for name, call in float_calls(agents, steering):
        for tiny in (1e-50, -1e-50, 5e-324, np.float64(1e-46)):
            with pytest.raises(ValueError, match=name + ".*underflows"):
                call(tiny)
        for huge in (1e39, -1e300, 10**400, -(10**39)):
            with pytest.raises(OverflowError, match=name + ".*float32"):
                call(huge)
        with pytest.raises(TypeError, match=name):
            call("1")
    assert [a.tobytes() for a in arrays] == before
    assert not any(s.any() for s in steering)


def test_tiny_speeds_and_weights_are_no_longer_defaults(world):
    """The tester's cases: max_speed=1e-50 steered at full speed 1, weight
    1e-50 blended at weight 1, max_speed=-1e-50 passed while -1 is refused."""
    with pytest.raises(ValueError, match="max_speed"):
        cs.Params(max_speed=1e-50)
    with pytest.raises(ValueError, match="max_speed"):
        cs.Params(max_speed=-1e-50)
    with pytest.raises(ValueError, match="weight"):
        cs.Behaviour(cs.SEEK, weight=1e-50)


def test_subnormal_float32_values_keep_their_meaning():
    """Subnormal float32 results are kept (the library keeps denormals): a
    top speed of 1e-40 steers at about 1e-40, not at the default 1."""
    agents, arrays = random_agents(np.random.default_rng(2), N)
    arrays[2][:] = 0
    arrays[3][:] = 0
    params = cs.Params(max_speed=1e-40)
    assert params.max_speed == float(np.float32(1e-40)) != 0
    steering = empty_vectors(N)
    cs.seek(agents, cs.Target.point((500, 500)), params, steering)
    speed = np.hypot(*[s.astype(np.float64) for s in steering])
    assert np.all(speed > 0) and np.all(speed < 1e-39)


def test_float_arguments_take_numpy_and_exact_values():
    for value in (np.float32(0.5), np.float64(0.25), np.int64(2), 3, 1.5e-45, 3.4e38):
        assert cs.Params(max_speed=value).max_speed == float(np.float32(value))
        assert cs.Behaviour(cs.SEEK, weight=value).weight == float(np.float32(value))
    # 0, infinities and NaN pass through: the library judges them (0 is the
    # default, an infinite or NaN max_speed its ParameterError).
    assert cs.Params(max_speed=0.0).max_speed == 0
    assert cs.Params(max_speed=-0.0).max_speed == 0
    assert np.isinf(cs.Params(max_speed=float("inf")).max_speed)
    assert np.isnan(cs.Params(max_speed=float("nan")).max_speed)
