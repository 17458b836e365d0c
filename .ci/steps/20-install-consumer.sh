#!/usr/bin/env bash
# CI step: docs/install.md, word for word (its command blocks are the files
# in tests/install/readme/, which a ctest test keeps equal to the page): a
# library-only static build and a shared build installed into
# temporary prefixes, each used by a C and a C++-only CMake project and by
# plain pkg-config; the newcomer example (examples/chase) against the static
# install; the shared library's SONAME and exported symbols; and the Python
# package installed as docs/python.md shows.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
# Under .ci/run, whose release build filled ccache: the library builds
# below compile what it compiled (the same flags), from the cache.
if [ -n "${CCACHE_DIR:-}" ] && command -v ccache >/dev/null; then
  export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache
fi
tools/deps build-essential cmake libsimde-dev pkg-config binutils

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "install-consumer: FAIL: $*" >&2; exit 1; }
readme() { bash -euo pipefail "$root/tests/install/readme/$1"; }

# The public functions the header declares with CROWDSTEER_API.
declared_api() {
  cat "$root"/include/crowdsteer*.h | tr '\n' ' ' |
    grep -o 'CROWDSTEER_API[^;(]*(' | grep -o 'crowdsteer_[a-z0-9_]*($' |
    tr -d '(' | sort -u
}

# consumers KIND: docs/install.md's CMake (C, then C++-only) and pkg-config
# consumers against $PREFIX, each in a directory of its own.
consumers() {
  local kind=$1
  for lang in c cxx; do
    echo "--- $kind: CMake consumer, $lang project"
    local dir="$work/cmake-$lang-$kind" source=consumer
    [ "$lang" = c ] || source=consumer_cxx
    mkdir -p "$dir" && cp -r "$root/tests/install/$source" "$dir/myapp"
    (cd "$dir" && readme cmake-consumer.sh)
    if [ "$lang" = cxx ] && grep -q '^CMAKE_C_COMPILER:' "$dir/myapp/build/CMakeCache.txt"; then
      fail "the C++-only consumer enabled C"
    fi
  done
  echo "--- $kind: pkg-config consumer (plain --libs), next to the C project"
  (cd "$work/cmake-c-$kind" && PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig" pkg-config --libs crowdsteer &&
    readme "pkg-config-$kind.sh")
}

echo "=== static (the default): library-only build and install"
export PREFIX="$work/static"
readme install-static.sh >/dev/null
if grep -q '^CMAKE_CXX_COMPILER:' build/lib/CMakeCache.txt; then
  fail "the library-only configure enabled C++"
fi
for header in crowdsteer.h crowdsteer_avoid.h crowdsteer_bounds.h crowdsteer_flock.h crowdsteer_ids.h crowdsteer_nav.h \
              crowdsteer_path.h crowdsteer_query.h; do
  [ -f "$PREFIX/include/$header" ] || fail "$header not installed"
done
[ -f "$PREFIX/include/crowdsteer.h" ] && [ -f "$PREFIX/include/crowdsteer_avoid.h" ] ||
  fail "header not installed"
[ -f "$PREFIX/lib/libcrowdsteer.a" ] || fail "libcrowdsteer.a not installed"
if find "$PREFIX" -name 'libcrowdsteer.so*' | grep -q .; then
  fail "static install also holds a shared library"
fi
consumers static
echo "--- static: the newcomer example, examples/chase"
readme chase.sh | tee "$work/chase.out"
grep -Eq ': [1-9][0-9]* catches, 0 non-finite values$' "$work/chase.out" ||
  fail "examples/chase: no catches"

echo "=== shared: library-only build and install"
export PREFIX="$work/shared"
readme install-shared.sh >/dev/null
so=$(find "$PREFIX" -name 'libcrowdsteer.so.*.*.*' | head -n1)
[ -n "$so" ] || fail "no versioned libcrowdsteer.so installed"
libdir=$(dirname "$so")
[ -L "$libdir/libcrowdsteer.so" ] || fail "libcrowdsteer.so link missing"

major=$(sed -n 's/^#define CROWDSTEER_VERSION_MAJOR \([0-9]*\).*/\1/p' include/crowdsteer.h)
soname=$(readelf -d "$so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
objdump -p "$so" | grep -q "SONAME *libcrowdsteer.so.$major\$" || fail "objdump: bad SONAME"
[ "$soname" = "libcrowdsteer.so.$major" ] || fail "SONAME is '$soname', want libcrowdsteer.so.$major"
[ -e "$libdir/$soname" ] || fail "$soname link missing"
echo "SONAME: $soname"
readelf -d "$so" | grep -q 'BIND_NOW' || fail "the shared library is not linked with -z now"

# Exactly the declared API is exported: nothing internal (cs_*, kernels),
# and no declared function missing.
nm -D --defined-only "$so" | awk '{print $NF}' | sort -u >"$work/exported"
if grep -v '^crowdsteer_' "$work/exported"; then
  fail "symbols above are exported but are not crowdsteer_*"
fi
declared_api >"$work/declared"
[ -s "$work/declared" ] || fail "could not read the API from include/crowdsteer.h"
if ! diff -u "$work/declared" "$work/exported"; then
  fail "exported symbols differ from the CROWDSTEER_API declarations (diff above)"
fi
echo "exports: $(wc -l <"$work/exported") crowdsteer_* functions, nothing else"

consumers shared
for exe in cmake-c-shared/myapp/build/myapp cmake-cxx-shared/myapp/build/myapp cmake-c-shared/myapp/app; do
  readelf -d "$work/$exe" | grep -q "NEEDED.*\[$soname\]" ||
    fail "$exe is not linked to $soname"
done
echo "=== Python: docs/python.md's install, setup.py building the library with CMake"
# tools/test links the release preset's library into the package
# (CROWDSTEER_LIBRARY_DIR); this is the path a user takes: setup.py
# configures and builds the library itself. Its options are the static
# library-only build's above, so pointed at that build it reuses its objects.
tools/deps python3-dev python3-numpy python3-pip python3-venv python3-setuptools python3-wheel python3-pytest
/usr/bin/python3 -m venv --system-site-packages "$work/venv"
CROWDSTEER_CMAKE_BUILD_DIR="$root/build/lib" \
  "$work/venv/bin/pip" install --quiet --no-build-isolation --no-index ./python
(cd python && "$work/venv/bin/python" -m pytest -q \
  -p no:cacheprovider tests/test_readme.py) || fail "the Python package as docs/python.md installs it"
echo "=== install consumer: docs/install.md, static and shared, C and C++ CMake, pkg-config, examples/chase, docs/python.md: OK"
