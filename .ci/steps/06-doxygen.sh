#!/usr/bin/env bash
# The API reference builds from the public headers without a single Doxygen
# warning: every public function, type, field, enum value and macro is
# documented (docs/Doxyfile.in sets WARN_AS_ERROR).
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/deps doxygen
cmake --preset release >/dev/null
cmake --build --preset release --target docs
test -s build/release/docs/html/index.html
