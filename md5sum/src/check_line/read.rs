//! Reading a list line by line, each line whole, as GNU md5sum reads it:
//! GNU holds a line whatever its length, and where memory runs out
//! (`md5sum -c /dev/zero`) it stops reading the list there.

use std::io::{self, BufRead, Read as _};

/// The longest short line. A longer line is held all the same, up to
/// [`LINE_MAX`], but grown with allocations that may fail (then the list
/// ends there, as GNU's does where it cannot allocate the line), and a
/// long comment line is skipped without being held.
pub const SHORT_MAX: usize = 256 * 1024;
/// The longest line held. Past it (a line of a gigabyte) the list is taken
/// to be no checksum list, and reading it stops there without counting the
/// line, as GNU md5sum's reading stops when it cannot allocate the line.
pub const LINE_MAX: u64 = 1 << 30;

/// What [`read_line`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum Read {
    /// A line is in the buffer, with its `\n` if it has one.
    Line,
    /// End of input.
    Eof,
    /// A comment line (its first byte `#`) longer than [`SHORT_MAX`] was
    /// skipped.
    LongComment,
    /// A line longer than [`LINE_MAX`], or one that memory could not
    /// hold: stop reading.
    Endless,
}

/// Reads the next line into `buf` (replacing its contents), whole.
pub fn read_line<R: BufRead>(r: &mut R, buf: &mut Vec<u8>) -> io::Result<Read> {
    read_line_within(r, buf, SHORT_MAX, LINE_MAX)
}

/// [`read_line`] with other bounds: lines longer than `short` are long
/// (see [`SHORT_MAX`]), and one longer than `max` ends the list.
pub fn read_line_within<R: BufRead>(
    r: &mut R,
    buf: &mut Vec<u8>,
    short: usize,
    max: u64,
) -> io::Result<Read> {
    buf.clear();
    // What a long line took is given back.
    buf.shrink_to(2 * (short + 1));
    // `read_until` finds the newline with the C library's memchr.
    let n = r.by_ref().take(short as u64 + 1).read_until(b'\n', buf)?;
    if n == 0 {
        return Ok(Read::Eof);
    }
    if n <= short || buf.last() == Some(&b'\n') {
        return Ok(Read::Line);
    }
    if buf[0] == b'#' {
        return skip_rest(r, buf, n as u64, max);
    }
    loop {
        let avail = match r.fill_buf() {
            Ok(avail) => avail,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if avail.is_empty() {
            return Ok(Read::Line);
        }
        let (take, ended) = match avail.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (avail.len(), false),
        };
        if (buf.len() + take) as u64 > max || reserve(buf, take, max).is_err() {
            buf.clear();
            return Ok(Read::Endless);
        }
        buf.extend_from_slice(&avail[..take]);
        r.consume(take);
        if ended {
            return Ok(Read::Line);
        }
    }
}

/// Room in `buf` for `more` bytes, doubling its capacity up to `max + 1`
/// bytes; an error if the allocation fails.
fn reserve(
    buf: &mut Vec<u8>,
    more: usize,
    max: u64,
) -> Result<(), std::collections::TryReserveError> {
    let need = buf.len() + more;
    if need <= buf.capacity() {
        return Ok(());
    }
    let cap = usize::try_from(max.saturating_add(1)).unwrap_or(usize::MAX);
    let want = need
        .max(buf.capacity().saturating_mul(2))
        .min(cap.max(need));
    buf.try_reserve_exact(want - buf.len())
}

/// Skips the rest of a line of which `taken` bytes were read; `Endless` if
/// it passes `max`.
fn skip_rest<R: BufRead>(r: &mut R, buf: &mut Vec<u8>, taken: u64, max: u64) -> io::Result<Read> {
    let mut total = taken;
    loop {
        buf.clear();
        // In pieces no larger than the buffer already holds.
        let piece = buf.capacity().max(1) as u64;
        let k = r.by_ref().take(piece).read_until(b'\n', buf)?;
        total += k as u64;
        if total > max {
            buf.clear();
            return Ok(Read::Endless);
        }
        if k == 0 || buf.last() == Some(&b'\n') {
            buf.clear();
            return Ok(Read::LongComment);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_held_whole_up_to_a_bound() {
        let data =
            b"ab\n#xxxxxxxxxxxxx\nyyyyyyyyy\nyyyyyyyyyyyyyyy\ncd\nzzzzzzzzzzzzzzzzzzzzzzz\nef";
        let mut r = io::BufReader::with_capacity(4, &data[..]);
        let mut buf = Vec::new();
        let mut next = || {
            let k = read_line_within(&mut r, &mut buf, 8, 16).unwrap();
            (k, String::from_utf8(buf.clone()).unwrap())
        };
        assert_eq!(next(), (Read::Line, "ab\n".into()));
        assert_eq!(next(), (Read::LongComment, String::new()));
        assert_eq!(next(), (Read::Line, "yyyyyyyyy\n".into()));
        // Long: 16 bytes with its newline, the most held.
        assert_eq!(next(), (Read::Line, "yyyyyyyyyyyyyyy\n".into()));
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
        // A long last line without a newline.
        let mut r = io::BufReader::with_capacity(3, &b"123456789abc"[..]);
        assert_eq!(
            read_line_within(&mut r, &mut buf, 8, 16).unwrap(),
            Read::Line
        );
        assert_eq!(buf, b"123456789abc");
        // One past the most: the list ends.
        let mut r = io::BufReader::with_capacity(5, &b"0123456789abcdefg\nx\n"[..]);
        assert_eq!(
            read_line_within(&mut r, &mut buf, 8, 16).unwrap(),
            Read::Endless
        );
        // The memory a long line took is given back at the next line.
        let list = [&vec![b'a'; 100_000][..], b"\nshort\n"].concat();
        let mut r = io::BufReader::new(&list[..]);
        assert_eq!(
            read_line_within(&mut r, &mut buf, 8, 1 << 20).unwrap(),
            Read::Line
        );
        assert_eq!(buf.len(), 100_001);
        assert_eq!(
            read_line_within(&mut r, &mut buf, 8, 1 << 20).unwrap(),
            Read::Line
        );
        assert_eq!(buf, b"short\n");
        assert!(buf.capacity() <= 18, "{}", buf.capacity());
    }
}
