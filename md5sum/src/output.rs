//! Standard output and diagnostics.
//! - Lines reach stdout whole: a write holds only complete lines (records,
//!   with `-z`) and at most [`PIPE_BUF`] bytes, unless one line is longer,
//!   so that on a pipe each write is atomic and the lines of several
//!   md5sums writing to one pipe (`xargs -P`) never mix. GNU md5sum line
//!   buffers stdout for the same reason; this batches lines that are
//!   ready together, and writes out what it has whenever the next line
//!   has to wait ([`Out::flush`] on [`crate::engine::Step::Idle`]).
//! - Every diagnostic first flushes stdout, as glibc's `error()` does.
//! - A failed write to stdout is remembered, later output is dropped, and
//!   `md5sum: write error` is reported at the end (exit status 1).

use crate::progress::Progress;
use crate::sys::{ebadf, EBADF};
use std::io::{self, IsTerminal, Write};
#[cfg(target_os = "linux")]
use std::path::Path;

/// The most bytes a write to a pipe is guaranteed atomic for: Linux's
/// `PIPE_BUF`, and POSIX's minimum elsewhere.
pub const PIPE_BUF: usize = if cfg!(target_os = "linux") { 4096 } else { 512 };

pub struct Out<'a> {
    buf: Vec<u8>,
    line_buffered: bool,
    /// Rust's stdout quietly drops writes to a closed descriptor; GNU's
    /// reports them, so a closed fd 1 is noticed up front.
    closed: bool,
    failed: Option<io::Error>,
    /// The program name as invoked, which prefixes diagnostics.
    pub prog: Vec<u8>,
    progress: Option<&'a Progress>,
}

/// Writes `data` to file descriptor 1 with as few `write` calls as it
/// takes (one, for at most [`PIPE_BUF`] bytes on a pipe), bypassing the
/// line buffer of Rust's `Stdout`, which would split a `-z` record at a
/// newline inside a name.
fn write_stdout(data: &[u8]) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::fd::FromRawFd;
        // SAFETY: descriptor 1 stays open for the whole run (the runtime
        // reopens a closed one on /dev/null before `main`), and
        // `ManuallyDrop` keeps this `File` from ever closing it.
        let mut fd1 = std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(1) });
        fd1.write_all(data)
    }
    #[cfg(not(unix))]
    {
        let mut lock = io::stdout().lock();
        lock.write_all(data).and_then(|()| lock.flush())
    }
}

/// Whether standard descriptor `fd` (0, 1 or 2) was closed when the
/// program started. The Rust runtime reopens a closed standard descriptor
/// on `/dev/null` read-write before `main`, so look for exactly that: a
/// shell's `</dev/null` or `>/dev/null` is read-only or write-only.
pub fn was_closed(fd: u8) -> bool {
    #[cfg(target_os = "linux")]
    {
        let link = format!("/proc/self/fd/{fd}");
        let null = std::fs::read_link(link).is_ok_and(|p| p == Path::new("/dev/null"));
        let rdwr = || {
            let info = std::fs::read_to_string(format!("/proc/self/fdinfo/{fd}"));
            info.unwrap_or_default()
                .lines()
                .find_map(|l| l.strip_prefix("flags:"))
                .and_then(|f| u32::from_str_radix(f.trim(), 8).ok())
                .is_some_and(|f| f & 3 == 2)
        };
        null && rdwr()
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = fd;
        false
    }
}

/// The text of an OS error as `strerror` gives it, without Rust's
/// " (os error N)" suffix.
pub fn reason(e: &io::Error) -> String {
    let s = e.to_string();
    match s.rfind(" (os error ") {
        Some(p) if e.raw_os_error().is_some() => s[..p].to_string(),
        _ => s,
    }
}

impl<'a> Out<'a> {
    pub fn new(prog: Vec<u8>, progress: Option<&'a Progress>) -> Self {
        Out {
            buf: Vec::with_capacity(PIPE_BUF),
            line_buffered: io::stdout().is_terminal(),
            closed: was_closed(1),
            failed: None,
            prog,
            progress,
        }
    }

    fn write_raw(&mut self, data: &[u8]) {
        if self.failed.is_some() {
            return;
        }
        if self.closed {
            self.failed = Some(ebadf());
            return;
        }
        let res = match self.progress {
            Some(p) if self.line_buffered => p.hidden(|| write_stdout(data)),
            _ => write_stdout(data),
        };
        if let Err(e) = res {
            // SIGPIPE is left at its default action, so a closed pipe ends
            // the process before this point, as it ends GNU md5sum.
            self.failed = Some(e);
        }
    }

    /// Queues one output record (a whole line, terminator included).
    pub fn record(&mut self, rec: &[u8]) {
        if !self.buf.is_empty() && self.buf.len() + rec.len() > PIPE_BUF {
            self.flush();
        }
        self.buf.extend_from_slice(rec);
        if self.line_buffered || self.buf.len() >= PIPE_BUF {
            self.flush();
        }
    }

    /// Writes out the queued records.
    pub fn flush(&mut self) {
        if !self.buf.is_empty() {
            let data = std::mem::take(&mut self.buf);
            self.write_raw(&data);
            self.buf = data;
            self.buf.clear();
        }
    }

    /// Prints `PROG: MSG` on stderr, after flushing stdout.
    pub fn diag(&mut self, msg: &[u8]) {
        self.flush();
        let mut line = Vec::with_capacity(self.prog.len() + msg.len() + 3);
        line.extend_from_slice(&self.prog);
        line.extend_from_slice(b": ");
        line.extend_from_slice(msg);
        line.push(b'\n');
        let write = || {
            let _ = io::stderr().lock().write_all(&line);
        };
        match self.progress {
            Some(p) => p.hidden(write),
            None => write(),
        }
    }

    /// Flushes stdout; on an earlier or final write failure, reports it as
    /// coreutils' `close_stdout` does and returns false.
    pub fn finish(&mut self) -> bool {
        self.flush();
        match self.failed.take() {
            None => true,
            Some(e) => {
                // coreutils' close_stdout only has an errno to show when the
                // final close fails too, which in practice means a closed
                // descriptor; a failed write alone ends up as errno 0.
                let msg = if e.raw_os_error() == Some(EBADF) {
                    format!("write error: {}", reason(&e))
                } else {
                    "write error".to_string()
                };
                self.diag(msg.as_bytes());
                false
            }
        }
    }
}

impl Drop for Out<'_> {
    /// Writes out what is queued, also when a panic unwinds the run.
    fn drop(&mut self) {
        self.flush();
    }
}

/// Restores the default action for SIGPIPE (the Rust runtime ignores it),
/// so that writing into a closed pipe ends the process silently with the
/// signal, exactly as it ends GNU md5sum.
pub fn default_sigpipe() {
    #[cfg(unix)]
    {
        extern "C" {
            fn signal(signum: std::os::raw::c_int, handler: usize) -> usize;
        }
        const SIGPIPE: std::os::raw::c_int = 13;
        const SIG_DFL: usize = 0;
        // SAFETY: `signal` is the C library's; setting SIG_DFL installs no
        // Rust code as a handler, and no other thread exists yet.
        unsafe {
            signal(SIGPIPE, SIG_DFL);
        }
    }
}
