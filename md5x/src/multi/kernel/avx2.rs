//! x86_64 AVX2 lane vector: eight 32-bit lanes of an `__m256i`, and the
//! kernel's `#[target_feature(enable = "avx2")]` entry points. Chosen at
//! run time when the CPU has AVX2.
//!
//! Its own tricks: the rotation by 16 is one byte shuffle, and the other
//! rotations add `b` to one shifted half at a time.

use super::lane_vector::{LaneVector, X86};
use core::arch::x86_64::*;

/// Eight lanes. A value exists only where the CPU has AVX2: the unsafe
/// constructors' callers vouch for it, and every method that takes a `V8`
/// relies on it.
#[derive(Clone, Copy)]
pub(super) struct V8(pub(super) __m256i);

/// The 16 bytes at `p + at`.
///
/// # Safety
///
/// Bytes `p + at ..+ 16` are readable.
#[inline(always)]
unsafe fn load16(p: *const u8, at: usize) -> __m128i {
    // SAFETY: SSE2 is baseline where this module is built; the load reads
    // the 16 bytes at `p + at`, which the caller vouches for, and `loadu`
    // needs no alignment.
    unsafe { _mm_loadu_si128(p.add(at).cast()) }
}

impl LaneVector for V8 {
    const LANES: usize = 8;

    /// As AVX-512's (see `body.rs`, `NextBlock`); measured only on a CPU
    /// that has AVX-512 too, not yet where AVX2 is the widest kernel.
    const LOADS_AHEAD: bool = true;

    const I_BY_SUB: bool = true;

    #[inline(always)]
    unsafe fn splat(x: u32) -> Self {
        // SAFETY: the caller vouches for AVX2.
        Self(unsafe { _mm256_set1_epi32(x as i32) })
    }

    #[inline(always)]
    unsafe fn load(src: *const u32) -> Self {
        // SAFETY: the caller vouches for AVX2 and for the 32 bytes (8
        // words) at `src`; `loadu` needs no alignment.
        Self(unsafe { _mm256_loadu_si256(src.cast()) })
    }

    #[inline(always)]
    fn store(self, dst: &mut [u32]) {
        let dst = &mut dst[..8];
        // SAFETY: `self` proves AVX2; the store writes the 32 bytes of
        // `dst`, and `storeu` needs no alignment.
        unsafe { _mm256_storeu_si256(dst.as_mut_ptr().cast(), self.0) }
    }

    #[inline(always)]
    unsafe fn load_block(ptrs: &[*const u8], off: usize) -> [Self; 16] {
        // SAFETY: the caller's contract is the same.
        unsafe { Self::load_block_by_rows(ptrs, off) }
    }

    #[inline(always)]
    fn first(self) -> u32 {
        // SAFETY: `self` proves AVX2.
        unsafe { _mm256_cvtsi256_si32(self.0) as u32 }
    }

    #[inline(always)]
    fn add(self, other: Self) -> Self {
        // SAFETY: `self` proves AVX2.
        Self(unsafe { _mm256_add_epi32(self.0, other.0) })
    }

    #[inline(always)]
    fn sub(self, other: Self) -> Self {
        // SAFETY: `self` proves AVX2.
        Self(unsafe { _mm256_sub_epi32(self.0, other.0) })
    }

    #[inline(always)]
    fn and(self, other: Self) -> Self {
        // SAFETY: `self` proves AVX2.
        Self(unsafe { _mm256_and_si256(self.0, other.0) })
    }

    #[inline(always)]
    fn andnot(self, other: Self) -> Self {
        // SAFETY: `self` proves AVX2.
        Self(unsafe { _mm256_andnot_si256(self.0, other.0) })
    }

    #[inline(always)]
    fn or(self, other: Self) -> Self {
        // SAFETY: `self` proves AVX2.
        Self(unsafe { _mm256_or_si256(self.0, other.0) })
    }

    #[inline(always)]
    fn xor(self, other: Self) -> Self {
        // SAFETY: `self` proves AVX2.
        Self(unsafe { _mm256_xor_si256(self.0, other.0) })
    }

    #[inline(always)]
    fn rotl<const L: i32, const R: i32>(self) -> Self {
        self.rotl_by_shifts::<L, R>()
    }

    #[inline(always)]
    fn add_rotl<const L: i32, const R: i32>(t: Self, b: Self) -> Self {
        if L == 16 {
            Self::add_rotl16(t, b)
        } else {
            Self::add_rotl_by_shifts::<L, R>(t, b)
        }
    }

    #[cfg(not(miri))]
    #[inline(always)]
    fn opaque(self) -> Self {
        // SAFETY: `self` proves AVX2.
        Self(unsafe { opaque(self.0) })
    }
}

impl X86 for V8 {
    #[inline(always)]
    fn shl<const S: i32>(self) -> Self {
        // SAFETY: `self` proves AVX2.
        Self(unsafe { _mm256_slli_epi32::<S>(self.0) })
    }

    #[inline(always)]
    fn shr<const S: i32>(self) -> Self {
        // SAFETY: `self` proves AVX2.
        Self(unsafe { _mm256_srli_epi32::<S>(self.0) })
    }

    #[inline(always)]
    fn unpacklo32(self, other: Self) -> Self {
        // SAFETY: `self` proves AVX2.
        Self(unsafe { _mm256_unpacklo_epi32(self.0, other.0) })
    }

    #[inline(always)]
    fn unpackhi32(self, other: Self) -> Self {
        // SAFETY: `self` proves AVX2.
        Self(unsafe { _mm256_unpackhi_epi32(self.0, other.0) })
    }

    #[inline(always)]
    fn unpacklo64(self, other: Self) -> Self {
        // SAFETY: `self` proves AVX2.
        Self(unsafe { _mm256_unpacklo_epi64(self.0, other.0) })
    }

    #[inline(always)]
    fn unpackhi64(self, other: Self) -> Self {
        // SAFETY: `self` proves AVX2.
        Self(unsafe { _mm256_unpackhi_epi64(self.0, other.0) })
    }

    /// Lanes `j` and `j + 4` share a row: one plain 16-byte load each.
    #[inline(always)]
    unsafe fn row(ptrs: &[*const u8], j: usize, at: usize) -> Self {
        // SAFETY: the caller vouches for `at + 16` readable bytes at
        // `ptrs[j]` and `ptrs[j + 4]`.
        let (hi, lo) = unsafe { (load16(ptrs[j + 4], at), load16(ptrs[j], at)) };
        // SAFETY: the caller vouches for AVX2.
        Self(unsafe { _mm256_set_m128i(hi, lo) })
    }

    /// One byte shuffle that swaps the halves of each lane.
    #[inline(always)]
    fn add_rotl16(t: Self, b: Self) -> Self {
        // SAFETY: `t` proves AVX2.
        let swap = V8(unsafe {
            _mm256_setr_epi8(
                2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13, //
                2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13,
            )
        })
        // Hidden, or LLVM makes the shuffle two word shuffles in a row.
        .opaque();
        // SAFETY: `t` proves AVX2.
        b.add(V8(unsafe { _mm256_shuffle_epi8(t.0, swap.0) }))
    }
}

entry_points!(V8, "avx2");

opaque_fn!(__m256i, ymm_reg, "avx2", "/* {0} */");
