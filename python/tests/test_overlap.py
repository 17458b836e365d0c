"""Written arrays that share memory with another array of the same call are
refused before anything is written: steering or a step's output against
target arrays and indices, per-agent parameters, weight_per_agent, wander
directions, neighbour arrays, masks and the agents. The binding finds these
itself and names both arrays; the library refuses them too
(CROWDSTEER_ERROR_OVERLAP, status 11). Either way the exception is
crowdsteer.OverlapError, a crowdsteer.Error and a ValueError."""
import numpy as np
import pytest

import crowdsteer as cs
from test_arguments import AGENT_FIELDS, N, base_arrays, vec


def steering(a):
    return vec(a, "steering[0]", "steering[1]")


def agents(a, prefix=""):
    return cs.Agents(*vec(a, *(prefix + f for f in AGENT_FIELDS)))


CALLS = {
    "seek": lambda a: cs.seek(
        agents(a), cs.Target.arrays(vec(a, "position[0]", "position[1]")),
        cs.Params(max_speed_per_agent=a["max_speed_per_agent"]), steering(a),
        mode=cs.ACCUMULATE, weight_per_agent=a["weight_per_agent"]),
    "pursuit": lambda a: cs.pursuit(
        agents(a), cs.Target.arrays(vec(a, "position[0]", "position[1]"),
                                    vec(a, "velocity[0]", "velocity[1]")),
        cs.Params(time_to_target_per_agent=a["time_to_target_per_agent"]), steering(a)),
    "evade": lambda a: cs.evade(agents(a), cs.Target.agents(a["u:index"]), None,
                                steering(a)),
    "wander": lambda a: cs.wander(
        agents(a), cs.WanderState(vec(a, "direction[0]", "direction[1]")),
        cs.Params(wander_radius_per_agent=a["wander_radius_per_agent"]), steering(a)),
    "cohesion": lambda a: cs.cohesion(
        agents(a), cs.Neighbours(radius_per_agent=a["radius_per_agent"]), None,
        steering(a)),
    "integrate": lambda a: cs.integrate(
        agents(a), steering(a), cs.Params(mass_per_agent=a["mass_per_agent"])),
    "step": lambda a: cs.step(
        agents(a), [cs.Behaviour(cs.SEEK, cs.Target.arrays(vec(a, "position[0]",
                                                                "position[1]"))),
                    cs.Behaviour(cs.FLEE, cs.Target.agents(a["u:index"]),
                                 cs.Params(panic_radius_per_agent=a["panic_radius_per_agent"]),
                                 weight_per_agent=a["weight_per_agent"])],
        mask=a["u:mask"], output=agents(a, "output:"),
        integrator=cs.Params(max_speed_per_agent=a["max_speed_per_agent"])),
    "step_in_place": lambda a: cs.step(
        agents(a), [cs.Behaviour(cs.ARRIVE, cs.Target.arrays(vec(a, "position[0]",
                                                                  "position[1]"))),
                    cs.Behaviour(cs.SEEK, params=cs.Params(
                        max_speed_per_agent=a["max_speed_per_agent"]))]),
}

# (call, written array, the array it overlaps, names in the message)
PAIRS = [
    ("seek", "steering[0]", "position[0]", r"steering\[0\].*target\.position\[0\]"),
    ("seek", "steering[1]", "max_speed_per_agent", r"params\.max_speed_per_agent"),
    ("seek", "steering[0]", "weight_per_agent", r"weight_per_agent"),
    ("seek", "steering[1]", "px", r"agents\.px"),
    ("pursuit", "steering[1]", "velocity[0]", r"target\.velocity\[0\]"),
    ("pursuit", "steering[0]", "time_to_target_per_agent",
     r"params\.time_to_target_per_agent"),
    ("evade", "steering[0]", "u:index", r"target\.index"),
    ("wander", "steering[0]", "direction[1]", r"state\.direction\[1\]"),
    ("wander", "direction[0]", "wander_radius_per_agent",
     r"state\.direction\[0\].*params\.wander_radius_per_agent"),
    ("wander", "direction[0]", "vx", r"state\.direction\[0\].*agents\.vx"),
    ("cohesion", "steering[1]", "radius_per_agent", r"neighbours\.radius_per_agent"),
    ("integrate", "px", "mass_per_agent", r"agents\.px.*params\.mass_per_agent"),
    ("integrate", "vy", "steering[1]", r"agents\.vy.*steering\[1\]"),
    ("step", "output:px", "position[1]", r"output\.px.*behaviours\[0\]\.target\.position\[1\]"),
    ("step", "output:vy", "u:index", r"output\.vy.*behaviours\[1\]\.target\.index"),
    ("step", "output:py", "panic_radius_per_agent",
     r"output\.py.*behaviours\[1\]\.params\.panic_radius_per_agent"),
    ("step", "output:vx", "weight_per_agent",
     r"output\.vx.*behaviours\[1\]\.weight_per_agent"),
    ("step", "output:px", "max_speed_per_agent", r"output\.px.*integrator\.max_speed_per_agent"),
    ("step", "output:py", "u:mask", r"output\.py.*mask"),
    ("step", "output:vx", "vy", r"output\.vx.*agents\.vy"),
    ("step_in_place", "px", "position[0]", r"agents\.px.*behaviours\[0\]\.target\.position\[0\]"),
    ("step_in_place", "vy", "max_speed_per_agent",
     r"agents\.vy.*behaviours\[1\]\.params\.max_speed_per_agent"),
]

