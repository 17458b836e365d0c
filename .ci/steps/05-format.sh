#!/usr/bin/env bash
# Formatting: every C and C++ file git tracks must be exactly what
# clang-format (Debian 12's, version 14) makes of it with the repository's
# .clang-format. Prints the files that differ and fails; fix them with
#   git ls-files '*.c' '*.h' '*.cpp' | xargs clang-format -i
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/deps clang-format
status=0
while IFS= read -r file; do
  if ! clang-format --dry-run --Werror "$file" >/dev/null 2>&1; then
    echo "not formatted: $file (clang-format -i $file)"
    status=1
  fi
done < <(git ls-files '*.c' '*.h' '*.cpp')
exit $status
