//! A run of the engine: md5sum's inputs as jobs of
//! `md5x::files::hash_in_order`, read as md5sum's I/O policy says, and
//! its results handed back in input order; standard input read on the
//! calling thread when its turn comes.

use super::io_policy::Reads;
use super::shared::{Config, Failed, HashError, Input, Outcome, Step, READ_STDIN, STDIN_CLOSED};
use crate::sys;
use md5x::files::{hash_in_order, hash_stream, Event, FileError, Job};
use md5x::{Digest, Md5};
use std::io;
use std::sync::atomic::Ordering;

/// Runs every item of `items` through `consume`, in order. An item with an
/// input gets the outcome of hashing it; an item without one (a message to
/// print in sequence, say) gets `None`. Before the engine blocks, the
/// consumer gets [`Step::Idle`]. Returns [`Failed`] when hashing panicked
/// on a worker, after consuming the items before the one it failed on.
///
/// Nothing after standard input is taken from `items` before standard
/// input is read, since the items may come from standard input too (a
/// checksum list read through `/dev/stdin` from a pipe, whose `-` entry
/// hashes the rest of the pipe, as with GNU md5sum).
pub fn run<T, I, F>(cfg: &Config<'_>, items: I, mut consume: F) -> Result<(), Failed>
where
    I: Iterator<Item = (Option<Input>, T)>,
    F: FnMut(Step<T>),
{
    let policy = Reads {
        sysfs: cfg.sysfs,
        output: cfg.output,
        read_in_turn: &cfg.read_in_turn,
    };
    let jobs = items.map(|(input, t)| match input {
        None => Job::Pass((false, t)),
        Some(Input::Stdin) => Job::Barrier((true, t)),
        Some(Input::Path(p)) => Job::File(p, (false, t)),
    });
    let mut spare = Vec::new();
    hash_in_order(
        jobs,
        cfg.jobs,
        cfg.control(),
        &policy,
        |event| match event {
            Event::Idle => consume(Step::Idle),
            Event::Pass((false, t)) => consume(Step::Item(t, None)),
            Event::Pass((true, t)) => {
                consume(Step::Idle);
                let r = hash_stdin(cfg, &mut spare);
                consume(Step::Item(t, Some(r)));
            }
            Event::File((_, t), r) => consume(Step::Item(t, Some(r.map_err(hash_error)))),
        },
    )
    .map_err(|_| Failed)
}

/// Hashes standard input (from wherever earlier reads left it), reading
/// ahead on a thread of its own when it is long.
fn hash_stdin(cfg: &Config<'_>, spare: &mut Vec<u8>) -> Outcome {
    READ_STDIN.store(true, Ordering::Relaxed);
    if STDIN_CLOSED.load(Ordering::Relaxed) {
        return Err(HashError {
            err: sys::ebadf(),
            at_open: false,
        });
    }
    hash_stream(Md5::new(), io::stdin(), &cfg.control(), spare).map_err(|err| HashError {
        err,
        at_open: false,
    })
}

/// A file's error as md5sum reports it: "could not open" apart from
/// "could not read".
fn hash_error(e: FileError) -> HashError {
    let at_open = e.at_open();
    HashError {
        err: e.into_error(),
        at_open,
    }
}
