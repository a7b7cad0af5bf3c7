//! A checksum list, entry by entry: each line's ending removed (`\n`,
//! then one `\r`), empty lines and `#` comments skipped, the rest parsed.

use super::etag_line::{parse_etag, EtagLine};
use super::md5_line::{parse, Line, Reversed};
use super::read::{read_line_within, Read, LINE_MAX, SHORT_MAX};
use std::io::BufRead;

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
    short: usize,
    max: u64,
    etags: bool,
}

impl<'r, R: BufRead> List<'r, R> {
    /// A list whose lines decide the reversed-BSD question in `reversed`,
    /// which later lists share.
    pub fn new(reader: R, reversed: &'r mut Reversed) -> Self {
        Self::with_bounds(reader, reversed, SHORT_MAX, LINE_MAX)
    }

    /// [`List::new`] with other bounds, as in [`read_line_within`].
    pub fn with_bounds(reader: R, reversed: &'r mut Reversed, short: usize, max: u64) -> Self {
        List {
            reader,
            reversed,
            buf: Vec::new(),
            line_no: 0,
            done: false,
            short,
            max,
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
            let got = read_line_within(&mut self.reader, &mut self.buf, self.short, self.max);
            let line = match got {
                Ok(Read::Line) => &self.buf[..],
                Ok(Read::Eof) | Ok(Read::Endless) => {
                    self.done = true;
                    continue;
                }
                Ok(Read::LongComment) => continue,
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
    use crate::check_line::md5_line::Format;
    use md5x::etag::Etag;

    const H: &str = "9dd4e461268c8034f5c8564e155c67a6";

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

    /// Only a list that reads them takes ETag lines; GNU's verdict
    /// otherwise.
    #[test]
    fn etag_entries_only_when_asked() {
        let e3 = format!("{H}-3");
        let list = format!("{e3}  a\n{H}  b\n");
        let mut r = None;
        let got: Vec<Entry> = List::new(list.as_bytes(), &mut r).collect();
        assert!(matches!(got[..], [Entry::Bad(1), Entry::Line(2, _)]));
        let mut r = None;
        let got: Vec<Entry> = List::new(list.as_bytes(), &mut r).etags(true).collect();
        assert!(
            matches!(&got[..], [Entry::Etag(1, e), Entry::Line(2, _)] if *e == EtagLine {
                etag: e3.parse::<Etag>().unwrap(),
                name: b"a".to_vec(),
                format: Format::Text,
            })
        );
    }
}
