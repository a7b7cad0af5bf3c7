//! [`UploadRule`]: the AWS CLI's two upload settings, and the part size
//! they give an object of a known length.

use super::{part_count, PartsError, MAX_PARTS};

/// The smallest part S3 takes but the last: 5 MiB.
const S3_MIN_PART: u64 = 5 << 20;
/// The largest part S3 takes: 5 GiB.
const S3_MAX_PART: u64 = 5 << 30;

/// How the AWS CLI and boto3 upload an object, from their two settings
/// (s3transfer's `TransferConfig`): `multipart_threshold`, the length from
/// which an object is uploaded in parts, and `multipart_chunksize`, the
/// part size asked for. Both are 8 MiB by default ([`UploadRule::AWS_CLI`]).
///
/// For an object of `len` bytes (see [`part_size`](Self::part_size)):
///
/// * `len < threshold`: it is uploaded whole, in one `PutObject`, and its
///   ETag is its plain MD5;
/// * otherwise it is uploaded in parts: the chunk size is doubled until the
///   object fits in [`MAX_PARTS`] parts, then kept within the part sizes S3
///   takes, 5 MiB to 5 GiB (s3transfer's `ChunksizeAdjuster`). An object
///   that does not fit in 10,000 parts of 5 GiB has no S3 upload, and no
///   ETag: [`PartsError::TooManyParts`].
///
/// A chunk size below 5 MiB or above 5 GiB, which the CLI would raise to
/// 5 MiB or lower to 5 GiB before uploading, is kept here as the bound on
/// its side (still doubled when the object would pass 10,000 parts), since
/// other stores and tests use such parts; pass 5 MiB for the CLI's ETag of
/// a smaller setting. For a chunk size from 5 MiB to 5 GiB, which takes in
/// every common client's default, the part size is s3transfer's exactly
/// (it divides in floating point, which gives the same part counts for
/// every length below 2^53 bytes).
///
/// A stream of unknown length (standard input, a pipe) is cut into parts
/// of the chunk size as it arrives, never doubled, as the CLI cuts one:
/// past 10,000 parts it fails (the CLI's upload of a stream does too,
/// unless it is told the length up front).
///
/// ```
/// use md5x::etag::UploadRule;
///
/// const MIB: u64 = 1 << 20;
/// let cli = UploadRule::AWS_CLI;
/// // Under the 8 MiB threshold: uploaded whole.
/// assert_eq!(cli.part_size(8 * MIB - 1)?, None);
/// assert_eq!(cli.part_size(8 * MIB)?, Some(8 * MIB));
/// // 10,001 parts of 8 MiB do not fit: 5,001 parts of 16 MiB.
/// assert_eq!(cli.part_size(10_001 * 8 * MIB)?, Some(16 * MIB));
/// // `multipart_chunksize = 16MB` alone: the threshold stays 8 MiB.
/// let rule = UploadRule::new(16 * MIB)?.with_threshold(8 * MIB);
/// assert_eq!(rule.upload(&vec![7; 10 << 20])?.parts(), Some(1));
/// # Ok::<(), md5x::etag::PartsError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct UploadRule {
    threshold: u64,
    chunk_size: u64,
}

impl UploadRule {
    /// The AWS CLI's and boto3's defaults: `multipart_threshold` and
    /// `multipart_chunksize` both 8 MiB (their settings write them `8MB`).
    pub const AWS_CLI: Self = Self {
        threshold: 8 << 20,
        chunk_size: 8 << 20,
    };

    /// Parts of `chunk_size` bytes (`multipart_chunksize`), and the same
    /// threshold (`multipart_threshold`), as the CLI's defaults are equal:
    /// data shorter than one part is uploaded whole.
    ///
    /// # Errors
    ///
    /// [`PartsError::ZeroPartSize`] if `chunk_size` is 0.
    pub const fn new(chunk_size: u64) -> Result<Self, PartsError> {
        if chunk_size == 0 {
            return Err(PartsError::ZeroPartSize);
        }
        Ok(Self {
            threshold: chunk_size,
            chunk_size,
        })
    }

