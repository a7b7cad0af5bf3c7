//! S3 multipart ETags: the checksum that S3 and S3-compatible stores (MinIO,
//! Ceph RGW, Cloudflare R2, Wasabi, ...) give an object uploaded in parts.
//!
//! An upload in `N` parts of `P` bytes each (the last may be shorter) gets
//! the ETag
//!
//! ```text
//! hex( MD5( MD5(part 1) ‖ MD5(part 2) ‖ … ‖ MD5(part N) ) ) + "-" + N
//! ```
//!
//! Unlike one MD5 over the whole object, its parts are independent messages
//! of one length, so they are hashed side by side in the lanes of
//! [`md5x::multi`](crate::multi), several times faster than the single
//! stream that `md5sum` computes (the README's "S3 multipart ETags" section
//! has the figures).
//!
//! * [`multipart`]: the ETag of a buffer held in memory;
//! * [`multipart_file`] (with `std`): the ETag of a file, its parts read side
//!   by side with positional reads, shared out between the cores, in a few
//!   hundred KiB of memory whatever the file's size;
//! * [`EtagHasher`]: a streaming form for data seen once, in order (an
//!   upload body, a pipe), each part hashed as it arrives;
//! * [`UploadRule`] (the AWS CLI's `multipart_threshold` and
//!   `multipart_chunksize`), [`upload`], [`UploadHasher`], [`upload_file`]
//!   and [`upload_reader`] (with `std`): the ETag S3 shows for data
//!   uploaded by the AWS CLI's rule, the plain MD5 below the threshold and
//!   the multipart ETag from it on, for a buffer, a stream of unknown
//!   length, a file and a reader (see below);
//! * [`Etag`]: the result, printed and parsed in S3's form;
//! * [`part_sizes`]: which part sizes give an ETag's part count for an
//!   object's length, to find the part size an ETag was made with.
//!
//! The forms that take a part size refuse more than [`MAX_PARTS`] parts,
//! S3's limit (an S3 ETag of more cannot exist); the `_unlimited` siblings
//! compute them for stores that allow more. The upload forms instead
//! double the part size of data whose length they know until it fits, as
//! the AWS CLI does. S3 also wants parts of 5 MiB to 5 GiB (except the
//! last); smaller parts are computed as any other, since other stores and
//! tests use them. Empty data is one empty part, as an S3 multipart upload
//! of an empty body is.
//!
//! # Which ETag an object has
//!
//! An object uploaded whole (a single `PutObject`) has its plain MD5 as its
//! ETag, with no `-N`: [`Etag::from_md5`]. One uploaded in parts has the
//! multipart form, even with one part (`-1`, and a different digest). The
//! AWS CLI and boto3 upload a file in parts when it is at least their
//! `multipart_threshold` (8 MiB by default), in parts of their
//! `multipart_chunksize` (8 MiB by default), doubled until the file fits
//! in 10,000 parts ([`UploadRule`]); rclone uses 5 MiB parts and s3cmd
//! 15 MiB. [`upload`] and its kin give the ETag by the CLI's rule, with
//! one size for both settings; [`UploadRule`] sets them apart:
//!
//! ```
//! use md5x::etag;
//!
//! assert_eq!(etag::upload(b"hello", 8 << 20)?.to_string(), "5d41402abc4b2a76b9719d911017c592");
//! assert_eq!(etag::upload(b"hello", 3)?.to_string(), "554a2f6105cc700b8cc987b5ddfb8102-2");
//! // `multipart_chunksize = 16MB` alone: the 8 MiB threshold stays, so
//! // 9 MiB is one part of 16 MiB.
//! let rule = etag::UploadRule::new(16 << 20)?.with_threshold(8 << 20);
//! assert_eq!(rule.upload(&vec![0; 9 << 20])?.parts(), Some(1));
//! # Ok::<(), etag::PartsError>(())
//! ```
//!
//! # Checking a download against its ETag
//!
//! ```
//! use md5x::etag::{self, Etag};
//!
//! let body = vec![7u8; 11 << 20]; // 11 MiB, uploaded by rclone in 5 MiB parts
//! // S3 returns the ETag header with its double quotes.
//! let header = "\"685989161405211b8fc841f46c4cc003-3\"";
//! let expected: Etag = header.parse()?;
//! assert_eq!(expected.parts(), Some(3));
//! assert_eq!(etag::multipart(&body, 5 << 20)?, expected);
//! // One byte changed: another ETag.
//! let mut corrupt = body.clone();
//! corrupt[6 << 20] ^= 1;
//! assert_ne!(etag::multipart(&corrupt, 5 << 20)?, expected);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! MD5 is broken for security: an ETag detects corruption, not tampering.

