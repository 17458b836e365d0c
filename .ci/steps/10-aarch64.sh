#!/usr/bin/env bash
# aarch64: cross-compile with Debian's gcc-aarch64-linux-gnu and run the test
# suite under qemu-aarch64 (NEON and scalar must give the x86 bits: see
# tests/equivalence/test_golden.c).
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/deps gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user libsimde-dev
cmake --preset aarch64 >/dev/null
cmake --build --preset aarch64
# The tests without an ISA suffix run the best one, NEON, already: the
# .neon copies would only repeat them under qemu (about 90x slower).
ctest --preset aarch64 -j"$(nproc)" -E '\.neon$'
