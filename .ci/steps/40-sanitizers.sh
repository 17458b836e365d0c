#!/usr/bin/env bash
# Sanitizers: the whole test suite built by clang with ASan + UBSan (the asan
# preset), each test once per ISA (the isa_repeat copies left out: their
# test runs every ISA already; and the isa_best runs, which an ISA's copy
# repeats: see tests/CMakeLists.txt). Without AVX-512 on the CPU, the
# 16-lane backend is built emulated on AVX2 so its code runs under the
# sanitizers too. The asan preset calls ASan's checks out of line
# (-fsanitize-address-outline-instrumentation): the same checks, the build
# 112 s instead of 179 (the AVX-512 kernels.c alone 46 s instead of 92), the
# tests 175 s instead of 137.
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/deps clang libclang-rt-14-dev
emulate=OFF
grep -qw avx512f /proc/cpuinfo || emulate=ON
cmake --preset asan -DCROWDSTEER_AVX512_EMULATED=$emulate >/dev/null
cmake --build --preset asan -j2
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# (pictures.viewer_smoke sets its own ASAN_OPTIONS without leak detection:
# SDL's D-Bus and GL libraries leak; see examples/pictures.cmake.)
# Two per-ISA copies left out besides: test_neighbours_equivalence.scalar
# (every other copy runs the scalar backend's grid walks over its 300,000
# agents as its reference) and test_pictures but for .avx512 (the pictures'
# own code is the same in every copy; the kernels' memory is the
# equivalence tests'): 1-2.5 minutes of CPU under ASan here. And the
# scenarios' several-seed quality checks (scenarios_quality): their
# one-seed copies run. And two scenario programs whose
# calls the unit tests and the other scenarios make on smaller crowds
# (the 3D sphere of 812 agents to completion, the evacuation on every ISA
# and thread count): about a minute under ASan here. And the scalar copy
# of test_step_avoid (50 s under ASan here, 3x a SIMD copy): the scalar
# avoidance runs under ASan in test_orca_hand.scalar, test_avoid_fuzz (every
# ISA on hostile inputs) and the fuzz step.
# Left out under the sanitizers, for CI's time (each runs in the release
# build): the instruction checks of the release objects (disasm_*), the
# source's structure, the viewer's key scripts and all but two of the MPI
# runs (the MPI example is one program; its ranks run the library code the
# one-process tests run): about 110 s of test time, 55 s of wall time.
ctest --preset asan -j2 -LE 'isa_repeat|isa_best|scenarios_quality|mpi' \
  -E '^test_neighbours_equivalence\.scalar$|^test_pictures\.(scalar|sse4|avx2)$|^scenarios\.sphere_812$|^evacuation\.isa_threads$|^test_step_avoid\.scalar$|^disasm_|^structure\.|^pictures\.viewer_keys_'
ctest --preset asan -j2 -R '^mpi\.(avoid\.obstacles|navigate\.obstacles)\.np2$'
