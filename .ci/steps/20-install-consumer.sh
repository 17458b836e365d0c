#!/usr/bin/env bash
# CI step: installs crowdsteer (static from the release build, then a shared
# build) into temporary prefixes and builds and runs tests/install/consumer
# against each, through find_package(crowdsteer) and through pkg-config.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
tools/deps build-essential cmake ninja-build libsimde-dev pkg-config binutils

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
jobs=$(nproc)
[ "$jobs" -le 2 ] || jobs=2 # shared build machines: stay polite
fail() { echo "install-consumer: FAIL: $*" >&2; exit 1; }

# The public functions the header declares with CROWDSTEER_API.
declared_api() {
  tr '\n' ' ' <"$root/include/crowdsteer.h" |
    grep -o 'CROWDSTEER_API[^;(]*(' | grep -o 'crowdsteer_[a-z0-9_]*($' |
    tr -d '(' | sort -u
}

# consumer KIND PREFIX: builds and runs the consumer via CMake and pkg-config.
consumer() {
  local kind=$1 prefix=$2
  echo "--- $kind: CMake consumer (find_package)"
  cmake -S tests/install/consumer -B "$work/consumer-$kind" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
  cmake --build "$work/consumer-$kind" >/dev/null
  "$work/consumer-$kind/consumer"

  echo "--- $kind: pkg-config consumer"
  local pc_dir libdir flags
  pc_dir=$(dirname "$(find "$prefix" -name crowdsteer.pc | head -n1)")
  [ -n "$pc_dir" ] || fail "$kind: no crowdsteer.pc installed"
  libdir=$(PKG_CONFIG_PATH="$pc_dir" pkg-config --variable=libdir crowdsteer)
  if [ "$kind" = static ]; then
    # A static library's own dependencies (-lm) are in Libs.private.
    flags=$(PKG_CONFIG_PATH="$pc_dir" pkg-config --static --cflags --libs crowdsteer)
  else
    flags="$(PKG_CONFIG_PATH="$pc_dir" pkg-config --cflags --libs crowdsteer) -Wl,-rpath,$libdir"
  fi
  echo "pkg-config: $flags"
  # shellcheck disable=SC2086 # the flags are a word list on purpose
  cc -std=c11 -Wall -Wextra -Werror tests/install/consumer/main.c $flags \
    -o "$work/consumer-$kind-pc"
  "$work/consumer-$kind-pc"
}

echo "=== static: install the release build"
cmake --preset release >/dev/null
cmake --build --preset release --target crowdsteer >/dev/null
cmake --install build/release --prefix "$work/static" >/dev/null
[ -f "$work/static/include/crowdsteer.h" ] || fail "header not installed"
find "$work/static" -name 'libcrowdsteer.a' | grep -q . || fail "libcrowdsteer.a not installed"
if find "$work/static" -name 'libcrowdsteer.so*' | grep -q .; then
  fail "static install also holds a shared library"
fi
consumer static "$work/static"

echo "=== shared: -DBUILD_SHARED_LIBS=ON build and install"
cmake -S . -B build/ci-shared -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DBUILD_SHARED_LIBS=ON -DCROWDSTEER_BUILD_TESTS=OFF -DCROWDSTEER_BUILD_DEMO=OFF \
  -DCROWDSTEER_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build build/ci-shared -j"$jobs" >/dev/null
cmake --install build/ci-shared --prefix "$work/shared" >/dev/null
so=$(find "$work/shared" -name 'libcrowdsteer.so.*.*.*' | head -n1)
[ -n "$so" ] || fail "no versioned libcrowdsteer.so installed"
libdir=$(dirname "$so")
[ -L "$libdir/libcrowdsteer.so" ] || fail "libcrowdsteer.so link missing"

major=$(sed -n 's/^#define CROWDSTEER_VERSION_MAJOR \([0-9]*\).*/\1/p' include/crowdsteer.h)
soname=$(readelf -d "$so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
objdump -p "$so" | grep -q "SONAME *libcrowdsteer.so.$major\$" || fail "objdump: bad SONAME"
[ "$soname" = "libcrowdsteer.so.$major" ] || fail "SONAME is '$soname', want libcrowdsteer.so.$major"
[ -e "$libdir/$soname" ] || fail "$soname link missing"
echo "SONAME: $soname"

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

consumer shared "$work/shared"
for exe in consumer-shared/consumer consumer-shared-pc; do
  readelf -d "$work/$exe" | grep -q "NEEDED.*\[$soname\]" ||
    fail "$exe is not linked to $soname"
done
echo "=== install consumer: static and shared, CMake and pkg-config: OK"
