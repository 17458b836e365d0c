"""crowdsteer for NumPy: batch steering behaviours for very large crowds.

The C library's API, one to one, on NumPy arrays used in place (zero-copy):
every per-agent array is a 1-D, C-contiguous float32 array (uint32 for target
indices and behaviour masks) whose length is the agents' count. Anything else
raises TypeError or ValueError naming the argument, before anything is
written. Every library status is an exception, a subclass of
crowdsteer.Error. The GIL is released while the library runs.

Objects hold arrays, not their memory: each call reads every array's address,
flags and length as they are then. Integer arguments take Python or NumPy
integers within their C field (else OverflowError naming them, never a
wrapped value); float arguments are float32, and a nonzero number that would
round to 0 (0 often means "the default") or past float32 raises naming the
field. An array the call writes may not share memory with another array of
the call (OverlapError, a ValueError). Threads may query one built Grid and
step their own crowds over it at the same time.

    import numpy as np, crowdsteer as cs
    n = 4
    px, py = np.array([0, 0, 5, -3], np.float32), np.array([0, 4, -2, 1], np.float32)
    vx, vy = np.zeros(n, np.float32), np.zeros(n, np.float32)
    agents = cs.Agents(px, py, vx, vy)
    steering = (np.empty(n, np.float32), np.empty(n, np.float32))
    params = cs.Params(max_speed=0.5)
    for _ in range(60):
        cs.seek(agents, cs.Target.point((10, 0)), params, steering)
        cs.integrate(agents, steering, params)

The exact semantics are the C library's (docs/behaviours.md); C structs are
classes with the same field names: Agents, Params, Target, WanderState,
Behaviour (one entry of a step), Neighbours and Avoidance (ORCA, with
Obstacles: static 2D polygons and walls); avoid() and step(avoidance=...)
run it. Crowd holds a double-buffered crowd.
"""
import operator
from typing import Optional, Sequence

import numpy as np

from ._crowdsteer import *  # noqa: F401,F403 (the C API)
from ._crowdsteer import (Agents, Avoidance, Behaviour, Error, Params,
                          errors_by_status, step, version_string)

__version__ = version_string()


class PathFollow:
    """Who follows which Pathway, and how (crowdsteer_path_follow): `paths`, a
    sequence of Pathway; `path` (every agent's index into it) or
    `path_per_agent` (uint32); `direction` (+1, or -1: backwards) or
    `direction_per_agent` (float32, each 1 or -1); `prediction_time` and
    `lead_distance` (>= 0). Read by follow_path, and by step for a
    Behaviour(FOLLOW_PATH, path=...), at each call."""

    def __init__(self, paths: Sequence, path: int = 0, path_per_agent=None,
                 direction: int = 1, direction_per_agent=None,
                 prediction_time: float = 0.0, lead_distance: float = 0.0):
        self.paths = tuple(paths)
        self.path = path
        self.path_per_agent = path_per_agent
        self.direction = direction
        self.direction_per_agent = direction_per_agent
        self.prediction_time = prediction_time
        self.lead_distance = lead_distance


class Bounds:
    """A containing region for contain, and for step's
    Behaviour(CONTAIN, bounds=...) (crowdsteer_bounds): `shape`
    BOUNDS_SPHERE (`centre`, `radius`; a circle in 2D) or BOUNDS_BOX
    (`box_min`, `box_max`); `prediction` (>= 0): agents whose position
    `prediction` time units ahead is outside are steered back too. Points
    are 2 or 3 numbers."""

    def __init__(self, shape: int = 0, centre: Sequence = (0.0, 0.0, 0.0),
                 radius: float = 0.0, box_min: Sequence = (0.0, 0.0, 0.0),
                 box_max: Sequence = (0.0, 0.0, 0.0), prediction: float = 0.0):
        self.shape = shape
        self.centre = tuple(centre)
        self.radius = radius
        self.box_min = tuple(box_min)
        self.box_max = tuple(box_max)
        self.prediction = prediction


