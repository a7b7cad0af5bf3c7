//! Descriptor accounting: the files this process holds open for hashing,
//! so that "too many open files" means waiting for one of them to close,
//! down to one open file at a time, rather than failing a file that GNU
//! md5sum (which holds one at a time) would read.

use crate::sys;
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

/// Files this process holds open for hashing (including ones being
/// opened), and how many it has closed so far.
static OPEN: AtomicUsize = AtomicUsize::new(0);
static CLOSED: AtomicU64 = AtomicU64::new(0);

/// A file opened through [`open`], counted in [`OPEN`] until dropped.
pub struct Opened(Option<File>);

impl Opened {
    /// The open file.
    pub fn file(&self) -> &File {
        self.0.as_ref().expect("only `drop` takes the file")
    }
}

impl Drop for Opened {
    fn drop(&mut self) {
        // Closed before it is counted closed: a thread waiting for a
        // descriptor retries when the count moves, and must find it free.
        // And counted closed before it stops counting as open, so that a
        // waiting thread that finds none open also finds the count moved.
        drop(self.0.take());
        CLOSED.fetch_add(1, Ordering::SeqCst);
        OPEN.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Read for Opened {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.file().read(buf)
    }
}

/// Opens `path` for reading. When no descriptor is left, `release` may
/// close files the caller holds (it returns whether it did); otherwise the
/// open is retried each time another thread closes one of its files. Only
/// when this process holds no file at all is the error the file's own, as
/// it would be for GNU md5sum, which holds one at a time.
pub fn open(path: &Path, release: impl FnMut() -> bool) -> io::Result<Opened> {
    counted(|| crate::stdio::open(path), release).map(|f| Opened(Some(f)))
}

/// Runs `f`, which opens a descriptor and closes it before it returns
/// (reading a directory), counted in [`OPEN`] as [`open`] counts a file,
/// and retried as `open` is.
#[cfg_attr(not(unix), allow(dead_code))]
pub fn briefly<T>(f: impl FnMut() -> io::Result<T>) -> io::Result<T> {
    let r = counted(f, || false)?;
    CLOSED.fetch_add(1, Ordering::SeqCst);
    OPEN.fetch_sub(1, Ordering::SeqCst);
    Ok(r)
}

/// Runs `f`, counted open in [`OPEN`] from before it runs; on success the
/// count stays for the caller to take back.
fn counted<T>(
    mut f: impl FnMut() -> io::Result<T>,
    mut release: impl FnMut() -> bool,
) -> io::Result<T> {
    loop {
        let closed = CLOSED.load(Ordering::SeqCst);
        OPEN.fetch_add(1, Ordering::SeqCst);
        let err = match f() {
            Ok(r) => return Ok(r),
            Err(e) => e,
        };
        OPEN.fetch_sub(1, Ordering::SeqCst);
        if !sys::out_of_fds(&err) {
            return Err(err);
        }
        if release() {
            continue;
        }
        // A file that another thread held (or was opening) when this open
        // failed is closed soon: wait for that, unless there is none. (The
        // open count is read first: see `Opened::drop`.)
        loop {
            let none_open = OPEN.load(Ordering::SeqCst) == 0;
            if CLOSED.load(Ordering::SeqCst) != closed {
                break;
            }
            if none_open {
                return Err(err);
            }
            std::thread::sleep(Duration::from_micros(100));
        }
    }
}
