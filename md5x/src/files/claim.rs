//! One thread's hashing of a claim (a run of consecutive paths), read as
//! the caller's [`ReadPolicy`] says: files that turn out small are read
//! whole and hashed together by `md5x::multi::digest_many_into`, long ones
//! side by side in lanes ([`hash_long`]); what is not in the page cache is
//! asked of the OS for the whole claim and read after the rest, or, on a
//! medium read in turn, read in the claim's turn and hashed after it.
//! Inputs routed [`Route::Alone`] are hashed here, in order
//! ([`hash_stream`]), or handed back for the caller's thread.

use super::fds::{open_waiting, Opened};
use super::fill::{buffer_for, read_whole};
use super::open::open_stream;
use super::policy::{Probe, ReadPolicy, Route};
use super::turn::Ticket;
use super::{fill, fill_until, hash_long, hash_stream, Control, LongInput, SMALL_MAX};
use crate::multi;
use crate::Md5;
use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::vec::Vec;

/// The most bytes a first read takes: a file that ends within them is read
/// whole (one of exactly [`SMALL_MAX`] bytes too, which a read of only
/// [`SMALL_MAX`] could not tell from a longer one); a longer one keeps them
/// as its head, a whole number of blocks, for [`hash_long`]'s lanes.
const HEAD: usize = SMALL_MAX + 64;

/// Why a file has no digest: the error, and whether it came at the open
/// (or the metadata before it) rather than at a read.
#[derive(Debug)]
pub(super) struct Failure {
    pub(super) error: io::Error,
    pub(super) at_open: bool,
}

/// A file's outcome: its digest, or why it has none.
pub(super) type Outcome = Result<[u8; 16], Failure>;

/// An error of a read, after the open.
fn read_failed(error: io::Error) -> Failure {
    Failure {
        error,
        at_open: false,
    }
}

/// An error of the open, or of the metadata before it.
fn open_failed(error: io::Error) -> Failure {
    Failure {
        error,
        at_open: true,
    }
}

/// What a claim makes of one path.
pub(super) enum Res {
    Done(Outcome),
    /// Routed [`Route::Alone`], for the caller's thread to read in order.
    Alone,
}

/// Bytes of files read whole in their turn, waiting in memory to be
/// hashed, across a run's threads.
#[derive(Default)]
pub(super) struct TurnMemory(AtomicU64);

/// Bytes counted against a [`TurnMemory`] until dropped.
struct Hold<'m> {
    memory: &'m TurnMemory,
    bytes: u64,
}

impl TurnMemory {
    /// Reserves `bytes` of at most `most`, if that many are left.
    fn hold(&self, bytes: u64, most: u64) -> Option<Hold<'_>> {
        self.0
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |held| {
                held.checked_add(bytes).filter(|&t| t <= most)
            })
            .ok()?;
        Some(Hold {
            memory: self,
            bytes,
        })
    }
}

impl Drop for Hold<'_> {
    fn drop(&mut self) {
        self.memory.0.fetch_sub(self.bytes, Ordering::AcqRel);
    }
}

/// One thread's buffers, reused from claim to claim: a slot per small file
/// of a claim (at most [`HEAD`] bytes each), and the read buffer of
/// [`hash_stream`].
pub(super) struct Worker<'r, P: ?Sized> {
    control: Control<'r>,
    policy: &'r P,
    memory: &'r TurnMemory,
    /// Inputs routed [`Route::Alone`] are hashed in the claim (in order,
    /// on this thread), rather than handed back.
    alone_here: bool,
    slots: Vec<Vec<u8>>,
    spare: Vec<u8>,
}

/// An open file whose first bytes were not in the page cache: the OS has
/// been asked for them, and it is read after the others.
struct Later {
    pos: usize,
    len: u64,
    file: Opened,
}

/// A file read whole in its claim's turn.
struct InMemory<'m> {
    pos: usize,
    data: Vec<u8>,
    _hold: Hold<'m>,
}

