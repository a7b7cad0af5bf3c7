//! x86_64 AVX2 multi-buffer kernel: two interleaved groups of eight lanes,
//! one message per 32-bit lane of an `__m256i`. Chosen at run time when the
//! CPU has AVX2.
//!
//! One group alone is bound by the latency of MD5's dependency chain (each
//! step waits on the previous `b`); two independent groups fill the gaps.
#![allow(clippy::many_single_char_names)]

use super::{Ptrs, Soa};
use crate::consts::RC;
use core::arch::x86_64::*;

/// Messages per call: two interleaved groups of 8 lanes (`compress::<2>`).
/// With 8 or fewer messages, `compress::<1>` runs one group.
pub(super) const LANES: usize = 2 * 8;

/// Transposes four rows within each 128-bit half: row `j` holds words `0..4`
/// of lane `j` in its low half and of lane `j + 4` in its high half; result
/// `w` holds word `w` of lanes `0..8`.
macro_rules! transpose4 {
    ($r0:expr, $r1:expr, $r2:expr, $r3:expr) => {{
        let t0 = _mm256_unpacklo_epi32($r0, $r1);
        let t1 = _mm256_unpackhi_epi32($r0, $r1);
        let t2 = _mm256_unpacklo_epi32($r2, $r3);
        let t3 = _mm256_unpackhi_epi32($r2, $r3);
        [
            _mm256_unpacklo_epi64(t0, t2),
            _mm256_unpackhi_epi64(t0, t2),
            _mm256_unpacklo_epi64(t1, t3),
            _mm256_unpackhi_epi64(t1, t3),
        ]
    }};
}

/// Reads block `$off / 64` of each lane of group `$g` into word-major
/// order: `[__m256i; 16]`, entry `w` holding word `w` of the eight lanes.
/// Every load is a plain 16-byte load of one lane's message (no gathers).
/// Callers check that `ptrs[8 * g + j]` is valid for reads of `$off + 64`
/// bytes, for `j < 8`.
macro_rules! load_group {
    ($ptrs:expr, $g:expr, $off:expr) => {{
        let (ptrs, g, off): (&Ptrs, usize, usize) = ($ptrs, $g, $off);
        let mut m = [_mm256_setzero_si256(); 16];
        for q in 0..4 {
            let mut r = [_mm256_setzero_si256(); 4];
            for (j, r) in r.iter_mut().enumerate() {
                // SAFETY: bytes `off + 16 * q .. off + 16 * q + 16` lie in
                // the `off + 64` readable bytes at both pointers (see the
                // macro's contract); `loadu` needs no alignment.
                let (lo, hi) = unsafe {
                    (
                        _mm_loadu_si128(ptrs[8 * g + j].add(off + 16 * q).cast()),
                        _mm_loadu_si128(ptrs[8 * g + j + 4].add(off + 16 * q).cast()),
                    )
                };
                *r = _mm256_set_m128i(hi, lo);
            }
            let w = transpose4!(r[0], r[1], r[2], r[3]);
            m[4 * q..4 * q + 4].copy_from_slice(&w);
        }
        m
    }};
}

