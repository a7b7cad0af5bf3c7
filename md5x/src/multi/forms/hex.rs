//! Digests to lowercase hex, 32 ASCII bytes each: one nibble lookup per
//! byte. With SSE2 (x86_64) or NEON (aarch64), where the target enables
//! them, a digest is two 16-byte vectors of nibbles, interleaved and mapped
//! to ASCII a vector at a time; elsewhere, and with the portable backend
//! forced, a table lookup per nibble.

/// Writes each of `digests` in lowercase hex to the slot of `out` with the
/// same index: 32 ASCII bytes, what an Arrow `FixedSizeBinary(32)` column
/// holds, or a `Utf8` one whose offsets step by 32.
///
/// # Panics
///
/// If `digests` and `out` have different lengths.
///
/// ```
/// let mut hex = [[0u8; 32]; 1];
/// md5x::multi::hex_into(&[md5x::const_digest(b"abc")], &mut hex);
/// assert_eq!(&hex[0], b"900150983cd24fb0d6963f7d28e17f72");
/// ```
pub fn hex_into(digests: &[[u8; 16]], out: &mut [[u8; 32]]) {
    super::check_out("hex_into", digests.len(), out.len());
    match crate::multi::past_cache::past_cache(size_of_val(out)) {
        true => crate::multi::past_cache::encode_past_cache(digests, out, encode_all),
        false => encode_all(digests, out),
    }
}

/// `digests` in hex into `out`, of the same length: four at a time with
/// AVX-512BW where the CPU has it, the rest one at a time.
pub(super) fn encode_all(digests: &[[u8; 16]], out: &mut [[u8; 32]]) {
    let (digests, out) = (
        &digests[..digests.len().min(out.len())],
        &mut out[..digests.len()],
    );
    #[cfg(md5_sse2)]
    let (digests, out) = if avx512::detected() {
        let quads = digests.len() / 4;
        // SAFETY: the CPU has AVX-512F and BW (checked).
        unsafe { avx512::encode_quads(&digests[..4 * quads], &mut out[..4 * quads]) };
        (&digests[4 * quads..], &mut out[4 * quads..])
    } else {
        (digests, out)
    };
    for (d, o) in digests.iter().zip(out) {
        *o = encode(d);
    }
}

/// The hex digits, by value.
const DIGITS: &[u8; 16] = b"0123456789abcdef";

/// `digest` in lowercase hex.
#[inline]
pub(super) fn encode(digest: &[u8; 16]) -> [u8; 32] {
    if cfg!(any(md5_backend = "soft", feature = "force-soft")) {
        return portable(digest);
    }
    #[cfg(md5_sse2)]
    return sse2::encode(digest);
    #[cfg(md5_neon)]
    return neon::encode(digest);
    #[allow(unreachable_code)] // where a SIMD form returned above
    portable(digest)
}

/// One table lookup per nibble.
pub(crate) fn portable(digest: &[u8; 16]) -> [u8; 32] {
    let mut out = [0u8; 32];
    for (pair, &b) in out.chunks_exact_mut(2).zip(digest) {
        pair[0] = DIGITS[usize::from(b >> 4)];
        pair[1] = DIGITS[usize::from(b & 0xf)];
    }
    out
}

/// Four digests a 512-bit vector: their nibbles interleaved within each
/// 128-bit lane, looked up with one byte shuffle, and put in order by two
/// 64-bit permutes (well ahead of this loop's SSE2 form over a million
/// short rows).
#[cfg(md5_sse2)]
mod avx512 {
    use core::arch::x86_64::*;

    /// Whether the CPU has AVX-512F and BW; not under Miri, which cannot
    /// execute CPUID.
    pub(super) fn detected() -> bool {
        !cfg!(miri)
            && !cfg!(any(md5_backend = "soft", feature = "force-soft"))
            && crate::multi::platform::Platform::detect().avx512bw
    }

    /// Writes `digests` (a multiple of 4) in hex to `out`, of the same
    /// length.
    ///
    /// # Safety
    ///
    /// The CPU has AVX-512F and BW.
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(super) unsafe fn encode_quads(digests: &[[u8; 16]], out: &mut [[u8; 32]]) {
        // SAFETY: the 16 bytes of `DIGITS`; `loadu` needs no alignment.
        let digits = unsafe { _mm_loadu_si128(super::DIGITS.as_ptr().cast()) };
        let digits = _mm512_broadcast_i32x4(digits);
        let low = _mm512_set1_epi8(0xf);
        // Output vector `k` holds digests `2k` and `2k + 1`: 64-bit words
        // of the first interleave, `a`, then the second, `b` (8 + ...).
        let first = _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11);
        let second = _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15);
        for (d, o) in digests.chunks_exact(4).zip(out.chunks_exact_mut(4)) {
            // SAFETY: the 64 bytes of four digests; `loadu` needs no
            // alignment.
            let x = unsafe { _mm512_loadu_si512(d.as_ptr().cast()) };
            let hi = _mm512_and_si512(_mm512_srli_epi16::<4>(x), low);
            let lo = _mm512_and_si512(x, low);
            // In each 128-bit lane (a digest), its bytes' high nibble,
            // then the low one: bytes 0 to 7, then 8 to 15.
            let a = _mm512_shuffle_epi8(digits, _mm512_unpacklo_epi8(hi, lo));
            let b = _mm512_shuffle_epi8(digits, _mm512_unpackhi_epi8(hi, lo));
            let (o01, o23) = o.split_at_mut(2);
            // SAFETY: each store writes the 64 bytes of two slots; `storeu`
            // needs no alignment.
            unsafe {
                _mm512_storeu_si512(
                    o01.as_mut_ptr().cast(),
                    _mm512_permutex2var_epi64(a, first, b),
                );
                _mm512_storeu_si512(
                    o23.as_mut_ptr().cast(),
                    _mm512_permutex2var_epi64(a, second, b),
                );
            }
        }
    }
}

