//! x86_64 AVX-512 lane vector: sixteen 32-bit lanes of an `__m512i`, and
//! the kernel's `#[target_feature(enable = "avx512f,avx512vl")]` entry
//! points. Chosen at run time, ahead
//! of AVX2, when the CPU has AVX-512F and VL.
//!
//! Its own tricks: each step's `F`, `G`, `H` or `I` is one `vpternlogd`
//! (`G` included, added at once) and each rotation one `vprold`, so a step
//! is four dependent operations (logic, add, rotate, add) and about six
//! vector instructions per group. Messages are read with one plain 64-byte
//! load per lane and block and transposed with `vpunpck*` and `vshufi32x4`
//! (64 shuffles for 16 lanes); no gathers.
//!
//! It is built for up to four groups (64 lanes) and runs as many at full
//! width as the CPU's tuning row says (`multi/tuning.rs`). The 32 `zmm` registers hold four
//! groups' state and temporaries, the message words being read from the
//! stack as memory operands.

use super::lane_vector::{self, LaneVector};
use core::arch::x86_64::*;

/// Sixteen lanes. A value exists only where the CPU has AVX-512F and VL:
/// the unsafe constructors' callers vouch for it, and every method that
/// takes a `V16` relies on it.
#[derive(Clone, Copy)]
pub(super) struct V16(pub(super) __m512i);

/// The 64 bytes at `p + at`.
///
/// # Safety
///
/// The CPU has AVX-512F, and bytes `p + at ..+ 64` are readable.
#[inline(always)]
unsafe fn load64(p: *const u8, at: usize) -> __m512i {
    // SAFETY: the caller vouches for AVX-512F and for the 64 bytes at `p +
    // at`; `loadu` needs no alignment.
    unsafe { _mm512_loadu_si512(p.add(at).cast()) }
}

/// Transposes a 16 × 16 matrix of 32-bit words: `r[j]` holds words `0..16`
/// of lane `j`; the result's entry `w` holds word `w` of lanes `0..16`.
#[inline(always)]
pub(super) fn transpose16(r: [V16; 16]) -> [V16; 16] {
    // SAFETY: `r` proves AVX-512F; register operations only.
    unsafe {
        // Within each 128-bit chunk `c`, a 4 × 4 transpose of each four
        // lanes: `u[4 * l + i]` chunk `c` = word `4 * c + i` of lanes
        // `4 * l .. 4 * l + 4`.
        let mut u = [_mm512_setzero_si512(); 16];
        for l in 0..4 {
            let (r0, r1, r2, r3) = (r[4 * l].0, r[4 * l + 1].0, r[4 * l + 2].0, r[4 * l + 3].0);
            let t0 = _mm512_unpacklo_epi32(r0, r1);
            let t1 = _mm512_unpackhi_epi32(r0, r1);
            let t2 = _mm512_unpacklo_epi32(r2, r3);
            let t3 = _mm512_unpackhi_epi32(r2, r3);
            u[4 * l] = _mm512_unpacklo_epi64(t0, t2);
            u[4 * l + 1] = _mm512_unpackhi_epi64(t0, t2);
            u[4 * l + 2] = _mm512_unpacklo_epi64(t1, t3);
            u[4 * l + 3] = _mm512_unpackhi_epi64(t1, t3);
        }
        // Then a 4 × 4 transpose of 128-bit chunks: chunk `l` of word
        // `4 * c + i` is chunk `c` of `u[4 * l + i]`.
        let mut m = [V16(_mm512_setzero_si512()); 16];
        for i in 0..4 {
            let x0 = _mm512_shuffle_i32x4::<0x44>(u[i], u[4 + i]);
            let x1 = _mm512_shuffle_i32x4::<0xEE>(u[i], u[4 + i]);
            let x2 = _mm512_shuffle_i32x4::<0x44>(u[8 + i], u[12 + i]);
            let x3 = _mm512_shuffle_i32x4::<0xEE>(u[8 + i], u[12 + i]);
            m[i] = V16(_mm512_shuffle_i32x4::<0x88>(x0, x2));
            m[4 + i] = V16(_mm512_shuffle_i32x4::<0xDD>(x0, x2));
            m[8 + i] = V16(_mm512_shuffle_i32x4::<0x88>(x1, x3));
            m[12 + i] = V16(_mm512_shuffle_i32x4::<0xDD>(x1, x3));
        }
        m
    }
}

impl LaneVector for V16 {
    const LANES: usize = 16;

    /// Lanes that crowd one L1 set wait on L2 otherwise (see `body.rs`,
    /// `NextBlock`).
    const LOADS_AHEAD: bool = true;

    #[inline(always)]
    unsafe fn splat(x: u32) -> Self {
        // SAFETY: the caller vouches for AVX-512F.
        Self(unsafe { _mm512_set1_epi32(x as i32) })
    }