/// Compresses `blocks` consecutive blocks from each of `ptrs[..8 * G]` into
/// lanes `0..8 * G` of `state`, as `G` interleaved groups of 8 lanes.
///
/// # Safety
///
/// `G` is 1 or 2. For each `i < 8 * G`, `ptrs[i]` is valid for reads of `blocks * 64` bytes.
/// The CPU supports AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn compress<const G: usize>(state: &mut Soa, ptrs: &Ptrs, blocks: usize) {
    macro_rules! add {
        ($x:expr, $y:expr) => {
            _mm256_add_epi32($x, $y)
        };
    }
    let ones = _mm256_set1_epi32(-1);
    // Hides a value from the optimiser, so that it cannot reassociate the
    // sum: everything added before this does not wait for `b`, and LLVM
    // otherwise moves the round constant's add after `F`, onto the chain.
    #[cfg(not(miri))]
    macro_rules! opaque {
        ($x:expr) => {{
            let mut x = $x;
            // SAFETY: the template is a comment; the block only names `x`'s
            // register and changes no memory, flags or stack.
            unsafe {
                core::arch::asm!(
                    "/* {0} */",
                    inout(ymm_reg) x,
                    options(pure, nomem, nostack, preserves_flags)
                )
            };
            x
        }};
    }
    // Miri runs no inline asm; without the barrier only the schedule changes.
    #[cfg(miri)]
    macro_rules! opaque {
        ($x:expr) => {
            $x
        };
    }
    // Swaps the 16-bit halves of each 32-bit lane: rotation by 16 as one
    // byte shuffle. Hidden, or LLVM makes it two word shuffles in a row.
    let rot16 = opaque!(_mm256_setr_epi8(
        2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13, //
        2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13,
    ));
    // `b + rotl(t, s)`. The two shifted halves share no set bit, so the
    // rotation's `|` is a `+`, and `b` joins the first half while the second
    // shift is still waiting: the two shifts often issue a cycle apart, and
    // an `|` of both would wait for the later one. The barrier stops LLVM
    // from folding the halves back into a rotate. By 16 it is one byte
    // shuffle.
    macro_rules! add_rotl {
        ($b:expr, $t:expr, $s:expr) => {{
            let t = $t;
            if $s == 16 {
                add!($b, _mm256_shuffle_epi8(t, rot16))
            } else {
                let hi = opaque!(add!($b, _mm256_slli_epi32::<{ $s }>(t)));
                add!(hi, _mm256_srli_epi32::<{ 32 - $s }>(t))
            }
        }};
    }
    // The message words of the current block, word-major, per group.
    let mut m = [[_mm256_setzero_si256(); 16]; G];
    macro_rules! step {
        (f, $a:ident, $b:ident, $c:ident, $d:ident, $m:expr, $k:expr, $s:expr) => {
            step!(@ $a, $b, $m, $k, $s, |g| _mm256_xor_si256(
                $d[g],
                _mm256_and_si256($b[g], _mm256_xor_si256($c[g], $d[g]))
            ))
        };
        (g, $a:ident, $b:ident, $c:ident, $d:ident, $m:expr, $k:expr, $s:expr) => {
            // (b & d) | (c & !d): the halves share no set bit, so `+` is `|`
            // and the half without `b` joins the sum early.
            for g in 0..G {
                let t = add!(add!($a[g], m[g][$m]), _mm256_set1_epi32(RC[$k] as i32));
                let t = opaque!(add!(t, _mm256_andnot_si256($d[g], $c[g])));
                let t = add!(t, _mm256_and_si256($b[g], $d[g]));
                $a[g] = add_rotl!($b[g], t, $s);
            }
        };
        (h, $a:ident, $b:ident, $c:ident, $d:ident, $m:expr, $k:expr, $s:expr) => {
            // c ^ d does not wait for b.
            step!(@ $a, $b, $m, $k, $s, |g| _mm256_xor_si256(
                $b[g],
                _mm256_xor_si256($c[g], $d[g])
            ))
        };
        (i, $a:ident, $b:ident, $c:ident, $d:ident, $m:expr, $k:expr, $s:expr) => {
            step!(@ $a, $b, $m, $k, $s, |g| _mm256_xor_si256(
                $c[g],
                _mm256_or_si256($b[g], _mm256_xor_si256($d[g], ones))
            ))
        };
        (@ $a:ident, $b:ident, $m:expr, $k:expr, $s:expr, |$g:ident| $f:expr) => {
            for $g in 0..G {
                let t = add!(add!($a[$g], m[$g][$m]), _mm256_set1_epi32(RC[$k] as i32));
                let t = opaque!(t);
                let t = add!(t, $f);
                $a[$g] = add_rotl!($b[$g], t, $s);
            }
        };
    }

    let mut a = [_mm256_setzero_si256(); G];
    let mut b = a;
    let mut c = a;
    let mut d = a;
    for g in 0..G {
        // SAFETY: `8 * g + 8 <= 16`, so each 32-byte load is in bounds of
        // its row of `state`.
        unsafe {
            a[g] = _mm256_loadu_si256(state.s[0][8 * g..].as_ptr().cast());
            b[g] = _mm256_loadu_si256(state.s[1][8 * g..].as_ptr().cast());
            c[g] = _mm256_loadu_si256(state.s[2][8 * g..].as_ptr().cast());
            d[g] = _mm256_loadu_si256(state.s[3][8 * g..].as_ptr().cast());
        }
    }

    for blk in 0..blocks {
        for (g, m) in m.iter_mut().enumerate() {
            // `(blk + 1) * 64 <= blocks * 64` bytes are readable from each of
            // the `8 * G` pointers (caller).
            *m = load_group!(ptrs, g, blk * 64);
        }
        let (aa, bb, cc, dd) = (a, b, c, d);
        md5_steps!(step, a, b, c, d);
        for g in 0..G {
            a[g] = add!(a[g], aa[g]);
            b[g] = add!(b[g], bb[g]);
            c[g] = add!(c[g], cc[g]);
            d[g] = add!(d[g], dd[g]);
        }
    }

    for (r, v) in state.s.iter_mut().zip([a, b, c, d]) {
        for (g, x) in v.into_iter().enumerate() {
            // SAFETY: `8 * g + 8 <= 16`, so 32 bytes are in bounds of `r`.
            unsafe { _mm256_storeu_si256(r[8 * g..].as_mut_ptr().cast(), x) };
        }
    }
}

/// Only the loads and the transposition of [`compress`], folded into a
/// checksum so that they cannot be optimised away: measures their cost.
///
/// # Safety
///
/// As for [`compress`].
#[target_feature(enable = "avx2")]
pub(super) unsafe fn transpose_only<const G: usize>(ptrs: &Ptrs, blocks: usize) -> u32 {
    let mut acc = [_mm256_setzero_si256(); 16];
    for blk in 0..blocks {
        for g in 0..G {
            // As in `compress`.
            let m = load_group!(ptrs, g, blk * 64);
            for (x, w) in acc.iter_mut().zip(m) {
                *x = _mm256_xor_si256(*x, w);
            }
        }
    }
    let mut sum = _mm256_setzero_si256();
    for x in acc {
        sum = _mm256_add_epi32(sum, x);
    }
    _mm256_cvtsi256_si32(sum) as u32
}
