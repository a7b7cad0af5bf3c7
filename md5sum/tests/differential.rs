//! md5sum against GNU md5sum on generated cases: each case is a command
//! line (GNU's options in every spelling, odd names, special files, check
//! lists), a state of the standard descriptors and SIGPIPE, and an
//! environment. Both programs run it with argv[0] = md5sum in one fixture
//! directory; stdout, stderr and the exit status must be identical, byte
//! for byte. Ours also gets a random `-j`, which must change nothing.
//!
//! It runs for `MD5SUM_DIFF_SECS` seconds (default 10), case after case
//! from `MD5SUM_DIFF_SEED` (default 1); `MD5SUM_DIFF_CASE=N` runs case N
//! alone, as a reproducer says. It prints how many cases it compared; on
//! a difference, a reproducer for the first few and how many differed by
//! class. Without GNU md5sum it says so and passes.
//!
//! Among them: a standard output that is a file the case also names, and
//! check lists read from a standard input pipe with an entry that reads
//! the same pipe (`-`, `/dev/stdin`).
#![cfg(target_os = "linux")]

mod common;

use common::*;
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fmt::Write as _;
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The file a `Sink::File` output goes to.
const OUT: &str = "out";

/// The fixture's regular files: odd names, sizes on both sides of the
/// engine's small-file limit (64 KiB).
const FILES: &[(&[u8], usize)] = &[
    (b"f", 3),
    (b"empty", 0),
    (b"with space", 5),
    (b"back\\slash", 3),
    (b"new\nline", 3),
    (b"cr\rname", 1),
    (b"tab\tname", 3),
    (b"it's", 3),
    (b"dq\"x", 1),
    (b"bad\xffutf8", 3),
    ("\u{e9}".as_bytes(), 1),
    (b"-dash", 3),
    (b"a:b", 1),
    (b"~x", 2),
    (b"#x", 2),
    (b"$HOME", 4),
    (b"x'\x01", 1),
    (b"\x01'\x01", 3),
    (b"*star", 1),
    (b" lead", 2),
    (b"mid", 70_000),
    (b"big", 300_000),
];

/// Names that are not regular files of the fixture.
const OTHER_NAMES: &[&[u8]] = &[
    b"nope",
    b"dir",
    b"loop",
    b"link",
    b"f/x",
    b"",
    b"-",
    b"/dev/null",
    b"/dev/stdin",
    b"/proc/self/fd/0",
    b"/dev/fd/0",
    b"/proc/version",
];

/// Pieces of made-up names, for quoting.
const PIECES: &[&[u8]] = &[
    b"a",
    b"'",
    b" ",
    b"\x01",
    b"\n",
    b"\xff",
    b":",
    b"\\",
    "\u{e9}".as_bytes(),
];

/// GNU md5sum's long options, in its table's order, and the short ones.
const LONG: &[&str] = &[
    "check",
    "ignore-missing",
    "quiet",
    "status",
    "warn",
    "strict",
    "tag",
    "zero",
    "binary",
    "text",
    "help",
    "version",
];

/// Where standard input comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Source {
    /// A pipe that the case's input bytes are written to.
    Pipe,
    Closed,
    /// `/dev/null` opened read-only, read-write, write-only.
    Null,
    NullReadWrite,
    NullWriteOnly,
    /// The fixture's file `f`.
    File,
}

/// Where standard output or standard error goes.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Sink {
    /// A pipe that the test reads.
    Pipe,
    Closed,
    Full,
    /// `/dev/null` opened write-only, read-write, read-only.
    Null,
    NullReadWrite,
    NullReadOnly,
    /// A pipe whose reader is gone before md5sum starts.
    Broken,
    /// The fixture's file `out`, emptied first (`> out`), which the case
    /// may also name; what it holds afterwards is the output.
    File,
}

#[derive(Clone, Debug)]
struct Case {
    args: Vec<Vec<u8>>,
    /// Ours only, first: `-j` in some spelling.
    jobs: Option<Vec<u8>>,
    input: Vec<u8>,
    stdin: Source,
    stdout: Sink,
    stderr: Sink,
    sigpipe_ignored: bool,
    posixly_correct: bool,
    locale: &'static str,
    /// Check lists to write into the fixture first: name, contents.
    lists: Vec<(Vec<u8>, Vec<u8>)>,
    /// The names in operands and check lists.
    names: Vec<Vec<u8>>,
}

