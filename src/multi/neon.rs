//! aarch64 NEON multi-buffer kernel: two interleaved groups of four lanes,
//! one message per 32-bit lane of a `uint32x4_t`.
//!
//! NEON's bit select computes MD5's `F` and `G` in one instruction, and a
//! shift plus shift-right-and-insert makes a rotation in two.
#![allow(clippy::many_single_char_names)]

use super::{Ptrs, Soa};
use crate::consts::RC;
use core::arch::aarch64::*;

/// Messages per call: two interleaved groups of 4 lanes (`compress::<2>`).
/// With 4 or fewer messages, `compress::<1>` runs one group.
pub(super) const LANES: usize = 2 * 4;

/// Transposes four rows: row `j` holds words `0..4` of lane `j`, result `w`
/// holds word `w` of lanes `0..4`.
macro_rules! transpose4 {
    ($r0:expr, $r1:expr, $r2:expr, $r3:expr) => {{
        // t0 = r0w0 r1w0 r0w2 r1w2, t1 = r0w1 r1w1 r0w3 r1w3, likewise t2, t3.
        let t0 = vreinterpretq_u64_u32(vtrn1q_u32($r0, $r1));
        let t1 = vreinterpretq_u64_u32(vtrn2q_u32($r0, $r1));
        let t2 = vreinterpretq_u64_u32(vtrn1q_u32($r2, $r3));
        let t3 = vreinterpretq_u64_u32(vtrn2q_u32($r2, $r3));
        [
            vreinterpretq_u32_u64(vtrn1q_u64(t0, t2)),
            vreinterpretq_u32_u64(vtrn1q_u64(t1, t3)),
            vreinterpretq_u32_u64(vtrn2q_u64(t0, t2)),
            vreinterpretq_u32_u64(vtrn2q_u64(t1, t3)),
        ]
    }};
}

/// Reads block `$off / 64` of each lane of group `$g` into word-major
/// order: `[uint32x4_t; 16]`, entry `w` holding word `w` of the four lanes.
/// Callers check that `ptrs[4 * g + j]` is valid for reads of `$off + 64`
/// bytes, for `j < 4`.
macro_rules! load_group {
    ($ptrs:expr, $g:expr, $off:expr) => {{
        let (ptrs, g, off): (&Ptrs, usize, usize) = ($ptrs, $g, $off);
        let mut m = [vdupq_n_u32(0); 16];
        for q in 0..4 {
            let mut r = [vdupq_n_u32(0); 4];
            for (j, r) in r.iter_mut().enumerate() {
                // SAFETY: bytes `off + 16 * q .. off + 16 * q + 16` lie in
                // the `off + 64` readable bytes at this pointer (see the
                // macro's contract); byte loads need no alignment. The
                // target is little-endian, so the bytes form MD5's words.
                *r = vreinterpretq_u32_u8(unsafe { vld1q_u8(ptrs[4 * g + j].add(off + 16 * q)) });
            }
            let w = transpose4!(r[0], r[1], r[2], r[3]);
            m[4 * q..4 * q + 4].copy_from_slice(&w);
        }
        m
    }};
}

