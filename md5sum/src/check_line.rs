//! Parsing one line of a checksum file, accepting exactly what GNU md5sum
//! 9.1 accepts:
//! - `HASH  NAME` (text) and `HASH *NAME` (binary), the hash in either
//!   case, leading blanks allowed;
//! - BSD `MD5 (NAME) = HASH`, with optional blanks around `=` and an
//!   optional space before `(`;
//! - "reversed BSD" `HASH NAME` (one blank, from BSD's `md5 -r`), which
//!   a process cannot mix with the standard format: the first line that
//!   decides the question decides it for the rest of the run;
//! - a leading `\` marks a name escaped with `\\`, `\n` and `\r`.
//!
//! With `--etag` (and only then: GNU's md5sum calls them improperly
//! formatted), a line that is none of these may be an S3 ETag line, as
//! `md5sum --etag` writes them ([`parse_etag`]).
//!
//! A list is read entry by entry with [`List`]: it removes each line's
//! ending (`\n`, then one `\r`), skips empty lines and `#` comments, and
//! parses the rest with [`parse`].
//!
//! Lines are read with [`read_line`], which holds at most [`HOLD`] bytes of
//! one: GNU md5sum holds a line whole whatever its length, and where memory
//! runs out (`md5sum -c /dev/zero`) it stops reading the list there.

use md5::etag::Etag;
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

/// A well-formed line: the expected hash (32 hex digits, either case),
/// the file name, unescaped, and the line's format.
#[derive(Debug, PartialEq, Eq)]
pub struct Line {
    pub hex: [u8; 32],
    pub name: Vec<u8>,
    pub format: Format,
}

/// How a line was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `HASH  NAME`.
    Text,
    /// `HASH *NAME`.
    Binary,
    /// `MD5 (NAME) = HASH`.
    Tag,
    /// `HASH NAME` (BSD's `md5 -r`).
    Reversed,
}

/// Whether standard and reversed-BSD lines were seen: `None` until a line
/// decides, then `Some(true)` for reversed BSD.
pub type Reversed = Option<bool>;

fn white(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// The line reads as a C string would: a NUL at or past its end.
fn at(s: &[u8], i: usize) -> u8 {
    s.get(i).copied().unwrap_or(0)
}

/// Exactly 32 hex digits at `s[i..]`, then the end of the string.
fn hex_at(s: &[u8], i: usize) -> Option<[u8; 32]> {
    let mut hex = [0u8; 32];
    for (k, h) in hex.iter_mut().enumerate() {
        let c = at(s, i + k);
        if !c.is_ascii_hexdigit() {
            return None;
        }
        *h = c;
    }
    (at(s, i + 32) == 0).then_some(hex)
}

/// Undoes the escaping of a name; `None` for a stray or unknown escape or
/// a NUL byte.
pub fn unescape(s: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len());
    let mut it = s.iter();
    while let Some(&b) = it.next() {
        match b {
            b'\\' => out.push(match it.next()? {
                b'n' => b'\n',
                b'r' => b'\r',
                b'\\' => b'\\',
                _ => return None,
            }),
            0 => return None,
            _ => out.push(b),
        }
    }
    Some(out)
}

/// The name up to its first NUL, as C code would see it.
fn c_str(s: &[u8]) -> Vec<u8> {
    s.split(|&b| b == 0).next().unwrap_or_default().to_vec()
}

/// Where a line's content starts, past its leading blanks and the `\\`
/// that marks an escaped name, and whether there was one.
fn content_start(s: &[u8]) -> (usize, bool) {
    let mut i = 0;
    while white(at(s, i)) {
        i += 1;
    }
    let escaped = at(s, i) == b'\\';
    (i + usize::from(escaped), escaped)
}

