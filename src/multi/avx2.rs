//! x86_64 AVX2 lane vector: eight 32-bit lanes of an `__m256i`, and the
//! kernel's `#[target_feature(enable = "avx2")]` entry points. Chosen at
//! run time when the CPU has AVX2.
//!
//! Its own tricks: the rotation by 16 is one byte shuffle, and the other
//! rotations add `b` to one shifted half at a time.

use super::lane_vector::LaneVector;
use core::arch::x86_64::*;

/// Eight lanes. A value exists only where the CPU has AVX2: the unsafe
/// constructors' callers vouch for it.
#[derive(Clone, Copy)]
pub(super) struct V8(__m256i);

/// Runs AVX2 intrinsics, in a method of [`V8`].
macro_rules! avx2 {
    ($e:expr) => {
        // SAFETY: the CPU has AVX2: the method takes a `V8`, which proves
        // it, or is a constructor whose caller vouches for it.
        unsafe { $e }
    };
}

/// Transposes four rows within each 128-bit half: row `j` holds words
/// `0..4` of lane `j` in its low half and of lane `j + 4` in its high half;
/// result `w` holds word `w` of lanes `0..8`.
#[inline(always)]
fn transpose4(r: [V8; 4]) -> [V8; 4] {
    avx2!({
        let t0 = _mm256_unpacklo_epi32(r[0].0, r[1].0);
        let t1 = _mm256_unpackhi_epi32(r[0].0, r[1].0);
        let t2 = _mm256_unpacklo_epi32(r[2].0, r[3].0);
        let t3 = _mm256_unpackhi_epi32(r[2].0, r[3].0);
        [
            V8(_mm256_unpacklo_epi64(t0, t2)),
            V8(_mm256_unpackhi_epi64(t0, t2)),
            V8(_mm256_unpacklo_epi64(t1, t3)),
            V8(_mm256_unpackhi_epi64(t1, t3)),
        ]
    })
}

impl LaneVector for V8 {
    const LANES: usize = 8;
    const I_BY_SUB: bool = true;

    x86_moves!(avx2, 8; _mm256_set1_epi32, _mm256_loadu_si256, _mm256_storeu_si256, _mm256_cvtsi256_si32);

    #[inline(always)]
    unsafe fn load_block(ptrs: &[*const u8], off: usize) -> [Self; 16] {
        let p = &ptrs[..8];
        let mut m = [avx2!(Self::splat(0)); 16];
        for q in 0..4 {
            // Lanes `j` and `j + 4` share a row: one plain 16-byte load
            // each, of bytes `off + 16 * q ..+ 16`, within the `off + 64`
            // the caller vouches for; `loadu` needs no alignment.
            let mut r = [m[0]; 4];
            for (j, r) in r.iter_mut().enumerate() {
                *r = avx2!(V8(_mm256_set_m128i(
                    _mm_loadu_si128(p[j + 4].add(off + 16 * q).cast()),
                    _mm_loadu_si128(p[j].add(off + 16 * q).cast()),
                )));
            }
            m[4 * q..4 * q + 4].copy_from_slice(&transpose4(r));
        }
        m
    }

    binary_ops!(avx2;
        add => _mm256_add_epi32,
        sub => _mm256_sub_epi32,
        and => _mm256_and_si256,
        andnot => _mm256_andnot_si256,
        or => _mm256_or_si256,
        xor => _mm256_xor_si256,
    );

    #[inline(always)]
    fn rotl<const L: i32, const R: i32>(self) -> Self {
        self.shl::<L>().or(self.shr::<R>())
    }

    #[cfg(not(miri))]
    #[inline(always)]
    fn opaque(self) -> Self {
        Self(avx2!(opaque(self.0)))
    }

    /// By 16, one byte shuffle that swaps the halves of each lane; else
    /// `b` joins one shifted half at a time (see `sse2.rs`).
    #[inline(always)]
    fn add_rotl<const L: i32, const R: i32>(t: Self, b: Self) -> Self {
        if L == 16 {
            // Hidden, or LLVM makes the shuffle two word shuffles in a row.
            let swap = avx2!(V8(_mm256_setr_epi8(
                2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13, //
                2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13,
            )))
            .opaque();
            b.add(V8(avx2!(_mm256_shuffle_epi8(t.0, swap.0))))
        } else {
            b.add(t.shl::<L>()).opaque().add(t.shr::<R>())
        }
    }
}

impl V8 {
    #[inline(always)]
    fn shl<const S: i32>(self) -> Self {
        Self(avx2!(_mm256_slli_epi32::<S>(self.0)))
    }

    #[inline(always)]
    fn shr<const S: i32>(self) -> Self {
        Self(avx2!(_mm256_srli_epi32::<S>(self.0)))
    }
}

entry_points!(V8, "avx2");
opaque_fn!(__m256i, ymm_reg, "avx2", "/* {0} */");
