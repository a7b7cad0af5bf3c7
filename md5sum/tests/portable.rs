//! Runs the built `md5sum` on every platform, Windows (under Wine in CI)
//! and macOS included: known answers for files, standard input and check
//! mode, with the platform's default mode marker (`*` on Windows, as in
//! GNU's Windows builds).

use std::path::{Path, PathBuf};
use std::process::Command;

use md5x_testkit::spawn::spawn_and_collect;

const OURS: &str = env!("CARGO_BIN_EXE_md5sum");
const ABC: &str = "900150983cd24fb0d6963f7d28e17f72";
const EMPTY: &str = "d41d8cd98f00b204e9800998ecf8427e";
/// The marker of the default mode: binary on Windows, text elsewhere.
const MARK: char = if cfg!(windows) { '*' } else { ' ' };

struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> Self {
        let p = std::env::temp_dir().join(format!("md5sum-portable-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }

    fn path(&self) -> &Path {
        &self.0
    }

    fn file(&self, name: &str, data: &[u8]) {
        std::fs::write(self.0.join(name), data).unwrap();
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

struct Run {
    stdout: String,
    stderr: String,
    code: Option<i32>,
}

fn run(dir: &Path, args: &[&str], stdin: &[u8]) -> Run {
    let out = spawn_and_collect(Command::new(OURS).args(args).current_dir(dir), stdin);
    Run {
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code(),
    }
}

#[test]
fn files_and_standard_input() {
    let t = TempDir::new("hash");
    t.file("abc", b"abc");
    t.file("empty", b"");
    t.file("crlf", b"a\r\nb\r\n");
    let crlf = "59b0d7772f0561efb95518f3cb8abc60"; // of "a\r\nb\r\n", untranslated
    for j in ["-j1", "-j4"] {
        let r = run(t.path(), &[j, "abc", "-", "empty", "crlf"], b"abc");
        let want =
            format!("{ABC} {MARK}abc\n{ABC} {MARK}-\n{EMPTY} {MARK}empty\n{crlf} {MARK}crlf\n");
        assert_eq!(r.stdout, want, "{j}");
        assert_eq!(r.code, Some(0));
        // The modes read the same bytes, and mark the names.
        let r = run(t.path(), &[j, "-b", "crlf"], b"");
        assert_eq!(r.stdout, format!("{crlf} *crlf\n"));
        let r = run(t.path(), &[j, "-t", "crlf"], b"");
        assert_eq!(r.stdout, format!("{crlf}  crlf\n"));
        let r = run(t.path(), &[j, "--tag", "abc"], b"");
        assert_eq!(r.stdout, format!("MD5 (abc) = {ABC}\n"));
    }
    let r = run(t.path(), &[], b"abc");
    assert_eq!(r.stdout, format!("{ABC} {MARK}-\n"));
    let r = run(t.path(), &["nope", "abc"], b"");
    assert_eq!(r.stdout, format!("{ABC} {MARK}abc\n"));
    assert!(r.stderr.contains(": nope: "), "{}", r.stderr);
    assert_eq!(r.code, Some(1));
}

#[test]
fn check_mode() {
    let t = TempDir::new("check");
    t.file("abc", b"abc");
    t.file("x", b"x");
    t.file(
        "sums",
        format!("{ABC} *abc\n{ABC}  x\nMD5 (abc) = {ABC}\r\ngarbage\n").as_bytes(),
    );
    let r = run(t.path(), &["-c", "sums"], b"");
    assert_eq!(r.stdout, "abc: OK\nx: FAILED\nabc: OK\n");
    assert!(r.stderr.contains("WARNING: 1 line is improperly formatted"));
    assert!(r
        .stderr
        .contains("WARNING: 1 computed checksum did NOT match"));
    assert_eq!(r.code, Some(1));
    // The list on standard input, and our own output checked back.
    let sums = run(t.path(), &["abc", "x"], b"").stdout;
    let r = run(t.path(), &["-c"], sums.as_bytes());
    assert_eq!(r.stdout, "abc: OK\nx: OK\n");
    assert_eq!(r.code, Some(0));
}

#[test]
fn help_names_the_platform_differences() {
    let t = TempDir::new("help");
    let r = run(t.path(), &["--help"], b"");
    assert!(r.stdout.starts_with("Usage: "), "{}", r.stdout);
    assert_eq!(r.stdout.contains("On Windows"), cfg!(windows));
}
