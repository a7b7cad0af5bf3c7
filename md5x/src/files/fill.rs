//! Reading into buffers, counting the bytes and looking at the stop flag
//! before each read.

use super::{Control, SMALL_MAX};
use std::io::{self, Read};
use std::vec::Vec;

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
/// let n = md5x::files::fill(&mut &b"hello"[..], &mut buf, &md5x::files::Control::new())?;
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

/// A buffer for the whole of a file `len` bytes long, and one byte more
/// (to see that it grew), if memory for it can be had.
pub(super) fn buffer_for(len: u64) -> Option<Vec<u8>> {
    let n = usize::try_from(len).ok()?.checked_add(1)?;
    let mut data = Vec::new();
    data.try_reserve_exact(n).ok()?;
    data.resize(n, 0);
    Some(data)
}

/// Reads the whole of a file into `data` (made by [`buffer_for`]), and
/// any bytes it has gained since, with reads as large as the file.
pub(super) fn read_whole(
    file: &mut impl Read,
    mut data: Vec<u8>,
    control: &Control<'_>,
) -> io::Result<Vec<u8>> {
    let mut n = fill(file, &mut data, control)?;
    while n == data.len() {
        data.resize(n.saturating_add(SMALL_MAX), 0);
        n += fill(file, &mut data[n..], control)?;
    }
    data.truncate(n);
    Ok(data)
}
