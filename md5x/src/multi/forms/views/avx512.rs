//! Sixteen views checked and turned into the kernel's rows at once, with
//! AVX-512: their lengths, buffer indices and offsets gathered into one
//! vector each, every rule of a view and the rows' block count tested in
//! those vectors, and only the rows' starts formed one by one. Sixteen
//! consecutive rows almost always lie in one data buffer (a builder fills
//! one at a time, of up to megabytes); where they do not, they are read
//! one at a time. Read one at a time throughout, with a branch on each
//! row's being inline that its data decides, a view column's rows cost
//! more than a column of offsets' rows do.

use super::fields;
use crate::multi::kernel::Row;
use crate::multi::scheduler::source::Sixteen;
use core::arch::x86_64::*;
use core::mem::MaybeUninit;

/// Field `F` (0: length, 2: buffer index, 3: offset) of each of the
/// sixteen views in `v`, four a vector.
///
/// # Safety
///
/// The CPU has AVX-512F.
#[inline(always)]
unsafe fn field<const F: i32>(v: [__m512i; 4]) -> __m512i {
    // SAFETY: the caller vouches for AVX-512F; the load reads the 64 bytes
    // of `pick`, and `loadu` needs no alignment.
    unsafe {
        // Dword `F` of each of eight views across two vectors, twice.
        let pick: [i32; 16] = core::array::from_fn(|i| 4 * (i as i32 % 8) + F);
        let pick = _mm512_loadu_si512(pick.as_ptr().cast());
        let first = _mm512_permutex2var_epi32(v[0], pick, v[1]);
        let second = _mm512_permutex2var_epi32(v[2], pick, v[3]);
        _mm512_inserti64x4::<1>(first, _mm512_castsi512_si256(second))
    }
}

/// Sixteen views as vectors, each one's rules checked.
struct Decoded<'a> {
    lens: __m512i,
    offset: __m512i,
    /// The rows held in their views.
    inline: __mmask16,
    /// The data buffer every other row lies in (empty where none does).
    buffer: &'a [u8],
}

/// The sixteen `views` over the data `buffers`, where every view keeps
/// Arrow's rules and those not inline name one buffer; else `None`.
///
/// # Safety
///
/// The CPU has AVX-512F, BW and VL.
#[inline(always)]
unsafe fn decode<'a>(views: &[[u8; 16]; 16], buffers: &[&'a [u8]]) -> Option<Decoded<'a>> {
    // SAFETY: AVX-512F, BW and VL (the caller) for the whole body; the 256
    // bytes of `views`, four loads of 64 bytes, and `loadu` needs no
    // alignment.
    unsafe {
        let v = [0, 4, 8, 12].map(|k| _mm512_loadu_si512(views.as_ptr().add(k).cast()));
        let (lens, index, offset) = (field::<0>(v), field::<2>(v), field::<3>(v));
        let inline = _mm512_cmple_epu32_mask(lens, _mm512_set1_epi32(12));
        // The buffer the first row not inline names; every such row must
        // name it, and end within it: each row's end in 64 bits, eight rows
        // a vector, where the sum of two 32-bit fields cannot wrap.
        let (buffer, within) = match !inline {
            0 => (&[][..], 0),
            apart => {
                let end = |lens: __m256i, offset: __m256i| {
                    _mm512_add_epi64(_mm512_cvtepu32_epi64(offset), _mm512_cvtepu32_epi64(lens))
                };
                let ends = [
                    end(_mm512_castsi512_si256(lens), _mm512_castsi512_si256(offset)),
                    end(
                        _mm512_extracti64x4_epi64::<1>(lens),
                        _mm512_extracti64x4_epi64::<1>(offset),
                    ),
                ];
                let [_, first, _] = fields(&views[apart.trailing_zeros() as usize]);
                let buffer = *buffers.get(first as usize)?;
                let one = _mm512_cmpeq_epi32_mask(index, _mm512_set1_epi32(first as i32));
                let size = _mm512_set1_epi64(buffer.len() as i64);
                let [low, high] = ends.map(|end| _mm512_cmple_epu64_mask(end, size));
                (buffer, one & (u16::from(low) | u16::from(high) << 8))
            }
        };
        (inline | within == u16::MAX).then_some(Decoded {
            lens,
            offset,
            inline,
            buffer,
        })
    }
}