/// What a claim has found so far, by position in the claim.
struct Found<'m> {
    out: Vec<Option<Res>>,
    /// (position, slot, length) of the files read whole into slots.
    small: Vec<(usize, usize, usize)>,
    /// The long files, open, their heads read.
    long: Vec<LongInput<Opened>>,
    later: Vec<Later>,
    in_memory: Vec<InMemory<'m>>,
    /// (position, length) of the files to read in the claim's turn.
    in_turn: Vec<(usize, u64)>,
}

/// How a first read went.
enum First {
    /// Handled: read whole into a slot, kept as a long file, or failed.
    Done,
    /// Not in the page cache; the file comes back, nothing read.
    NotCached(Opened),
}

impl<'r, P: ReadPolicy + ?Sized> Worker<'r, P> {
    pub(super) fn new(
        control: Control<'r>,
        policy: &'r P,
        memory: &'r TurnMemory,
        alone_here: bool,
    ) -> Self {
        Self {
            control,
            policy,
            memory,
            alone_here,
            slots: Vec::new(),
            spare: Vec::new(),
        }
    }

    /// Opens `path` (through the policy, where it opens inputs read alone
    /// too) and hashes it alone, in order.
    pub(super) fn hash_alone(&mut self, path: &Path) -> Outcome {
        self.control.check().map_err(open_failed)?;
        let (policy, control) = (self.policy, self.control);
        if policy.open_alone_too() {
            let file =
                open_waiting(|| policy.open(path), || false, &control).map_err(open_failed)?;
            return hash_stream(Md5::default(), file, &control, &mut self.spare)
                .map_err(read_failed);
        }
        let meta = std::fs::metadata(path).map_err(open_failed)?;
        let stream = open_stream(path, &meta, control, || false).map_err(open_failed)?;
        hash_stream(Md5::default(), stream, &control, &mut self.spare).map_err(read_failed)
    }

    /// What comes of each of `paths`, in order. `ticket` is the claim's
    /// place in the order of turns.
    pub(super) fn hash_claim<Q: AsRef<Path>>(
        &mut self,
        paths: &[Q],
        ticket: Ticket<'_>,
    ) -> Vec<Res> {
        let memory = self.memory;
        let mut f = Found {
            out: paths.iter().map(|_| None).collect(),
            small: Vec::new(),
            long: Vec::new(),
            later: Vec::new(),
            in_memory: Vec::new(),
            in_turn: Vec::new(),
        };
        let control = self.control;
        for (pos, path) in paths.iter().enumerate() {
            let path = path.as_ref();
            if let Err(e) = control.check() {
                f.out[pos] = Some(Res::Done(Err(open_failed(e))));
                continue;
            }
            // A failed stat is left to the open, which fails the same way.
            let (len, in_turn) = match std::fs::metadata(path) {
                Ok(m) => match self.policy.route(path, &m) {
                    Route::Alone => {
                        f.out[pos] = Some(self.alone(path, &m, &mut f));
                        continue;
                    }
                    route => (m.len(), route == Route::InTurn),
                },
                Err(_) => (SMALL_MAX as u64, false),
            };
            let Some(file) = self.open_in_claim(&mut f, pos, path) else {
                continue;
            };
            if in_turn && len > SMALL_MAX as u64 && !self.policy.mostly_cached(file.file(), len) {
                f.in_turn.push((pos, len));
                continue;
            }
            if let First::NotCached(file) = self.read_first(&mut f, pos, file, len, true) {
                if in_turn {
                    f.in_turn.push((pos, len));
                } else {
                    self.policy.read_ahead(file.file(), len, false);
                    f.later.push(Later { pos, len, file });
                }
            }
        }
        self.read_later(&mut f);
        if f.in_turn.is_empty() {
            drop(ticket);
        } else {
            // Hold no descriptor while waiting: an earlier claim may need
            // one to take its turn.
            self.finish_long(&mut f);
            ticket.wait();
            self.read_in_turn(&mut f, paths, memory);
            drop(ticket);
        }
        self.hash_in_memory(&mut f);
        self.finish_long(&mut f);
        f.out
            .into_iter()
            .map(|r| r.unwrap_or(Res::Done(Err(open_failed(io::Error::other("not hashed"))))))
            .collect()
    }

