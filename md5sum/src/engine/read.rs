//! Reading a whole file into memory, for a spinning disk's turn.

use super::fds::Opened;
use md5x::files::{fill, Control, SMALL_MAX};
use std::io;

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
pub fn read_whole(
    file: &mut Opened,
    mut data: Vec<u8>,
    control: &Control<'_>,
) -> io::Result<Vec<u8>> {
    let mut n = fill(file, &mut data, control)?;
    while n == data.len() {
        data.resize(n + SMALL_MAX, 0);
        n += fill(file, &mut data[n..], control)?;
    }
    data.truncate(n);
    Ok(data)
}
