/* The one floating-point environment every entry point computes in:
 * round-to-nearest-even, denormals kept (x86 MXCSR: no FTZ, no DAZ; aarch64
 * FPCR: no FZ), exceptions masked. Hosts (game engines especially) set other
 * modes, and OpenMP workers do not inherit the caller's: without this the
 * bits would depend on the host and on which thread ran a tile. */
#include "internal.h"

#if defined(__x86_64__) || (defined(__i386__) && defined(__SSE__))
#include <xmmintrin.h>

/* MXCSR: bits 0-5 are the sticky exception flags, the rest is the mode:
 * DAZ (6), exception masks (7-12), rounding (13-14), FTZ (15). */
enum { MXCSR_FLAGS = 0x3Fu, MXCSR_FIXED_MODE = 0x1F80u /* all masked, RNE */ };

cs_fpenv cs_fpenv_enter(void) {
  const unsigned csr = _mm_getcsr();
  const unsigned fixed = (csr & MXCSR_FLAGS) | MXCSR_FIXED_MODE;
  const cs_fpenv host = {csr, fixed != csr};
  if (host.changed) _mm_setcsr(fixed);
  return host;
}

/* The host's mode back; the exception flags stay sticky, as after any float
 * code (a host in the fixed mode pays no MXCSR write at all). */
void cs_fpenv_leave(cs_fpenv host) {
  if (host.changed)
    _mm_setcsr((_mm_getcsr() & MXCSR_FLAGS) | ((unsigned)host.state & ~MXCSR_FLAGS));
}

#elif defined(__aarch64__)

/* FPCR fields that change results or trap: FIZ/AH/NEP (0-2, FEAT_AFP), trap
 * enables (8-12, 15), FZ16 (19), RMode (22-23), FZ (24). All 0 is the
 * IEEE default. DN (25) only changes NaN payloads, which are unspecified. */
#define FPCR_MODE_BITS                                                                   \
  ((uint64_t)0x7u | (uint64_t)0x1Fu << 8 | (uint64_t)1u << 15 | (uint64_t)1u << 19 |     \
   (uint64_t)3u << 22 | (uint64_t)1u << 24)

static uint64_t read_fpcr(void) {
  uint64_t fpcr;
  __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
  return fpcr;
}

static void write_fpcr(uint64_t fpcr) { __asm__ volatile("msr fpcr, %0" : : "r"(fpcr)); }

/* FPCR holds no flags (they are in FPSR): the mode is the whole register. */
cs_fpenv cs_fpenv_enter(void) {
  const uint64_t fpcr = read_fpcr();
  const cs_fpenv host = {fpcr, (fpcr & FPCR_MODE_BITS) != 0};
  if (host.changed) write_fpcr(fpcr & ~FPCR_MODE_BITS);
  return host;
}

void cs_fpenv_leave(cs_fpenv host) {
  if (host.changed) write_fpcr(host.state);
}

#else
#include <fenv.h>

/* Elsewhere only the rounding direction is portable to control. */
cs_fpenv cs_fpenv_enter(void) {
  const int rounding = fegetround();
  const cs_fpenv host = {(uint64_t)rounding, rounding != FE_TONEAREST};
  if (host.changed) fesetround(FE_TONEAREST);
  return host;
}

void cs_fpenv_leave(cs_fpenv host) {
  if (host.changed) fesetround((int)host.state);
}
#endif
