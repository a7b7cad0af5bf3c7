//! Check mode: verifying the files a checksum list names, with GNU md5sum
//! 9.1's per-file lines, warnings and exit status. Parsing the list is
//! `md5sum::check_line`'s; this reads it, hashes what it names through the
//! engine, and keeps one [`Tally`] per list, reported once at its end.

use crate::context::{input_for, Ctx};
use crate::engine::{self, HashError, Step};
use crate::etag::{self, PartSize};
use crate::output::Out;
use crate::{quote, sys};
use md5sum::check_line::{self, Entry, EtagLine, Line, List};
use md5sum::record;
use std::ffi::OsStr;
use std::io::{self, BufRead, BufReader};
use std::sync::atomic::Ordering;

/// Read size of a list in a regular file.
const LIST_READ: usize = 64 * 1024;

/// What one list's entries came to.
#[derive(Default)]
struct Tally {
    misformatted: u64,
    unreadable: u64,
    mismatched: u64,
    /// A line was well formed.
    well_formed: bool,
    /// A listed file matched.
    matched: bool,
    /// Reading the list failed.
    read_error: bool,
}

impl Tally {
    /// Reports the list's warnings as GNU md5sum does; whether the list
    /// passes.
    fn report(&self, o: &crate::args::Opts, qname: &[u8], out: &mut Out<'_>) -> bool {
        let say = |out: &mut Out<'_>, text: &str| {
            let mut msg = qname.to_vec();
            msg.extend_from_slice(text.as_bytes());
            out.diag(&msg);
        };
        if self.read_error {
            say(out, ": read error");
            return false;
        }
        if !self.well_formed {
            say(out, ": no properly formatted checksum lines found");
        } else if !o.status {
            let warn = |out: &mut Out<'_>, n: u64, one: &str, many: &str, what: &str| {
                if n > 0 {
                    let noun = if n == 1 { one } else { many };
                    out.diag(format!("WARNING: {n} {noun} {what}").as_bytes());
                }
            };
            warn(
                out,
                self.misformatted,
                "line is",
                "lines are",
                "improperly formatted",
            );
            warn(
                out,
                self.unreadable,
                "listed file",
                "listed files",
                "could not be read",
            );
            warn(
                out,
                self.mismatched,
                "computed checksum",
                "computed checksums",
                "did NOT match",
            );
            if o.ignore_missing && !self.matched {
                say(out, ": no file was verified");
            }
        }
        self.well_formed
            && self.matched
            && self.mismatched == 0
            && self.unreadable == 0
            && (!o.strict || self.misformatted == 0)
    }
}

/// Standard input when it was closed: every read fails with EBADF.
struct ClosedStdin;

impl io::Read for ClosedStdin {
    fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
        Err(sys::ebadf())
    }
}

/// Opens a checksum list ("-" is standard input). A list that is not a
/// regular file (a pipe, `/dev/stdin` on one) is read as GNU md5sum reads
/// it, through a buffer of the file's block size, so that what a `-`
/// entry then hashes from a shared pipe is what it hashes with GNU's.
fn open_list(file: &OsStr) -> io::Result<Box<dyn BufRead>> {
    if file.as_encoded_bytes() == b"-" {
        engine::READ_STDIN.store(true, Ordering::Relaxed);
        if engine::STDIN_CLOSED.load(Ordering::Relaxed) {
            return Ok(Box::new(BufReader::new(ClosedStdin)));
        }
        return Ok(Box::new(io::stdin().lock()));
    }
    let f = crate::stdio::open(file)?;
    let size = match f.metadata() {
        Ok(m) if !m.is_file() => block_size(&m),
        _ => LIST_READ,
    };
    Ok(Box::new(BufReader::with_capacity(size, f)))
}

/// The block size the C library buffers a stream of this file with.
fn block_size(meta: &std::fs::Metadata) -> usize {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        usize::try_from(meta.blksize()).map_or(4096, |b| b.clamp(512, LIST_READ))
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        4096
    }
}

/// The line GNU md5sum prints for a listed file: its name (escaped only
/// when it holds a newline), then the verdict.
fn verdict(rec: &mut Vec<u8>, name: &[u8], verdict: &[u8]) {
    rec.clear();
    if name.contains(&b'\n') {
        rec.push(b'\\');
        record::escape_into(rec, name);
    } else {
        rec.extend_from_slice(name);
    }
    rec.extend_from_slice(verdict);
}

