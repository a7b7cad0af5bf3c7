//! Hashing one claim (a run of regular files in input order) on one
//! thread: files that turn out small are read whole and hashed together
//! through [`hash_batch`]; large ones go to `md5x::files::hash_long`.
//!
//! Reading follows the I/O policy ([`io_policy`]): a file's first read
//! does not wait for the disk ([`page_cache`](super::page_cache)). What is not in the page cache is asked of
//! the kernel for the whole claim at once and read after the rest, so
//! that many reads are in flight; on a spinning disk it is read instead in
//! the claim's turn, in order, and hashed after the turn is passed.

use super::fds::{open, Opened};
use super::io_policy::{self, Held, Ticket};
use super::page_cache::{mostly_cached, read_cached};
use super::read::{buffer_for, read_whole};
use super::shared::{Config, HashError, Outcome, Res, READ_STDIN, STDIN_CLOSED};
use crate::sys::{self, Cached};
use md5x::files::{fill, fill_until, hash_long, hash_stream, LongInput};
use md5x::multi;
use md5x::{Digest, Md5};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

/// A file read whole when it is shorter; longer ones are streamed.
pub use md5x::files::SMALL_MAX;

/// Hashing a file of this name panics (test builds only).
#[cfg(test)]
pub const PANIC_HERE: &str = "panic-here";

/// Hashes several whole messages. Small files meet the multi-buffer
/// backend here and nowhere else.
pub fn hash_batch(msgs: &[&[u8]], out: &mut [[u8; 16]]) {
    multi::digest_many_into(msgs, out);
}

/// Per-thread buffers, reused from claim to claim.
pub struct Worker<'c, 'a> {
    cfg: &'c Config<'a>,
    spare: Vec<u8>,
    slots: Vec<Vec<u8>>,
}

/// An open file whose first bytes were not in the page cache: the kernel
/// has been asked for them, and it is read after the others.
struct Later {
    pos: usize,
    len: u64,
    file: Opened,
}

/// A file on a spinning disk read whole in the disk's turn.
struct InMemory {
    pos: usize,
    data: Vec<u8>,
    _held: Held,
}

/// What a claim has found so far, by position in the claim.
#[derive(Default)]
struct Found {
    out: Vec<Option<Res>>,
    /// (position, slot, length) of files read whole into slots.
    small: Vec<(usize, usize, usize)>,
    large: Vec<LongInput<Opened>>,
    later: Vec<Later>,
    in_memory: Vec<InMemory>,
    /// (position, length) of files on a spinning disk, not in memory.
    on_disk: Vec<(usize, u64)>,
}

/// How a first read went.
enum First {
    /// Handled: read whole into a slot, opened as a large file, or failed.
    Done,
    /// Not in the page cache; the file comes back, nothing read.
    NotCached(Opened),
}

impl<'c, 'a> Worker<'c, 'a> {
    pub fn new(cfg: &'c Config<'a>) -> Self {
        Worker {
            cfg,
            spare: Vec::new(),
            slots: Vec::new(),
        }
    }

    /// Hashes the rest of `src` into `h`, reading ahead on a thread of its
    /// own when it is long.
    fn stream(&mut self, h: Md5, src: impl io::Read + Send) -> io::Result<[u8; 16]> {
        hash_stream(h, src, &self.cfg.control(), &mut self.spare)
    }

    /// Hashes standard input (from wherever earlier reads left it).
    pub fn hash_stdin(&mut self) -> Outcome {
        READ_STDIN.store(true, Ordering::Relaxed);
        if STDIN_CLOSED.load(Ordering::Relaxed) {
            return Err(HashError {
                err: sys::ebadf(),
                at_open: false,
            });
        }
        self.stream(Md5::new(), io::stdin())
            .map_err(|err| HashError {
                err,
                at_open: false,
            })
    }

    /// Opens and streams one input, alone.
    pub fn hash_alone(&mut self, path: &Path) -> Outcome {
        let file = open(path, || false).map_err(|err| HashError { err, at_open: true })?;
        self.stream(Md5::new(), file).map_err(|err| HashError {
            err,
            at_open: false,
        })
    }