/// Parses one line; `None` if it is improperly formatted.
pub fn parse(s: &[u8], reversed: &mut Reversed) -> Option<Line> {
    let (mut i, escaped) = content_start(s);
    if s[i.min(s.len())..].starts_with(b"MD5") {
        i += 3;
        if at(s, i) == b' ' {
            i += 1;
        }
        if at(s, i) != b'(' {
            return None;
        }
        return parse_bsd(&s[i + 1..], escaped);
    }
    // The hash, a blank and at least one character of name (one more if
    // the name starts with a backslash).
    if s.len().saturating_sub(i) < 34 + usize::from(at(s, i) == b'\\') {
        return None;
    }
    let hex_start = i;
    i += 32;
    if !white(at(s, i)) {
        return None;
    }
    i += 1;
    let hex = {
        let mut h = [0u8; 32];
        h.copy_from_slice(&s[hex_start..hex_start + 32]);
        if !h.iter().all(u8::is_ascii_hexdigit) {
            return None;
        }
        h
    };
    let format;
    if s.len() - i == 1 || (at(s, i) != b' ' && at(s, i) != b'*') {
        if *reversed == Some(false) {
            return None;
        }
        *reversed = Some(true);
        format = Format::Reversed;
    } else if *reversed != Some(true) {
        *reversed = Some(false);
        format = if at(s, i) == b'*' {
            Format::Binary
        } else {
            Format::Text
        };
        i += 1; // the ' ' or '*' mode character
    } else {
        format = Format::Reversed;
    }
    let name = &s[i..];
    let name = if escaped {
        unescape(name)?
    } else {
        c_str(name)
    };
    Some(Line { hex, name, format })
}

/// Parses what follows `MD5 (` in a BSD line.
fn parse_bsd(s: &[u8], escaped: bool) -> Option<Line> {
    let close = s.iter().rposition(|&b| b == b')')?;
    let name = if escaped {
        unescape(&s[..close])?
    } else {
        c_str(&s[..close])
    };
    let mut i = close + 1;
    while white(at(s, i)) {
        i += 1;
    }
    if at(s, i) != b'=' {
        return None;
    }
    i += 1;
    while white(at(s, i)) {
        i += 1;
    }
    let hex = hex_at(s, i)?;
    Some(Line {
        hex,
        name,
        format: Format::Tag,
    })
}

/// A well-formed ETag line: the ETag S3 shows, the file name, unescaped,
/// and the line's format ([`Format::Text`], [`Format::Binary`] or
/// [`Format::Tag`]).
#[derive(Debug, PartialEq, Eq)]
pub struct EtagLine {
    pub etag: Etag,
    pub name: Vec<u8>,
    pub format: Format,
}

/// Parses an ETag line: `ETAG  NAME`, `ETAG *NAME` or `ETag (NAME) =
/// ETAG`, with GNU's leading blanks and `\` for an escaped name. ETAG is
/// S3's form, `<32 hex>-<N>` or, in the `ETag (NAME)` form, the 32 hex
/// digits alone, either one with or without the double quotes S3 returns
/// ([`Etag`]'s `FromStr`). An unquoted digest alone before the name is
/// [`parse`]'s, never this: `None`.
pub fn parse_etag(s: &[u8]) -> Option<EtagLine> {
    let (i, escaped) = content_start(s);
    let s = &s[i.min(s.len())..];
    let name_of = |raw: &[u8]| {
        if escaped {
            unescape(raw)
        } else {
            Some(c_str(raw))
        }
    };
    if let Some(rest) = s.strip_prefix(b"ETag (") {
        let close = rest.iter().rposition(|&b| b == b')')?;
        let etag = etag_value(rest[close + 1..].strip_prefix(b" = ")?, true)?;
        return Some(EtagLine {
            etag,
            name: name_of(&rest[..close])?,
            format: Format::Tag,
        });
    }
    let end = s.iter().position(|&b| white(b))?;
    let etag = etag_value(&s[..end], false)?;
    let format = match at(s, end + 1) {
        b' ' => Format::Text,
        b'*' => Format::Binary,
        _ => return None,
    };
    let raw = &s[end + 2..];
    if raw.is_empty() {
        return None;
    }
    Some(EtagLine {
        etag,
        name: name_of(raw)?,
        format,
    })
}

/// An ETag as a line gives it; a plain unquoted digest only if `plain`.
fn etag_value(v: &[u8], plain: bool) -> Option<Etag> {
    let etag: Etag = std::str::from_utf8(v).ok()?.parse().ok()?;
    (plain || etag.parts().is_some() || v.first() == Some(&b'"')).then_some(etag)
}

/// One entry of a checksum list, in order.
#[derive(Debug, PartialEq, Eq)]
pub enum Entry {
    /// A well-formed line, with its number.
    Line(u64, Line),
    /// A well-formed ETag line, with its number (only from a list that
    /// reads them: [`List::etags`]).
    Etag(u64, EtagLine),
    /// An improperly formatted line, by its number.
    Bad(u64),
    /// Reading the list failed; it ends here.
    ReadError,
}