/// The lengths of the sixteen `views`' rows over the data `buffers`, and
/// where every row not inline lies in one buffer within 4 KiB, the bytes
/// from the first such row's start to the last's end (for the scheduler
/// to bring into cache); `None` where a view breaks a rule or the rows lie
/// in more than one buffer.
///
/// # Safety
///
/// The CPU has AVX-512F, BW and VL.
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
pub(super) unsafe fn sixteen<'a>(
    views: &[[u8; 16]; 16],
    buffers: &[&'a [u8]],
) -> Option<Sixteen<'a>> {
    // SAFETY: the caller vouches for the CPU.
    let d = unsafe { decode(views, buffers) }?;
    let mut lens = [0u32; 16];
    // SAFETY: the store writes the 64 bytes of `lens`; `storeu` needs no
    // alignment.
    unsafe { _mm512_storeu_si512(lens.as_mut_ptr().cast(), d.lens) };
    // From the first row not inline to the last, as a builder lays them
    // out: in order, one after another.
    let apart = !d.inline;
    let bytes = match apart {
        0 => &[][..],
        _ => {
            let [_, _, start] = fields(&views[apart.trailing_zeros() as usize]);
            let [len, _, offset] = fields(&views[15 - apart.leading_zeros() as usize]);
            let (start, end) = (start as usize, offset as usize + len as usize);
            // Within the buffer, as each row's end is (`decode`); read
            // again from the views here, so taken with `get`, not trusted.
            match end.wrapping_sub(start) <= 4096 {
                true => d.buffer.get(start..end).unwrap_or_default(),
                false => &[],
            }
        }
    };
    Some(Sixteen { lens, bytes })
}

/// Writes the rows of the sixteen `views` over the data `buffers` (as the
/// column's `row` reads each) into `rows` and returns `true` where every
/// view keeps Arrow's rules, those not inline name one buffer, and every
/// row is `blocks` blocks long with its padding (1 to 4); else `false`,
/// with `rows` unspecified.
///
/// # Safety
///
/// The CPU has AVX-512F, BW and VL.
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
pub(super) unsafe fn sixteen_rows(
    views: &[[u8; 16]; 16],
    buffers: &[&[u8]],
    blocks: usize,
    rows: &mut [MaybeUninit<Row>; 16],
) -> bool {
    debug_assert!((1..=4).contains(&blocks));
    // SAFETY: the caller vouches for the CPU.
    let Some(d) = (unsafe { decode(views, buffers) }) else {
        return false;
    };
    // `blocks` blocks with padding: `64 * (blocks - 1) - 8 <= len < 64 *
    // blocks - 8` (from 0 for one block), in compares that cannot wrap.
    let least = (64 * blocks as i32 - 72).max(0);
    let sized = _mm512_mask_cmplt_epu32_mask(
        _mm512_cmpge_epu32_mask(d.lens, _mm512_set1_epi32(least)),
        d.lens,
        _mm512_set1_epi32(64 * blocks as i32 - 8),
    );
    if sized != u16::MAX {
        return false;
    }
    // Where each row starts: bytes past the buffer's start, or past the
    // first view's, `16 * j + 4` for an inline row.
    let iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    let own = _mm512_add_epi32(_mm512_slli_epi32::<4>(iota), _mm512_set1_epi32(4));
    let past = _mm512_mask_mov_epi32(d.offset, d.inline, own);
    let (mut pasts, mut lens) = ([0u32; 16], [0u32; 16]);
    // SAFETY: each store writes the 64 bytes of its array; `storeu` needs
    // no alignment.
    unsafe {
        _mm512_storeu_si512(pasts.as_mut_ptr().cast(), past);
        _mm512_storeu_si512(lens.as_mut_ptr().cast(), d.lens);
    }
    let starts: [*const u8; 2] = [d.buffer.as_ptr(), views.as_ptr().cast()];
    for (j, row) in rows.iter_mut().enumerate() {
        // The row's bytes follow: checked in `decode` for a buffer's row,
        // its own view's for an inline one.
        let start = starts[usize::from(d.inline >> j & 1)].wrapping_add(pasts[j] as usize);
        row.write((start, lens[j] as usize));
    }
    true
}
