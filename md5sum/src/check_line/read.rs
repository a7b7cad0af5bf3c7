//! Reading a list line by line, holding at most [`HOLD`] bytes of one:
//! GNU md5sum holds a line whole whatever its length, and where memory
//! runs out (`md5sum -c /dev/zero`) it stops reading the list there.

use std::io::{self, BufRead, Read as _};

/// The longest line held. A longer one is improperly formatted: no valid
/// line is this long (a name that can be opened is at most `PATH_MAX` bytes,
/// 4096 on Linux, or 32767 UTF-16 units on Windows, which escaping at most
/// doubles).
pub const HOLD: usize = 256 * 1024;
/// The longest line skipped. Past it (a line of a gigabyte) the list is
/// taken to be no checksum list, and reading it stops there without
/// counting the line, as GNU md5sum's reading stops when it cannot
/// allocate the line.
pub const SKIP_MAX: u64 = 1 << 30;

/// What [`read_line`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum Read {
    /// A line is in the buffer, with its `\n` if it has one.
    Line,
    /// End of input.
    Eof,
    /// A line longer than [`HOLD`] was skipped; its first byte.
    TooLong(u8),
    /// A line longer than [`SKIP_MAX`]: stop reading.
    Endless,
}

/// Reads the next line into `buf` (replacing its contents), holding at
/// most [`HOLD`] bytes.
pub fn read_line<R: BufRead>(r: &mut R, buf: &mut Vec<u8>) -> io::Result<Read> {
    read_line_within(r, buf, HOLD, SKIP_MAX)
}

/// [`read_line`] with other bounds: lines longer than `hold` are skipped,
/// and one longer than `skip_max` ends the list.
pub fn read_line_within<R: BufRead>(
    r: &mut R,
    buf: &mut Vec<u8>,
    hold: usize,
    skip_max: u64,
) -> io::Result<Read> {
    buf.clear();
    // `read_until` finds the newline with the C library's memchr.
    let n = r.by_ref().take(hold as u64 + 1).read_until(b'\n', buf)?;
    if n == 0 {
        return Ok(Read::Eof);
    }
    if n <= hold {
        return Ok(Read::Line);
    }
    let first = buf[0];
    let mut total = n as u64;
    let mut ended = buf.last() == Some(&b'\n');
    while !ended {
        buf.clear();
        // In pieces no larger than a held line.
        let k = r.by_ref().take(hold as u64 + 1).read_until(b'\n', buf)?;
        total += k as u64;
        ended = k == 0 || buf.last() == Some(&b'\n');
        if total > skip_max {
            buf.clear();
            return Ok(Read::Endless);
        }
    }
    buf.clear();
    Ok(Read::TooLong(first))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_held_up_to_a_bound() {
        let data = b"ab\n#xxxxxxx\nyyyyyyyy\ncd\nzzzzzzzzzzzzzzzzzzzzzzz\nef";
        let mut r = io::BufReader::with_capacity(4, &data[..]);
        let mut buf = Vec::new();
        let mut next = || {
            let k = read_line_within(&mut r, &mut buf, 8, 16).unwrap();
            (k, String::from_utf8(buf.clone()).unwrap())
        };
        assert_eq!(next(), (Read::Line, "ab\n".into()));
        assert_eq!(next(), (Read::TooLong(b'#'), String::new()));
        assert_eq!(next(), (Read::TooLong(b'y'), String::new()));
        assert_eq!(next(), (Read::Line, "cd\n".into()));
        assert_eq!(next(), (Read::Endless, String::new()));
        let mut r = io::BufReader::with_capacity(4, &b"12345678"[..]);
        assert_eq!(
            read_line_within(&mut r, &mut buf, 8, 16).unwrap(),
            Read::Line
        );
        assert_eq!(buf, b"12345678");
        assert_eq!(
            read_line_within(&mut r, &mut buf, 8, 16).unwrap(),
            Read::Eof
        );
    }
}
