//! How a caller follows a run of the files layer (or an ETag file form) and
//! stops it: public as `md5x::files::Control` and `Stopped`.

use core::fmt;
use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// How the caller follows a run of the files layer and stops it: a counter
/// that the run adds every byte it reads to (progress), and a flag that
/// stops it.
///
/// The flag is read before every read (at most 1 MiB, most often 64 KiB or
/// less) and, where a read would wait (on a FIFO, a terminal, any other
/// character device), every [`WAIT_TICK`](Self::WAIT_TICK) while it waits. Once it is set, each file
/// not yet hashed fails with an [`io::Error`] holding [`Stopped`]. Both are
/// atomics so that another thread (a signal handler's watcher, a UI) can
/// set and read them while the run goes on.
///
/// ```
/// use md5x::files::Control;
/// use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
///
/// let (stop, bytes) = (AtomicBool::new(false), AtomicU64::new(0));
/// let control = Control::new().stop_on(&stop).count_into(&bytes);
/// assert!(!control.stopped());
/// stop.store(true, Ordering::Relaxed);
/// assert!(control.stopped());
/// assert!(md5x::files::Stopped::is(&control.check().unwrap_err()));
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Control<'a> {
    stop: Option<&'a AtomicBool>,
    bytes: Option<&'a AtomicU64>,
}

impl<'a> Control<'a> {
    /// How often a read that waits (on a FIFO, a terminal, any other
    /// character device) wakes to look at the flag.
    pub const WAIT_TICK: core::time::Duration = core::time::Duration::from_millis(100);

    /// No flag and no counter: the run goes to its end.
    pub const fn new() -> Self {
        Self {
            stop: None,
            bytes: None,
        }
    }

    /// Stops the run once `flag` is set.
    pub const fn stop_on(mut self, flag: &'a AtomicBool) -> Self {
        self.stop = Some(flag);
        self
    }

    /// Adds every byte read to `bytes`.
    pub const fn count_into(mut self, bytes: &'a AtomicU64) -> Self {
        self.bytes = Some(bytes);
        self
    }

    /// Whether the flag is set.
    pub fn stopped(&self) -> bool {
        self.stop.is_some_and(|s| s.load(Ordering::Relaxed))
    }

    /// Fails with [`Stopped`] once the flag is set.
    ///
    /// # Errors
    ///
    /// An [`io::Error`] of kind [`io::ErrorKind::Other`] holding
    /// [`Stopped`], if the flag is set.
    pub fn check(&self) -> io::Result<()> {
        if self.stopped() {
            Err(io::Error::other(Stopped))
        } else {
            Ok(())
        }
    }

    /// Counts `n` bytes read.
    pub fn count(&self, n: usize) {
        if let Some(b) = self.bytes {
            b.fetch_add(n as u64, Ordering::Relaxed);
        }
    }
}

/// The error inside the [`io::Error`] of each file a [`Control`]'s flag
/// stopped before it was hashed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stopped;

impl Stopped {
    /// Whether `err` is a [`Stopped`] error.
    pub fn is(err: &io::Error) -> bool {
        err.get_ref().is_some_and(|e| e.is::<Stopped>())
    }
}

impl fmt::Display for Stopped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("stopped before it was hashed")
    }
}

impl std::error::Error for Stopped {}
