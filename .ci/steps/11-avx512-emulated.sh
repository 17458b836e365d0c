#!/usr/bin/env bash
# The 16-lane backend on machines without AVX-512: built through SIMDe's
# emulation on AVX2 and checked bit for bit against the reference. On a CPU
# with AVX-512 the release suite already ran the native build, and the
# emulation only tests itself: skipped (it cost 4 minutes of CI).
set -euo pipefail
cd "$(dirname "$0")/../.."
if grep -qw avx512f /proc/cpuinfo; then
  echo "11-avx512-emulated: skipped, this CPU runs the native avx512 backend"
  exit 0
fi
cmake --preset avx512-emulated >/dev/null
cmake --build --preset avx512-emulated
ctest --preset avx512-emulated -j"$(nproc)" -R 'avx512|^test_equivalence$'
