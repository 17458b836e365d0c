"""Arrays whose memory moves between calls: NumPy lets a host give an array a
new buffer in place (ndarray.resize(refcheck=False), assigning .data) and
free the old one, while every crowdsteer object that holds the array keeps
the same array object. Each call must use the buffers as they are then, for
every object that holds arrays (Agents, its ids, Target, Params, WanderState,
Neighbours, Behaviour, a Grid's build inputs, step buffers, Crowd): the
results equal a twin run on arrays that never moved, or a call whose array
changed length raises naming it. Under AddressSanitizer the old binding
failed these with heap-use-after-free."""
import warnings

import numpy as np
import pytest

import crowdsteer as cs
from test_arguments import AGENT_FIELDS, N, agents_of, base_arrays, vec


def move(a, how):
    """Gives `a` a new buffer in place, keeping its values, and frees the old."""
    before = a.ctypes.data
    if how == "resize":
        # Growing moves the data and frees the old block, unless the block
        # could grow where it is; shrinking back stays put. 32 MiB is past
        # glibc's largest mmap threshold: a new mapping, wherever the heap
        # stands (NumPy zero-fills it, so it is only the fallback).
        n = len(a)
        for size in (4 * n, 1 << 23):
            a.resize(size, refcheck=False)
            a.resize(n, refcheck=False)
            if a.ctypes.data != before:
                break
    else:
        fresh = a.copy()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            a.data = fresh.data  # the old buffer is freed here
    assert a.ctypes.data != before
    # New values too, so that a call reading the stale buffer gives other
    # bits (the values stay valid: the same ones, rotated).
    a[:] = np.roll(a.copy(), 1)


def make_seek(a):
    agents = agents_of(a)
    target = cs.Target.arrays(vec(a, "position[0]", "position[1]"))
    params = cs.Params(max_speed_per_agent=a["max_speed_per_agent"])
    steering = vec(a, "steering[0]", "steering[1]")
    return lambda: cs.seek(agents, target, params, steering, mode=cs.ACCUMULATE,
                           weight_per_agent=a["weight_per_agent"])


def make_pursuit(a):
    agents = cs.Agents(*vec(a, *AGENT_FIELDS), id=a["u:id"])
    target = cs.Target.arrays(vec(a, "position[0]", "position[1]"),
                              vec(a, "velocity[0]", "velocity[1]"))
    steering = vec(a, "steering[0]", "steering[1]")
    return lambda: cs.pursuit(agents, target, None, steering)


def make_evade_agents(a):
    agents = agents_of(a)
    target = cs.Target.agents(a["u:index"])
    steering = vec(a, "steering[0]", "steering[1]")
    return lambda: cs.evade(agents, target, cs.Params(panic_radius=100), steering)


def make_wander(a):
    agents = cs.Agents(*vec(a, *AGENT_FIELDS), id=a["u:id"])
    state = cs.WanderState(vec(a, "direction[0]", "direction[1]"), seed=3)
    params = cs.Params(wander_radius_per_agent=a["wander_radius_per_agent"],
                       wander_distance=1, jitter=0.5)
    steering = vec(a, "steering[0]", "steering[1]")

    def run():
        cs.wander(agents, state, params, steering)
        state.tick += 1
    return run


def make_integrate(a):
    agents = agents_of(a)
    params = cs.Params(max_force_per_agent=a["max_force_per_agent"],
                       mass_per_agent=a["mass_per_agent"])
    steering = vec(a, "steering[0]", "steering[1]")
    return lambda: cs.integrate(agents, steering, params)


def make_grid_separation(a):
    agents = agents_of(a)
    grid = cs.Grid()
    group = a["u:group"]
    nb = cs.Neighbours(grid=grid, radius_per_agent=a["radius_per_agent"],
                       neighbour_mask_per_agent=a["u:neighbour_mask_per_agent"])
    params = cs.Params(max_speed_per_agent=a["max_speed_per_agent"])
    steering = vec(a, "steering[0]", "steering[1]")

    def run():
        grid.build(agents, 4.0, group=group)  # reads the agents and group now
        cs.separation(agents, nb, params, steering)
    return run


