//! `md5sum`: print or check MD5 checksums, with the interface, output bytes,
//! messages and exit codes of GNU coreutils md5sum 9.x, hashing files in
//! parallel with the md-5 crate's fastest backends.

#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks)]

mod args;
mod check;
mod engine;
mod output;
mod progress;
mod quote;
mod stdio;

use engine::{Input, Step};
use output::{reason, Out};
use progress::Progress;
use std::ffi::{OsStr, OsString};
use std::io::{self, BufRead, BufReader, IsTerminal};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

fn help(prog: &str) -> String {
    format!(
        "\
Usage: {prog} [OPTION]... [FILE]...
Print or check MD5 (128-bit) checksums.

With no FILE, or when FILE is -, read standard input.
  -b, --binary          read in binary mode
  -c, --check           read checksums from the FILEs and check them
      --tag             create a BSD-style checksum
  -t, --text            read in text mode (default)
  -z, --zero            end each output line with NUL, not newline,
                          and disable file name escaping
  -j, --jobs=N          hash with N threads (default: one per CPU, at most
                          256, reading files on a rotational disk one at a
                          time); 1 reads and hashes one file after another

The following five options are useful only when verifying checksums:
      --ignore-missing  don't fail or report status for missing files
      --quiet           don't print OK for each successfully verified file
      --status          don't output anything, status code shows success
      --strict          exit non-zero for improperly formatted checksum lines
  -w, --warn            warn about improperly formatted checksum lines

      --help        display this help and exit
      --version     output version information and exit

The sums are computed as described in RFC 1321.
When checking, the input should be a former output of this program.
The default mode is to print a line with: checksum, a space,
a character indicating input mode ('*' for binary, ' ' for text
or where binary is insignificant), and name for each FILE.

Note: binary mode and text mode read files the same way.{PLATFORM_NOTE}
"
    )
}

/// What --help adds where this md5sum differs from GNU's build there.
#[cfg(windows)]
const PLATFORM_NOTE: &str = "
On Windows binary mode is the default, as in GNU's Windows builds, but text
mode (-t) does not translate CR-LF line ends as theirs does: it only marks
the name with ' ' instead of '*'. Error messages are Windows' own.";
#[cfg(all(not(windows), not(target_os = "linux")))]
const PLATFORM_NOTE: &str = "
-j: files on rotational disks are read side by side here (that rule needs
Linux's sysfs).";
#[cfg(target_os = "linux")]
const PLATFORM_NOTE: &str = "";

fn version() -> String {
    format!(
        "\
md5sum (md-5) {}
MD5 backends: {} (one stream), {} with {} lanes (many streams)
License MIT OR Apache-2.0.
This is free software: you are free to change and redistribute it.
There is NO WARRANTY, to the extent permitted by law.
",
        env!("CARGO_PKG_VERSION"),
        md5::backend(),
        md5::multi::backend(),
        md5::multi::lanes(),
    )
}

fn hex(d: &[u8; 16]) -> [u8; 32] {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = [0u8; 32];
    for (i, b) in d.iter().enumerate() {
        out[2 * i] = DIGITS[usize::from(b >> 4)];
        out[2 * i + 1] = DIGITS[usize::from(b & 15)];
    }
    out
}

fn input_for(name: &[u8]) -> Input {
    if name == b"-" {
        Input::Stdin
    } else {
        Input::Path(path_from_bytes(name))
    }
}

/// A file name as bytes (for a name from the command line, as the
/// platform gives it: its bytes on Unix, UTF-8 on Windows) back to a path.
fn path_from_bytes(name: &[u8]) -> PathBuf {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        PathBuf::from(OsStr::from_bytes(name))
    }
    #[cfg(not(unix))]
    {
        // A name that is not UTF-8 names no Windows file; the lossy one
        // fails to open as it should.
        PathBuf::from(String::from_utf8_lossy(name).into_owned())
    }
}

