//! Reading into buffers: filling one from a file (counting the bytes for
//! the progress line), and reading a whole file into memory.

use super::claim::SMALL_MAX;
use super::fds::Opened;
use std::io::{self, Read};
use std::sync::atomic::{AtomicU64, Ordering};

/// Reads `r` into `buf` until `buf` is full or end of input; adds what it
/// read to `bytes`.
pub fn fill(r: &mut impl Read, buf: &mut [u8], bytes: &AtomicU64) -> io::Result<usize> {
    fill_until(r, buf, 0, None, bytes)
}

/// Goes on filling `buf` from `r`, which has filled `buf[..n]`, until it
/// is full, the input ends, or exactly `stop_at` bytes are in it.
pub fn fill_until(
    r: &mut impl Read,
    buf: &mut [u8],
    mut n: usize,
    stop_at: Option<usize>,
    bytes: &AtomicU64,
) -> io::Result<usize> {
    while n < buf.len() && stop_at != Some(n) {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => {
                n += k;
                bytes.fetch_add(k as u64, Ordering::Relaxed);
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// A buffer for the whole of a file `len` bytes long, and one byte more
/// (to see that it grew), if memory for it can be had.
pub fn buffer_for(len: u64) -> Option<Vec<u8>> {
    let n = usize::try_from(len).ok()?.checked_add(1)?;
    let mut data = Vec::new();
    data.try_reserve_exact(n).ok()?;
    data.resize(n, 0);
    Some(data)
}

/// Reads the whole of a file into `data` (made by [`buffer_for`]), and
/// any bytes it has gained since, with reads as large as the file.
pub fn read_whole(file: &mut Opened, mut data: Vec<u8>, bytes: &AtomicU64) -> io::Result<Vec<u8>> {
    let mut n = fill(file, &mut data, bytes)?;
    while n == data.len() {
        data.resize(n + SMALL_MAX, 0);
        n += fill(file, &mut data[n..], bytes)?;
    }
    data.truncate(n);
    Ok(data)
}
