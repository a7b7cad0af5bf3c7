//! Outputs too large for the caches (a million rows of hex is 32 MB, of
//! digests 16), written past them: non-temporal stores write whole lines
//! without first reading each one in, the read a plain store's miss costs.
//! Encoded columns go a piece at a time through a buffer in L1
//! ([`encode_past_cache`]), digests a set at a time (`scheduler/sets.rs`);
//! the output may lie at any alignment. And the other side: a line asked
//! for ahead of its read ([`prefetch`]).

use super::tuning::PAST_CACHE_BYTES;

/// Rows a piece: 4 KiB of hex, in L1 between its encoding and its copy.
const PIECE: usize = 128;

/// Whether an output of `bytes` goes past the caches ([`PAST_CACHE_BYTES`]
/// or more, on x86_64 with SSE2). Not under Miri, where [`copy_past_cache`] is a
/// plain copy.
pub(crate) fn past_cache(bytes: usize) -> bool {
    cfg!(all(md5_sse2, not(miri))) && bytes >= PAST_CACHE_BYTES
}

/// Writes `encode(digests)` to `out`, of the same length, as `encode`
/// does, a piece at a time through a buffer in L1 and past the caches.
pub(crate) fn encode_past_cache<const N: usize>(
    digests: &[[u8; 16]],
    out: &mut [[u8; N]],
    encode: fn(&[[u8; 16]], &mut [[u8; N]]),
) {
    debug_assert_eq!(digests.len(), out.len());
    let mut piece = [[0u8; N]; PIECE];
    for (d, o) in digests.chunks(PIECE).zip(out.chunks_mut(PIECE)) {
        let piece = &mut piece[..d.len()];
        encode(d, piece);
        copy_past_cache(piece.as_flattened(), o.as_flattened_mut());
    }
    fence();
}

/// Copies `src` to `dst`, of the same length: the 16-byte-aligned middle
/// of `dst` by non-temporal stores on x86_64, its ends by plain ones.
/// [`fence`] orders them before the stores after it.
pub(crate) fn copy_past_cache(src: &[u8], dst: &mut [u8]) {
    assert_eq!(src.len(), dst.len());
    #[cfg(all(md5_sse2, not(miri)))]
    {
        use core::arch::x86_64::{_mm_loadu_si128, _mm_stream_si128};
        let head = dst.as_ptr().align_offset(16).min(dst.len());
        let (head, rest) = dst.split_at_mut(head);
        let (src_head, src) = src.split_at(head.len());
        head.copy_from_slice(src_head);
        let (mid, tail) = rest.split_at_mut(rest.len() / 16 * 16);
        let (src_mid, src_tail) = src.split_at(mid.len());
        for (d, s) in mid.chunks_exact_mut(16).zip(src_mid.chunks_exact(16)) {
            // SAFETY: SSE2 is baseline on x86_64; the load reads the 16
            // bytes of `s` (`loadu` needs no alignment), the store writes
            // the 16 bytes of `d`, 16-byte aligned (`head` above).
            unsafe { _mm_stream_si128(d.as_mut_ptr().cast(), _mm_loadu_si128(s.as_ptr().cast())) };
        }
        tail.copy_from_slice(src_tail);
    }
    #[cfg(not(all(md5_sse2, not(miri))))]
    dst.copy_from_slice(src);
}

/// Orders the non-temporal stores before it before every store after it,
/// so that the output is complete for whoever is handed it next (another
/// thread included).
pub(crate) fn fence() {
    #[cfg(all(md5_sse2, not(miri)))]
    // SAFETY: SSE is baseline on x86_64; `sfence` only orders stores.
    unsafe {
        core::arch::x86_64::_mm_sfence()
    };
}

/// Asks for the cache line of `p` in every cache level. x86_64 only;
/// elsewhere, and under Miri, nothing (AArch64's prefetch intrinsic is not
/// stable).
#[inline(always)]
pub(crate) fn prefetch(p: *const u8) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    // SAFETY: SSE is baseline on x86_64; `prefetcht0` reads no memory
    // architecturally and cannot fault, whatever the address.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p.cast())
    };
    #[cfg(any(not(target_arch = "x86_64"), miri))]
    let _ = p;
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec::Vec;

    /// Every alignment of the output and every length about the 16-byte
    /// stores: the same bytes as a plain copy, nothing written past.
    #[test]
    fn copy_past_cache_at_every_alignment() {
        let src: Vec<u8> = (0..300u32).map(|i| (i * 7 + 3) as u8).collect();
        for at in 0..16 {
            for len in (0..80).chain([255, 256, 257, 280]) {
                let mut dst = [0xaau8; 320];
                super::copy_past_cache(&src[..len], &mut dst[at..at + len]);
                super::fence();
                assert_eq!(&dst[at..at + len], &src[..len], "at {at}, len {len}");
                assert!(dst[..at].iter().chain(&dst[at + len..]).all(|&b| b == 0xaa));
            }
        }
    }
}
