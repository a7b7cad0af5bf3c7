//! What a caller of [`hash_in_order`](super::hash_in_order) decides about
//! reading, by medium: which inputs are read alone in order, which wait
//! for a turn (a disk that must be read in order), how a file is opened,
//! what the page cache already holds, and what the OS is asked to read
//! ahead. The files layer keeps the rest: claims, threads, descriptors,
//! the order of results.

use std::fs::{File, Metadata};
use std::io;
use std::path::Path;

/// Where an input is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// In a claim, on any thread, side by side with the claim's other
    /// files: a regular file.
    Claim,
    /// In a claim, but where the file is not in the page cache, only in
    /// the claim's turn: claims take their turns one at a time, in input
    /// order, so that such files are read in input order by one reader at
    /// a time (a spinning disk's files, which side-by-side reads would
    /// send seeking). What was read in a turn is hashed after it.
    InTurn,
    /// On the calling thread, alone, when its place in the order comes
    /// (a FIFO or a device, whose bytes two names must see in order; a
    /// file that the caller writes to as it goes).
    Alone,
}

/// What a first read that must not wait for the disk found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Probe {
    /// This many bytes were in the page cache and were read (0: the file
    /// ends where the read began).
    Read(usize),
    /// The bytes are not in the page cache; nothing was read.
    NotCached,
    /// The platform cannot tell; nothing was read.
    Unknown,
}

/// The caller's I/O policy for [`hash_in_order`](super::hash_in_order).
/// Every method has a default: [`PlainReads`] keeps them all, reading
/// every regular file in claims and anything else alone, with no probe of
/// the page cache and no hint to the OS.
///
/// A method may panic (the run then ends as for any panic in hashing: see
/// [`hash_in_order`](super::hash_in_order)), but should not.
///
/// ```
/// use md5x::files::{hash_in_order, Control, Event, Job, ReadPolicy, Route};
/// use std::fs::Metadata;
/// use std::path::Path;
///
/// /// Reads every file alone, in order, on the calling thread.
/// struct OneAtATime;
///
/// impl ReadPolicy for OneAtATime {
///     fn route(&self, _path: &Path, _meta: &Metadata) -> Route {
///         Route::Alone
///     }
/// }
///
/// # fn main() -> std::io::Result<()> {
/// let path = std::env::temp_dir().join(format!("read-policy-doc-{}", std::process::id()));
/// std::fs::write(&path, b"abc")?;
/// let mut hex = Vec::new();
/// let jobs = [Job::File(path.clone(), ())];
/// hash_in_order(jobs, 2, Control::new(), &OneAtATime, |event| {
///     if let Event::File((), Ok(digest)) = event {
///         hex.push(digest);
///     }
/// })
/// .unwrap();
/// assert_eq!(hex, [*b"\x90\x01\x50\x98\x3c\xd2\x4f\xb0\xd6\x96\x3f\x7d\x28\xe1\x7f\x72"]);
/// # std::fs::remove_file(&path)?;
/// # Ok(())
/// # }
/// ```
pub trait ReadPolicy: Sync {
    /// Where the input at `path`, whose metadata is `meta`, is read: by
    /// default regular files in claims, anything else alone.
    fn route(&self, path: &Path, meta: &Metadata) -> Route {
        let _ = path;
        if meta.is_file() {
            Route::Claim
        } else {
            Route::Alone
        }
    }

    /// Opens `path` for reading (the files layer counts the descriptor and
    /// waits where none is left: [`open_waiting`](super::open_waiting)):
    /// each file of a claim, and inputs routed [`Route::Alone`] where
    /// [`open_alone_too`](Self::open_alone_too) says so. By default
    /// [`File::open`].
    ///
    /// # Errors
    ///
    /// The open's error; it is the file's error, at its open
    /// ([`FileError::at_open`](super::FileError::at_open)).
    fn open(&self, path: &Path) -> io::Result<File> {
        File::open(path)
    }

    /// Whether inputs routed [`Route::Alone`] are opened by
    /// [`open`](Self::open), as the files in claims are (`true`), or by
    /// the files layer (`false`, the default), which opens one whose reads
    /// can wait (a FIFO, a terminal) without blocking where it can, so
    /// that a FIFO's open does not wait for a writer and the stop flag is
    /// looked at while its reads wait.
    fn open_alone_too(&self) -> bool {
        false
    }

    /// Reads into `buf`, from `file`'s position, only what the page cache
    /// holds, without waiting for the disk (Linux's
    /// `preadv2(RWF_NOWAIT)`). A file found [`Probe::NotCached`] is asked
    /// of the OS ([`read_ahead`](Self::read_ahead)) and read after the
    /// claim's other files, so that many reads are in flight at once. By
    /// default [`Probe::Unknown`].
    fn probe(&self, file: &File, buf: &mut [u8]) -> Probe {
        let _ = (file, buf);
        Probe::Unknown
    }

    /// Whether a file of `len` bytes routed [`Route::InTurn`] is in the
    /// page cache but for a few pages, so that it is read without waiting
    /// for the turn. By default `false`.
    fn mostly_cached(&self, file: &File, len: u64) -> bool {
        let _ = (file, len);
        false
    }

    /// Asks the OS to read ahead a file of `len` bytes that is read soon
    /// ([`will_need`](super::will_need) of as much of it as the medium
    /// calls for): one found [`Probe::NotCached`] (`in_turn` false), or the
    /// next file of a turn while one is read (`in_turn` true). By default
    /// nothing.
    fn read_ahead(&self, file: &File, len: u64, in_turn: bool) {
        let _ = (file, len, in_turn);
    }

    /// The most bytes of files read whole in their turn that may wait in
    /// memory, across the run's threads, to be hashed after the turn; a
    /// file that does not fit is read as it is hashed, in its turn. By
    /// default 64 MiB.
    fn in_turn_memory(&self) -> u64 {
        64 << 20
    }

    /// Called as a file is read in its claim's turn; by default nothing.
    /// A place to count them.
    fn reading_in_turn(&self, path: &Path) {
        let _ = path;
    }
}

/// Every default of [`ReadPolicy`]: regular files in claims, anything
/// else alone, no probe of the page cache, no hint to the OS.
#[derive(Clone, Copy, Debug, Default)]
pub struct PlainReads;

impl ReadPolicy for PlainReads {}
