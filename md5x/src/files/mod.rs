//! Hashing files: many at once, on several threads, in the lanes of
//! [`md5x::multi`](crate::multi), in bounded memory (with `std`).
//!
//! * [`hash_files`]: the MD5 of each file of a list, in order;
//! * [`etag_files`]: the S3 ETag of each, by the AWS CLI's upload rule
//!   ([`etag::upload_file`]);
//! * [`hash_in_order`]: the MD5 of each file of a stream of jobs, handed
//!   back in input order as each completes, read as the caller's
//!   [`ReadPolicy`] says: what a program like `md5sum` prints as it goes,
//!   without holding every result;
//! * [`Control`]: the caller's view of a run (bytes read so far) and its
//!   way to stop one;
//! * [`open_waiting`] and [`with_descriptor`]: opens that wait for a
//!   descriptor where none is left, counted with the files layer's own;
//! * the parts they are built of, for a program with its own order of
//!   reads (`md5sum`'s): [`hash_long`] streams long inputs side by side in
//!   lanes, [`hash_stream`] one input with its reads ahead on a thread of
//!   their own, [`fill`] and [`fill_until`] read into a buffer, and
//!   [`will_need`] and [`drop_cached`] tell the OS what is read next and
//!   what to forget.
//!
//! How [`hash_files`] reads: the threads take the paths in claims of up to
//! 48 consecutive ones. A file of up to [`SMALL_MAX`] bytes is read whole
//! (its first read sized by its metadata), and a claim's small files are
//! hashed together, side by side in SIMD lanes; longer files are streamed
//! one per lane, 16 KiB a round, a file that ends freeing its lane for the
//! next; a long file alone in its claim is hashed while a thread of its
//! own reads it ahead; anything else (a FIFO, a device) is read in order.
//! A thread holds at most about 11 MiB (48 slots and 48 heads of 64 KiB,
//! 4 MiB of buffers read ahead), whatever the files' sizes and number.
//!
//! The threads together hold at most half as many files open as the
//! process may have descriptors (its soft `RLIMIT_NOFILE` on Linux and
//! Apple's systems), and at most 256: claims are smaller where there are
//! more threads, and no more threads start than that. Where an open still
//! finds no descriptor left (the caller holds the rest), the thread hashes
//! the long files it holds to close them, or waits until another thread
//! closes one; only a file opened while this process holds none of the
//! files layer's open fails with "too many open files", as it would for a
//! reader that holds one file at a time.
//!
//! ```
//! # fn main() -> std::io::Result<()> {
//! use md5x::files::{hash_files, Control};
//! use md5x::{Digest, Md5};
//! use std::sync::atomic::AtomicU64;
//!
//! let dir = std::env::temp_dir().join(format!("files-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let mut paths = Vec::new();
//! for (i, len) in [0, 5, 100_000, 3 << 20].into_iter().enumerate() {
//!     let path = dir.join(format!("f{i}"));
//!     std::fs::write(&path, vec![i as u8; len])?;
//!     paths.push(path);
//! }
//! paths.push(dir.join("missing"));
//!
//! let bytes = AtomicU64::new(0);
//! let results = hash_files(&paths, 2, Control::new().count_into(&bytes));
//! for (i, len) in [0, 5, 100_000, 3 << 20].into_iter().enumerate() {
//!     let want: [u8; 16] = Md5::digest(vec![i as u8; len]).into();
//!     assert_eq!(results[i].as_ref().unwrap(), &want);
//! }
//! let err = results[4].as_ref().unwrap_err();
//! assert_eq!(err.path(), dir.join("missing"));
//! assert_eq!(err.error().kind(), std::io::ErrorKind::NotFound);
//! assert_eq!(bytes.into_inner(), 5 + 100_000 + (3 << 20));
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok(())
//! # }
//! ```

mod claim;
mod fds;
mod fill;
mod in_order;
mod long_inputs;
mod open;
mod policy;
mod pool;
mod read_ahead;
mod turn;

pub use crate::cache_hints::{drop_cached, will_need};
pub use crate::control::{Control, Stopped};
pub use fds::{open_waiting, with_descriptor, Opened};
pub use fill::{fill, fill_until};
pub use in_order::{hash_in_order, Event, Job, Panicked};
pub use long_inputs::{hash_long, LongInput};
pub use policy::{PlainReads, Probe, ReadPolicy, Route};
pub use read_ahead::hash_stream;

