//! Reading for the ETags of files: positional reads, for each OS, and
//! reading a stream in order.

use core::fmt;
use std::{fs::File, io, vec};

/// A file read at offsets, from several threads at once: a [`File`], and
/// in tests sources of their own.
pub(super) trait Positional: Sync {
    /// Reads into `buf` from `offset`, as `pread` does: the bytes read, 0
    /// at the end.
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize>;

    /// Asks the OS to read `len` bytes from `offset` ahead of the reads (a
    /// hint only).
    fn will_need(&self, offset: u64, len: u64);
}

impl Positional for File {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        read_at(self, buf, offset)
    }

    fn will_need(&self, offset: u64, len: u64) {
        crate::cache_hints::will_need(self, offset, len);
    }
}

/// The error inside the [`io::Error`] of a file that does not end at the
/// length its metadata gave: one the kernel sizes wrongly (sysfs gives
/// 4096 for files of a few bytes), or one that changed size while being
/// read.
#[derive(Debug)]
pub(super) enum WrongLength {
    /// It ended at this byte, before that length.
    EndedAt(u64),
    /// It goes on past this length.
    GoesOnPast(u64),
}

impl WrongLength {
    /// Whether `err` holds a [`WrongLength`].
    pub(super) fn is(err: &io::Error) -> bool {
        err.get_ref().is_some_and(|e| e.is::<WrongLength>())
    }
}

impl fmt::Display for WrongLength {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WrongLength::EndedAt(offset) => write!(
                f,
                "the file ended at byte {offset}, before the length its metadata gave: \
                 it shrank while being read"
            ),
            WrongLength::GoesOnPast(len) => write!(
                f,
                "the file goes on past the {len} bytes its metadata gave: it grew while \
                 being read, or its metadata does not give its length"
            ),
        }
    }
}

impl std::error::Error for WrongLength {}

/// Bytes a read asks for where a stream is read in order.
const STREAM_READ: usize = 256 << 10;

/// Feeds all of `src` to `each`, a read at a time, retrying interrupted
/// reads.
pub(super) fn for_each_read(
    mut src: impl io::Read,
    mut each: impl FnMut(&[u8]) -> io::Result<()>,
) -> io::Result<()> {
    let mut buf = vec![0u8; STREAM_READ];
    loop {
        match src.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => each(&buf[..n])?,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// Fills `buf` from `offset`, or fails with `UnexpectedEof` and
/// [`WrongLength`] inside where the file ends first.
pub(super) fn read_exact_at(
    file: &impl Positional,
    mut buf: &mut [u8],
    mut offset: u64,
) -> io::Result<()> {
    while !buf.is_empty() {
        match file.read_at(buf, offset) {
            Ok(0) => {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    WrongLength::EndedAt(offset),
                ))
            }
            Ok(n) => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Fails with `InvalidData` and [`WrongLength`] inside if the file goes on
/// past `len`, the length it was hashed to.
pub(super) fn check_end(file: &impl Positional, len: u64) -> io::Result<()> {
    let mut byte = [0u8];
    loop {
        match file.read_at(&mut byte, len) {
            Ok(0) => return Ok(()),
            Ok(_) => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    WrongLength::GoesOnPast(len),
                ))
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, offset)
}

#[cfg(windows)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(file, buf, offset)
}

/// Elsewhere (WASI, whose positional reads are unstable in std): a seek and
/// a read, which move the file's cursor. Only one thread reads.
#[cfg(not(any(unix, windows)))]
fn read_at(mut file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    use std::io::{Read, Seek};
    file.seek(io::SeekFrom::Start(offset))?;
    file.read(buf)
}