    /// Hashes a claim of regular files, returning each outcome with its
    /// index. Inputs that are not regular files, and the file standard
    /// output writes to, come back as [`Res::Alone`]. `ticket` is the
    /// claim's place in the spinning disks' order.
    pub fn hash_files(
        &mut self,
        claim: &[(usize, PathBuf)],
        ticket: Ticket<'_>,
    ) -> Vec<(usize, Res)> {
        let mut f = Found {
            out: claim.iter().map(|_| None).collect(),
            ..Found::default()
        };
        for (pos, (_, path)) in claim.iter().enumerate() {
            #[cfg(test)]
            if path.ends_with(PANIC_HERE) {
                panic!("injected failure");
            }
            // A failed stat is left to the open, which fails the same way.
            let (len, spinning) = match std::fs::metadata(path) {
                Ok(m) if !m.is_file() => {
                    f.out[pos] = Some(Res::Alone(path.clone()));
                    continue;
                }
                // Read in order, after every line before it is written:
                // what it holds then is what GNU md5sum would read.
                Ok(m) if self.cfg.output.is_some() && sys::file_id(&m) == self.cfg.output => {
                    f.out[pos] = Some(Res::Alone(path.clone()));
                    continue;
                }
                Ok(m) => (
                    m.len(),
                    self.cfg
                        .sysfs
                        .is_some_and(|s| io_policy::on_spinning_disk(s, &m)),
                ),
                Err(_) => (SMALL_MAX as u64, false),
            };
            let Some(file) = self.open_in_claim(&mut f, pos, path) else {
                continue;
            };
            if spinning && len > SMALL_MAX as u64 && !mostly_cached(&file, len) {
                f.on_disk.push((pos, len));
                continue;
            }
            if let First::NotCached(file) = self.read_first(&mut f, pos, file, len, true) {
                if spinning {
                    f.on_disk.push((pos, len));
                } else {
                    md5x::files::will_need(file.file(), 0, len.min(io_policy::HINT_MAX));
                    f.later.push(Later { pos, len, file });
                }
            }
        }
        self.read_later(&mut f);
        if f.on_disk.is_empty() {
            drop(ticket);
        } else {
            // Hold no descriptor while waiting: an earlier claim may need
            // one to take its turn.
            self.finish_large(&mut f);
            ticket.wait();
            self.read_in_turn(&mut f, claim);
            drop(ticket);
        }
        self.hash_in_memory(&mut f);
        self.finish_large(&mut f);
        claim
            .iter()
            .zip(f.out)
            .map(|((idx, _), r)| (*idx, r.expect("every input of a claim has an outcome")))
            .collect()
    }

    /// Opens a file of the claim; an error goes to its place in `out`.
    /// When no descriptor is left, this thread's open files are read and
    /// hashed first, to close them.
    fn open_in_claim(&mut self, f: &mut Found, pos: usize, path: &Path) -> Option<Opened> {
        let opened = open(path, || {
            if !f.later.is_empty() {
                self.read_later(f);
                true
            } else if !f.large.is_empty() {
                self.finish_large(f);
                true
            } else {
                false
            }
        });
        opened
            .map_err(|err| f.out[pos] = Some(Res::Done(Err(HashError { err, at_open: true }))))
            .ok()
    }

    /// Reads a file's first [`SMALL_MAX`] bytes: a file that ends there
    /// goes to `small` (its bytes in a slot), an error to `out`, and a
    /// longer file to `large`, open. `len`, the length the file had a
    /// moment ago, sizes the first read, so that small files take little
    /// memory, and ends it: reading exactly that much means the file was
    /// read whole (one that grew since would have filled more of the
    /// buffer), which saves the read that returns 0, a fifth of the system
    /// calls for a small file. With `probe`, a first read that would wait
    /// for the disk is not made.
    fn read_first(
        &mut self,
        f: &mut Found,
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
        let first = usize::try_from(len).map_or(SMALL_MAX, |l| (l + 1).min(SMALL_MAX));
        buf.resize(first, 0);
        let known = usize::try_from(len).ok().filter(|&l| l > 0 && l < first);
        let mut n = 0;
        let mut eof = false;
        if probe {
            match read_cached(&file, &mut buf) {
                Cached::Read(k) => {
                    self.cfg.bytes.fetch_add(k as u64, Ordering::Relaxed);
                    (n, eof) = (k, k == 0);
                }
                Cached::No => {
                    self.slots[slot] = buf;
                    return First::NotCached(file);
                }
                Cached::Unsupported | Cached::Failed => {}
            }
        }
        let control = self.cfg.control();
        let mut read = Ok(n);
        if !eof && known != Some(n) {
            read = fill_until(&mut file, &mut buf, n, known, &control);
        }
        if matches!(read, Ok(n) if n == first && first < SMALL_MAX) {
            buf.resize(SMALL_MAX, 0);
            read = fill(&mut file, &mut buf[first..], &control).map(|more| first + more);
        }
        match read {
            Ok(n) if n < SMALL_MAX => {
                f.small.push((pos, slot, n));
                self.slots[slot] = buf;
            }
            Ok(_) => f.large.push(LongInput {
                id: pos,
                head: buf,
                reader: file,
            }),
            Err(err) => {
                f.out[pos] = Some(Res::Done(Err(HashError {
                    err,
                    at_open: false,
                })));
                self.slots[slot] = buf;
            }
        }
        First::Done
    }