#[derive(Debug, PartialEq)]
struct Outcome {
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    /// "exit N", "signal N" or "timeout".
    status: String,
}

struct Fixture {
    dir: TempDir,
    /// Each regular file's name and digest.
    files: Vec<(Vec<u8>, String)>,
}

fn fixture() -> Fixture {
    let dir = TempDir::new();
    let mut files = Vec::new();
    for (i, &(name, len)) in FILES.iter().enumerate() {
        let data = noise(len, i as u64 + 1);
        dir.file(OsStr::from_bytes(name), &data);
        files.push((name.to_vec(), md5_hex(&data)));
    }
    std::fs::create_dir(dir.path().join("dir")).unwrap();
    std::os::unix::fs::symlink("loop", dir.path().join("loop")).unwrap();
    std::os::unix::fs::symlink("f", dir.path().join("link")).unwrap();
    Fixture { dir, files }
}

/// A name for an operand or a check-list entry.
fn name(rng: &mut Rng, fx: &Fixture, case: &Case) -> Vec<u8> {
    match rng.below(10) {
        0..=4 => rng.pick(&fx.files).0.clone(),
        5..=6 => rng.pick(OTHER_NAMES).to_vec(),
        7 => (0..1 + rng.below(4))
            .flat_map(|_| rng.pick(PIECES).to_vec())
            .collect(),
        // Names for standard output and standard error, where reading them
        // gives the same bytes every time (not a pipe, not /dev/full).
        8 if matches!(
            case.stdout,
            Sink::Closed | Sink::Null | Sink::NullReadWrite | Sink::NullReadOnly
        ) =>
        {
            rng.pick(&[&b"/dev/stdout"[..], b"/proc/self/fd/1"])
                .to_vec()
        }
        // The output file, read while it is written.
        8 if case.stdout == Sink::File => rng
            .pick(&[&b"out"[..], b"./out", b"/dev/stdout", b"/proc/self/fd/1"])
            .to_vec(),
        8 if matches!(case.stderr, Sink::Closed | Sink::Null | Sink::NullReadOnly) => {
            b"/dev/stderr".to_vec()
        }
        _ => b"f".to_vec(),
    }
}

/// A name as a check line writes it where the line starts with `\`.
fn escaped(name: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for &b in name {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            _ => out.push(b),
        }
    }
    out
}

/// A check list of well-formed, wrong and malformed lines.
fn check_list(rng: &mut Rng, fx: &Fixture, case: &mut Case) -> Vec<u8> {
    let mut list = Vec::new();
    for _ in 0..rng.below(8) {
        let entry = name(rng, fx, case);
        case.names.push(entry.clone());
        let mut hex = fx
            .files
            .iter()
            .find(|f| f.0 == entry)
            .map_or(EMPTY.to_string(), |f| f.1.clone());
        match rng.below(8) {
            0 => hex = hex.to_uppercase(),
            1 => hex.replace_range(..1, if hex.starts_with('0') { "1" } else { "0" }),
            2 => hex.truncate(rng.below(32)),
            _ => {}
        }
        // Escaped as md5sum writes it, but now and then not.
        let mut line = Vec::new();
        let mut name = entry.clone();
        if entry.iter().any(|&b| matches!(b, b'\\' | b'\n' | b'\r')) && !rng.one_in(5) {
            line.push(b'\\');
            name = escaped(&entry);
        }
        match rng.below(12) {
            0..=5 => {
                line.extend_from_slice(hex.as_bytes());
                line.extend_from_slice(if rng.one_in(3) { b" *" } else { b"  " });
                line.extend_from_slice(&name);
            }
            6..=7 => {
                line.extend_from_slice(b"MD5 (");
                line.extend_from_slice(&name);
                line.extend_from_slice(b") = ");
                line.extend_from_slice(hex.as_bytes());
            }
            8 => {
                line.extend_from_slice(hex.as_bytes());
                line.push(b' ');
                line.extend_from_slice(&name);
            }
            9 => {
                line = rng
                    .pick(&[
                        &b"# comment"[..],
                        b"",
                        b"garbage line",
                        b"  \t",
                        b"MD5 (",
                        b"x\0y",
                    ])
                    .to_vec()
            }
            10 => {
                line.splice(0..0, rng.pick(&[&b" "[..], b"\t", b"  "]).iter().copied());
                line.extend_from_slice(hex.as_bytes());
                line.extend_from_slice(b"  ");
                line.extend_from_slice(&name);
            }
            _ => {
                line.extend_from_slice(hex.as_bytes());
                line.extend_from_slice(b"  ");
                line.extend_from_slice(&name);
                let tail = rng.pick::<&[u8]>(&[b" ", b"\0", b"\r"]);
                line.extend_from_slice(tail);
                // The name that md5sum reads then ends with the blank or
                // the CR.
                case.names.push([&entry[..], tail].concat());
            }
        }
        list.extend_from_slice(&line);
        list.extend_from_slice(rng.pick::<&[u8]>(&[b"\n", b"\n", b"\n", b"\r\n"]));
    }
    if rng.one_in(4) && list.ends_with(b"\n") {
        list.pop();
    }
    list
}

