//! x86_64 SSE2 lane vector: four 32-bit lanes of an `__m128i`, and the
//! kernel's entry points. SSE2 is part of every x86_64 target with SIMD
//! registers, so this is the kernel where AVX2 is missing.
//!
//! Its own trick: without a rotate instruction, `b + rotl(t, s)` adds `b` to
//! one shifted half at a time.

use super::lane_vector::{LaneVector, X86};
use core::arch::x86_64::*;

/// Four lanes. This module is built only where the target enables SSE2
/// (`md5_sse2`, see `build.rs`), so every CPU running it has SSE2: that is
/// the whole safety argument of the register intrinsics below.
#[derive(Clone, Copy)]
pub(super) struct V4(__m128i);

/// The 16 bytes at `p + at`.
///
/// # Safety
///
/// Bytes `p + at ..+ 16` are readable.
#[inline(always)]
unsafe fn load16(p: *const u8, at: usize) -> __m128i {
    // SAFETY: SSE2 is baseline here; the load reads the 16 bytes at `p +
    // at`, which the caller vouches for, and `loadu` needs no alignment.
    unsafe { _mm_loadu_si128(p.add(at).cast()) }
}

impl LaneVector for V4 {
    const LANES: usize = 4;
    const I_BY_SUB: bool = true;

    #[inline(always)]
    unsafe fn splat(x: u32) -> Self {
        // SAFETY: SSE2 is baseline here.
        Self(unsafe { _mm_set1_epi32(x as i32) })
    }

    #[inline(always)]
    unsafe fn load(src: *const u32) -> Self {
        // SAFETY: the caller vouches for the 16 bytes (4 words) at `src`.
        Self(unsafe { load16(src.cast(), 0) })
    }

    #[inline(always)]
    fn store(self, dst: &mut [u32]) {
        let dst = &mut dst[..4];
        // SAFETY: SSE2 is baseline here; the store writes the 16 bytes of
        // `dst`, and `storeu` needs no alignment.
        unsafe { _mm_storeu_si128(dst.as_mut_ptr().cast(), self.0) }
    }

    #[inline(always)]
    unsafe fn load_block(ptrs: &[*const u8], off: usize) -> [Self; 16] {
        // SAFETY: the caller's contract is the same.
        unsafe { Self::load_block_by_rows(ptrs, off) }
    }

    #[inline(always)]
    fn first(self) -> u32 {
        // SAFETY: SSE2 is baseline here.
        unsafe { _mm_cvtsi128_si32(self.0) as u32 }
    }

    #[inline(always)]
    fn add(self, other: Self) -> Self {
        // SAFETY: SSE2 is baseline here.
        Self(unsafe { _mm_add_epi32(self.0, other.0) })
    }

    #[inline(always)]
    fn sub(self, other: Self) -> Self {
        // SAFETY: SSE2 is baseline here.
        Self(unsafe { _mm_sub_epi32(self.0, other.0) })
    }

    #[inline(always)]
    fn and(self, other: Self) -> Self {
        // SAFETY: SSE2 is baseline here.
        Self(unsafe { _mm_and_si128(self.0, other.0) })
    }

    #[inline(always)]
    fn andnot(self, other: Self) -> Self {
        // SAFETY: SSE2 is baseline here.
        Self(unsafe { _mm_andnot_si128(self.0, other.0) })
    }

    #[inline(always)]
    fn or(self, other: Self) -> Self {
        // SAFETY: SSE2 is baseline here.
        Self(unsafe { _mm_or_si128(self.0, other.0) })
    }

    #[inline(always)]
    fn xor(self, other: Self) -> Self {
        // SAFETY: SSE2 is baseline here.
        Self(unsafe { _mm_xor_si128(self.0, other.0) })
    }

    #[inline(always)]
    fn rotl<const L: i32, const R: i32>(self) -> Self {
        self.rotl_by_shifts::<L, R>()
    }

    #[inline(always)]
    fn add_rotl<const L: i32, const R: i32>(t: Self, b: Self) -> Self {
        Self::add_rotl_by_shifts::<L, R>(t, b)
    }

    #[cfg(not(miri))]
    #[inline(always)]
    fn opaque(self) -> Self {
        // SAFETY: SSE2 is baseline here.
        Self(unsafe { opaque(self.0) })
    }
}

impl X86 for V4 {
    #[inline(always)]
    fn shl<const S: i32>(self) -> Self {
        // SAFETY: SSE2 is baseline here.
        Self(unsafe { _mm_slli_epi32::<S>(self.0) })
    }

    #[inline(always)]
    fn shr<const S: i32>(self) -> Self {
        // SAFETY: SSE2 is baseline here.
        Self(unsafe { _mm_srli_epi32::<S>(self.0) })
    }

    #[inline(always)]
    fn unpacklo32(self, other: Self) -> Self {
        // SAFETY: SSE2 is baseline here.
        Self(unsafe { _mm_unpacklo_epi32(self.0, other.0) })
    }

    #[inline(always)]
    fn unpackhi32(self, other: Self) -> Self {
        // SAFETY: SSE2 is baseline here.
        Self(unsafe { _mm_unpackhi_epi32(self.0, other.0) })
    }

    #[inline(always)]
    fn unpacklo64(self, other: Self) -> Self {
        // SAFETY: SSE2 is baseline here.
        Self(unsafe { _mm_unpacklo_epi64(self.0, other.0) })
    }

    #[inline(always)]
    fn unpackhi64(self, other: Self) -> Self {
        // SAFETY: SSE2 is baseline here.
        Self(unsafe { _mm_unpackhi_epi64(self.0, other.0) })
    }

    /// Lane `j`'s four words, one plain load.
    #[inline(always)]
    unsafe fn row(ptrs: &[*const u8], j: usize, at: usize) -> Self {
        // SAFETY: the caller vouches for `at + 16` readable bytes at
        // `ptrs[j]`.
        Self(unsafe { load16(ptrs[j], at) })
    }
}

entry_points!(V4, "sse2");

opaque_fn!(__m128i, xmm_reg, "sse2", "/* {0} */");
