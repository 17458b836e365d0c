#!/usr/bin/env bash
# CI smoke test of the benchmarks: they build in the release preset and every
# kernel at 1024 agents runs once without error. No timing is checked.
set -euo pipefail
cd "$(dirname "$0")/../.."
cmake --preset release >/dev/null
# (grep without -q reads the whole list: -q would stop at the first match and
# kill ninja with SIGPIPE, which pipefail reports as "not configured".)
if ! cmake --build --preset release --target help | grep crowdsteer-bench >/dev/null; then
  # bench/CMakeLists.txt says why (no Google Benchmark, shared library, ...).
  echo "bench smoke: crowdsteer-bench not configured in this build, skipped"
  exit 0
fi
cmake --build --preset release --target crowdsteer-bench
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# Every registered kernel, ISA and baseline at the smallest count, a few
# milliseconds each; the report renders the JSON so that script is tested too.
bench/report --binary build/release/bench/crowdsteer-bench \
  --filter '/1024(/real_time)?$' --min-time 0.001 --json-out "$out" >/dev/null
python3 - "$out" <<'PY'
import json, sys
data = json.load(open(sys.argv[1]))
runs = data["benchmarks"]
failed = [b["name"] for b in runs if b.get("error_occurred")]
kernels = {b["name"].split("/")[2] for b in runs}
assert not failed, "benchmarks failed: %s" % failed
assert {"scalar", "userloop", "native"} <= kernels, kernels
print("bench smoke: %d benchmarks ran (%s)" % (len(runs), ", ".join(sorted(kernels))))
PY
# bench/compare's rounds and table, on the same binary twice.
bench/compare build/release/bench/crowdsteer-bench build/release/bench/crowdsteer-bench \
  --filter '^grid_build/2d/scalar/1024$' --rounds 2 --min-time 0.001 2>/dev/null >"$out"
grep -q '^| grid_build/2d/scalar/1024 | [0-9.e+-]* ([0-9.e+-]*) | [0-9.e+-]* ([0-9.e+-]*) | [0-9.]* |$' "$out"
echo "bench smoke: bench/compare ran"
# bench/busy_core's table, one round of two steps (taskset: util-linux).
bench/busy_core 1 2 >"$out"
test "$(grep -c 'x one thread$' "$out")" = 10
echo "bench smoke: bench/busy_core ran"