/// GNU's option `long` in some spelling: whole, or a prefix that only it
/// has, sometimes with a value it refuses.
fn long_option(rng: &mut Rng, long: &str) -> Vec<u8> {
    let unique = (1..=long.len())
        .find(|&n| LONG.iter().filter(|o| o.starts_with(&long[..n])).count() == 1)
        .unwrap();
    let len = unique + rng.below(long.len() - unique + 1);
    let mut opt = format!("--{}", &long[..len]).into_bytes();
    if rng.one_in(30) {
        opt.extend_from_slice(b"=1");
    }
    opt
}

/// The short option for `long`, if it has one.
fn short(long: &str) -> Option<u8> {
    Some(match long {
        "binary" => b'b',
        "check" => b'c',
        "text" => b't',
        "warn" => b'w',
        "zero" => b'z',
        _ => return None,
    })
}

fn options(rng: &mut Rng, check: bool) -> Vec<Vec<u8>> {
    let wanted: &[&str] = if check {
        &[
            "check",
            "quiet",
            "status",
            "warn",
            "strict",
            "ignore-missing",
        ]
    } else {
        &["binary", "text", "tag", "zero"]
    };
    let mut chosen: Vec<&str> = wanted.iter().copied().filter(|_| rng.one_in(3)).collect();
    if check && !chosen.contains(&"check") {
        chosen.push("check");
    }
    // Now and then an option of the other mode, or a bad one.
    if rng.one_in(8) {
        chosen.push(*rng.pick(LONG));
    }
    let mut opts = Vec::new();
    let mut cluster: Vec<u8> = Vec::new();
    for o in chosen {
        match short(o) {
            Some(c) if rng.one_in(2) => {
                if cluster.is_empty() || rng.one_in(3) {
                    if !cluster.is_empty() {
                        opts.push(std::mem::take(&mut cluster));
                    }
                    cluster.push(b'-');
                }
                cluster.push(c);
            }
            _ => opts.push(long_option(rng, o)),
        }
    }
    if !cluster.is_empty() {
        opts.push(cluster);
    }
    if rng.one_in(15) {
        let bad: &[&[u8]] = &[
            b"-x", b"--foo", b"--s", b"--st", b"--t", b"--=", b"-bcx", b"--bin=", b"-",
        ];
        opts.push(rng.pick(bad).to_vec());
    }
    opts
}

/// `plain` in `weight` picks of `weight + others.len()`, else one of
/// `others`.
fn mostly<T: Copy>(rng: &mut Rng, plain: T, weight: usize, others: &[T]) -> T {
    match rng.below(weight + others.len()) {
        i if i < weight => plain,
        i => others[i - weight],
    }
}

