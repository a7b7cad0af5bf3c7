//! MD5's padding (RFC 1321, sections 3.1 and 3.2) and the digest's bytes:
//! after a message's last bytes the 0x80 marker, zeros, and the length in
//! bits, 8 little-endian bytes ending a block.
//!
//! This is the one writer of both. It is `const`, so that
//! [`soft::digest`](crate::soft::digest) runs it at compile time, and writes
//! through a raw pointer, so that md5x's multi-buffer kernels write the
//! padding straight into a lane's buffer.

/// Blocks of padding after the last whole block of a message whose last
/// `tail` bytes (under 64) do not fill one: one, or two when the tail
/// leaves no room for the 0x80 marker and the 8-byte length.
pub const fn pad_blocks(tail: usize) -> usize {
    if tail < 56 {
        1
    } else {
        2
    }
}

/// Writes the 0x80 marker after the `n` bytes at `dst` and the length in
/// bits of a message of `total` bytes at the end of `blocks` blocks. The
/// bytes between are left as they are: the caller zeroes them.
///
/// # Safety
///
/// `dst` is valid for writes of `64 * blocks` bytes, `blocks` being
/// `pad_blocks(n % 64) + n / 64` (or more).
#[inline(always)]
pub const unsafe fn mark_end(dst: *mut u8, n: usize, blocks: usize, total: u64) {
    debug_assert!(n + 9 <= 64 * blocks);
    // SAFETY: `n + 1 <= 64 * blocks - 8`, as `pad_blocks` leaves room for
    // the marker and the length, which takes the last 8 bytes, all within
    // the blocks the caller vouches for; `write_unaligned` needs no
    // alignment.
    unsafe {
        dst.add(n).write(0x80);
        dst.add(64 * blocks - 8)
            .cast::<[u8; 8]>()
            .write_unaligned(total.wrapping_mul(8).to_le_bytes());
    }
}

/// Fills `pad` with `tail`, the bytes after the last whole block of a
/// message of `total` bytes, and the message's padding; returns how many
/// blocks of `pad` to compress (1 or 2).
///
/// # Panics
///
/// If `tail` is 64 bytes or longer.
#[inline(always)]
pub const fn fill_pad(pad: &mut [u8; 128], tail: &[u8], total: u64) -> usize {
    assert!(tail.len() < 64);
    let blocks = pad_blocks(tail.len());
    *pad = [0; 128];
    pad.split_at_mut(tail.len()).0.copy_from_slice(tail);
    // SAFETY: `pad` is 128 bytes, the most `blocks` (1 or 2) can be, and
    // `blocks` is `pad_blocks(tail.len())` for a tail under 64 bytes.
    unsafe { mark_end(pad.as_mut_ptr(), tail.len(), blocks, total) };
    blocks
}

/// The digest's bytes: the chaining value's words, little-endian.
#[inline(always)]
pub const fn to_bytes(state: [u32; 4]) -> [u8; 16] {
    let mut out = [0u8; 16];
    let mut i = 0;
    while i < 4 {
        let word = state[i].to_le_bytes();
        let mut j = 0;
        while j < 4 {
            out[4 * i + j] = word[j];
            j += 1;
        }
        i += 1;
    }
    out
}
