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
