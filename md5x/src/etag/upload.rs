//! The AWS CLI's upload rule applied ([`UploadRule`]): the ETag S3 shows
//! for data uploaded whole below the threshold, and in parts from it on.

#[cfg(feature = "std")]
use super::file::{hash_file, Rule, Shape};
#[cfg(feature = "std")]
use super::file_reads::for_each_read;
use super::{Etag, EtagHasher, PartsError, UploadRule, MAX_PARTS};
#[cfg(feature = "std")]
use crate::control::Control;
use crate::{Digest, Md5};
#[cfg(feature = "std")]
use std::{fs::File, io};

/// The ETag S3 shows for data uploaded by the AWS CLI's rule (also
/// boto3's, [`UploadRule`]), taken piece by piece: data shorter than the
/// threshold is uploaded whole (a single `PutObject`) and its ETag is its
/// plain MD5; longer data is uploaded in parts of the chunk size and gets
/// the multipart ETag, even with one part. [`UploadHasher::new`] takes one
/// size for both settings, as the CLI's defaults (8 MiB each, written
/// `8MB` in its settings) are equal; [`UploadRule::hasher`] takes both.
///
/// `UploadHasher` is for a stream whose length is known only at its end
/// (a pipe, standard input, a file the kernel sizes as 0): its parts are
/// of the chunk size, never doubled, as the CLI cuts a stream (see
/// [`UploadRule`]). The first part is hashed once, and is the whole data's
/// MD5 if the stream ends within it and the threshold. [`upload`] is the
/// form for a buffer and [`upload_file`] (with `std`) the form for a file,
/// whose lengths are known, so that their parts are doubled past 10,000;
/// with `std` it is also an [`std::io::Write`], and [`upload_reader`]
/// reads a reader through it.
///
/// ```
/// use md5x::etag::{Etag, UploadHasher};
///
/// // 8 MiB parts, data shorter than one part: its MD5.
/// let mut hasher = UploadHasher::new(8 << 20)?;
/// hasher.update(b"hel")?;
/// hasher.update(b"lo")?;
/// assert_eq!(hasher.finish()?.to_string(), "5d41402abc4b2a76b9719d911017c592");
///
/// // Parts of 3 bytes: two parts, the multipart form.
/// let mut hasher = UploadHasher::new(3)?;
/// hasher.update(b"hello")?;
/// assert_eq!(hasher.finish()?.to_string(), "554a2f6105cc700b8cc987b5ddfb8102-2");
/// # Ok::<(), md5x::etag::PartsError>(())
/// ```
#[derive(Clone, Debug)]
pub struct UploadHasher {
    parts: EtagHasher,
    /// The MD5 of the data up to the threshold, where the threshold lies
    /// past the first part (otherwise the first part's MD5 is that).
    whole: Option<Md5>,
    /// Bytes hashed so far.
    len: u64,
    threshold: u64,
}

impl UploadHasher {
    /// A hasher for the AWS CLI's rule with parts of `part_size` bytes and
    /// the same threshold (`UploadRule::new(part_size)`), refusing more
    /// than [`MAX_PARTS`] parts (S3's limit).
    ///
    /// # Errors
    ///
    /// [`PartsError::ZeroPartSize`] if `part_size` is 0.
    pub fn new(part_size: u64) -> Result<Self, PartsError> {
        Ok(UploadRule::new(part_size)?.hasher())
    }

    /// Hashes `data`, the next bytes of the object.
    ///
    /// # Errors
    ///
    /// [`PartsError::TooManyParts`] once the data has passed both the
    /// threshold and [`MAX_PARTS`] parts; then, and for every later call
    /// and [`finish`](Self::finish), the hasher refuses.
    pub fn update(&mut self, data: &[u8]) -> Result<(), PartsError> {
        if let Some(whole) = &mut self.whole {
            let room = self.threshold.saturating_sub(self.len);
            let take = data.len().min(usize::try_from(room).unwrap_or(usize::MAX));
            whole.update(&data[..take]);
        }
        self.len = self.len.saturating_add(data.len() as u64);
        match self.parts.update(data) {
            // Data still under the threshold is uploaded whole, whatever
            // its parts would have been.
            Err(_) if self.len < self.threshold => Ok(()),
            r => r,
        }
    }

    /// The ETag of everything hashed: its MD5 if it is shorter than the
    /// threshold, else its multipart ETag.
    ///
    /// # Errors
    ///
    /// [`PartsError::TooManyParts`] if the data passed the threshold and
    /// the part limit.
    pub fn finish(self) -> Result<Etag, PartsError> {
        if self.len < self.threshold {
            let md5 = match self.whole {
                Some(whole) => whole.finalize().into(),
                None => self.parts.first_part_md5(),
            };
            return Ok(Etag::from_md5(md5));
        }
        self.parts.finish()
    }
}

