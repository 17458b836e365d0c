#!/usr/bin/env bash
# ThreadSanitizer over the tests whose work runs on the library's worker
# pool or OpenMP teams (the step's avoidance stage among them) and the
# host-thread test of one grid shared by concurrent steps (tsan-openmp:
# clang 14's libomp, whose Archer tool tells TSan about OpenMP's barriers;
# halts on the first report). The pool is the default; the step tests run
# again on OpenMP teams (CROWDSTEER_THREADS). The tsan preset (OpenMP off)
# is left to developers: its test_limits alone takes 3 minutes.
# The neighbour suites run once per SIMD ISA: their unsuffixed copy
# repeats the best ISA's, and the scalar backend's threads are the same
# pool and tiles as the others' (its copy was the slowest, 30 s here).
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/deps clang-14 libclang-rt-14-dev libomp-14-dev
cmake --preset tsan-openmp >/dev/null
cmake --build --preset tsan-openmp -j2
ctest --preset tsan-openmp -j2 -E '^test_neighbours_(equivalence|validation)(\.scalar)?$'
CROWDSTEER_THREADS=openmp ctest --preset tsan-openmp -j2 -R '^(test_step|test_step_avoid|test_neighbours_step)$'
