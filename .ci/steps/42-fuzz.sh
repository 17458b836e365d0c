#!/usr/bin/env bash
# Fuzzing: the libFuzzer harness (fuzz/) of the asan preset's build (clang +
# ASan + UBSan, already built by the sanitizer step, so the library is
# compiled once for both) runs for a bounded time on a copy of the seed
# corpus, two workers (libFuzzer's fork mode, one a core: 35 s of wall
# time fuzz about as many inputs as 70 s of one worker). Any crash,
# sanitizer report or broken property fails the step; the input that did
# it is kept in build/asan/fuzz-findings/ to become a test in
# tests/reliability/inputs. The asan preset streams every
# output (a 1-byte threshold), so every OVERWRITE call the fuzzer makes also
# goes through the non-temporal store split (src/kernels/kernels.c).
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/deps clang libclang-rt-14-dev
seconds=${CROWDSTEER_FUZZ_SECONDS:-35}
emulate=OFF
grep -qw avx512f /proc/cpuinfo || emulate=ON
cmake --preset asan -DCROWDSTEER_AVX512_EMULATED=$emulate >/dev/null
cmake --build --preset asan -j2 --target fuzz_crowdsteer
work=build/asan/fuzz-corpus findings=build/asan/fuzz-findings
rm -rf "$work" "$findings"
mkdir -p "$work" "$findings"
cp fuzz/corpus/* tests/reliability/inputs/* "$work"/
set +e
build/asan/fuzz_crowdsteer -fork=2 -max_total_time="$seconds" -timeout=10 \
  -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$findings"/ "$work" \
  2>&1 | grep -v -E '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse)|^ +NEW_FUNC' | tail -40
status=${PIPESTATUS[0]}
set -e
if [ "$status" -ne 0 ] || [ -n "$(ls -A "$findings")" ]; then
  echo "42-fuzz: FAILED; reproduce with build/asan/fuzz_crowdsteer $findings/*"
  exit 1
fi
