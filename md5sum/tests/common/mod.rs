//! The harness shared by the md5sum tests that run the binary: temporary
//! directories, running ours and GNU md5sum (argv[0] = "md5sum") and
//! comparing the two, and one seeded random number generator. Unix only.
#![allow(dead_code)] // each test crate uses a part

use std::ffi::{OsStr, OsString};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

pub use md5x_testkit::spawn::spawn_and_collect;
use std::sync::atomic::{AtomicUsize, Ordering};

pub const OURS: &str = env!("CARGO_BIN_EXE_md5sum");

/// A directory under the system temp dir, removed on drop.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new() -> Self {
        static N: AtomicUsize = AtomicUsize::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .subsec_nanos();
        let p = std::env::temp_dir().join(format!(
            "md5sum-cli-{}-{}-{nanos}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir(&p).unwrap();
        TempDir(p)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    pub fn file(&self, name: impl AsRef<OsStr>, data: &[u8]) {
        std::fs::write(self.0.join(name.as_ref()), data).unwrap();
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The GNU md5sum to compare against, if installed.
pub fn gnu() -> Option<&'static str> {
    static GNU: std::sync::OnceLock<Option<&'static str>> = std::sync::OnceLock::new();
    *GNU.get_or_init(|| {
        let path = "/usr/bin/md5sum";
        let out = Command::new(path).arg("--version").output().ok()?;
        if String::from_utf8_lossy(&out.stdout).contains("GNU coreutils") {
            Some(path)
        } else {
            eprintln!("GNU md5sum not found: the comparisons with GNU are skipped");
            None
        }
    })
}

#[derive(Debug, PartialEq, Eq, Clone)]
pub struct Run {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub code: Option<i32>,
}

impl std::fmt::Display for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "status {:?}\n--- stdout\n{}--- stderr\n{}",
            self.code,
            String::from_utf8_lossy(&self.stdout).escape_debug(),
            String::from_utf8_lossy(&self.stderr)
        )
    }
}

pub fn exec(bin: &str, dir: &Path, args: &[OsString], stdin: &[u8], env: &[(&str, &str)]) -> Run {
    let mut cmd = Command::new(bin);
    cmd.arg0("md5sum")
        .args(args)
        .current_dir(dir)
        .env_remove("POSIXLY_CORRECT")
        .env("LC_ALL", "C.UTF-8");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = spawn_and_collect(&mut cmd, stdin);
    Run {
        stdout: out.stdout,
        stderr: out.stderr,
        code: out.status.code(),
    }
}

pub fn os(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

pub const EMPTY: &str = "d41d8cd98f00b204e9800998ecf8427e";
pub const ABC: &str = "900150983cd24fb0d6963f7d28e17f72";
pub const X: &str = "9dd4e461268c8034f5c8564e155c67a6";

/// Runs a shell command line with `$OURS` or `$GNU` as the program.
pub fn shell(bin: &str, dir: &Path, script: &str) -> Run {
    let out = Command::new("bash")
        .arg("-c")
        .arg(script)
        .arg(bin)
        .current_dir(dir)
        .env("LC_ALL", "C.UTF-8")
        .output()
        .unwrap();
    Run {
        stdout: out.stdout,
        stderr: out.stderr,
        code: out.status.code(),
    }
}

pub fn same_shell(dir: &Path, script: &str) -> Run {
    let ours = shell(OURS, dir, script);
    if let Some(g) = gnu() {
        let theirs = shell(g, dir, script);
        assert_eq!(theirs, ours, "{script}\nGNU: {theirs}\nours: {ours}");
    }
    ours
}

/// Whether a command is installed (the tests that need it are skipped,
/// with a message, where it is not).
pub fn have(cmd: &str) -> bool {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {cmd}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("{cmd} not found: a case that needs it is skipped");
    }
    found
}

pub(crate) use md5x_testkit::Rng;

/// Deterministic pseudo-random bytes.
pub fn noise(len: usize, state: u64) -> Vec<u8> {
    Rng(state).bytes(len)
}

pub fn md5_hex(data: &[u8]) -> String {
    use md5x::{Digest, Md5};
    format!("{:x}", Md5::digest(data))
}
