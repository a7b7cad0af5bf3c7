//! The AWS CLI's upload rule: the ETag S3 shows for data uploaded whole
//! when it is shorter than one part, and in parts otherwise.

#[cfg(feature = "std")]
use super::read::for_each_read;
use super::Etag;
use super::{EtagHasher, PartsError};
use crate::{Digest, Md5};
#[cfg(feature = "std")]
use std::{fs::File, io};

/// The ETag S3 shows for data uploaded by the AWS CLI's rule (also
/// boto3's): data shorter than `part_size` is uploaded whole (a single
/// `PutObject`) and its ETag is its plain MD5; data of `part_size` bytes or
/// more is uploaded in parts of `part_size` bytes and gets the multipart
/// ETag, even with one part. The AWS CLI's default part size (and
/// threshold) is 8 MiB; its settings write it `8MB` and mean 8 MiB.
///
/// `UploadHasher` takes the data piece by piece, for a stream whose length
/// is known only at its end (a pipe, standard input, a file the kernel
/// sizes as 0): the first part is hashed once, and is the whole data's MD5
/// if the stream ends within it. [`upload`] is the form for a buffer and
/// [`upload_file`] (with `std`) the form for a file; with `std` it is also
/// an [`std::io::Write`], and [`upload_reader`] reads a reader through it.
///
/// ```
/// use md5::etag::{Etag, UploadHasher};
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
/// # Ok::<(), md5::etag::PartsError>(())
/// ```
#[derive(Clone, Debug)]
pub struct UploadHasher {
    parts: EtagHasher,
}

impl UploadHasher {
    /// A hasher for the AWS CLI's rule with parts of `part_size` bytes,
    /// refusing more than [`MAX_PARTS`](super::MAX_PARTS) parts (S3's limit).
    ///
    /// # Errors
    ///
    /// [`PartsError::ZeroPartSize`] if `part_size` is 0.
    pub fn new(part_size: u64) -> Result<Self, PartsError> {
        Ok(Self {
            parts: EtagHasher::new(part_size)?,
        })
    }

    /// Hashes `data`, the next bytes of the object.
    ///
    /// # Errors
    ///
    /// [`PartsError::TooManyParts`] once the data has passed
    /// [`MAX_PARTS`](super::MAX_PARTS) parts; then, and for every later call and
    /// [`finish`](Self::finish), the hasher refuses.
    pub fn update(&mut self, data: &[u8]) -> Result<(), PartsError> {
        self.parts.update(data)
    }

    /// The ETag of everything hashed: its MD5 if it is shorter than one
    /// part, else its multipart ETag.
    ///
    /// # Errors
    ///
    /// [`PartsError::TooManyParts`] if an [`update`](Self::update) passed
    /// the part limit.
    pub fn finish(self) -> Result<Etag, PartsError> {
        self.parts.finish_upload()
    }
}

/// Every write is hashed whole; one past the part limit fails with
/// [`std::io::ErrorKind::InvalidInput`] and the [`PartsError`] inside.
#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
impl std::io::Write for UploadHasher {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.parts.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The ETag S3 shows for `data` uploaded by the AWS CLI's rule with parts
/// of `part_size` bytes (see [`UploadHasher`]): its MD5 if it is shorter
/// than one part, else [`multipart`](super::multipart), the parts hashed
/// side by side.
///
/// # Errors
///
/// [`PartsError::ZeroPartSize`] if `part_size` is 0, and
/// [`PartsError::TooManyParts`] if `data` makes more than [`MAX_PARTS`](super::MAX_PARTS)
/// parts.
///
/// ```
/// use md5::etag::upload;
///
/// assert_eq!(upload(b"hello", 8 << 20)?.to_string(), "5d41402abc4b2a76b9719d911017c592");
/// assert_eq!(upload(b"hello", 3)?.to_string(), "554a2f6105cc700b8cc987b5ddfb8102-2");
/// // Exactly one part is uploaded in parts: the multipart form, `-1`.
/// assert_eq!(upload(b"hello", 5)?.parts(), Some(1));
/// # Ok::<(), md5::etag::PartsError>(())
/// ```
pub fn upload(data: &[u8], part_size: u64) -> Result<Etag, PartsError> {
    if part_size == 0 {
        return Err(PartsError::ZeroPartSize);
    }
    match usize::try_from(part_size) {
        Ok(part) if data.len() >= part => super::multipart(data, part),
        _ => Ok(Etag::from_md5(Md5::digest(data).into())),
    }
}

/// The ETag S3 shows for the data of `reader` uploaded by the AWS CLI's
/// rule with parts of `part_size` bytes (see [`UploadHasher`]), read in
/// order to its end.
///
/// # Errors
///
/// [`io::ErrorKind::InvalidInput`] with the [`PartsError`] inside if
/// `part_size` is 0 or the data makes more than [`MAX_PARTS`](super::MAX_PARTS) parts; any
/// error of the reads but [`io::ErrorKind::Interrupted`], which is retried.
///
/// ```
/// let etag = md5::etag::upload_reader(&b"hello"[..], 3)?;
/// assert_eq!(etag.to_string(), "554a2f6105cc700b8cc987b5ddfb8102-2");
/// # Ok::<(), std::io::Error>(())
/// ```
#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub fn upload_reader(reader: impl io::Read, part_size: u64) -> io::Result<Etag> {
    let mut hasher = UploadHasher::new(part_size).map_err(invalid_input)?;
    for_each_read(reader, |data| hasher.update(data).map_err(invalid_input))?;
    hasher.finish().map_err(invalid_input)
}