use crate::etag::{self, Etag, UploadRule};
use core::fmt;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::vec::Vec;

/// Files of up to this many bytes are read whole and hashed in batches;
/// longer ones are streamed.
pub const SMALL_MAX: usize = 64 << 10;

/// Why a file could not be hashed: the OS's error (or [`Stopped`]), and
/// the file's path.
#[derive(Debug)]
pub struct FileError {
    path: PathBuf,
    error: io::Error,
    at_open: bool,
}

impl FileError {
    fn new(path: &Path, error: io::Error) -> Self {
        Self {
            path: path.to_path_buf(),
            error,
            at_open: false,
        }
    }

    fn from_failure(path: &Path, failure: claim::Failure) -> Self {
        Self {
            path: path.to_path_buf(),
            error: failure.error,
            at_open: failure.at_open,
        }
    }

    /// The path as the caller gave it.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The error of the open, the read, or the ETag's rule
    /// ([`io::ErrorKind::InvalidInput`] with the
    /// [`PartsError`](crate::etag::PartsError) inside).
    pub fn error(&self) -> &io::Error {
        &self.error
    }

    /// The error, without the path.
    pub fn into_error(self) -> io::Error {
        self.error
    }

    /// Whether the file could not be opened (or its metadata read), rather
    /// than read: the error of a missing file, say, where a program may
    /// skip missing files (`md5sum --ignore-missing`). A stop before the
    /// file was opened counts as at the open. Errors of the ETag's rule
    /// are not at the open.
    pub fn at_open(&self) -> bool {
        self.at_open
    }

    /// Whether the run was stopped before this file was hashed.
    pub fn is_stopped(&self) -> bool {
        Stopped::is(&self.error)
    }
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.error)
    }
}

impl std::error::Error for FileError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

/// The MD5 digest of each file of `paths`, in order, or the error that
/// ended it, on up to `threads` threads (0 counts as 1, and more than the
/// files a run may hold open, at most 256, as that many; the calling
/// thread is one of them, and where a thread cannot start the others do
/// its share). See [the module](self) for how the files are read; every
/// byte read is counted in `control`, and once its flag is set, each file
/// not yet hashed fails with [`Stopped`].
///
/// A path that names a FIFO is read as its writer writes; on Linux it is
/// opened without waiting for a writer, and a read that waits for one, or
/// for a terminal or any other character device to have something to
/// read, looks at the flag every [`Control::WAIT_TICK`]. Two paths for one
/// FIFO or pipe each get what they read of it, in no set order.
pub fn hash_files<P: AsRef<Path> + Sync>(
    paths: &[P],
    threads: usize,
    control: Control<'_>,
) -> Vec<Result<[u8; 16], FileError>> {
    pool::run(paths, threads, control)
        .into_iter()
        .zip(paths)
        .map(|(r, p)| r.map_err(|e| FileError::from_failure(p.as_ref(), e)))
        .collect()
}

/// The S3 ETag of each file of `paths` uploaded by the AWS CLI's rule with
/// parts of `part_size` bytes ([`etag::upload_file`]), in order, or the
/// error that ended it: the plain MD5 of a file shorter than one part, the
/// multipart ETag of a longer one.
///
/// The files that their metadata shows to be shorter than a part
/// ([`etag::uploaded_whole`]) are hashed first, by [`hash_files`] on up to
/// `threads` threads; then the others in order, a regular file's parts
/// read side by side on up to `threads` threads
/// ([`etag::multipart_file`]), anything else (a FIFO, a file the kernel
/// sizes as 0, as under Linux's `/proc`, or wrongly, as under `/sys`)
/// read in order through an [`UploadHasher`](etag::UploadHasher). `control` counts and stops as for
/// [`hash_files`].
///
/// The part size is doubled for a file of more than
/// [`MAX_PARTS`](crate::etag::MAX_PARTS) parts, as the AWS CLI doubles it
/// ([`UploadRule`]; [`etag_files_with`] takes the CLI's two settings
/// apart). A `part_size` of 0, or a file too long for 10,000 parts, fails
/// that file with [`io::ErrorKind::InvalidInput`] and the
/// [`PartsError`](crate::etag::PartsError) inside.
///
/// ```
/// # fn main() -> std::io::Result<()> {
/// let dir = std::env::temp_dir().join(format!("etag-files-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let (small, big) = (dir.join("small"), dir.join("big"));
/// std::fs::write(&small, b"hello")?;
/// std::fs::write(&big, b"The quick brown fox jumps over the lazy dog")?;
/// let etags = md5x::files::etag_files(&[small, big], 16, 2, md5x::files::Control::new());
/// assert_eq!(etags[0].as_ref().unwrap().to_string(), "5d41402abc4b2a76b9719d911017c592");
/// assert_eq!(etags[1].as_ref().unwrap().to_string(), "07f49c9b2ef71fdd9908e9322307edc2-3");
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok(())
/// # }
/// ```
pub fn etag_files<P: AsRef<Path> + Sync>(
    paths: &[P],
    part_size: u64,
    threads: usize,
    control: Control<'_>,
) -> Vec<Result<Etag, FileError>> {
    match UploadRule::new(part_size) {
        Ok(rule) => etag_files_with(paths, rule, threads, control),
        Err(e) => paths
            .iter()
            .map(|p| {
                let e = io::Error::new(io::ErrorKind::InvalidInput, e);
                Err(FileError::new(p.as_ref(), e))
            })
            .collect(),
    }
}

