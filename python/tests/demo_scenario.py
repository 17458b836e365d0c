"""crowdsteer-demo's mixed crowd (examples/demo_scenario.c, step mode, double
buffer, separation through a grid rebuilt before each step unless it is 0),
rebuilt in Python on the binding, with the demo's state hash. The same
options must print the same hash as the C demo, bit for bit; the speed
script (python/compare_speed.py) times its steps against the demo's."""
import math

import numpy as np

import crowdsteer as cs

SEEK, ARRIVE, FLEE, LEAVE, PURSUIT, EVADE, WANDER = range(7)  # the demo's groups
GROUP_BEHAVIOURS = [cs.SEEK, cs.ARRIVE, cs.FLEE, cs.LEAVE, cs.PURSUIT, cs.EVADE,
                    cs.WANDER]
QUARRY_AGENT, HUNTER_AGENT, DRIVEN_AGENTS = 0, 1, 2
STREAM_POSITION, STREAM_SPEED = 0x51A7, 0x5BEE
F = np.float32


def mix32(x):
    """The library's 32-bit mixer (wander's generator), on uint32 arrays."""
    x = x ^ (x >> np.uint32(16))
    x = x * np.uint32(0x7FEB352D)
    x = x ^ (x >> np.uint32(15))
    x = x * np.uint32(0x846CA68B)
    return x ^ (x >> np.uint32(16))


def random_array(seed, agents, tick, axis):
    """crowdsteer.random(seed, i, tick, axis) for every i in `agents` (uint32)."""
    with np.errstate(over="ignore"):
        key = mix32(np.uint32((seed + axis * 0x9E3779B9) & 0xFFFFFFFF))
        key = mix32(key ^ np.uint32(tick))
        h = mix32(key ^ agents.astype(np.uint32))
    return (h >> np.uint32(8)).astype(np.int32).astype(F) * F(2.0 ** -23) - F(1)


def on_circle(cx, cy, radius, radians_per_step, step):
    angle = radians_per_step * step
    position = [F(cx + radius * math.cos(angle)), F(cy + radius * math.sin(angle)), F(0)]
    velocity = [F(-radius * radians_per_step * math.sin(angle)),
                F(radius * radians_per_step * math.cos(angle)), F(0)]
    return position, velocity


