//! MD5's padding, written straight into a lane's buffer: the message's last
//! bytes, zeros, and the marker and length of the crate's one padding
//! writer (`md5x_block::pad`). The copies use fixed-size moves (no
//! `memcpy` or `memset` calls), and never read past the message.

use super::source::Message;
use md5x_block::pad::{fill_pad, mark_end, pad_blocks};

/// Blocks a message of `len` bytes takes with its padding.
pub(crate) const fn padded_blocks(len: usize) -> usize {
    len / 64 + pad_blocks(len % 64)
}

/// The padding block of a whole-block message of `total` bytes.
#[inline(always)]
pub(crate) fn whole_block_pad(total: u64) -> [u8; 64] {
    let mut pad = [0; 128];
    fill_pad(&mut pad, &[], total);
    *pad.first_chunk().unwrap()
}

/// A block as the kernel's message words, for its `last` block.
#[inline(always)]
pub(crate) fn block_words(block: &[u8; 64]) -> [u32; 16] {
    let mut words = [0; 16];
    for (w, b) in words.iter_mut().zip(block.chunks_exact(4)) {
        *w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    }
    words
}

/// Writes bytes `from..` of `msg` and the padding of a message of `total`
/// bytes that ends with them, `blocks` blocks, to `dst`.
///
/// # Safety
///
/// `from <= msg.len()`, `blocks` is `padded_blocks(msg.len() - from)`, at
/// most 4, and `dst` is valid for writes of `64 * blocks` bytes and
/// overlaps none of `msg`'s bytes.
#[inline(always)]
pub(crate) unsafe fn write_end<'a, M: Message<'a>>(
    dst: *mut u8,
    msg: &M,
    from: usize,
    blocks: usize,
    total: u64,
) {
    let n = msg.len() - from;
    debug_assert_eq!(blocks, padded_blocks(n));
    // SAFETY: the caller vouches for the blocks at `dst`, apart from the
    // message; the bytes copied, `n`, are within them, and `blocks` is
    // `padded_blocks(n)`, as `mark_end` needs.
    unsafe {
        zero_end(dst, blocks);
        msg.copy(from, msg.len(), dst);
        mark_end(dst, n, blocks, total);
    }
}

/// Zeroes the last 80 bytes of `blocks` blocks at `dst` (all of them if
/// that is less), in five 16-byte stores and no branch: the bytes after a
/// message's end up to the end of its padding, at most 72 (9 to 64 in the
/// last block, or all of it and 1 to 8 before), are among them; the
/// message's bytes, copied after, cover the rest.
///
/// # Safety
///
/// `dst` is valid for writes of `64 * blocks` bytes, `blocks >= 1`.
#[inline(always)]
unsafe fn zero_end(dst: *mut u8, blocks: usize) {
    let end = 64 * blocks;
    for k in 1..=5 {
        // SAFETY: bytes `at ..+ 16` with `0 <= at <= end - 16`, within the
        // blocks the caller vouches for; `write_unaligned` needs no
        // alignment.
        unsafe {
            dst.add(end.saturating_sub(16 * k))
                .cast::<[u8; 16]>()
                .write_unaligned([0; 16])
        };
    }
}
