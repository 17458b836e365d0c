#!/usr/bin/env bash
# The web: Debian's emscripten builds the library for WebAssembly (the wasm
# preset: scalar and simd128 backends; wasm-scalar: scalar only) and Node
# runs the C tests that prove its bits (the x86 golden hashes, every ISA
# against the reference, neighbours, steps, avoidance, the page's crowd),
# then the npm package's tests (node --test), an offline install of its
# `npm pack` tarball, and the demo page in headless Chromium (the state
# hashes of its two crowds against the native ones; the screenshots
# docs/images/web-demo.png and web-floor.png).
# Only the tests that show WebAssembly's own bits are built here (the whole
# suite under Node: cmake --build --preset wasm; ctest --preset wasm).
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/deps emscripten nodejs chromium libsimde-dev cmake ninja-build node-typescript
# Debian's npm, unless the Node installed brings its own (NodeSource's).
command -v npm >/dev/null || tools/deps npm
export NODE_PATH="${NODE_PATH:+$NODE_PATH:}/usr/share/nodejs"
tests=(test_golden test_equivalence test_web_scenario test_neighbours_equivalence
       test_neighbours_step test_step test_orca_hand test_step_avoid test_fpenv
       test_behaviour_api test_adv_field)
js/build -j"$(nproc)"
cmake --build --preset wasm -j"$(nproc)" --target "${tests[@]}" crowdsteer-demo
regex="^($(IFS='|'; echo "${tests[*]}"))(\\.(scalar|simd128))?\$"
ctest --preset wasm -j"$(nproc)" -R "$regex"
# The demo's state hash (every behaviour, separation, then ORCA with
# obstacles too, then fields and pathways) under Node equals the native
# demo's (tools/test built it).
native=build/release/examples/crowdsteer-demo
[ -x "$native" ] || { echo "45-web: $native missing (tools/test builds it)" >&2; exit 1; }
for options in "--agents 20000 --steps 20" "--agents 4000 --steps 10 --avoid on --obstacles" \
               "--agents 3000 --steps 10 --dims 3 --avoid on" \
               "--agents 4000 --steps 10 --navigate --obstacles --avoid on"; do
  # shellcheck disable=SC2086 # options are words
  a=$("$native" $options --threads 1 | grep 'state hash')
  # shellcheck disable=SC2086
  b=$(node --no-experimental-fetch build/wasm/examples/crowdsteer-demo.js $options | grep 'state hash')
  [ -n "$a" ] && [ "$a" = "$b" ] || { echo "45-web: demo $options: native '$a', wasm '$b'" >&2; exit 1; }
  echo "demo $options: $b (native and wasm)"
done
(cd js && node --test test/)
# The TypeScript declarations against every documented use (compiled only).
(cd js && tsc --noEmit --strict --target es2022 --module es2022 --moduleResolution node \
  test/types.ts)
js/test/pack.sh
node js/demo/check.mjs
