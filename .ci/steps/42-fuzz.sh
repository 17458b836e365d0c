#!/usr/bin/env bash
# Fuzzing: builds the libFuzzer harness (fuzz/, clang + ASan + UBSan) and runs
# it for a bounded time on a copy of the seed corpus, one worker. Any crash,
# sanitizer report or broken property fails the step; the input that did it
# is kept in build/fuzz/findings/ to become a test in tests/reliability/inputs.
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/deps clang libclang-rt-14-dev
seconds=${CROWDSTEER_FUZZ_SECONDS:-60}
emulate=OFF
grep -qw avx512f /proc/cpuinfo || emulate=ON
# A 1-byte streaming threshold: every OVERWRITE call the fuzzer makes also
# goes through the non-temporal store split (src/kernels/kernels.c).
cmake -S fuzz -B build/fuzz -G Ninja -DCMAKE_C_COMPILER=clang \
  -DCROWDSTEER_AVX512_EMULATED=$emulate -DCROWDSTEER_STREAM_MIN_BYTES=1 >/dev/null
cmake --build build/fuzz -j2
rm -rf build/fuzz/corpus build/fuzz/findings
mkdir -p build/fuzz/corpus build/fuzz/findings
cp fuzz/corpus/* tests/reliability/inputs/* build/fuzz/corpus/
set +e
build/fuzz/fuzz_crowdsteer -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 -artifact_prefix=build/fuzz/findings/ build/fuzz/corpus \
  2>&1 | grep -v -E '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse)' | tail -40
status=${PIPESTATUS[0]}
set -e
if [ "$status" -ne 0 ] || [ -n "$(ls -A build/fuzz/findings)" ]; then
  echo "42-fuzz: FAILED; reproduce with build/fuzz/fuzz_crowdsteer build/fuzz/findings/*"
  exit 1
fi