/// Verifies the files listed in one checksum list; false on any failure
/// that GNU md5sum counts.
pub fn check_list(
    cx: &Ctx<'_>,
    file: &OsStr,
    reversed: &mut check_line::Reversed,
    out: &mut Out<'_>,
) -> bool {
    let o = cx.o;
    let is_stdin = file.as_encoded_bytes() == b"-";
    let shown: &[u8] = if is_stdin {
        b"standard input"
    } else {
        file.as_encoded_bytes()
    };
    let qname = quote::quotef(shown, cx.utf8);
    let reader = match open_list(file) {
        Ok(r) => r,
        Err(e) => {
            cx.file_error(out, file.as_encoded_bytes(), &e);
            return false;
        }
    };
    let mut list = List::new(reader, reversed).etags(o.etag.is_some());
    let to_item = |entry| match entry {
        // A list read from standard input cannot name it.
        Entry::Line(n, l) if is_stdin && l.name == b"-" => (None, Entry::Bad(n)),
        Entry::Etag(n, l) if is_stdin && l.name == b"-" => (None, Entry::Bad(n)),
        Entry::Line(n, l) => (Some(input_for(&l.name)), Entry::Line(n, l)),
        // An ETag without a part count is an MD5, which the engine checks;
        // a multipart one is checked in its turn, by `etag`.
        Entry::Etag(n, l) if l.etag.parts().is_none() => {
            let l = md5_line(l);
            (Some(input_for(&l.name)), Entry::Line(n, l))
        }
        other => (None, other),
    };
    let mut tally = Tally::default();
    let mut rec = Vec::new();
    let mut consume = |step: Step<Entry>| {
        let (entry, r) = match step {
            Step::Idle => return out.flush(),
            Step::Item(entry, r) => (entry, r),
        };
        let (name, checked) = match entry {
            Entry::Bad(n) => {
                tally.misformatted += 1;
                if o.warn {
                    let mut msg = qname.clone();
                    msg.extend_from_slice(
                        format!(": {n}: improperly formatted MD5 checksum line").as_bytes(),
                    );
                    out.diag(&msg);
                }
                return;
            }
            Entry::ReadError => {
                tally.read_error = true;
                return;
            }
            Entry::Line(_, l) => {
                let Some(r) = r else { unreachable!() };
                (l.name, r.map(|d| md5_matches(&d, &l.hex)))
            }
            Entry::Etag(_, l) => {
                out.flush();
                let checked = check_etag(&l, o.etag, cx.engine.jobs);
                (l.name, checked)
            }
        };
        tally.well_formed = true;
        match checked {
            Err(e) if o.ignore_missing && e.at_open && e.err.kind() == io::ErrorKind::NotFound => {}
            Err(e) => {
                tally.unreadable += 1;
                cx.file_error(out, &name, &e.err);
                if !o.status {
                    verdict(&mut rec, &name, b": FAILED open or read\n");
                    out.record(&rec);
                }
            }
            Ok(checked) => {
                let good = checked != Checked::Failed;
                if good {
                    tally.matched = true;
                } else {
                    tally.mismatched += 1;
                }
                if !o.status && (!good || !o.quiet) {
                    let with_part_size;
                    let v: &[u8] = match checked {
                        Checked::Ok => b": OK\n",
                        Checked::Failed => b": FAILED\n",
                        Checked::OkWithPartSize(p) => {
                            with_part_size = format!(": OK (part size {p})\n");
                            with_part_size.as_bytes()
                        }
                    };
                    verdict(&mut rec, &name, v);
                    out.record(&rec);
                }
            }
        }
    };
    // The engine holds the entries it has taken (up to thousands) until
    // it consumes them; an entry that holds a long name ends its run, so
    // that it holds at most one such name, and the next run takes the
    // rest of the list.
    let run = loop {
        let mut long_name = false;
        let items = std::iter::from_fn(|| {
            if long_name {
                return None;
            }
            let entry = list.next()?;
            long_name = name_len(&entry) > check_line::SHORT_MAX;
            Some(entry)
        })
        .map(&to_item);
        let run = engine::run(&cx.engine, items, &mut consume);
        if run.is_err() || !long_name {
            break run;
        }
    };
    run.is_ok() && tally.report(o, &qname, out)
}

/// The bytes of the name an entry holds.
fn name_len(entry: &Entry) -> usize {
    match entry {
        Entry::Line(_, l) => l.name.len(),
        Entry::Etag(_, l) => l.name.len(),
        Entry::Bad(_) | Entry::ReadError => 0,
    }
}

/// What checking a listed file came to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Checked {
    Ok,
    /// `--etag=auto` found the ETag with parts of this many bytes.
    OkWithPartSize(u64),
    Failed,
}

/// Whether a file's MD5 is the hex digits of its line (either case).
fn md5_matches(digest: &[u8; 16], hex: &[u8; 32]) -> Checked {
    let good = record::hex(digest)
        .iter()
        .zip(hex)
        .all(|(a, b)| *a == b.to_ascii_lowercase());
    if good {
        Checked::Ok
    } else {
        Checked::Failed
    }
}

/// An ETag line whose ETag is a plain MD5 (an object uploaded whole), as
/// the MD5 line it amounts to.
fn md5_line(l: EtagLine) -> Line {
    Line {
        hex: record::hex(&l.etag.digest()),
        name: l.name,
        format: l.format,
    }
}

/// Checks the file of a multipart ETag line with the part size of
/// `--etag`, on at most `threads` threads (`-j`).
fn check_etag(l: &EtagLine, size: Option<PartSize>, threads: usize) -> Result<Checked, HashError> {
    let size = size.expect("ETag lines are read only with --etag");
    let found = etag::check_multipart(&input_for(&l.name), &l.etag, size, threads)?;
    Ok(match (found, size) {
        (None, _) => Checked::Failed,
        (Some(_), PartSize::Fixed(_)) => Checked::Ok,
        (Some(p), PartSize::Auto) => Checked::OkWithPartSize(p),
    })
}
