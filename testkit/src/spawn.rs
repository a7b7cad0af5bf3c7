//! Running a command on given standard input and collecting what it
//! writes: the one spawn of the md5sum tests, `portable.rs` (every
//! platform) and the Unix harness in `mod.rs` alike.

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Runs `cmd` with `stdin` as its standard input and its output piped.
/// The input is written on a thread of its own, so that a child that
/// writes before it has read all its input cannot block against us.
pub fn spawn_and_collect(cmd: &mut Command, stdin: &[u8]) -> Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let feeder = std::thread::spawn(move || {
        // A child that exits without reading it all closes the pipe.
        let _ = input.write_all(&data);
    });
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    out
}
