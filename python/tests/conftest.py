"""Shared fixtures of the crowdsteer Python tests: the repository paths, the C
demo (the reference the bit-identity tests compare with) and array helpers."""
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
from hypothesis import settings

import crowdsteer as cs

# No example database in the source tree: every run starts from the seeds.
settings.register_profile("crowdsteer", database=None)
settings.load_profile("crowdsteer")

REPO = Path(__file__).resolve().parents[2]
HEADER = REPO / "include" / "crowdsteer.h"


def demo_binary():
    """crowdsteer-demo of this repository's C build (tools/test sets
    CROWDSTEER_DEMO; otherwise the release preset's)."""
    path = Path(os.environ.get("CROWDSTEER_DEMO",
                               REPO / "build" / "release" / "examples" / "crowdsteer-demo"))
    if not path.is_file():
        if os.environ.get("CROWDSTEER_DEMO"):
            pytest.fail("CROWDSTEER_DEMO=%s does not exist" % path)
        pytest.skip("no C demo built (cmake --preset release && cmake --build "
                    "--preset release), or set CROWDSTEER_DEMO")
    return path


def run_demo(*args, isa=None):
    env = dict(os.environ)
    env.pop("CROWDSTEER_ISA", None)
    if isa:
        env["CROWDSTEER_ISA"] = isa
    out = subprocess.run([str(demo_binary()), *map(str, args)], env=env, check=True,
                         capture_output=True, text=True).stdout
    return out


@pytest.fixture(autouse=True)
def restore_isa():
    """Tests that force an ISA give the best one back."""
    before = cs.active_isa()
    yield
    cs.force_isa(before)


def f32(values):
    return np.ascontiguousarray(values, dtype=np.float32)


def random_agents(rng, n, dims=2, spread=100.0):
    """Agents with random positions and velocities, and their arrays."""
    arrays = [f32(rng.uniform(-spread, spread, n)) for _ in range(dims)]
    arrays += [f32(rng.uniform(-2, 2, n)) for _ in range(dims)]
    if dims == 2:
        return cs.Agents(*arrays), arrays
    px, py, pz, vx, vy, vz = arrays
    return cs.Agents(px, py, vx, vy, pz=pz, vz=vz), arrays


def empty_vectors(n, dims=2, fill=0.0):
    return tuple(np.full(n, fill, np.float32) for _ in range(dims))
