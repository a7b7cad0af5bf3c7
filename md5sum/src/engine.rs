//! Hashing many inputs: in parallel across worker threads, results handed
//! back in input order, with a bounded window of inputs in flight.
//!
//! Small files are read whole and hashed together through [`hash_batch`];
//! larger ones are streamed through [`Md5`] with a large read buffer, or
//! side by side through [`Lanes`].
//!
//! Only regular files are read out of order or side by side. Anything else
//! (standard input, pipes, FIFOs, character devices, `/dev/stdin`) is read
//! on the calling thread, alone and in argument order: two names for one
//! pipe must see its bytes in that order, as with GNU md5sum.
//!
//! The engine never hangs and never fails for want of resources that GNU
//! md5sum does not need: a thread that cannot be started means fewer
//! workers (none at all: the calling thread hashes), a panicking worker
//! ends the run after the results before it, and "too many open files"
//! means waiting until another of this process's files is closed, down to
//! one open file at a time.

use md5::multi::{self, Lanes};
use md5::{Digest, Md5};
use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::io::{self, Read};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Duration;

/// A file read whole when it is at most this long; longer ones are streamed.
const SMALL_MAX: usize = 64 * 1024;
/// Most inputs one worker claims at once (and so hashes in one batch): two
/// batches' worth of the AVX2 multi-buffer kernel (24 lanes).
const BATCH: usize = 48;
/// Read size per lane when large files are streamed side by side; AVX2's
/// 24 lanes of it stay within a core's L2 cache.
const LANE_READ: usize = 16 * 1024;
/// Read size for streamed inputs. Larger reads cost more system time per
/// byte here (measured: 128 KiB and up cost 2-3x the kernel time of 64 KiB
/// for a file in the page cache), as the copy no longer stays in cache.
const BIG_BUF: usize = 64 * 1024;
/// Most inputs between the oldest unreported one and the newest claimed.
const WINDOW: usize = 4096;
/// Stack size of a worker thread: its buffers are on the heap, and a small
/// stack keeps `-j 256` within a tight address-space limit. Optimised, a
/// worker runs in under 96 KiB; unoptimised, the multi-buffer kernels keep
/// every intermediate vector in its own stack slot and need over 320 KiB.
const WORKER_STACK: usize = if cfg!(debug_assertions) { 1024 } else { 256 } * 1024;

/// Reading standard input fails with EBADF: it was closed when the program
/// started, or is open for writing only (see `crate::stdio`).
pub static STDIN_CLOSED: AtomicBool = AtomicBool::new(false);
/// Standard input was read, as a file or as a checksum list.
pub static READ_STDIN: AtomicBool = AtomicBool::new(false);

/// What to hash.
#[derive(Debug)]
pub enum Input {
    Stdin,
    Path(PathBuf),
}

/// Why an input could not be hashed. `at_open` tells "could not open"
/// (where `--ignore-missing` applies) from "could not read".
#[derive(Debug)]
pub struct HashError {
    pub err: io::Error,
    pub at_open: bool,
}

pub type Outcome = Result<[u8; 16], HashError>;

/// How a run hashes.
pub struct Config<'a> {
    /// The most threads that hash at once; 1 hashes on the calling thread.
    pub jobs: usize,
    /// Where sysfs is mounted, when files on rotational disks are to be
    /// read one at a time (the default `-j`); `None` reads every regular
    /// file side by side (an explicit `-j N`).
    pub sysfs: Option<&'a Path>,
    /// Bytes read so far, for the progress line.
    pub bytes: &'a AtomicU64,
    /// Files read one at a time because their disk is rotational.
    pub read_alone: AtomicUsize,
}

impl<'a> Config<'a> {
    pub fn new(jobs: usize, sysfs: Option<&'a Path>, bytes: &'a AtomicU64) -> Self {
        Config {
            jobs,
            sysfs,
            bytes,
            read_alone: AtomicUsize::new(0),
        }
    }
}

/// What [`run`] hands the consumer.
pub enum Step<T> {
    /// The next item in input order, with the outcome of its input.
    Item(T, Option<Outcome>),
    /// The engine is about to wait (for a result, or to read standard
    /// input or another input that may block): write out what is known.
    Idle,
}

/// A worker panicked; the items from its input on were not consumed.
#[derive(Debug)]
pub struct Failed;

/// Hashes several whole messages. Small files meet the multi-buffer
/// backend here and nowhere else.
pub fn hash_batch(msgs: &[&[u8]], out: &mut [[u8; 16]]) {
    multi::digest_many_into(msgs, out);
}

/// What a worker makes of one path.
enum Res {
    Done(Outcome),
    /// Not a regular file: the calling thread reads it, in order.
    Alone(PathBuf),
}

// --- open files ----------------------------------------------------------

/// Files this process holds open for hashing (including ones being
/// opened), and how many it has closed so far.
static OPEN: AtomicUsize = AtomicUsize::new(0);
static CLOSED: AtomicU64 = AtomicU64::new(0);

