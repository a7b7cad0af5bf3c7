//! A column's rows hashed straight to hex or base64, a chunk of rows at a
//! time: each chunk's digests are written to a buffer and encoded while it
//! is still in L1, so that a million rows' digests never
//! make the round trip through memory that `digest_offsets_into` followed
//! by `hex_into` costs (16 bytes a row written, then read back).

use super::offsets::{Offset, Offsets};
use super::{base64, hex};
use crate::multi::kernel::Kernel;
use crate::multi::past_cache;
use crate::multi::scheduler::digest_batch;

/// Rows a chunk: 64 KiB of digests, in L2 with the chunk's output. Enough
/// rows that a chunk's short-row buckets (`scheduler/buckets.rs`, which
/// want 256 rows left) cover all but its last few, and their last sets,
/// partly full, are few: 8-64 B rows to hex ran faster than in chunks of
/// 512, 1024 or 2048 rows, and no slower than in chunks of 16384.
///
/// The buffer is on the heap: on the stack its 64 KiB, with the
/// scheduler's, overflowed a 128 KiB thread stack (musl's default, which
/// Python's threads there get). Without `std`, a chunk is a quarter of
/// this, on the stack.
const CHUNK: usize = if cfg!(feature = "std") { 4096 } else { 1024 };

/// Hashes each row of a column in Arrow's layout (as
/// [`digest_offsets_into`](super::offsets::digest_offsets_into) reads it)
/// and writes its digest in lowercase hex (as [`hex_into`](super::hex::hex_into)
/// writes it) to `out[i]`.
///
/// The same output as `digest_offsets_into` then `hex_into`, without the
/// column of digests in between: the rows are hashed a chunk at a time and
/// each chunk's digests encoded while they are still in cache. With `std`
/// the one allocation is that chunk's buffer (64 KiB at most); without,
/// it is on the stack (16 KiB).
///
/// # Panics
///
/// As `digest_offsets_into`: if `out.len()` is not `offsets.len() - 1` (0
/// for no offsets), if an offset is negative, if offsets decrease, or if
/// the last is past the end of `values`.
///
/// ```
/// // The column ["alice", "", "bob"] to the buffers of a `Utf8` column of
/// // hex digests: its values, and offsets 0, 32, 64, ...
/// let values = b"alicebob";
/// let offsets: &[i32] = &[0, 5, 5, 8];
/// let mut hex = vec![[0u8; 32]; offsets.len() - 1];
/// md5x::multi::hex_offsets_into(values, offsets, &mut hex);
/// assert_eq!(&hex[1], b"d41d8cd98f00b204e9800998ecf8427e"); // ""
///
/// let hex_values: Vec<u8> = hex.concat();
/// let hex_offsets: Vec<i32> = (0..=hex.len() as i32).map(|i| 32 * i).collect();
/// assert_eq!(&hex_values[64..], b"9f9d51bc70ef21ca5c14f307980a29d8"); // "bob"
/// assert_eq!(hex_offsets, [0, 32, 64, 96]);
/// ```
pub fn hex_offsets_into<O: Offset>(values: &[u8], offsets: &[O], out: &mut [[u8; 32]]) {
    let rows = Offsets::new("hex_offsets_into", values, offsets, out.len());
    by_chunks(&rows, out, hex::encode_all);
}

/// Hashes each row of a column in Arrow's layout and writes its digest in
/// base64 (as [`base64_into`](super::base64::base64_into) writes it: RFC
/// 4648's standard alphabet, padded, 24 bytes) to `out[i]`.
///
/// The same output as
/// [`digest_offsets_into`](super::offsets::digest_offsets_into) then
/// `base64_into`, a chunk of rows at a time through one buffer, as
/// [`hex_offsets_into`] does.
///
/// # Panics
///
/// As `digest_offsets_into`: if `out.len()` is not `offsets.len() - 1` (0
/// for no offsets), if an offset is negative, if offsets decrease, or if
/// the last is past the end of `values`.
///
/// ```
/// // The `Content-MD5` of each row of ["abc", ""].
/// let values = b"abc";
/// let offsets: &[i64] = &[0, 3, 3];
/// let mut b64 = [[0u8; 24]; 2];
/// md5x::multi::base64_offsets_into(values, offsets, &mut b64);
/// assert_eq!(&b64[0], b"kAFQmDzST7DWlj99KOF/cg==");
/// assert_eq!(&b64[1], b"1B2M2Y8AsgTpgAmY7PhCfg==");
/// ```
pub fn base64_offsets_into<O: Offset>(values: &[u8], offsets: &[O], out: &mut [[u8; 24]]) {
    let rows = Offsets::new("base64_offsets_into", values, offsets, out.len());
    by_chunks(&rows, out, base64::encode_all);
}

/// Hashes `rows` a chunk at a time into a buffer of digests, and `encode`s
/// each chunk's digests into its slots of `out`.
fn by_chunks<O: Offset, const N: usize>(
    rows: &Offsets<'_, O>,
    out: &mut [[u8; N]],
    encode: fn(&[[u8; 16]], &mut [[u8; N]]),
) {
    let kernel = Kernel::detect();
    let hashed: Result<(), core::convert::Infallible> =
        encoded_by_chunks(out, encode, |range, digests| {
            digest_batch(kernel, &rows.sub(range), digests);
            Ok(())
        });
    let Ok(()) = hashed;
}

/// Rows `0..out.len()` a chunk at a time: `hash` writes the digests of a
/// range of rows into a buffer (or fails, and so does this), and `encode`
/// writes them into their slots of `out`.
pub(super) fn encoded_by_chunks<const N: usize, E>(
    out: &mut [[u8; N]],
    encode: fn(&[[u8; 16]], &mut [[u8; N]]),
    mut hash: impl FnMut(core::ops::Range<usize>, &mut [[u8; 16]]) -> Result<(), E>,
) -> Result<(), E> {
    let past_cache = past_cache::past_cache(size_of_val(out));
    #[cfg(feature = "std")]
    let mut digests = std::vec![[0u8; 16]; CHUNK.min(out.len())];
    #[cfg(not(feature = "std"))]
    let mut digests = [[0u8; 16]; CHUNK];
    for (i, out) in out.chunks_mut(CHUNK).enumerate() {
        let at = i * CHUNK;
        let digests = &mut digests[..out.len()];
        hash(at..at + out.len(), digests)?;
        match past_cache {
            true => past_cache::encode_past_cache(digests, out, encode),
            false => encode(digests, out),
        }
    }
    Ok(())
}