fn generate(rng: &mut Rng, fx: &Fixture) -> Case {
    let stdin = mostly(
        rng,
        Source::Pipe,
        3,
        &[
            Source::Closed,
            Source::Null,
            Source::NullReadWrite,
            Source::NullWriteOnly,
            Source::File,
        ],
    );
    let mut case = Case {
        args: Vec::new(),
        jobs: rng.one_in(2).then(|| {
            rng.pick(&[&b"-j1"[..], b"-j2", b"-j8", b"--jobs=3", b"--j=1"])
                .to_vec()
        }),
        input: Vec::new(),
        stdin,
        stdout: mostly(
            rng,
            Sink::Pipe,
            4,
            &[
                Sink::Closed,
                Sink::Full,
                Sink::Null,
                Sink::NullReadWrite,
                Sink::NullReadOnly,
                Sink::Broken,
                Sink::File,
            ],
        ),
        stderr: mostly(
            rng,
            Sink::Pipe,
            5,
            &[Sink::Closed, Sink::Full, Sink::NullReadOnly],
        ),
        sigpipe_ignored: rng.one_in(2),
        posixly_correct: rng.one_in(6),
        locale: if rng.one_in(4) { "C.UTF-8" } else { "C" },
        lists: Vec::new(),
        names: Vec::new(),
    };
    let check = rng.one_in(3);
    let mut operands = Vec::new();
    for i in 0..rng.below(5) {
        if check {
            let list_name = format!("list{i}").into_bytes();
            let list = check_list(rng, fx, &mut case);
            case.lists.push((list_name.clone(), list));
            operands.push(list_name);
        } else {
            let name = name(rng, fx, &case);
            case.names.push(name.clone());
            operands.push(name);
        }
    }
    // The input: a check list where one may be read from it, else bytes.
    let list_from_stdin = check && (operands.is_empty() || rng.one_in(3));
    if list_from_stdin && rng.one_in(2) {
        let at = rng.below(operands.len() + 1);
        operands.insert(at, rng.pick(&[&b"-"[..], b"/dev/stdin"]).to_vec());
    }
    case.input = if list_from_stdin && stdin == Source::Pipe {
        check_list(rng, fx, &mut case)
    } else {
        noise(rng.below(300), rng.next())
    };
    // Options among the operands, and now and then `--`.
    let mut args = operands;
    for opt in options(rng, check) {
        let at = rng.below(args.len() + 1);
        args.insert(at, opt);
    }
    if rng.one_in(10) {
        let at = rng.below(args.len() + 1);
        args.insert(at, b"--".to_vec());
    }
    if rng.one_in(40) {
        args.insert(
            0,
            rng.pick(&[&b"--help"[..], b"--version", b"--he", b"--vers"])
                .to_vec(),
        );
    }
    case.args = args;
    case
}

/// A standard descriptor that goes to `sink`, in `dir` (a closed one is
/// closed after the fork).
fn sink(sink: Sink, dir: &Path) -> Stdio {
    let null = |read: bool, write: bool| {
        let f = OpenOptions::new().read(read).write(write).open("/dev/null");
        Stdio::from(f.unwrap())
    };
    match sink {
        Sink::Pipe => Stdio::piped(),
        Sink::Closed => Stdio::null(),
        Sink::Full => Stdio::from(OpenOptions::new().write(true).open("/dev/full").unwrap()),
        Sink::Null => null(false, true),
        Sink::NullReadWrite => null(true, true),
        Sink::NullReadOnly => null(true, false),
        Sink::Broken => {
            let (r, w) = std::io::pipe().unwrap();
            drop(r);
            Stdio::from(w)
        }
        Sink::File => Stdio::from(File::create(dir.join(OUT)).unwrap()),
    }
}

