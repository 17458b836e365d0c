#!/usr/bin/env bash
# ThreadSanitizer: the tests with host threads (tsan preset, OpenMP off:
# libgomp is not instrumented), then the tests whose work runs on OpenMP
# teams (tsan-openmp: clang 14's libomp, whose Archer tool tells TSan about
# OpenMP's barriers). Both halt on the first report.
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/deps clang clang-14 libclang-rt-14-dev libomp-14-dev
for preset in tsan tsan-openmp; do
  cmake --preset $preset >/dev/null
  cmake --build --preset $preset -j2
  ctest --preset $preset -j2
done
