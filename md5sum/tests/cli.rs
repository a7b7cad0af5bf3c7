//! Runs the built `md5sum` in temporary directories. Where GNU md5sum is
//! installed, every case is also run through it and stdout, stderr and the
//! exit status must be identical (both run with argv[0] = "md5sum", so the
//! program name in messages matches). Known answers are asserted whether or
//! not GNU is present. Unix only (shells, FIFOs, resource limits);
//! `tests/portable.rs` runs everywhere.
#![cfg(unix)]

mod common;

use common::*;
use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::Ordering;

/// Runs ours (with the default jobs, `-j 1` and `-j 8`) and, when present,
/// GNU; all must agree. Returns our result.
fn same(dir: &Path, args: &[OsString], stdin: &[u8], env: &[(&str, &str)]) -> Run {
    let ours = exec(OURS, dir, args, stdin, env);
    for j in ["-j1", "-j8"] {
        let mut a = vec![OsString::from(j)];
        a.extend(args.iter().cloned());
        let r = exec(OURS, dir, &a, stdin, env);
        assert_eq!(
            r, ours,
            "{j} {args:?} differs from the default\n{r}\n{ours}"
        );
    }
    if let Some(g) = gnu() {
        let theirs = exec(g, dir, args, stdin, env);
        assert!(
            theirs == ours,
            "md5sum {args:?} (env {env:?}) differs from GNU\nGNU: {theirs}\nours: {ours}"
        );
    }
    ours
}

fn same_str(dir: &Path, args: &[&str], stdin: &[u8]) -> Run {
    same(dir, &os(args), stdin, &[])
}

/// A directory with awkward names: spaces, backslashes, newline, CR, tab,
/// quotes, non-UTF-8 bytes, an empty file and a subdirectory.
fn awkward() -> (TempDir, Vec<OsString>) {
    let t = TempDir::new();
    let names: Vec<OsString> = [
        &b"plain"[..],
        b"with space",
        b"back\\slash",
        b"new\nline",
        b"cr\rname",
        b"tab\tname",
        b"it's",
        b"dq\"x",
        b"bad\xffutf8",
        "é".as_bytes(),
        b"-dash",
        b"a:b",
        b"empty",
    ]
    .iter()
    .map(|n| OsString::from_vec(n.to_vec()))
    .collect();
    for n in &names {
        let data = if n == "empty" { &b""[..] } else { b"abc" };
        t.file(n, data);
    }
    std::fs::create_dir(t.path().join("dir")).unwrap();
    (t, names)
}

#[test]
fn known_answers() {
    let (t, _) = awkward();
    let r = same_str(t.path(), &[], b"abc");
    assert_eq!(r.stdout, format!("{ABC}  -\n").as_bytes());
    let r = same_str(t.path(), &["plain", "-", "empty", "-"], b"abc");
    let want = format!("{ABC}  plain\n{ABC}  -\n{EMPTY}  empty\n{EMPTY}  -\n");
    assert_eq!(String::from_utf8(r.stdout).unwrap(), want);
    assert_eq!(r.code, Some(0));

    let r = same_str(t.path(), &["back\\slash", "new\nline", "cr\rname"], b"");
    let want = format!("\\{ABC}  back\\\\slash\n\\{ABC}  new\\nline\n\\{ABC}  cr\\rname\n");
    assert_eq!(String::from_utf8(r.stdout).unwrap(), want);

    let r = same_str(t.path(), &["--tag", "back\\slash", "plain"], b"");
    let want = format!("\\MD5 (back\\\\slash) = {ABC}\nMD5 (plain) = {ABC}\n");
    assert_eq!(String::from_utf8(r.stdout).unwrap(), want);

    let r = same_str(t.path(), &["-bz", "new\nline", "plain"], b"");
    let want = format!("{ABC} *new\nline\0{ABC} *plain\0");
    assert_eq!(String::from_utf8(r.stdout).unwrap(), want);

    let r = same_str(t.path(), &["nope", "dir", "with space", "plain"], b"");
    assert_eq!(
        String::from_utf8(r.stderr).unwrap(),
        "md5sum: nope: No such file or directory\nmd5sum: dir: Is a directory\n"
    );
    assert_eq!(
        r.stdout,
        format!("{ABC}  with space\n{ABC}  plain\n").as_bytes()
    );
    assert_eq!(r.code, Some(1));

    let r = same_str(t.path(), &["--", "-dash"], b"");
    assert_eq!(r.stdout, format!("{ABC}  -dash\n").as_bytes());
}

#[test]
fn hash_mode_flags_and_names() {
    let (t, names) = awkward();
    let mut all = names.clone();
    all.extend(os(&["dir", "missing file", "-", "plain"]));
    for flags in [
        &[][..],
        &["-b"],
        &["-t"],
        &["--tag"],
        &["-z"],
        &["--tag", "-z"],
        &["-b", "--tag"],
        &["-t", "--tag"],
        &["--binary", "--zero"],
    ] {
        let mut args = os(flags);
        args.extend(all.iter().cloned());
        for lc in ["C.UTF-8", "C"] {
            let r = same(t.path(), &args, b"stdin data", &[("LC_ALL", lc)]);
            assert_eq!(r.code, Some(1));
        }
    }
    // Other reasons a file cannot be read.
    std::os::unix::fs::symlink("loop", t.path().join("loop")).unwrap();
    let long = "n".repeat(300);
    same_str(t.path(), &["loop", "plain/x", &long, "plain"], b"");
    // Options after operands, and after `--` only operands.
    same_str(t.path(), &["plain", "--tag", "empty"], b"");
    same_str(t.path(), &["plain", "--", "--tag"], b"");
    let r = same(
        t.path(),
        &os(&["plain", "--tag"]),
        b"",
        &[("POSIXLY_CORRECT", "1")],
    );
    assert_eq!(r.code, Some(1));
}