def supported_isas() -> list:
    """Names of the ISAs this build contains and this CPU runs, best last."""
    from ._crowdsteer import ISA_COUNT, isa_name, isa_supported
    return [isa_name(i) for i in range(ISA_COUNT) if isa_supported(i)]


def _state(count: int, dims: int) -> Agents:
    arrays = [np.zeros(count, np.float32) for _ in range(2 * dims)]
    if dims == 2:
        return Agents(*arrays)
    px, py, pz, vx, vy, vz = arrays
    return Agents(px, py, vx, vy, pz=pz, vz=vz)


class Crowd:
    """A double-buffered crowd: two Agents buffers of `count` agents.

    crowd.step(behaviours, ...) runs one crowdsteer_step that reads the
    current buffer and writes the other, then swaps them, so behaviours with
    agent targets see their targets as they were before the step without a
    copy. crowd.px, crowd.vx, ... are the current buffer's arrays (NumPy,
    writeable, used in place): after a step they are other arrays, so read
    them again rather than keeping them. Only agents [begin, end) of a step
    are written into the new buffer.
    """

    def __init__(self, count: int, dims: int = 2):
        # operator.index, as the extension's integers: NumPy integers pass,
        # floats do not (int() would truncate 2.5 silently).
        count, dims = operator.index(count), operator.index(dims)
        if dims not in (2, 3):
            raise ValueError("dims must be 2 or 3, not %r" % (dims,))
        if count < 0:
            raise ValueError("count must not be negative")
        self.count, self.dims = count, dims
        self._buffers = [_state(self.count, dims), _state(self.count, dims)]
        self._current = 0

    @property
    def agents(self) -> Agents:
        """The current state, as the Agents the C calls take."""
        return self._buffers[self._current]

    @property
    def next_agents(self) -> Agents:
        """The other buffer, which the next step writes."""
        return self._buffers[1 - self._current]

    px = property(lambda self: self.agents.px, doc="positions, x")
    py = property(lambda self: self.agents.py, doc="positions, y")
    pz = property(lambda self: self.agents.pz, doc="positions, z (None in 2D)")
    vx = property(lambda self: self.agents.vx, doc="velocities, x")
    vy = property(lambda self: self.agents.vy, doc="velocities, y")
    vz = property(lambda self: self.agents.vz, doc="velocities, z (None in 2D)")

    @property
    def position(self) -> tuple:
        """(px, py) or (px, py, pz) of the current state."""
        a = self.agents
        return (a.px, a.py) if self.dims == 2 else (a.px, a.py, a.pz)

    @property
    def velocity(self) -> tuple:
        """(vx, vy) or (vx, vy, vz) of the current state."""
        a = self.agents
        return (a.vx, a.vy) if self.dims == 2 else (a.vx, a.vy, a.vz)

    def step(self, behaviours: Sequence[Behaviour], *, integrator: Optional[Params] = None,
             combine: int = 0, priority_threshold: float = 0.0,
             mask: Optional[np.ndarray] = None, tile_size: int = 0, threads: int = 0,
             begin: int = 0, end: Optional[int] = None,
             avoidance: Optional[Avoidance] = None, smoothing: Optional[float] = None,
             turn_limit: Optional[float] = None, acceleration=None, wrap=None) -> None:
        """One crowdsteer_step from the current buffer into the other, then a swap.

        Arguments as crowdsteer.step (without output and snapshot). With
        avoidance, build its neighbours' Grid from crowd.agents (the state
        before the step) first. On error nothing is written and the buffers
        are not swapped.
        """
        step(self.agents, behaviours, integrator=integrator, combine=combine,
             priority_threshold=priority_threshold, mask=mask, output=self.next_agents,
             tile_size=tile_size, threads=threads, begin=begin, end=end,
             avoidance=avoidance, **{name: value for name, value in (
                 ("smoothing", smoothing), ("turn_limit", turn_limit),
                 ("acceleration", acceleration), ("wrap", wrap)) if value is not None})
        self._current = 1 - self._current