/// Runs `bin` on `case` in `dir`, killing it after a while.
fn run(bin: &str, dir: &Path, case: &Case, ours: bool) -> Outcome {
    use std::os::raw::c_int;
    extern "C" {
        fn close(fd: c_int) -> c_int;
        fn signal(signum: c_int, handler: usize) -> usize;
    }
    const SIGPIPE: c_int = 13;
    const SIG_IGN: usize = 1;
    let mut cmd = Command::new(bin);
    cmd.arg0("md5sum")
        .current_dir(dir)
        .env_clear()
        .env("LC_ALL", case.locale);
    if ours {
        cmd.args(case.jobs.iter().map(|j| OsStr::from_bytes(j)));
    }
    cmd.args(case.args.iter().map(|a| OsStr::from_bytes(a)));
    if case.posixly_correct {
        cmd.env("POSIXLY_CORRECT", "1");
    }
    cmd.stdin(match case.stdin {
        Source::Pipe => Stdio::piped(),
        Source::Closed => Stdio::null(),
        Source::Null => Stdio::from(File::open("/dev/null").unwrap()),
        Source::NullReadWrite => sink(Sink::NullReadWrite, dir),
        Source::NullWriteOnly => sink(Sink::Null, dir),
        Source::File => Stdio::from(File::open(dir.join("f")).unwrap()),
    });
    cmd.stdout(sink(case.stdout, dir))
        .stderr(sink(case.stderr, dir));
    let closed = [
        case.stdin == Source::Closed,
        case.stdout == Sink::Closed,
        case.stderr == Sink::Closed,
    ];
    let ignore = case.sigpipe_ignored;
    // SAFETY: between fork and exec only async-signal-safe functions run:
    // close(2) and signal(2), on the child's own descriptors and SIGPIPE.
    unsafe {
        cmd.pre_exec(move || {
            for (fd, &c) in closed.iter().enumerate() {
                if c {
                    close(fd as c_int);
                }
            }
            if ignore {
                signal(SIGPIPE, SIG_IGN);
            }
            Ok(())
        });
    }
    let mut child = cmd.spawn().unwrap();
    let feeder = child.stdin.take().map(|mut w| {
        let data = case.input.clone();
        std::thread::spawn(move || {
            let _ = w.write_all(&data);
        })
    });
    let drain = |r: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut r) = r {
                let _ = r.read_to_end(&mut buf);
            }
            buf
        })
    };
    let out = drain(child.stdout.take().map(|r| Box::new(r) as _));
    let err = drain(child.stderr.take().map(|r| Box::new(r) as _));
    // A guard against a run that never ends, not a verdict on speed: long
    // enough for a loaded machine.
    let status = wait(&mut child, Duration::from_secs(120));
    if let Some(f) = feeder {
        f.join().unwrap();
    }
    let mut stdout = out.join().unwrap();
    if case.stdout == Sink::File {
        stdout = std::fs::read(dir.join(OUT)).unwrap();
    }
    Outcome {
        stdout,
        stderr: err.join().unwrap(),
        status,
    }
}

fn wait(child: &mut Child, limit: Duration) -> String {
    let start = Instant::now();
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return match (s.code(), s.signal()) {
                (Some(c), _) => format!("exit {c}"),
                (_, Some(sig)) => format!("signal {sig}"),
                _ => format!("{s}"),
            };
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return "timeout".into();
        }
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// Whether GNU quotes `name` so that its quoting does not decode to it
/// (see src/quote.rs): it holds a `'` and starts and ends with a character
/// that is not printable in the locale.
fn misquoted_by_gnu(name: &[u8], utf8: bool) -> bool {
    let unprintable = |c: char| c.is_control() || c == '\u{2028}' || c == '\u{2029}';
    let (first, last) = if utf8 {
        let chunks: Vec<_> = name.utf8_chunks().collect();
        let first = chunks
            .first()
            .is_some_and(|c| c.valid().chars().next().is_none_or(unprintable));
        let last = chunks.last().is_some_and(|c| {
            !c.invalid().is_empty() || c.valid().chars().last().is_some_and(unprintable)
        });
        (first, last)
    } else {
        let unprintable = |b: &u8| !(0x20..0x7f).contains(b);
        (
            name.first().is_some_and(unprintable),
            name.last().is_some_and(unprintable),
        )
    };
    name.contains(&b'\'') && first && last
}

/// Replaces every `from` in `text` with `to`.
fn replace(text: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        if text[i..].starts_with(from) {
            out.extend_from_slice(to);
            i += from.len();
        } else {
            out.push(text[i]);
            i += 1;
        }
    }
    out
}

/// What is compared of an outcome. GNU's help and version texts are its
/// own: only whether there is one, stderr and the status are compared.
/// Every option is a candidate for `--=`, ours too. And where GNU quotes a
/// name so that it does not decode, its quoting lacks a `$'` that ours has.
fn comparable(o: &Outcome, case: &Case, ours: bool) -> Outcome {
    let own = [
        &b"Usage: md5sum "[..],
        if ours {
            b"md5sum (md5sum-rs) "
        } else {
            b"md5sum (GNU coreutils) "
        },
    ];
    let stdout = if own.iter().any(|p| o.stdout.starts_with(p)) {
        b"(help or version)".to_vec()
    } else {
        o.stdout.clone()
    };
    let mut stderr = o.stderr.clone();
    if ours {
        stderr = replace(&stderr, b" '--jobs'", b"");
        stderr = replace(&stderr, b" '--etag'", b"");
    }
    let utf8 = case.locale != "C";
    if case.names.iter().any(|n| misquoted_by_gnu(n, utf8)) {
        stderr = replace(&stderr, b"''$'", b"'");
    }
    Outcome {
        stdout,
        stderr,
        status: o.status.clone(),
    }
}

