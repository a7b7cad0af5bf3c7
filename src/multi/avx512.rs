//! x86_64 AVX-512 multi-buffer kernel: up to four interleaved groups of
//! sixteen lanes, one message per 32-bit lane of an `__m512i`. Chosen at run
//! time when the CPU has AVX-512F and AVX-512VL.
//!
//! Each step's `F`, `G`, `H` or `I` is one `vpternlogd` and its rotation one
//! `vprold`, so a step is four dependent operations (logic, add, rotate,
//! add): 4 cycles where vector latency is 1 cycle (Intel, Zen 4), 8 where it
//! is 2 (Zen 5). A group costs about six vector operations a step, so two
//! groups keep two 512-bit pipes busy at 1-cycle latency, and it takes four
//! or five to cover 8 cycles on Zen 5's four pipes. The 32 `zmm` registers
//! hold four groups' state with room for temporaries (the message words are
//! read from the stack as memory operands), so the kernel runs up to four:
//! 64 lanes. No AVX-512 machine was at hand to measure this choice.
//!
//! Messages are read with plain 64-byte loads, one per lane and block, and
//! transposed with `vpunpck*` and `vshufi32x4` (64 shuffles for 16 lanes);
//! no gathers.
#![allow(clippy::many_single_char_names)]

use super::{Ptrs, Soa};
use crate::consts::RC;
use core::arch::x86_64::*;

/// The most groups of 16 lanes the kernel interleaves.
pub(super) const GROUPS: usize = 4;

/// Messages per call: [`GROUPS`] interleaved groups of 16 lanes. With fewer
/// busy lanes, [`compress`] runs fewer groups.
pub(super) const LANES: usize = 16 * GROUPS;

/// Transposes a 16 × 16 matrix of 32-bit words: `r[j]` holds words `0..16`
/// of lane `j`; the result's entry `w` holds word `w` of lanes `0..16`.
#[inline]
#[target_feature(enable = "avx512f")]
fn transpose16(r: [__m512i; 16]) -> [__m512i; 16] {
    // Within each 128-bit chunk `c`, a 4 × 4 transpose of each four lanes:
    // `u[4 * l + i]` chunk `c` = word `4 * c + i` of lanes `4 * l .. 4 * l + 4`.
    let mut u = [_mm512_setzero_si512(); 16];
    for l in 0..4 {
        let t0 = _mm512_unpacklo_epi32(r[4 * l], r[4 * l + 1]);
        let t1 = _mm512_unpackhi_epi32(r[4 * l], r[4 * l + 1]);
        let t2 = _mm512_unpacklo_epi32(r[4 * l + 2], r[4 * l + 3]);
        let t3 = _mm512_unpackhi_epi32(r[4 * l + 2], r[4 * l + 3]);
        u[4 * l] = _mm512_unpacklo_epi64(t0, t2);
        u[4 * l + 1] = _mm512_unpackhi_epi64(t0, t2);
        u[4 * l + 2] = _mm512_unpacklo_epi64(t1, t3);
        u[4 * l + 3] = _mm512_unpackhi_epi64(t1, t3);
    }
    // Then a 4 × 4 transpose of the 128-bit chunks of `u[i]`, `u[4 + i]`,
    // `u[8 + i]`, `u[12 + i]`: chunk `l` of word `4 * c + i` comes from
    // chunk `c` of `u[4 * l + i]`.
    let mut m = [_mm512_setzero_si512(); 16];
    for i in 0..4 {
        let x0 = _mm512_shuffle_i32x4::<0x44>(u[i], u[4 + i]);
        let x1 = _mm512_shuffle_i32x4::<0xEE>(u[i], u[4 + i]);
        let x2 = _mm512_shuffle_i32x4::<0x44>(u[8 + i], u[12 + i]);
        let x3 = _mm512_shuffle_i32x4::<0xEE>(u[8 + i], u[12 + i]);
        m[i] = _mm512_shuffle_i32x4::<0x88>(x0, x2);
        m[4 + i] = _mm512_shuffle_i32x4::<0xDD>(x0, x2);
        m[8 + i] = _mm512_shuffle_i32x4::<0x88>(x1, x3);
        m[12 + i] = _mm512_shuffle_i32x4::<0xDD>(x1, x3);
    }
    m
}

/// Reads block `off / 64` of each lane of group `g` in word-major order.
///
/// # Safety
///
/// `ptrs[16 * g + j]` is valid for reads of `off + 64` bytes, for `j < 16`;
/// the CPU supports AVX-512F.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn load_group(ptrs: &Ptrs, g: usize, off: usize) -> [__m512i; 16] {
    let mut r = [_mm512_setzero_si512(); 16];
    for (j, r) in r.iter_mut().enumerate() {
        // SAFETY: bytes `off .. off + 64` are readable at this pointer (the
        // caller); `loadu` needs no alignment.
        *r = unsafe { _mm512_loadu_si512(ptrs[16 * g + j].add(off).cast()) };
    }
    transpose16(r)
}

