//! S3's multipart ETag formula written out over an MD5 `D` of the caller's
//! choosing: the oracle of the ETag tests (md-5 0.10.6 in the library's,
//! this crate's `Md5` in md5sum's, which links this file).

use md5::Digest;

/// The MD5 of the parts' MD5s, and the part count (empty data: one part).
pub(crate) fn composed<D: Digest>(data: &[u8], part_size: usize) -> String {
    let mut parts: Vec<&[u8]> = data.chunks(part_size).collect();
    if parts.is_empty() {
        parts.push(&[]);
    }
    let mut outer = D::new();
    for p in &parts {
        outer.update(D::digest(p));
    }
    let hex: String = outer
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("{hex}-{}", parts.len())
}

/// The part size s3transfer's `ChunksizeAdjuster` (the AWS CLI's and
/// boto3's) gives a file of `len` bytes for a `multipart_chunksize` of
/// `chunk`, in its own arithmetic: the part count by floating-point
/// division, the size doubled while that passes 10,000, then kept within
/// S3's 5 MiB to 5 GiB, bounds widened to take in a chunk size outside
/// them (which md5x keeps as given).
#[allow(dead_code)] // not every test that links this file uses it
pub(crate) fn s3transfer_part_size(chunk: u64, len: u64) -> u64 {
    let parts = |size: u64| (len as f64 / size as f64).ceil();
    let mut size = chunk;
    while parts(size) > 10_000.0 {
        size *= 2;
    }
    size.clamp(chunk.min(5 << 20), chunk.max(5 << 30))
}

/// The multipart ETag of `len` zero bytes (a sparse file) in parts of
/// `part_size`: the MD5 of a full part of zeros computed once, and that of
/// the shorter last part, if any.
#[allow(dead_code)] // not every test that links this file uses it
pub(crate) fn zeros_composed<D: Digest>(len: u64, part_size: u64) -> String {
    let full = D::digest(vec![0u8; part_size as usize]);
    let (whole, rest) = (len / part_size, len % part_size);
    let mut outer = D::new();
    for _ in 0..whole {
        outer.update(&full);
    }
    let mut parts = whole;
    if rest > 0 || len == 0 {
        outer.update(D::digest(vec![0u8; rest as usize]));
        parts += 1;
    }
    let hex: String = outer
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("{hex}-{parts}")
}
