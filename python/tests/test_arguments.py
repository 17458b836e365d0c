"""Bad arguments: every kind of bad array, in every place an array goes,
raises TypeError or ValueError naming the argument, and no array changes.
Library statuses raise their own crowdsteer.Error subclass, again with
nothing written; zero-copy is shown by the addresses the library gets."""
import re

import numpy as np
import pytest

import crowdsteer as cs
from conftest import HEADER

N = 16


def misaligned(a):
    raw = np.zeros(a.nbytes + 1, np.uint8)
    m = raw[1:].view(a.dtype)
    m[:] = a
    assert not m.flags.aligned
    return m


def read_only(a):
    b = a.copy()
    b.flags.writeable = False
    return b


def wrong_dtype(a):
    return a.astype(np.float64 if a.dtype == np.float32 else np.int64)


def other_dtype(a):
    return a.astype(np.int32 if a.dtype == np.float32 else np.float32)


BAD = {  # kind: (make the bad value, the exception it raises)
    "wrong dtype": (wrong_dtype, TypeError),
    "other dtype": (other_dtype, TypeError),
    "byte-swapped": (lambda a: a.astype(a.dtype.newbyteorder(">")), TypeError),
    "list": (lambda a: a.tolist(), TypeError),
    "scalar": (lambda a: 1.0, TypeError),
    "strided view": (lambda a: np.repeat(a, 2)[::2], ValueError),
    "2-D": (lambda a: a.reshape(2, -1), ValueError),
    "too short": (lambda a: a[:-1].copy(), ValueError),
    "too long": (lambda a: np.append(a, a[:1]), ValueError),
    "misaligned": (misaligned, ValueError),
}


def base_arrays(names, rng):
    """Fresh, valid arrays for a scenario: 'u:' names are uint32 (indices into
    the batch or masks), cosines float32 in [-1, 1), the rest in [0.5, 2)."""
    arrays = {}
    for name in names:
        if name.startswith("u:"):
            arrays[name] = rng.integers(0, N, N).astype(np.uint32)
        elif name.startswith("cos"):
            arrays[name] = rng.uniform(-1, 1, N).astype(np.float32)
        else:
            arrays[name] = rng.uniform(0.5, 2.0, N).astype(np.float32)
    return arrays


def vec(a, *names):
    return tuple(a[n] for n in names)


def agents_of(a, prefix=""):
    return cs.Agents(*vec(a, prefix + "px", prefix + "py", prefix + "vx", prefix + "vy"))


def call_seek(a):
    cs.seek(agents_of(a), cs.Target.arrays(vec(a, "position[0]", "position[1]")),
            cs.Params(max_speed_per_agent=a["max_speed_per_agent"]),
            vec(a, "steering[0]", "steering[1]"), mode=cs.ACCUMULATE,
            weight_per_agent=a["weight_per_agent"])


def call_pursuit(a):
    cs.pursuit(agents_of(a), cs.Target.arrays(vec(a, "position[0]", "position[1]"),
                                              vec(a, "velocity[0]", "velocity[1]")),
               cs.Params(max_speed_per_agent=a["max_speed_per_agent"]),
               vec(a, "steering[0]", "steering[1]"))


def call_evade_agents(a):
    cs.evade(agents_of(a), cs.Target.agents(a["u:index"]), None,
             vec(a, "steering[0]", "steering[1]"))


def call_wander(a):
    cs.wander(agents_of(a), cs.WanderState(vec(a, "direction[0]", "direction[1]"), seed=3),
              cs.Params(wander_radius_per_agent=a["wander_radius_per_agent"],
                        wander_distance=1, jitter=0.5),
              vec(a, "steering[0]", "steering[1]"))


def call_integrate(a):
    cs.integrate(agents_of(a), vec(a, "steering[0]", "steering[1]"),
                 cs.Params(max_force_per_agent=a["max_force_per_agent"],
                           mass_per_agent=a["mass_per_agent"]))


