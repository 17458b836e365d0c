#!/usr/bin/env bash
# aarch64: cross-compile with Debian's gcc-aarch64-linux-gnu and run the test
# suite under qemu-aarch64 (NEON and scalar must give the x86 bits: see
# tests/equivalence/test_golden.c).
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/deps gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user libsimde-dev
cmake --preset aarch64 >/dev/null
cmake --build --preset aarch64
# Under qemu (about 90x slower) only what the x86 runs cannot show: the
# tests without an ISA suffix run the best ISA, NEON, or every ISA in turn;
# the .neon and isa_repeat copies (tests/CMakeLists.txt) would repeat them.
# Of the .scalar copies only test_golden's: the ARM scalar build's bits
# against the x86 ones (the others check the scalar backend's logic, which
# the x86 runs check from the same source; test_neighbours_equivalence's
# took 37 s here). The physics test's bits are those the equivalence tests
# check here, and it is the slowest under qemu.
# Of avoidance, the hand cases and the crowd's golden hash (test_orca_hand)
# and the obstacles: the step's composition, the walls runs, the exact
# predicates' thousands of cases and the linear programs against a solver
# in double (2D and 3D: 24 s for 3D alone) took minutes under qemu and
# check no ARM-specific path (the ORCA code is one scalar source and the scan's NEON
# lanes are compared in test_orca_hand). test_tasks forks a child of a
# process with worker threads, which qemu-user itself aborts on (its
# assertion cpu == current_cpu); the pools are the same C on x86, where it
# runs (and under ThreadSanitizer). test_nav_fuzz compares every ISA with
# the reference on hostile inputs, 27 s under qemu: test_follow and
# test_path_equivalence show NEON's bits there. test_limits runs as
# test_limits.quick (4 minutes otherwise: 100,000 one-agent tiles under
# qemu). test_neighbours_validation (refusals before any kernel runs: one
# C source on every ISA, 57 s under qemu) and test_pictures (the pictures'
# own drawing code, 53 s) show no ARM bits; the x86 runs check both.
ctest --preset aarch64 -j"$(nproc)" \
  -E '\.(neon|scalar)$|^test_neighbours_physics$|^test_(step_avoid|walls_small|exact|orca3?_programs|avoid_fuzz|tasks|nav_fuzz|limits)$|^test_(neighbours_validation|pictures)$' \
  -LE isa_repeat
ctest --preset aarch64 -R '^test_golden\.scalar$'
