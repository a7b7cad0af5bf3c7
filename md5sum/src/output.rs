//! Standard output and diagnostics, written the way GNU md5sum's stdio
//! writes them, so that even `2>&1` interleaves the same:
//! - stdout is line buffered on a terminal, otherwise written in whole
//!   blocks of `min(st_blksize, 8192)` bytes as glibc does;
//! - every diagnostic first flushes stdout, as glibc's `error()` does;
//! - a failed write to stdout is remembered, later output is dropped, and
//!   `md5sum: write error` is reported at the end (exit status 1).

use crate::progress::Progress;
use std::io::{self, IsTerminal, Write};
#[cfg(target_os = "linux")]
use std::path::Path;

pub struct Out<'a> {
    buf: Vec<u8>,
    block: usize,
    line_buffered: bool,
    /// Rust's stdout quietly drops writes to a closed descriptor; GNU's
    /// reports them, so a closed fd 1 is noticed up front.
    closed: bool,
    failed: Option<io::Error>,
    /// The program name as invoked, which prefixes diagnostics.
    pub prog: Vec<u8>,
    progress: Option<&'a Progress>,
}

/// glibc's stdout buffer size: `st_blksize` when it is below `BUFSIZ`.
fn stdout_block() -> usize {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::MetadataExt;
        if let Ok(m) = std::fs::metadata("/proc/self/fd/1") {
            let b = m.blksize() as usize;
            if b > 0 && b < 8192 {
                return b;
            }
        }
    }
    8192
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

/// EBADF, the error of a closed descriptor.
pub fn ebadf() -> io::Error {
    io::Error::from_raw_os_error(9)
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
        let line_buffered = io::stdout().is_terminal();
        let block = stdout_block();
        let closed = was_closed(1);
        Out {
            buf: Vec::with_capacity(block * 2),
            block,
            line_buffered,
            closed,
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
        let write = || {
            let mut lock = io::stdout().lock();
            lock.write_all(data).and_then(|()| lock.flush())
        };
        let res = match self.progress {
            Some(p) if self.line_buffered => p.hidden(write),
            _ => write(),
        };
        if let Err(e) = res {
            // SIGPIPE is left at its default action, so a closed pipe ends
            // the process before this point, as it ends GNU md5sum.
            self.failed = Some(e);
        }
    }

    /// Queues one output record (a whole line, terminator included).
    pub fn record(&mut self, rec: &[u8]) {
        self.buf.extend_from_slice(rec);
        if self.line_buffered {
            self.flush();
        } else if self.buf.len() >= self.block {
            let whole = self.buf.len() / self.block * self.block;
            let data = std::mem::take(&mut self.buf);
            self.write_raw(&data[..whole]);
            self.buf.extend_from_slice(&data[whole..]);
        }
    }

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
        if self.failed.is_none() {
            if let Err(e) = io::stdout().lock().flush() {
                self.failed = Some(e);
            }
        }
        match self.failed.take() {
            None => true,
            Some(e) => {
                // coreutils' close_stdout only has an errno to show when the
                // final close fails too, which in practice means a closed
                // descriptor; a failed write alone ends up as errno 0.
                const EBADF: i32 = 9;
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
