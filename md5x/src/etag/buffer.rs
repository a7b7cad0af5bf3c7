//! The ETag of a buffer: its parts hashed side by side by
//! `md5x::multi::digest_many_into`.

use super::{checked_parts, Composer, Etag, PartsError, MAX_PARTS};

/// Parts hashed per `digest_many_into` call: a multiple of every kernel's
/// width (8, 12, 16, 24, 32, 48, 64 lanes), so that every call but the
/// last runs full sets of equal lengths, and few enough that their slices
/// and digests (4.5 KiB) live on the stack, whatever the part count.
const BATCH: usize = 192;

/// The S3 multipart ETag of `data` uploaded in parts of `part_size` bytes
/// (the last part may be shorter; empty data is one empty part).
///
/// The parts are hashed side by side in the lanes of
/// [`md5x::multi`](crate::multi) on the calling thread, without
/// allocating.
///
/// # Errors
///
/// [`PartsError::ZeroPartSize`] if `part_size` is 0, and
/// [`PartsError::TooManyParts`] if `data` makes more than [`MAX_PARTS`]
/// parts (see [`multipart_unlimited`]).
///
/// ```
/// let body = b"The quick brown fox jumps over the lazy dog";
/// let etag = md5x::etag::multipart(body, 16)?;
/// assert_eq!(etag.parts(), Some(3));
/// assert_eq!(etag.to_string(), "07f49c9b2ef71fdd9908e9322307edc2-3");
/// # Ok::<(), md5x::etag::PartsError>(())
/// ```
pub fn multipart(data: &[u8], part_size: usize) -> Result<Etag, PartsError> {
    hash_parts(data, part_size, MAX_PARTS, |parts, out| {
        crate::multi::digest_many_into(parts, out)
    })
}

/// [`multipart`] without S3's limit on the part count, for stores that
/// allow more than [`MAX_PARTS`] parts.
///
/// # Errors
///
/// [`PartsError::ZeroPartSize`] if `part_size` is 0.
pub fn multipart_unlimited(data: &[u8], part_size: usize) -> Result<Etag, PartsError> {
    hash_parts(data, part_size, u64::MAX, |parts, out| {
        crate::multi::digest_many_into(parts, out)
    })
}

/// [`multipart`] with at most `max_parts` parts, each batch of parts hashed
/// by `digest_many_into` (a kernel's, for the tests).
pub(super) fn hash_parts(
    data: &[u8],
    part_size: usize,
    max_parts: u64,
    digest_many_into: impl Fn(&[&[u8]], &mut [[u8; 16]]),
) -> Result<Etag, PartsError> {
    checked_parts(data.len() as u64, part_size as u64, max_parts)?;
    let mut composer = Composer::new();
    let mut slices: [&[u8]; BATCH] = [&[]; BATCH];
    let mut digests = [[0u8; 16]; BATCH];
    // Empty data is one empty part; `chunks` would make none.
    let mut parts = data
        .chunks(part_size)
        .chain(data.is_empty().then_some(data));
    loop {
        let mut n = 0;
        for (slot, part) in slices.iter_mut().zip(parts.by_ref()) {
            *slot = part;
            n += 1;
        }
        if n == 0 {
            break;
        }
        digest_many_into(&slices[..n], &mut digests[..n]);
        for d in &digests[..n] {
            composer.push(d);
        }
    }
    Ok(composer.finish())
}