/// Every write is hashed whole; one past the part limit fails with
/// [`std::io::ErrorKind::InvalidInput`] and the [`PartsError`] inside.
#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
impl std::io::Write for UploadHasher {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.update(buf).map_err(invalid_input)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl UploadRule {
    /// The ETag S3 shows for `data` uploaded by this rule: its MD5 under
    /// the threshold, else [`multipart`](super::multipart) in the part
    /// size the rule gives its length, the parts hashed side by side.
    ///
    /// # Errors
    ///
    /// [`PartsError::TooManyParts`] if `data` does not fit in 10,000 parts
    /// ([`UploadRule::part_size`]).
    ///
    /// ```
    /// use md5x::etag::UploadRule;
    ///
    /// // 10,001 bytes in parts of 1 byte: doubled to 2, 5,001 parts.
    /// let rule = UploadRule::new(1)?;
    /// assert_eq!(rule.upload(&[0; 10_001])?.parts(), Some(5_001));
    /// # Ok::<(), md5x::etag::PartsError>(())
    /// ```
    pub fn upload(&self, data: &[u8]) -> Result<Etag, PartsError> {
        match self.part_size(data.len() as u64)? {
            None => Ok(Etag::from_md5(Md5::digest(data).into())),
            // A part size past `usize` is one part, as is any from the
            // data's length up.
            Some(p) => super::multipart(data, usize::try_from(p).unwrap_or(usize::MAX)),
        }
    }

    /// An [`UploadHasher`] for a stream uploaded by this rule.
    pub fn hasher(&self) -> UploadHasher {
        let parts = EtagHasher::with_max_parts(self.chunk_size(), MAX_PARTS)
            .expect("a rule's chunk size is not 0");
        UploadHasher {
            parts,
            whole: (self.threshold() > self.chunk_size()).then(Md5::new),
            len: 0,
            threshold: self.threshold(),
        }
    }

    /// The ETag S3 shows for the data of `reader` uploaded by this rule,
    /// read in order to its end as a stream of unknown length (see
    /// [`UploadHasher`]).
    ///
    /// # Errors
    ///
    /// [`io::ErrorKind::InvalidInput`] with the [`PartsError`] inside if
    /// the data passes the threshold and 10,000 parts; any error of the
    /// reads but [`io::ErrorKind::Interrupted`], which is retried.
    #[cfg(feature = "std")]
    #[cfg_attr(docsrs, doc(cfg(feature = "std")))]
    pub fn upload_reader(&self, reader: impl io::Read) -> io::Result<Etag> {
        let mut hasher = self.hasher();
        for_each_read(reader, |data| hasher.update(data).map_err(invalid_input))?;
        hasher.finish().map_err(invalid_input)
    }

    /// The ETag S3 shows for `file` uploaded by this rule: a regular file
    /// of the threshold or more in the part size the rule gives its length,
    /// read as [`multipart_file`](super::multipart_file) reads, on at most
    /// `threads` threads (0 counts as 1); anything else (a shorter file, a
    /// pipe, a device, a file whose size the kernel gives as 0, as under
    /// Linux's `/proc`) read in order through an [`UploadHasher`].
    ///
    /// # Errors
    ///
    /// As [`upload_reader`](Self::upload_reader), and as
    /// [`multipart_file`](super::multipart_file) for a file uploaded in
    /// parts; [`io::ErrorKind::InvalidInput`] with the [`PartsError`]
    /// inside if its length does not fit in 10,000 parts.
    #[cfg(feature = "std")]
    #[cfg_attr(docsrs, doc(cfg(feature = "std")))]
    pub fn upload_file(&self, file: &File, threads: usize) -> io::Result<Etag> {
        let meta = file.metadata()?;
        if meta.is_file() {
            if let Some(part_size) = self.part_size(meta.len()).map_err(invalid_input)? {
                let mut shape = Shape::detect();
                shape.threads = threads.max(1);
                return hash_file(
                    file,
                    part_size,
                    MAX_PARTS,
                    shape,
                    &Control::new(),
                    Rule::Upload(*self),
                );
            }
        }
        self.upload_reader(file)
    }

