//! `md5sum`: print or check MD5 checksums, with the interface, output bytes,
//! messages and exit codes of GNU coreutils md5sum 9.x, hashing files in
//! parallel with the md5x crate's files layer and fastest backends.

#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks)]

mod args;
mod compute;
mod context;
mod engine;
mod etag;
mod help;
mod output;
mod progress;
mod quote;
mod stdio;
mod sys;
mod verify;

use context::Ctx;
use output::{reason, Out};
use progress::Progress;
use std::ffi::OsString;
use std::io::{self, IsTerminal};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

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
    // Files on a spinning disk are read one at a time, in order: reading
    // many at once would make its head seek between them. MD5SUM_SYSFS
    // names another sysfs tree to read that from (a test seam).
    let sysfs_root = std::env::var_os("MD5SUM_SYSFS").map(PathBuf::from);
    let sysfs = sysfs_root
        .as_deref()
        .or_else(|| cfg!(target_os = "linux").then(|| Path::new("/sys")));
    let cx = Ctx {
        o: &o,
        engine: engine::Config::new(
            jobs,
            sysfs,
            sys::stdout_file(),
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
                ok &= verify::check_list(&cx, f, &mut reversed, &mut out);
            }
            ok
        } else {
            compute::hash_files(&cx, &files, &mut out)
        };
        drop(stop_drawing);
        // coreutils closes standard input at the end when it read it; that
        // fails only when it was closed to begin with.
        let ok = if engine::READ_STDIN.load(Ordering::Relaxed) && stdio::was_closed(0) {
            out.diag(format!("standard input: {}", reason(&sys::ebadf())).as_bytes());
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
    sys::limit_malloc_arenas();
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
            out.record(help::help(&prog_str).as_bytes());
            i32::from(!out.finish())
        }
        Ok(args::Parsed::Version) => {
            let mut out = Out::new(prog, None);
            out.record(help::version().as_bytes());
            i32::from(!out.finish())
        }
        Ok(args::Parsed::Run(o)) => run(o, prog),
    };
    std::process::exit(code);
}