#[test]
fn diagnostics_quote_names_like_gnu() {
    let t = TempDir::new();
    let names: Vec<OsString> = [
        &b"nope"[..],
        b"a b",
        b"n\nl",
        b"q\xff",
        b"x'y",
        b"$HOME",
        b"~x",
        b"x~",
        b"#x",
        b"a=b",
        b"a:b",
        b"a:b'c",
        b"x'$y",
        b"{",
        b"a{",
        b"x\x7f",
        b"x\xc3",
        b"x\xc3y",
        b"\xc3\xa9\xff",
        b"x\"y",
        b"a\tb",
        b"a\x1bb",
        b"\xe2\x80\xa8",
        b"back\\slash",
        b"*?[",
        b"",
    ]
    .iter()
    .map(|n| OsString::from_vec(n.to_vec()))
    .collect();
    for lc in ["C.UTF-8", "C"] {
        let r = same(t.path(), &names, b"", &[("LC_ALL", lc)]);
        assert_eq!(r.code, Some(1));
        assert!(r.stdout.is_empty());
    }
    let r = same(t.path(), &os(&["a b", "x'y"]), b"", &[]);
    assert_eq!(
        String::from_utf8(r.stderr).unwrap(),
        "md5sum: 'a b': No such file or directory\nmd5sum: \"x'y\": No such file or directory\n"
    );
}

/// An input that root cannot read either: a write-only sysctl file.
fn unreadable(t: &TempDir) -> Option<PathBuf> {
    let p = t.path().join("unreadable");
    t.file("unreadable", b"secret");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o000)).unwrap();
    if std::fs::File::open(&p).is_err() {
        return Some(p);
    }
    std::fs::remove_file(&p).unwrap();
    let target = Path::new("/proc/sys/vm/drop_caches");
    if let Err(e) = std::fs::File::open(target) {
        if e.kind() == std::io::ErrorKind::PermissionDenied {
            std::os::unix::fs::symlink(target, &p).unwrap();
            return Some(p);
        }
    }
    eprintln!("no unreadable file can be made here: the Permission denied case is skipped");
    None
}

#[test]
fn unreadable_files() {
    let t = TempDir::new();
    t.file("ok", b"x");
    let Some(_) = unreadable(&t) else { return };
    let r = same_str(t.path(), &["unreadable", "ok"], b"");
    assert_eq!(r.stderr, b"md5sum: unreadable: Permission denied\n");
    assert_eq!(r.stdout, format!("{X}  ok\n").as_bytes());
    assert_eq!(r.code, Some(1));
    t.file("sums", format!("{X}  unreadable\n{X}  ok\n").as_bytes());
    for flags in [
        &["-c"][..],
        &["-c", "--status"],
        &["-c", "--ignore-missing"],
    ] {
        let mut a = flags.to_vec();
        a.push("sums");
        let r = same_str(t.path(), &a, b"");
        assert_eq!(r.code, Some(1));
    }
}

/// The check-file fixture: every kind of line GNU distinguishes.
fn check_fixture() -> TempDir {
    let t = TempDir::new();
    t.file("a", b"x");
    t.file("b", b"y");
    t.file("new\nline", b"x");
    t.file("cr\rname", b"x");
    t.file("back\\slash", b"x");
    t.file("sp ace", b"x");
    t.file(OsStr::from_bytes(b"bad\xffname"), b"x");
    std::fs::create_dir(t.path().join("dir")).unwrap();
    let up = X.to_uppercase();
    let mut sums = Vec::new();
    sums.extend_from_slice(format!("{X}  a\n").as_bytes()); // OK
    sums.extend_from_slice(format!("{X}  b\n").as_bytes()); // FAILED
    sums.extend_from_slice(format!("{X}  missing\n").as_bytes()); // no such file
    sums.extend_from_slice(b"garbage line\n"); // malformed
    sums.extend_from_slice(format!("{X}  dir\n").as_bytes()); // read error
    sums.extend_from_slice(format!("{X}  a\r\n").as_bytes()); // CRLF
    sums.extend_from_slice(format!("MD5 (a) = {X}\n").as_bytes()); // BSD
    sums.extend_from_slice(format!("MD5 (b)= {X}\n").as_bytes()); // BSD, FAILED
    sums.extend_from_slice(format!("MD5(sp ace) ={X}\r\n").as_bytes());
    sums.extend_from_slice(b"# comment\n\n\r\n");
    sums.extend_from_slice(format!("\\{X}  new\\nline\n").as_bytes());
    sums.extend_from_slice(format!("\\{X}  cr\\rname\n").as_bytes());
    sums.extend_from_slice(format!("\\{X}  back\\\\slash\n").as_bytes());
    sums.extend_from_slice(format!("{X}  back\\slash\n").as_bytes());
    sums.extend_from_slice(format!("\\MD5 (new\\nline) = {X}\n").as_bytes());
    sums.extend_from_slice(format!("{X}  new\\nline\n").as_bytes()); // literal name
    sums.extend_from_slice(format!("{up}  a\n").as_bytes());
    sums.extend_from_slice(format!("{X} *a\n").as_bytes());
    sums.extend_from_slice(&[format!("{X}  bad").as_bytes(), b"\xffname\n"].concat());
    sums.extend_from_slice(format!("  {X}  a\n").as_bytes());
    sums.extend_from_slice(format!("\\{X}  bad\\tescape\n").as_bytes()); // malformed
    sums.extend_from_slice(format!("{}  a\n", &X[1..]).as_bytes()); // short
    sums.extend_from_slice(format!("{X}  \n").as_bytes());
    sums.extend_from_slice(format!("{X} a\n").as_bytes()); // reversed: refused now
    sums.extend_from_slice(format!("MD5 (a) = {X}x\n").as_bytes());
    sums.extend_from_slice(format!("{X}  -\n").as_bytes()); // stdin
    sums.extend_from_slice(format!("{X}  a\0junk\n").as_bytes()); // NUL ends the name
    sums.extend_from_slice(format!("MD5 (a\0x) = {X}\n").as_bytes());
    sums.extend_from_slice(format!("\\{X}  a\0x\n").as_bytes()); // NUL in escaped name
    sums.extend_from_slice(format!("{X}\0 a\n").as_bytes());
    sums.extend_from_slice(format!("{X}  a").as_bytes()); // no final newline
    t.file("sums", &sums);

    t.file("all-ok", format!("{X}  a\nMD5 (a) = {X}\n").as_bytes());
    t.file("ok-and-bad", format!("{X}  a\nnonsense\n").as_bytes());
    t.file("only-missing", format!("{X}  missing\n").as_bytes());
    t.file(
        "missing-and-ok",
        format!("{X}  missing\n{X}  a\n").as_bytes(),
    );
    t.file("nothing", b"nothing useful\n# comment\n");
    t.file("empty", b"");
    t.file("reversed", format!("{X} a\n{X} b\n{X}  a\n").as_bytes());
    t.file("mismatch-only", format!("{X}  b\n").as_bytes());
    t.file("stdin-dash", format!("{X}  -\n").as_bytes());
    t
}