mod buffer;
#[cfg(feature = "std")]
pub(crate) mod file;
#[cfg(feature = "std")]
mod file_reads;
mod hasher;
mod parse;
mod rule;
mod upload;

/// Not API: the ETag forms over a chosen multi-buffer kernel or read shape,
/// for this repository's tests and benches. It may change in any release.
#[doc(hidden)]
pub mod kernel_choice;

pub use buffer::{multipart, multipart_unlimited};
#[cfg(feature = "std")]
pub use file::{multipart_file, multipart_file_on, multipart_file_unlimited};
pub use hasher::EtagHasher;
pub use parse::ParseEtagError;
pub use rule::UploadRule;
pub use upload::{upload, UploadHasher};
#[cfg(feature = "std")]
pub use upload::{upload_file, upload_reader, uploaded_whole};

use crate::{Digest, Md5};
use core::{fmt, num::NonZeroU64, ops::RangeInclusive};

/// The most parts S3 allows in one upload: 10,000.
pub const MAX_PARTS: u64 = 10_000;

/// An S3 ETag: the 16-byte digest and, for a multipart upload, the part
/// count.
///
/// `Display` writes S3's form without the double quotes S3 puts around it:
/// `<32 lowercase hex digits>-<N>` for a multipart upload, and the 32 hex
/// digits alone for an object uploaded whole, whose ETag is its plain MD5.
/// [`FromStr`](core::str::FromStr) reads both forms, with or without the
/// quotes and in either case of hex digit; the part count may be any
/// number from 1 up, not only up to S3's [`MAX_PARTS`], so that the ETags
/// of stores that allow more parse too. What parses, displayed, parses to
/// the same value.
///
/// ```
/// use md5x::etag::Etag;
///
/// let etag: Etag = "\"d41d8cd98f00b204e9800998ecf8427e-2\"".parse()?;
/// assert_eq!(etag.parts(), Some(2));
/// assert_eq!(etag.digest()[0], 0xd4);
/// assert_eq!(etag.to_string(), "d41d8cd98f00b204e9800998ecf8427e-2");
///
/// // An object uploaded whole: its MD5, no part count.
/// let whole: Etag = "D41D8CD98F00B204E9800998ECF8427E".parse()?;
/// assert_eq!(whole, Etag::from_md5(md5x::const_digest(b"")));
/// assert_eq!(whole.parts(), None);
/// assert_eq!(whole.to_string(), "d41d8cd98f00b204e9800998ecf8427e");
/// # Ok::<(), md5x::etag::ParseEtagError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Etag {
    digest: [u8; 16],
    /// `None` for an object uploaded whole (its plain MD5).
    parts: Option<NonZeroU64>,
}

impl Etag {
    /// The ETag of an object uploaded whole, not in parts: its MD5.
    pub const fn from_md5(digest: [u8; 16]) -> Self {
        Self {
            digest,
            parts: None,
        }
    }

    /// A multipart ETag.
    pub(crate) const fn multipart(digest: [u8; 16], parts: NonZeroU64) -> Self {
        Self {
            digest,
            parts: Some(parts),
        }
    }

    /// The 16 bytes the hex digits stand for: for a multipart upload the MD5
    /// of its parts' digests, else the object's MD5.
    pub const fn digest(&self) -> [u8; 16] {
        self.digest
    }

    /// The part count `N` of a multipart ETag (1 or more), or `None` for an
    /// object uploaded whole.
    pub const fn parts(&self) -> Option<u64> {
        match self.parts {
            Some(n) => Some(n.get()),
            None => None,
        }
    }
}

impl fmt::Display for Etag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // 32 hex digits, '-', and up to 20 decimal digits, written to a
        // buffer first so that `pad` honours width and alignment.
        let mut buf = [0u8; 53];
        const HEX: &[u8; 16] = b"0123456789abcdef";
        for (pair, b) in buf.chunks_exact_mut(2).zip(self.digest) {
            pair[0] = HEX[usize::from(b >> 4)];
            pair[1] = HEX[usize::from(b & 15)];
        }
        let mut end = 32;
        if let Some(n) = self.parts {
            buf[32] = b'-';
            let mut digits = [0u8; 20];
            let mut i = digits.len();
            let mut n = n.get();
            while n > 0 {
                i -= 1;
                digits[i] = b'0' + (n % 10) as u8;
                n /= 10;
            }
            let digits = &digits[i..];
            buf[33..33 + digits.len()].copy_from_slice(digits);
            end = 33 + digits.len();
        }
        // Only ASCII digits, letters and '-' were written.
        f.pad(core::str::from_utf8(&buf[..end]).map_err(|_| fmt::Error)?)
    }
}

