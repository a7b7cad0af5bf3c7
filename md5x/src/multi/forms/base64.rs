//! Digests to base64 (RFC 4648's standard alphabet, padded), 24 ASCII
//! bytes each: HTTP's `Content-MD5` form, 22 characters and `==`.
//!
//! With AVX-512 VBMI (detected at run time) eight digests are encoded at a
//! time, three 512-bit vectors of characters (`avx512` below; faster than
//! AVX2 over a million short rows whose output goes past the caches). With
//! AVX2 (detected at run time, as for the kernels) two digests are
//! encoded at a time, one per 128-bit half of a vector: a byte shuffle puts
//! each 3 bytes in a 32-bit lane, two multiplies shift the four 6-bit
//! fields of each lane into its four bytes, and a 16-entry shuffle table
//! adds each field's offset to its ASCII range. Elsewhere, and with the
//! portable backend forced, a table lookup per field.

/// RFC 4648's standard alphabet.
const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Writes each of `digests` in base64 (RFC 4648's standard alphabet,
/// padded) to the slot of `out` with the same index: 24 ASCII bytes, the
/// form of HTTP's `Content-MD5` header and of S3's checksums.
///
/// # Panics
///
/// If `digests` and `out` have different lengths.
///
/// ```
/// let mut b64 = [[0u8; 24]; 1];
/// md5x::multi::base64_into(&[md5x::const_digest(b"abc")], &mut b64);
/// assert_eq!(&b64[0], b"kAFQmDzST7DWlj99KOF/cg==");
/// ```
pub fn base64_into(digests: &[[u8; 16]], out: &mut [[u8; 24]]) {
    super::check_out("base64_into", digests.len(), out.len());
    match crate::multi::past_cache::past_cache(size_of_val(out)) {
        true => crate::multi::past_cache::encode_past_cache(digests, out, encode_all),
        false => encode_all(digests, out),
    }
}

/// `digests` in base64 into `out`, of the same length.
pub(super) fn encode_all(digests: &[[u8; 16]], out: &mut [[u8; 24]]) {
    #[cfg(md5_sse2)]
    let (digests, out) = if avx512::detected() {
        // SAFETY: the CPU has AVX-512F, BW and VBMI (checked).
        let done = unsafe { avx512::encode_octets(digests, out) };
        (&digests[done..], &mut out[done..])
    } else {
        (digests, out)
    };
    #[cfg(md5_sse2)]
    if avx2::available() {
        // SAFETY: the CPU has AVX2 (checked just above).
        let done = unsafe { avx2::encode_pairs(digests, out) };
        for (d, o) in digests[done..].iter().zip(&mut out[done..]) {
            *o = portable(d);
        }
        return;
    }
    for (d, o) in digests.iter().zip(out) {
        *o = portable(d);
    }
}

/// One table lookup per 6 bits: five groups of 3 bytes, then the last byte
/// as two characters and `==`.
pub(crate) fn portable(digest: &[u8; 16]) -> [u8; 24] {
    let mut out = [b'='; 24];
    for (chars, group) in out.chunks_exact_mut(4).zip(digest.chunks_exact(3)) {
        let n = u32::from(group[0]) << 16 | u32::from(group[1]) << 8 | u32::from(group[2]);
        for (k, c) in chars.iter_mut().enumerate() {
            *c = ALPHABET[(n >> (18 - 6 * k)) as usize & 63];
        }
    }
    out[20] = ALPHABET[usize::from(digest[15] >> 2)];
    out[21] = ALPHABET[usize::from(digest[15] & 3) << 4];
    out
}

/// Eight digests, 192 characters, three 512-bit vectors at a time, with
/// AVX-512 VBMI: a two-source byte permute puts each 3-byte group of the
/// digests under its four characters, a multishift takes each
/// character's 6 bits, a byte permute looks them up in the alphabet, and
/// a blend writes the `==`.
#[cfg(md5_sse2)]
mod avx512 {
    use core::arch::x86_64::*;

    /// Whether the CPU has AVX-512F, BW and VBMI; not under Miri, which
    /// cannot execute CPUID, nor with the portable backend forced.
    pub(super) fn detected() -> bool {
        !cfg!(miri)
            && !cfg!(any(md5_backend = "soft", feature = "force-soft"))
            && crate::multi::platform::Platform::detect().avx512vbmi
    }

    /// For output vector `j` of eight digests (characters `64 j..64 j +
    /// 64` of their 192): under each four characters, their 3-byte group
    /// `a b c` of the digests' 128 bytes as `b a c b` (the order in which
    /// a multishift finds each character's bits, as in `ORDER`), and which
    /// bytes are kept: all but those of the group past each digest's 15th
    /// byte, which has only `a`.
    const fn gather(j: usize) -> ([u8; 64], u64) {
        let (mut index, mut keep) = ([0u8; 64], 0u64);
        let mut q = 0;
        while q < 16 {
            let (digest, group) = ((16 * j + q) / 6, (16 * j + q) % 6);
            let a = 16 * digest + 3 * group;
            let from = [a + 1, a, a + 2, a + 1];
            let mut k = 0;
            while k < 4 {
                if group < 5 || k == 1 {
                    index[4 * q + k] = from[k] as u8;
                    keep |= 1 << (4 * q + k);
                }
                k += 1;
            }
            q += 1;
        }
        (index, keep)
    }

    /// The `=` of output vector `j`: the last two of each digest's 24
    /// characters.
    const fn pads(j: usize) -> u64 {
        let mut pads = 0u64;
        let mut k = 0;
        while k < 64 {
            if (64 * j + k) % 24 >= 22 {
                pads |= 1 << k;
            }
            k += 1;
        }
        pads
    }

    const GATHER: [([u8; 64], u64); 3] = [gather(0), gather(1), gather(2)];
    const PADS: [u64; 3] = [pads(0), pads(1), pads(2)];

    /// The bits of each character in its 64-bit word as a multishift
    /// selects them: of a group laid out `b a c b`, bits 10, 4, 22 and 16,
    /// and 32 more for the word's second group.
    const SHIFTS: i64 = i64::from_le_bytes([10, 4, 22, 16, 42, 36, 54, 48]);

    /// 64 bytes as a vector.
    ///
    /// # Safety
    ///
    /// The CPU has AVX-512F.
    #[target_feature(enable = "avx512f")]
    #[inline]
    unsafe fn load(bytes: &[u8; 64]) -> __m512i {
        // SAFETY: AVX-512F (the caller); the load reads the 64 bytes, and
        // `loadu` needs no alignment.
        unsafe { _mm512_loadu_si512(bytes.as_ptr().cast()) }
    }

    /// Encodes `digests` eight at a time into `out`; returns how many it
    /// encoded (all but the last `digests.len() % 8`).
    ///
    /// # Safety
    ///
    /// The CPU has AVX-512F, BW and VBMI.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    pub(super) unsafe fn encode_octets(digests: &[[u8; 16]], out: &mut [[u8; 24]]) -> usize {
        // SAFETY: AVX-512F (the caller), for loads of constants.
        let (alphabet, index) =
            unsafe { (load(super::ALPHABET), GATHER.map(|(index, _)| load(&index))) };
        let (shifts, pad) = (_mm512_set1_epi64(SHIFTS), _mm512_set1_epi8(b'=' as i8));
        let octets = digests.len().min(out.len()) / 8;
        for (d, o) in digests.chunks_exact(8).zip(out.chunks_exact_mut(8)) {
            let (d, o) = (d.as_flattened(), o.as_flattened_mut());
            // SAFETY: AVX-512F (the caller); the 64 bytes of digests 0-3,
            // then of 4-7.
            let (first, last) = unsafe {
                (
                    load(d[..64].try_into().unwrap()),
                    load(d[64..].try_into().unwrap()),
                )
            };
            for (j, o) in o.chunks_exact_mut(64).enumerate() {
                let groups = _mm512_maskz_permutex2var_epi8(GATHER[j].1, first, index[j], last);
                let fields = _mm512_multishift_epi64_epi8(shifts, groups);
                let chars = _mm512_permutexvar_epi8(fields, alphabet);
                let chars = _mm512_mask_blend_epi8(PADS[j], chars, pad);
                // SAFETY: AVX-512F (the caller); the store writes the 64
                // bytes of `o`, and `storeu` needs no alignment.
                unsafe { _mm512_storeu_si512(o.as_mut_ptr().cast(), chars) };
            }
        }
        8 * octets
    }
}

