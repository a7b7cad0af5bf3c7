//! Short rows on AVX-512 (F, VL and BW), a set of rows of one padded
//! length (1 to 4 blocks) at a time, built in registers: each lane's block
//! is one masked 64-byte load of the row's bytes, which reads nothing past
//! them, with the padding's marker and bit length merged in by two masked
//! moves; the digests go straight from the state registers to their
//! slots.
//!
//! The scheduler's way for such rows copies each with its padding into a
//! lane buffer (about 14 stores a row), stores the start state, calls the
//! kernel, whose 64-byte loads of the buffers wait for those stores to
//! reach the cache (a store-to-load forward cannot merge them), then takes
//! the digests out of the state four lanes at a time.

use super::avx512::{transpose16, V16};
use super::body;
use super::lane_vector::LaneVector;
use super::steps;
use super::Row;
use crate::multi::lane_state::{BlockPtrs, SetAhead};
use core::arch::x86_64::*;

/// Hashes the `16 * G` rows of `rows`, each of `blocks` blocks with its
/// padding (1 to 4), continuing the chaining value `start` after `prefix`
/// bytes, and writes row `i`'s digest to `out[i]`.
///
/// # Safety
///
/// The CPU has AVX-512F, VL and BW; each row's `len` bytes at its pointer
/// are readable (nothing else is read: an empty row's pointer may be
/// dangling), `padded_blocks(len) == blocks` for each, and `prefix`
/// is whole blocks.
#[target_feature(enable = "avx512f,avx512vl,avx512bw")]
#[inline(never)]
pub(super) unsafe fn rows<const G: usize>(
    rows: &[Row],
    blocks: usize,
    start: [u32; 4],
    prefix: u64,
    out: &mut [[u8; 16]],
) {
    // One body per block count, so that each folds its masks' bounds: a
    // row of one block is under 56 bytes, its load mask `(1 << len) - 1`.
    // SAFETY: the caller's contract.
    unsafe {
        match blocks {
            1 => rows_of::<G, 1>(rows, start, prefix, out),
            2 => rows_of::<G, 2>(rows, start, prefix, out),
            3 => rows_of::<G, 3>(rows, start, prefix, out),
            _ => rows_of::<G, 4>(rows, start, prefix, out),
        }
    }
}

/// [`rows`] for rows of `B` blocks each.
///
/// # Safety
///
/// As for [`rows`], with `blocks == B`.
#[target_feature(enable = "avx512f,avx512vl,avx512bw")]
#[inline]
unsafe fn rows_of<const G: usize, const B: usize>(
    rows: &[Row],
    start: [u32; 4],
    prefix: u64,
    out: &mut [[u8; 16]],
) {
    let blocks = B;
    assert!(rows.len() == 16 * G && out.len() == 16 * G);
    // SAFETY: the caller vouches for the ISA.
    let zero = unsafe { V16::splat(0) };
    // SAFETY: the ISA as above.
    let mut s = start.map(|x| [unsafe { V16::splat(x) }; G]);
    for k in 0..blocks {
        let at = 64 * k;
        // The length goes into the last block's last 8 bytes.
        let length_mask = if k + 1 == blocks { 0x80 } else { 0 };
        // Not zero-filled first: at four groups (4 KiB) LLVM fills it with
        // a call to `memset` a block, a good share of the time over short
        // rows, as `body::load_blocks` says.
        let mut words = core::mem::MaybeUninit::<[[V16; 16]; G]>::uninit();
        let groups = words.as_mut_ptr().cast::<[V16; 16]>();
        for g in 0..G {
            let mut r = [zero; 16];
            for (r, &(p, len)) in r.iter_mut().zip(&rows[16 * g..16 * g + 16]) {
                // This block's bytes of the row, and where the marker goes
                // if it is in this block (`d` wraps to a huge number when
                // the row ends before it).
                let (load_mask, marker_mask) = if B == 1 {
                    debug_assert!(len <= 55);
                    let len = len.min(55);
                    ((1u64 << len) - 1, 1u64 << len)
                } else {
                    let n = len.saturating_sub(at).min(64);
                    let d = len.wrapping_sub(at);
                    (
                        if n == 64 { u64::MAX } else { (1u64 << n) - 1 },
                        if d < 64 { 1u64 << d } else { 0 },
                    )
                };
                let bits = prefix.wrapping_add(len as u64).wrapping_mul(8);
                // SAFETY: the ISA as above. The load's mask enables bytes
                // `at..at + n` of the row only, within its `len`, which the
                // caller vouches for; a masked load neither reads nor faults
                // on the others (so `wrapping_add` serves where `n == 0`).
                // As `blocks` is the row's padded length, the marker, at
                // byte `len`, and the length, in the last 8 bytes, do not
                // meet.
                *r = V16(unsafe {
                    let v = _mm512_maskz_loadu_epi8(load_mask, p.wrapping_add(at).cast());
                    let v = _mm512_mask_mov_epi8(v, marker_mask, _mm512_set1_epi8(0x80u8 as i8));
                    _mm512_mask_mov_epi64(v, length_mask, _mm512_set1_epi64(bits as i64))
                });
            }
            // SAFETY: row `g < G` of `words` is in bounds.
            unsafe { groups.add(g).write(transpose16(r)) };
        }
        // SAFETY: the loop wrote each of the `G` rows.
        steps::compress_words(&mut s, unsafe { words.assume_init_ref() });
    }
    // SAFETY: the ISA as above.
    unsafe { store_digests(&s, out) };
}