const CHECK_FLAGS: &[&[&str]] = &[
    &[],
    &["--quiet"],
    &["--status"],
    &["-w"],
    &["--warn"],
    &["--strict"],
    &["--ignore-missing"],
    &["--ignore-missing", "--quiet"],
    &["--ignore-missing", "--status"],
    &["--ignore-missing", "--strict"],
    &["--status", "--strict"],
    &["-w", "--strict"],
    &["-w", "--quiet"],
    &["--quiet", "-w"],
    &["--status", "-w"],
    &["-w", "--status"],
    &["--quiet", "--status"],
    &["--status", "--quiet"],
    &["--strict", "--quiet", "--ignore-missing", "-w"],
];

#[test]
fn check_mode_every_flag_combination() {
    let t = check_fixture();
    let files = [
        "sums",
        "all-ok",
        "ok-and-bad",
        "only-missing",
        "missing-and-ok",
        "nothing",
        "empty",
        "reversed",
        "mismatch-only",
        "stdin-dash",
        "dir",
        "no-such-checkfile",
    ];
    for flags in CHECK_FLAGS {
        for f in files {
            let mut a = vec!["-c"];
            a.extend_from_slice(flags);
            a.push(f);
            same_str(t.path(), &a, b"x");
        }
        // Several check files in one run, and the check file on stdin.
        let mut a = vec!["--check"];
        a.extend_from_slice(flags);
        a.extend_from_slice(&["all-ok", "sums", "-", "reversed"]);
        let sums = std::fs::read(t.path().join("sums")).unwrap();
        same_str(t.path(), &a, &sums);
        let mut a = vec!["-c"];
        a.extend_from_slice(flags);
        same_str(t.path(), &a, &sums);
    }
}

#[test]
fn check_mode_known_answers() {
    let t = check_fixture();
    let r = same_str(t.path(), &["-c", "all-ok"], b"");
    assert_eq!(r.stdout, b"a: OK\na: OK\n");
    assert_eq!(r.code, Some(0));

    let r = same_str(t.path(), &["-c", "sums"], b"x");
    let out = String::from_utf8_lossy(&r.stdout).into_owned();
    assert!(
        out.starts_with(
            "a: OK\nb: FAILED\nmissing: FAILED open or read\ndir: FAILED open or read\na: OK\n"
        ),
        "{out}"
    );
    assert!(
        out.contains("\\new\\nline: OK\ncr\rname: OK\nback\\slash: OK\n"),
        "{out}"
    );
    let err = String::from_utf8_lossy(&r.stderr).into_owned();
    assert_eq!(
        err,
        "md5sum: missing: No such file or directory\n\
         md5sum: dir: Is a directory\n\
         md5sum: 'new\\nline': No such file or directory\n\
         md5sum: WARNING: 8 lines are improperly formatted\n\
         md5sum: WARNING: 3 listed files could not be read\n\
         md5sum: WARNING: 2 computed checksums did NOT match\n"
    );
    assert_eq!(r.code, Some(1));

    let r = same_str(t.path(), &["-c", "--ignore-missing", "only-missing"], b"");
    assert_eq!(r.stderr, b"md5sum: only-missing: no file was verified\n");
    assert_eq!(r.code, Some(1));

    let r = same_str(t.path(), &["-c", "--strict", "ok-and-bad"], b"");
    assert_eq!(r.code, Some(1));
    let r = same_str(t.path(), &["-c", "ok-and-bad"], b"");
    assert_eq!(r.code, Some(0));
    assert_eq!(
        r.stderr,
        b"md5sum: WARNING: 1 line is improperly formatted\n"
    );

    let r = same_str(t.path(), &["-c"], b"nothing\n");
    assert_eq!(
        r.stderr,
        b"md5sum: 'standard input': no properly formatted checksum lines found\n"
    );
    let r = same_str(t.path(), &["-c", "dir"], b"");
    assert_eq!(r.stderr, b"md5sum: dir: read error\n");
    let r = same_str(t.path(), &["-c", "-w", "ok-and-bad"], b"");
    assert_eq!(
        String::from_utf8(r.stderr).unwrap(),
        "md5sum: ok-and-bad: 2: improperly formatted MD5 checksum line\n\
         md5sum: WARNING: 1 line is improperly formatted\n"
    );
}

