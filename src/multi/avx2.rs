//! x86_64 AVX2 lane vector: eight 32-bit lanes of an `__m256i`, and the
//! kernel's `#[target_feature(enable = "avx2")]` entry points. Chosen at
//! run time when the CPU has AVX2.
//!
//! Its own tricks: the rotation by 16 is one byte shuffle, and the other
//! rotations add `b` to one shifted half at a time.

use super::lane_vector::{LaneVector, X86};
use core::arch::x86_64::*;

runtime_isa! {
    $ avx2,
    /// Eight lanes.
    V8(__m256i)
}

impl LaneVector for V8 {
    x86_shared! {
        avx2, 8;
        _mm256_set1_epi32, _mm256_loadu_si256, _mm256_storeu_si256, _mm256_cvtsi256_si32;
        _mm256_add_epi32, _mm256_sub_epi32, _mm256_and_si256, _mm256_andnot_si256,
        _mm256_or_si256, _mm256_xor_si256
    }
}

x86_items! {
    V8, avx2, "avx2", __m256i, ymm_reg;
    _mm256_slli_epi32, _mm256_srli_epi32,
    _mm256_unpacklo_epi32, _mm256_unpackhi_epi32, _mm256_unpacklo_epi64, _mm256_unpackhi_epi64;

    // Lanes `j` and `j + 4` share a row: one plain 16-byte load each
    // (`loadu` needs no alignment); the caller vouches for `at + 16`
    // readable bytes at both.
    row(ptrs, j, at) {
        Self(avx2!(_mm256_set_m128i(
            _mm_loadu_si128(ptrs[j + 4].add(at).cast()),
            _mm_loadu_si128(ptrs[j].add(at).cast()),
        )))
    }

    /// One byte shuffle that swaps the halves of each lane.
    #[inline(always)]
    fn add_rotl16(t: Self, b: Self) -> Self {
        // Hidden, or LLVM makes the shuffle two word shuffles in a row.
        let swap = avx2!(V8(_mm256_setr_epi8(
            2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13, //
            2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13,
        )))
        .opaque();
        b.add(V8(avx2!(_mm256_shuffle_epi8(t.0, swap.0))))
    }
}
