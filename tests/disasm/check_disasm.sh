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
# gcc 12 may store a mask-derived 32-bit value with a 16-bit kmovw and load
# it back whole with kmovd (kernels/vec.h, m_word): the upper half is then
# whatever the stack held. Flags, within each function in address order
# (an approximation of program order, so only this exact pair), a kmovd
# load of a stack slot whose last store was a kmovw.
if [ "$isa" = avx512 ]; then
  widened=$(perl -ne '
    if (/^[0-9a-f]+ <(.*)>:$/) { $fn = $1; %width = (); next }
    if (/\s(\S+)\s+\S+,(-?0x[0-9a-f]+\(%r[sb]p\))$/) { $width{$2} = $1 eq "kmovw" ? 16 : 32; next }
    if (/\skmovd\s+(-?0x[0-9a-f]+\(%r[sb]p\)),%k[0-7]$/
        && ($width{$1} // 0) == 16) { print "$fn: $_" }' <<<"$asm")
  if [ -n "$widened" ]; then
    echo "FAIL: avx512 objects load 32 bits of a mask stored with kmovw:"
    echo "$widened" | head -5
    fail=1
  fi
fi
exit $fail
