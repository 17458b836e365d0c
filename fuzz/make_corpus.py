#!/usr/bin/env python3
# Writes the small seed corpus in fuzz/corpus/: one valid call per entry point,
# 2D and 3D, each target form and write mode (layout: fuzz/fuzz_case.c).
import os

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "corpus")
os.makedirs(out, exist_ok=True)

# entry, isa, dims selector, count selector, range, target kind, mode,
# nulls (odd: none), per-agent (even: none), then 14 parameters (0 = default);
# the reader's generator fills the agents.
def seed(entry, dims, count, kind, mode, per_agent=0, isa=2):
    header = [entry, isa, dims, count, 0, kind, mode, 1, per_agent]
    if per_agent:
        header += [0xFF, 0xFF]
    params = [0] * 14
    return bytes(header + params)

entries = ["seek", "flee", "arrive", "leave", "pursuit", "evade", "wander", "integrate"]
for e, name in enumerate(entries):
    for dims, dname in ((0, "2d"), (3, "3d")):
        for kind, kname in ((0, "point"), (5, "arrays"), (10, "agents")):
            if e >= 6 and kind:
                continue
            data = seed(e, dims, 17 + e, kind, 4 if kind == 5 else 0)
            with open(os.path.join(out, f"{name}-{dname}-{kname}"), "wb") as f:
                f.write(data)
    with open(os.path.join(out, f"{name}-per-agent"), "wb") as f:
        f.write(seed(e, 3, 33, 10, 4, per_agent=1, isa=3))
with open(os.path.join(out, "isa-functions"), "wb") as f:
    f.write(bytes([8, 3, 2, 6]) + b"avx2\0\0" + bytes(20))