    #[inline(always)]
    unsafe fn load(src: *const u32) -> Self {
        // SAFETY: the caller vouches for AVX-512F and for the 64 bytes (16
        // words) at `src`.
        Self(unsafe { load64(src.cast(), 0) })
    }

    #[inline(always)]
    fn store(self, dst: &mut [u32]) {
        let dst = &mut dst[..16];
        // SAFETY: `self` proves AVX-512F; the store writes the 64 bytes of
        // `dst`, and `storeu` needs no alignment.
        unsafe { _mm512_storeu_si512(dst.as_mut_ptr().cast(), self.0) }
    }

    #[inline(always)]
    unsafe fn load_block(ptrs: &[*const u8], off: usize) -> [Self; 16] {
        // SAFETY: the caller vouches for AVX-512F.
        let mut r = [unsafe { Self::splat(0) }; 16];
        // A loop, not `array::from_fn`: a closure does not inherit the
        // entry point's target features, so the intrinsic would stay a call.
        for (r, &p) in r.iter_mut().zip(&ptrs[..16]) {
            // SAFETY: the caller vouches for AVX-512F and for `off + 64`
            // readable bytes at each of the 16 pointers: one plain load of
            // bytes `off ..+ 64` per lane.
            *r = Self(unsafe { load64(p, off) });
        }
        transpose16(r)
    }

    const LOADS_LINES: bool = true;

    #[inline(always)]
    unsafe fn load_line(ptrs: &[*const u8], at: usize, back: usize, keep: u16) -> [Self; 16] {
        // SAFETY: the caller vouches for AVX-512F.
        let mut r = [unsafe { Self::splat(0) }; 16];
        // A loop, as in `load_block`.
        for (r, &p) in r.iter_mut().zip(&ptrs[..16]) {
            // SAFETY: the caller vouches for AVX-512F and for the words
            // `keep` selects at `p + at - back`; a masked load neither reads
            // nor faults on the others, so the address may lie outside the
            // lane's bytes (`wrapping_*`).
            *r = Self(unsafe {
                _mm512_maskz_loadu_epi32(keep, p.wrapping_add(at).wrapping_sub(back).cast())
            });
        }
        transpose16(r)
    }

    #[inline(always)]
    fn first(self) -> u32 {
        // SAFETY: `self` proves AVX-512F.
        unsafe { _mm_cvtsi128_si32(_mm512_castsi512_si128(self.0)) as u32 }
    }

    #[inline(always)]
    fn add(self, other: Self) -> Self {
        // SAFETY: `self` proves AVX-512F.
        Self(unsafe { _mm512_add_epi32(self.0, other.0) })
    }

    #[inline(always)]
    fn sub(self, other: Self) -> Self {
        // SAFETY: `self` proves AVX-512F.
        Self(unsafe { _mm512_sub_epi32(self.0, other.0) })
    }

    #[inline(always)]
    fn and(self, other: Self) -> Self {
        // SAFETY: `self` proves AVX-512F.
        Self(unsafe { _mm512_and_si512(self.0, other.0) })
    }

    #[inline(always)]
    fn andnot(self, other: Self) -> Self {
        // SAFETY: `self` proves AVX-512F.
        Self(unsafe { _mm512_andnot_si512(self.0, other.0) })
    }

    #[inline(always)]
    fn or(self, other: Self) -> Self {
        // SAFETY: `self` proves AVX-512F.
        Self(unsafe { _mm512_or_si512(self.0, other.0) })
    }

    #[inline(always)]
    fn xor(self, other: Self) -> Self {
        // SAFETY: `self` proves AVX-512F.
        Self(unsafe { _mm512_xor_si512(self.0, other.0) })
    }

    /// One `vprold`.
    #[inline(always)]
    fn rotl<const L: i32, const R: i32>(self) -> Self {
        // SAFETY: `self` proves AVX-512F.
        Self(unsafe { _mm512_rol_epi32::<L>(self.0) })
    }

    /// One `vpternlogd`, whose immediate is the truth table.
    #[inline(always)]
    fn logic<const IMM: i32>(a: Self, b: Self, c: Self) -> Self {
        // SAFETY: `a` proves AVX-512F.
        Self(unsafe { _mm512_ternarylogic_epi32::<IMM>(a.0, b.0, c.0) })
    }

    #[cfg(not(miri))]
    #[inline(always)]
    fn opaque(self) -> Self {
        // SAFETY: `self` proves AVX-512F.
        Self(unsafe { opaque(self.0) })
    }

    /// `G` is one `vpternlogd` like the others: nothing gains from adding
    /// its halves one at a time.
    #[inline(always)]
    fn add_g(t: Self, b: Self, c: Self, d: Self) -> Self {
        t.opaque().add(Self::logic::<{ lane_vector::G }>(b, c, d))
    }
}

entry_points!(V16, "avx512f,avx512vl");

opaque_fn!(__m512i, zmm_reg, "avx512f", "/* {0} */");
