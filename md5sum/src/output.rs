//! Standard output and diagnostics.
//! - Lines reach stdout whole: a write holds only complete lines (records,
//!   with `-z`) and at most [`PIPE_BUF`] bytes, unless one line is longer,
//!   so that on a pipe each write is atomic and the lines of several
//!   md5sums writing to one pipe (`xargs -P`) never mix. GNU md5sum line
//!   buffers stdout for the same reason; this batches lines that are
//!   ready together, and writes out what it has whenever the next line
//!   has to wait ([`Out::flush`] on [`crate::engine::Step::Idle`]).
//! - Every diagnostic first flushes stdout, as glibc's `error()` does.
//! - A regular file never gets more than GNU md5sum's stdio would have
//!   written to it by then, and gets all of that before md5sum reads it as
//!   an input (`md5sum -z a out > out`): what precedes the last newline,
//!   and whole buffers of the file's block size beyond it ([`GnuBuffer`]).
//! - A failed write to stdout is remembered, later output is dropped, and
//!   `md5sum: write error` is reported at the end (exit status 1), with
//!   the error's text where GNU's would show it ([`Out::finish`]).
//! - A diagnostic that cannot be written makes the exit status 1, as in
//!   GNU md5sum.

use crate::progress::Progress;
use std::io::{self, IsTerminal, Write};

/// The most bytes a write to a pipe is guaranteed atomic for: Linux's
/// `PIPE_BUF`, and POSIX's minimum elsewhere.
pub const PIPE_BUF: usize = if cfg!(target_os = "linux") { 4096 } else { 512 };

pub struct Out<'a> {
    buf: Vec<u8>,
    /// What GNU md5sum's stdout buffer would hold at this point.
    gnu: GnuBuffer,
    line_buffered: bool,
    failed: Option<io::Error>,
    /// A diagnostic could not be written.
    stderr_failed: bool,
    /// The program name as invoked, which prefixes diagnostics.
    pub prog: Vec<u8>,
    progress: Option<&'a Progress>,
}

/// What GNU md5sum's stdout would still hold: glibc's line buffer writes
/// out all it holds at a newline and before a diagnostic, and a buffer of
/// the file's block size whenever it is full. One count serves both
/// questions asked of it: what a regular file must not get yet, and
/// whether `close_stdout` would find output pending.
struct GnuBuffer {
    /// The buffer's size, where stdout is a regular file, whose contents
    /// are kept in step with GNU's; elsewhere it is not taken to fill.
    size: Option<usize>,
    /// Bytes put in since it last wrote out everything it held.
    since_emptied: u64,
}

impl GnuBuffer {
    /// For stdout: sized if it is a regular file.
    fn of_stdout() -> Self {
        GnuBuffer {
            size: Self::regular_file_block(),
            since_emptied: 0,
        }
    }

    /// Stdout's block size, if it is a regular file.
    fn regular_file_block() -> Option<usize> {
        #[cfg(unix)]
        {
            use std::os::fd::FromRawFd;
            use std::os::unix::fs::MetadataExt;
            // SAFETY: as in `write_all`: descriptor 1 stays open, and
            // `ManuallyDrop` never closes it.
            let file = std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(1) });
            let meta = file.metadata().ok().filter(|m| m.is_file())?;
            usize::try_from(meta.blksize()).ok().filter(|&b| b > 0)
        }
        #[cfg(not(unix))]
        None
    }

    /// Takes in the bytes of one record.
    fn put(&mut self, rec: &[u8]) {
        self.since_emptied = match rec.iter().rposition(|&b| b == b'\n') {
            Some(p) => (rec.len() - p - 1) as u64,
            None => self.since_emptied + rec.len() as u64,
        };
    }

    /// It wrote out all it held (a diagnostic flushes it).
    fn emptied(&mut self) {
        self.since_emptied = 0;
    }

    /// Whether output was put in since it was last emptied: what GNU's
    /// final `fclose` would still have to write.
    fn holds_any(&self) -> bool {
        self.since_emptied > 0
    }

    /// How many bytes at the end of the output a regular file does not get
    /// yet: those put in since the buffer last filled or was emptied (a
    /// full buffer counts as written out; glibc writes it when the next
    /// byte comes).
    fn held_from_file(&self) -> usize {
        // Less than `size`, a `usize`.
        self.size
            .map_or(0, |size| (self.since_emptied % size as u64) as usize)
    }
}

/// Which standard descriptor to write to.
#[derive(Clone, Copy)]
enum Stream {
    Stdout,
    Stderr,
}