#[cfg(md5_sse2)]
mod sse2 {
    use core::arch::x86_64::*;

    /// The digest's 16 bytes as one vector.
    #[inline(always)]
    fn load(digest: &[u8; 16]) -> __m128i {
        // SAFETY: SSE2 is enabled for the target (this module's cfg); the
        // load reads the 16 bytes of `digest`, and `loadu` needs no
        // alignment.
        unsafe { _mm_loadu_si128(digest.as_ptr().cast()) }
    }

    /// Writes `v` to `dst`.
    #[inline(always)]
    fn store(dst: &mut [u8], v: __m128i) {
        let dst = &mut dst[..16];
        // SAFETY: SSE2 is enabled (cfg); the store writes the 16 bytes of
        // `dst`, and `storeu` needs no alignment.
        unsafe { _mm_storeu_si128(dst.as_mut_ptr().cast(), v) }
    }

    /// Nibbles 0 to 15 to `'0'..='9'` and `'a'..='f'`: `'0' + n`, plus
    /// the gap from `'9' + 1` to `'a'` where `n > 9`.
    #[inline(always)]
    fn ascii(n: __m128i) -> __m128i {
        // SAFETY: SSE2 is enabled (cfg); these are register operations.
        #[allow(unused_unsafe)]
        unsafe {
            let letters = _mm_and_si128(
                _mm_cmpgt_epi8(n, _mm_set1_epi8(9)),
                _mm_set1_epi8((b'a' - b'9' - 1) as i8),
            );
            _mm_add_epi8(_mm_add_epi8(n, _mm_set1_epi8(b'0' as i8)), letters)
        }
    }

    #[inline]
    pub(super) fn encode(digest: &[u8; 16]) -> [u8; 32] {
        let x = load(digest);
        // SAFETY: SSE2 is enabled (cfg); these are register operations.
        #[allow(unused_unsafe)]
        let (first, second) = unsafe {
            let low = _mm_set1_epi8(0xf);
            let hi = _mm_and_si128(_mm_srli_epi16::<4>(x), low);
            let lo = _mm_and_si128(x, low);
            // Each byte's high nibble, then its low one.
            (_mm_unpacklo_epi8(hi, lo), _mm_unpackhi_epi8(hi, lo))
        };
        let mut out = [0u8; 32];
        store(&mut out[..16], ascii(first));
        store(&mut out[16..], ascii(second));
        out
    }
}

#[cfg(md5_neon)]
mod neon {
    use core::arch::aarch64::*;

    /// 16 bytes from `src` as one vector.
    #[inline(always)]
    fn load(src: &[u8; 16]) -> uint8x16_t {
        // SAFETY: NEON is enabled for the target (this module's cfg); the
        // load reads the 16 bytes of `src`, and byte loads need no
        // alignment.
        unsafe { vld1q_u8(src.as_ptr()) }
    }

    /// Writes `v` to `dst`.
    #[inline(always)]
    fn store(dst: &mut [u8], v: uint8x16_t) {
        let dst = &mut dst[..16];
        // SAFETY: NEON is enabled (cfg); the store writes the 16 bytes of
        // `dst`, and byte stores need no alignment.
        unsafe { vst1q_u8(dst.as_mut_ptr(), v) }
    }

    #[inline]
    pub(super) fn encode(digest: &[u8; 16]) -> [u8; 32] {
        let (x, digits) = (load(digest), load(super::DIGITS));
        // SAFETY: NEON is enabled (cfg); these are register operations.
        #[allow(unused_unsafe)]
        let (first, second) = unsafe {
            let hi = vshrq_n_u8::<4>(x);
            let lo = vandq_u8(x, vdupq_n_u8(0xf));
            // Each byte's high nibble, then its low one, looked up.
            (
                vqtbl1q_u8(digits, vzip1q_u8(hi, lo)),
                vqtbl1q_u8(digits, vzip2q_u8(hi, lo)),
            )
        };
        let mut out = [0u8; 32];
        store(&mut out[..16], first);
        store(&mut out[16..], second);
        out
    }
}