def make_alignment(a):
    agents = agents_of(a)
    nb = cs.Neighbours(group=a["u:group"], radius=3.0, field_of_view=True,
                       cos_field_of_view_per_agent=a["cos_field_of_view_per_agent"],
                       neighbour_mask=5)
    steering = vec(a, "steering[0]", "steering[1]")
    return lambda: cs.alignment(agents, nb, None, steering)


def make_step(a):
    agents = agents_of(a)
    grid = cs.Grid()
    behaviours = [
        cs.Behaviour(cs.SEEK, cs.Target.arrays(vec(a, "position[0]", "position[1]"))),
        cs.Behaviour(cs.PURSUIT, cs.Target.agents(a["u:index"]),
                     cs.Params(max_speed_per_agent=a["max_speed_per_agent"])),
        cs.Behaviour(cs.WANDER, params=cs.Params(wander_radius=1, jitter=0.5),
                     wander=cs.WanderState(vec(a, "direction[0]", "direction[1]")),
                     weight_per_agent=a["weight_per_agent"]),
        cs.Behaviour(cs.SEPARATION, neighbours=cs.Neighbours(
            grid=grid, radius_per_agent=a["radius_per_agent"])),
    ]
    output = agents_of(a, "output:")
    integrator = cs.Params(max_speed_per_agent=a["integrator:max_speed_per_agent"])

    def run():
        grid.build(agents, 4.0)
        cs.step(agents, behaviours, mask=a["u:mask"], output=output, integrator=integrator)
    return run


def make_step_in_place(a):
    agents = agents_of(a)
    snapshot = agents_of(a, "snapshot:")
    behaviours = [cs.Behaviour(cs.EVADE, cs.Target.agents(a["u:index"]),
                               cs.Params(panic_radius=100)),
                  cs.Behaviour(cs.SEEK, cs.Target.agent(3), weight=0.5)]

    def run():
        for name in AGENT_FIELDS:
            a["snapshot:" + name][:] = a[name]
        cs.step(agents, behaviours, snapshot=snapshot)
    return run


SCENARIOS = {  # make(arrays) -> run(), the arrays it holds
    "seek": (make_seek, AGENT_FIELDS + ["position[0]", "position[1]", "max_speed_per_agent",
                                        "steering[0]", "steering[1]", "weight_per_agent"]),
    "pursuit": (make_pursuit, AGENT_FIELDS + ["u:id", "position[0]", "position[1]",
                                              "velocity[0]", "velocity[1]", "steering[0]",
                                              "steering[1]"]),
    "evade_agents": (make_evade_agents, AGENT_FIELDS + ["u:index", "steering[0]",
                                                        "steering[1]"]),
    "wander": (make_wander, AGENT_FIELDS + ["u:id", "direction[0]", "direction[1]",
                                            "wander_radius_per_agent", "steering[0]",
                                            "steering[1]"]),
    "integrate": (make_integrate, AGENT_FIELDS + ["steering[0]", "steering[1]",
                                                  "max_force_per_agent", "mass_per_agent"]),
    "grid_separation": (make_grid_separation, AGENT_FIELDS + [
        "u:group", "radius_per_agent", "u:neighbour_mask_per_agent", "max_speed_per_agent",
        "steering[0]", "steering[1]"]),
    "alignment": (make_alignment, AGENT_FIELDS + ["u:group", "cos_field_of_view_per_agent",
                                                  "steering[0]", "steering[1]"]),
    "step": (make_step, AGENT_FIELDS + [
        "position[0]", "position[1]", "u:index", "max_speed_per_agent", "direction[0]",
        "direction[1]", "weight_per_agent", "radius_per_agent", "u:mask", "output:px",
        "output:py", "output:vx", "output:vy", "integrator:max_speed_per_agent"]),
    "step_in_place": (make_step_in_place, AGENT_FIELDS + [
        "u:index", "snapshot:px", "snapshot:py", "snapshot:vx", "snapshot:vy"]),
}