/// A file opened through [`open`], counted in [`OPEN`] until dropped.
struct Opened(Option<File>);

impl Drop for Opened {
    fn drop(&mut self) {
        // Closed before it is counted closed: a thread waiting for a
        // descriptor retries when the count moves, and must find it free.
        // And counted closed before it stops counting as open, so that a
        // waiting thread that finds none open also finds the count moved.
        drop(self.0.take());
        CLOSED.fetch_add(1, Ordering::SeqCst);
        OPEN.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Read for Opened {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.as_mut().map_or(Ok(0), |f| f.read(buf))
    }
}

/// EMFILE or ENFILE: no file descriptor left.
fn out_of_fds(e: &io::Error) -> bool {
    matches!(e.raw_os_error(), Some(23 | 24))
}

/// Opens `path` for reading. When no descriptor is left, `release` may
/// close files the caller holds (it returns whether it did); otherwise the
/// open is retried each time another thread closes one of its files. Only
/// when this process holds no file at all is the error the file's own, as
/// it would be for GNU md5sum, which holds one at a time.
fn open(path: &Path, mut release: impl FnMut() -> bool) -> io::Result<Opened> {
    loop {
        let closed = CLOSED.load(Ordering::SeqCst);
        OPEN.fetch_add(1, Ordering::SeqCst);
        let err = match crate::stdio::open(path) {
            Ok(f) => return Ok(Opened(Some(f))),
            Err(e) => e,
        };
        OPEN.fetch_sub(1, Ordering::SeqCst);
        if !out_of_fds(&err) {
            return Err(err);
        }
        if release() {
            continue;
        }
        // A file that another thread held (or was opening) when this open
        // failed is closed soon: wait for that, unless there is none. (The
        // open count is read first: see `Opened::drop`.)
        loop {
            let none_open = OPEN.load(Ordering::SeqCst) == 0;
            if CLOSED.load(Ordering::SeqCst) != closed {
                break;
            }
            if none_open {
                return Err(err);
            }
            std::thread::sleep(Duration::from_micros(100));
        }
    }
}

// --- rotational disks ----------------------------------------------------

/// Splits a `st_dev` into major and minor numbers, as glibc encodes them.
#[cfg(unix)]
fn major_minor(dev: u64) -> (u64, u64) {
    let major = ((dev >> 32) & 0xffff_f000) | ((dev >> 8) & 0x0000_0fff);
    let minor = ((dev >> 12) & 0xffff_ff00) | (dev & 0x0000_00ff);
    (major, minor)
}

/// Whether device `dev` is a rotational disk, by
/// `SYSFS/dev/block/MAJ:MIN/queue/rotational`; a partition has no queue of
/// its own, so its parent disk's is read (`MAJ:MIN` links to the
/// partition's directory, inside the disk's). Devices sysfs does not list
/// (tmpfs, network and other virtual file systems) count as not rotational.
#[cfg(unix)]
pub fn rotational(sysfs: &Path, dev: u64) -> bool {
    let (major, minor) = major_minor(dev);
    let node = sysfs.join("dev/block").join(format!("{major}:{minor}"));
    for q in [
        node.join("queue/rotational"),
        node.join("../queue/rotational"),
    ] {
        let Ok(mut f) = open(&q, || false) else {
            continue;
        };
        let mut s = String::new();
        if f.read_to_string(&mut s).is_ok() {
            return s.trim() == "1";
        }
    }
    false
}

/// [`rotational`], looked up once per device.
fn on_rotational_disk(sysfs: &Path, meta: &std::fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        static KNOWN: Mutex<Vec<(PathBuf, u64, bool)>> = Mutex::new(Vec::new());
        let dev = meta.dev();
        if let Some(&(_, _, r)) = lock(&KNOWN)
            .iter()
            .find(|(root, d, _)| *d == dev && root == sysfs)
        {
            return r;
        }
        let r = rotational(sysfs, dev);
        lock(&KNOWN).push((sysfs.to_path_buf(), dev, r));
        r
    }
    #[cfg(not(unix))]
    {
        let _ = (sysfs, meta);
        false
    }
}

/// Held while files on a rotational disk are read, so that the disk's
/// head serves one file at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Locks a mutex, whether or not a thread panicked while holding it (the
/// data it guards stays consistent across every panic point).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

// --- hashing -------------------------------------------------------------

/// Per-thread buffers, reused from input to input.
struct Worker<'c, 'a> {
    cfg: &'c Config<'a>,
    big: Vec<u8>,
    slots: Vec<Vec<u8>>,
}

/// An open file longer than [`SMALL_MAX`], with its first bytes in `buf`.
struct Large {
    pos: usize,
    file: Opened,
    buf: Vec<u8>,
}

/// Outcomes of a claim, by position in it.
type Outs = Vec<Option<Res>>;

impl<'c, 'a> Worker<'c, 'a> {
    fn new(cfg: &'c Config<'a>) -> Self {
        Worker {
            cfg,
            big: Vec::new(),
            slots: Vec::new(),
        }
    }