#[cfg(md5_sse2)]
mod avx2 {
    use crate::multi::platform::Platform;
    use core::arch::x86_64::*;

    /// Whether the AVX2 form runs: the CPU has AVX2 (as the AVX2 kernel
    /// needs, so Miri follows the build's target features), and the
    /// portable backend is not forced.
    pub(super) fn available() -> bool {
        !cfg!(any(md5_backend = "soft", feature = "force-soft")) && Platform::detect().avx2
    }

    /// Two digests, `pair[0]` and `pair[1]`, one per 128-bit half.
    ///
    /// # Safety
    ///
    /// The CPU has AVX2.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn load(pair: &[[u8; 16]]) -> __m256i {
        let pair = &pair[..2];
        // SAFETY: AVX2 (the caller); the load reads the 32 bytes of the two
        // digests, and `loadu` needs no alignment.
        unsafe { _mm256_loadu_si256(pair.as_ptr().cast()) }
    }

    /// Writes the 16 bytes of `v` to the start of `dst`.
    ///
    /// # Safety
    ///
    /// The CPU has AVX2.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn store16(dst: &mut [u8; 24], v: __m128i) {
        // SAFETY: AVX2 (the caller); the store writes bytes 0..16 of the
        // 24 of `dst`, and `storeu` needs no alignment.
        unsafe { _mm_storeu_si128(dst.as_mut_ptr().cast(), v) }
    }

    /// Writes the low 8 bytes of `v` to the end of `dst`.
    ///
    /// # Safety
    ///
    /// The CPU has AVX2.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn store8_end(dst: &mut [u8; 24], v: __m128i) {
        // SAFETY: AVX2 (the caller); the store writes bytes 16..24 of the
        // 24 of `dst`, and `storel` needs no alignment.
        unsafe { _mm_storel_epi64(dst[16..].as_mut_ptr().cast(), v) }
    }

    /// Where each byte of a half comes from: group `g` of 3 bytes `a b c`
    /// to lane `g` as bytes `b a c b`.
    const ORDER: [i8; 16] = [1, 0, 2, 1, 4, 3, 5, 4, 7, 6, 8, 7, 10, 9, 11, 10];

    /// The offset from a 6-bit field to its character, by the field's
    /// class (see `chars`): `a..z`, then `0..9` (ten classes), `+`, `/`,
    /// `A..Z`.
    const OFFSETS: [i8; 16] = {
        let digit = (b'0' as i8).wrapping_sub(52);
        let mut t = [digit; 16];
        t[0] = b'a' as i8 - 26;
        t[11] = b'+' as i8 - 62;
        t[12] = b'/' as i8 - 63;
        t[13] = b'A' as i8;
        (t[14], t[15]) = (0, 0);
        t
    };

    /// `table` in both 128-bit halves, for the per-half byte shuffle.
    ///
    /// # Safety
    ///
    /// The CPU has AVX2.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn both_halves(table: [i8; 16]) -> __m256i {
        // SAFETY: `[i8; 16]` and `__m128i` are 16 plain bytes each, and
        // every bit pattern is a valid `__m128i`; AVX2 (the caller).
        unsafe { _mm256_broadcastsi128_si256(core::mem::transmute::<[i8; 16], __m128i>(table)) }
    }

    /// The characters of the first 12 bytes of each half of `x`, four per
    /// 3 bytes.
    ///
    /// # Safety
    ///
    /// The CPU has AVX2.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn chars(x: __m256i) -> __m256i {
        // SAFETY: AVX2 (the caller); register operations only.
        #[allow(unused_unsafe)]
        unsafe {
            // 16-bit halves `ab` and `bc` of each lane, big-endian, read
            // as numbers.
            let order = both_halves(ORDER);
            let x = _mm256_shuffle_epi8(x, order);
            // Fields 0 and 2 (bits 10..16 of `ab`, bits 6..12 of `bc`)
            // down to bits 0 and 16 of the lane by a high multiply (by 2^6
            // and 2^10); fields 1 and 3 (bits 4..10 of `ab`, 0..6 of `bc`)
            // up to bits 8 and 24 by a low one (by 2^4 and 2^8).
            let f02 = _mm256_mulhi_epu16(
                _mm256_and_si256(x, _mm256_set1_epi32(0x0fc0_fc00)),
                _mm256_set1_epi32(0x0400_0040),
            );
            let f13 = _mm256_mullo_epi16(
                _mm256_and_si256(x, _mm256_set1_epi32(0x003f_03f0)),
                _mm256_set1_epi32(0x0100_0010),
            );
            let i = _mm256_or_si256(f02, f13);
            // Each field's ASCII offset by its range: 0 for 26..=51, 1 to 12
            // for 52..=63 (the saturated difference from 51), 13 for
            // 0..=25.
            let class = _mm256_or_si256(
                _mm256_subs_epu8(i, _mm256_set1_epi8(51)),
                _mm256_and_si256(
                    _mm256_cmpgt_epi8(_mm256_set1_epi8(26), i),
                    _mm256_set1_epi8(13),
                ),
            );
            let offsets = both_halves(OFFSETS);
            _mm256_add_epi8(i, _mm256_shuffle_epi8(offsets, class))
        }
    }

    /// Encodes `digests` two at a time into `out`; returns how many it
    /// encoded (all but an odd last one).
    ///
    /// # Safety
    ///
    /// The CPU has AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn encode_pairs(digests: &[[u8; 16]], out: &mut [[u8; 24]]) -> usize {
        let pairs = digests.len() / 2;
        for (pair, o) in digests.chunks_exact(2).zip(out.chunks_exact_mut(2)) {
            // SAFETY: AVX2 (the caller); register operations, and loads and
            // stores of the pair's digests and slots (the functions'
            // notes).
            unsafe {
                let x = load(pair);
                let head = chars(x);
                // Bytes 12..16 of each digest (then zeros) make its last
                // eight characters, of which the last two are `=`.
                let tail = chars(_mm256_srli_si256::<12>(x));
                let tail = _mm256_or_si256(
                    _mm256_and_si256(tail, _mm256_set1_epi64x(0xffff_ffff_ffff)),
                    _mm256_set1_epi64x(i64::from_le_bytes(*b"\0\0\0\0\0\0==")),
                );
                store16(&mut o[0], _mm256_castsi256_si128(head));
                store16(&mut o[1], _mm256_extracti128_si256::<1>(head));
                store8_end(&mut o[0], _mm256_castsi256_si128(tail));
                store8_end(&mut o[1], _mm256_extracti128_si256::<1>(tail));
            }
        }
        2 * pairs
    }
}
