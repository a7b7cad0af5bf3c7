//! Hooks for `tests/etag.rs` and `benches/etag.rs`: the ETag forms with a
//! chosen multi-buffer kernel, or a chosen read shape. Not part of the API.

use super::{buffer, Etag, PartsError, MAX_PARTS};

/// [`super::multipart`] with kernel `kernel` (one of
/// `md5x::multi::kernel_choice::kernels()`, or a `Choice` of kernel and tuning).
///
/// # Errors
///
/// As [`super::multipart`].
pub fn multipart(
    kernel: impl Into<crate::multi::kernel_choice::Choice>,
    data: &[u8],
    part_size: usize,
) -> Result<Etag, PartsError> {
    let kernel = kernel.into();
    buffer::hash_parts(data, part_size, MAX_PARTS, |parts, out| {
        crate::multi::kernel_choice::digest_many_into(kernel, parts, out)
    })
}

/// [`super::multipart_file`] with `lanes` parts a set, `chunk` bytes of
/// each a round, at most `threads` threads, and the OS asked to read
/// `ahead` bytes ahead of each part (0: not asked).
///
/// # Errors
///
/// As [`super::multipart_file`].
///
/// # Panics
///
/// If `lanes` is not 1 to `Lanes::MAX`, `chunk` is not a positive
/// multiple of 64, or `threads` is 0.
#[cfg(feature = "std")]
pub fn multipart_file(
    file: &std::fs::File,
    part_size: u64,
    lanes: usize,
    chunk: usize,
    threads: usize,
    ahead: u64,
) -> std::io::Result<Etag> {
    assert!(
        (1..=crate::multi::Lanes::MAX).contains(&lanes)
            && chunk > 0
            && chunk.is_multiple_of(64)
            && threads > 0,
        "md5x::etag::kernel_choice::multipart_file: {lanes} lanes of {chunk} bytes, {threads} threads"
    );
    let shape = super::file::Shape {
        lanes,
        chunk,
        threads,
        ahead,
    };
    super::file::hash_file(
        file,
        part_size,
        MAX_PARTS,
        shape,
        &crate::files::Control::new(),
        super::file::Rule::Multipart,
    )
}
