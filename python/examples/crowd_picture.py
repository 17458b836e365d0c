"""A mixed crowd with crowdsteer from Python, drawn with matplotlib.

Four groups in one crowdsteer_step per frame (a double-buffered Crowd):
arrivers form a ring, seekers chase a beacon that circles the middle while
wandering a little, evaders flee a hunter that crosses the field, and the
rest wander. Writes a PNG of the trails.

    python3 examples/crowd_picture.py [out.png] [--agents N] [--steps N]
"""
import argparse
import math

import matplotlib

matplotlib.use("Agg")  # files only, no display needed
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import crowdsteer as cs  # noqa: E402

GROUPS = ["arrive", "seek + wander", "evade + wander", "wander"]
COLOURS = ["tab:blue", "tab:orange", "tab:red", "tab:green"]


def build(n, rng):
    crowd = cs.Crowd(n)
    crowd.px[:] = rng.uniform(-100, 100, n).astype(np.float32)
    crowd.py[:] = rng.uniform(-100, 100, n).astype(np.float32)
    group = np.minimum(np.arange(n) * 4 // n, 3)
    group[0] = 2  # agent 0 is the hunter, driven below
    angle = 2 * np.pi * np.arange(n) / max(1, np.count_nonzero(group == 0))  # arrivers: 0..
    ring = (np.float32(70) * np.cos(angle).astype(np.float32),
            np.float32(70) * np.sin(angle).astype(np.float32))
    # Bits: 0 arrive, 1 seek, 2 evade, 3 wander.
    mask = np.choose(group, [1, 2 | 8, 4 | 8, 8]).astype(np.uint32)
    mask[0] = 0
    wander_weight = np.where(group == 3, 1.0, 0.4).astype(np.float32)
    wander = cs.WanderState((np.zeros(n, np.float32), np.zeros(n, np.float32)), seed=7)
    hunter = cs.Target.agents(np.zeros(n, np.uint32))
    fixed = [
        cs.Behaviour(cs.ARRIVE, cs.Target.arrays(ring), cs.Params(slowing_radius=20)),
        None,  # seek: the beacon moves, set per frame
        cs.Behaviour(cs.EVADE, hunter, cs.Params(panic_radius=35, max_prediction=10)),
        cs.Behaviour(cs.WANDER, params=cs.Params(wander_radius=0.6, wander_distance=1.5,
                                                 jitter=0.4),
                     wander=wander, weight_per_agent=wander_weight),
    ]
    return crowd, group, mask, wander, fixed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", default="crowd.png")
    parser.add_argument("--agents", type=int, default=4000)
    parser.add_argument("--steps", type=int, default=240)
    args = parser.parse_args()
    rng = np.random.default_rng(1)
    crowd, group, mask, wander, behaviours = build(args.agents, rng)
    integrator = cs.Params(max_speed=1.0, max_force=0.12)
    shown = rng.choice(args.agents, min(args.agents, 400), replace=False)
    trails = []
    for frame in range(args.steps):
        t = frame * 0.02
        beacon = (60 * math.cos(t), 60 * math.sin(t))
        behaviours[1] = cs.Behaviour(cs.SEEK, cs.Target.point(beacon))
        hunter_x = -120 + 1.0 * frame  # the hunter crosses at 1 per frame
        crowd.px[0], crowd.py[0], crowd.vx[0], crowd.vy[0] = hunter_x, 10, 1, 0
        crowd.step(behaviours, integrator=integrator, mask=mask, begin=1)
        wander.tick += 1
        trails.append((crowd.px[shown].copy(), crowd.py[shown].copy()))
    draw(args, crowd, group, shown, trails, beacon, hunter_x)


def draw(args, crowd, group, shown, trails, beacon, hunter_x):
    xs = np.array([t[0] for t in trails])
    ys = np.array([t[1] for t in trails])
    fig, ax = plt.subplots(figsize=(7, 7), dpi=100)
    for g, colour in enumerate(COLOURS):
        cols = np.flatnonzero(group[shown] == g)
        ax.plot(xs[:, cols], ys[:, cols], color=colour, alpha=0.15, linewidth=0.6)
        everyone = group == g
        ax.scatter(crowd.px[everyone], crowd.py[everyone], s=3, color=colour,
                   label="%s (%d)" % (GROUPS[g], everyone.sum()))
    ax.plot(*beacon, marker="*", markersize=10, color="black", label="beacon")
    ax.plot(hunter_x, 10, marker="X", markersize=8, color="darkred", label="hunter")
    ax.set_xlim(-130, 130)
    ax.set_ylim(-130, 130)
    ax.set_aspect("equal")
    ax.set_title("crowdsteer from Python: %d agents, %d steps, one crowdsteer_step "
                 "each (%s)" % (args.agents, args.steps, cs.active_isa()), fontsize=9)
    ax.legend(loc="lower left", fontsize=7)
    fig.tight_layout()
    fig.canvas.draw()
    # A 256-colour palette keeps the PNG small (matplotlib depends on Pillow).
    from PIL import Image
    rgb = Image.frombuffer("RGBA", fig.canvas.get_width_height(),
                           bytes(fig.canvas.buffer_rgba())).convert("RGB")
    rgb.quantize(256).save(args.out, optimize=True)
    print("wrote %s" % args.out)


if __name__ == "__main__":
    main()
