#!/usr/bin/env python3
"""Speed of the Python binding against C, on this machine.

1. Per-call time of a behaviour on 16 agents from Python (an upper bound on
   the binding's overhead: it includes the library's own work).
2. The demo's mixed crowd of 1,048,576 agents, one crowdsteer_step per
   simulation step: the C demo (crowdsteer-demo) and the same scenario from
   Python (python/tests/demo_scenario.py, which hashes to the C demo's bits)
   run alternately; prints the step time of each and the ratio Python / C.

    python3 python/compare_speed.py [--demo PATH] [--agents N] [--steps N]
        [--rounds N] [--threads N] [--separation R]

Run it with the package installed (see docs/python.md) and a release build of the
demo. Timings on a shared machine are noisy: check `uptime`, read the medians.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import crowdsteer as cs

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "tests"))
from demo_scenario import DemoScenario  # noqa: E402


def per_call_ns(call, repeats=7, number=20000):
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(number):
            call()
        best = min(best, (time.perf_counter() - start) / number)
    return best * 1e9


def overhead_table():
    n = 16
    rng = np.random.default_rng(1)
    px, py, vx, vy = (rng.uniform(-10, 10, n).astype(np.float32) for _ in range(4))
    agents = cs.Agents(px, py, vx, vy)
    steering = (np.zeros(n, np.float32), np.zeros(n, np.float32))
    target, params = cs.Target.point((1, 2)), cs.Params(max_speed=1.5)
    per_agent = cs.Params(max_speed_per_agent=np.ones(n, np.float32))
    state = cs.WanderState((np.zeros(n, np.float32), np.zeros(n, np.float32)))
    wander_params = cs.Params(wander_radius=1, jitter=0.5)
    calls = {
        "seek(agents, point, params, steering)":
            lambda: cs.seek(agents, target, params, steering),
        "seek, per-agent max_speed, ACCUMULATE":
            lambda: cs.seek(agents, target, per_agent, steering, mode=cs.ACCUMULATE,
                            weight=0.5),
        "wander(agents, state, params, steering)":
            lambda: cs.wander(agents, state, wander_params, steering),
        "integrate(agents, steering, params)":
            lambda: cs.integrate(agents, steering, params),
        "(a Python function call doing nothing)": lambda: None,
    }
    print("per call on 16 agents (best of 7 x 20000 calls, library work included):")
    for name, call in calls.items():
        print("  %-42s %7.0f ns" % (name, per_call_ns(call)))


def c_step_seconds(demo, agents, steps, threads, separation):
    out = subprocess.run([demo, "--agents", str(agents), "--steps", str(steps),
                          "--threads", str(threads), "--separation", str(separation)],
                         check=True, capture_output=True,
                         text=True, env={k: v for k, v in os.environ.items()
                                         if k != "CROWDSTEER_ISA"}).stdout
    seconds = float(re.search(r"step: \d+ agent-steps in ([0-9.]+) s", out).group(1))
    isa = re.search(r"ISA: (\w+)", out).group(1)
    return seconds / steps, isa


def python_step_seconds(agents, steps, threads, separation):
    """Per step: the whole Python call (binding included) and, measured inside
    the extension around the library call, crowdsteer_step alone."""
    scenario = DemoScenario(agents, 2, threads=threads, separation=separation)
    total = library = 0.0
    for _ in range(steps):
        total += scenario.step(time.perf_counter)
        library += cs._crowdsteer._last_step_seconds()
    return total / steps, library / steps


def main():
    default_demo = HERE.parent / "build" / "release" / "examples" / "crowdsteer-demo"
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--demo", default=os.environ.get("CROWDSTEER_DEMO", default_demo))
    parser.add_argument("--agents", type=int, default=1 << 20)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=0, help="0: all (the default)")
    parser.add_argument("--separation", type=float, default=0.25,
                        help="the demo's separation radius (0: off; default 0.25, the "
                             "demo's); the grid build is timed by neither side")
    parser.add_argument("--skip-overhead", action="store_true")
    parser.add_argument("--numpy-hugepages", action="store_true",
                        help="let NumPy ask for transparent huge pages (the C demo's "
                             "calloc does not, so by default NumPy does not either)")
    args = parser.parse_args()
    # NumPy madvises huge pages for large arrays; with THP in "madvise" mode that
    # alone makes memory-bound steps faster than the C demo's, whatever the binding.
    np.core.multiarray._set_madvise_hugepage(args.numpy_hugepages)
    print("crowdsteer %s, ISA %s, NumPy huge pages %s; load average %s" % (
        cs.__version__, cs.active_isa(), "on" if args.numpy_hugepages else "off",
        " ".join("%.2f" % x for x in os.getloadavg())))
    if not args.skip_overhead:
        overhead_table()
    c_times, py_times, inside = [], [], []
    for _ in range(args.rounds):  # alternate, so drifting load hits both
        c, c_isa = c_step_seconds(str(args.demo), args.agents, args.steps, args.threads,
                                  args.separation)
        c_times.append(c)
        total, library = python_step_seconds(args.agents, args.steps, args.threads,
                                             args.separation)
        py_times.append(total)
        inside.append(total / library)
    assert c_isa == cs.active_isa(), (c_isa, cs.active_isa())
    c_med, py_med = statistics.median(c_times), statistics.median(py_times)
    print("mixed step, %d agents, %d steps x %d rounds, threads %s, separation %g, "
          "ISA %s:" % (args.agents, args.steps, args.rounds, args.threads or "all",
                       args.separation, c_isa))
    print("  C demo      %8.3f ms per step (median; rounds: %s)" % (
        c_med * 1e3, " ".join("%.3f" % (t * 1e3) for t in c_times)))
    print("  Python      %8.3f ms per step (median; rounds: %s)" % (
        py_med * 1e3, " ".join("%.3f" % (t * 1e3) for t in py_times)))
    print("  ratio Python / C demo = %.4f (%+.2f %%) of the medians, %.4f of the best "
          "rounds: two processes, alternating" % (py_med / c_med, 100 * (py_med / c_med - 1),
                                                 min(py_times) / min(c_times)))
    print("  ratio Python call / its crowdsteer_step = %.5f (median of rounds: %s): the "
          "binding's share, same process" % (statistics.median(inside),
                                             " ".join("%.5f" % r for r in inside)))
    print("load average now %s" % " ".join("%.2f" % x for x in os.getloadavg()))


if __name__ == "__main__":
    main()