    /// This rule with another `multipart_threshold`: objects of `threshold`
    /// bytes or more are uploaded in parts (with 0, every object is, an
    /// empty one as one empty part).
    #[must_use]
    pub const fn with_threshold(self, threshold: u64) -> Self {
        Self { threshold, ..self }
    }

    /// The length from which an object is uploaded in parts.
    pub const fn threshold(&self) -> u64 {
        self.threshold
    }

    /// The part size asked for, before it is adjusted to an object's
    /// length.
    pub const fn chunk_size(&self) -> u64 {
        self.chunk_size
    }

    /// The part size an object of `len` bytes is uploaded in, or `None` if
    /// it is uploaded whole (shorter than the threshold). The parts are
    /// then at most [`MAX_PARTS`].
    ///
    /// # Errors
    ///
    /// [`PartsError::TooManyParts`] if the object does not fit in 10,000
    /// parts of the largest part size the rule allows (5 GiB, or the chunk
    /// size if larger).
    pub fn part_size(&self, len: u64) -> Result<Option<u64>, PartsError> {
        if len < self.threshold {
            return Ok(None);
        }
        let mut part = self.chunk_size;
        while part_count(len, part) > MAX_PARTS {
            // Cannot saturate: past 2^63 every length is at most 2 parts.
            part = part.saturating_mul(2);
        }
        let part = part.clamp(
            self.chunk_size.min(S3_MIN_PART),
            self.chunk_size.max(S3_MAX_PART),
        );
        if part_count(len, part) > MAX_PARTS {
            return Err(PartsError::TooManyParts {
                part_size: part,
                len: Some(len),
            });
        }
        Ok(Some(part))
    }
}