/// Compresses `blocks` consecutive blocks from each of `ptrs[..4 * G]` into
/// lanes `0..4 * G` of `state`, as `G` interleaved groups of 4 lanes.
///
/// # Safety
///
/// `G` is 1 or 2. For each `i < 4 * G`, `ptrs[i]` is valid for reads of
/// `blocks * 64` bytes. (NEON itself is part of the aarch64 baseline.)
#[target_feature(enable = "neon")]
pub(super) unsafe fn compress<const G: usize>(state: &mut Soa, ptrs: &Ptrs, blocks: usize) {
    macro_rules! add {
        ($x:expr, $y:expr) => {
            vaddq_u32($x, $y)
        };
    }
    macro_rules! rotl {
        ($x:expr, $s:expr) => {{
            let x = $x;
            vsriq_n_u32::<{ 32 - $s }>(vshlq_n_u32::<{ $s }>(x), x)
        }};
    }
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
                    "/* {0:v} */",
                    inout(vreg) x,
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
    // The message words of the current block, word-major, per group.
    let mut m = [[vdupq_n_u32(0); 16]; G];
    macro_rules! step {
        (f, $a:ident, $b:ident, $c:ident, $d:ident, $m:expr, $k:expr, $s:expr) => {
            // (b & c) | (!b & d) is a bit select on b.
            step!(@ $a, $b, $m, $k, $s, |g| vbslq_u32($b[g], $c[g], $d[g]))
        };
        (g, $a:ident, $b:ident, $c:ident, $d:ident, $m:expr, $k:expr, $s:expr) => {
            // (b & d) | (c & !d) is a bit select on d.
            step!(@ $a, $b, $m, $k, $s, |g| vbslq_u32($d[g], $b[g], $c[g]))
        };
        (h, $a:ident, $b:ident, $c:ident, $d:ident, $m:expr, $k:expr, $s:expr) => {
            step!(@ $a, $b, $m, $k, $s, |g| veorq_u32($b[g], veorq_u32($c[g], $d[g])))
        };
        (i, $a:ident, $b:ident, $c:ident, $d:ident, $m:expr, $k:expr, $s:expr) => {
            // c ^ (b | !d), with NEON's or-not.
            step!(@ $a, $b, $m, $k, $s, |g| veorq_u32($c[g], vornq_u32($b[g], $d[g])))
        };
        (@ $a:ident, $b:ident, $m:expr, $k:expr, $s:expr, |$g:ident| $f:expr) => {
            for $g in 0..G {
                let t = add!(add!($a[$g], m[$g][$m]), vdupq_n_u32(RC[$k]));
                let t = opaque!(t);
                let t = add!(t, $f);
                $a[$g] = add!($b[$g], rotl!(t, $s));
            }
        };
    }

    let mut a = [vdupq_n_u32(0); G];
    let mut b = a;
    let mut c = a;
    let mut d = a;
    for g in 0..G {
        // SAFETY: `4 * g + 4 <= 16`, so each 16-byte load is in bounds of
        // its row of `state`.
        unsafe {
            a[g] = vld1q_u32(state.s[0][4 * g..].as_ptr());
            b[g] = vld1q_u32(state.s[1][4 * g..].as_ptr());
            c[g] = vld1q_u32(state.s[2][4 * g..].as_ptr());
            d[g] = vld1q_u32(state.s[3][4 * g..].as_ptr());
        }
    }

    for blk in 0..blocks {
        for (g, m) in m.iter_mut().enumerate() {
            // `(blk + 1) * 64 <= blocks * 64` bytes are readable from each of
            // the `4 * G` pointers (caller).
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
            // SAFETY: `4 * g + 4 <= 16`, so 16 bytes are in bounds of `r`.
            unsafe { vst1q_u32(r[4 * g..].as_mut_ptr(), x) };
        }
    }
}

/// Only the loads and the transposition of [`compress`], folded into a
/// checksum so that they cannot be optimised away: measures their cost.
///
/// # Safety
///
/// As for [`compress`].
#[target_feature(enable = "neon")]
pub(super) unsafe fn transpose_only<const G: usize>(ptrs: &Ptrs, blocks: usize) -> u32 {
    let mut acc = [vdupq_n_u32(0); 16];
    for blk in 0..blocks {
        for g in 0..G {
            // As in `compress`.
            let m = load_group!(ptrs, g, blk * 64);
            for (x, w) in acc.iter_mut().zip(m) {
                *x = veorq_u32(*x, w);
            }
        }
    }
    let mut sum = vdupq_n_u32(0);
    for x in acc {
        sum = vaddq_u32(sum, x);
    }
    vgetq_lane_u32::<0>(sum)
}
