//! x86_64 SSE2 lane vector: four 32-bit lanes of an `__m128i`, and the
//! kernel's entry points. SSE2 is part of every x86_64 target with SIMD
//! registers, so this is the kernel where AVX2 is missing.
//!
//! Its own trick: without a rotate instruction, `b + rotl(t, s)` adds `b` to
//! one shifted half at a time.

use super::lane_vector::LaneVector;
use core::arch::x86_64::*;

/// Four lanes. SSE2 is baseline where this module is built (see `kernel.rs`),
/// so every CPU running this code has it.
#[derive(Clone, Copy)]
pub(super) struct V4(__m128i);

impl LaneVector for V4 {
    const LANES: usize = 4;
    const I_BY_SUB: bool = true;

    x86_moves!(baseline, 4; _mm_set1_epi32, _mm_loadu_si128, _mm_storeu_si128, _mm_cvtsi128_si32);

    #[inline(always)]
    unsafe fn load_block(ptrs: &[*const u8], off: usize) -> [Self; 16] {
        let p = &ptrs[..4];
        let mut m = [V4(baseline!(_mm_setzero_si128())); 16];
        for q in 0..4 {
            // Row `j`: words `4q..4q + 4` of lane `j`, one plain load of
            // bytes `off + 16 * q ..+ 16`, within the `off + 64` the caller
            // vouches for; `loadu` needs no alignment.
            let mut r = [m[0].0; 4];
            for (j, r) in r.iter_mut().enumerate() {
                *r = baseline!(_mm_loadu_si128(p[j].add(off + 16 * q).cast()));
            }
            // Transpose: result `w` holds word `4q + w` of lanes `0..4`.
            let (t0, t1, t2, t3) = baseline!((
                _mm_unpacklo_epi32(r[0], r[1]),
                _mm_unpackhi_epi32(r[0], r[1]),
                _mm_unpacklo_epi32(r[2], r[3]),
                _mm_unpackhi_epi32(r[2], r[3]),
            ));
            m[4 * q] = V4(baseline!(_mm_unpacklo_epi64(t0, t2)));
            m[4 * q + 1] = V4(baseline!(_mm_unpackhi_epi64(t0, t2)));
            m[4 * q + 2] = V4(baseline!(_mm_unpacklo_epi64(t1, t3)));
            m[4 * q + 3] = V4(baseline!(_mm_unpackhi_epi64(t1, t3)));
        }
        m
    }

    binary_ops!(baseline;
        add => _mm_add_epi32,
        sub => _mm_sub_epi32,
        and => _mm_and_si128,
        andnot => _mm_andnot_si128,
        or => _mm_or_si128,
        xor => _mm_xor_si128,
    );

    #[inline(always)]
    fn rotl<const L: i32, const R: i32>(self) -> Self {
        V4(baseline!(_mm_or_si128(
            _mm_slli_epi32::<L>(self.0),
            _mm_srli_epi32::<R>(self.0)
        )))
    }

    #[cfg(not(miri))]
    #[inline(always)]
    fn opaque(self) -> Self {
        Self(baseline!(opaque(self.0)))
    }

    /// The two shifted halves share no set bit, so the rotation's `|` is a
    /// `+`, and `b` joins the first half while the second shift is still
    /// waiting: the two shifts often issue a cycle apart, and an `|` of both
    /// would wait for the later one. The barrier stops LLVM from folding the
    /// halves back into a rotation.
    #[inline(always)]
    fn add_rotl<const L: i32, const R: i32>(t: Self, b: Self) -> Self {
        let hi = b.add(V4(baseline!(_mm_slli_epi32::<L>(t.0)))).opaque();
        hi.add(V4(baseline!(_mm_srli_epi32::<R>(t.0))))
    }
}

entry_points!(V4, "sse2");
opaque_fn!(__m128i, xmm_reg, "sse2", "/* {0} */");