    /// Reads the files whose first bytes were not in the page cache (by
    /// now the kernel has had them in flight).
    fn read_later(&mut self, f: &mut Found) {
        for l in std::mem::take(&mut f.later) {
            self.read_first(f, l.pos, l.file, l.len, false);
        }
    }

    /// Reads the claim's files on spinning disks, in order, in the claim's
    /// turn: each whole into memory while [`io_policy::hold`] allows, else
    /// streamed (read as it is hashed) in its turn. Hashing what was read
    /// whole waits for [`Worker::hash_in_memory`], after the turn.
    fn read_in_turn(&mut self, f: &mut Found, claim: &[(usize, PathBuf)]) {
        let on_disk = std::mem::take(&mut f.on_disk);
        for (i, &(pos, len)) in on_disk.iter().enumerate() {
            self.cfg.read_in_turn.fetch_add(1, Ordering::Relaxed);
            // The next file is asked of the kernel while this one is read,
            // so that the disk, still in order, always has the next read.
            if let Some(&(next, next_len)) = on_disk.get(i + 1).filter(|n| n.1 > SMALL_MAX as u64) {
                if let Ok(file) = open(&claim[next].1, || false) {
                    md5x::files::will_need(
                        file.file(),
                        0,
                        next_len.min(io_policy::HINT_MAX_IN_TURN),
                    );
                }
            }
            let Some(mut file) = self.open_in_claim(f, pos, &claim[pos].1) else {
                continue;
            };
            if len <= SMALL_MAX as u64 {
                self.read_first(f, pos, file, len, false);
                // One that grew past a slot is streamed now, in its turn.
                self.finish_large(f);
                continue;
            }
            let room = io_policy::hold(len).and_then(|held| Some((held, buffer_for(len)?)));
            let r = match room {
                Some((held, buf)) => read_whole(&mut file, buf, &self.cfg.control()).map(|data| {
                    f.in_memory.push(InMemory {
                        pos,
                        data,
                        _held: held,
                    });
                    None
                }),
                None => self.stream(Md5::new(), file).map(Some),
            };
            match r {
                Ok(None) => {}
                Ok(Some(d)) => f.out[pos] = Some(Res::Done(Ok(d))),
                Err(err) => f.out[pos] = Some(done(Err(err))),
            }
        }
    }

    /// Hashes the files read whole (into slots, or into memory in a disk's
    /// turn) in one batch.
    fn hash_in_memory(&mut self, f: &mut Found) {
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
        let mut digests = vec![[0u8; 16]; msgs.len()];
        hash_batch(&msgs, &mut digests);
        let positions = f
            .small
            .drain(..)
            .map(|s| s.0)
            .chain(in_memory.iter().map(|m| m.pos));
        for (pos, d) in positions.zip(digests) {
            f.out[pos] = Some(Res::Done(Ok(d)));
        }
    }

    /// Hashes the large files found so far into their places in `out`.
    fn finish_large(&mut self, f: &mut Found) {
        let large = std::mem::take(&mut f.large);
        for (pos, r) in hash_long(large, &self.cfg.control(), &mut self.spare) {
            f.out[pos] = Some(done(r));
        }
    }
}

/// The outcome of a file that opened: a read error, if any, is not an
/// open error.
fn done(r: io::Result<[u8; 16]>) -> Res {
    Res::Done(r.map_err(|err| HashError {
        err,
        at_open: false,
    }))
}