/// The entries of a checksum list, read from `reader` one line at a time
/// (never further ahead than the line asked for).
pub struct List<'r, R> {
    reader: R,
    reversed: &'r mut Reversed,
    buf: Vec<u8>,
    line_no: u64,
    done: bool,
    hold: usize,
    skip_max: u64,
    etags: bool,
}

impl<'r, R: BufRead> List<'r, R> {
    /// A list whose lines decide the reversed-BSD question in `reversed`,
    /// which later lists share.
    pub fn new(reader: R, reversed: &'r mut Reversed) -> Self {
        Self::with_bounds(reader, reversed, HOLD, SKIP_MAX)
    }

    /// [`List::new`] with other bounds, as in [`read_line_within`].
    pub fn with_bounds(reader: R, reversed: &'r mut Reversed, hold: usize, skip_max: u64) -> Self {
        List {
            reader,
            reversed,
            buf: Vec::new(),
            line_no: 0,
            done: false,
            hold,
            skip_max,
            etags: false,
        }
    }

    /// Whether lines that only [`parse_etag`] accepts are ETag entries
    /// (`--etag`) rather than improperly formatted ones (GNU's md5sum).
    pub fn etags(mut self, on: bool) -> Self {
        self.etags = on;
        self
    }

    /// The buffer the last line was read into (for bounds checks).
    pub fn buffer(&self) -> &Vec<u8> {
        &self.buf
    }
}

