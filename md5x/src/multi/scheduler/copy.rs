//! Byte copies into a lane's buffer with fixed-size moves: short messages
//! are copied whole, so these copies are most of the per-message work
//! outside the kernel, and a `memcpy` call for each would cost more than
//! the copy. And a prefetch for the rows copied out of order.

pub(crate) use crate::multi::past_cache::prefetch;

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
pub(crate) unsafe fn copy_bytes(src: &[u8], dst: *mut u8) {
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
    unsafe {
        dst.cast::<[u8; 8]>()
            .write_unaligned(src.cast::<[u8; 8]>().read_unaligned())
    }
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

/// Prefetches the cache lines of bytes 0, 64, 128 and 192 of `row` and of
/// its last byte (each capped at the last): every line of a row that fits
/// a lane's buffer, with no branch on its length. A prefetch never faults,
/// so an empty row's address serves as well.
#[inline(always)]
pub(crate) fn prefetch_row(row: &[u8]) {
    let last = row.len().saturating_sub(1);
    for at in [0, 64, 128, 192, last] {
        prefetch(row.as_ptr().wrapping_add(at.min(last)));
    }
}
