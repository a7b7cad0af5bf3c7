//! x86_64 SSE2 lane vector: four 32-bit lanes of an `__m128i`, and the
//! kernel's entry points. SSE2 is part of every x86_64 target with SIMD
//! registers, so this is the kernel where AVX2 is missing.
//!
//! Its own trick: without a rotate instruction, `b + rotl(t, s)` adds `b` to
//! one shifted half at a time.

use super::lane_vector::{LaneVector, X86};
use core::arch::x86_64::*;

/// Four lanes. SSE2 is baseline where this module is built (see `kernel.rs`),
/// so every CPU running this code has it.
#[derive(Clone, Copy)]
pub(super) struct V4(__m128i);

impl LaneVector for V4 {
    x86_shared! {
        baseline, 4;
        _mm_set1_epi32, _mm_loadu_si128, _mm_storeu_si128, _mm_cvtsi128_si32;
        _mm_add_epi32, _mm_sub_epi32, _mm_and_si128, _mm_andnot_si128, _mm_or_si128, _mm_xor_si128
    }
}

x86_items! {
    V4, baseline, "sse2", __m128i, xmm_reg;
    _mm_slli_epi32, _mm_srli_epi32,
    _mm_unpacklo_epi32, _mm_unpackhi_epi32, _mm_unpacklo_epi64, _mm_unpackhi_epi64;

    // Lane `j`'s words, one plain load (`loadu` needs no alignment); the
    // caller vouches for `at + 16` readable bytes.
    row(ptrs, j, at) {
        Self(baseline!(_mm_loadu_si128(ptrs[j].add(at).cast())))
    }
}
