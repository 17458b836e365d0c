#!/usr/bin/env bash
# Valgrind memcheck over the release test suite with CROWDSTEER_ISA=avx2 (the
# widest ISA valgrind can run): every test binary registered for avx2, in its
# own ctest working directory. Any error or leak fails the step.
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/deps valgrind
cmake --preset release >/dev/null
cmake --build --preset release -j2 >/dev/null
grep -qw avx2 /proc/cpuinfo || { echo "41-valgrind: no AVX2 on this CPU, skipped"; exit 0; }
# Tests too slow under valgrind's ~50x slowdown for a CI step (they run
# natively and under ASan already): none so far.
# test_streaming works on 400 MB at the release threshold (minutes under
# valgrind); the asan step runs it at a tiny threshold, every split included.
skip_re='^test_streaming$'
failed=0
ran=0
for test in $(ctest --preset release -N -R '\.avx2$' | sed -n 's/^ *Test *#[0-9]*: \(.*\)\.avx2$/\1/p'); do
  [[ $test =~ $skip_re ]] && continue
  exe=$(find build/release -type f -executable -name "$test" -print -quit)
  [ -n "$exe" ] || { echo "41-valgrind: no binary for $test"; failed=1; continue; }
  start=$SECONDS
  if (cd "$(dirname "$exe")" && CROWDSTEER_ISA=avx2 valgrind -q --error-exitcode=1 \
        --leak-check=full --errors-for-leak-kinds=definite,indirect \
        "./$(basename "$exe")" >/tmp/41-valgrind-$test.log 2>&1); then
    echo "41-valgrind: $test clean ($((SECONDS - start)) s)"
  else
    rc=$?
    # 77 is the suite's "skipped" code (a test that needs something absent).
    if [ $rc -eq 77 ]; then echo "41-valgrind: $test skipped"; continue; fi
    echo "41-valgrind: $test FAILED (exit $rc)"; tail -40 /tmp/41-valgrind-$test.log
    failed=1
  fi
  ran=$((ran + 1))
done
echo "41-valgrind: $ran test binaries checked"
exit $failed
