#!/usr/bin/python3
"""Reruns crowdsteer-validation (both experiments, fixed seeds) and draws
docs/images/validation_fd.png and docs/images/validation_bottleneck.png;
the raw output goes to docs/validation-output.txt. docs/validation.md
explains the set-up and the figures.

Usage: examples/validation.py [path/to/crowdsteer-validation]
(default: build/release/examples/crowdsteer-validation). Needs matplotlib
(Debian: python3-matplotlib). About a minute on one core."""
import os
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Liddle et al. 2011 as listed in JuPedSim's bottleneck validation test
# (the same numbers as in validation.c).
LIDDLE_B = [0.9, 1.0, 1.1, 1.2, 1.4, 1.6, 1.8, 2.0, 2.2, 2.5]
LIDDLE_J = [1.71, 2.02, 2.19, 2.53, 2.91, 3.11, 3.91, 3.91, 4.52, 5.55]


def run(binary, *args):
    out = subprocess.run([binary, "--speeds", "both", *args], check=True,
                         capture_output=True, text=True).stdout
    return out


def parse(text):
    """Every key=value line of a run, as dicts keyed by its first word."""
    rows = {"fd": [], "bottleneck": []}
    for line in text.splitlines():
        kind = line.split(" ", 1)[0]
        if kind in rows:
            fields = dict(f.split("=", 1) for f in line.split()[1:])
            rows[kind].append(fields)
    return rows


def weidmann(rho):
    return 1.34 * (1.0 - np.exp(-1.913 * (1.0 / rho - 1.0 / 5.4)))


def fd_series(rows, variant):
    r = [x for x in rows["fd"] if x["variant"] == variant]
    return (np.array([float(x["rho"]) for x in r]), np.array([float(x["v"]) for x in r]))


def bottleneck_series(rows, variant):
    by_b = {}
    for x in rows["bottleneck"]:
        if x["variant"] == variant:
            by_b.setdefault(float(x["b"]), []).append(float(x["J_steady"]))
    b = np.array(sorted(by_b))
    j = np.array([np.mean(by_b[k]) for k in b])
    sd = np.array([np.std(by_b[k], ddof=1) if len(by_b[k]) > 1 else 0.0 for k in b])
    return b, j, sd


MODEL_TAU = "2"  # the model's time horizon; the other runs show the sensitivity
LINES = {"1": ":", "4": "-."}


def series(runs):
    """(tau, variant, rows, plot style) of every series, the model's bold."""
    styles = {"uniform": ("o", "tab:blue"), "spread": ("s", "tab:orange")}
    for tau, rows in runs.items():
        for variant, (marker, colour) in styles.items():
            main = tau == MODEL_TAU
            label = f"ORCA, v0 {variant}" + ("" if main else f", tau {tau} s")
            yield tau, variant, rows, dict(
                marker=marker, color=colour, ls=LINES.get(tau, "-"),
                alpha=1.0 if main else 0.5, label=label, ms=6 if main else 4)


def finish(fig, title, xlabel, ylabels, legend_at, path):
    """Labels, grid and legend of a figure of two plots, saved as PNG."""
    for ax, ylabel in zip(fig.axes, ylabels):
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
    fig.axes[0].legend(fontsize=7, loc=legend_at)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=90)


def plot_fd(runs, path):
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4.2))
    rho = np.linspace(0.3, 5.4, 200)
    ax1.plot(rho, weidmann(rho), "k-", lw=2, label="Weidmann 1993")
    ax2.plot(rho, rho * weidmann(rho), "k-", lw=2, label="Weidmann 1993")
    for tau, variant, rows, kw in series(runs):
        d, v = fd_series(rows, variant)
        ax1.plot(d, v, **kw)
        ax2.plot(d, d * v, **kw)
    ax1.set_ylim(0, 1.6)
    finish(fig, "Periodic corridor 30 m x 3 m: speed against density", "density (1/m²)",
           ("mean speed (m/s)", "specific flow (1/(m s))"), "lower left", path)


def plot_bottleneck(runs, path):
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4.2))
    b = np.array(LIDDLE_B)
    j = np.array(LIDDLE_J)
    ax1.plot(b, j, "kD", label="Liddle et al. 2011")
    ax2.plot(b, j / b, "kD", label="Liddle et al. 2011")
    line = np.array([0.7, 2.6])
    ax1.plot(line, 1.9 * line, "k--", lw=1, label="1.9 b")
    ax2.plot(line, [1.9, 1.9], "k--", lw=1, label="1.9")
    for tau, variant, rows, kw in series(runs):
        w, flow, sd = bottleneck_series(rows, variant)
        if tau == MODEL_TAU:
            ax1.errorbar(w, flow, yerr=sd, capsize=3, **kw)
        else:
            ax1.plot(w, flow, **kw)
        ax2.plot(w, flow / w, **kw)
    finish(fig, "Room emptying through a 4 m bottleneck (150 agents, 5 seeds)",
           "bottleneck width b (m)", ("flow J (persons/s)", "specific flow J/b (1/(m s))"),
           "upper left", path)


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        ROOT, "build", "release", "examples", "crowdsteer-validation")
    if not os.access(binary, os.X_OK):
        sys.exit(f"validation.py: no {binary}; build it first "
                 "(cmake --preset release && cmake --build --preset release)")
    texts, runs = [], {}
    for tau in (MODEL_TAU, "1", "4"):
        text = run(binary, "--tau", tau)
        texts.append(f"$ crowdsteer-validation --speeds both --tau {tau}\n{text}")
        runs[tau] = parse(text)
        sys.stdout.write(text)
    with open(os.path.join(ROOT, "docs", "validation-output.txt"), "w") as f:
        f.write("\n".join(texts))
    images = os.path.join(ROOT, "docs", "images")
    plot_fd(runs, os.path.join(images, "validation_fd.png"))
    plot_bottleneck(runs, os.path.join(images, "validation_bottleneck.png"))


if __name__ == "__main__":
    main()