    /// Whether the ETag [`upload_file`](Self::upload_file) gives a file
    /// with metadata `meta` is its plain MD5, as far as the metadata tells
    /// before the file is read: a regular file whose length is from 1 to
    /// below the threshold. A caller that hashes many files can then
    /// compute their MD5s in batches and take [`Etag::from_md5`] of each. A
    /// length of 0 says nothing (the kernel gives it to files it does not
    /// size, as under Linux's `/proc`): such a file is read by
    /// [`upload_file`](Self::upload_file), and so is a file that grew past
    /// the threshold since its metadata was read.
    #[cfg(feature = "std")]
    #[cfg_attr(docsrs, doc(cfg(feature = "std")))]
    pub fn uploaded_whole(&self, meta: &std::fs::Metadata) -> bool {
        meta.is_file() && (1..self.threshold()).contains(&meta.len())
    }
}

/// The ETag S3 shows for `data` uploaded by the AWS CLI's rule with
/// `multipart_chunksize` and `multipart_threshold` both `part_size`
/// (`UploadRule::new(part_size)`, see [`UploadRule`]): its MD5 if it is
/// shorter than one part, else [`multipart`](super::multipart), the parts
/// hashed side by side, doubled in size until there are at most
/// [`MAX_PARTS`].
///
/// # Errors
///
/// [`PartsError::ZeroPartSize`] if `part_size` is 0, and
/// [`PartsError::TooManyParts`] if `data` does not fit in 10,000 parts
/// ([`UploadRule::part_size`]).
///
/// ```
/// use md5x::etag::upload;
///
/// assert_eq!(upload(b"hello", 8 << 20)?.to_string(), "5d41402abc4b2a76b9719d911017c592");
/// assert_eq!(upload(b"hello", 3)?.to_string(), "554a2f6105cc700b8cc987b5ddfb8102-2");
/// // Exactly one part is uploaded in parts: the multipart form, `-1`.
/// assert_eq!(upload(b"hello", 5)?.parts(), Some(1));
/// # Ok::<(), md5x::etag::PartsError>(())
/// ```
pub fn upload(data: &[u8], part_size: u64) -> Result<Etag, PartsError> {
    UploadRule::new(part_size)?.upload(data)
}

/// The ETag S3 shows for the data of `reader` uploaded by the AWS CLI's
/// rule with parts of `part_size` bytes and the same threshold (see
/// [`UploadHasher`]), read in order to its end.
///
/// # Errors
///
/// [`io::ErrorKind::InvalidInput`] with the [`PartsError`] inside if
/// `part_size` is 0 or the data makes more than [`MAX_PARTS`] parts; any
/// error of the reads but [`io::ErrorKind::Interrupted`], which is retried.
///
/// ```
/// let etag = md5x::etag::upload_reader(&b"hello"[..], 3)?;
/// assert_eq!(etag.to_string(), "554a2f6105cc700b8cc987b5ddfb8102-2");
/// # Ok::<(), std::io::Error>(())
/// ```
#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub fn upload_reader(reader: impl io::Read, part_size: u64) -> io::Result<Etag> {
    UploadRule::new(part_size)
        .map_err(invalid_input)?
        .upload_reader(reader)
}

/// The ETag S3 shows for `file` uploaded by the AWS CLI's rule with
/// `multipart_chunksize` and `multipart_threshold` both `part_size`
/// ([`UploadRule::upload_file`] on one thread per core): a regular file of
/// `part_size` bytes or more by [`multipart_file`](super::multipart_file)
/// (its parts read side by side on every core, in the part size doubled
/// until there are at most [`MAX_PARTS`]), anything else (a shorter file,
/// a pipe, a device, a file whose size the kernel gives as 0, as under
/// Linux's `/proc`, or wrongly, as under `/sys`) read in order through an
/// [`UploadHasher`].
///
/// # Errors
///
/// As [`UploadRule::upload_file`]; [`io::ErrorKind::InvalidInput`] if
/// `part_size` is 0. A directory fails with the error its first read
/// gives (`EISDIR` on Unix).
///
/// ```
/// # fn main() -> std::io::Result<()> {
/// let path = std::env::temp_dir().join(format!("upload-doc-{}", std::process::id()));
/// std::fs::write(&path, b"hello")?;
/// let file = std::fs::File::open(&path)?;
/// assert_eq!(md5x::etag::upload_file(&file, 3)?.to_string(), "554a2f6105cc700b8cc987b5ddfb8102-2");
/// let file = std::fs::File::open(&path)?;
/// assert_eq!(md5x::etag::upload_file(&file, 8 << 20)?.to_string(), "5d41402abc4b2a76b9719d911017c592");
/// # std::fs::remove_file(&path)?;
/// # Ok(())
/// # }
/// ```
#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub fn upload_file(file: &File, part_size: u64) -> io::Result<Etag> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    UploadRule::new(part_size)
        .map_err(invalid_input)?
        .upload_file(file, threads)
}

