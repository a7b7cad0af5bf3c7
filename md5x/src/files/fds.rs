//! Descriptor accounting: how many files a run may hold open, from the
//! process's own limit, and opens that wait for a descriptor when none is
//! left, rather than failing a file that a reader holding one file at a
//! time (`hashlib`, GNU md5sum) would read.

use super::Control;
use std::fs::File;
use std::io::{self, Read};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

/// The most files one run holds open at once, where the process's limit
/// allows as many: far below the usual limit of 1,024 descriptors.
const MOST: usize = 256;

/// Files this process holds open through [`open_waiting`] (including ones being
/// opened), and how many it has closed so far: a thread that finds no
/// descriptor left waits for the second to move.
static OPEN: AtomicUsize = AtomicUsize::new(0);
static CLOSED: AtomicU64 = AtomicU64::new(0);

/// How long a thread that found no descriptor left sleeps before it looks
/// again whether one was closed.
const RECHECK: Duration = Duration::from_micros(100);

/// The most files one run holds open at once: half the descriptors the
/// process may have (its soft `RLIMIT_NOFILE`, where it can be read),
/// leaving the other half to the caller's own files, and at most 256. At
/// least 1.
pub(super) fn budget() -> usize {
    let limit = descriptor_limit().unwrap_or(u64::MAX);
    usize::try_from(limit / 2).map_or(MOST, |half| half.clamp(1, MOST))
}

/// A file opened through [`open_waiting`], counted open until it is
/// dropped (closed).
///
/// It reads as the file does; [`file`](Self::file) lends the file itself
/// (for its metadata, or a system call of the caller's own).
#[derive(Debug)]
pub struct Opened {
    // Dropped in this order: the file is closed before it is counted
    // closed (see `Count`).
    file: File,
    _count: Count,
}

impl Opened {
    /// The open file.
    pub fn file(&self) -> &File {
        &self.file
    }
}

impl Read for Opened {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.file.read(buf)
    }
}

/// One descriptor counted in [`OPEN`], counted out when dropped.
#[derive(Debug)]
struct Count;

