//! md5sum's choices for `md5x::files::hash_in_order`, by medium: which
//! inputs are read alone in argument order, which files wait for a
//! spinning disk's turn, how a file is opened, what the page cache holds,
//! and how far ahead the kernel is asked to read.

use super::media::on_spinning_disk;
use crate::engine::page_cache::{mostly_cached, read_cached};
use crate::sys::{self, Cached, FileId};
use md5x::files::{will_need, Probe, ReadPolicy, Route};
use std::fs::{File, Metadata};
use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The most bytes the kernel is asked to read ahead for one file that is
/// not in the page cache; the file's own sequential readahead takes over
/// from there. Asking for whole 1 MiB files made 100 of them cold take a
/// third longer here than asking for their first 256 KiB (the whole claim's
/// reads were submitted before the first file could be hashed).
pub const HINT_MAX: u64 = 256 << 10;

/// The most bytes of the next file on a spinning disk asked of the kernel
/// while one is read in its turn.
pub const HINT_MAX_IN_TURN: u64 = 8 << 20;

/// The most bytes of files on spinning disks held in memory between being
/// read in the disk's turn and being hashed, across all threads. A file
/// that does not fit is streamed in its turn instead, read as it is hashed.
pub const IN_TURN_MEMORY: u64 = 64 << 20;

/// Hashing a file of this name panics (test builds only).
#[cfg(test)]
pub const PANIC_HERE: &str = "panic-here";

/// How md5sum reads the files of a run.
pub struct Reads<'a> {
    /// Where sysfs is mounted, to tell spinning disks (read in order, one
    /// file at a time) from others; `None` reads every disk side by side.
    pub sysfs: Option<&'a Path>,
    /// The file standard output writes to, if it is a regular file.
    pub output: Option<FileId>,
    /// Counts the files read in a spinning disk's turn.
    pub read_in_turn: &'a AtomicUsize,
}

impl ReadPolicy for Reads<'_> {
    /// Only regular files are read out of order or side by side: anything
    /// else (pipes, FIFOs, character devices, `/dev/stdin`) is read alone
    /// in argument order, since two names for one pipe must see its bytes
    /// in that order, as with GNU md5sum. So is the file standard output
    /// writes to, after every line before it is written, so that it holds
    /// what it would hold for GNU md5sum.
    fn route(&self, path: &Path, meta: &Metadata) -> Route {
        #[cfg(test)]
        if path.ends_with(PANIC_HERE) {
            panic!("injected failure");
        }
        #[cfg(not(test))]
        let _ = path;
        if !meta.is_file() || (self.output.is_some() && sys::file_id(meta) == self.output) {
            Route::Alone
        } else if self.sysfs.is_some_and(|s| on_spinning_disk(s, meta)) {
            Route::InTurn
        } else {
            Route::Claim
        }
    }

    fn open(&self, path: &Path) -> io::Result<File> {
        crate::stdio::open(path)
    }

    /// Inputs read alone are opened as GNU md5sum opens them: a FIFO's
    /// open waits for a writer.
    fn open_alone_too(&self) -> bool {
        true
    }

    fn probe(&self, file: &File, buf: &mut [u8]) -> Probe {
        match read_cached(file, buf) {
            Cached::Read(n) => Probe::Read(n),
            Cached::No => Probe::NotCached,
            Cached::Unsupported | Cached::Failed => Probe::Unknown,
        }
    }

    fn mostly_cached(&self, file: &File, len: u64) -> bool {
        mostly_cached(file, len)
    }

    fn read_ahead(&self, file: &File, len: u64, in_turn: bool) {
        let most = if in_turn { HINT_MAX_IN_TURN } else { HINT_MAX };
        will_need(file, 0, len.min(most));
    }

    fn in_turn_memory(&self) -> u64 {
        IN_TURN_MEMORY
    }

    fn reading_in_turn(&self, _path: &Path) {
        self.read_in_turn.fetch_add(1, Ordering::Relaxed);
    }
}
