#!/usr/bin/env bash
# Walls hold at scale: 100,000 agents pushing into walls, corners and
# doorways for 1,000 steps, every move checked exactly (about 80 s on two
# cores). Uses the release build tools/test made.
set -euo pipefail
cd "$(dirname "$0")/../.."
build/release/tests/avoid/test_walls_stress 100000 1000