impl Drop for Count {
    fn drop(&mut self) {
        // Dropped after the descriptor is closed, so that a thread that
        // sees the closed count move finds it free; and counted closed
        // before it stops counting as open, so that a thread that finds
        // none open also finds the count moved.
        CLOSED.fetch_add(1, Ordering::SeqCst);
        OPEN.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Opens a file with `open_file`, counted among the files this process
/// holds open through the files layer; where no descriptor is left, waits
/// for one rather than failing.
///
/// Where the open fails for want of a descriptor (EMFILE or ENFILE;
/// `ERROR_TOO_MANY_OPEN_FILES` on Windows), `release` may close files the
/// caller holds (it returns whether it did), and the open is tried again;
/// otherwise the open waits until another file opened here is closed,
/// looking at `control`'s flag. Only when this process holds no file
/// opened here is the error the file's own, as it would be for a reader
/// that holds one file at a time (GNU md5sum, `hashlib`). `open_file` may
/// be called several times.
///
/// # Errors
///
/// The open's error, but for a lack of descriptors while files opened here
/// are open, and [`Stopped`](super::Stopped) once `control`'s flag is set
/// while waiting.
///
/// ```
/// use md5x::files::{open_waiting, Control};
/// use std::io::{self, Read};
/// # fn main() -> io::Result<()> {
/// let path = std::env::temp_dir().join(format!("open-waiting-doc-{}", std::process::id()));
/// std::fs::write(&path, b"abc")?;
/// // The first try finds no descriptor left (EMFILE, faked here); the
/// // caller closes one of its own files, and the open is tried again.
/// let mut tries = 0;
/// let mut open = || {
///     tries += 1;
///     if tries == 1 {
///         Err(io::Error::from_raw_os_error(if cfg!(windows) { 4 } else { 24 }))
///     } else {
///         std::fs::File::open(&path)
///     }
/// };
/// let mut mine = vec![std::fs::File::open(&path)?];
/// let release = || mine.pop().is_some();
/// let mut file = open_waiting(&mut open, release, &Control::new())?;
/// let mut text = String::new();
/// file.read_to_string(&mut text)?;
/// assert_eq!(text, "abc");
/// assert_eq!(tries, 2);
/// # drop(file);
/// # std::fs::remove_file(&path)?;
/// # Ok(())
/// # }
/// ```
pub fn open_waiting(
    open_file: impl FnMut() -> io::Result<File>,
    release: impl FnMut() -> bool,
    control: &Control<'_>,
) -> io::Result<Opened> {
    let file = counted(open_file, release, control)?;
    Ok(Opened {
        file,
        _count: Count,
    })
}

/// Runs `f`, which opens a descriptor and closes it before it returns
/// (reading a directory, say), counted open meanwhile and waiting for a
/// descriptor as [`open_waiting`] waits, so that it neither fails where a
/// file of the files layer is about to be closed nor takes the last
/// descriptor from under one.
///
/// # Errors
///
/// `f`'s error, but for a lack of descriptors while files opened through
/// [`open_waiting`] are open, and [`Stopped`](super::Stopped) once
/// `control`'s flag is set while waiting.
///
/// ```
/// use md5x::files::{with_descriptor, Control};
/// # fn main() -> std::io::Result<()> {
/// let dir = std::env::temp_dir().join(format!("with-descriptor-doc-{}", std::process::id()));
/// std::fs::create_dir_all(dir.join("a"))?;
/// let names = with_descriptor(|| Ok(std::fs::read_dir(&dir)?.count()), &Control::new())?;
/// assert_eq!(names, 1);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok(())
/// # }
/// ```
pub fn with_descriptor<T>(
    f: impl FnMut() -> io::Result<T>,
    control: &Control<'_>,
) -> io::Result<T> {
    let r = counted(f, || false, control)?;
    drop(Count);
    Ok(r)
}

/// Runs `f`, counted open in [`OPEN`] from before it runs; on success the
/// count stays, for the caller to take back (by dropping a [`Count`]).
fn counted<T>(
    mut f: impl FnMut() -> io::Result<T>,
    mut release: impl FnMut() -> bool,
    control: &Control<'_>,
) -> io::Result<T> {
    loop {
        let closed = CLOSED.load(Ordering::SeqCst);
        OPEN.fetch_add(1, Ordering::SeqCst);
        let err = match f() {
            Ok(r) => return Ok(r),
            Err(e) => e,
        };
        OPEN.fetch_sub(1, Ordering::SeqCst);
        if !out_of_descriptors(&err) {
            return Err(err);
        }
        if release() {
            continue;
        }
        // A file that another thread held (or was opening) when this open
        // failed is closed soon: wait for that, unless there is none. (The
        // open count is read first: see `Count::drop`.)
        loop {
            let none_open = OPEN.load(Ordering::SeqCst) == 0;
            if CLOSED.load(Ordering::SeqCst) != closed {
                break;
            }
            if none_open {
                return Err(err);
            }
            control.check()?;
            std::thread::sleep(RECHECK);
        }
    }
}

/// No descriptor left: for this process (EMFILE) or the system (ENFILE);
/// on Windows `ERROR_TOO_MANY_OPEN_FILES`.
fn out_of_descriptors(e: &io::Error) -> bool {
    #[cfg(unix)]
    {
        const ENFILE: i32 = 23;
        const EMFILE: i32 = 24;
        matches!(e.raw_os_error(), Some(ENFILE | EMFILE))
    }
    #[cfg(windows)]
    {
        const ERROR_TOO_MANY_OPEN_FILES: i32 = 4;
        e.raw_os_error() == Some(ERROR_TOO_MANY_OPEN_FILES)
    }
    #[cfg(not(any(unix, windows)))]
    {
        let _ = e;
        false
    }
}

cfg_if::cfg_if! {
    // `getrlimit` where `rlim_t` is 64 bits and `RLIMIT_NOFILE` is known:
    // 64-bit Linux on the targets whose number is the generic 7 (not
    // Alpha, MIPS or SPARC), and Apple's systems (8).
    if #[cfg(any(
        all(
            target_os = "linux",
            target_pointer_width = "64",
            any(
                target_arch = "x86_64",
                target_arch = "aarch64",
                target_arch = "riscv64",
                target_arch = "loongarch64",
                target_arch = "powerpc64",
                target_arch = "s390x"
            )
        ),
        target_vendor = "apple"
    ))] {
        /// The process's soft limit on open descriptors.
        fn descriptor_limit() -> Option<u64> {
            use std::os::raw::c_int;
            #[repr(C)]
            struct Rlimit {
                cur: u64,
                max: u64,
            }
            extern "C" {
                fn getrlimit(resource: c_int, rlim: *mut Rlimit) -> c_int;
            }
            const RLIMIT_NOFILE: c_int = if cfg!(target_vendor = "apple") { 8 } else { 7 };
            let mut limit = Rlimit { cur: 0, max: 0 };
            // SAFETY: `limit` is one valid `struct rlimit` (two 64-bit
            // `rlim_t` on these targets), which `getrlimit` only writes
            // during the call.
            let r = unsafe { getrlimit(RLIMIT_NOFILE, &mut limit) };
            (r == 0).then_some(limit.cur)
        }
    } else {
        /// Unknown here: the fixed cap alone.
        fn descriptor_limit() -> Option<u64> {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The budget is half the soft limit as `ulimit -n` shows it, within 1
    /// and 256.
    #[test]
    #[cfg(all(
        target_os = "linux",
        any(target_arch = "x86_64", target_arch = "aarch64")
    ))]
    fn budget_is_half_the_soft_limit() {
        let limits = std::fs::read_to_string("/proc/self/limits").unwrap();
        let line = limits
            .lines()
            .find(|l| l.starts_with("Max open files"))
            .unwrap();
        let soft = line.split_whitespace().nth(3).unwrap();
        let want = match soft.parse::<usize>() {
            Ok(n) => (n / 2).clamp(1, MOST),
            Err(_) => MOST, // "unlimited"
        };
        assert_eq!(budget(), want, "{line}");
    }

    /// A failed open that is not for want of descriptors comes back as it
    /// is, without waiting or releasing.
    #[test]
    fn other_errors_come_back() {
        let err = open_waiting(
            || Err(io::Error::from(io::ErrorKind::NotFound)),
            || panic!("released for an error that is not EMFILE"),
            &Control::new(),
        )
        .err()
        .unwrap();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
    }
}
