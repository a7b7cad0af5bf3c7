//! `--etag`: the S3 ETag of an input for an upload in parts of a given
//! size, and the part sizes `--etag=auto` tries when checking one. The
//! ETags themselves are `md5x::etag`'s: regular files through
//! `multipart_file` (parts read side by side), anything else through the
//! streaming `EtagHasher`.

use crate::engine::{HashError, Input, READ_STDIN, STDIN_CLOSED};
use md5x::etag::{self, Etag, EtagHasher, UploadRule};
use std::fs::File;
use std::io::{self, Read};
use std::sync::atomic::Ordering;

const MIB: u64 = 1 << 20;

/// The part size of `--etag=SIZE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartSize {
    /// Parts of this many bytes (not 0).
    Fixed(u64),
    /// When checking: the part sizes of [`candidates`].
    Auto,
}

impl PartSize {
    /// Reads `auto`, or a byte count with an optional unit: `K`, `M`, `G`,
    /// `T`, `KiB` ... `TiB` and `KB` ... `TB` are all powers of 1024
    /// (letters in either case). `KB` ... `TB` are read as the AWS CLI
    /// reads them, not as GNU's size suffixes (powers of 1000): its
    /// settings write its default part size `multipart_chunksize = 8MB`
    /// and mean 8 MiB, and a part size copied from there must give the
    /// ETag S3 shows for the upload it made. `None` for anything else, 0,
    /// or a size past 2^64 - 1.
    pub fn parse(s: &[u8]) -> Option<Self> {
        if s == b"auto" {
            return Some(PartSize::Auto);
        }
        let digits = s.iter().take_while(|b| b.is_ascii_digit()).count();
        let (number, unit) = s.split_at(digits);
        let unit = unit.to_ascii_uppercase();
        let (scale, power) = match unit.as_slice() {
            [] => (1, 0),
            [p, rest @ ..] => {
                let power = b"KMGT".iter().position(|u| u == p)? as u32 + 1;
                match rest {
                    [] | b"IB" | b"B" => (1024u64, power),
                    _ => return None,
                }
            }
        };
        let n: u64 = std::str::from_utf8(number).ok()?.parse().ok()?;
        let bytes = n.checked_mul(scale.checked_pow(power)?)?;
        (bytes > 0).then_some(PartSize::Fixed(bytes))
    }
}

/// The defaults of common S3 clients, the first part sizes `auto` tries,
/// in this order: AWS CLI and boto3, rclone, s3cmd, MinIO's mc (minio-go),
/// s5cmd.
pub const CLIENT_DEFAULTS: [u64; 5] = [8 * MIB, 5 * MIB, 15 * MIB, 16 * MIB, 50 * MIB];

/// The part sizes `--etag=auto` tries for a regular file of `len` bytes
/// whose ETag has `parts` parts, in order, each once: of the
/// [`CLIENT_DEFAULTS`], then the smallest of 8 MiB × 2^k (the AWS CLI and
/// boto3 double their part size until a file fits in 10,000 parts), of
/// the multiples of 16 MiB (minio-go's rule for large files) and of the
/// whole MiB, those that give `parts` parts. Each try hashes the file
/// once; a part size outside [`etag::part_sizes`] cannot match, so it is
/// not tried. For one part, every size from `len` up gives the same ETag,
/// and one is tried.
pub fn candidates(len: u64, parts: u64) -> Vec<u64> {
    let Some(range) = etag::part_sizes(len, parts) else {
        return Vec::new();
    };
    let (lo, hi) = (*range.start(), *range.end());
    let smallest_multiple = |unit: u64| lo.div_ceil(unit).checked_mul(unit);
    let doubling = (0..64)
        .filter_map(|k| (8 * MIB).checked_shl(k))
        .find(|&p| p >= lo);
    let rules = [
        doubling,
        smallest_multiple(16 * MIB),
        smallest_multiple(MIB),
    ];
    let mut sizes = Vec::new();
    for p in CLIENT_DEFAULTS
        .into_iter()
        .chain(rules.into_iter().flatten())
    {
        if (lo..=hi).contains(&p) && !sizes.contains(&p) {
            sizes.push(p);
        }
    }
    if parts == 1 {
        sizes.truncate(1);
        if sizes.is_empty() {
            sizes.push(lo);
        }
    }
    sizes
}

/// Read size of a stream.
const READ: usize = 256 * 1024;

/// An opened input: a regular file, with its length, or a stream.
enum Source {
    File(File, u64),
    Stream(Box<dyn Read>),
}

