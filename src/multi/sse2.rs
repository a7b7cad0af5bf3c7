//! x86_64 SSE2 lane vector: four 32-bit lanes of an `__m128i`, and the
//! kernel's entry points. SSE2 is part of every x86_64 target with SIMD
//! registers, so this is the kernel where AVX2 is missing.
//!
//! Its own trick: without a rotate instruction, `b + rotl(t, s)` adds `b` to
//! one shifted half at a time.

use super::lane_vector::LaneVector;
use super::{body, Ptrs, Soa};
use core::arch::x86_64::*;

/// Four lanes. SSE2 is baseline where this module is built (see `kernel.rs`),
/// so every CPU running this code has it.
#[derive(Clone, Copy)]
pub(super) struct V4(__m128i);

/// Runs SSE2 intrinsics, in a method of [`V4`].
macro_rules! sse2 {
    ($e:expr) => {
        // SAFETY: this module is built only where the target enables SSE2,
        // so the CPU has it.
        unsafe { $e }
    };
}

impl LaneVector for V4 {
    const LANES: usize = 4;

    #[inline(always)]
    unsafe fn splat(x: u32) -> Self {
        Self(sse2!(_mm_set1_epi32(x as i32)))
    }

    #[inline(always)]
    unsafe fn load(src: *const u32) -> Self {
        // The caller vouches for 16 readable bytes; `loadu` needs no
        // alignment.
        Self(sse2!(_mm_loadu_si128(src.cast())))
    }

    #[inline(always)]
    fn store(self, dst: &mut [u32]) {
        let dst = &mut dst[..4];
        // 16 bytes fit in `dst`; `storeu` needs no alignment.
        sse2!(_mm_storeu_si128(dst.as_mut_ptr().cast(), self.0))
    }

    #[inline(always)]
    unsafe fn load_block(ptrs: &[*const u8], off: usize) -> [Self; 16] {
        let p = &ptrs[..4];
        let mut m = [V4(sse2!(_mm_setzero_si128())); 16];
        for q in 0..4 {
            // Row `j`: words `4q..4q + 4` of lane `j`, one plain load of
            // bytes `off + 16 * q ..+ 16`, within the `off + 64` the caller
            // vouches for; `loadu` needs no alignment.
            let r: [__m128i; 4] =
                core::array::from_fn(|j| sse2!(_mm_loadu_si128(p[j].add(off + 16 * q).cast())));
            // Transpose: result `w` holds word `4q + w` of lanes `0..4`.
            let (t0, t1, t2, t3) = sse2!((
                _mm_unpacklo_epi32(r[0], r[1]),
                _mm_unpackhi_epi32(r[0], r[1]),
                _mm_unpacklo_epi32(r[2], r[3]),
                _mm_unpackhi_epi32(r[2], r[3]),
            ));
            m[4 * q] = V4(sse2!(_mm_unpacklo_epi64(t0, t2)));
            m[4 * q + 1] = V4(sse2!(_mm_unpackhi_epi64(t0, t2)));
            m[4 * q + 2] = V4(sse2!(_mm_unpacklo_epi64(t1, t3)));
            m[4 * q + 3] = V4(sse2!(_mm_unpackhi_epi64(t1, t3)));
        }
        m
    }

    #[inline(always)]
    fn first(self) -> u32 {
        sse2!(_mm_cvtsi128_si32(self.0)) as u32
    }

    binary_ops!(sse2;
        add => _mm_add_epi32,
        and => _mm_and_si128,
        andnot => _mm_andnot_si128,
        or => _mm_or_si128,
        xor => _mm_xor_si128,
    );

    #[inline(always)]
    fn rotl<const L: i32, const R: i32>(self) -> Self {
        V4(sse2!(_mm_or_si128(
            _mm_slli_epi32::<L>(self.0),
            _mm_srli_epi32::<R>(self.0)
        )))
    }

    #[cfg(not(miri))]
    #[inline(always)]
    fn opaque(self) -> Self {
        Self(sse2!(opaque(self.0)))
    }

    /// The two shifted halves share no set bit, so the rotation's `|` is a
    /// `+`, and `b` joins the first half while the second shift is still
    /// waiting: the two shifts often issue a cycle apart, and an `|` of both
    /// would wait for the later one. The barrier stops LLVM from folding the
    /// halves back into a rotation.
    #[inline(always)]
    fn add_rotl<const L: i32, const R: i32>(t: Self, b: Self) -> Self {
        let hi = b.add(V4(sse2!(_mm_slli_epi32::<L>(t.0)))).opaque();
        hi.add(V4(sse2!(_mm_srli_epi32::<R>(t.0))))
    }
}

/// [`body::compress`] on `G` groups of four lanes.
///
/// # Safety
///
/// `ptrs[i]` is valid for reads of `blocks * 64` bytes for each `i < 4 *
/// G`. (SSE2 itself is baseline here.)
#[target_feature(enable = "sse2")]
pub(super) unsafe fn compress<const G: usize>(state: &mut Soa, ptrs: &Ptrs, blocks: usize) {
    // SAFETY: the caller's contract is the body's; SSE2 is baseline.
    unsafe { body::compress::<V4, G>(state, ptrs, blocks) }
}

/// [`body::transpose_only`] on `G` groups of four lanes.
///
/// # Safety
///
/// As for [`compress`].
#[target_feature(enable = "sse2")]
pub(super) unsafe fn transpose_only<const G: usize>(ptrs: &Ptrs, blocks: usize) -> u32 {
    // SAFETY: as in `compress`.
    unsafe { body::transpose_only::<V4, G>(ptrs, blocks) }
}

/// Returns `x` through an empty `asm!` block: see [`LaneVector::opaque`].
/// A function of its own, because the register class needs the target
/// feature, which the trait's methods cannot enable.
#[cfg(not(miri))]
#[target_feature(enable = "sse2")]
#[inline]
fn opaque(mut x: __m128i) -> __m128i {
    // SAFETY: the template is a comment; the block only names `x`'s
    // register and changes no memory, flags or stack.
    unsafe {
        core::arch::asm!(
            "/* {0} */",
            inout(xmm_reg) x,
            options(pure, nomem, nostack, preserves_flags)
        )
    };
    x
}
