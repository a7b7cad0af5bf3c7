//! Hints to the OS about a file's pages in the page cache, for each OS:
//! the one place this crate declares `posix_fadvise`. Public as
//! `md5x::files::drop_cached` and `will_need`.

use std::fs::File;

/// Asks the OS to start reading `len` bytes of `file` at `offset` into the
/// page cache (`posix_fadvise(POSIX_FADV_WILLNEED)` on Linux, which returns
/// without waiting for the disk), so that reads of them later do not wait.
/// Only a hint: errors are ignored, and elsewhere it does nothing.
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub fn will_need(file: &File, offset: u64, len: u64) {
    advise(file, offset, len, Advice::WillNeed);
}

/// Asks the OS to drop `file`'s pages from the page cache, after writing
/// out any it has not written (`fsync`, then
/// `posix_fadvise(POSIX_FADV_DONTNEED)` on Linux), so that the next read
/// of it comes from the disk: for benchmarks and tests of cold reads. Only
/// a request: errors are ignored, and elsewhere it does nothing.
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub fn drop_cached(file: &File) {
    if cfg!(all(target_os = "linux", target_pointer_width = "64")) {
        let _ = file.sync_all();
    }
    advise(file, 0, 0, Advice::DontNeed);
}

#[derive(Clone, Copy)]
enum Advice {
    WillNeed = 3,
    DontNeed = 4,
}

/// `posix_fadvise`, on 64-bit Linux, where `off_t` is 64 bits in every C
/// library; a failure only means no hint.
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
fn advise(file: &File, offset: u64, len: u64, advice: Advice) {
    use std::os::fd::AsRawFd;
    use std::os::raw::c_int;
    extern "C" {
        fn posix_fadvise(fd: c_int, offset: i64, len: i64, advice: c_int) -> c_int;
    }
    let (Ok(offset), Ok(len)) = (i64::try_from(offset), i64::try_from(len)) else {
        return;
    };
    // SAFETY: `posix_fadvise` only reads its integer arguments; the
    // descriptor is open for as long as `file` is borrowed.
    let _ = unsafe { posix_fadvise(file.as_raw_fd(), offset, len, advice as c_int) };
}

#[cfg(not(all(target_os = "linux", target_pointer_width = "64")))]
fn advise(_file: &File, _offset: u64, _len: u64, _advice: Advice) {}