/// Whether the ETag [`upload_file`] gives a file with metadata `meta` is
/// its plain MD5 ([`UploadRule::uploaded_whole`] with a threshold of
/// `part_size`): a regular file whose length is from 1 to below
/// `part_size`.
///
/// ```
/// # fn main() -> std::io::Result<()> {
/// let path = std::env::temp_dir().join(format!("whole-doc-{}", std::process::id()));
/// std::fs::write(&path, b"hello")?;
/// let meta = std::fs::metadata(&path)?;
/// assert!(md5x::etag::uploaded_whole(&meta, 8 << 20));
/// assert!(!md5x::etag::uploaded_whole(&meta, 5));
/// # std::fs::remove_file(&path)?;
/// # Ok(())
/// # }
/// ```
#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub fn uploaded_whole(meta: &std::fs::Metadata, part_size: u64) -> bool {
    meta.is_file() && (1..part_size).contains(&meta.len())
}

#[cfg(feature = "std")]
fn invalid_input(e: PartsError) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, e)
}

#[cfg(test)]
mod tests {
    use super::super::MAX_PARTS;
    use super::*;

    /// The rule, against its definition: MD5 below a part, `multipart`
    /// from one part up, in pieces of every size.
    #[test]
    fn upload_rule_in_pieces() {
        let data: [u8; 1000] = core::array::from_fn(|i| (i * 7 + 3) as u8);
        for part in [1u64, 63, 64, 65, 100, 999, 1000, 1001, 5000] {
            for len in [0usize, 1, 63, 64, 99, 100, 101, 999, 1000] {
                let d = &data[..len];
                let want = if (len as u64) < part {
                    Etag::from_md5(Md5::digest(d).into())
                } else {
                    super::super::multipart(d, part as usize).unwrap()
                };
                assert_eq!(upload(d, part).unwrap(), want, "{part} {len}");
                for piece in [1, 7, 64, 1000] {
                    let mut h = UploadHasher::new(part).unwrap();
                    for c in d.chunks(piece) {
                        h.update(c).unwrap();
                    }
                    assert_eq!(h.finish().unwrap(), want, "{part} {len} {piece}");
                }
            }
        }
        assert_eq!(upload(b"x", 0), Err(PartsError::ZeroPartSize));
        assert!(UploadHasher::new(0).is_err());
    }

    /// Past 10,000 parts a buffer's parts are doubled, as the CLI doubles
    /// a file's; a stream's cannot be (its length is not known when it is
    /// cut), and it is refused past them.
    #[test]
    fn doubled_for_a_buffer_refused_for_a_stream() {
        let data = [0u8; MAX_PARTS as usize + 1];
        let two = super::super::multipart(&data, 2).unwrap();
        assert_eq!(two.parts(), Some(5_001));
        assert_eq!(upload(&data, 1), Ok(two));
        let ten_thousand = upload(&data[..MAX_PARTS as usize], 1).unwrap();
        assert_eq!(ten_thousand.parts(), Some(MAX_PARTS));
        let mut h = UploadHasher::new(1).unwrap();
        assert!(matches!(
            h.update(&data),
            Err(PartsError::TooManyParts { .. })
        ));
        assert!(h.finish().is_err());
        // Under the threshold, it is uploaded whole whatever its parts.
        let rule = UploadRule::new(1).unwrap().with_threshold(20_000);
        let mut h = rule.hasher();
        h.update(&data).unwrap();
        assert_eq!(h.finish(), Ok(Etag::from_md5(Md5::digest(data).into())));
        let mut h = rule.hasher();
        h.update(&data).unwrap();
        assert!(h.update(&[0; 20_000]).is_err());
    }

    /// A threshold apart from the chunk size, below and above it, against
    /// its definition, whole and in pieces of every size.
    #[test]
    fn threshold_apart_from_the_chunk_size() {
        let data: [u8; 1000] = core::array::from_fn(|i| (i * 11 + 5) as u8);
        for (chunk, threshold) in [(100u64, 50u64), (100, 300), (64, 0), (7, 1000), (1000, 1)] {
            let rule = UploadRule::new(chunk).unwrap().with_threshold(threshold);
            for len in [
                0usize, 1, 49, 50, 51, 99, 100, 101, 299, 300, 301, 999, 1000,
            ] {
                let d = &data[..len];
                let want = if (len as u64) < threshold {
                    Etag::from_md5(Md5::digest(d).into())
                } else {
                    super::super::multipart(d, chunk as usize).unwrap()
                };
                assert_eq!(rule.upload(d), Ok(want), "{chunk} {threshold} {len}");
                for piece in [1, 7, 64, 1000] {
                    let mut h = rule.hasher();
                    for c in d.chunks(piece) {
                        h.update(c).unwrap();
                    }
                    assert_eq!(h.finish(), Ok(want), "{chunk} {threshold} {len} {piece}");
                }
            }
        }
    }
}