fn open(input: &Input) -> Result<Source, HashError> {
    let at_open = |err| HashError { err, at_open: true };
    let path = match input {
        Input::Stdin => {
            READ_STDIN.store(true, Ordering::Relaxed);
            if STDIN_CLOSED.load(Ordering::Relaxed) {
                return Err(HashError {
                    err: crate::sys::ebadf(),
                    at_open: false,
                });
            }
            return Ok(Source::Stream(Box::new(io::stdin())));
        }
        Input::Path(path) => path,
    };
    let file = crate::stdio::open(path).map_err(at_open)?;
    match file.metadata() {
        Ok(m) if m.is_file() => Ok(Source::File(file, m.len())),
        _ => Ok(Source::Stream(Box::new(file))),
    }
}

fn read_error(err: io::Error) -> HashError {
    HashError {
        err,
        at_open: false,
    }
}

fn parts_error(e: etag::PartsError) -> HashError {
    read_error(io::Error::new(io::ErrorKind::InvalidInput, e))
}

/// Feeds all of `src` to `each`, a read at a time.
fn for_each_read(
    src: &mut dyn Read,
    mut each: impl FnMut(&[u8]) -> Result<(), HashError>,
) -> Result<(), HashError> {
    let mut buf = vec![0u8; READ];
    loop {
        let n = match src.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(read_error(e)),
        };
        each(&buf[..n])?;
    }
}

/// The ETag S3 shows for `input` uploaded by the AWS CLI's rule with
/// `multipart_chunksize` and `multipart_threshold` both `part_size`
/// (`md5x::etag::UploadRule::upload_file`): its plain MD5 if it is shorter
/// than one part (uploaded whole), else its multipart ETag, the part size
/// of a regular file doubled until it has at most 10,000 parts, read on at
/// most `threads` threads (`-j`).
pub fn upload_etag(input: &Input, part_size: u64, threads: usize) -> Result<Etag, HashError> {
    let rule = UploadRule::new(part_size).map_err(parts_error)?;
    match open(input)? {
        Source::File(file, _) => rule.upload_file(&file, threads).map_err(read_error),
        Source::Stream(s) => rule.upload_reader(s).map_err(read_error),
    }
}

/// The part sizes `--etag=SIZE` tries for a regular file of `len` bytes:
/// SIZE itself, and the part size the AWS CLI's rule gives the file with
/// SIZE as `multipart_chunksize` (SIZE doubled until the file fits in
/// 10,000 parts), where that differs. At most one of them gives a part
/// count.
fn fixed_sizes(len: u64, size: u64) -> Vec<u64> {
    let mut sizes = vec![size];
    let adjusted = UploadRule::new(size).map(|r| r.with_threshold(0).part_size(len));
    if let Ok(Ok(Some(p))) = adjusted {
        if p != size {
            sizes.push(p);
        }
    }
    sizes
}

