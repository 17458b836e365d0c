#!/usr/bin/env bash
# Valgrind memcheck over the release test suite with CROWDSTEER_ISA=avx2 (the
# widest ISA valgrind can run): every test binary registered for avx2, in its
# own ctest working directory, one per core at a time. Any error or leak
# fails the step.
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/deps valgrind
cmake --preset release >/dev/null
cmake --build --preset release -j2 >/dev/null
grep -qw avx2 /proc/cpuinfo || { echo "41-valgrind: no AVX2 on this CPU, skipped"; exit 0; }
# test_streaming works on 400 MB at the release threshold (minutes under
# valgrind's ~50x slowdown); the asan step runs it at a tiny threshold,
# every split included. test_limits (stack depths, 51 s here) and
# test_fpenv (FP modes, 22 s) test no memory of their own beyond what the
# other tests cover; the asan step runs both.
skip_re='^(test_streaming|test_limits|test_fpenv)$'

# check_one TEST: exit 0 when clean or skipped (77, the suite's "skipped"
# code), 1 with the log's tail otherwise.
check_one() {
  local test=$1 exe start rc=0
  exe=$(find build/release -type f -executable -name "$test" -print -quit)
  [ -n "$exe" ] || { echo "41-valgrind: no binary for $test"; return 1; }
  start=$SECONDS
  (cd "$(dirname "$exe")" && CROWDSTEER_ISA=avx2 valgrind -q --error-exitcode=1 \
      --leak-check=full --errors-for-leak-kinds=definite,indirect \
      "./$(basename "$exe")" >"/tmp/41-valgrind-$test.log" 2>&1) || rc=$?
  case $rc in
    0) echo "41-valgrind: $test clean ($((SECONDS - start)) s)" ;;
    77) echo "41-valgrind: $test skipped" ;;
    *) echo "41-valgrind: $test FAILED (exit $rc)"; tail -40 "/tmp/41-valgrind-$test.log"
       return 1 ;;
  esac
}
export -f check_one

tests=$(ctest --preset release -N -R '\.avx2$' |
  sed -n 's/^ *Test *#[0-9]*: \(.*\)\.avx2$/\1/p' | grep -Ev "$skip_re")
# The slowest under valgrind (20-40 s each here) first, so that no core is
# left with one of them at the end.
slow='^(test_neighbours_equivalence|test_step_avoid|test_tasks)$'
tests="$(grep -E "$slow" <<<"$tests" || true)
$(grep -Ev "$slow" <<<"$tests")"
echo "41-valgrind: $(wc -l <<<"$tests") test binaries"
printf '%s\n' $tests | xargs -P "$(nproc)" -I{} bash -c 'check_one {}'