def call_step(a):
    behaviours = [
        cs.Behaviour(cs.SEEK, cs.Target.point((1, 2))),
        cs.Behaviour(cs.PURSUIT, cs.Target.agents(a["u:index"]),
                     cs.Params(max_speed_per_agent=a["max_speed_per_agent"])),
        cs.Behaviour(cs.WANDER, params=cs.Params(wander_radius=1, jitter=0.5),
                     wander=cs.WanderState(vec(a, "direction[0]", "direction[1]")),
                     weight_per_agent=a["weight_per_agent"]),
    ]
    cs.step(agents_of(a), behaviours, mask=a["u:mask"], output=agents_of(a, "output:"),
            integrator=cs.Params(max_speed_per_agent=a["integrator:max_speed_per_agent"]))


def call_separation(a):
    agents = agents_of(a)
    grid = cs.Grid()
    grid.build(agents, 4.0, group=a["u:group"])
    nb = cs.Neighbours(grid=grid, radius_per_agent=a["radius_per_agent"],
                       neighbour_mask_per_agent=a["u:neighbour_mask_per_agent"])
    cs.separation(agents, nb, cs.Params(max_speed_per_agent=a["max_speed_per_agent"]),
                  vec(a, "steering[0]", "steering[1]"))


def call_alignment(a):
    nb = cs.Neighbours(group=a["u:group"], radius=3.0,
                       cos_field_of_view_per_agent=a["cos_field_of_view_per_agent"],
                       field_of_view=True, neighbour_mask=5)
    cs.alignment(agents_of(a), nb, None, vec(a, "steering[0]", "steering[1]"))


AGENT_FIELDS = ["px", "py", "vx", "vy"]
SCENARIOS = {  # call, the arrays it takes, the ones it writes
    "seek": (call_seek, AGENT_FIELDS + ["position[0]", "position[1]", "max_speed_per_agent",
                                        "steering[0]", "steering[1]", "weight_per_agent"],
             ["steering[0]", "steering[1]"]),
    "pursuit": (call_pursuit, AGENT_FIELDS + ["position[0]", "position[1]", "velocity[0]",
                                              "velocity[1]", "max_speed_per_agent",
                                              "steering[0]", "steering[1]"],
                ["steering[0]", "steering[1]"]),
    "evade": (call_evade_agents, AGENT_FIELDS + ["u:index", "steering[0]", "steering[1]"],
              ["steering[0]", "steering[1]"]),
    "wander": (call_wander, AGENT_FIELDS + ["direction[0]", "direction[1]",
                                            "wander_radius_per_agent", "steering[0]",
                                            "steering[1]"],
               ["direction[0]", "direction[1]", "steering[0]", "steering[1]"]),
    "integrate": (call_integrate, AGENT_FIELDS + ["steering[0]", "steering[1]",
                                                  "max_force_per_agent", "mass_per_agent"],
                  AGENT_FIELDS),
    "separation": (call_separation, AGENT_FIELDS + [
        "u:group", "radius_per_agent", "u:neighbour_mask_per_agent", "max_speed_per_agent",
        "steering[0]", "steering[1]"], ["steering[0]", "steering[1]"]),
    "alignment": (call_alignment, AGENT_FIELDS + [
        "u:group", "cos_field_of_view_per_agent", "steering[0]", "steering[1]"],
        ["steering[0]", "steering[1]"]),
    "step": (call_step, AGENT_FIELDS + ["u:index", "max_speed_per_agent", "direction[0]",
                                        "direction[1]", "weight_per_agent", "u:mask",
                                        "output:px", "output:py", "output:vx", "output:vy",
                                        "integrator:max_speed_per_agent"],
             ["direction[0]", "direction[1]", "output:px", "output:py", "output:vx",
              "output:vy"]),
}


def cases():
    for scenario, (_, names, written) in SCENARIOS.items():
        for slot in names:
            kinds = list(BAD) + (["read-only"] if slot in written else [])
            if "per_agent" not in slot and slot not in ("u:mask", "u:group"):
                kinds.append("None")  # a required array
            for kind in kinds:
                yield pytest.param(scenario, slot, kind, id="%s-%s-%s" % (scenario, slot,
                                                                           kind))


def assert_unchanged(before, arrays, bad):
    for name, original in before.items():
        assert arrays[name].tobytes() == original, "%s was written" % name
    if isinstance(bad, np.ndarray):
        assert bad.tobytes() == bad.copy().tobytes()