/// Compresses `blocks` consecutive blocks from each of `ptrs[..used]` into
/// lanes `0..used` of `state`, running as few groups of 16 lanes as cover
/// `used`. Lanes from `used` up to the next multiple of 16 are computed too
/// (their state is then garbage).
///
/// # Safety
///
/// `1 <= used <= LANES`; for each `i` below `used` rounded up to a multiple
/// of 16, `ptrs[i]` is valid for reads of `blocks * 64` bytes; the CPU
/// supports AVX-512F and AVX-512VL.
#[inline]
#[target_feature(enable = "avx512f,avx512vl")]
pub(super) unsafe fn compress(state: &mut Soa, ptrs: &Ptrs, blocks: usize, used: usize) {
    debug_assert!((1..=LANES).contains(&used));
    // The fewest groups that cover `used` lanes.
    match used.div_ceil(16) {
        // `16 * G` covers `used`, so the caller vouches for every pointer
        // the kernel reads, and `G <= GROUPS`.
        // SAFETY: the caller's contract, as just said.
        0 | 1 => unsafe { compress_groups::<1>(state, ptrs, blocks) },
        // SAFETY: as above.
        2 => unsafe { compress_groups::<2>(state, ptrs, blocks) },
        // SAFETY: as above.
        3 => unsafe { compress_groups::<3>(state, ptrs, blocks) },
        // SAFETY: as above.
        _ => unsafe { compress_groups::<4>(state, ptrs, blocks) },
    }
}

/// Compresses `blocks` consecutive blocks from each of `ptrs[..16 * G]` into
/// lanes `0..16 * G` of `state`, as `G` interleaved groups of 16 lanes.
///
/// # Safety
///
/// `1 <= G <= GROUPS`. For each `i < 16 * G`, `ptrs[i]` is valid for reads
/// of `blocks * 64` bytes. The CPU supports AVX-512F and AVX-512VL.
#[target_feature(enable = "avx512f,avx512vl")]
pub(super) unsafe fn compress_groups<const G: usize>(state: &mut Soa, ptrs: &Ptrs, blocks: usize) {
    macro_rules! add {
        ($x:expr, $y:expr) => {
            _mm512_add_epi32($x, $y)
        };
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
                    "/* {0} */",
                    inout(zmm_reg) x,
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
    let mut m = [[_mm512_setzero_si512(); 16]; G];
    // `vpternlogd` truth tables on (b, c, d): bit `4b + 2c + d` of the
    // immediate is the function's value there.
    macro_rules! logic {
        (f, $b:expr, $c:expr, $d:expr) => {
            // (b & c) | (!b & d)
            _mm512_ternarylogic_epi32::<0xCA>($b, $c, $d)
        };
        (g, $b:expr, $c:expr, $d:expr) => {
            // (b & d) | (c & !d)
            _mm512_ternarylogic_epi32::<0xE4>($b, $c, $d)
        };
        (h, $b:expr, $c:expr, $d:expr) => {
            // b ^ c ^ d
            _mm512_ternarylogic_epi32::<0x96>($b, $c, $d)
        };
        (i, $b:expr, $c:expr, $d:expr) => {
            // c ^ (b | !d)
            _mm512_ternarylogic_epi32::<0x39>($b, $c, $d)
        };
    }
    macro_rules! step {
        ($op:ident, $a:ident, $b:ident, $c:ident, $d:ident, $m:expr, $k:expr, $s:expr) => {
            for g in 0..G {
                let t = add!(add!($a[g], m[g][$m]), _mm512_set1_epi32(RC[$k] as i32));
                let t = add!(opaque!(t), logic!($op, $b[g], $c[g], $d[g]));
                $a[g] = add!($b[g], _mm512_rol_epi32::<{ $s }>(t));
            }
        };
    }

    let mut a = [_mm512_setzero_si512(); G];
    let mut b = a;
    let mut c = a;
    let mut d = a;
    for g in 0..G {
        // SAFETY: `16 * g + 16 <= 16 * G <= MAX_LANES`, so each 64-byte load
        // is in bounds of its row of `state`.
        unsafe {
            a[g] = _mm512_loadu_si512(state.s[0][16 * g..].as_ptr().cast());
            b[g] = _mm512_loadu_si512(state.s[1][16 * g..].as_ptr().cast());
            c[g] = _mm512_loadu_si512(state.s[2][16 * g..].as_ptr().cast());
            d[g] = _mm512_loadu_si512(state.s[3][16 * g..].as_ptr().cast());
        }
    }

    for blk in 0..blocks {
        for (g, m) in m.iter_mut().enumerate() {
            // SAFETY: `(blk + 1) * 64 <= blocks * 64` bytes are readable
            // from each of the `16 * G` pointers (caller).
            *m = unsafe { load_group(ptrs, g, blk * 64) };
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
            // SAFETY: `16 * g + 16 <= MAX_LANES`, so 64 bytes are in bounds
            // of `r`.
            unsafe { _mm512_storeu_si512(r[16 * g..].as_mut_ptr().cast(), x) };
        }
    }
}

/// Only the loads and the transposition of [`compress_groups`], folded into
/// a checksum so that they cannot be optimised away: measures their cost.
///
/// # Safety
///
/// As for [`compress_groups`].
#[target_feature(enable = "avx512f,avx512vl")]
pub(super) unsafe fn transpose_only<const G: usize>(ptrs: &Ptrs, blocks: usize) -> u32 {
    let mut acc = [_mm512_setzero_si512(); 16];
    for blk in 0..blocks {
        for g in 0..G {
            // SAFETY: as in `compress_groups`.
            let m = unsafe { load_group(ptrs, g, blk * 64) };
            for (x, w) in acc.iter_mut().zip(m) {
                *x = _mm512_xor_si512(*x, w);
            }
        }
    }
    let mut sum = _mm512_setzero_si512();
    for x in acc {
        sum = _mm512_add_epi32(sum, x);
    }
    _mm512_reduce_add_epi32(sum) as u32
}