/// A shell line that runs `case` as the test does (from the fixture).
fn reproducer(case: &Case, seed: u64, index: u64) -> String {
    let q = |b: &[u8]| b.escape_ascii().to_string();
    let mut s = format!("case {index} of seed {seed}: rerun with\n  MD5SUM_DIFF_SEED={seed} MD5SUM_DIFF_CASE={index} cargo test -p md5sum-rs --test differential -- --nocapture\n");
    for (name, list) in &case.lists {
        let _ = writeln!(s, "  printf '%s' $'{}' > $'{}'", q(list), q(name));
    }
    let _ = write!(s, "  ");
    if case.stdin == Source::Pipe {
        let _ = write!(s, "printf '%s' $'{}' | ", q(&case.input));
    }
    let _ = write!(s, "LC_ALL={} ", case.locale);
    if case.posixly_correct {
        let _ = write!(s, "POSIXLY_CORRECT=1 ");
    }
    let _ = write!(
        s,
        "bash -c '{}exec -a md5sum \"$0\" \"$@\"",
        if case.sigpipe_ignored {
            "trap \"\" PIPE; "
        } else {
            ""
        }
    );
    let redirect = |fd: u8, sink: Sink| match sink {
        Sink::Pipe => String::new(),
        Sink::Closed => format!(" {fd}>&-"),
        Sink::Full => format!(" {fd}>/dev/full"),
        Sink::Null => format!(" {fd}>/dev/null"),
        Sink::NullReadWrite => format!(" {fd}<>/dev/null"),
        Sink::NullReadOnly => format!(" {fd}</dev/null"),
        Sink::Broken => format!(" {fd}> >(true)"),
        Sink::File => format!(" {fd}>{OUT}"),
    };
    let _ = write!(
        s,
        "{}{}{}' \"$M\"",
        match case.stdin {
            Source::Pipe => "",
            Source::Closed => " <&-",
            Source::Null => " </dev/null",
            Source::NullReadWrite => " <>/dev/null",
            Source::NullWriteOnly => " 0>/dev/null",
            Source::File => " <f",
        },
        redirect(1, case.stdout),
        redirect(2, case.stderr),
    );
    for a in &case.args {
        let _ = write!(s, " $'{}'", q(a));
    }
    if let Some(j) = &case.jobs {
        let _ = write!(s, "\n  (ours with {} first)", q(j));
    }
    s
}

/// Makes one state of a case plain; whether that changed it.
type MakePlain = fn(&mut Case) -> bool;

/// What makes a case differ: the states that it still needs to differ
/// (or cannot do without) when every other one that it can do without is
/// made plain (a pipe, SIGPIPE at its default, no `POSIXLY_CORRECT`, no
/// `-j`, the C locale); with none left, what the arguments hold.
fn class(case: &Case, dir: &Path, gnu: &str) -> String {
    let plain: [(String, MakePlain); 7] = [
        (format!("stdin {:?}", case.stdin), |c| {
            std::mem::replace(&mut c.stdin, Source::Pipe) != Source::Pipe
        }),
        (format!("stdout {:?}", case.stdout), |c| {
            std::mem::replace(&mut c.stdout, Sink::Pipe) != Sink::Pipe
        }),
        (format!("stderr {:?}", case.stderr), |c| {
            std::mem::replace(&mut c.stderr, Sink::Pipe) != Sink::Pipe
        }),
        ("SIGPIPE ignored".into(), |c| {
            std::mem::take(&mut c.sigpipe_ignored)
        }),
        ("POSIXLY_CORRECT".into(), |c| {
            std::mem::take(&mut c.posixly_correct)
        }),
        ("-j".into(), |c| c.jobs.take().is_some()),
        (format!("LC_ALL={}", case.locale), |c| {
            std::mem::replace(&mut c.locale, "C") != "C"
        }),
    ];
    let mut reduced = case.clone();
    let mut causes = Vec::new();
    for (what, make_plain) in plain {
        let mut variant = reduced.clone();
        if !make_plain(&mut variant) {
            continue;
        }
        if reads_a_pipe_of_its_own(&variant) || same(&variant, dir, gnu) {
            causes.push(what);
        } else {
            reduced = variant;
        }
    }
    if causes.is_empty() {
        let quoting = case
            .names
            .iter()
            .any(|n| n.contains(&b'\'') && n.iter().any(|b| !(0x20..0x7f).contains(b)));
        causes.push(
            if quoting {
                "arguments: a name with ' and an unprintable byte"
            } else {
                "arguments"
            }
            .into(),
        );
    }
    causes.join(", ")
}