impl<R: BufRead> Iterator for List<'_, R> {
    type Item = Entry;

    fn next(&mut self) -> Option<Entry> {
        loop {
            if self.done {
                return None;
            }
            self.line_no += 1;
            let got = read_line_within(&mut self.reader, &mut self.buf, self.hold, self.skip_max);
            let line = match got {
                Ok(Read::Line) => &self.buf[..],
                Ok(Read::Eof) | Ok(Read::Endless) => {
                    self.done = true;
                    continue;
                }
                Ok(Read::TooLong(b'#')) => continue,
                Ok(Read::TooLong(_)) => return Some(Entry::Bad(self.line_no)),
                Err(_) => {
                    self.done = true;
                    return Some(Entry::ReadError);
                }
            };
            if line[0] == b'#' {
                continue;
            }
            let mut len = line.len();
            if line[len - 1] == b'\n' {
                len -= 1;
            }
            if len > 0 && line[len - 1] == b'\r' {
                len -= 1;
            }
            if len == 0 {
                continue;
            }
            let line = &line[..len];
            return Some(match parse(line, self.reversed) {
                Some(l) => Entry::Line(self.line_no, l),
                None => match parse_etag(line).filter(|_| self.etags) {
                    Some(l) => Entry::Etag(self.line_no, l),
                    None => Entry::Bad(self.line_no),
                },
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: &str = "9dd4e461268c8034f5c8564e155c67a6";

    fn p(line: &str, rev: &mut Reversed) -> Option<(String, String)> {
        parse(line.as_bytes(), rev).map(|l| {
            (
                String::from_utf8(l.hex.to_vec()).unwrap(),
                String::from_utf8(l.name).unwrap(),
            )
        })
    }

    fn ok(hex: &str, name: &str) -> Option<(String, String)> {
        Some((hex.into(), name.into()))
    }

    #[test]
    fn formats() {
        let mut r = None;
        assert_eq!(p(&format!("{H}  a"), &mut r), ok(H, "a"));
        assert_eq!(p(&format!("  {H} *a b "), &mut r), ok(H, "a b "));
        assert_eq!(p(&format!("MD5 (a) = {H}"), &mut r), ok(H, "a"));
        assert_eq!(p(&format!("MD5(x (1)) ={H}"), &mut r), ok(H, "x (1)"));
        assert_eq!(p(&format!("MD5 (a) = {H} "), &mut r), None);
        assert_eq!(p(&format!("MD5  (a) = {H}"), &mut r), None);
        assert_eq!(
            p(&format!("\\{H}  a\\nb\\\\c\\rd"), &mut r),
            ok(H, "a\nb\\c\rd")
        );
        assert_eq!(p(&format!("\\{H}  a\\tb"), &mut r), None);
        assert_eq!(p(&format!("\\{H}  a\\"), &mut r), None);
        assert_eq!(p(&format!("\\MD5 (a\\\\b) = {H}"), &mut r), ok(H, "a\\b"));
        let upper = H.to_uppercase();
        assert_eq!(p(&format!("{upper}  a"), &mut r), ok(&upper, "a"));
        assert_eq!(p(&format!("{}  a", &H[1..]), &mut r), None);
        assert_eq!(p(&format!("{H}x  a"), &mut r), None);
        assert_eq!(p("garbage", &mut r), None);
        assert_eq!(p(&format!("{H}  a\0b"), &mut r), ok(H, "a"));
        // Standard lines were seen, so a reversed one is refused.
        assert_eq!(p(&format!("{H} a"), &mut r), None);
    }

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

    #[test]
    fn lists_entry_by_entry() {
        let list = format!("# c\n{H}  a\r\n\n{H} *b\nbad\nMD5 (c) = {H}\n{H} d\n");
        let mut r = None;
        let got: Vec<Entry> = List::new(list.as_bytes(), &mut r).collect();
        let line = |name: &str, format| Line {
            hex: H.as_bytes().try_into().unwrap(),
            name: name.into(),
            format,
        };
        assert_eq!(
            got,
            [
                Entry::Line(2, line("a", Format::Text)),
                Entry::Line(4, line("b", Format::Binary)),
                Entry::Bad(5),
                Entry::Line(6, line("c", Format::Tag)),
                // Standard lines were seen: a reversed one is refused.
                Entry::Bad(7),
            ]
        );
        let mut r = None;
        let got: Vec<Entry> = List::new(format!("{H} d\n").as_bytes(), &mut r).collect();
        assert_eq!(got, [Entry::Line(1, line("d", Format::Reversed))]);
    }

    #[test]
    fn etag_lines() {
        let etag = |s: &str| s.parse::<Etag>().unwrap();
        let l = |e: &str, name: &str, format| {
            Some(EtagLine {
                etag: etag(e),
                name: name.into(),
                format,
            })
        };
        let e3 = format!("{H}-3");
        let pe = |s: String| parse_etag(s.as_bytes());
        assert_eq!(pe(format!("{e3}  a b")), l(&e3, "a b", Format::Text));
        assert_eq!(pe(format!(" \t\"{e3}\" *a")), l(&e3, "a", Format::Binary));
        assert_eq!(pe(format!("\"{H}\"  a")), l(H, "a", Format::Text));
        assert_eq!(pe(format!("\\{e3}  a\\nb")), l(&e3, "a\nb", Format::Text));
        assert_eq!(
            pe(format!("ETag (x (1)) = {e3}")),
            l(&e3, "x (1)", Format::Tag)
        );
        assert_eq!(pe(format!("ETag (x) = \"{H}\"")), l(H, "x", Format::Tag));
        assert_eq!(pe(format!("ETag (x) = {H}")), l(H, "x", Format::Tag));
        assert_eq!(
            pe(format!("\\ETag (a\\\\) = {e3}")),
            l(&e3, "a\\", Format::Tag)
        );
        for bad in [
            format!("{H}  a"),
            format!("{e3}  "),
            format!("{e3} a"),
            format!("{e3}-  a"),
            format!("{H}-0  a"),
            format!("\"{e3}  a"),
            format!("ETag (x) = {e3} "),
            format!("ETag (x) ={e3}"),
            format!("\\{e3}  a\\t"),
            "garbage".into(),
        ] {
            assert_eq!(pe(bad.clone()), None, "{bad}");
        }
        // Only a list that reads them takes them; GNU's verdict otherwise.
        let list = format!("{e3}  a\n{H}  b\n");
        let mut r = None;
        let got: Vec<Entry> = List::new(list.as_bytes(), &mut r).collect();
        assert!(matches!(got[..], [Entry::Bad(1), Entry::Line(2, _)]));
        let mut r = None;
        let got: Vec<Entry> = List::new(list.as_bytes(), &mut r).etags(true).collect();
        assert!(
            matches!(&got[..], [Entry::Etag(1, e), Entry::Line(2, _)] if *e == l(&e3, "a", Format::Text).unwrap())
        );
    }

    #[test]
    fn reversed_bsd_sticks() {
        let mut r = None;
        assert_eq!(p(&format!("{H} a"), &mut r), ok(H, "a"));
        assert_eq!(r, Some(true));
        assert_eq!(p(&format!("{H}  a"), &mut r), ok(H, " a"));
        assert_eq!(p(&format!("{H}\tb"), &mut r), ok(H, "b"));
    }
}