/// Checks `input` against a multipart ETag: with a part size, that one or
/// the one the AWS CLI doubles it to for the file's length
/// ([`fixed_sizes`]); with [`PartSize::Auto`], the [`candidates`] for its
/// length (for a stream, the [`CLIENT_DEFAULTS`], hashed side by side as it
/// is read once). A regular file is read on at most `threads` threads
/// (`-j`). The part size that matched, or `None`. Any part count is
/// computed, not only S3's 10,000, since the line names it.
pub fn check_multipart(
    input: &Input,
    expected: &Etag,
    size: PartSize,
    threads: usize,
) -> Result<Option<u64>, HashError> {
    let parts = expected.parts().unwrap_or(1);
    match open(input)? {
        Source::File(file, len) => {
            let sizes = match size {
                PartSize::Fixed(p) => fixed_sizes(len, p),
                PartSize::Auto => candidates(len, parts),
            };
            for p in sizes {
                let fits = etag::part_sizes(len, parts).is_some_and(|r| r.contains(&p));
                if fits
                    && etag::multipart_file_on(&file, p, u64::MAX, threads).map_err(read_error)?
                        == *expected
                {
                    return Ok(Some(p));
                }
            }
            Ok(None)
        }
        Source::Stream(mut stream) => {
            let sizes = match size {
                PartSize::Fixed(p) => vec![p],
                PartSize::Auto => CLIENT_DEFAULTS.to_vec(),
            };
            let mut hashers: Vec<EtagHasher> = sizes
                .iter()
                .map(|&p| EtagHasher::unlimited(p).map_err(parts_error))
                .collect::<Result<_, _>>()?;
            for_each_read(&mut stream, |data| {
                for h in &mut hashers {
                    h.update(data).map_err(parts_error)?;
                }
                Ok(())
            })?;
            Ok(sizes
                .into_iter()
                .zip(hashers)
                .find_map(|(p, h)| (h.finish() == Ok(*expected)).then_some(p)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn part_sizes_parse_with_units() {
        let fixed = |s: &str| PartSize::parse(s.as_bytes());
        assert_eq!(fixed("auto"), Some(PartSize::Auto));
        assert_eq!(fixed("8M"), Some(PartSize::Fixed(8 << 20)));
        assert_eq!(fixed("8MiB"), Some(PartSize::Fixed(8 << 20)));
        assert_eq!(fixed("8mib"), Some(PartSize::Fixed(8 << 20)));
        // The AWS CLI's units: MB is MiB.
        assert_eq!(fixed("8MB"), Some(PartSize::Fixed(8 << 20)));
        assert_eq!(fixed("5mb"), Some(PartSize::Fixed(5 << 20)));
        assert_eq!(fixed("1k"), Some(PartSize::Fixed(1024)));
        assert_eq!(fixed("2kB"), Some(PartSize::Fixed(2048)));
        assert_eq!(fixed("5G"), Some(PartSize::Fixed(5 << 30)));
        assert_eq!(fixed("1TB"), Some(PartSize::Fixed(1 << 40)));
        assert_eq!(fixed("1234"), Some(PartSize::Fixed(1234)));
        assert_eq!(
            fixed("18446744073709551615"),
            Some(PartSize::Fixed(u64::MAX))
        );
        for bad in [
            "",
            "0",
            "0M",
            "M",
            "8X",
            "8MX",
            "8 M",
            " 8",
            "-8",
            "+8",
            "1.5M",
            "8Mi",
            "8iB",
            "18446744073709551616",
            "16777216T",
            "AUTO",
            "auto8",
        ] {
            assert_eq!(fixed(bad), None, "{bad}");
        }
    }

    #[test]
    fn fixed_sizes_add_the_doubled_one() {
        // Up to 10,000 parts: the size alone.
        assert_eq!(fixed_sizes(10_000 * 8 * MIB, 8 * MIB), [8 * MIB]);
        assert_eq!(fixed_sizes(0, 8 * MIB), [8 * MIB]);
        assert_eq!(fixed_sizes(100, 8 * MIB), [8 * MIB]);
        // Past them, the AWS CLI's doubled size too.
        assert_eq!(fixed_sizes(10_001 * 8 * MIB, 8 * MIB), [8 * MIB, 16 * MIB]);
        assert_eq!(fixed_sizes(40_001 * 5 * MIB, 5 * MIB), [5 * MIB, 40 * MIB]);
        assert_eq!(fixed_sizes(10_001 * 1024, 1024), [1024, 2048]);
        // Too long for 10,000 parts of 5 GiB: the size alone.
        assert_eq!(fixed_sizes(u64::MAX, 8 * MIB), [8 * MIB]);
    }

    #[test]
    fn candidates_give_the_part_count() {
        const GIB: u64 = 1 << 30;
        // 1 GiB in 128 parts: only 8 MiB of the defaults fits.
        assert_eq!(candidates(GIB, 128), [8 * MIB]);
        // 205 parts: 5 MiB (rclone), and no whole MiB before it.
        assert_eq!(candidates(GIB, 205), [5 * MIB]);
        // A 100 GiB file: the AWS CLI doubles 8 MiB to 16 MiB (6400 parts),
        // which is also minio-go's 16 MiB.
        assert_eq!(candidates(100 * GIB, 6400), [16 * MIB]);
        // 1 TiB by the AWS CLI: 128 MiB parts, 8192 of them.
        assert_eq!(candidates(1024 * GIB, 8192), [128 * MIB]);
        // Two parts of 12 MiB: 15 and 16 MiB fit, then the smallest whole
        // MiB, 12.
        assert_eq!(candidates(24 * MIB, 2), [15 * MIB, 16 * MIB, 12 * MIB]);
        // One part: one try.
        assert_eq!(candidates(3, 1), [8 * MIB]);
        assert_eq!(candidates(100 * MIB, 1), [128 * MIB]);
        assert_eq!(candidates(0, 1), [8 * MIB]);
        for (len, parts) in [(GIB, 3), (12345678901, 77), (5 * MIB + 1, 2), (100, 7)] {
            for p in candidates(len, parts) {
                assert_eq!(len.div_ceil(p), parts, "{len} {parts} {p}");
            }
        }
        assert!(candidates(0, 2).is_empty());
        assert!(candidates(10, 11).is_empty());
    }
}