/// [`etag_files`] by an [`UploadRule`]: the AWS CLI's `multipart_threshold`
/// and `multipart_chunksize` apart.
///
/// ```
/// use md5x::etag::UploadRule;
/// # fn main() -> std::io::Result<()> {
/// let path = std::env::temp_dir().join(format!("etag-files-with-doc-{}", std::process::id()));
/// std::fs::write(&path, b"hello")?;
/// // Parts of 3 bytes from a length of 6: uploaded whole.
/// let rule = UploadRule::new(3).unwrap().with_threshold(6);
/// let etags = md5x::files::etag_files_with(&[&path], rule, 2, md5x::files::Control::new());
/// assert_eq!(etags[0].as_ref().unwrap().to_string(), "5d41402abc4b2a76b9719d911017c592");
/// # std::fs::remove_file(&path)?;
/// # Ok(())
/// # }
/// ```
pub fn etag_files_with<P: AsRef<Path> + Sync>(
    paths: &[P],
    rule: UploadRule,
    threads: usize,
    control: Control<'_>,
) -> Vec<Result<Etag, FileError>> {
    let whole: Vec<bool> = paths
        .iter()
        .map(|p| std::fs::metadata(p).is_ok_and(|m| rule.uploaded_whole(&m)))
        .collect();
    let whole_paths: Vec<&Path> = paths
        .iter()
        .zip(&whole)
        .filter_map(|(p, &w)| w.then_some(p.as_ref()))
        .collect();
    let mut md5s = pool::run(&whole_paths, threads, control).into_iter();
    paths
        .iter()
        .zip(whole)
        .map(|(p, whole)| {
            let path = p.as_ref();
            if whole {
                match md5s.next() {
                    Some(md5) => md5
                        .map(Etag::from_md5)
                        .map_err(|e| FileError::from_failure(path, e)),
                    None => Err(FileError::new(path, io::Error::other("not hashed"))),
                }
            } else {
                upload_etag(path, rule, threads, &control).map_err(|e| FileError::new(path, e))
            }
        })
        .collect()
}

/// The ETag of one file by the AWS CLI's rule: a regular file of a part or
/// more by its parts side by side, anything else read in order.
fn upload_etag(
    path: &Path,
    rule: UploadRule,
    threads: usize,
    control: &Control<'_>,
) -> io::Result<Etag> {
    control.check()?;
    let meta = std::fs::metadata(path)?;
    let invalid = |e| io::Error::new(io::ErrorKind::InvalidInput, e);
    let mut hasher = rule.hasher();
    let part_size = if meta.is_file() {
        rule.part_size(meta.len()).map_err(invalid)?
    } else {
        None
    };
    if let Some(part_size) = part_size {
        let mut shape = etag::file::Shape::detect();
        shape.threads = threads.max(1);
        let file = open_waiting(|| File::open(path), || false, control)?;
        return etag::file::hash_file(
            file.file(),
            part_size,
            etag::MAX_PARTS,
            shape,
            control,
            etag::file::Rule::Upload(rule),
        );
    }
    let mut buf = std::vec![0u8; 256 << 10];
    let mut reader = open::open_stream(path, &meta, *control, || false)?;
    loop {
        let n = fill(&mut reader, &mut buf, control)?;
        hasher.update(&buf[..n]).map_err(invalid)?;
        if n < buf.len() {
            return hasher.finish().map_err(invalid);
        }
    }
}
