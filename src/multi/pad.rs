//! MD5's padding (RFC 1321, sections 3.1 and 3.2), written straight into a
//! lane's buffer: the message's last bytes, the 0x80 marker, zeros and the
//! length in bits. Short messages are copied here whole, so these copies are
//! most of the per-message work outside the kernel: they use fixed-size
//! moves (no `memcpy` or `memset` calls), and never read past the message.

use super::source::Message;

/// Blocks of padding after the last whole block: one, or two when the tail
/// leaves no room for the 0x80 marker and the 8-byte length.
pub(super) const fn pad_blocks(tail: usize) -> usize {
    if tail < 56 {
        1
    } else {
        2
    }
}

/// Blocks a message of `len` bytes takes with its padding.
pub(super) const fn padded_blocks(len: usize) -> usize {
    len / 64 + pad_blocks(len % 64)
}

/// The padding block of a whole-block message of `len` bytes.
pub(super) fn fill_shared(block: &mut [u8; 64], len: u64) {
    *block = [0; 64];
    block[0] = 0x80;
    block[56..].copy_from_slice(&len.wrapping_mul(8).to_le_bytes());
}

/// Fills `pad` with the final one or two blocks of a message whose bytes
/// after the last whole block are `tail` and whose length is `total` bytes;
/// returns how many bytes of `pad` to compress (64 or 128).
pub(super) fn fill_pad(pad: &mut [u8; 128], tail: &[u8], total: u64) -> usize {
    debug_assert!(tail.len() < 64);
    // SAFETY: `pad` is valid for writes of 128 bytes, the two blocks that
    // `write_pad` writes at most for a tail under 64 bytes, and does not
    // overlap `tail`, a shared borrow.
    64 * unsafe { write_pad(pad.as_mut_ptr(), tail, total) }
}

/// Writes `tail` and the padding of a message of `total` bytes that ends
/// with it to `dst`; returns how many blocks it wrote,
/// `padded_blocks(tail.len())`.
///
/// # Safety
///
/// `dst` is valid for writes of `64 * padded_blocks(tail.len())` bytes and
/// does not overlap `tail`.
#[inline(always)]
pub(super) unsafe fn write_pad(dst: *mut u8, tail: &[u8], total: u64) -> usize {
    let blocks = padded_blocks(tail.len());
    // SAFETY: the caller's contract, for the message `tail` from byte 0.
    unsafe { write_end(dst, &tail, 0, blocks, total) };
    blocks
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
pub(super) unsafe fn write_end<'a, M: Message<'a>>(
    dst: *mut u8,
    msg: &M,
    from: usize,
    blocks: usize,
    total: u64,
) {
    let n = msg.len() - from;
    debug_assert_eq!(blocks, padded_blocks(n));
    // SAFETY: the caller vouches for the blocks at `dst`, apart from the
    // message; the bytes copied, `n`, are within them.
    unsafe {
        zero_end(dst, blocks);
        msg.copy(from, msg.len(), dst);
        mark_end(dst, n, blocks, total);
    }
}

/// Writes the 0x80 marker after the `n` bytes at `dst` and the length in
/// bits of a message of `total` bytes at the end of `blocks` blocks.
///
/// # Safety
///
/// `dst` is valid for writes of `64 * blocks` bytes, `blocks` being
/// `padded_blocks(n)` (or more).
#[inline(always)]
pub(super) unsafe fn mark_end(dst: *mut u8, n: usize, blocks: usize, total: u64) {
    debug_assert!(n + 9 <= 64 * blocks);
    // SAFETY: `n + 1 <= 64 * blocks - 8`, as `padded_blocks` leaves room
    // for the marker and the length, which takes the last 8 bytes.
    unsafe {
        dst.add(n).write(0x80);
        write8(
            dst.add(64 * blocks - 8),
            total.wrapping_mul(8).to_le_bytes(),
        );
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

/// Copies `src` to `dst` with fixed-size moves and few branches: 64 bytes
/// at a time, then the last up to 64 in four 16-byte moves that end at
/// `src.len()` and overlap where they must; slices under 16 bytes in two
/// overlapping moves of 8, 4 or 1 to 2 bytes. Reads only `src`'s bytes.
///
/// # Safety
///
/// `dst` is valid for writes of `src.len()` bytes and does not overlap
/// `src`.
#[inline(always)]
pub(super) unsafe fn copy_bytes(src: &[u8], dst: *mut u8) {
    let n = src.len();
    let s = src.as_ptr();
    // SAFETY: each move reads `K` bytes at offset `i` of `src` and writes
    // them at offset `i` of `dst`, with `i + K <= n`: in bounds of both,
    // which do not overlap (the caller).
    unsafe {
        if n >= 16 {
            let mut i = 0;
            while i + 64 <= n {
                for q in 0..4 {
                    move16(s.add(i + 16 * q), dst.add(i + 16 * q));
                }
                i += 64;
            }
            // Offsets `n - 64 .. n - 16` by 16, those below 0 raised to it:
            // together they cover `max(n - 64, 0)..n`.
            for back in [64, 48, 32, 16] {
                let at = n.saturating_sub(back);
                move16(s.add(at), dst.add(at));
            }
        } else if n >= 8 {
            move8(s, dst);
            move8(s.add(n - 8), dst.add(n - 8));
        } else if n >= 4 {
            move4(s, dst);
            move4(s.add(n - 4), dst.add(n - 4));
        } else if n > 0 {
            // Bytes 0, n / 2 and n - 1 cover every length 1 to 3.
            dst.write(*s);
            dst.add(n / 2).write(*s.add(n / 2));
            dst.add(n - 1).write(*s.add(n - 1));
        }
    }
}

/// Moves 16 bytes from `src` to `dst`.
///
/// # Safety
///
/// `src` is valid for reads and `dst` for writes of 16 bytes (any
/// alignment), and they do not overlap.
#[inline(always)]
unsafe fn move16(src: *const u8, dst: *mut u8) {
    // SAFETY: the caller vouches for both 16-byte ranges; the unaligned
    // forms need no alignment.
    unsafe {
        dst.cast::<[u8; 16]>()
            .write_unaligned(src.cast::<[u8; 16]>().read_unaligned())
    }
}

/// Moves 8 bytes from `src` to `dst`.
///
/// # Safety
///
/// As for [`move16`], for 8 bytes.
#[inline(always)]
unsafe fn move8(src: *const u8, dst: *mut u8) {
    // SAFETY: the caller vouches for both 8-byte ranges; the unaligned
    // forms need no alignment.
    unsafe { write8(dst, src.cast::<[u8; 8]>().read_unaligned()) }
}

/// Moves 4 bytes from `src` to `dst`.
///
/// # Safety
///
/// As for [`move16`], for 4 bytes.
#[inline(always)]
unsafe fn move4(src: *const u8, dst: *mut u8) {
    // SAFETY: the caller vouches for both 4-byte ranges; the unaligned
    // forms need no alignment.
    unsafe {
        dst.cast::<[u8; 4]>()
            .write_unaligned(src.cast::<[u8; 4]>().read_unaligned())
    }
}

/// Writes `v` at `dst`.
///
/// # Safety
///
/// `dst` is valid for writes of 8 bytes (any alignment).
#[inline(always)]
unsafe fn write8(dst: *mut u8, v: [u8; 8]) {
    // SAFETY: the caller vouches for the 8 bytes; `write_unaligned` needs
    // no alignment.
    unsafe { dst.cast::<[u8; 8]>().write_unaligned(v) }
}
