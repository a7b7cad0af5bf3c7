//! What the engine's parts and its callers share: what to hash, what
//! comes of it, and how a run hashes.

use crate::sys::FileId;
use md5x::files::Control;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize};

/// Standard input was closed when the program started (the runtime put
/// `/dev/null` in its place); reading it fails as it would have.
pub static STDIN_CLOSED: AtomicBool = AtomicBool::new(false);
/// Standard input was read, as a file or as a checksum list.
pub static READ_STDIN: AtomicBool = AtomicBool::new(false);

/// What to hash.
#[derive(Debug)]
pub enum Input {
    Stdin,
    Path(PathBuf),
}

/// Why an input could not be hashed. `at_open` tells "could not open"
/// (where `--ignore-missing` applies) from "could not read".
#[derive(Debug)]
pub struct HashError {
    pub err: io::Error,
    pub at_open: bool,
}

pub type Outcome = Result<[u8; 16], HashError>;

/// How a run hashes.
pub struct Config<'a> {
    /// The most threads that hash at once; 1 hashes on the calling thread.
    pub jobs: usize,
    /// Where sysfs is mounted, to tell spinning disks (read in order, one
    /// file at a time) from others; `None` reads every disk side by side.
    pub sysfs: Option<&'a Path>,
    /// The file standard output writes to, if it is a regular file.
    pub output: Option<FileId>,
    /// Bytes read so far, for the progress line.
    pub bytes: &'a AtomicU64,
    /// Files read in a spinning disk's turn.
    pub read_in_turn: AtomicUsize,
}

impl<'a> Config<'a> {
    /// What `md5x::files` reads with: every byte counted in [`Config::bytes`],
    /// and no stop (a signal ends md5sum, as it ends GNU's).
    pub fn control(&self) -> Control<'a> {
        Control::new().count_into(self.bytes)
    }

    pub fn new(
        jobs: usize,
        sysfs: Option<&'a Path>,
        output: Option<FileId>,
        bytes: &'a AtomicU64,
    ) -> Self {
        Config {
            jobs,
            sysfs,
            output,
            bytes,
            read_in_turn: AtomicUsize::new(0),
        }
    }
}

/// What [`run`] hands the consumer.
pub enum Step<T> {
    /// The next item in input order, with the outcome of its input.
    Item(T, Option<Outcome>),
    /// The engine is about to wait (for a result, or to read standard
    /// input or another input that may block): write out what is known.
    Idle,
}

/// Hashing panicked on a worker; the items from its input on were not
/// consumed.
#[derive(Debug)]
pub struct Failed;
