//! Equal whole-block messages on AVX2, a full set of 64 to 256 bytes each
//! at once: the kernel's body from a start splatted in registers, then the
//! set's shared padding block, the digests going straight from the state
//! registers to their slots. The scheduler's own way for such sets stores
//! the start state for every lane and takes the digests out of memory
//! four lanes at a time; this way skips both, which pays where messages
//! are this short and those stores and loads a large part of the work.

use super::avx2::V8;
use super::body;
use crate::multi::lane_state::{BlockPtrs, SetAhead};
use core::arch::x86_64::*;

/// Hashes `8 * G` messages of `blocks` whole blocks each, at `ptrs`, from
/// `start`, then their shared last block `last` (their padding), and
/// writes message `i`'s digest to `out[i]`: the AVX2 kernel's body from a
/// splatted start, its state going straight out; `next` and `ahead` as
/// for the body's `compress_from`.
///
/// # Safety
///
/// The CPU has AVX2; `ptrs[i]` is valid for reads of `blocks * 64` bytes
/// for each `i < 8 * G`; with `next`, `next[i]` is valid for reads of 64
/// bytes for each `i < 8 * G`.
#[target_feature(enable = "avx2")]
#[inline(never)]
pub(super) unsafe fn equal_blocks<const G: usize>(
    ptrs: &BlockPtrs,
    blocks: usize,
    last: &[u32; 16],
    start: [u32; 4],
    out: &mut [[u8; 16]],
    next: Option<&BlockPtrs>,
    ahead: &mut SetAhead,
) {
    assert!(out.len() == 8 * G);
    // SAFETY: the caller's contract is the body's.
    let s =
        unsafe { body::compress_from::<V8, G, false>(start, ptrs, blocks, last, 0, next, ahead) };
    // SAFETY: the ISA as above.
    unsafe { store_digests(&s, out) };
}

/// Writes the digests of the `8 * G` lanes of `s` to `out`.
///
/// # Safety
///
/// The CPU has AVX2.
#[inline(always)]
unsafe fn store_digests<const G: usize>(s: &[[V8; G]; 4], out: &mut [[u8; 16]]) {
    for (g, out) in out.chunks_exact_mut(8).enumerate() {
        let [a, b, c, d] = [s[0][g].0, s[1][g].0, s[2][g].0, s[3][g].0];
        // SAFETY: the caller vouches for AVX2; `out` is 8 digests, 128
        // bytes, written as four 32-byte stores, and `storeu` needs no
        // alignment.
        unsafe {
            let (t0, t1) = (_mm256_unpacklo_epi32(a, b), _mm256_unpackhi_epi32(a, b));
            let (t2, t3) = (_mm256_unpacklo_epi32(c, d), _mm256_unpackhi_epi32(c, d));
            // `u[i]`: lane `i`'s digest in its low half, lane `i + 4`'s in
            // its high half.
            let u = [
                _mm256_unpacklo_epi64(t0, t2),
                _mm256_unpackhi_epi64(t0, t2),
                _mm256_unpacklo_epi64(t1, t3),
                _mm256_unpackhi_epi64(t1, t3),
            ];
            let pairs = [
                _mm256_permute2x128_si256::<0x20>(u[0], u[1]),
                _mm256_permute2x128_si256::<0x20>(u[2], u[3]),
                _mm256_permute2x128_si256::<0x31>(u[0], u[1]),
                _mm256_permute2x128_si256::<0x31>(u[2], u[3]),
            ];
            for (two, v) in out.chunks_exact_mut(2).zip(pairs) {
                _mm256_storeu_si256(two.as_mut_ptr().cast(), v);
            }
        }
    }
}
