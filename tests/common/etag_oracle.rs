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
