#!/usr/bin/env bash
# Proves a kernel object really uses its ISA's registers (so nothing fell back
# to SIMDe's scalar emulation) and contains no fused multiply-add (which
# would break bit-exactness with the reference).
# usage: check_disasm.sh OBJDUMP ISA OBJECT...
set -euo pipefail
objdump=$1 isa=$2
shift 2
asm=$("$objdump" -d --no-show-raw-insn "$@")
count() { grep -c -E "$1" <<<"$asm" || true; }
fail=0
fma=$(count 'vfn?m(add|sub)[0-9]*[ps]s')
if [ "$fma" -ne 0 ]; then echo "FAIL: $isa objects contain $fma FMA instructions"; fail=1; fi
case $isa in
  avx512) want='%zmm' ;;
  avx2) want='%ymm' ;;
  sse4) want='%xmm' ;;
  *) echo "unknown isa $isa"; exit 2 ;;
esac
uses=$(count "$want")
divs=$(count "vdivps.*$want|divps.*$want")
sqrts=$(count "vsqrtps.*$want|sqrtps.*$want")
echo "$isa: $uses instructions on $want, $divs packed divides, $sqrts packed square roots, $fma FMA"
if [ "$uses" -lt 500 ] || [ "$divs" -lt 20 ] || [ "$sqrts" -lt 20 ]; then
  echo "FAIL: $isa objects do not look vectorised for $want"
  fail=1
fi
if [ "$isa" = sse4 ] && [ "$(count '%ymm|%zmm')" -ne 0 ]; then
  echo "FAIL: sse4 objects use AVX registers"; fail=1
fi
if [ "$isa" = avx2 ] && [ "$(count '%zmm')" -ne 0 ]; then
  echo "FAIL: avx2 objects use AVX-512 registers"; fail=1
fi
exit $fail