#[test]
fn usage_errors_and_option_spellings() {
    let t = TempDir::new();
    t.file("f", b"abc");
    let cases: &[&[&str]] = &[
        &["-x"],
        &["--foo"],
        &["--foo=1"],
        &["--st"],
        &["--s=1"],
        &["--bin=1"],
        &["--help=x"],
        &["-bc", "f"],
        &["-tc", "f"],
        &["--tag", "-c", "f"],
        &["-z", "-c", "f"],
        &["-z", "--tag", "-c", "f"],
        &["--tag", "-t", "f"],
        &["-t", "--tag", "f"],
        &["--tag", "-t", "--status", "f"],
        &["--ignore-missing", "f"],
        &["--status", "f"],
        &["-w", "f"],
        &["--warn", "f"],
        &["--quiet", "f"],
        &["--strict", "f"],
        &["--status", "--quiet", "f"],
        &["-w", "--ignore-missing", "f"],
        &["--strict", "--warn", "f"],
        &[
            "--bi", "--che", "--sta", "--str", "--ta", "--te", "--ze", "f",
        ],
        &["--ig", "-c", "f"],
        &["-c", "--qu", "f"],
        &["-", "-"],
        &["f", "-b"],
        &["-zb", "f"],
        &["-bcx", "f"],
    ];
    for a in cases {
        same_str(t.path(), a, b"abc");
    }
    // --help and --version stop at once, before later bad options.
    let r = exec(OURS, t.path(), &os(&["--he", "--bogus"]), b"", &[]);
    assert_eq!(r.code, Some(0));
    assert!(r
        .stdout
        .starts_with(b"Usage: md5sum [OPTION]... [FILE]...\n"));
    let r = exec(OURS, t.path(), &os(&["--ver", "-x"]), b"", &[]);
    assert_eq!(r.code, Some(0));
    let v = String::from_utf8(r.stdout).unwrap();
    assert!(v.starts_with("md5sum (md5sum-rs) "), "{v}");
    let backends = format!(
        "MD5 backends: {} (one stream), {} with {} lanes (many streams)",
        md5x::backend(),
        md5x::multi::backend(),
        md5x::multi::lanes()
    );
    assert!(v.contains(&backends), "{v}");
    // Our own option.
    for a in [&["-j"][..], &["--jobs"], &["-j0", "f"], &["--jobs=x", "f"]] {
        let r = exec(OURS, t.path(), &os(a), b"", &[]);
        assert_eq!(r.code, Some(1));
        assert!(r
            .stderr
            .ends_with(b"\nTry 'md5sum --help' for more information.\n"));
    }
    let r = exec(OURS, t.path(), &os(&["-j", "3", "f", "--jobs=2"]), b"", &[]);
    assert_eq!(r.stdout, format!("{ABC}  f\n").as_bytes());
}

/// Ambiguous long options name their candidates in the order of GNU's
/// option table; `--jobs` and `--etag`, ours, sit among them without
/// moving GNU's.
#[test]
fn ambiguous_options_in_gnu_table_order() {
    let t = TempDir::new();
    let try_help = "Try 'md5sum --help' for more information.\n";
    let ambiguous = |opt: &str, list: &str| {
        format!("md5sum: option '{opt}' is ambiguous; possibilities: {list}\n{try_help}")
    };
    for (opt, list) in [
        ("--t", "'--tag' '--text'"),
        ("--s", "'--status' '--strict'"),
        ("--st=1", "'--status' '--strict'"),
    ] {
        let r = same_str(t.path(), &[opt, "f"], b"");
        assert_eq!(String::from_utf8(r.stderr).unwrap(), ambiguous(opt, list));
        assert_eq!(r.code, Some(1));
    }
    // Every option is a candidate for the empty name.
    let gnus = "'--check' '--ignore-missing' '--quiet' '--status' '--warn' '--strict' \
                '--tag' '--zero' '--binary' '--text' '--help' '--version'";
    let ours = gnus.replace("'--text' ", "'--text' '--jobs' '--etag' ");
    let r = exec(OURS, t.path(), &os(&["--="]), b"", &[]);
    assert_eq!(
        String::from_utf8(r.stderr).unwrap(),
        ambiguous("--=", &ours)
    );
    if let Some(g) = gnu() {
        let r = exec(g, t.path(), &os(&["--="]), b"", &[]);
        assert_eq!(String::from_utf8(r.stderr).unwrap(), ambiguous("--=", gnus));
    }
}

#[test]
fn pipes_and_write_errors() {
    let t = TempDir::new();
    t.file("f", b"abc");
    // A closed pipe ends the program quietly, by SIGPIPE as GNU's.
    let many = vec!["f"; 5000].join(" ");
    let script = format!("set -o pipefail; exec -a md5sum \"$0\" {many} | head -1");
    let r = same_shell(t.path(), &script);
    assert_eq!(r.stdout, format!("{ABC}  f\n").as_bytes());
    assert!(r.stderr.is_empty(), "{r}");
    assert_eq!(r.code, Some(141));
    // A closed stdout.
    let r = same_shell(t.path(), "exec -a md5sum \"$0\" f >&-");
    assert_eq!(r.stderr, b"md5sum: write error: Bad file descriptor\n");
    same_shell(t.path(), "exec -a md5sum \"$0\" nope >&-");
    same_shell(t.path(), "exec -a md5sum \"$0\" --help > /dev/full");
    // A full disk is reported once, at the end.
    if Path::new("/dev/full").exists() {
        let r = same_shell(t.path(), "exec -a md5sum \"$0\" f nope f > /dev/full");
        assert_eq!(
            String::from_utf8(r.stderr).unwrap(),
            "md5sum: nope: No such file or directory\n\
             md5sum: write error\n"
        );
        assert_eq!(r.code, Some(1));
    }
    // stdout and stderr into one pipe interleave as GNU's do.
    let names: Vec<String> = (0..300)
        .map(|i| {
            if i % 37 == 0 {
                format!("nope{i}")
            } else {
                "f".into()
            }
        })
        .collect();
    let script = format!("exec -a md5sum \"$0\" {} 2>&1", names.join(" "));
    same_shell(t.path(), &script);
    let script = format!(
        "exec -a md5sum \"$0\" {} 2>&1 > out; cat out",
        names.join(" ")
    );
    same_shell(t.path(), &script);
}

#[test]
fn same_output_for_one_and_eight_jobs() {
    let t = TempDir::new();
    let mut names = Vec::new();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for i in 0..1000 {
        // xorshift: sizes from empty to a few hundred KiB, most small.
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let len = match i % 50 {
            0 | 10 | 20 | 30 | 40 => (state % 120_000) as usize,
            1 => 65536 + (state % 3) as usize - 1,
            _ => (state % 4000) as usize,
        };
        let data: Vec<u8> = (0..len).map(|k| (k as u64 ^ state) as u8).collect();
        let name = format!("f{i:04}");
        t.file(&name, &data);
        names.push(name.clone());
        if i % 97 == 0 {
            names.push(format!("missing{i}"));
        }
        if i % 250 == 0 {
            names.push("-".into());
        }
    }
    let args: Vec<OsString> = names.iter().map(OsString::from).collect();
    let one = exec(
        OURS,
        t.path(),
        &[&os(&["-j", "1"])[..], &args].concat(),
        b"abc",
        &[],
    );
    let eight = exec(
        OURS,
        t.path(),
        &[&os(&["-j", "8"])[..], &args].concat(),
        b"abc",
        &[],
    );
    assert_eq!(one, eight);
    assert_eq!(one.stdout.iter().filter(|&&b| b == b'\n').count(), 1004);
    same(t.path(), &args, b"abc", &[]);
    // Check mode over the same thousand files.
    std::fs::write(t.path().join("sums"), &one.stdout).unwrap();
    let r = same_str(t.path(), &["-c", "sums"], b"abc");
    assert_eq!(r.code, Some(0));
    let lines: Vec<&[u8]> = r.stdout.split(|&b| b == b'\n').collect();
    assert_eq!(lines.len(), 1004 + 1);
    assert!(lines[..1004].iter().all(|l| l.ends_with(b": OK")));
}

