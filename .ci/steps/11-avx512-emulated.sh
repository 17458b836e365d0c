#!/usr/bin/env bash
# The 16-lane backend on machines without AVX-512: built through SIMDe's
# emulation on AVX2 and checked bit for bit against the reference. On a CPU
# with AVX-512 the release suite already ran the native build; this still
# runs there, so that a change which breaks the emulation (the portable
# branches of src/kernels/vec.h) fails on every CI machine, not only on one
# without AVX-512: there without the copies whose subject is not the lane
# logic (stack limits, streaming stores, FP environment), which the native
# build ran. gcc builds every backend of this preset at -O1
# (cmake/Backends.cmake).
set -euo pipefail
cd "$(dirname "$0")/../.."
cmake --preset avx512-emulated >/dev/null
cmake --build --preset avx512-emulated
skip='^$'
grep -qw avx512f /proc/cpuinfo && skip='^(test_limits|test_streaming|test_fpenv)\.avx512$'
ctest --preset avx512-emulated -j"$(nproc)" -R 'avx512|^test_equivalence$' -E "$skip"
