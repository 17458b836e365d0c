"""The binding gives the C library's bits: the demo's mixed crowd, rebuilt in
Python, hashes to what the C demo prints; the ISA chosen is the C library's."""
import re

import pytest

import crowdsteer as cs
from conftest import run_demo
from demo_scenario import DemoScenario, random_array

import numpy as np


def c_demo_hash(agents, steps, dims, combine="blend", separation=0.25, isa=None):
    out = run_demo("--agents", agents, "--steps", steps, "--dims", dims, "--combine",
                   combine, "--separation", separation, isa=isa)
    assert "NaN/inf values in the state: 0" in out
    return re.search(r"state hash: ([0-9a-f]{16})", out).group(1)


def python_demo_hash(agents, steps, dims, combine=cs.BLEND, **kwargs):
    scenario = DemoScenario(agents, dims, combine=combine, **kwargs)
    for _ in range(steps):
        scenario.step()
    return scenario.state_hash()


@pytest.mark.parametrize("dims", [2, 3])
def test_mixed_crowd_hash_matches_the_c_demo(dims):
    assert python_demo_hash(20000, 40, dims) == c_demo_hash(20000, 40, dims)


@pytest.mark.parametrize("separation", [0.0, 0.6])
def test_hash_matches_with_other_separations(separation):
    assert (python_demo_hash(9000, 30, 2, separation=separation)
            == c_demo_hash(9000, 30, 2, separation=separation))


def test_priority_crowd_hash_matches_the_c_demo():
    assert (python_demo_hash(7001, 30, 2, combine=cs.PRIORITY, tile=100, threads=2)
            == c_demo_hash(7001, 30, 2, combine="priority"))


def test_every_isa_gives_the_same_bits():
    reference = None
    for isa in cs.supported_isas():
        cs.force_isa(isa)
        assert cs.active_isa() == isa
        h = python_demo_hash(3001, 25, 3)
        reference = reference or h
        assert h == reference, isa


def test_active_isa_is_the_c_librarys_best():
    """The extension links the library with its per-ISA kernels and dispatch:
    Python runs on the ISA the C demo runs on (AVX-512 on an AVX-512 CPU)."""
    out = run_demo("--agents", 100, "--steps", 1)
    c_isa, c_supported = re.search(r"ISA: (\w+) \(this build and CPU support: ([\w ]+)\)",
                                   out).groups()
    assert cs.active_isa() == c_isa
    assert cs.supported_isas() == c_supported.split()
    assert cs.supported_isas()[-1] == c_isa
    flags = open("/proc/cpuinfo").read() if __import__("os").path.exists(
        "/proc/cpuinfo") else ""
    if all(f in flags.split() for f in ("avx512f", "avx512dq", "avx512bw", "avx512vl")):
        assert c_isa == "avx512"


def test_random_array_is_the_librarys_generator():
    index = np.arange(0, 5000, 7, dtype=np.uint32)
    for seed, tick, axis in ((1, 0x51A7, 0), (7, 3, 2), (0xFFFFFFFF, 0xFFFFFFFF, 1)):
        ours = random_array(seed, index, tick, axis)
        theirs = [cs.random(seed, int(i), tick, axis) for i in index]
        assert ours.tolist() == theirs
