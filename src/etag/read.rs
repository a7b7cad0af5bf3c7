//! Positional reads of a file, and read-ahead hints, for each OS.

use std::{fs::File, io};

/// Fills `buf` from `offset`, or fails with `UnexpectedEof` where the file
/// ends first.
pub(super) fn read_exact_at(file: &File, mut buf: &mut [u8], mut offset: u64) -> io::Result<()> {
    while !buf.is_empty() {
        match read_at(file, buf, offset) {
            Ok(0) => {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    std::format!(
                        "the file ended at byte {offset}, before the length its metadata \
                         gave: it shrank while being read"
                    ),
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

/// Fails if the file goes on past `len`, the length it was hashed to.
pub(super) fn check_end(file: &File, len: u64) -> io::Result<()> {
    let mut byte = [0u8];
    loop {
        match read_at(file, &mut byte, len) {
            Ok(0) => return Ok(()),
            Ok(_) => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    std::format!(
                        "the file goes on past the {len} bytes its metadata gave: it grew \
                         while being read, or its metadata does not give its length"
                    ),
                ))
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// Asks the OS to start reading `len` bytes at `offset` into the page
/// cache (`posix_fadvise(POSIX_FADV_WILLNEED)`, which returns without
/// waiting for the disk). Only a hint: errors are ignored. On 64-bit Linux,
/// where `off_t` is 64 bits in every C library.
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
pub(super) fn will_need(file: &File, offset: u64, len: u64) {
    use std::os::fd::AsRawFd;
    use std::os::raw::c_int;
    extern "C" {
        fn posix_fadvise(fd: c_int, offset: i64, len: i64, advice: c_int) -> c_int;
    }
    const POSIX_FADV_WILLNEED: c_int = 3;
    let (Ok(offset), Ok(len)) = (i64::try_from(offset), i64::try_from(len)) else {
        return;
    };
    // SAFETY: `posix_fadvise` only reads its integer arguments; the
    // descriptor is open for as long as `file` is borrowed.
    let _ = unsafe { posix_fadvise(file.as_raw_fd(), offset, len, POSIX_FADV_WILLNEED) };
}

#[cfg(not(all(target_os = "linux", target_pointer_width = "64")))]
pub(super) fn will_need(_file: &File, _offset: u64, _len: u64) {}

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
