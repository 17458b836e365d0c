#!/usr/bin/env python3
# Writes the small seed corpus in fuzz/corpus/: one valid call per entry point,
# 2D and 3D, each target form and write mode (layout: fuzz/fuzz_case_call.c), and a
# few crowdsteer_step calls (layout: fuzz/fuzz_step_call.c).
import os
import re

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "corpus")
os.makedirs(out, exist_ok=True)

# entry, isa, dims selector, count selector, range, target kind, mode,
# nulls (odd: none), per-agent (even: none), then 14 parameters (0 = default);
# the reader's generator fills the agents.
def seed(entry, dims, count, kind, mode, per_agent=0, isa=2):
    header = [entry, isa, dims, count, 0, kind] + ([count // 2] if kind == 14 else [])
    header += [mode, 1, per_agent]
    if per_agent:
        header += [0xFF, 0xFF]
    params = [0] * 14
    return bytes(header + params)

def behaviour_names():
    """crowdsteer_behaviour's names in enum order, read from the header (the
    library's table is indexed by it), so an added behaviour needs no edit
    here."""
    header = open(os.path.join(here, "..", "include", "crowdsteer.h")).read()
    body = re.search(r"typedef enum crowdsteer_behaviour \{(.*?)\} crowdsteer_behaviour;",
                     header, re.S).group(1)
    values = {name: int(v) for name, v in re.findall(r"CROWDSTEER_(\w+) = (\d+)", body)
              if name != "BEHAVIOUR_COUNT"}
    return [n.lower() for n, _ in sorted(values.items(), key=lambda kv: kv[1])]

# The fuzzer's entries (fuzz/fuzz_case_call.h): the behaviours up to wander by
# their enum values, then the integrator.
names = behaviour_names()
entries = names[: names.index("wander") + 1] + ["integrate"]
for e, name in enumerate(entries):
    for dims, dname in ((0, "2d"), (3, "3d")):
        for kind, kname in ((0, "point"), (5, "arrays"), (10, "agents"), (14, "agent")):
            if e >= 6 and kind:
                continue
            data = seed(e, dims, 17 + e, kind, 4 if kind == 5 else 0)
            with open(os.path.join(out, f"{name}-{dname}-{kname}"), "wb") as f:
                f.write(data)
    with open(os.path.join(out, f"{name}-per-agent"), "wb") as f:
        f.write(seed(e, 3, 33, 10, 4, per_agent=1, isa=3))
with open(os.path.join(out, "isa-functions"), "wb") as f:
    f.write(bytes([8, 3, 2, 6]) + b"avx2\0\0" + bytes(20))

# crowdsteer_step seeds (first byte >= 0xB0; layout: decode_step in
# fuzz/fuzz_step_call.c). Only the header and the behaviours are spelled out; the
# per-agent data comes from the reader's generator past the end of the input.
def f(v, scale=36):
    # cs_fuzz_float: selector 32..239 gives int8 * scales[(sel - 32) % 16]
    # (36: 1.0, 35: 0.5, 33: 0.125)
    return [scale, v & 0xFF]

def param(v, scale=36):
    return [0] if v == 0 else [200] + f(v, scale)  # 0: default; else |float|

def behaviour(kind, target, per_agent=0, weight=None, per_agent_weight=False):
    b = [kind, target] + ([5] if target == 14 else [])  # AGENT: agent 5
    b += f(10) + f(-4) + f(1) + f(1) + f(0) + f(-1)
    # max_speed, max_force, mass, dt, time_to_target, target_radius,
    # slowing_radius, panic_radius, danger_radius, escape_radius,
    # max_prediction, wander_radius, wander_distance, jitter
    for v in (3, 0, 0, 0, 0, 1, 4, 25, 6, 2, 8, 1, 2, 1):
        b += param(v, 35 if v == 1 else 36)
    b += [0, per_agent >> 8, per_agent & 0xFF] if per_agent else [1]
    if per_agent_weight:
        b += [5]
    elif weight is None:
        b += [1]
    else:
        b += [201] + f(weight)
    if kind == 6:
        b += [0, 0, 0, 99, 0, 0, 0, 5]  # wander seed, tick
    return b + [1]  # no NULLs

def step_seed(behaviours, dims=0, count=17, combine=0, mask_form=1, out=0, snap=0,
              tile=7, threads=0, isa=2, tame=True, bc=None, threshold=0):
    h = [0xB0, isa, 0 if tame else 200, dims, count, 0, count // 3]
    h += [bc if bc is not None else len(behaviours) - 1]  # 1 + bc % 6 behaviours
    h += [combine] + param(threshold) + [mask_form, 5, out, 3, snap, 7, tile, threads, 1]
    # integrator: max_speed 4, max_force 2, mass default, dt 0.25
    h += param(4) + param(2) + param(0) + param(2, 33) + [0] * 10 + [1]
    for b in behaviours:
        h += b
    return bytes(h)

SEEK, FLEE, ARRIVE, LEAVE, PURSUIT, EVADE, WANDER = (
    names.index(n) for n in ("seek", "flee", "arrive", "leave", "pursuit", "evade", "wander"))
POINT, ARRAYS, AGENTS, AGENT = 0, 5, 10, 14
mixed = [behaviour(SEEK, POINT), behaviour(FLEE, ARRAYS, weight=-2),
         behaviour(ARRIVE, AGENTS, per_agent=0x18), behaviour(PURSUIT, AGENTS),
         behaviour(EVADE, ARRAYS, per_agent_weight=True), behaviour(WANDER, POINT)]
seeds = {
    # in place, blend, per-agent masks, tile 7 (tile byte 7), threads 2 (byte 4)
    "step-blend-2d-in-place": step_seed(mixed, tile=7, threads=4),
    # out of place (output byte 8), priority, no mask, tile 1024, all threads
    "step-priority-3d-output": step_seed(mixed, dims=3, combine=4, mask_form=0, out=8,
                                         tile=0, threads=3, threshold=1),
    # snapshot holding only the targets (snapshot byte >= 128), runs of one
    # behaviour per agent (mask form 3), 1025 agents, tile 64
    "step-priority-2d-snapshot-targets": step_seed(mixed, combine=4, mask_form=3,
                                                   snap=128, count=253, tile=11),
    # 4097 agents, tile 4096: a tile boundary inside the batch
    "step-blend-3d-4097": step_seed(mixed[:3], dims=3, count=254, tile=13, mask_form=2),
    # AGENTS targets, any mask bits, and agents left out holding bad indices
    "step-blend-3d-pursuit-evade": step_seed([behaviour(PURSUIT, AGENTS),
                                              behaviour(EVADE, AGENTS, per_agent=0x80)],
                                             dims=3, mask_form=2, isa=3),
    # in place without a snapshot (untamed, so snapshot byte 10 stays "none"):
    # one AGENT target for the whole crowd, the timing arrays per agent
    "step-blend-2d-agent-in-place": step_seed([behaviour(PURSUIT, AGENT, per_agent=0x1C00),
                                               behaviour(EVADE, AGENT)], snap=10, tame=False),
    # invalid: 33 behaviours (count byte 225), untamed
    "step-invalid-33-behaviours": step_seed(mixed, bc=225, tame=False),
}
for name, data in seeds.items():
    with open(os.path.join(out, name), "wb") as f_:
        f_.write(data)

# Obstacle and avoidance seeds ("AV" prefix; layout: decode and add_obstacle
# in fuzz/fuzz_avoid_call.c). Past the end of an input the reader's
# generator fills in the rest (the agents, for the seeds that stop early).
def lat(v):
    return v + 8  # a lattice coordinate: (byte % 17 - 8) units

FORM = {"wall": 0, "rect": 3, "rect_cw": 5, "shape": 6, "changed": 9, "points": 11,
        "raw_wall": 13, "few": 14, "pointer": 15}
SHAPE = {n: k for k, n in enumerate(
    ["triangle", "octagon", "L", "U", "spike", "straight", "flat", "crossed", "touches",
     "notch", "square", "concave"])}
NAN, NEG_ONE = 23, 3  # cs_fuzz_float's specials

def wall(x0, y0, x1, y1):
    return [FORM["wall"], 8, 8, 0, lat(x0), lat(y0), lat(x1), lat(y1)]

def rect(x, y, w, h, cw=False):  # w, h in lattice units (1..4)
    return [FORM["rect_cw" if cw else "rect"], lat(x), lat(y), 0, w - 1, h - 1]

def shape(name, x, y, scale=1, change=None):
    b = [FORM["changed" if change else "shape"], lat(x), lat(y), scale - 1, SHAPE[name]]
    return b + (list(change) if change else [])

def obstacles(items, on=True, build=(1,)):
    return [len(items)] + sum(items, []) + [1 if on else 0] + list(build)

def choose(lo, hi, mod, rest):  # a selector byte in [lo, hi) with byte % mod == rest
    return next(b for b in range(lo, hi) if b % mod == rest)

# index tables of decode(): horizons 0 .25 .5 1 2 4 8; shares 0 .25 .5 1 0 .75;
# speeds 0 .5 1 2 4 .25; dts 0 .1 .25 .5 1 2; forces 0 1 4 .5; tiles 0 1 2 3 7 64 4096 5
def avoidance(radius=1, radius_pa=False, tau=4, tau_o=3, resp=0, resp_pa=False,
              report=True, nb_mode=2, nb_radius=4, cap=0, fov=None, mask=0, cell=4,
              positions_only=False, speed=3, speed_pa=False, dt=2, force=2,
              target=(8, 0, 0), threads=2, in_place=True, workspace=True, tile=4):
    b = [0 if radius == 0 else choose(64, 232, 5, radius)]  # radius * 0.5 units
    # tau, tau_o, resp: a table index, or a list of bytes (232 and up: any float)
    b += [0 if radius_pa else 1] + sum(([x] if isinstance(x, int) else list(x)
                                        for x in (tau, tau_o, resp)), [])
    b += [0 if resp_pa else 1]
    b += [1 if report else 0, nb_mode]
    b += [0 if nb_radius == 0 else choose(64, 232, 8, nb_radius - 1)]  # * 0.5 units
    b += [2 if cap == 0 else 4 * cap] + ([0, fov] if fov is not None else [1])
    b += [mask, cell - 1, 0 if positions_only else 1]  # cell * 0.5 units
    b += [speed, 0 if speed_pa else 1, dt, force] + [lat(t) for t in target]
    b += [(threads - 1) + 2 * in_place + 4 * workspace + 8 * tile]
    return b + [0, 0]  # the whole range; split at its start

def agent(p, v, pref, per=0, copy=False):
    b = [0 if copy else 255]
    for k in range(len(p)):
        b += [0, lat(p[k]), 0, lat(2 * v[k]), 0, lat(2 * pref[k])]  # v, pref: 0.5 units
    return b + [per]

def av_seed(obstacle_bytes, avoid_bytes, agents=(), dims=2, count=None, unit=3, isa=2,
            ids=1):
    count = len(agents) if count is None else count
    head = [ord("A"), ord("V"), isa, 0, 3 if dims == 3 else 0, count, unit]
    tail = sum(agents, []) + ([ids, 1, 2, 3, 4] if agents else [])
    return bytes(head + obstacle_bytes + avoid_bytes + tail)

box = [wall(-7, -7, 7, -7), wall(7, -7, 7, 7), wall(7, 7, -7, 7), wall(-7, 7, -7, -7)]
room_agents = [
    agent((2, 2), (1, 0), (2, 0)),         # inside the pillar: stays (INSIDE)
    agent((1, 2), (1, 0), (2, 0)),         # on the pillar's edge
    agent((6, 0), (2, 0), (2, 0)),         # into the right wall
    agent((6, 3), (2, 1), (2, 1)),
    agent((7, 2), (1, 0), (1, 0)),         # on the wall itself
    agent((0, -3), (1, 0), (2, 0)),
    agent((0, -3), (-1, 0), (2, 0), copy=True),  # coincident with the last
    agent((-5, -5), (0, 0), (-2, -2)),     # into the L's corner
    agent((-6, 6), (-2, 2), (-2, 2)),      # into a room corner
    agent((4, -6), (0, -2), (1, -2)),
    agent((-2, 0), (2, 0), (2, 0), per=3),
    agent((3, 0), (-2, 0), (-2, 0), per=1),  # head-on with the last
]
av_seeds = {
    # walls hold: a box of walls, a pillar, an L; the crowd seeks beyond the right wall
    "avoid-room-walls": av_seed(
        obstacles(box + [rect(1, 1, 2, 2), shape("L", -7, -7)]), avoidance(), room_agents),
    # the same out of place, one thread, tile 1, point agents, per-agent speeds
    "avoid-room-out-of-place": av_seed(
        obstacles(box + [rect(1, 1, 2, 2), shape("U", -6, 2)]),
        avoidance(radius=0, threads=1, in_place=False, workspace=False, tile=1,
                  speed_pa=True, cap=3), room_agents, isa=0),
    # a doorway in a wall; 64 agents from the generator seek through it
    "avoid-doorway-64": av_seed(
        obstacles([wall(0, -8, 0, -1), wall(0, 1, 0, 8), shape("octagon", 3, -6)]),
        avoidance(target=(8, 0, 0), cap=5), count=129, unit=2),
    # 200 agents (size byte 255) through a grid, obstacles only avoided by some
    "avoid-200-grid": av_seed(obstacles([rect(-2, -2, 4, 4), shape("concave", 4, 4, 2)]),
                              avoidance(cap=10), count=255, unit=1),
    # 3D: coincident pairs, per-agent responsibilities with zeros, no obstacles
    "avoid-3d-coincident": av_seed(
        obstacles([], on=False, build=(0,)), avoidance(resp_pa=True, radius_pa=True),
        [agent((0, 0, 0), (1, 0, 0), (1, 0, 0), per=1),
         agent((0, 0, 0), (-1, 0, 0), (-1, 0, 0), per=2, copy=True),
         agent((1, 1, 1), (0, 0, 0), (0, 1, 0), per=0),
         agent((1, 1, 1), (0, 0, 0), (0, -1, 0), per=3, copy=True),
         agent((2, 0, 0), (-2, 0, 0), (-2, 0, 0), per=4),
         agent((-2, 0, 0), (2, 0, 0), (2, 0, 0), per=5)], dims=3),
    # refusals by add: flat, crossed, touching, clockwise, NaN, too few vertices,
    # NULL, misaligned, a repeated vertex, an ulp off; then a valid square
    "avoid-geometry-refusals": av_seed(obstacles([
        shape("flat", 0, 0), shape("crossed", 0, 0), shape("touches", 0, 0),
        rect(0, 0, 2, 2, cw=True), [FORM["raw_wall"], 8, 8, 0, 0, 0, NAN, 200, 8, 200, 8,
                                    200, 8],
        [FORM["few"], 8, 8, 0, 1], [FORM["pointer"], 8, 8, 0, 1],
        shape("U", -4, -4, change=(3, 5))]), avoidance()),
    "avoid-ulp-nudges": av_seed(obstacles([
        shape("U", -4, -4, change=(0, 4)), shape("touches", 0, 0, change=(1, 3)),
        shape("notch", 2, 2, change=(1, 3)), [FORM["pointer"], 8, 8, 0, 0],
        shape("octagon", -8, 2, change=(3, 0))]), avoidance()),
    # one fault each: an unbuilt set (GRID), a negative time horizon, a
    # responsibility of 1.5, a positions-only grid, a mask without groups,
    # obstacles in 3D (DIMS), neighbours without a grid in a step (NULL_POINTER)
    "avoid-invalid-unbuilt": av_seed(obstacles([rect(0, 0, 1, 1)], build=(0,)),
                                     avoidance(), room_agents),
    "avoid-invalid-horizon": av_seed(obstacles(box), avoidance(tau=(232, NEG_ONE)),
                                     room_agents),
    # 232: any float; 35, 3: 3 * 0.5 (cs_fuzz_float's small multiples)
    "avoid-invalid-responsibility": av_seed(obstacles(box), avoidance(resp=(232, 35, 3)),
                                            room_agents),
    "avoid-invalid-positions-only": av_seed(obstacles(box), avoidance(positions_only=True),
                                            room_agents),
    "avoid-invalid-mask": av_seed(obstacles(box), avoidance(mask=2), room_agents),
    "avoid-invalid-3d-obstacles": av_seed(obstacles([rect(0, 0, 1, 1)]), avoidance(),
                                          count=9, dims=3),
    "avoid-step-without-grid": av_seed(obstacles(box), avoidance(nb_mode=1), room_agents),
}
for name, data in av_seeds.items():
    with open(os.path.join(out, name), "wb") as f_:
        f_.write(data)

# Once a library bug found by the fuzzer (see speed_slack in fuzz/fuzz_avoid.c;
# its other seed, avoid-known-speed-tangent, is the finding kept as found): two
# coincident agents moving at (1.5, -2000) (cs_fuzz_float: 232 any float, 43
# times 100, 236 is -20), radius 1/16 and 0, max_speed 0.5: the second got
# |v| 1.5625 before the speed disc's test used the line's distance.
raw_2000 = [232, 43, 236]
speed_agent = lambda per, copy: ([0 if copy else 255, 0, lat(1), 0, lat(3), 0, lat(-5),
                                  0, lat(0)] + raw_2000 + [0, lat(3), per])
with open(os.path.join(out, "avoid-known-speed-above-max"), "wb") as f_:
    f_.write(av_seed(obstacles([], on=False, build=(0,)),
                     avoidance(radius_pa=True, tau=1, tau_o=0, resp=5, nb_radius=8, cell=8,
                               speed=1, dt=3),
                     [speed_agent(1, False), speed_agent(0, True)], unit=1, isa=0))
