//! Hashing many inputs: in parallel across worker threads, results handed
//! back in input order, with a bounded window of inputs in flight.
//!
//! - [`pool`]: the in-order window of results and the worker threads;
//! - [`claim`]: one thread's hashing of a claim (a run of files): small
//!   files batched through the multi-buffer kernel;
//! - [`large`]: large files streamed side by side in lanes;
//! - [`stream`]: a long input hashed while a reader thread reads ahead;
//! - [`read`]: filling buffers, reading a file whole;
//! - [`page_cache`]: what the page cache holds of a file;
//! - [`io_policy`]: what is read when: readahead for what is not cached,
//!   spinning disks read in order, one file at a time;
//! - [`fds`]: descriptor accounting.
//!
//! How many threads hash follows `-j` (at most that many); how many reads
//! are in flight follows the device: a claim's files that are not in the
//! page cache are all asked of the kernel before any is waited for, a
//! stream is read on a thread of its own, and a spinning disk is read by
//! one claim at a time in argument order, never while its files are
//! hashed.
//!
//! Only regular files are read out of order or side by side. Anything else
//! (standard input, pipes, FIFOs, character devices, `/dev/stdin`) is read
//! on the calling thread, alone and in argument order: two names for one
//! pipe must see its bytes in that order, as with GNU md5sum. So is the
//! file standard output writes to, after every line before it is written,
//! so that it holds what it would hold for GNU md5sum. Nothing after
//! standard input is taken from the list of inputs before standard input
//! is read, since that list may come from standard input too.
//!
//! The engine never hangs and never fails for want of resources that GNU
//! md5sum does not need: a thread that cannot be started means fewer
//! workers (none at all: the calling thread hashes) or no reader thread, a
//! panicking worker ends the run after the results before it, and "too
//! many open files" means waiting until another of this process's files
//! is closed, down to one open file at a time.

mod claim;
mod fds;
pub mod io_policy;
mod large;
mod page_cache;
mod pool;
mod read;
mod stream;

pub use pool::run;

use crate::sys::FileId;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize};
use std::sync::{Mutex, MutexGuard};

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

/// A worker panicked; the items from its input on were not consumed.
#[derive(Debug)]
pub struct Failed;

/// What a worker makes of one path.
enum Res {
    Done(Outcome),
    /// Not a regular file, or the output file: the calling thread reads
    /// it, in order.
    Alone(PathBuf),
}

/// Locks a mutex, whether or not a thread panicked while holding it (the
/// data it guards stays consistent across every panic point).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests;
