//! What the page cache holds of a file, as the claim's reads ask it: a
//! first read that takes only what is cached, and whether a large file is
//! cached but for a few pages.

use crate::sys::{self, Cached};
use std::fs::File;
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether a read can be told not to wait for the disk here; cleared the
/// first time the platform says it cannot.
static PROBE: AtomicBool = AtomicBool::new(cfg!(all(target_os = "linux", target_env = "gnu")));

/// Whether a large file is in the page cache, but for a few pages (the
/// kernel drops single pages now and then; reading those few outside the
/// disk's turn costs a few short seeks, not the turn).
pub fn mostly_cached(file: &File, len: u64) -> bool {
    #[cfg(test)]
    if let Some(cached) = forced::residency(file) {
        return cached;
    }
    sys::cached_sixteenths(file, len).is_some_and(|s| s >= 15)
}

/// Reads what the page cache holds at the file position, without waiting
/// for the disk ([`sys::read_cached`]), until the platform says it cannot.
pub fn read_cached(file: &File, buf: &mut [u8]) -> Cached {
    #[cfg(test)]
    match forced::residency(file) {
        Some(false) => return Cached::No,
        Some(true) => return Cached::Unsupported,
        None => {}
    }
    if !PROBE.load(Ordering::Relaxed) {
        return Cached::Unsupported;
    }
    let r = sys::read_cached(file, buf);
    if r == Cached::Unsupported {
        PROBE.store(false, Ordering::Relaxed);
    }
    r
}

/// Test builds: files the page-cache probes take as cached or not,
/// whatever the kernel holds, so that tests of the rule depend neither on
/// what the kernel keeps nor on whether the file system can tell.
#[cfg(test)]
pub mod forced {
    use crate::sys::{self, FileId};
    use std::fs::File;
    use std::sync::Mutex;

    static FILES: Mutex<Vec<(FileId, bool)>> = Mutex::new(Vec::new());

    /// Takes `file` as wholly cached (`true`) or not at all, until
    /// [`release`].
    #[cfg(unix)] // the tests that use it read from a fake sysfs
    pub fn set(file: &std::fs::File, cached: bool) {
        let id = sys::file_id(&file.metadata().unwrap()).unwrap();
        let mut files = FILES.lock().unwrap();
        files.retain(|f| f.0 != id);
        files.push((id, cached));
    }

    /// Leaves `file` to the kernel again.
    #[cfg(unix)]
    pub fn release(file: &std::fs::File) {
        let id = sys::file_id(&file.metadata().unwrap()).unwrap();
        FILES.lock().unwrap().retain(|f| f.0 != id);
    }

    /// What [`set`] says of the open file, if anything.
    pub(super) fn residency(file: &File) -> Option<bool> {
        let id = sys::file_id(&file.metadata().ok()?)?;
        let files = FILES.lock().unwrap();
        files.iter().find(|f| f.0 == id).map(|f| f.1)
    }
}