NAMES = sorted({"steering[0]", "steering[1]", "position[0]", "position[1]", "velocity[0]",
                "velocity[1]", "max_speed_per_agent", "weight_per_agent", "u:index",
                "direction[0]", "direction[1]", "wander_radius_per_agent",
                "radius_per_agent", "mass_per_agent", "time_to_target_per_agent",
                "panic_radius_per_agent", "u:mask", "output:px", "output:py", "output:vx",
                "output:vy"} | set(AGENT_FIELDS))


def fresh():
    arrays = base_arrays(NAMES, np.random.default_rng(12))
    arrays["u:mask"] &= 3
    return arrays


@pytest.mark.parametrize("offset", [0, 5], ids=["same", "partly"])
@pytest.mark.parametrize("call,written,read,message", PAIRS,
                         ids=["%s-%s-%s" % p[:3] for p in PAIRS])
def test_written_array_sharing_memory_is_refused(call, written, read, message, offset):
    arrays = fresh()
    CALLS[call](fresh())  # the call is valid with the arrays apart
    # The written array becomes a view of the read one's memory.
    source = arrays[read]
    raw = np.zeros(2 * N, np.float32)
    raw[:N] = source.view(np.float32)
    arrays[read] = raw[:N].view(source.dtype)
    arrays[written] = raw[offset:offset + N]
    if arrays[written].dtype != np.float32:
        arrays[written] = arrays[written].view(np.float32)
    before = raw.tobytes(), {n: a.tobytes() for n, a in arrays.items()}
    with pytest.raises(cs.OverlapError, match=message) as info:
        CALLS[call](arrays)
    assert isinstance(info.value, ValueError) and isinstance(info.value, cs.Error)
    assert info.value.status == 11
    assert (raw.tobytes(), {n: a.tobytes() for n, a in arrays.items()}) == before


def test_overlap_error_is_status_11_and_a_value_error():
    assert cs.errors_by_status[11] is cs.OverlapError
    assert issubclass(cs.OverlapError, cs.Error) and issubclass(cs.OverlapError, ValueError)
    assert cs.OverlapError.__doc__ == cs.status_string(11)


def test_arrays_that_only_read_the_same_memory_are_fine():
    """Reading one array through two arguments is no overlap."""
    arrays = fresh()
    target = cs.Target.arrays(vec(arrays, "px", "py"), vec(arrays, "vx", "vy"))
    params = cs.Params(max_speed_per_agent=arrays["weight_per_agent"])
    cs.pursuit(agents(arrays), target, params, steering(arrays), mode=cs.ACCUMULATE,
               weight_per_agent=arrays["weight_per_agent"])


def test_one_wander_state_in_two_behaviours_of_a_step_is_fine():
    """Each agent updates the state through the wander behaviour it uses."""
    arrays = fresh()
    state = cs.WanderState(vec(arrays, "direction[0]", "direction[1]"), seed=4)
    behaviours = [cs.Behaviour(cs.WANDER, params=cs.Params(wander_radius=1), wander=state),
                  cs.Behaviour(cs.WANDER, params=cs.Params(wander_radius=2), wander=state)]
    mask = (np.arange(N) % 2 + 1).astype(np.uint32)  # one of the two each
    cs.step(agents(arrays), behaviours, mask=mask, output=agents(arrays, "output:"))
    other = cs.WanderState(vec(fresh(), "direction[0]", "direction[1]"))
    with pytest.raises(cs.OverlapError, match=r"behaviours\[1\]\.wander\.direction\[0\]"):
        cs.step(agents(arrays), behaviours[:1] + [cs.Behaviour(
            cs.WANDER, wander=cs.WanderState((state.direction[1], other.direction[1])))],
            output=agents(arrays, "output:"))