/// Whether a name is printed as read in binary mode. Without `-b` or `-t`,
/// GNU md5sum's builds for Windows (where the C library translates line
/// ends in text mode) read in binary mode, standard input too unless it
/// is a terminal; elsewhere text mode is the default, and the same bytes
/// are read in either mode.
fn binary_mode(explicit: Option<bool>, name: &[u8]) -> bool {
    explicit.unwrap_or(cfg!(windows) && !(name == b"-" && io::stdin().is_terminal()))
}

/// Settings shared by both modes.
struct Ctx<'a> {
    o: &'a args::Opts,
    engine: engine::Config<'a>,
    utf8: bool,
}

impl Ctx<'_> {
    fn file_error(&self, out: &mut Out<'_>, name: &[u8], e: &io::Error) {
        let mut msg = quote::quotef(name, self.utf8);
        msg.extend_from_slice(b": ");
        msg.extend_from_slice(reason(e).as_bytes());
        out.diag(&msg);
    }
}

/// Prints one checksum line per file; false if any file failed.
fn hash_mode(cx: &Ctx<'_>, files: &[OsString], out: &mut Out<'_>) -> bool {
    let o = cx.o;
    let mut ok = true;
    let items = files
        .iter()
        .map(|f| (Some(input_for(f.as_encoded_bytes())), f.as_encoded_bytes()));
    let mut rec = Vec::new();
    let run = engine::run(&cx.engine, items, |step: Step<&[u8]>| {
        let (name, r) = match step {
            Step::Idle => return out.flush(),
            Step::Item(name, Some(r)) => (name, r),
            Step::Item(_, None) => return,
        };
        match r {
            Ok(d) => {
                rec.clear();
                let escape = !o.zero && quote::problematic(name);
                if escape {
                    rec.push(b'\\');
                }
                let put_name = |rec: &mut Vec<u8>| {
                    if escape {
                        quote::escape_into(rec, name);
                    } else {
                        rec.extend_from_slice(name);
                    }
                };
                if o.tag {
                    rec.extend_from_slice(b"MD5 (");
                    put_name(&mut rec);
                    rec.extend_from_slice(b") = ");
                    rec.extend_from_slice(&hex(&d));
                } else {
                    rec.extend_from_slice(&hex(&d));
                    rec.push(b' ');
                    rec.push(if binary_mode(o.binary, name) {
                        b'*'
                    } else {
                        b' '
                    });
                    put_name(&mut rec);
                }
                rec.push(if o.zero { 0 } else { b'\n' });
                out.record(&rec);
            }
            Err(e) => {
                ok = false;
                cx.file_error(out, name, &e.err);
            }
        }
    });
    ok && run.is_ok()
}

/// Standard input when it was closed: every read fails with EBADF.
struct ClosedStdin;

impl io::Read for ClosedStdin {
    fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
        Err(output::ebadf())
    }
}

/// One line of a checksum file, in order.
enum Item {
    File(check::Line),
    Bad(u64),
    ReadError,
}