/// Large files go through the multi-buffer lanes side by side; their
/// digests must equal single-stream ones, whatever the sizes around the
/// 64-byte block, the 16 KiB read and the 64 KiB first-read boundaries.
#[test]
fn large_files_side_by_side() {
    use md5x::{Digest, Md5};
    let t = TempDir::new();
    let sizes = [
        65536,
        65537,
        65535,
        65536 + 16384,
        65536 + 16383,
        65536 + 64,
        131072,
        200_000,
        300_000,
        0,
        5,
        70_000,
        65536 + 55,
        65536 + 56,
        65536 * 3 + 1,
        100_000,
        150_000,
    ];
    let mut args = Vec::new();
    let mut want = String::new();
    for (i, &n) in sizes.iter().enumerate() {
        let data: Vec<u8> = (0..n)
            .map(|k| (k * 7 + i * 13) as u8 ^ (k >> 11) as u8)
            .collect();
        let name = format!("big{i:02}");
        t.file(&name, &data);
        want += &format!("{:x}  {name}\n", Md5::digest(&data));
        args.push(name);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    for j in ["-j1", "-j2", "-j3"] {
        let r = exec(OURS, t.path(), &os(&[&[j][..], &args].concat()), b"", &[]);
        assert_eq!(String::from_utf8(r.stdout).unwrap(), want, "{j}");
    }
    same_str(t.path(), &args, b"");
    // Few file descriptors: large files waiting for lanes must not make
    // opens fail where GNU's would succeed.
    let many = vec![args.join(" "); 4].join(" ");
    for j in ["-j1", "-j2", "-j3"] {
        let script = format!("ulimit -n 10; exec -a md5sum \"$0\" {j} {many}");
        let r = shell(OURS, t.path(), &script);
        assert!(r.stderr.is_empty(), "{r}");
        assert_eq!(String::from_utf8(r.stdout).unwrap(), want.repeat(4), "{j}");
    }
}

/// A closed standard input reads as GNU's does: a read error, then the
/// failed close of standard input at the end; `/dev/null` is not closed.
#[test]
fn closed_standard_input() {
    let t = TempDir::new();
    t.file("f", b"abc");
    t.file("sums", format!("{ABC}  f\n").as_bytes());
    for args in [
        "",
        "-",
        "- f -",
        "f",
        "-c",
        "-c -",
        "-c sums",
        "f < /dev/null",
        "- < /dev/null",
    ] {
        let redirect = if args.contains('<') { "" } else { "<&-" };
        let script = format!("exec -a md5sum \"$0\" {args} {redirect}");
        same_shell(t.path(), &script);
    }
    let r = same_shell(t.path(), "exec -a md5sum \"$0\" - f <&-");
    assert_eq!(
        String::from_utf8(r.stderr).unwrap(),
        "md5sum: -: Bad file descriptor\nmd5sum: standard input: Bad file descriptor\n"
    );
    assert_eq!(r.stdout, format!("{ABC}  f\n").as_bytes());
    assert_eq!(r.code, Some(1));
}

/// [`same_shell`] for a script with our options in braces (`{-j4}`): ours
/// runs them, GNU's runs without them.
fn same_shell_ours(dir: &Path, script: &str) -> Run {
    let strip = |keep: bool| {
        let mut out = String::new();
        let mut rest = script;
        while let Some(open) = rest.find('{') {
            let close = open + rest[open..].find('}').unwrap();
            out += &rest[..open];
            if keep {
                out += &rest[open + 1..close];
            }
            rest = &rest[close + 1..];
        }
        out + rest
    };
    let ours = shell(OURS, dir, &strip(true));
    if let Some(g) = gnu() {
        let theirs = shell(g, dir, &strip(false));
        assert_eq!(theirs, ours, "{script}\nGNU: {theirs}\nours: {ours}");
    }
    ours
}

/// Several md5sums writing into one pipe (`xargs -P`): every line arrives
/// whole. Lines used to be cut wherever an 8 KiB buffer ended; the race
/// shows in most runs, so it is run many times.
#[test]
fn parallel_md5sums_never_split_lines() {
    if !have("xargs") {
        return;
    }
    let t = TempDir::new();
    std::fs::create_dir(t.path().join("t")).unwrap();
    for i in 1..=500 {
        t.file(format!("t/{i}"), b"");
    }
    let script = "for i in $(seq 30); do \
                  find t t t -type f | xargs -n500 -P2 \"$0\" > out || exit 9; \
                  echo \"$(wc -l < out) $(grep -vc '^[0-9a-f]\\{32\\}  t/[0-9]*$' out)\"; \
                  done";
    let mut bins = vec![OURS];
    bins.extend(gnu());
    for bin in bins {
        let r = shell(bin, t.path(), script);
        assert_eq!(r.code, Some(0), "{bin}: {r}");
        let want = "1500 0\n".repeat(30);
        assert_eq!(
            String::from_utf8_lossy(&r.stdout),
            want,
            "{bin}: lines per run, broken lines"
        );
    }
}

/// A line is written as soon as it is known when the next input has to be
/// waited for: here the next input is a FIFO whose writer waits for the
/// line before it.
#[test]
fn lines_are_not_held_back_by_a_slow_input() {
    if !have("mkfifo") {
        return;
    }
    let t = TempDir::new();
    t.file("a", b"abc");
    let fifo = t.path().join("fifo");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let mut cases: Vec<(&str, Vec<&str>)> = vec![
        (OURS, vec!["a", "fifo"]),
        (OURS, vec!["-j1", "a", "fifo"]),
        (OURS, vec!["-j4", "a", "-", "fifo"]),
    ];
    if let Some(g) = gnu() {
        cases.push((g, vec!["a", "fifo"]));
    }
    for (bin, args) in cases {
        let mut child = Command::new(bin)
            .arg0("md5sum")
            .args(&args)
            .current_dir(t.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let reader = std::thread::spawn(move || {
            use std::io::BufRead;
            let mut r = std::io::BufReader::new(stdout);
            let mut first = String::new();
            r.read_line(&mut first).unwrap();
            tx.send(first).unwrap();
            let mut rest = String::new();
            std::io::Read::read_to_string(&mut r, &mut rest).unwrap();
            rest
        });
        // The FIFO is written only after the first line came, so a line
        // held back is one that never comes: the bound only keeps that
        // from hanging the suite, and is no verdict on speed.
        let first = rx.recv_timeout(std::time::Duration::from_secs(120));
        // Let the program finish either way.
        let mut w = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
        w.write_all(b"x").unwrap();
        drop(w);
        let status = child.wait().unwrap();
        let rest = reader.join().unwrap();
        let first = first.unwrap_or_else(|_| panic!("{bin} {args:?}: no line while waiting"));
        assert_eq!(first, format!("{ABC}  a\n"), "{bin} {args:?}");
        assert!(
            rest.ends_with(&format!("{X}  fifo\n")),
            "{bin} {args:?}: {rest}"
        );
        assert!(status.success(), "{bin} {args:?}");
    }
}

/// Two names for one pipe: only regular files are read out of order or
/// side by side, so the first name gets the data, the second nothing.
#[test]
fn pipes_are_read_in_order() {
    let t = TempDir::new();
    let five = noise(5_000_000, 0x9e37_79b9_7f4a_7c15);
    t.file("five", &five);
    t.file("a", b"abc");
    let digest = md5_hex(&five);
    for (args, want) in [
        (
            "{-j4} - /dev/stdin",
            vec![(&digest, "-"), (&EMPTY.into(), "/dev/stdin")],
        ),
        (
            "- /dev/stdin",
            vec![(&digest, "-"), (&EMPTY.into(), "/dev/stdin")],
        ),
        (
            "{-j1} /dev/stdin /dev/stdin",
            vec![(&digest, "/dev/stdin"), (&EMPTY.into(), "/dev/stdin")],
        ),
        (
            "{-j3} /dev/stdin a /proc/self/fd/0",
            vec![
                (&digest, "/dev/stdin"),
                (&ABC.into(), "a"),
                (&EMPTY.into(), "/proc/self/fd/0"),
            ],
        ),
        (
            "/proc/self/fd/0 five -",
            vec![
                (&digest, "/proc/self/fd/0"),
                (&digest, "five"),
                (&EMPTY.into(), "-"),
            ],
        ),
    ] {
        let script = format!("cat five | exec -a md5sum \"$0\" {args}");
        let r = same_shell_ours(t.path(), &script);
        let want: String = want.iter().map(|(d, n)| format!("{d}  {n}\n")).collect();
        assert_eq!(String::from_utf8_lossy(&r.stdout), want, "{args}");
    }
    // A regular file whose stat size (0) is not its length.
    if let Ok(data) = std::fs::read("/proc/version") {
        let r = same_str(t.path(), &["/proc/version"], b"");
        assert_eq!(
            r.stdout,
            format!("{}  /proc/version\n", md5_hex(&data)).as_bytes()
        );
    }
    // Check mode: a list that names standard input twice.
    t.file(
        "sums",
        format!("{digest}  /dev/stdin\n{EMPTY}  /dev/stdin\n").as_bytes(),
    );
    let r = same_shell(t.path(), "cat five | exec -a md5sum \"$0\" -c sums");
    assert_eq!(r.stdout, b"/dev/stdin: OK\n/dev/stdin: OK\n");
}

/// A FIFO named twice: the first open reads what the writer wrote, the
/// second what the next writer writes (nothing).
#[test]
fn fifo_named_twice() {
    if !have("mkfifo") {
        return;
    }
    use std::os::unix::fs::OpenOptionsExt;
    let five = noise(5_000_000, 0x2545_f491_4f6c_dd1d);
    let want = format!("{}  p\n{EMPTY}  p\n", md5_hex(&five));
    let mut bins = vec![(OURS, "-j1"), (OURS, "-j4"), (OURS, "--")];
    if let Some(g) = gnu() {
        bins.push((g, "--"));
    }
    for (bin, j) in bins {
        let t = TempDir::new();
        let p = t.path().join("p");
        assert!(Command::new("mkfifo").arg(&p).status().unwrap().success());
        let child = Command::new(bin)
            .args([j, "p", "p"])
            .current_dir(t.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let data = five.clone();
        let finished = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let done = finished.clone();
        let writer = std::thread::spawn(move || {
            // The first reader gets the data.
            let mut w = std::fs::OpenOptions::new().write(true).open(&p).unwrap();
            w.write_all(&data).unwrap();
            drop(w);
            // A non-blocking open for writing fails (ENXIO) while no reader
            // has the FIFO open: wait for the first reader to close it, then
            // give the second one an empty write side.
            const O_NONBLOCK: i32 = 0o4000;
            let try_open = || {
                std::fs::OpenOptions::new()
                    .write(true)
                    .custom_flags(O_NONBLOCK)
                    .open(&p)
            };
            let mut first_gone = false;
            // (A poll can also give the second reader its empty write side
            // before the first close is seen: then the program ends.) No
            // deadline: however slowly the first reader reads, the second
            // gets its write side.
            while !done.load(Ordering::SeqCst) {
                match try_open() {
                    Ok(w) if first_gone => {
                        drop(w);
                        return;
                    }
                    Ok(w) => drop(w),
                    Err(e) if e.raw_os_error() == Some(6) => first_gone = true,
                    Err(e) => panic!("{e}"),
                }
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
        });
        let out = child.wait_with_output().unwrap();
        finished.store(true, Ordering::SeqCst);
        writer.join().unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), want, "{bin} {j}");
        assert!(out.status.success(), "{bin} {j}");
    }
}

/// Threads that cannot be started mean fewer workers, and hundreds of jobs
/// under an address-space limit still print every line (this used to panic
/// and then wait forever).
#[test]
fn no_hang_when_threads_cannot_start() {
    if !have("prlimit") || !have("timeout") {
        return;
    }
    let t = TempDir::new();
    t.file("a", b"a\n");
    let r = same_shell_ours(
        t.path(),
        "timeout 60 prlimit --as=400000000 \"$0\" {-j 256} a a",
    );
    assert_eq!(r.stdout, b"60b725f10c9c85c70d97880dfe8191b3  a\n".repeat(2));
    assert_eq!(r.code, Some(0));
    let mut names = Vec::new();
    for i in 0..600 {
        let name = format!("f{i:03}");
        t.file(&name, &noise(i * 7, i as u64 + 1));
        names.push(name);
    }
    let names = names.join(" ");
    let r = same_shell_ours(
        t.path(),
        &format!("timeout 60 prlimit --as=400000000 \"$0\" {{-j 256}} {names}"),
    );
    assert_eq!(r.code, Some(0), "{r}");
    // A per-user thread limit makes thread creation itself fail; it binds
    // only an unprivileged user, so run as nobody where the tests are root.
    let root = String::from_utf8(Command::new("id").arg("-u").output().unwrap().stdout)
        .is_ok_and(|u| u.trim() == "0");
    if root && have("setpriv") {
        let mode = |p: &Path, m| {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).unwrap();
        };
        mode(t.path(), 0o755);
        // A copy that nobody can run, wherever the build tree is.
        let copy = t.path().join("md5sum");
        std::fs::copy(OURS, &copy).unwrap();
        mode(&copy, 0o755);
        for nproc in [1, 2, 3] {
            let script = |jobs| {
                format!(
                    "timeout 60 setpriv --reuid=65534 --regid=65534 --clear-groups \
                     prlimit --nproc={nproc} \"$0\" {jobs} {names}"
                )
            };
            let r = shell(copy.to_str().unwrap(), t.path(), &script("-j 8"));
            assert_eq!(r.code, Some(0), "{r}");
            assert_eq!(r.stdout.iter().filter(|&&b| b == b'\n').count(), 600);
            if let Some(g) = gnu() {
                assert_eq!(shell(g, t.path(), &script("")), r, "--nproc={nproc}");
            }
        }
    }
}

/// With a tight descriptor limit, md5sum falls back to fewer open files,
/// down to one, rather than failing files GNU's reads.
#[test]
fn few_file_descriptors() {
    if !have("prlimit") {
        return;
    }
    let t = TempDir::new();
    let mut names = Vec::new();
    for i in 0..300 {
        let name = format!("b{i:03}");
        t.file(&name, &noise(70_000 + i * 100, i as u64 + 7));
        names.push(name);
    }
    let names = names.join(" ");
    let all = shell(OURS, t.path(), &format!("exec \"$0\" {names}"));
    t.file("sums", &all.stdout);
    for (limit, args) in [
        (4, "{-j2}"),
        (4, "{-j8}"),
        (4, ""),
        (4, "{-j1}"),
        (5, "{-j2} -c sums"),
        (5, "{-j8} -c sums"),
        (5, "-c sums"),
    ] {
        let files = if args.contains("-c") { "" } else { &names };
        let script = format!("prlimit --nofile={limit} \"$0\" {args} {files}");
        let r = same_shell_ours(t.path(), &script);
        assert!(r.stderr.is_empty(), "--nofile={limit} {args}: {r}");
        assert_eq!(r.code, Some(0), "--nofile={limit} {args}");
        if !args.contains("-c") {
            assert_eq!(r.stdout, all.stdout, "--nofile={limit} {args}");
        }
    }
}

/// A check-file line is held whole up to a bound: an endless one
/// (`/dev/zero`) ends the list as GNU's failed allocation does, and a
/// merely huge one is read and parsed as any other (here, improperly
/// formatted).
#[test]
fn huge_check_lines() {
    if !have("prlimit") || !have("timeout") {
        return;
    }
    let t = TempDir::new();
    t.file("a", b"abc");
    let mut huge = format!("{ABC}  a\n").into_bytes();
    huge.extend(std::iter::repeat_n(b'x', 300_000));
    huge.extend_from_slice(format!("\n{ABC}  a\n#").as_bytes());
    huge.extend(std::iter::repeat_n(b'y', 300_000));
    huge.extend_from_slice(b"\n");
    t.file("huge", &huge);
    for flags in ["", "-w", "--strict", "--status", "--quiet"] {
        let script = format!(
            "timeout 60 prlimit --as=600000000 \
             bash -c 'exec -a md5sum \"$0\" -c {flags} /dev/zero' \"$0\""
        );
        let r = same_shell(t.path(), &script);
        assert_eq!(
            r.stderr,
            b"md5sum: /dev/zero: no properly formatted checksum lines found\n"
        );
        assert_eq!(r.code, Some(1));
        let r = same_shell(t.path(), &format!("exec -a md5sum \"$0\" -c {flags} huge"));
        if flags.is_empty() {
            assert_eq!(r.stdout, b"a: OK\na: OK\n");
            assert_eq!(
                r.stderr,
                b"md5sum: WARNING: 1 line is improperly formatted\n"
            );
        }
    }
}

/// Lines over 256 KiB are read whole and checked as GNU checks them: 300
/// KiB of blanks before a real file's line (OK), the long name of a
/// missing file and a real file's name made long with `./` (which the OS
/// refuses: "File name too long"), in both formats, among short lines:
/// unreadable files, exit 1, byte for byte as GNU with every option.
#[test]
fn long_check_lines_are_read_whole() {
    let t = TempDir::new();
    t.file("a", b"abc");
    let blanks = " ".repeat(300 << 10);
    let missing = "m".repeat(300 << 10);
    let dots = "./".repeat(150 << 10);
    let list = format!(
        "{blanks}{ABC}  a\n{ABC}  {missing}\n{ABC}  a\n{ABC}  {dots}a\n\
         MD5 ({dots}a) = {ABC}\n{blanks}{X}  a\n{ABC}  a\n"
    );
    t.file("long", list.as_bytes());
    for flags in [
        "",
        "-w",
        "--strict",
        "--status",
        "--quiet",
        "--ignore-missing",
    ] {
        let r = same_shell(t.path(), &format!("exec -a md5sum \"$0\" -c {flags} long"));
        assert_eq!(r.code, Some(1), "{flags}");
        if flags.is_empty() {
            let unread = ": FAILED open or read\n";
            let want = format!(
                "a: OK\n{missing}{unread}a: OK\n{dots}a{unread}{dots}a{unread}a: FAILED\na: OK\n"
            );
            assert!(r.stdout == want.as_bytes());
            let err = String::from_utf8_lossy(&r.stderr);
            assert_eq!(err.matches(": File name too long\n").count(), 3, "{err}");
            assert!(err.ends_with(
                "md5sum: WARNING: 3 listed files could not be read\n\
                 md5sum: WARNING: 1 computed checksum did NOT match\n"
            ));
        }
    }
}

/// The output file is also an input (`md5sum * > MD5SUMS`, run again): a
/// line is on stdout before any later input that may be the output file
/// is read, as GNU md5sum writes each line before it opens the next file,
/// with every thread count, among many files, through another name for
/// the file, and in check mode.
#[test]
fn output_file_is_also_an_input() {
    let t = TempDir::new();
    t.file("a", b"a\n");
    let want = b"60b725f10c9c85c70d97880dfe8191b3  a\nc8117214390b754190ee8df68333717f  sums\n";
    for jobs in ["", "{-j1}", "{-j2}", "{-j8}"] {
        let r = same_shell_ours(t.path(), &format!("\"$0\" {jobs} a sums > sums; cat sums"));
        assert_eq!(r.stdout, want, "{jobs}: {r}");
    }
    let mut names = Vec::new();
    for i in 0..300 {
        let name = format!("f{i:03}");
        t.file(&name, &noise(i * 37 % 70_000, i as u64 + 3));
        names.push(name);
    }
    let (before, after) = (names[..150].join(" "), names[150..].join(" "));
    for jobs in ["", "{-j1}", "{-j8}"] {
        let script = format!("ln -sf out link; \"$0\" {jobs} {before} link {after} > out; cat out");
        let r = same_shell_ours(t.path(), &script);
        let lines: Vec<&[u8]> = r.stdout.split(|&b| b == b'\n').collect();
        // What `out` held when it was read: the 150 lines before it.
        let held: Vec<u8> = r.stdout[..lines[..150].iter().map(|l| l.len() + 1).sum()].to_vec();
        assert_eq!(
            lines[150],
            format!("{}  link", md5_hex(&held)).as_bytes(),
            "{jobs}"
        );
    }
    // With -z no newline writes GNU's line buffer out: `out` holds only
    // the whole buffers (of the file's block size) of the records before.
    for jobs in ["", "{-j1}", "{-j8}"] {
        let script = format!("\"$0\" {jobs} -z {before} out {after} > out; cat out");
        let r = same_shell_ours(t.path(), &script);
        let block = std::os::unix::fs::MetadataExt::blksize(
            &std::fs::metadata(t.path().join("out")).unwrap(),
        ) as usize;
        let records: Vec<&[u8]> = r.stdout.split(|&b| b == 0).collect();
        let before_len: usize = records[..150].iter().map(|l| l.len() + 1).sum();
        let held = &r.stdout[..before_len / block * block];
        assert_eq!(
            records[150],
            [md5_hex(held).as_bytes(), b"  out"].concat(),
            "{jobs}"
        );
    }
    // Check mode: `out` holds `a: OK` when it is checked.
    t.file(
        "list",
        format!("{}  a\n{}  out\n", md5_hex(b"a\n"), md5_hex(b"a: OK\n")).as_bytes(),
    );
    for jobs in ["", "{-j1}", "{-j8}"] {
        let r = same_shell_ours(
            t.path(),
            &format!("\"$0\" {jobs} -c list > out; echo $?; cat out"),
        );
        assert_eq!(r.stdout, b"0\na: OK\nout: OK\n", "{jobs}: {r}");
    }
}

/// A checksum list read through `/dev/stdin` from a pipe, with an entry for
/// `-`: the list is read as GNU md5sum reads it (one line at a time through
/// a buffer of the pipe's block size, 4 KiB), so the `-` entry hashes the
/// rest of the pipe.
#[test]
fn check_list_and_its_dash_entry_share_a_pipe() {
    let t = TempDir::new();
    let rest = b"# the rest of the pipe, which the - entry hashes\n".repeat(40);
    let mut list = format!("{}  -\n", md5_hex(&rest)).into_bytes();
    let pad = 4096 - list.len() - 2;
    list.push(b'#');
    list.extend(std::iter::repeat_n(b'x', pad));
    list.push(b'\n');
    assert_eq!(list.len(), 4096);
    list.extend_from_slice(&rest);
    // The whole list is in the pipe before md5sum starts, so that every
    // read of it returns as much as asked for.
    let run = |bin: &str, jobs: Option<&str>| {
        let (reader, mut writer) = std::io::pipe().unwrap();
        writer.write_all(&list).unwrap();
        drop(writer);
        let mut cmd = Command::new(bin);
        cmd.arg0("md5sum").args(jobs).args(["-c", "/dev/stdin"]);
        let out = cmd.current_dir(t.path()).stdin(reader).output().unwrap();
        Run {
            stdout: out.stdout,
            stderr: out.stderr,
            code: out.status.code(),
        }
    };
    for jobs in [None, Some("-j1"), Some("-j8")] {
        let r = run(OURS, jobs);
        assert_eq!(
            (&r.stdout[..], &r.stderr[..], r.code),
            (&b"-: OK\n"[..], &b""[..], Some(0)),
            "{jobs:?}: {r}"
        );
    }
    if let Some(g) = gnu() {
        assert_eq!(run(g, None), run(OURS, None));
    }
    // The reproducer: how much of the pipe the list's first read
    // gets depends on timing, but never all of it.
    let r = same_shell(
        t.path(),
        &format!(
            "{{ echo '{EMPTY}  -'; yes '# padding padding' | head -300; }} | exec -a md5sum \"$0\" -c /dev/stdin"
        ),
    );
    assert_eq!(r.stdout, b"-: FAILED\n");
    assert_eq!(r.code, Some(1));
}