/// The ETag S3 shows for `file` uploaded by the AWS CLI's rule with parts
/// of `part_size` bytes: a regular file of `part_size` bytes or more by
/// [`multipart_file`](super::multipart_file) (its parts read side by side
/// on every core), anything else (a shorter file, a pipe, a device, a
/// file whose size the kernel gives as 0, as under Linux's `/proc`, or
/// wrongly, as under `/sys`) read in order through an [`UploadHasher`].
///
/// # Errors
///
/// As [`upload_reader`], and as [`multipart_file`](super::multipart_file)
/// for a file of a part or more. A directory fails with the error its
/// first read gives (`EISDIR` on Unix).
///
/// ```
/// # fn main() -> std::io::Result<()> {
/// let path = std::env::temp_dir().join(format!("upload-doc-{}", std::process::id()));
/// std::fs::write(&path, b"hello")?;
/// let file = std::fs::File::open(&path)?;
/// assert_eq!(md5::etag::upload_file(&file, 3)?.to_string(), "554a2f6105cc700b8cc987b5ddfb8102-2");
/// let file = std::fs::File::open(&path)?;
/// assert_eq!(md5::etag::upload_file(&file, 8 << 20)?.to_string(), "5d41402abc4b2a76b9719d911017c592");
/// # std::fs::remove_file(&path)?;
/// # Ok(())
/// # }
/// ```
#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub fn upload_file(file: &File, part_size: u64) -> io::Result<Etag> {
    let meta = file.metadata()?;
    if meta.is_file() && meta.len() >= part_size && part_size > 0 {
        return super::file::upload_parts(file, part_size);
    }
    upload_reader(file, part_size)
}

/// Whether the ETag [`upload_file`] gives a file with metadata `meta` is
/// its plain MD5, as far as the metadata tells before the file is read: a
/// regular file whose length is from 1 to below `part_size`. A caller that
/// hashes many files can then compute their MD5s in batches and take
/// [`Etag::from_md5`] of each. A length of 0 says nothing (the kernel gives
/// it to files it does not size, as under Linux's `/proc`): such a file is
/// read by [`upload_file`], and so is a file that grew past a part since
/// its metadata was read.
///
/// ```
/// # fn main() -> std::io::Result<()> {
/// let path = std::env::temp_dir().join(format!("whole-doc-{}", std::process::id()));
/// std::fs::write(&path, b"hello")?;
/// let meta = std::fs::metadata(&path)?;
/// assert!(md5::etag::uploaded_whole(&meta, 8 << 20));
/// assert!(!md5::etag::uploaded_whole(&meta, 5));
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

    /// More than S3's 10,000 parts: refused, as `multipart` refuses.
    #[test]
    fn upload_refuses_too_many_parts() {
        let data = [0u8; MAX_PARTS as usize + 1];
        assert!(matches!(
            upload(&data, 1),
            Err(PartsError::TooManyParts { .. })
        ));
        let mut h = UploadHasher::new(1).unwrap();
        assert!(h.update(&data).is_err());
        assert!(h.finish().is_err());
        assert!(upload(&data[..MAX_PARTS as usize], 1).is_ok());
    }
}
