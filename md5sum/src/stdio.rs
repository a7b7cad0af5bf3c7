//! The standard descriptors and SIGPIPE as the program was started, and
//! undoing what the Rust runtime changes in them before `main`.
//!
//! Before `main` the runtime reopens a closed descriptor 0, 1 or 2 on
//! `/dev/null`, read-write, and ignores SIGPIPE. GNU md5sum sees neither:
//! a closed standard input fails to read (EBADF) and `/dev/stdin` then
//! names no file (ENOENT), a closed standard output fails to write, and
//! SIGPIPE keeps the disposition that the parent left. A `/dev/null` that
//! the parent opened read-write (Python's `subprocess.DEVNULL`, `daemon()`,
//! a shell's `<>/dev/null`) is an ordinary open descriptor.
//!
//! So on Linux a function in `.init_array`, which the C library runs before
//! it calls the Rust runtime, records how the three descriptors are open
//! and whether SIGPIPE is ignored. [`init`] then sets SIGPIPE back to its
//! default action unless it was ignored, and puts on each closed descriptor
//! an end of a pipe that nothing else uses: the write end on descriptor 0,
//! the read end on 1 and 2, so that reads or writes fail with EBADF as they
//! would on the closed descriptor. A name that reaches one of them
//! (`/dev/stdin`, `/proc/self/fd/1`) opens that pipe, which [`open`]
//! recognises and fails with ENOENT, as the open fails in GNU md5sum.
//! Elsewhere nothing is recorded: descriptors count as open, and SIGPIPE
//! is set to its default action.

use std::fs::File;
use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

/// Bit `fd` set: standard descriptor `fd` was closed at startup.
static CLOSED: AtomicU8 = AtomicU8::new(0);
/// Standard input was open for writing only at startup.
static STDIN_WRITE_ONLY: AtomicBool = AtomicBool::new(false);
/// SIGPIPE was ignored at startup.
#[cfg(unix)]
static SIGPIPE_IGNORED: AtomicBool = AtomicBool::new(false);

/// The C library's functions used here, and their constants.
#[cfg(unix)]
mod sys {
    use std::os::raw::c_int;

    extern "C" {
        pub fn signal(signum: c_int, handler: usize) -> usize;
        pub fn dup2(old: c_int, new: c_int) -> c_int;
    }
    pub const SIGPIPE: c_int = 13;
    pub const SIG_DFL: usize = 0;
}

#[cfg(any(target_os = "linux", target_os = "android"))]
mod startup {
    use super::sys::{signal, SIGPIPE};
    use super::{CLOSED, SIGPIPE_IGNORED, STDIN_WRITE_ONLY};
    use std::os::raw::c_int;
    use std::sync::atomic::Ordering;

    extern "C" {
        fn fcntl(fd: c_int, cmd: c_int, ...) -> c_int;
    }
    const F_GETFL: c_int = 3;
    const O_ACCMODE: c_int = 3;
    const O_WRONLY: c_int = 1;
    const SIG_IGN: usize = 1;

    /// Run by the C library before `main` (and so before the Rust runtime
    /// changes anything), as the standard library's own argument capture is.
    #[used]
    #[link_section = ".init_array"]
    static RECORD: extern "C" fn() = record;

    extern "C" fn record() {
        for fd in 0..3 {
            // SAFETY: F_GETFL only reads the descriptor's status flags; it
            // fails (EBADF) exactly when the descriptor is not open.
            let flags = unsafe { fcntl(fd, F_GETFL) };
            if flags == -1 {
                CLOSED.fetch_or(1 << fd, Ordering::Relaxed);
            } else if fd == 0 && flags & O_ACCMODE == O_WRONLY {
                STDIN_WRITE_ONLY.store(true, Ordering::Relaxed);
            }
        }
        // `signal` is the only portable way to read a disposition without
        // `struct sigaction`: set one, then put the old one back.
        // SAFETY: SIG_IGN and the disposition it returns (SIG_DFL or
        // SIG_IGN, the only ones a new program inherits) install no code,
        // and no other thread exists yet.
        let old = unsafe { signal(SIGPIPE, SIG_IGN) };
        // SAFETY: as above.
        unsafe { signal(SIGPIPE, old) };
        SIGPIPE_IGNORED.store(old == SIG_IGN, Ordering::Relaxed);
    }
}

/// Whether standard descriptor `fd` (0, 1 or 2) was closed at startup.
pub fn was_closed(fd: u8) -> bool {
    CLOSED.load(Ordering::Relaxed) & (1 << fd) != 0
}

/// Whether reading standard input fails with EBADF: it was closed, or open
/// for writing only. (Rust's `Stdin` reads EBADF as the end of the file.)
pub fn stdin_unreadable() -> bool {
    was_closed(0) || STDIN_WRITE_ONLY.load(Ordering::Relaxed)
}

#[cfg(unix)]
mod placeholder {
    use std::fs::{File, Metadata};
    use std::os::fd::{AsRawFd, OwnedFd};
    use std::os::unix::fs::MetadataExt;
    use std::sync::OnceLock;

    /// The pipe on the closed descriptors. Both ends stay open for the
    /// whole run, so that opening it through `/proc` never waits for a
    /// writer.
    struct Pipe {
        _ends: (File, File),
        dev: u64,
        ino: u64,
    }

    static PIPE: OnceLock<Pipe> = OnceLock::new();

    /// Puts the pipe on the closed descriptors in `closed` (bit `fd` set).
    /// Where no pipe can be made, the runtime's `/dev/null` stays.
    pub fn install(closed: u8) {
        let Ok((r, w)) = std::io::pipe() else {
            return;
        };
        let (r, w) = (File::from(OwnedFd::from(r)), File::from(OwnedFd::from(w)));
        let Ok(meta) = r.metadata() else {
            return;
        };
        for fd in 0..3 {
            if closed & (1 << fd) != 0 {
                let end = if fd == 0 { &w } else { &r };
                // SAFETY: both descriptors are open, and `fd` holds the
                // runtime's /dev/null, which nothing else refers to.
                unsafe { super::sys::dup2(end.as_raw_fd(), fd) };
            }
        }
        let _ = PIPE.set(Pipe {
            _ends: (r, w),
            dev: meta.dev(),
            ino: meta.ino(),
        });
    }

    /// Whether `meta` is the pipe's.
    pub fn is_pipe(meta: &Metadata) -> bool {
        PIPE.get()
            .is_some_and(|p| p.dev == meta.dev() && p.ino == meta.ino())
    }
}

/// Restores what the runtime changed (see the module's docs). Call first
/// in `main`, before any other thread starts.
pub fn init() {
    #[cfg(unix)]
    {
        if !SIGPIPE_IGNORED.load(Ordering::Relaxed) {
            // SAFETY: SIG_DFL installs no code, and no other thread exists
            // yet.
            unsafe { sys::signal(sys::SIGPIPE, sys::SIG_DFL) };
        }
        let closed = CLOSED.load(Ordering::Relaxed);
        if closed != 0 {
            placeholder::install(closed);
        }
    }
}

/// Opens a file to read, failing with ENOENT, as GNU md5sum's open does,
/// where the name reaches a standard descriptor that was closed at startup.
pub fn open(path: impl AsRef<Path>) -> io::Result<File> {
    let file = File::open(path)?;
    #[cfg(unix)]
    if CLOSED.load(Ordering::Relaxed) != 0
        && file.metadata().is_ok_and(|m| placeholder::is_pipe(&m))
    {
        const ENOENT: i32 = 2;
        return Err(io::Error::from_raw_os_error(ENOENT));
    }
    Ok(file)
}