@pytest.mark.parametrize("scenario,slot,kind", list(cases()))
def test_bad_array_raises_naming_it_and_writes_nothing(scenario, slot, kind):
    call, names, _ = SCENARIOS[scenario]
    arrays = base_arrays(names, np.random.default_rng(7))
    if "u:mask" in arrays:
        arrays["u:mask"] &= 7
    call(dict(arrays))  # the valid call works
    before = {n: a.tobytes() for n, a in arrays.items()}
    if kind == "read-only":
        bad, error = read_only(arrays[slot]), ValueError
    elif kind == "None":
        bad, error = None, TypeError
    else:
        make, error = BAD[kind]
        bad = make(arrays[slot])
    bad_before = bad.tobytes() if isinstance(bad, np.ndarray) else None
    with pytest.raises(error) as info:
        call({**arrays, slot: bad})
    shown = slot.split(":")[-1]
    assert shown in str(info.value) or (kind == "None" and "NoneType" in str(info.value))
    assert_unchanged(before, arrays, bad)
    if bad_before is not None:
        assert bad.tobytes() == bad_before


def test_flags_are_checked_again_at_call_time():
    arrays = base_arrays(AGENT_FIELDS + ["sx", "sy"], np.random.default_rng(1))
    agents = agents_of(arrays)
    before = {n: a.tobytes() for n, a in arrays.items()}
    arrays["px"].flags.writeable = False  # after the Agents was made
    with pytest.raises(ValueError, match=r"agents\.px is read-only"):
        cs.integrate(agents, vec(arrays, "sx", "sy"))
    assert {n: a.tobytes() for n, a in arrays.items()} == before


def library_error_calls(a):
    agents = agents_of(a)
    s = vec(a, "sx", "sy")
    point = cs.Target.point((1, 1))
    far = a["u:index"].copy()
    far[3] = N  # one index beyond the batch
    return [
        (cs.ParameterError, lambda: cs.seek(agents, point, cs.Params(max_speed=-1), s)),
        (cs.ParameterError, lambda: cs.seek(agents, point, cs.Params(max_speed=np.nan), s)),
        (cs.ParameterError, lambda: cs.seek(agents, cs.Target.point((np.inf, 0)), None, s)),
        (cs.ParameterError, lambda: cs.seek(agents, point, None, s, mode=7)),
        (cs.ParameterError, lambda: cs.seek(agents, point, None, s, mode=cs.ACCUMULATE,
                                            weight=np.inf)),
        (cs.ParameterError, lambda: cs.integrate(agents, s, cs.Params(
            mass_per_agent=np.where(np.arange(N) == 5, 0, 1).astype(np.float32)))),
        (cs.ParameterError, lambda: cs.step(agents, [])),
        (cs.ParameterError, lambda: cs.step(agents, [cs.Behaviour(99)])),
        (cs.RangeError, lambda: cs.seek(agents, point, None, s, begin=5, end=4)),
        (cs.RangeError, lambda: cs.integrate(agents, s, end=N + 1)),
        (cs.AgentIndexError, lambda: cs.pursuit(agents, cs.Target.agents(far), None, s)),
        (cs.AgentIndexError, lambda: cs.step(agents, [cs.Behaviour(cs.EVADE,
                                                                   cs.Target.agents(far))],
                                             output=agents_of(a, "o"))),
        # In place, agent targets need a snapshot of the state before the step.
        (cs.NullPointerError, lambda: cs.step(agents, [cs.Behaviour(
            cs.EVADE, cs.Target.agents(a["u:index"]))])),
        (cs.UnknownIsaError, lambda: cs.force_isa("mmx")),
        (cs.UnknownIsaError, lambda: cs.force_isa(99)),
    ]


def test_library_statuses_raise_their_class_and_write_nothing():
    arrays = base_arrays(AGENT_FIELDS + ["sx", "sy", "u:index"] + ["o" + f for f in AGENT_FIELDS],
                         np.random.default_rng(2))
    before = {n: a.tobytes() for n, a in arrays.items()}
    for expected, call in library_error_calls(arrays):
        with pytest.raises(expected) as info:
            call()
        assert isinstance(info.value, cs.Error)
        assert str(info.value) == cs.status_string(expected.status)
        assert {n: a.tobytes() for n, a in arrays.items()} == before


