#!/usr/bin/env bash
# Pictures and viewer: the pixel-hash tests, demo --pictures, and the SDL2
# viewer run headless under Xvfb in scripted mode with its screenshot checked.
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/deps libsdl2-dev xvfb xauth libpng-dev
# Reconfigure: SDL2 or libpng may have just been installed.
cmake --preset release >/dev/null
cmake --build --preset release --target crowdsteer-demo crowdsteer-viewer test_pictures \
  pictures_bmp_check
ctest --preset release -R '^(test_pictures|pictures\.)' --output-on-failure
out=build/release/pictures-ci
rm -rf "$out" && mkdir -p "$out"
xvfb-run -a -s "-screen 0 1280x720x24" build/release/examples/crowdsteer-viewer \
  --agents 100000 --behaviour mixed --script 60 --screenshot "$out/viewer.bmp"
build/release/tests/pictures/pictures_bmp_check "$out/viewer.bmp" 5000