def fresh_arrays(names):
    arrays = base_arrays(names, np.random.default_rng(11))
    if "u:mask" in arrays:
        arrays["u:mask"] &= 15
    if "u:id" in arrays:
        arrays["u:id"] = np.random.default_rng(5).permutation(N).astype(np.uint32)
    return arrays


def cases():
    for scenario, (_, names) in SCENARIOS.items():
        for slot in names:
            for how in ("resize", "data"):
                yield pytest.param(scenario, slot, how, id="%s-%s-%s" % (scenario, slot, how))


@pytest.mark.parametrize("scenario,slot,how", list(cases()))
def test_calls_use_the_arrays_current_memory(scenario, slot, how):
    make, names = SCENARIOS[scenario]
    arrays, twin = fresh_arrays(names), fresh_arrays(names)
    run, run_twin = make(arrays), make(twin)
    run()
    run_twin()
    move(arrays[slot], how)
    twin[slot][:] = np.roll(twin[slot].copy(), 1)
    for _ in range(2):
        run()
        run_twin()
        for name in names:
            assert arrays[name].tobytes() == twin[name].tobytes(), name


def test_agents_pointers_follow_the_arrays():
    arrays = fresh_arrays(AGENT_FIELDS + ["sx", "sy"])
    agents = agents_of(arrays)
    move(arrays["px"], "resize")
    move(arrays["vy"], "data")
    assert agents._pointers()["px"] == arrays["px"].ctypes.data
    assert agents._pointers()["vy"] == arrays["vy"].ctypes.data
    cs.integrate(agents, vec(arrays, "sx", "sy"))
    written = cs._crowdsteer._last_written()
    assert written[0] == arrays["px"].ctypes.data and written[4] == arrays["vy"].ctypes.data


@pytest.mark.parametrize("slot,name", [
    ("px", r"agents\.px"), ("u:id", r"agents\.id"), ("position[0]", r"target\.position\[0\]"),
    ("max_speed_per_agent", r"params\.max_speed_per_agent"),
])
def test_an_array_whose_length_changed_is_named(slot, name):
    arrays = fresh_arrays(AGENT_FIELDS + ["u:id", "position[0]", "position[1]",
                                          "max_speed_per_agent", "sx", "sy"])
    agents = cs.Agents(*vec(arrays, *AGENT_FIELDS), id=arrays["u:id"])
    target = cs.Target.arrays(vec(arrays, "position[0]", "position[1]"))
    params = cs.Params(max_speed_per_agent=arrays["max_speed_per_agent"])
    steering = vec(arrays, "sx", "sy")
    cs.seek(agents, target, params, steering)
    arrays[slot].resize(N + 1, refcheck=False)
    before = steering[0].tobytes()
    with pytest.raises(ValueError, match=name + " has 17 elements"):
        cs.seek(agents, target, params, steering)
    assert steering[0].tobytes() == before


@pytest.mark.parametrize("how", ["resize", "data"])
def test_crowd_buffers_moved_between_steps(how):
    crowds = [cs.Crowd(N), cs.Crowd(N)]
    rng = np.random.default_rng(3)
    start = [rng.uniform(-5, 5, N).astype(np.float32) for _ in range(4)]
    for crowd in crowds:
        for array, values in zip((crowd.px, crowd.py, crowd.vx, crowd.vy), start):
            array[:] = values
    behaviours = [cs.Behaviour(cs.SEEK, cs.Target.point((1, 2)))]
    for crowd in crowds:
        crowd.step(behaviours)
    moved, twin = crowds
    # One array of each buffer: the current one and the one the step writes.
    move(moved.px, how)
    move(moved.next_agents.vy, how)
    twin.px[:] = np.roll(twin.px.copy(), 1)
    twin.next_agents.vy[:] = np.roll(twin.next_agents.vy.copy(), 1)
    for _ in range(3):
        for crowd in crowds:
            crowd.step(behaviours, integrator=cs.Params(max_speed=0.5))
        for name in ("px", "py", "vx", "vy"):
            assert getattr(moved, name).tobytes() == getattr(twin, name).tobytes(), name
