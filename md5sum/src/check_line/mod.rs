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
//! Lines are read with [`read_line`], which holds each line whole, as GNU
//! md5sum does, up to [`LINE_MAX`] bytes: where GNU's memory runs out
//! (`md5sum -c /dev/zero`) it stops reading the list there.
//!
//! One file a step: `read` (bounded lines), `scan` (what both parsers
//! read a line with), `md5_line`, `etag_line`, and `list`, which puts
//! them together.

mod etag_line;
mod list;
mod md5_line;
mod read;
mod scan;

pub use etag_line::{parse_etag, EtagLine};
pub use list::{Entry, List};
pub use md5_line::{parse, Format, Line, Reversed};
pub use read::{read_line, read_line_within, Read, LINE_MAX, SHORT_MAX};
pub use scan::unescape;
