"""Threads sharing one built cs.Grid: several Python threads (the binding
releases the GIL) step their own crowds over the same grid and query it at
the same time, many rounds; every result has the bits of the same calls run
one after another. A built grid is read-only to queries and steps (a step's
scratch memory is its own), so nothing may depend on who else uses it.

The threads run in a child process: a race in the library could corrupt the
heap, and that must fail this test, not end the whole pytest run."""
import subprocess
import sys
import threading

import numpy as np

import crowdsteer as cs

N = 3000
THREADS = 4
ROUNDS = 30


def scene():
    """The world the grid is built from, and per thread a crowd with the same
    positions but its own velocities, its own neighbour radius and
    parameters and its own range of agents: every thread's result differs,
    so a step that used another's scratch memory would show."""
    rng = np.random.default_rng(21)
    positions = [rng.uniform(-30, 30, N).astype(np.float32) for _ in range(2)]
    world = cs.Agents(*positions, *[rng.uniform(-1, 1, N).astype(np.float32)
                                    for _ in range(2)])
    grid = cs.Grid()
    grid.build(world, 2.0)
    jobs = []
    for t in range(THREADS):
        velocities = [rng.uniform(-1, 1, N).astype(np.float32) for _ in range(2)]
        crowd = cs.Agents(*[p.copy() for p in positions], *velocities)
        nb = cs.Neighbours(grid=grid, radius=2.0 - 0.3 * t, max_neighbours=8 + t)
        behaviours = [
            cs.Behaviour(cs.SEEK, cs.Target.point((5, -5 + t)), weight=0.5),
            cs.Behaviour(cs.SEPARATION, params=cs.Params(max_speed=1 + t), neighbours=nb,
                         weight=2.0),
            cs.Behaviour(cs.COHESION, neighbours=nb, weight=0.25 * (t + 1)),
            cs.Behaviour(cs.ALIGNMENT, neighbours=nb, weight=0.5)]
        jobs.append((crowd, nb, behaviours, 100 * t, N - 50 * t))
    return grid, jobs


def work(crowd, nb, behaviours, begin, end):
    """One round for one crowd: a step into a fresh output and two queries,
    on agents [begin, end)."""
    out = cs.Agents(*[np.zeros(N, np.float32) for _ in range(4)])
    cs.step(crowd, behaviours, output=out, integrator=cs.Params(max_speed=1.5), threads=1,
            begin=begin, end=end)
    separation = (np.zeros(N, np.float32), np.zeros(N, np.float32))
    cs.separation(crowd, nb, cs.Params(max_speed=2), separation, begin=end // 3, end=end)
    alignment = (np.zeros(N, np.float32), np.zeros(N, np.float32))
    cs.alignment(crowd, nb, None, alignment, begin=begin)
    return b"".join(a.tobytes() for a in (out.px, out.py, out.vx, out.vy, *separation,
                                          *alignment))


def main():
    grid, jobs = scene()
    expected = [work(*job) for job in jobs]  # one at a time
    wrong = []
    start = threading.Barrier(THREADS)

    def thread(t):
        start.wait()
        for r in range(ROUNDS):
            if work(*jobs[t]) != expected[t]:
                wrong.append((t, r))

    threads = [threading.Thread(target=thread, args=(t,)) for t in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if wrong:
        print("%d of %d rounds differ from the sequential bits, first %s"
              % (len(wrong), THREADS * ROUNDS, wrong[:5]))
        return 1
    print("ok: %d threads x %d rounds over one grid" % (THREADS, ROUNDS))
    return 0


def test_threads_stepping_and_querying_one_grid_get_the_sequential_bits():
    run = subprocess.run([sys.executable, __file__], capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0 and run.stdout.startswith("ok"), \
        "exit %d\n%s\n%s" % (run.returncode, run.stdout, run.stderr[-3000:])


if __name__ == "__main__":
    sys.exit(main())
