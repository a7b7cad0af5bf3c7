//! md5sum's checksum-list parser (`md5sum::check_line`) over arbitrary
//! lists, read through buffers of every size from 1 byte up and starting
//! in each reversed-BSD state: it never panics, reads at most one entry
//! per byte of input (no endless loop), never holds more of a line than
//! its bound, and every line it accepts, written back out by md5sum's own
//! line writer (`md5sum::record`), parses to the same digest, name and
//! format. (A reversed-BSD line, which md5sum never writes, is written as
//! a text line and comes back as one; an empty name in a text line, which
//! it cannot write, is left out.)
//!
//! Read again with ETag lines (`--etag`), the list gives the same entries
//! but that some improperly formatted lines are ETag lines: each one's
//! ETag is in the line as written (hex digits in either case), and it
//! round-trips through md5sum's ETag line writer too.
#![no_main]

use libfuzzer_sys::fuzz_target;
use md5sum::check_line::{Entry, EtagLine, Format, Line, List};
use md5sum::record::{write_etag_line, write_line, Style};
use std::io::BufReader;

/// The line bounds, small so that the fuzzer reaches them.
const SHORT: usize = 300;
const MAX: u64 = 5000;

fn nibble(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        b'A'..=b'F' => c - b'A' + 10,
        _ => panic!("the parser accepted a non-hex digit {c:#x}"),
    }
}

fn digest(hex: &[u8; 32]) -> [u8; 16] {
    let mut d = [0u8; 16];
    for (i, b) in d.iter_mut().enumerate() {
        *b = nibble(hex[2 * i]) << 4 | nibble(hex[2 * i + 1]);
    }
    d
}

/// Writes `line` as md5sum writes lines, and parses it back.
fn round_trip(line: &Line) {
    let (style, format) = match line.format {
        Format::Text | Format::Reversed => (Style::Text, Format::Text),
        Format::Binary => (Style::Binary, Format::Binary),
        Format::Tag => (Style::Tag, Format::Tag),
    };
    let d = digest(&line.hex);
    let mut written = Vec::new();
    write_line(&mut written, &d, &line.name, style, false);
    let mut reversed = None;
    let mut again = List::new(&written[..], &mut reversed);
    match again.next() {
        Some(Entry::Line(1, back)) => {
            assert_eq!(digest(&back.hex), d, "{written:?}");
            assert_eq!(back.name, line.name, "{written:?}");
            assert_eq!(back.format, format, "{written:?}");
        }
        other => panic!("{written:?} of {line:?} parses as {other:?}"),
    }
    assert_eq!(again.next(), None, "{written:?} is one line");
}

/// Writes an ETag line as md5sum writes them, and parses it back.
fn round_trip_etag(line: &EtagLine) {
    let style = match line.format {
        Format::Binary => Style::Binary,
        Format::Tag => Style::Tag,
        _ => Style::Text,
    };
    let mut written = Vec::new();
    write_etag_line(&mut written, &line.etag, &line.name, style, false);
    let mut reversed = None;
    let mut again = List::new(&written[..], &mut reversed).etags(true);
    match again.next() {
        Some(Entry::Etag(1, back)) => assert_eq!(&back, line, "{written:?}"),
        // An ETag without a part count, outside the `ETag (NAME)` form, is
        // written as a plain MD5 line.
        Some(Entry::Line(1, back)) if line.etag.parts().is_none() && style != Style::Tag => {
            assert_eq!(back.name, line.name, "{written:?}");
            assert_eq!(digest(&back.hex), line.etag.digest(), "{written:?}");
        }
        other => panic!("{written:?} of {line:?} parses as {other:?}"),
    }
    assert_eq!(again.next(), None, "{written:?} is one line");
}

/// The entries of `list`, asserting the reader's bounds as it goes.
fn entries(list: &[u8], reversed: &mut Option<bool>, capacity: usize, etags: bool) -> Vec<Entry> {
    let mut entries = List::with_bounds(
        BufReader::with_capacity(capacity, list),
        reversed,
        SHORT,
        MAX,
    )
    .etags(etags);
    let mut got = Vec::new();
    while let Some(entry) = entries.next() {
        assert!(got.len() < list.len(), "more entries than bytes");
        let held = entries.buffer();
        assert!(
            held.len() as u64 <= MAX,
            "held {} bytes of a line",
            held.len()
        );
        assert!(
            held.capacity() <= (2 * (SHORT + 1) + capacity).max(MAX as usize + 1),
            "a buffer of {}",
            held.capacity()
        );
        got.push(entry);
    }
    got
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, list)) = data.split_first() else {
        return;
    };
    let reversed = [None, Some(false), Some(true)][usize::from(sel % 3)];
    let capacity = 1 + usize::from(sel / 3) * 7;
    let (mut plain_rev, mut etag_rev) = (reversed, reversed);
    let plain = entries(list, &mut plain_rev, capacity, false);
    let with_etags = entries(list, &mut etag_rev, capacity, true);
    assert_eq!(
        plain_rev, etag_rev,
        "ETag lines decide no reversed-BSD question"
    );
    assert_eq!(plain.len(), with_etags.len());
    let text = String::from_utf8_lossy(list).to_ascii_lowercase();
    for (entry, other) in plain.iter().zip(&with_etags) {
        match (entry, other) {
            (Entry::Bad(n), Entry::Etag(m, line)) => {
                assert_eq!(n, m);
                assert!(text.contains(&line.etag.to_string()), "{line:?}");
                // As for a text line, an empty name is left out.
                if !line.name.is_empty() || line.format == Format::Tag {
                    round_trip_etag(line);
                }
            }
            _ => assert_eq!(
                entry, other,
                "--etag changed a line that is not an ETag line"
            ),
        }
        match entry {
            // A text line whose name ends at once in a NUL (`HASH  \0x`)
            // names "" as GNU's does; no file has that name, and md5sum
            // never writes it.
            Entry::Line(_, line) if line.name.is_empty() && line.format != Format::Tag => {}
            Entry::Line(_, line) => round_trip(line),
            _ => {}
        }
    }
});
