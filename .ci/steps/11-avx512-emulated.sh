#!/usr/bin/env bash
# The 16-lane backend on machines without AVX-512: built through SIMDe's
# emulation on AVX2 and checked bit for bit against the reference. On a CPU
# with AVX-512 the release suite already ran the native build; this still
# runs there, so that a change which breaks the emulation (the portable
# branches of src/kernels/vec.h) fails on every CI machine, not only on one
# without AVX-512: there only the suites that sweep the kernels against the
# reference (every behaviour, neighbours and their forms, avoidance, paths,
# bounds, the fuzz replays), whose .avx512 copies the native build ran in
# full; building the other 37 took most of the step's time. gcc builds
# every backend of this preset at -O1 (cmake/Backends.cmake).
set -euo pipefail
cd "$(dirname "$0")/../.."
cmake --preset avx512-emulated >/dev/null
if grep -qw avx512f /proc/cpuinfo; then
  tests=(test_equivalence test_golden test_step test_neighbours_equivalence
         test_neighbours_step test_neighbours_forms test_neighbours_fuzz test_avoid_nearest
         test_orca_hand test_avoid_fuzz test_path_equivalence test_fuzz_replay test_bounds)
  cmake --build --preset avx512-emulated --target "${tests[@]}"
  ctest --preset avx512-emulated -j"$(nproc)" \
    -R "^($(IFS='|'; echo "${tests[*]}"))\\.avx512\$|^test_equivalence\$"
else
  cmake --build --preset avx512-emulated
  ctest --preset avx512-emulated -j"$(nproc)" -R 'avx512|^test_equivalence$'
fi