/// Hashes `16 * G` messages of `blocks` whole blocks each, at `ptrs`, from
/// `start`, then their shared last block `last` (their padding), and
/// writes message `i`'s digest to `out[i]`: the AVX-512 kernel's body from
/// a splatted start, its state going straight out; `split` as for the
/// body's `compress`, `next` and `ahead` as for its `compress_from`.
///
/// # Safety
///
/// The CPU has AVX-512F and VL; `ptrs[i]` is valid for reads of `blocks *
/// 64` bytes for each `i < 16 * G`, and `4 * split` bytes past a multiple
/// of 64 where `split` is not 0; with `next`, `next[i]` is valid for reads
/// of 64 bytes for each `i < 16 * G`.
#[target_feature(enable = "avx512f,avx512vl,avx512bw")]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn equal_blocks<const G: usize>(
    ptrs: &BlockPtrs,
    blocks: usize,
    last: &[u32; 16],
    start: [u32; 4],
    out: &mut [[u8; 16]],
    split: usize,
    next: Option<&BlockPtrs>,
    ahead: &mut SetAhead,
) {
    assert!(out.len() == 16 * G);
    // SAFETY: the caller's contract.
    unsafe {
        if split > 0 {
            equal_read::<G, true>(ptrs, blocks, last, start, out, split, next, ahead)
        } else {
            equal_read::<G, false>(ptrs, blocks, last, start, out, 0, next, ahead)
        }
    }
}

/// [`equal_blocks`] reading whole lines or block by block, each way a
/// frame of its own (as the body's `compress_read`).
///
/// # Safety
///
/// As for [`equal_blocks`], with `split` not 0 where `LINES`.
#[target_feature(enable = "avx512f,avx512vl,avx512bw")]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
unsafe fn equal_read<const G: usize, const LINES: bool>(
    ptrs: &BlockPtrs,
    blocks: usize,
    last: &[u32; 16],
    start: [u32; 4],
    out: &mut [[u8; 16]],
    split: usize,
    next: Option<&BlockPtrs>,
    ahead: &mut SetAhead,
) {
    // SAFETY: the caller's contract is the body's.
    let s = unsafe {
        body::compress_from::<V16, G, LINES>(start, ptrs, blocks, last, split, next, ahead)
    };
    // SAFETY: the ISA as above.
    unsafe { store_digests(&s, out) };
}

/// Writes the digests of the `16 * G` lanes of `s` to `out`.
///
/// # Safety
///
/// The CPU has AVX-512F.
#[inline(always)]
unsafe fn store_digests<const G: usize>(s: &[[V16; G]; 4], out: &mut [[u8; 16]]) {
    for (g, out) in out.chunks_exact_mut(16).enumerate() {
        // SAFETY: the caller vouches for the ISA.
        let digests = unsafe { digests16([s[0][g].0, s[1][g].0, s[2][g].0, s[3][g].0]) };
        for (quad, v) in out.chunks_exact_mut(4).zip(digests) {
            // SAFETY: the ISA as above; `quad` is 4 digests, 64 bytes, and
            // `storeu` needs no alignment.
            unsafe { _mm512_storeu_si512(quad.as_mut_ptr().cast(), v) };
        }
    }
}

/// The digests of 16 lanes from their state rows `a, b, c, d`: entry `k`
/// holds those of lanes `4k..4k + 4`, each lane's 16 bytes in turn.
///
/// # Safety
///
/// The CPU has AVX-512F.
#[inline(always)]
unsafe fn digests16([a, b, c, d]: [__m512i; 4]) -> [__m512i; 4] {
    // SAFETY: the caller vouches for AVX-512F; register operations only.
    unsafe {
        // Within each 128-bit chunk `c`: `u[i]` chunk `c` is lane `4c + i`'s
        // digest.
        let t0 = _mm512_unpacklo_epi32(a, b);
        let t1 = _mm512_unpackhi_epi32(a, b);
        let t2 = _mm512_unpacklo_epi32(c, d);
        let t3 = _mm512_unpackhi_epi32(c, d);
        let u = [
            _mm512_unpacklo_epi64(t0, t2),
            _mm512_unpackhi_epi64(t0, t2),
            _mm512_unpacklo_epi64(t1, t3),
            _mm512_unpackhi_epi64(t1, t3),
        ];
        // Then chunk `i` of entry `k` is chunk `k` of `u[i]`.
        let x0 = _mm512_shuffle_i32x4::<0x44>(u[0], u[1]);
        let x1 = _mm512_shuffle_i32x4::<0x44>(u[2], u[3]);
        let y0 = _mm512_shuffle_i32x4::<0xEE>(u[0], u[1]);
        let y1 = _mm512_shuffle_i32x4::<0xEE>(u[2], u[3]);
        [
            _mm512_shuffle_i32x4::<0x88>(x0, x1),
            _mm512_shuffle_i32x4::<0xDD>(x0, x1),
            _mm512_shuffle_i32x4::<0x88>(y0, y1),
            _mm512_shuffle_i32x4::<0xDD>(y0, y1),
        ]
    }
}