impl fmt::Debug for Etag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Etag(\"{self}\")")
    }
}

/// Why an ETag cannot be computed: a part size of 0, or more parts than
/// S3 allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PartsError {
    /// The part size is 0.
    ZeroPartSize,
    /// The data makes more than [`MAX_PARTS`] parts of `part_size` bytes,
    /// which no S3 upload can have: S3 refuses the part after the 10,000th.
    /// `len` is the data's length, or `None` from [`EtagHasher`], which
    /// stops at the first byte past the limit. The `_unlimited` forms
    /// compute such ETags for stores that allow more parts.
    TooManyParts {
        /// The part size asked for.
        part_size: u64,
        /// The data's length in bytes, where known.
        len: Option<u64>,
    },
}

impl fmt::Display for PartsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            PartsError::ZeroPartSize => f.write_str("the part size of an S3 ETag cannot be 0"),
            PartsError::TooManyParts {
                part_size,
                len: Some(len),
            } => write!(
                f,
                "{len} bytes in parts of {part_size} bytes make {} parts, and S3 allows at \
                 most {MAX_PARTS} (a larger part size makes fewer)",
                part_count(len, part_size)
            ),
            PartsError::TooManyParts {
                part_size,
                len: None,
            } => write!(
                f,
                "the data makes more than {MAX_PARTS} parts of {part_size} bytes, S3's \
                 limit (a larger part size makes fewer)"
            ),
        }
    }
}

impl core::error::Error for PartsError {}

/// The parts that `len` bytes make in parts of `part_size` (not 0) bytes:
/// at least one, and no empty last part.
const fn part_count(len: u64, part_size: u64) -> u64 {
    if len == 0 {
        1
    } else {
        len.div_ceil(part_size)
    }
}

/// The part count of `len` bytes in parts of `part_size`, if it is allowed
/// (at most `max_parts`).
fn checked_parts(len: u64, part_size: u64, max_parts: u64) -> Result<NonZeroU64, PartsError> {
    if part_size == 0 {
        return Err(PartsError::ZeroPartSize);
    }
    let n = part_count(len, part_size);
    if n > max_parts {
        return Err(PartsError::TooManyParts {
            part_size,
            len: Some(len),
        });
    }
    Ok(NonZeroU64::new(n).expect("part_count is at least 1"))
}

/// The part sizes with which an object of `len` bytes is uploaded in
/// exactly `parts` parts, or `None` if there are none (`parts` is 0, more
/// than a non-empty object's length, or above 1 for an empty one).
///
/// A multipart ETag names its part count but not its part size. To check
/// an object against it, try the part sizes its uploader may have used
/// (the common clients' defaults: 8 MiB for the AWS CLI and boto3, 5 MiB
/// for rclone, 15 MiB for s3cmd; the AWS CLI doubles its part size until
/// the object fits in 10,000 parts) that lie in this range; each try hashes
/// the object once. Every part size of the range gives a different ETag,
/// except for one part: all sizes from `len` up give the same.
///
/// ```
/// const MIB: u64 = 1 << 20;
/// let sizes = md5x::etag::part_sizes(1 << 30, 128).unwrap();
/// assert!(sizes.contains(&(8 * MIB)));
/// assert_eq!(sizes, 8 * MIB..=(((1 << 30) - 1) / 127));
/// assert_eq!(md5x::etag::part_sizes(100, 1), Some(100..=u64::MAX));
/// assert_eq!(md5x::etag::part_sizes(100, 101), None);
/// ```
pub fn part_sizes(len: u64, parts: u64) -> Option<RangeInclusive<u64>> {
    match (len, parts) {
        (_, 0) => None,
        (0, 1) => Some(1..=u64::MAX),
        (0, _) => None,
        (_, 1) => Some(len..=u64::MAX),
        _ => {
            // ceil(len / P) == parts  <=>  (parts - 1) * P < len <= parts * P.
            let lo = len.div_ceil(parts);
            let hi = (len - 1) / (parts - 1);
            (lo <= hi).then_some(lo..=hi)
        }
    }
}

/// Composes part digests, given in part order, into the ETag.
#[derive(Clone)]
struct Composer {
    outer: Md5,
    parts: u64,
}

impl Composer {
    fn new() -> Self {
        Self {
            outer: Md5::new(),
            parts: 0,
        }
    }

    fn push(&mut self, part_digest: &[u8; 16]) {
        self.outer.update(part_digest);
        self.parts += 1;
    }

    /// The ETag of the parts pushed, at least one.
    fn finish(self) -> Etag {
        let parts = NonZeroU64::new(self.parts).expect("an ETag has at least one part");
        Etag::multipart(self.outer.finalize().into(), parts)
    }
}
