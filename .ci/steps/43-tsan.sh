#!/usr/bin/env bash
# ThreadSanitizer over the tests whose work runs on the library's worker
# pool or OpenMP teams (the step's avoidance stage among them) and the
# host-thread test of one grid shared by concurrent steps (tsan-openmp:
# clang 14's libomp, whose Archer tool tells TSan about OpenMP's barriers;
# halts on the first report). The pool is the default; the step tests run
# again on OpenMP teams (CROWDSTEER_THREADS). The tsan preset (OpenMP off)
# is left to developers: its test_limits alone takes 3 minutes.
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/deps clang-14 libclang-rt-14-dev libomp-14-dev
cmake --preset tsan-openmp >/dev/null
cmake --build --preset tsan-openmp -j2
ctest --preset tsan-openmp -j2
CROWDSTEER_THREADS=openmp ctest --preset tsan-openmp -j2 -R '^(test_step|test_step_avoid|test_neighbours_step)$'
