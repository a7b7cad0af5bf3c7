//! S3's multipart ETag formula written out over an MD5 function of the
//! caller's choosing: the oracle of the ETag tests (md-5 0.10.6 in the
//! library's, md5x's `Md5` in md5sum's).

/// An MD5 function: the digest of its input.
pub type Md5Fn = fn(&[u8]) -> [u8; 16];

fn hex(digest: [u8; 16]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// The MD5 of the parts' MD5s, and the part count (empty data: one part).
pub fn composed(md5: Md5Fn, data: &[u8], part_size: usize) -> String {
    let mut parts: Vec<&[u8]> = data.chunks(part_size).collect();
    if parts.is_empty() {
        parts.push(&[]);
    }
    let digests: Vec<u8> = parts.iter().flat_map(|p| md5(p)).collect();
    format!("{}-{}", hex(md5(&digests)), parts.len())
}

/// The part size s3transfer's `ChunksizeAdjuster` (the AWS CLI's and
/// boto3's) gives a file of `len` bytes for a `multipart_chunksize` of
/// `chunk`, in its own arithmetic: the part count by floating-point
/// division, the size doubled while that passes 10,000, then kept within
/// S3's 5 MiB to 5 GiB, bounds widened to take in a chunk size outside
/// them (which md5x keeps as given).
pub fn s3transfer_part_size(chunk: u64, len: u64) -> u64 {
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
pub fn zeros_composed(md5: Md5Fn, len: u64, part_size: u64) -> String {
    let full = md5(&vec![0u8; part_size as usize]);
    let (whole, rest) = (len / part_size, len % part_size);
    let mut digests: Vec<u8> = full.repeat(whole as usize);
    let mut parts = whole;
    if rest > 0 || len == 0 {
        digests.extend(md5(&vec![0u8; rest as usize]));
        parts += 1;
    }
    format!("{}-{parts}", hex(md5(&digests)))
}