/// Verifies the files listed in one checksum file; false on any failure
/// that GNU md5sum counts.
fn check_file(
    cx: &Ctx<'_>,
    file: &OsStr,
    reversed: &mut check::Reversed,
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
    let stdin = io::stdin();
    let mut reader: Box<dyn BufRead> = if is_stdin {
        engine::READ_STDIN.store(true, Ordering::Relaxed);
        if engine::STDIN_CLOSED.load(Ordering::Relaxed) {
            Box::new(BufReader::new(ClosedStdin))
        } else {
            Box::new(stdin.lock())
        }
    } else {
        match stdio::open(file) {
            Ok(f) => Box::new(BufReader::with_capacity(64 * 1024, f)),
            Err(e) => {
                cx.file_error(out, file.as_encoded_bytes(), &e);
                return false;
            }
        }
    };
    let mut line_no = 0u64;
    let mut buf = Vec::new();
    let mut done = false;
    let items = std::iter::from_fn(|| loop {
        if done {
            return None;
        }
        line_no += 1;
        let line = match check::read_line(&mut reader, &mut buf) {
            Ok(check::Read::Line) => &buf[..],
            Ok(check::Read::Eof) | Ok(check::Read::Endless) => {
                done = true;
                continue;
            }
            Ok(check::Read::TooLong(first)) => {
                if first == b'#' {
                    continue;
                }
                return Some((None, Item::Bad(line_no)));
            }
            Err(_) => {
                done = true;
                return Some((None, Item::ReadError));
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
        return Some(match check::parse(&line[..len], reversed) {
            Some(l) if !(is_stdin && l.name == b"-") => (Some(input_for(&l.name)), Item::File(l)),
            _ => (None, Item::Bad(line_no)),
        });
    });

    let (mut misformatted, mut unreadable, mut mismatched) = (0u64, 0u64, 0u64);
    let (mut well_formed, mut matched, mut read_error) = (false, false, false);
    let mut rec = Vec::new();
    let run = engine::run(&cx.engine, items, |step: Step<Item>| {
        let (item, r) = match step {
            Step::Idle => return out.flush(),
            Step::Item(item, r) => (item, r),
        };
        let line = match item {
            Item::Bad(n) => {
                misformatted += 1;
                if o.warn {
                    let mut msg = qname.clone();
                    msg.extend_from_slice(
                        format!(": {n}: improperly formatted MD5 checksum line").as_bytes(),
                    );
                    out.diag(&msg);
                }
                return;
            }
            Item::ReadError => {
                read_error = true;
                return;
            }
            Item::File(l) => l,
        };
        well_formed = true;
        let Some(r) = r else { unreachable!() };
        // Only a name with a newline is escaped here, as in GNU md5sum.
        let escape = !o.status && line.name.contains(&b'\n');
        rec.clear();
        if escape {
            rec.push(b'\\');
            quote::escape_into(&mut rec, &line.name);
        } else {
            rec.extend_from_slice(&line.name);
        }
        match r {
            Err(e) if o.ignore_missing && e.at_open && e.err.kind() == io::ErrorKind::NotFound => {}
            Err(e) => {
                unreadable += 1;
                cx.file_error(out, &line.name, &e.err);
                if !o.status {
                    rec.extend_from_slice(b": FAILED open or read\n");
                    out.record(&rec);
                }
            }
            Ok(d) => {
                let good = hex(&d)
                    .iter()
                    .zip(line.hex.iter())
                    .all(|(a, b)| *a == b.to_ascii_lowercase());
                if good {
                    matched = true;
                } else {
                    mismatched += 1;
                }
                if !o.status && (!good || !o.quiet) {
                    rec.extend_from_slice(if good { b": OK\n" } else { b": FAILED\n" });
                    out.record(&rec);
                }
            }
        }
    });
    if run.is_err() {
        return false;
    }

    let say = |out: &mut Out<'_>, text: &str| {
        let mut msg = qname.clone();
        msg.extend_from_slice(text.as_bytes());
        out.diag(&msg);
    };
    if read_error {
        say(out, ": read error");
        return false;
    }
    if !well_formed {
        say(out, ": no properly formatted checksum lines found");
    } else if !o.status {
        let plural = |n: u64, one: &str, many: &str| {
            format!("WARNING: {n} {}", if n == 1 { one } else { many })
        };
        if misformatted > 0 {
            let m = plural(misformatted, "line is", "lines are");
            out.diag(format!("{m} improperly formatted").as_bytes());
        }
        if unreadable > 0 {
            let m = plural(unreadable, "listed file", "listed files");
            out.diag(format!("{m} could not be read").as_bytes());
        }
        if mismatched > 0 {
            let m = plural(mismatched, "computed checksum", "computed checksums");
            out.diag(format!("{m} did NOT match").as_bytes());
        }
        if o.ignore_missing && !matched {
            say(out, ": no file was verified");
        }
    }
    well_formed && matched && mismatched == 0 && unreadable == 0 && (!o.strict || misformatted == 0)
}

fn run(o: args::Opts, prog: Vec<u8>) -> i32 {
    let files = if o.files.is_empty() {
        vec![OsString::from("-")]
    } else {
        o.files.clone()
    };
    // More threads than this would only add memory (each keeps about 3 MiB
    // of buffers) and file descriptors.
    const MAX_JOBS: usize = 256;
    let jobs = o
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .min(MAX_JOBS);
    let progress = io::stderr().is_terminal().then(Progress::new);
    let no_progress = AtomicU64::new(0);
    // With the default -j, files on a rotational disk are read one at a
    // time: reading many at once would make its head seek between them.
    let sysfs = (o.jobs.is_none() && cfg!(target_os = "linux")).then(|| Path::new("/sys"));
    let cx = Ctx {
        o: &o,
        engine: engine::Config::new(
            jobs,
            sysfs,
            progress.as_ref().map_or(&no_progress, |p| &p.bytes),
        ),
        utf8: quote::utf8_locale(),
    };
    std::thread::scope(|s| {
        // Stops the progress line however the run ends, so that the scope
        // never waits for its thread forever.
        struct StopDrawing<'p, 's>(
            Option<&'p Progress>,
            Option<std::thread::ScopedJoinHandle<'s, ()>>,
        );
        impl Drop for StopDrawing<'_, '_> {
            fn drop(&mut self) {
                if let Some(p) = self.0 {
                    p.finish();
                }
                if let Some(d) = &self.1 {
                    d.thread().unpark();
                }
            }
        }
        let drawer = progress.as_ref().and_then(|p| {
            let (check, files) = (o.check, &files);
            // Without a thread for it, there is no progress line.
            std::thread::Builder::new()
                .spawn_scoped(s, move || {
                    p.run(|| {
                        (!check).then(|| {
                            files
                                .iter()
                                .filter(|f| f.as_encoded_bytes() != b"-")
                                .filter_map(|f| std::fs::metadata(f).ok())
                                .filter(|m| m.is_file())
                                .map(|m| m.len())
                                .sum()
                        })
                    })
                })
                .ok()
        });
        let stop_drawing = StopDrawing(progress.as_ref(), drawer);
        let mut out = Out::new(prog, progress.as_ref());
        engine::STDIN_CLOSED.store(stdio::stdin_unreadable(), Ordering::Relaxed);
        let ok = if o.check {
            let mut reversed = None;
            let mut ok = true;
            for f in &files {
                ok &= check_file(&cx, f, &mut reversed, &mut out);
            }
            ok
        } else {
            hash_mode(&cx, &files, &mut out)
        };
        drop(stop_drawing);
        // coreutils closes standard input at the end when it read it; that
        // fails only when it was closed to begin with.
        let ok = if engine::READ_STDIN.load(Ordering::Relaxed) && stdio::was_closed(0) {
            out.diag(format!("standard input: {}", reason(&output::ebadf())).as_bytes());
            false
        } else {
            ok
        };
        let ok = out.finish() && ok;
        i32::from(!ok)
    })
}

fn main() {
    stdio::init();
    engine::limit_malloc_arenas();
    let mut argv = std::env::args_os();
    let prog = argv
        .next()
        .map_or_else(|| b"md5sum".to_vec(), OsString::into_encoded_bytes);
    let posixly_correct = std::env::var_os("POSIXLY_CORRECT").is_some();
    let parsed = args::parse(argv.collect(), posixly_correct).and_then(|p| {
        if let args::Parsed::Run(o) = &p {
            args::validate(o)?;
        }
        Ok(p)
    });
    let prog_str = String::from_utf8_lossy(&prog).into_owned();
    let code = match parsed {
        Err(args::UsageError(msg)) => {
            let mut out = Out::new(prog, None);
            out.diag(&msg);
            out.stderr(format!("Try '{prog_str} --help' for more information.\n").as_bytes());
            1
        }
        Ok(args::Parsed::Help) => {
            let mut out = Out::new(prog, None);
            out.record(help(&prog_str).as_bytes());
            i32::from(!out.finish())
        }
        Ok(args::Parsed::Version) => {
            let mut out = Out::new(prog, None);
            out.record(version().as_bytes());
            i32::from(!out.finish())
        }
        Ok(args::Parsed::Run(o)) => run(o, prog),
    };
    std::process::exit(code);
}