    /// Reads `r` into `buf` until `buf` is full or end of input.
    fn fill(&self, r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
        self.fill_to(r, buf, None)
    }

    /// [`Worker::fill`], which also stops after exactly `len` bytes: the
    /// length of a regular file a moment before it was opened. Reading
    /// that much means the file was read whole (one that grew since would
    /// have filled more of `buf`), and saves the read that returns 0, a
    /// fifth of the system calls for a small file.
    fn fill_to(&self, r: &mut impl Read, buf: &mut [u8], len: Option<usize>) -> io::Result<usize> {
        let mut n = 0;
        while n < buf.len() {
            match r.read(&mut buf[n..]) {
                Ok(0) => break,
                Ok(k) => {
                    n += k;
                    self.cfg.bytes.fetch_add(k as u64, Ordering::Relaxed);
                    if Some(n) == len {
                        break;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(n)
    }

    /// Hashes the rest of `r` into `h`.
    fn stream(&mut self, r: &mut impl Read, h: &mut Md5) -> io::Result<()> {
        if self.big.len() < BIG_BUF {
            self.big = vec![0; BIG_BUF];
        }
        loop {
            match r.read(&mut self.big) {
                Ok(0) => return Ok(()),
                Ok(k) => {
                    self.cfg.bytes.fetch_add(k as u64, Ordering::Relaxed);
                    h.update(&self.big[..k]);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// Hashes standard input (from wherever earlier reads left it).
    fn hash_stdin(&mut self) -> Outcome {
        READ_STDIN.store(true, Ordering::Relaxed);
        if STDIN_CLOSED.load(Ordering::Relaxed) {
            return Err(HashError {
                err: crate::output::ebadf(),
                at_open: false,
            });
        }
        let mut h = Md5::new();
        let stdin = io::stdin();
        let mut lock = stdin.lock();
        match self.stream(&mut lock, &mut h) {
            Ok(()) => Ok(h.finalize().into()),
            Err(err) => Err(HashError {
                err,
                at_open: false,
            }),
        }
    }

    /// Opens and streams one input, alone.
    fn hash_alone(&mut self, path: &Path) -> Outcome {
        let mut file = open(path, || false).map_err(|err| HashError { err, at_open: true })?;
        let mut h = Md5::new();
        match self.stream(&mut file, &mut h) {
            Ok(()) => Ok(h.finalize().into()),
            Err(err) => Err(HashError {
                err,
                at_open: false,
            }),
        }
    }

    /// Hashes a claim of regular files, returning each outcome with its
    /// index. Inputs that are not regular files come back as
    /// [`Res::Alone`]. Files that turn out small are hashed together in one
    /// batch; large ones are streamed side by side through [`Lanes`] when
    /// the multi-buffer kernel is a SIMD one, else one after another; files
    /// on a rotational disk (under the default `-j`) are read one at a
    /// time, across all threads.
    fn hash_files(&mut self, claim: &[(usize, PathBuf)]) -> Vec<(usize, Res)> {
        let mut out: Outs = Vec::with_capacity(claim.len());
        // (position, length the file had when it was looked at)
        let mut rotating = Vec::new();
        let mut others = Vec::new();
        for (pos, (_, path)) in claim.iter().enumerate() {
            #[cfg(test)]
            if path.ends_with(tests::PANIC_HERE) {
                panic!("injected failure");
            }
            // A failed stat is left to the open, which fails the same way.
            match std::fs::metadata(path) {
                Ok(m) if !m.is_file() => {
                    out.push(Some(Res::Alone(path.clone())));
                    continue;
                }
                Ok(m) if self.cfg.sysfs.is_some_and(|s| on_rotational_disk(s, &m)) => {
                    rotating.push((pos, m.len()))
                }
                Ok(m) => others.push((pos, m.len())),
                Err(_) => others.push((pos, SMALL_MAX as u64)),
            }
            out.push(None);
        }
        // (position, slot, length) of files read whole.
        let mut small: Vec<(usize, usize, usize)> = Vec::new();
        if !rotating.is_empty() {
            let _disk = lock(&ONE_AT_A_TIME);
            for (pos, len) in rotating {
                self.cfg.read_alone.fetch_add(1, Ordering::Relaxed);
                let path = &claim[pos].1;
                let Some(mut l) = self.read_start(pos, path, len, &mut small, &mut out, || false)
                else {
                    continue;
                };
                let mut h = Md5::new();
                h.update(&l.buf);
                let r = self.stream(&mut l.file, &mut h);
                out[pos] = Some(done(r.map(|()| h.finalize().into())));
            }
        }
        // Files longer than a slot, with their first SMALL_MAX bytes.
        let mut large: Vec<Large> = Vec::new();
        for (pos, len) in others {
            let path = &claim[pos].1;
            // Large files wait open for their lanes, which can use up the
            // descriptors: then hash this thread's waiting files first.
            let l = {
                let mut release = |me: &mut Self, out: &mut Outs| {
                    if large.is_empty() {
                        return false;
                    }
                    me.finish_large(std::mem::take(&mut large), out);
                    true
                };
                self.read_start_with(pos, path, len, &mut small, &mut out, &mut release)
            };
            large.extend(l);
        }
        if !small.is_empty() {
            let msgs: Vec<&[u8]> = small
                .iter()
                .map(|&(_, slot, n)| &self.slots[slot][..n])
                .collect();
            let mut digests = vec![[0u8; 16]; msgs.len()];
            hash_batch(&msgs, &mut digests);
            for (&(pos, _, _), d) in small.iter().zip(digests) {
                out[pos] = Some(Res::Done(Ok(d)));
            }
        }
        self.finish_large(large, &mut out);
        claim
            .iter()
            .zip(out)
            .map(|((idx, _), r)| (*idx, r.expect("every input of a claim has an outcome")))
            .collect()
    }

    /// [`Worker::read_start_with`] with a `release` that needs no access to
    /// the worker.
    fn read_start(
        &mut self,
        pos: usize,
        path: &Path,
        len: u64,
        small: &mut Vec<(usize, usize, usize)>,
        out: &mut Outs,
        mut release: impl FnMut() -> bool,
    ) -> Option<Large> {
        self.read_start_with(pos, path, len, small, out, &mut |_, _| release())
    }

    /// Opens a file and reads its first [`SMALL_MAX`] bytes: a file that
    /// ends there goes to `small` (its bytes in a slot), an error to
    /// `out`, and a longer file is returned, open. `len`, the length the
    /// file had a moment ago, sizes the first read, so that small files
    /// take little memory; a file that grew since is read on.
    fn read_start_with(
        &mut self,
        pos: usize,
        path: &Path,
        len: u64,
        small: &mut Vec<(usize, usize, usize)>,
        out: &mut Outs,
        release: &mut dyn FnMut(&mut Self, &mut Outs) -> bool,
    ) -> Option<Large> {
        let opened = {
            let me = &mut *self;
            let out = &mut *out;
            open(path, || release(me, out))
        };
        let mut file = match opened {
            Ok(f) => f,
            Err(err) => {
                out[pos] = Some(Res::Done(Err(HashError { err, at_open: true })));
                return None;
            }
        };
        let slot = small.len();
        while self.slots.len() <= slot {
            self.slots.push(Vec::new());
        }
        let mut buf = std::mem::take(&mut self.slots[slot]);
        let first = usize::try_from(len).map_or(SMALL_MAX, |l| (l + 1).min(SMALL_MAX));
        buf.resize(first, 0);
        let known = usize::try_from(len).ok().filter(|&l| l > 0 && l < first);
        let mut read = self.fill_to(&mut file, &mut buf, known);
        if matches!(read, Ok(n) if n == first && first < SMALL_MAX) {
            buf.resize(SMALL_MAX, 0);
            read = self
                .fill(&mut file, &mut buf[first..])
                .map(|more| first + more);
        }
        match read {
            Ok(n) if n < SMALL_MAX => {
                small.push((pos, slot, n));
                self.slots[slot] = buf;
                None
            }
            Ok(_) => Some(Large { pos, file, buf }),
            Err(err) => {
                out[pos] = Some(Res::Done(Err(HashError {
                    err,
                    at_open: false,
                })));
                self.slots[slot] = buf;
                None
            }
        }
    }

    /// Hashes the large files of a claim into their places in `out`.
    fn finish_large(&mut self, large: Vec<Large>, out: &mut Outs) {
        let finished = if large.len() >= 2 && multi::backend() != "portable" {
            self.hash_lanes(large)
        } else {
            large
                .into_iter()
                .map(|mut l| {
                    let mut h = Md5::new();
                    h.update(&l.buf);
                    let r = self.stream(&mut l.file, &mut h);
                    (l.pos, r.map(|()| h.finalize().into()))
                })
                .collect()
        };
        for (pos, r) in finished {
            out[pos] = Some(done(r));
        }
    }

    /// Streams several large files at once, one per lane of the
    /// multi-buffer kernel; when a file ends, the next one takes its lane.
    fn hash_lanes(&mut self, large: Vec<Large>) -> Vec<(usize, io::Result<[u8; 16]>)> {
        // As many files as the kernel has lanes: more would only hold more
        // descriptors and buffers open for no speed.
        let width = large.len().min(multi::lanes()).max(1);
        let mut lanes = Lanes::new(width);
        let mut waiting = large.into_iter();
        // Each busy lane holds a full chunk (a multiple of 64 bytes) that
        // the next `update` hashes; its length is kept beside it.
        let mut busy: Vec<Option<(Large, usize)>> = (0..width)
            .map(|_| waiting.next().map(|l| (l, SMALL_MAX)))
            .collect();
        let mut finished = Vec::new();
        while busy.iter().any(Option::is_some) {
            let chunks: Vec<&[u8]> = busy
                .iter()
                .map(|b| b.as_ref().map_or(&[][..], |(l, n)| &l.buf[..*n]))
                .collect();
            lanes.update(&chunks);
            for (lane, b) in busy.iter_mut().enumerate() {
                let Some((l, n)) = b else { continue };
                let want = LANE_READ.min(l.buf.len());
                match self.fill(&mut l.file, &mut l.buf[..want]) {
                    Ok(k) if k == want => {
                        *n = k;
                        continue;
                    }
                    Ok(k) => finished.push((l.pos, Ok(lanes.finalize_lane(lane, &l.buf[..k])))),
                    Err(e) => {
                        lanes.reset_lane(lane);
                        finished.push((l.pos, Err(e)));
                    }
                }
                *b = waiting.next().map(|l| (l, SMALL_MAX));
            }
        }
        finished
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

// --- scheduling ----------------------------------------------------------

/// Caps glibc's malloc arenas. By default each new thread may get its own,
/// up to 8 per CPU, and each reserves 64 MiB of address space: under an
/// address-space limit (`prlimit --as`) that, not the threads, runs out,
/// and a failed allocation aborts. The workers allocate a few buffers per
/// batch of files, so a few arenas serve them as well. Call it before
/// threads start.
pub fn limit_malloc_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        extern "C" {
            fn mallopt(
                param: std::os::raw::c_int,
                value: std::os::raw::c_int,
            ) -> std::os::raw::c_int;
        }
        const M_ARENA_MAX: std::os::raw::c_int = -8;
        // SAFETY: `mallopt` is glibc's (this is a glibc target); it only
        // sets a tunable, and no other thread exists yet.
        unsafe {
            mallopt(M_ARENA_MAX, 1);
        }
    }
}

/// Work shared between the calling thread and the workers.
struct Shared {
    state: Mutex<State>,
    /// Signalled when work is queued or the queue is closed.
    work: Condvar,
    /// Signalled when results arrive or a worker ends.
    done: Condvar,
}

#[derive(Default)]
struct State {
    queue: VecDeque<(usize, PathBuf)>,
    results: HashMap<usize, Res>,
    closed: bool,
    /// Workers started and not ended.
    alive: usize,
    /// Workers waiting for work.
    idle: usize,
    /// Workers hashing a claim.
    busy: usize,
    /// The first input whose hashing panicked: its outcome never comes.
    failed_at: Option<usize>,
}

impl State {
    fn fail(&mut self, idx: usize) {
        self.failed_at = Some(self.failed_at.map_or(idx, |f| f.min(idx)));
    }
}

/// Closes the queue when the calling thread leaves [`run`], also when it
/// unwinds, so that no worker waits for work forever.
struct CloseOnDrop<'a>(&'a Shared);

impl Drop for CloseOnDrop<'_> {
    fn drop(&mut self) {
        lock(&self.0.state).closed = true;
        self.0.work.notify_all();
    }
}

/// Counts a worker out when it ends, also when its thread fails to start
/// (the guard is moved into the thread), and if it unwinds while hashing,
/// marks its claim failed, so that the caller does not wait for it.
struct WorkerGuard<'a> {
    shared: &'a Shared,
    claim_start: Option<usize>,
}

impl Drop for WorkerGuard<'_> {
    fn drop(&mut self) {
        let mut st = lock(&self.shared.state);
        st.alive -= 1;
        if let Some(i) = self.claim_start.filter(|_| std::thread::panicking()) {
            st.fail(i);
        }
        drop(st);
        self.shared.done.notify_all();
    }
}

/// Runs every item of `items` through `consume`, in order. An item with an
/// input gets the outcome of hashing it; an item without one (a message to
/// print in sequence, say) gets `None`. Before the engine blocks, the
/// consumer gets [`Step::Idle`]. Returns [`Failed`] when a worker panicked,
/// after consuming the items before the one it failed on.
pub fn run<T, I, F>(cfg: &Config<'_>, items: I, mut consume: F) -> Result<(), Failed>
where
    I: Iterator<Item = (Option<Input>, T)>,
    F: FnMut(Step<T>),
{
    let shared = Shared {
        state: Mutex::new(State::default()),
        work: Condvar::new(),
        done: Condvar::new(),
    };
    let max_workers = if cfg.jobs <= 1 { 0 } else { cfg.jobs };
    std::thread::scope(|s| {
        let _close = CloseOnDrop(&shared);
        let handles = std::cell::RefCell::new(Vec::new());
        let mut can_spawn = max_workers > 0;
        let mut queued = 0usize;
        // Queues paths, and starts workers up to one per path queued so far
        // (so that two files get two threads, and a few files never cost
        // hundreds of threads).
        let mut queue = |fresh: &mut Vec<(usize, PathBuf)>| {
            if fresh.is_empty() {
                return;
            }
            queued += fresh.len();
            let mut st = lock(&shared.state);
            st.queue.extend(fresh.drain(..));
            let want = if can_spawn {
                max_workers
                    .min(queued)
                    .saturating_sub(handles.borrow().len())
            } else {
                0
            };
            // Counted before they start, so that the first one to claim
            // work leaves a share for the others.
            st.alive += want;
            drop(st);
            for _ in 0..want {
                // A thread that cannot be started means fewer workers (its
                // guard, dropped unused, counts it out).
                let guard = WorkerGuard {
                    shared: &shared,
                    claim_start: None,
                };
                let started = std::thread::Builder::new()
                    .stack_size(WORKER_STACK)
                    .spawn_scoped(s, move || worker(guard, cfg));
                match started {
                    Ok(h) => handles.borrow_mut().push(h),
                    Err(_) => can_spawn = false,
                }
            }
            shared.work.notify_all();
        };
        let mut me = Worker::new(cfg);
        // Items not yet consumed, oldest first; `Some(false)` waits for a
        // worker, `Some(true)` is standard input, `None` has no input.
        let mut pending: VecDeque<(Option<bool>, T)> = VecDeque::new();
        let mut next = 0usize; // index of pending.front()
        let mut ready: HashMap<usize, Res> = HashMap::new();
        let mut items = items.fuse();
        let mut fresh: Vec<(usize, PathBuf)> = Vec::new();
        let batch = BATCH * cfg.jobs.max(1);
        let mut exhausted = false;
        let result = loop {
            // Refill once half the window is consumed, queueing in batches,
            // so that a lock and a wake-up are paid per batch, not per item.
            // Taking items can block (a checksum list on a pipe): write out
            // what is known first.
            if !exhausted && pending.len() <= WINDOW / 2 {
                consume(Step::Idle);
            }
            while !exhausted
                && pending.len() < WINDOW
                && (pending.len() <= WINDOW / 2 || !fresh.is_empty())
            {
                let Some((input, t)) = items.next() else {
                    exhausted = true;
                    break;
                };
                let kind = match input {
                    None => None,
                    Some(Input::Stdin) => Some(true),
                    Some(Input::Path(p)) => {
                        fresh.push((next + pending.len(), p));
                        Some(false)
                    }
                };
                pending.push_back((kind, t));
                if fresh.len() >= batch {
                    // Let the workers start while the window fills.
                    queue(&mut fresh);
                }
            }
            queue(&mut fresh);
            let Some((kind, t)) = pending.pop_front() else {
                break Ok(());
            };
            match kind {
                None => consume(Step::Item(t, None)),
                Some(true) => {
                    consume(Step::Idle);
                    let r = me.hash_stdin();
                    consume(Step::Item(t, Some(r)));
                }
                Some(false) => {
                    let mut idle_sent = false;
                    let res = loop {
                        if let Some(r) = ready.remove(&next) {
                            break Some(r);
                        }
                        let mut st = lock(&shared.state);
                        ready.extend(st.results.drain());
                        if ready.contains_key(&next) {
                            continue;
                        }
                        if st.failed_at.is_some_and(|f| f <= next) {
                            break None;
                        }
                        // A thread that died as it started (out of memory)
                        // may not have counted itself out.
                        let live = handles.borrow().iter().filter(|h| !h.is_finished()).count();
                        if st.alive == 0 || live == 0 {
                            // No worker (none could start, or -j 1): hash
                            // the next claim here.
                            let n = st.queue.len().min(BATCH);
                            let claim: Vec<(usize, PathBuf)> = st.queue.drain(..n).collect();
                            drop(st);
                            if claim.is_empty() {
                                break None; // cannot happen: `next` is queued
                            }
                            if !idle_sent {
                                consume(Step::Idle);
                                idle_sent = true;
                            }
                            ready.extend(me.hash_files(&claim));
                            continue;
                        }
                        if !idle_sent {
                            drop(st);
                            consume(Step::Idle);
                            idle_sent = true;
                            continue;
                        }
                        let tick = Duration::from_millis(20);
                        let waited = shared.done.wait_timeout(st, tick);
                        drop(waited.unwrap_or_else(|e| e.into_inner()));
                    };
                    let Some(res) = res else {
                        break Err(Failed);
                    };
                    let r = match res {
                        Res::Done(r) => r,
                        Res::Alone(path) => {
                            consume(Step::Idle);
                            me.hash_alone(&path)
                        }
                    };
                    consume(Step::Item(t, Some(r)));
                }
            }
            next += 1;
        };
        drop(_close);
        for h in handles.into_inner() {
            // A worker that panicked has been accounted for already.
            let _ = h.join();
        }
        result
    })
}

fn worker(mut guard: WorkerGuard<'_>, cfg: &Config<'_>) {
    let shared = guard.shared;
    let mut w = Worker::new(cfg);
    loop {
        let mut st = lock(&shared.state);
        while st.queue.is_empty() && !st.closed {
            st.idle += 1;
            st = shared.work.wait(st).unwrap_or_else(|e| e.into_inner());
            st.idle -= 1;
        }
        if st.queue.is_empty() {
            return;
        }
        // Share the queue out: whole batches while it is long; when it is
        // short, an even share for each idle thread (counting this one),
        // rather than half of what is left each time, which would end a
        // run with claims too small to fill the lanes.
        let idle = st.alive.saturating_sub(st.busy).max(1);
        let n = st.queue.len().div_ceil(idle).clamp(1, BATCH);
        let claim: Vec<(usize, PathBuf)> = st.queue.drain(..n).collect();
        st.busy += 1;
        drop(st);
        guard.claim_start = Some(claim[0].0);
        let mut failed = None;
        let results = match catch_unwind(AssertUnwindSafe(|| w.hash_files(&claim))) {
            Ok(r) => r,
            Err(_) => {
                // Redo the claim one input at a time with fresh buffers, to
                // keep the outcomes before the input that panics.
                w = Worker::new(cfg);
                let mut r = Vec::new();
                for item in &claim {
                    let one = std::slice::from_ref(item);
                    match catch_unwind(AssertUnwindSafe(|| Worker::new(cfg).hash_files(one))) {
                        Ok(x) => r.extend(x),
                        Err(_) => {
                            failed = Some(item.0);
                            break;
                        }
                    }
                }
                r
            }
        };
        guard.claim_start = None;
        let mut st = lock(&shared.state);
        st.results.extend(results);
        if let Some(i) = failed {
            st.fail(i);
        }
        st.busy -= 1;
        drop(st);
        shared.done.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    /// What `run` returned, the digests consumed (by index) and how many
    /// files were read one at a time.
    type RunResult = (Result<(), Failed>, Vec<(usize, [u8; 16])>, usize);

    /// Hashing a file of this name panics (test builds only).
    pub(super) const PANIC_HERE: &str = "panic-here";

    fn temp_dir(tag: &str) -> PathBuf {
        let p = std::env::temp_dir().join(format!("md5sum-engine-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        p
    }

    /// Files of assorted sizes (small, large, around 64 KiB) in `dir`.
    fn files(dir: &Path, n: usize) -> Vec<(PathBuf, [u8; 16])> {
        (0..n)
            .map(|i| {
                let len = [0, 5, 4096, 65535, 65536, 65537, 200_000][i % 7] + i;
                let data: Vec<u8> = (0..len).map(|k| (k * 31 + i) as u8).collect();
                let p = dir.join(format!("f{i:03}"));
                std::fs::write(&p, &data).unwrap();
                (p, Md5::digest(&data).into())
            })
            .collect()
    }

    /// Runs the engine over paths, on another thread with a deadline, so
    /// that a hang fails the test instead of stalling it. Returns the
    /// outcome and the indices consumed.
    fn run_paths(
        paths: Vec<PathBuf>,
        jobs: usize,
        sysfs: Option<PathBuf>,
    ) -> std::thread::Result<RunResult> {
        run_paths_until(paths, jobs, sysfs, usize::MAX)
    }

    /// [`run_paths`] whose consumer panics at item `panic_at`.
    fn run_paths_until(
        paths: Vec<PathBuf>,
        jobs: usize,
        sysfs: Option<PathBuf>,
        panic_at: usize,
    ) -> std::thread::Result<RunResult> {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let r = catch_unwind(AssertUnwindSafe(|| {
                let bytes = AtomicU64::new(0);
                let cfg = Config::new(jobs, sysfs.as_deref(), &bytes);
                let mut seen = Vec::new();
                let items = paths
                    .into_iter()
                    .enumerate()
                    .map(|(i, p)| (Some(Input::Path(p)), i));
                let r = run(&cfg, items, |step| {
                    if let Step::Item(i, Some(r)) = step {
                        assert!(i != panic_at, "the consumer fails");
                        seen.push((i, r.unwrap()));
                    }
                });
                (r, seen, cfg.read_alone.load(Ordering::Relaxed))
            }));
            let _ = tx.send(r);
        });
        rx.recv_timeout(Duration::from_secs(60))
            .expect("the engine did not return: it hangs")
    }

    #[test]
    #[cfg(unix)]
    fn device_numbers() {
        // makedev(8, 1) and makedev(259, 65539), as glibc encodes them.
        assert_eq!(major_minor(0x801), (8, 1));
        let dev = (259u64 << 8) | (65539u64 & 0xff) | (65539u64 & !0xff) << 12;
        assert_eq!(major_minor(dev), (259, 65539));
    }

    /// A sysfs tree with a rotational disk `sda` (8:0) and its partition
    /// `sda1` (8:1), a solid-state disk (259:0), and `extra` (a "MAJ:MIN"
    /// name) made a partition of `sda`.
    #[cfg(unix)]
    fn fake_sysfs(root: &Path, extra: &str) {
        let disk = root.join("devices/pci/block/sda");
        std::fs::create_dir_all(disk.join("queue")).unwrap();
        std::fs::write(disk.join("queue/rotational"), "1\n").unwrap();
        for part in ["sda1", "sda2"] {
            std::fs::create_dir_all(disk.join(part)).unwrap();
            std::fs::write(disk.join(part).join("partition"), "1\n").unwrap();
        }
        let ssd = root.join("devices/pci/block/nvme0n1");
        std::fs::create_dir_all(ssd.join("queue")).unwrap();
        std::fs::write(ssd.join("queue/rotational"), "0\n").unwrap();
        let links = root.join("dev/block");
        std::fs::create_dir_all(&links).unwrap();
        let link = |name: &str, to: &str| {
            std::os::unix::fs::symlink(format!("../../devices/pci/block/{to}"), links.join(name))
                .unwrap()
        };
        link("8:0", "sda");
        link("8:1", "sda/sda1");
        link("259:0", "nvme0n1");
        link(extra, "sda/sda2");
    }

    #[cfg(unix)]
    fn makedev(major: u64, minor: u64) -> u64 {
        (major & 0xfff) << 8 | (major & !0xfff) << 32 | (minor & 0xff) | (minor & !0xff) << 12
    }

    #[test]
    #[cfg(unix)]
    fn rotational_from_sysfs() {
        let root = temp_dir("sysfs");
        fake_sysfs(&root, "1:1");
        assert!(rotational(&root, makedev(8, 0)));
        assert!(rotational(&root, makedev(8, 1)), "a partition: its disk's");
        assert!(!rotational(&root, makedev(259, 0)));
        assert!(!rotational(&root, makedev(0, 45)), "not in sysfs (tmpfs)");
        assert!(!rotational(&root, makedev(7, 3)));
        std::fs::remove_dir_all(&root).unwrap();
    }

    /// With the default -j, files on a rotational disk are read one at a
    /// time; an explicit -j reads them side by side; digests are the same.
    #[test]
    #[cfg(unix)]
    fn rotational_disk_reads_one_file_at_a_time() {
        use std::os::unix::fs::MetadataExt;
        let dir = temp_dir("rot-files");
        let want = files(&dir, 40);
        let (major, minor) = major_minor(std::fs::metadata(&dir).unwrap().dev());
        let root = temp_dir("rot-sysfs");
        fake_sysfs(&root, &format!("{major}:{minor}"));
        let paths: Vec<PathBuf> = want.iter().map(|(p, _)| p.clone()).collect();
        let digests: Vec<(usize, [u8; 16])> = want.iter().map(|x| x.1).enumerate().collect();
        for (jobs, sysfs, alone) in [
            (4, Some(root.clone()), 40),
            (1, Some(root.clone()), 40),
            (4, None, 0),
        ] {
            let (r, seen, read_alone) = run_paths(paths.clone(), jobs, sysfs.clone()).unwrap();
            assert!(r.is_ok());
            assert_eq!(seen, digests, "-j{jobs}, sysfs {sysfs:?}");
            assert_eq!(read_alone, alone, "-j{jobs}, sysfs {sysfs:?}");
        }
        // The same disk marked solid-state.
        std::fs::write(root.join("devices/pci/block/sda/queue/rotational"), "0\n").unwrap();
        let other_root = temp_dir("rot-sysfs-ssd");
        std::fs::remove_dir(&other_root).unwrap();
        std::fs::rename(&root, &other_root).unwrap();
        let (r, seen, read_alone) = run_paths(paths, 4, Some(other_root.clone())).unwrap();
        assert!(r.is_ok());
        assert_eq!(seen, digests);
        assert_eq!(read_alone, 0);
        std::fs::remove_dir_all(&dir).unwrap();
        std::fs::remove_dir_all(&other_root).unwrap();
    }

    /// A worker that panics ends the run: the items before the one it
    /// failed on are consumed, then `run` returns `Failed`, without waiting
    /// forever for the lost results.
    #[test]
    fn worker_panic_ends_the_run() {
        let dir = temp_dir("panic");
        let want = files(&dir, 40);
        let mut paths: Vec<PathBuf> = want.iter().map(|(p, _)| p.clone()).collect();
        std::fs::write(dir.join(PANIC_HERE), b"").unwrap();
        paths.insert(17, dir.join(PANIC_HERE));
        for jobs in [2, 4, 16] {
            let (r, seen, _) = run_paths(paths.clone(), jobs, None).unwrap();
            assert!(r.is_err(), "-j{jobs}");
            let before: Vec<(usize, [u8; 16])> =
                want[..17].iter().map(|x| x.1).enumerate().collect();
            assert_eq!(seen, before, "-j{jobs}");
        }
        // On the calling thread (-j1) the panic unwinds out of `run`.
        assert!(run_paths(paths.clone(), 1, None).is_err());
        // So does a panic of the consumer, with workers waiting for work.
        paths.remove(17);
        for jobs in [1, 4] {
            assert!(run_paths_until(paths.clone(), jobs, None, 5).is_err());
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