    /// An input routed [`Route::Alone`]: hashed here, in order, where this
    /// worker does so (opened without blocking where its reads can wait,
    /// looking at the stop flag); else handed back.
    fn alone(&mut self, path: &Path, meta: &std::fs::Metadata, f: &mut Found<'_>) -> Res {
        if !self.alone_here {
            return Res::Alone;
        }
        if self.policy.open_alone_too() {
            return Res::Done(self.hash_alone(path));
        }
        // Where no descriptor is left, the long files held so far are
        // hashed first, to close them.
        let control = self.control;
        let stream = open_stream(path, meta, control, || self.finish_long(f));
        let stream = match stream {
            Ok(s) => s,
            Err(e) => return Res::Done(Err(open_failed(e))),
        };
        Res::Done(
            hash_stream(Md5::default(), stream, &control, &mut self.spare).map_err(read_failed),
        )
    }

    /// Opens a file of the claim through the policy; an error goes to its
    /// place in `out`. Where no descriptor is left, this thread's open
    /// files are read and hashed first, to close them.
    fn open_in_claim(&mut self, f: &mut Found<'_>, pos: usize, path: &Path) -> Option<Opened> {
        let policy = self.policy;
        let control = self.control;
        let opened = open_waiting(
            || policy.open(path),
            || {
                if !f.later.is_empty() {
                    self.read_later(f);
                    true
                } else {
                    self.finish_long(f)
                }
            },
            &control,
        );
        opened
            .map_err(|e| f.out[pos] = Some(Res::Done(Err(open_failed(e)))))
            .ok()
    }

    /// Reads the first bytes of `file`, a regular file said to be `len`
    /// bytes long: the whole file, if it ends within [`HEAD`] bytes (so
    /// every file of up to [`SMALL_MAX`] bytes), into a slot; else its
    /// first [`HEAD`] bytes, kept with the open file as a long file; an
    /// error to `out`. `len` sizes the first read, so that small files
    /// take little memory, and ends it: reading exactly that much means
    /// the file was read whole (one that grew since fills more of the
    /// buffer), which saves the read that returns 0. With `probe`, a first
    /// read that would wait for the disk is not made.
    fn read_first(
        &mut self,
        f: &mut Found<'_>,
        pos: usize,
        mut file: Opened,
        len: u64,
        probe: bool,
    ) -> First {
        let slot = f.small.len();
        while self.slots.len() <= slot {
            self.slots.push(Vec::new());
        }
        let mut buf = std::mem::take(&mut self.slots[slot]);
        let first = usize::try_from(len).map_or(HEAD, |l| l.saturating_add(1).min(HEAD));
        buf.resize(first, 0);
        let known = usize::try_from(len).ok().filter(|&l| l > 0 && l < first);
        let (mut n, mut eof) = (0, false);
        if probe {
            match self.policy.probe(file.file(), &mut buf) {
                Probe::Read(k) => {
                    let k = k.min(buf.len());
                    self.control.count(k);
                    (n, eof) = (k, k == 0);
                }
                Probe::NotCached => {
                    self.slots[slot] = buf;
                    return First::NotCached(file);
                }
                Probe::Unknown => {}
            }
        }
        let control = self.control;
        let mut read = Ok(n);
        if !eof && known != Some(n) {
            read = fill_until(&mut file, &mut buf, n, known, &control);
        }
        if matches!(read, Ok(n) if n == first && first < HEAD) {
            buf.resize(HEAD, 0);
            read = fill(&mut file, &mut buf[first..], &control).map(|more| first + more);
        }
        match read {
            Ok(n) if n < HEAD => {
                f.small.push((pos, slot, n));
                self.slots[slot] = buf;
            }
            // The head goes with the file; the slot gets a new buffer.
            Ok(_) => f.long.push(LongInput {
                id: pos,
                head: buf,
                reader: file,
            }),
            Err(e) => {
                f.out[pos] = Some(Res::Done(Err(read_failed(e))));
                self.slots[slot] = buf;
            }
        }
        First::Done
    }