/// Whether `case` names its own stdout or stderr where that is a pipe, and
/// reading it would wait for the program's own output.
fn reads_a_pipe_of_its_own(case: &Case) -> bool {
    case.names.iter().any(|n| {
        (case.stdout == Sink::Pipe && matches!(&n[..], b"/dev/stdout" | b"/proc/self/fd/1"))
            || (case.stderr == Sink::Pipe && n == b"/dev/stderr")
    })
}

/// Runs `case` through GNU's and ours; whether they agree.
fn same(case: &Case, dir: &Path, gnu: &str) -> bool {
    comparable(&run(gnu, dir, case, false), case, false)
        == comparable(&run(OURS, dir, case, true), case, true)
}

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().map(|v| {
        v.parse()
            .unwrap_or_else(|_| panic!("{name}={v}: not a number"))
    })
}

#[test]
fn same_as_gnu() {
    let Some(gnu) = gnu() else {
        eprintln!("GNU md5sum is not installed: the differential test is skipped");
        return;
    };
    let seed = env_u64("MD5SUM_DIFF_SEED").unwrap_or(1);
    let only = env_u64("MD5SUM_DIFF_CASE");
    let budget = Duration::from_secs(env_u64("MD5SUM_DIFF_SECS").unwrap_or(10));
    let fx = fixture();
    let start = Instant::now();
    let (mut compared, mut differed) = (0u64, 0u64);
    let mut classes: BTreeMap<String, u64> = BTreeMap::new();
    let mut shown = String::new();
    let mut failing = Vec::new();
    for index in only.unwrap_or(0).. {
        if only.is_some_and(|o| index > o) || (only.is_none() && start.elapsed() > budget) {
            break;
        }
        let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ index);
        let case = generate(&mut rng, &fx);
        for (name, list) in &case.lists {
            fx.dir.file(OsStr::from_bytes(name), list);
        }
        let theirs = comparable(&run(gnu, fx.dir.path(), &case, false), &case, false);
        let ours = comparable(&run(OURS, fx.dir.path(), &case, true), &case, true);
        compared += 1;
        if theirs != ours {
            differed += 1;
            failing.push(index);
            let class = class(&case, fx.dir.path(), gnu);
            let seen = classes.entry(class.clone()).or_default();
            *seen += 1;
            // A reproducer for the first case of each class.
            if *seen == 1 || only.is_some() {
                let show = |o: &Outcome| {
                    format!(
                        "{}\n    stdout {:?}\n    stderr {:?}",
                        o.status,
                        String::from_utf8_lossy(&o.stdout),
                        String::from_utf8_lossy(&o.stderr)
                    )
                };
                let _ = writeln!(
                    shown,
                    "\n[{class}] {}\n  GNU:  {}\n  ours: {}",
                    reproducer(&case, seed, index),
                    show(&theirs),
                    show(&ours)
                );
            }
        }
    }
    eprintln!(
        "differential: {compared} cases compared with GNU md5sum (seed {seed}, {:.0} s), {differed} differed",
        start.elapsed().as_secs_f64()
    );
    for (class, n) in &classes {
        eprintln!("  {n:6}  {class}");
    }
    if !failing.is_empty() {
        eprintln!("  differing cases: {failing:?}");
    }
    assert!(
        differed == 0,
        "{differed} of {compared} cases differ from GNU md5sum{shown}"
    );
}