impl Default for UploadRule {
    /// [`UploadRule::AWS_CLI`].
    fn default() -> Self {
        Self::AWS_CLI
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;
    const GIB: u64 = 1 << 30;

    /// s3transfer's adjustment written another way: the smallest power-of-
    /// two multiple of the chunk size that fits, then the bounds.
    fn reference(chunk: u64, len: u64) -> u64 {
        let fits = (0..64)
            .map(|k| chunk << k)
            .find(|&p| len <= p.saturating_mul(MAX_PARTS))
            .unwrap();
        fits.max(chunk.min(S3_MIN_PART)).min(chunk.max(S3_MAX_PART))
    }

    #[test]
    fn threshold_below_at_and_above() {
        let rule = UploadRule::new(16 * MIB).unwrap().with_threshold(8 * MIB);
        assert_eq!(rule.part_size(8 * MIB - 1), Ok(None));
        assert_eq!(rule.part_size(8 * MIB), Ok(Some(16 * MIB)));
        assert_eq!(rule.part_size(8 * MIB + 1), Ok(Some(16 * MIB)));
        let rule = UploadRule::new(8 * MIB).unwrap().with_threshold(16 * MIB);
        assert_eq!(rule.part_size(16 * MIB - 1), Ok(None));
        assert_eq!(rule.part_size(16 * MIB), Ok(Some(8 * MIB)));
        let cli = UploadRule::AWS_CLI;
        assert_eq!(cli, UploadRule::new(8 * MIB).unwrap());
        assert_eq!(cli, UploadRule::default());
        assert_eq!(cli.part_size(0), Ok(None));
        assert_eq!(cli.part_size(8 * MIB - 1), Ok(None));
        assert_eq!(cli.part_size(8 * MIB), Ok(Some(8 * MIB)));
        // Threshold 0: even an empty object is uploaded in parts.
        assert_eq!(cli.with_threshold(0).part_size(0), Ok(Some(8 * MIB)));
        assert_eq!(UploadRule::new(0), Err(PartsError::ZeroPartSize));
    }

    #[test]
    fn doubled_past_ten_thousand_parts() {
        let cli = UploadRule::AWS_CLI;
        assert_eq!(cli.part_size(10_000 * 8 * MIB), Ok(Some(8 * MIB)));
        assert_eq!(cli.part_size(10_000 * 8 * MIB + 1), Ok(Some(16 * MIB)));
        assert_eq!(cli.part_size(10_001 * 8 * MIB), Ok(Some(16 * MIB)));
        assert_eq!(cli.part_size(20_000 * 8 * MIB), Ok(Some(16 * MIB)));
        assert_eq!(cli.part_size(20_000 * 8 * MIB + 1), Ok(Some(32 * MIB)));
        // 1 TiB: 128 MiB parts, 8,192 of them.
        assert_eq!(cli.part_size(1 << 40), Ok(Some(128 * MIB)));
        let rclone = UploadRule::new(5 * MIB).unwrap();
        assert_eq!(rclone.part_size(10_000 * 5 * MIB), Ok(Some(5 * MIB)));
        assert_eq!(rclone.part_size(10_001 * 5 * MIB), Ok(Some(10 * MIB)));
    }

    #[test]
    fn kept_within_five_mib_and_five_gib() {
        // Doubling past 5 GiB: 5 GiB, as long as 10,000 parts of it fit.
        let big = UploadRule::new(3 * GIB).unwrap();
        assert_eq!(big.part_size(10_000 * 3 * GIB), Ok(Some(3 * GIB)));
        assert_eq!(big.part_size(10_000 * 3 * GIB + 1), Ok(Some(5 * GIB)));
        assert_eq!(big.part_size(10_000 * 5 * GIB), Ok(Some(5 * GIB)));
        assert_eq!(
            big.part_size(10_000 * 5 * GIB + 1),
            Err(PartsError::TooManyParts {
                part_size: 5 * GIB,
                len: Some(10_000 * 5 * GIB + 1)
            })
        );
        assert_eq!(
            UploadRule::AWS_CLI.part_size(u64::MAX),
            Err(PartsError::TooManyParts {
                part_size: 5 * GIB,
                len: Some(u64::MAX)
            })
        );
        // A chunk size past a bound is the bound on its side.
        let small = UploadRule::new(1024).unwrap();
        assert_eq!(small.part_size(1024), Ok(Some(1024)));
        assert_eq!(small.part_size(10_001 * 1024), Ok(Some(2048)));
        assert_eq!(small.part_size(10_000 * 1024 * 1024 + 1), Ok(Some(2 * MIB)));
        let huge = UploadRule::new(6 * GIB).unwrap();
        assert_eq!(huge.part_size(7 * GIB), Ok(Some(6 * GIB)));
        assert!(huge.part_size(10_000 * 6 * GIB + 1).is_err());
        assert!(UploadRule::new(1).unwrap().part_size(u64::MAX).is_err());
    }

    #[test]
    fn matches_the_reference() {
        // Built without `std` under `--no-default-features`: no Vec here.
        let edges = (1..=12u64).flat_map(|k| {
            [5 * MIB, 8 * MIB, 15 * MIB, 1024]
                .into_iter()
                .flat_map(move |base| {
                    let edge = 10_000 * (base << k);
                    [edge - 1, edge, edge + 1]
                })
        });
        let lens = || {
            [0, 1, 5 * MIB, 8 * MIB, 1 << 40, 50_000 * GIB]
                .into_iter()
                .chain(edges.clone())
        };
        for chunk in [
            1,
            1024,
            5 * MIB - 1,
            5 * MIB,
            8 * MIB,
            15 * MIB,
            5 * GIB,
            6 * GIB,
        ] {
            let rule = UploadRule::new(chunk).unwrap().with_threshold(0);
            for len in lens() {
                let want = reference(chunk, len);
                match rule.part_size(len) {
                    Ok(Some(p)) => {
                        assert_eq!(p, want, "{chunk} {len}");
                        assert!(part_count(len, p) <= MAX_PARTS);
                    }
                    Ok(None) => unreachable!(),
                    Err(_) => assert!(part_count(len, want) > MAX_PARTS, "{chunk} {len}"),
                }
            }
        }
    }
}