def test_unsupported_isa_raises():
    missing = [name for name in ("simd128", "neon", "avx512", "avx2", "sse4")
               if not cs.isa_supported(name)]
    if not missing:
        pytest.skip("this build and CPU run every ISA it knows")
    with pytest.raises(cs.UnsupportedIsaError):
        cs.force_isa(missing[0])


def header_statuses():
    text = HEADER.read_text()
    block = re.search(r"typedef enum crowdsteer_status \{(.*?)\} crowdsteer_status;", text,
                      re.S).group(1)
    return {name: int(value) for name, value in
            re.findall(r"CROWDSTEER_(\w+)\s*=\s*(\d+)", block) if name != "OK"}


def test_every_status_in_the_header_has_its_exception_class():
    statuses = header_statuses()
    assert len(statuses) >= 7
    for name, value in statuses.items():
        short = name[len("ERROR_"):] if name.startswith("ERROR_") else name
        class_name = "".join(w.capitalize() for w in short.split("_")) + "Error"
        cls = getattr(cs, class_name, None)
        assert cls is not None, "no crowdsteer.%s for CROWDSTEER_%s" % (class_name, name)
        assert issubclass(cls, cs.Error) and cls.status == value
        assert cs.errors_by_status[value] is cls
        assert cls.__doc__ == cs.status_string(value)
    # OVERLAP (11) is the binding's before the header has it (the C side's
    # overlap checks bring it); then it must be 11 there too.
    assert cs.OverlapError.status == 11 and issubclass(cs.OverlapError, ValueError)
    assert statuses.get("ERROR_OVERLAP", 11) == 11
    assert sorted(cs.errors_by_status) == sorted(set(statuses.values()) | {11})


def test_zero_copy_the_library_gets_the_arrays_own_memory():
    rng = np.random.default_rng(3)
    arrays = base_arrays(AGENT_FIELDS, rng)
    agents = agents_of(arrays)
    pointers = agents._pointers()
    for name in AGENT_FIELDS:
        assert pointers[name] == arrays[name].ctypes.data
    buffer = np.zeros(3 * N, np.float32)
    steering = (buffer[N:2 * N], np.zeros(N, np.float32))  # a view is used in place
    cs.seek(agents, cs.Target.point((5, 5)), None, steering)
    assert cs._crowdsteer._last_written()[:2] == (steering[0].ctypes.data, steering[1].ctypes.data)
    assert buffer[N:2 * N].tobytes() == steering[0].tobytes() and buffer[N:].any()
    assert not buffer[:N].any() and not buffer[2 * N:].any()
    px_before = arrays["px"].copy()
    cs.integrate(agents, steering)
    assert cs._crowdsteer._last_written()[0] == arrays["px"].ctypes.data
    assert not np.array_equal(arrays["px"], px_before)  # moved in place
    assert agents.px is arrays["px"]


def test_arrays_written_while_read_are_refused():
    """The library must not write an array it reads in the same call."""
    arrays = base_arrays(AGENT_FIELDS, np.random.default_rng(4))
    agents = agents_of(arrays)
    before = {n: a.tobytes() for n, a in arrays.items()}
    big = np.concatenate([arrays["vx"], arrays["vy"]])
    shifted = cs.Agents(big[1:N + 1].copy(), arrays["py"].copy(), arrays["vx"].copy(),
                        arrays["vy"].copy())
    calls = [
        lambda: cs.seek(agents, cs.Target.point((0, 0)), None, (arrays["px"], np.zeros(N, np.float32))),
        lambda: cs.integrate(agents, (arrays["vx"], arrays["vy"])),
        lambda: cs.step(agents, [cs.Behaviour(cs.SEEK)], output=agents),
        lambda: cs.step(agents, [cs.Behaviour(cs.SEEK)], snapshot=agents),
    ]
    for call in calls:
        with pytest.raises(ValueError, match="shares memory"):
            call()
    assert {n: a.tobytes() for n, a in arrays.items()} == before
    cs.integrate(shifted, (big[:N], big[N:]))  # apart: fine
