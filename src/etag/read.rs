//! Reading for the ETags of files: positional reads, for each OS, and
//! reading a stream in order.

use std::{fs::File, io, vec};

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