    /// Reads the files whose first bytes were not in the page cache (by
    /// now the OS has had them in flight).
    fn read_later(&mut self, f: &mut Found<'_>) {
        for l in std::mem::take(&mut f.later) {
            self.read_first(f, l.pos, l.file, l.len, false);
        }
    }

    /// Reads the claim's files routed [`Route::InTurn`], in order, in the
    /// claim's turn: each whole into memory while the policy's
    /// [`in_turn_memory`](ReadPolicy::in_turn_memory) allows, else
    /// streamed (read as it is hashed) in the turn. What was read whole is
    /// hashed by [`Worker::hash_in_memory`], after the turn.
    fn read_in_turn<'m, Q: AsRef<Path>>(
        &mut self,
        f: &mut Found<'m>,
        paths: &[Q],
        memory: &'m TurnMemory,
    ) {
        let in_turn = std::mem::take(&mut f.in_turn);
        let most = self.policy.in_turn_memory();
        for (i, &(pos, len)) in in_turn.iter().enumerate() {
            let path = paths[pos].as_ref();
            self.policy.reading_in_turn(path);
            // The next file is asked of the OS while this one is read, so
            // that the medium, still in order, always has the next read.
            if let Some(&(next, next_len)) = in_turn.get(i + 1).filter(|n| n.1 > SMALL_MAX as u64) {
                let policy = self.policy;
                let next_path = paths[next].as_ref();
                if let Ok(file) = open_waiting(|| policy.open(next_path), || false, &self.control) {
                    policy.read_ahead(file.file(), next_len, true);
                }
            }
            let Some(mut file) = self.open_in_claim(f, pos, path) else {
                continue;
            };
            if len <= SMALL_MAX as u64 {
                self.read_first(f, pos, file, len, false);
                // One that grew past a slot is streamed now, in its turn.
                self.finish_long(f);
                continue;
            }
            let room = memory
                .hold(len, most)
                .and_then(|hold| Some((hold, buffer_for(len)?)));
            let control = self.control;
            let r = match room {
                Some((hold, buf)) => read_whole(&mut file, buf, &control).map(|data| {
                    f.in_memory.push(InMemory {
                        pos,
                        data,
                        _hold: hold,
                    });
                    None
                }),
                None => hash_stream(Md5::default(), file, &control, &mut self.spare).map(Some),
            };
            match r {
                Ok(None) => {}
                Ok(Some(d)) => f.out[pos] = Some(Res::Done(Ok(d))),
                Err(e) => f.out[pos] = Some(Res::Done(Err(read_failed(e)))),
            }
        }
    }

    /// Hashes the files read whole (into slots, or into memory in a turn)
    /// in one batch.
    fn hash_in_memory(&mut self, f: &mut Found<'_>) {
        if f.small.is_empty() && f.in_memory.is_empty() {
            return;
        }
        let in_memory = std::mem::take(&mut f.in_memory);
        let msgs: Vec<&[u8]> = f
            .small
            .iter()
            .map(|&(_, slot, n)| &self.slots[slot][..n])
            .chain(in_memory.iter().map(|m| &m.data[..]))
            .collect();
        let mut digests = std::vec![[0u8; 16]; msgs.len()];
        multi::digest_many_into(&msgs, &mut digests);
        let positions = f
            .small
            .drain(..)
            .map(|s| s.0)
            .chain(in_memory.iter().map(|m| m.pos));
        for (pos, d) in positions.zip(digests) {
            f.out[pos] = Some(Res::Done(Ok(d)));
        }
    }

    /// Hashes the long files found so far, closing them; whether there
    /// were any.
    fn finish_long(&mut self, f: &mut Found<'_>) -> bool {
        let long = std::mem::take(&mut f.long);
        if long.is_empty() {
            return false;
        }
        for (pos, r) in hash_long(long, &self.control, &mut self.spare) {
            f.out[pos] = Some(Res::Done(r.map_err(read_failed)));
        }
        true
    }
}