/// Writes `data` with as few `write` calls as it takes (one, for at most
/// [`PIPE_BUF`] bytes on a pipe), bypassing Rust's `Stdout` and `Stderr`:
/// the line buffer of `Stdout` would split a `-z` record at a newline
/// inside a name, and both report a write to a descriptor that is not open
/// for writing as a success.
fn write_all(stream: Stream, data: &[u8]) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::fd::FromRawFd;
        let fd = match stream {
            Stream::Stdout => 1,
            Stream::Stderr => 2,
        };
        // SAFETY: descriptors 1 and 2 stay open for the whole run (the
        // runtime reopens a closed one before `main`, and `crate::stdio`
        // only replaces it), and `ManuallyDrop` keeps this `File` from
        // ever closing it.
        let mut file = std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(fd) });
        file.write_all(data)
    }
    #[cfg(not(unix))]
    match stream {
        Stream::Stdout => {
            let mut lock = io::stdout().lock();
            lock.write_all(data).and_then(|()| lock.flush())
        }
        Stream::Stderr => io::stderr().lock().write_all(data),
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
            gnu: GnuBuffer::of_stdout(),
            line_buffered: io::stdout().is_terminal(),
            failed: None,
            stderr_failed: false,
            prog,
            progress,
        }
    }

    fn write_raw(&mut self, data: &[u8]) {
        if self.failed.is_some() {
            return;
        }
        let res = match self.progress {
            Some(p) if self.line_buffered => p.hidden(|| write_all(Stream::Stdout, data)),
            _ => write_all(Stream::Stdout, data),
        };
        if let Err(e) = res {
            // Unless the parent ignored SIGPIPE, a closed pipe ends the
            // process before this point, as it ends GNU md5sum.
            self.failed = Some(e);
        }
    }

    /// Queues one output record (a whole line, terminator included).
    pub fn record(&mut self, rec: &[u8]) {
        if !self.buf.is_empty() && self.buf.len() + rec.len() > PIPE_BUF {
            self.flush();
        }
        self.buf.extend_from_slice(rec);
        self.gnu.put(rec);
        if self.line_buffered || self.buf.len() >= PIPE_BUF {
            self.flush();
        }
    }

    /// Writes out the queued records, but for what GNU md5sum would still
    /// hold in a regular file's buffer.
    pub fn flush(&mut self) {
        let ready = self.buf.len() - self.gnu.held_from_file();
        if ready > 0 {
            let data = std::mem::take(&mut self.buf);
            self.write_raw(&data[..ready]);
            self.buf = data;
            self.buf.drain(..ready);
        }
    }

    /// Writes out every queued record, as GNU's stdout would be flushed.
    fn flush_all(&mut self) {
        self.gnu.emptied();
        self.flush();
    }

    /// Prints `PROG: MSG` on stderr, after flushing stdout.
    pub fn diag(&mut self, msg: &[u8]) {
        let mut line = Vec::with_capacity(self.prog.len() + msg.len() + 3);
        line.extend_from_slice(&self.prog);
        line.extend_from_slice(b": ");
        line.extend_from_slice(msg);
        line.push(b'\n');
        self.stderr(&line);
    }

    /// Prints `text` on stderr as it is, after flushing stdout.
    pub fn stderr(&mut self, text: &[u8]) {
        self.flush_all();
        let write = || write_all(Stream::Stderr, text);
        let res = match self.progress {
            Some(p) => p.hidden(write),
            None => write(),
        };
        self.stderr_failed |= res.is_err();
    }

    /// Flushes stdout; on an earlier or final write failure, reports it as
    /// coreutils' `close_stdout` does. False if stdout or stderr failed,
    /// as `close_stdout` exits 1 for either.
    pub fn finish(&mut self) -> bool {
        let gnu_held_output = self.gnu.holds_any();
        self.flush_all();
        if let Some(e) = self.failed.take() {
            // close_stdout shows an errno only when its final fclose fails:
            // when output was still buffered, or the descriptor was closed
            // from the start. A write that failed earlier leaves errno 0.
            let msg = if gnu_held_output || crate::stdio::was_closed(1) {
                format!("write error: {}", reason(&e))
            } else {
                "write error".to_string()
            };
            self.diag(msg.as_bytes());
            return false;
        }
        !self.stderr_failed
    }
}

impl Drop for Out<'_> {
    /// Writes out what is queued, also when a panic unwinds the run.
    fn drop(&mut self) {
        self.flush_all();
    }
}