class DemoScenario:
    """The demo's mixed crowd of `agents` agents in `dims` dimensions."""

    def __init__(self, agents=20000, dims=2, seed=1, combine=cs.BLEND, tile=0, threads=0,
                 separation=0.25, separation_weight=4.0):
        self.n, self.dims, self.seed = agents, dims, seed
        self.separation, self.separation_weight = separation, separation_weight
        self.grid = cs.Grid() if separation > 0 else None
        self.combine, self.tile, self.threads = combine, tile, threads
        self.crowd = cs.Crowd(agents, dims)
        self.step_count = 0
        n, steered = agents, agents - DRIVEN_AGENTS
        bounds = [DRIVEN_AGENTS + steered * g // 7 for g in range(8)]
        self.groups = [(bounds[g], bounds[g + 1]) for g in range(7)]
        self._masks_and_weights()
        index = np.arange(n, dtype=np.uint32)
        pos = self.crowd.position
        for k in range(dims):
            pos[k][DRIVEN_AGENTS:] = F(100) * random_array(seed, index, STREAM_POSITION,
                                                           k)[DRIVEN_AGENTS:]
        self.max_speed = F(1.125) + F(0.375) * random_array(seed, index, STREAM_SPEED, 0)
        self._arrivers(pos)
        self.target_agent = np.zeros(n, np.uint32)
        self.target_agent[slice(*self.groups[PURSUIT])] = QUARRY_AGENT
        self.target_agent[slice(*self.groups[EVADE])] = HUNTER_AGENT
        self.wander = cs.WanderState(tuple(np.zeros(n, F) for _ in range(dims)), seed=seed)
        self._integrator()
        self._place_markers()

    def _masks_and_weights(self):
        self.mask = np.zeros(self.n, np.uint32)
        self.wander_weight = np.zeros(self.n, F)
        # Bit 0 is separation (first, so it wins by priority); group g is bit g + 1.
        for g, (b, e) in enumerate(self.groups):
            bits = 1 << (g + 1)
            if g in (FLEE, EVADE):
                bits |= 1 << (WANDER + 1)
            if self.separation > 0:
                bits |= 1
            self.mask[b:e] = bits
            self.wander_weight[b:e] = F(1) if g == WANDER else F(0.5)
        pb, pe = self.groups[PURSUIT]
        self.mask[pe - (pe - pb) // 4:pe] |= 1 << (LEAVE + 1)

    def _arrivers(self, pos):
        b, e = self.groups[ARRIVE]
        side = 1
        while (side * side if self.dims == 2 else side ** 3) < e - b:
            side += 1
        spacing = F(2) * F(100) / F(side)
        cell = np.arange(e - b)
        index = np.arange(self.n, dtype=np.uint32)
        self.spot = tuple(np.zeros(self.n, F) for _ in range(self.dims))
        for k in range(self.dims):
            s = F(-100) + spacing * ((cell % side).astype(F) + F(0.5))
            cell = cell // side
            self.spot[k][b:e] = s
            pos[k][b:e] = s + F(40) * random_array(self.seed, index, STREAM_POSITION,
                                                   k)[b:e]

    def _integrator(self):
        speed = np.ones(self.n, F)
        force = np.full(self.n, np.inf, F)
        for g, s, f in ((SEEK, None, 0.25), (ARRIVE, None, None), (EVADE, 0.9, None),
                        (WANDER, 1.0, 0.1)):
            b, e = self.groups[g]
            speed[b:e] = self.max_speed[b:e] if s is None else F(s)
            if f is not None:
                force[b:e] = F(f)
        self.integrator = cs.Params(max_speed_per_agent=speed, max_force_per_agent=force)

    def _place_markers(self):
        step = self.step_count
        self.beacon, _ = on_circle(0.0, 0.0, 60.0, 0.01, step)
        quarry, quarry_v = on_circle(0.0, 0.0, 80.0, 0.006, step)
        hunter, hunter_v = on_circle(20.0, -10.0, 50.0, -0.008, step)
        self.threat = [F(-50) + F(0.3) * F(step), F(10), F(0)]
        pos, vel = self.crowd.position, self.crowd.velocity
        for k in range(self.dims):
            pos[k][QUARRY_AGENT], vel[k][QUARRY_AGENT] = quarry[k], quarry_v[k]
            pos[k][HUNTER_AGENT], vel[k][HUNTER_AGENT] = hunter[k], hunter_v[k]

    def behaviours(self):
        """The step's behaviours, in group order; point targets where they are now."""
        by_agents = cs.Target.agents(self.target_agent)
        if self.grid:
            first = cs.Behaviour(cs.SEPARATION, params=cs.Params(max_speed=1.0),
                                 weight=self.separation_weight,
                                 neighbours=cs.Neighbours(grid=self.grid,
                                                          radius=self.separation))
        else:  # a slot no agent uses, as in the demo
            first = cs.Behaviour(cs.SEEK, weight=self.separation_weight)
        return [first,
            cs.Behaviour(cs.SEEK, cs.Target.point(self.beacon),
                         cs.Params(max_speed_per_agent=self.max_speed)),
            cs.Behaviour(cs.ARRIVE, cs.Target.arrays(self.spot),
                         cs.Params(max_speed_per_agent=self.max_speed, slowing_radius=5.0,
                                   target_radius=0.005)),
            cs.Behaviour(cs.FLEE, cs.Target.point(self.threat)),
            cs.Behaviour(cs.LEAVE, cs.Target.point(self.threat),
                         cs.Params(danger_radius=40.0, escape_radius=10.0)),
            cs.Behaviour(cs.PURSUIT, by_agents, cs.Params(max_prediction=20.0)),
            cs.Behaviour(cs.EVADE, by_agents, cs.Params(max_speed=0.9, panic_radius=25.0,
                                                        max_prediction=20.0)),
            cs.Behaviour(cs.WANDER, None, cs.Params(wander_radius=0.5, wander_distance=1.0,
                                                    jitter=0.3),
                         wander=self.wander, weight_per_agent=self.wander_weight),
        ]

    def step(self, clock=None):
        """One simulation step, as the demo's scenario_step in step mode.
        With a clock (time.perf_counter), returns the seconds the step call
        took, binding included, as the demo times crowdsteer_step."""
        if self.grid:  # from the state before the step, not timed (as the demo)
            self.grid.build(self.crowd.agents, self.separation, threads=self.threads)
        behaviours = self.behaviours()
        start = clock() if clock else 0.0
        self.crowd.step(behaviours, integrator=self.integrator, combine=self.combine,
                        priority_threshold=0.05, mask=self.mask, tile_size=self.tile,
                        threads=self.threads, begin=DRIVEN_AGENTS)
        seconds = clock() - start if clock else None
        self.wander.tick += 1
        self.step_count += 1
        self._place_markers()
        return seconds

    def state_hash(self):
        """The demo's FNV-1a over the bits of the state, as 16 hex digits."""
        arrays = list(self.crowd.position) + list(self.crowd.velocity) + \
            list(self.wander.direction)
        data = b"".join(a.tobytes() for a in arrays)  # little-endian float32 bits
        h = 0xCBF29CE484222325
        for byte in data:
            h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
        return "%016x" % h
