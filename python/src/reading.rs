//! Files opened and read so that a [`Stop`] is seen within a poll's wait,
//! for `hash_files` and `s3_etag`: a FIFO no one writes to blocks a plain
//! `open` until a writer comes, and a read from a silent writer forever.
//!
//! On Unix every file is opened with `O_NONBLOCK`, which regular files
//! ignore. A FIFO is then polled until a writer has come (Linux does not
//! report a FIFO's end before any writer opened it), and each read that
//! would block polls, a [`POLL`] at a time, looking at the `Stop`. Files
//! that never block (an endless device) are stopped by their readers,
//! which look at the `Stop` between reads.

use crate::stop::Stop;
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// How long a wait for data lasts before it looks at the `Stop` again.
#[cfg(unix)]
const POLL_MS: i32 = 50;

/// The error of a read given up at a `Stop` (its caller raises the
/// signal's exception instead).
pub(crate) fn stopped() -> io::Error {
    io::Error::new(io::ErrorKind::Interrupted, "stopped")
}

/// `Err(stopped())` once `stop` is set.
pub(crate) fn check(stop: &Stop) -> io::Result<()> {
    if stop.is_set() {
        Err(stopped())
    } else {
        Ok(())
    }
}

/// Opens `path` for reading; a FIFO once a writer has opened it too.
pub(crate) fn open(path: &Path, stop: &Stop) -> io::Result<File> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)?;
        if file.metadata()?.file_type().is_fifo() {
            wait_readable(&file, stop)?;
        }
        Ok(file)
    }
    #[cfg(not(unix))]
    {
        check(stop)?;
        File::open(path)
    }
}

/// Reads into `buf`, waiting (interruptibly) where the file has no data
/// yet; 0 at its end.
pub(crate) fn read_some(file: &mut File, buf: &mut [u8], stop: &Stop) -> io::Result<usize> {
    loop {
        match file.read(buf) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => check(stop)?,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => wait_readable(file, stop)?,
            done => return done,
        }
    }
}

/// Reads into `buf` until it is full or the file ends; the bytes read.
pub(crate) fn read_full(file: &mut File, buf: &mut [u8], stop: &Stop) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        check(stop)?;
        match read_some(file, &mut buf[n..], stop)? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

/// Waits until `file` has data or its end (a FIFO: a writer came), looking
/// at `stop` every [`POLL_MS`].
#[cfg(unix)]
fn wait_readable(file: &File, stop: &Stop) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    loop {
        check(stop)?;
        let mut fd = libc::pollfd {
            fd: file.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid `pollfd`, on a descriptor `file` keeps open.
        match unsafe { libc::poll(&mut fd, 1, POLL_MS) } {
            0 => {}
            n if n > 0 => return Ok(()),
            _ => {
                let e = io::Error::last_os_error();
                if e.kind() != io::ErrorKind::Interrupted {
                    return Err(e);
                }
            }
        }
    }
}

/// Not reached off Unix: files are opened blocking there.
#[cfg(not(unix))]
fn wait_readable(_: &File, stop: &Stop) -> io::Result<()> {
    check(stop)
}

/// Runs `read(file)`, which reads `file` with positional reads on threads
/// of its own (`md5::etag::multipart_file`), and cuts it short once `stop`
/// is set: the file's descriptor is then made a descriptor of `/dev/null`
/// (`dup2`, atomic: the number stays open, so no other file can take it),
/// whose reads find its end, so that `read` returns an error at its next
/// read.
pub(crate) fn cut_short<T>(file: &File, stop: &Stop, read: impl FnOnce(&File) -> T) -> T {
    #[cfg(unix)]
    {
        use std::os::fd::AsRawFd;
        use std::sync::mpsc;
        std::thread::scope(|s| {
            let (done, finished) = mpsc::channel::<()>();
            let watcher = std::thread::Builder::new().spawn_scoped(s, move || loop {
                match finished.recv_timeout(std::time::Duration::from_millis(POLL_MS as u64)) {
                    Err(mpsc::RecvTimeoutError::Timeout) if stop.is_set() => {
                        if let Ok(null) = File::open("/dev/null") {
                            // SAFETY: both descriptors are open (`file` is
                            // borrowed for the whole scope, `null` held):
                            // `dup2` replaces the first's open file with
                            // the second's, atomically.
                            unsafe { libc::dup2(null.as_raw_fd(), file.as_raw_fd()) };
                        }
                        return;
                    }
                    Err(mpsc::RecvTimeoutError::Timeout) => {}
                    _ => return,
                }
            });
            let out = read(file);
            drop(done);
            drop(watcher);
            out
        })
    }
    #[cfg(not(unix))]
    {
        let _ = stop;
        read(file)
    }
}
