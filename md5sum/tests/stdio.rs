//! md5sum under the standard descriptors and SIGPIPE dispositions that
//! scripts give it: closed descriptors, a read-write `/dev/null` (Python's
//! `subprocess.DEVNULL`), a write-only standard input (`nohup`), a full
//! disk, a read-only standard output, an ignored SIGPIPE. Each case asserts
//! its known answer, and GNU md5sum's identical bytes where it is
//! installed. Linux only: it names `/proc/self/fd` and `/dev/full`, and
//! only there is a closed descriptor told apart from the runtime's stand-in.
#![cfg(target_os = "linux")]

mod common;

use common::*;

/// Runs `md5sum LINE` in bash (its redirections apply to md5sum alone),
/// checks ours against the known answer and, where installed, GNU's.
fn expect(t: &TempDir, line: &str, stdout: &str, stderr: &str, code: i32) {
    let script = format!("exec -a md5sum \"$0\" {line}");
    let r = same_shell(t.path(), &script);
    let want = Run {
        stdout: stdout.as_bytes().to_vec(),
        stderr: stderr.as_bytes().to_vec(),
        code: Some(code),
    };
    assert_eq!(r, want, "md5sum {line}\nours: {r}\nwanted: {want}");
}

fn fixture() -> TempDir {
    let t = TempDir::new();
    t.file("f", b"abc");
    t.file("sums", format!("{ABC}  f\n").as_bytes());
    t.file("dash", format!("{EMPTY}  -\n").as_bytes());
    t.file("bad", format!("bad line\n{ABC}  f\n").as_bytes());
    t
}

/// A `/dev/null` opened read-write is an ordinary descriptor; only a
/// closed one fails.
#[test]
fn read_write_dev_null() {
    let t = fixture();
    expect(&t, "/dev/null 1<>/dev/null", "", "", 0);
    expect(&t, "-c sums 1<>/dev/null", "", "", 0);
    expect(&t, "0<>/dev/null", &format!("{EMPTY}  -\n"), "", 0);
    expect(
        &t,
        "- f 0<>/dev/null",
        &format!("{EMPTY}  -\n{ABC}  f\n"),
        "",
        0,
    );
    if have("python3") {
        // What a Python caller really does.
        let script = "python3 -c 'import subprocess as s, sys
r = s.run([sys.argv[1], \"-c\", \"sums\"], stdin=s.DEVNULL, stdout=s.DEVNULL)
sys.exit(r.returncode)' \"$0\"";
        let r = same_shell(t.path(), script);
        assert_eq!(r.code, Some(0), "{r}");
    }
}

/// A closed standard input fails to read, and names for it (`/dev/stdin`,
/// `/proc/self/fd/0`) name no file; the same for standard output and
/// standard error. `/dev/null` itself still opens.
#[test]
fn closed_descriptors() {
    let t = fixture();
    for name in ["/dev/stdin", "/proc/self/fd/0", "/dev/fd/0"] {
        let err = format!("md5sum: {name}: No such file or directory\n");
        expect(&t, &format!("{name} <&-"), "", &err, 1);
        expect(&t, &format!("-c {name} <&-"), "", &err, 1);
    }
    expect(&t, "/dev/null <&-", &format!("{EMPTY}  /dev/null\n"), "", 0);
    expect(
        &t,
        "-c dash <&-",
        "-: FAILED open or read\n",
        "md5sum: -: Bad file descriptor\n\
         md5sum: WARNING: 1 listed file could not be read\n\
         md5sum: standard input: Bad file descriptor\n",
        1,
    );
    expect(
        &t,
        "/dev/stdout f >&-",
        "",
        "md5sum: /dev/stdout: No such file or directory\n\
         md5sum: write error: Bad file descriptor\n",
        1,
    );
    // Neither the failure nor its message can be seen, only the status.
    expect(&t, "/dev/stderr 2>&-", "", "", 1);
    expect(&t, "f 2>&-", &format!("{ABC}  f\n"), "", 0);
}

/// A standard input open for writing only (what `nohup` leaves when it was
/// a terminal) fails to read with EBADF; `/dev/stdin` opens it anew.
#[test]
fn write_only_standard_input() {
    let t = fixture();
    let ebadf = "md5sum: -: Bad file descriptor\n";
    expect(&t, "0>/dev/null", "", ebadf, 1);
    expect(&t, "- f 0>/dev/null", &format!("{ABC}  f\n"), ebadf, 1);
    expect(
        &t,
        "-c 0>/dev/null",
        "",
        "md5sum: 'standard input': read error\n",
        1,
    );
    expect(
        &t,
        "-c dash 0>/dev/null",
        "-: FAILED open or read\n",
        "md5sum: -: Bad file descriptor\nmd5sum: WARNING: 1 listed file could not be read\n",
        1,
    );
    expect(
        &t,
        "/dev/stdin 0>/dev/null",
        &format!("{EMPTY}  /dev/stdin\n"),
        "",
        0,
    );
}

/// With SIGPIPE ignored by the parent, a closed pipe is a write error;
/// with it at its default, the signal ends md5sum (see tests/cli.rs).
#[test]
fn ignored_sigpipe() {
    let t = fixture();
    for (flags, err) in [
        ("", "md5sum: write error\n"),
        ("-z", "md5sum: write error: Broken pipe\n"),
    ] {
        // More than a pipe holds, so that writes must fail after `head`
        // exits.
        let script = format!(
            "trap '' PIPE; set -o pipefail
            exec -a md5sum \"$0\" {flags} $(printf 'f %.0s' {{1..5000}}) | head -c1"
        );
        let r = same_shell(t.path(), &script);
        assert_eq!(r.stdout, &ABC.as_bytes()[..1]);
        assert_eq!(String::from_utf8_lossy(&r.stderr), err, "{flags}");
        assert_eq!(r.code, Some(1));
    }
}

/// `write error` carries the error's text only where coreutils'
/// `close_stdout` has one: the final flush failed (GNU line buffers
/// stdout, so only `-z` output is still buffered at exit) or the
/// descriptor was closed from the start.
#[test]
fn write_error_wording() {
    let t = fixture();
    let plain = "md5sum: write error\n";
    expect(&t, "/dev/null >/dev/full", "", plain, 1);
    expect(
        &t,
        "-z /dev/null >/dev/full",
        "",
        "md5sum: write error: No space left on device\n",
        1,
    );
    expect(&t, "/dev/null 1</dev/null", "", plain, 1);
    expect(
        &t,
        "-z /dev/null 1</dev/null",
        "",
        "md5sum: write error: Bad file descriptor\n",
        1,
    );
    // A diagnostic flushes stdout, so nothing is buffered at exit.
    expect(
        &t,
        "-z f nope >/dev/full",
        "",
        "md5sum: nope: No such file or directory\nmd5sum: write error\n",
        1,
    );
    expect(
        &t,
        "-z f >&-",
        "",
        "md5sum: write error: Bad file descriptor\n",
        1,
    );
    expect(&t, "-c sums >/dev/full", "", plain, 1);
}

/// A diagnostic that cannot be written fails the run, as in GNU md5sum,
/// even where the diagnostic alone would not (a warning).
#[test]
fn failed_diagnostics() {
    let t = fixture();
    for redirect in ["2>/dev/full", "2>&-", "2</dev/null"] {
        expect(&t, &format!("-c bad {redirect}"), "f: OK\n", "", 1);
        expect(&t, &format!("-x {redirect}"), "", "", 1);
        expect(&t, &format!("--t {redirect}"), "", "", 1);
        expect(&t, &format!("f {redirect}"), &format!("{ABC}  f\n"), "", 0);
    }
}
