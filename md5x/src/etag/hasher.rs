//! [`EtagHasher`]: the streaming form, for data seen once and in order.

use super::{Composer, Etag, PartsError, MAX_PARTS};
use crate::{Digest, Md5};

/// The S3 multipart ETag of data given piece by piece, in order: an upload
/// body as it is sent, a pipe as it is read.
///
/// Each part is hashed as its bytes arrive, in the single-stream [`Md5`]
/// (nothing is buffered, so its parts cannot share lanes); where the whole
/// data can be read at any offset, [`multipart`](super::multipart) and
/// [`multipart_file`](super::multipart_file) hash parts side by side,
/// several times faster. With `std` it is also an [`std::io::Write`], so
/// [`std::io::copy`] can feed it.
///
/// ```
/// use md5x::etag::EtagHasher;
///
/// let mut hasher = EtagHasher::new(16)?;
/// hasher.update(b"The quick brown fox ")?;
/// hasher.update(b"jumps over the lazy dog")?;
/// let etag = hasher.finish()?;
/// assert_eq!(etag, md5x::etag::multipart(b"The quick brown fox jumps over the lazy dog", 16)?);
/// # Ok::<(), md5x::etag::PartsError>(())
/// ```
///
/// With `std`, from a reader:
///
/// ```
/// # #[cfg(feature = "std")] {
/// use std::io::Read;
///
/// let mut hasher = md5x::etag::EtagHasher::new(5 << 20).unwrap();
/// std::io::copy(&mut std::io::repeat(0).take(12 << 20), &mut hasher).unwrap();
/// assert_eq!(hasher.finish().unwrap().parts(), Some(3));
/// # }
/// ```
#[derive(Clone)]
pub struct EtagHasher {
    part_size: u64,
    max_parts: u64,
    /// The part being hashed, and its bytes so far. A part that reaches
    /// `part_size` is closed when more data comes (or by `finish`), so an
    /// exact multiple of the part size makes no empty last part.
    part: Md5,
    part_len: u64,
    /// The parts closed so far.
    composer: Composer,
    /// The data passed the part limit: no ETag can come of it.
    over_limit: bool,
}

impl EtagHasher {
    /// A hasher for parts of `part_size` bytes, refusing more than
    /// [`MAX_PARTS`] parts (S3's limit).
    ///
    /// # Errors
    ///
    /// [`PartsError::ZeroPartSize`] if `part_size` is 0.
    pub fn new(part_size: u64) -> Result<Self, PartsError> {
        Self::with_max_parts(part_size, MAX_PARTS)
    }

    /// [`EtagHasher::new`] without S3's limit on the part count, for stores
    /// that allow more than [`MAX_PARTS`] parts.
    ///
    /// # Errors
    ///
    /// [`PartsError::ZeroPartSize`] if `part_size` is 0.
    pub fn unlimited(part_size: u64) -> Result<Self, PartsError> {
        Self::with_max_parts(part_size, u64::MAX)
    }

    pub(super) fn with_max_parts(part_size: u64, max_parts: u64) -> Result<Self, PartsError> {
        if part_size == 0 {
            return Err(PartsError::ZeroPartSize);
        }
        Ok(Self {
            part_size,
            max_parts,
            part: Md5::new(),
            part_len: 0,
            composer: Composer::new(),
            over_limit: false,
        })
    }

    /// Hashes `data`, the next bytes of the object.
    ///
    /// # Errors
    ///
    /// [`PartsError::TooManyParts`] once the data has passed
    /// [`MAX_PARTS`] parts (for a hasher from [`EtagHasher::new`]): then,
    /// and for every later call and [`finish`](Self::finish), the hasher
    /// refuses, since no ETag of that data can exist.
    pub fn update(&mut self, mut data: &[u8]) -> Result<(), PartsError> {
        while !data.is_empty() {
            if self.over_limit {
                return Err(self.too_many_parts());
            }
            if self.part_len == self.part_size {
                if self.composer.parts + 1 >= self.max_parts {
                    self.over_limit = true;
                    continue;
                }
                self.composer.push(&self.part.finalize_reset().into());
                self.part_len = 0;
            }
            let room = self.part_size - self.part_len;
            let take = data.len().min(usize::try_from(room).unwrap_or(usize::MAX));
            self.part.update(&data[..take]);
            self.part_len += take as u64;
            data = &data[take..];
        }
        Ok(())
    }

    /// The ETag of everything hashed, with at least one part (an empty
    /// one if no bytes came).
    ///
    /// # Errors
    ///
    /// [`PartsError::TooManyParts`] if an [`update`](Self::update) passed
    /// the part limit.
    pub fn finish(self) -> Result<Etag, PartsError> {
        if self.over_limit {
            return Err(self.too_many_parts());
        }
        let mut composer = self.composer;
        composer.push(&self.part.finalize().into());
        Ok(composer.finish())
    }

    /// The MD5 of the data hashed, while it is all in the first part: the
    /// ETag of data uploaded whole.
    pub(super) fn first_part_md5(self) -> [u8; 16] {
        debug_assert!(self.composer.parts == 0 && !self.over_limit);
        self.part.finalize().into()
    }

    fn too_many_parts(&self) -> PartsError {
        PartsError::TooManyParts {
            part_size: self.part_size,
            len: None,
        }
    }
}

impl core::fmt::Debug for EtagHasher {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("EtagHasher")
            .field("part_size", &self.part_size)
            .field("parts", &(self.composer.parts + 1))
            .finish_non_exhaustive()
    }
}

/// Every write is hashed whole; one past the part limit fails with
/// [`std::io::ErrorKind::InvalidInput`] and the [`PartsError`] inside.
#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
impl std::io::Write for EtagHasher {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.update(buf)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
