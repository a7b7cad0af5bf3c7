//! Reading into buffers, counting the bytes and looking at the stop flag
//! before each read.

use super::Control;
use std::io::{self, Read};

/// Reads `reader` into `buf` until `buf` is full or the input ends; the
/// bytes read. Each read is counted in `control` and made only if its flag
/// is not set.
///
/// # Errors
///
/// The first read error but [`io::ErrorKind::Interrupted`] (retried), or
/// [`Stopped`](super::Stopped) once the flag is set.
///
/// ```
/// let mut buf = [0u8; 8];
/// let n = md5::files::fill(&mut &b"hello"[..], &mut buf, &md5::files::Control::new())?;
/// assert_eq!(&buf[..n], b"hello");
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn fill(reader: &mut impl Read, buf: &mut [u8], control: &Control<'_>) -> io::Result<usize> {
    fill_until(reader, buf, 0, None, control)
}

/// [`fill`] of a `buf` whose first `filled` bytes are read already, which
/// also stops when exactly `stop_at` bytes are in it: a file's length from
/// its metadata, so that a file read to that length needs no read that
/// returns 0 (a fifth of the system calls of a small file). A file that
/// grew reads on, as a read returns more than was left to `stop_at`.
///
/// # Errors
///
/// As [`fill`].
pub fn fill_until(
    reader: &mut impl Read,
    buf: &mut [u8],
    mut filled: usize,
    stop_at: Option<usize>,
    control: &Control<'_>,
) -> io::Result<usize> {
    while filled < buf.len() && stop_at != Some(filled) {
        control.check()?;
        match reader.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(k) => {
                filled += k;
                control.count(k);
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}
