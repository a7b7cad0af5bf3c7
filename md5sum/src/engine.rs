//! Hashing many inputs: in parallel across worker threads, results handed
//! back in input order, with a bounded window of inputs in flight.
//!
//! Small files are read whole and hashed together through [`hash_batch`];
//! larger ones are streamed through [`Md5`] with a large read buffer.
//! Standard input is always read on the calling thread, in order.

use md5::multi::{self, Lanes};
use md5::{Digest, Md5};
use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::io::{self, Read};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

/// A file read whole when it is at most this long; longer ones are streamed.
const SMALL_MAX: usize = 64 * 1024;
/// Most inputs one worker claims at once (and so hashes in one batch): two
/// batches' worth of the widest multi-buffer kernel (16 lanes).
const BATCH: usize = 32;
/// Read size per lane when large files are streamed side by side; 16 lanes
/// of it stay within a core's L2 cache.
const LANE_READ: usize = 16 * 1024;
/// Read size for streamed inputs. Larger reads cost more system time per
/// byte here (measured: 128 KiB and up cost 2-3x the kernel time of 64 KiB
/// for a file in the page cache), as the copy no longer stays in cache.
const BIG_BUF: usize = 64 * 1024;
/// Most inputs between the oldest unreported one and the newest claimed.
const WINDOW: usize = 4096;

/// Standard input was closed when the program started (the runtime put
/// `/dev/null` in its place); reading it fails as it would have.
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

/// Hashes several whole messages. Small files meet the multi-buffer
/// backend here and nowhere else.
pub fn hash_batch(msgs: &[&[u8]], out: &mut [[u8; 16]]) {
    multi::digest_many_into(msgs, out);
}

/// Per-thread buffers, reused from input to input.
pub struct Worker<'a> {
    big: Vec<u8>,
    slots: Vec<Vec<u8>>,
    bytes: &'a AtomicU64,
}

impl<'a> Worker<'a> {
    pub fn new(bytes: &'a AtomicU64) -> Self {
        Worker {
            big: Vec::new(),
            slots: Vec::new(),
            bytes,
        }
    }

    /// Reads `r` into `buf` until `buf` is full or end of input.
    fn fill(&self, r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
        let mut n = 0;
        while n < buf.len() {
            match r.read(&mut buf[n..]) {
                Ok(0) => break,
                Ok(k) => {
                    n += k;
                    self.bytes.fetch_add(k as u64, Ordering::Relaxed);
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
                    self.bytes.fetch_add(k as u64, Ordering::Relaxed);
                    h.update(&self.big[..k]);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// Hashes standard input (from wherever earlier reads left it).
    pub fn hash_stdin(&mut self) -> Outcome {
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

    /// Hashes files, returning their outcomes in the same order. Files that
    /// turn out small are hashed together in one batch; large ones are
    /// streamed side by side through [`Lanes`] when the multi-buffer
    /// kernel is a SIMD one, else one after another.
    pub fn hash_files<'p>(&mut self, paths: impl Iterator<Item = &'p PathBuf>) -> Vec<Outcome> {
        let mut out: Vec<Outcome> = Vec::new();
        // (index into out, slot, length) of files read whole.
        let mut small: Vec<(usize, usize, usize)> = Vec::new();
        // Files longer than a slot, with their first SMALL_MAX bytes.
        let mut large: Vec<Large> = Vec::new();
        for path in paths {
            let idx = out.len();
            out.push(Ok([0; 16])); // every slot is written below
            let mut opened = File::open(path);
            // Large files wait open for their lanes, which can use up the
            // descriptors: then hash this thread's waiting files, or wait
            // for other threads to close theirs, and retry. Only when no
            // thread holds any is the error the file's own.
            while matches!(&opened, Err(e) if out_of_fds(e)) {
                if !large.is_empty() {
                    self.finish_large(std::mem::take(&mut large), &mut out);
                } else if HELD_OPEN.load(Ordering::Acquire) > 0 {
                    std::thread::sleep(std::time::Duration::from_millis(1));
                } else {
                    break;
                }
                opened = File::open(path);
            }
            let mut file = match opened {
                Ok(f) => f,
                Err(err) => {
                    out[idx] = Err(HashError { err, at_open: true });
                    continue;
                }
            };
            let slot = small.len();
            if self.slots.len() <= slot {
                self.slots.push(Vec::new());
            }
            let mut buf = std::mem::take(&mut self.slots[slot]);
            buf.resize(SMALL_MAX, 0);
            match self.fill(&mut file, &mut buf) {
                Ok(n) if n < SMALL_MAX => {
                    small.push((idx, slot, n));
                    self.slots[slot] = buf;
                }
                Ok(_) => {
                    HELD_OPEN.fetch_add(1, Ordering::AcqRel);
                    large.push(Large { idx, file, buf });
                }
                Err(err) => {
                    out[idx] = Err(HashError {
                        err,
                        at_open: false,
                    });
                    self.slots[slot] = buf;
                }
            }
        }
        if !small.is_empty() {
            let msgs: Vec<&[u8]> = small
                .iter()
                .map(|&(_, slot, n)| &self.slots[slot][..n])
                .collect();
            let mut digests = vec![[0u8; 16]; msgs.len()];
            hash_batch(&msgs, &mut digests);
            for (&(idx, _, _), d) in small.iter().zip(digests) {
                out[idx] = Ok(d);
            }
        }
        self.finish_large(large, &mut out);
        out
    }

    /// Hashes the large files of a claim into their slots of `out`.
    fn finish_large(&mut self, large: Vec<Large>, out: &mut [Outcome]) {
        let done = if large.len() >= 2 && multi::backend() != "portable" {
            self.hash_lanes(large)
        } else {
            large
                .into_iter()
                .map(|mut l| {
                    let mut h = Md5::new();
                    h.update(&l.buf);
                    let r = self.stream(&mut l.file, &mut h);
                    (l.idx, r.map(|()| h.finalize().into()))
                })
                .collect()
        };
        for (idx, r) in done {
            out[idx] = r.map_err(|err| HashError {
                err,
                at_open: false,
            });
        }
    }

    /// Streams several large files at once, one per lane of the
    /// multi-buffer kernel; when a file ends, the next one takes its lane.
    fn hash_lanes(&mut self, large: Vec<Large>) -> Vec<(usize, io::Result<[u8; 16]>)> {
        let width = large.len().min(Lanes::MAX);
        let mut lanes = Lanes::new(width);
        let mut waiting = large.into_iter();
        // Each busy lane holds a full chunk (a multiple of 64 bytes) that
        // the next `update` hashes; its length is kept beside it.
        let mut busy: Vec<Option<(Large, usize)>> = (0..width)
            .map(|_| waiting.next().map(|l| (l, SMALL_MAX)))
            .collect();
        let mut done = Vec::new();
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
                    Ok(k) => done.push((l.idx, Ok(lanes.finalize_lane(lane, &l.buf[..k])))),
                    Err(e) => {
                        lanes.reset_lane(lane);
                        done.push((l.idx, Err(e)));
                    }
                }
                *b = waiting.next().map(|l| (l, SMALL_MAX));
            }
        }
        done
    }
}

/// EMFILE or ENFILE: no file descriptor left.
fn out_of_fds(e: &io::Error) -> bool {
    matches!(e.raw_os_error(), Some(23 | 24))
}

/// Files that threads hold open while they wait for a lane.
static HELD_OPEN: AtomicUsize = AtomicUsize::new(0);

/// An open file longer than [`SMALL_MAX`], with its first bytes in `buf`;
/// counted in [`HELD_OPEN`] until dropped.
struct Large {
    idx: usize,
    file: File,
    buf: Vec<u8>,
}

impl Drop for Large {
    fn drop(&mut self) {
        HELD_OPEN.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Work shared between the calling thread and the workers.
struct Shared {
    state: Mutex<State>,
    /// Signalled when work is queued or the queue is closed.
    work: Condvar,
    /// Signalled when results arrive.
    done: Condvar,
}

#[derive(Default)]
struct State {
    queue: VecDeque<(usize, PathBuf)>,
    results: HashMap<usize, (PathBuf, Outcome)>,
    closed: bool,
    /// Workers hashing a claim.
    busy: usize,
    /// A worker panicked: its results will never come.
    failed: bool,
}

/// Tells the waiting caller when a worker unwinds, so that it does not
/// wait forever for that worker's results.
struct PanicGuard<'a>(&'a Shared);

impl Drop for PanicGuard<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let mut st = self.0.state.lock().unwrap_or_else(|e| e.into_inner());
            st.failed = true;
            drop(st);
            self.0.done.notify_all();
        }
    }
}

/// Runs every item of `items` through `consume`, in order. An item with an
/// input gets the input back with its outcome; an item without one (a
/// message to print in sequence, say) gets `None`. `jobs` is the most
/// threads that hash at once; 1 hashes on the calling thread only.
pub fn run<T, I, F>(jobs: usize, bytes: &AtomicU64, items: I, mut consume: F)
where
    I: Iterator<Item = (Option<Input>, T)>,
    F: FnMut(T, Option<(Input, Outcome)>),
{
    if jobs <= 1 {
        return run_sequential(bytes, items, consume);
    }
    let shared = Shared {
        state: Mutex::new(State::default()),
        work: Condvar::new(),
        done: Condvar::new(),
    };
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| worker(&shared, bytes, jobs));
        }
        let mut me = Worker::new(bytes);
        // Items not yet consumed, oldest first; `Some(false)` waits for a
        // worker, `Some(true)` is standard input, `None` has no input.
        let mut pending: VecDeque<(Option<bool>, T)> = VecDeque::new();
        let mut next = 0usize; // index of pending.front()
        let mut ready: HashMap<usize, (PathBuf, Outcome)> = HashMap::new();
        let mut items = items.fuse();
        let mut fresh: Vec<(usize, PathBuf)> = Vec::new();
        loop {
            // Refill once half the window is consumed, queueing in batches,
            // so that a lock and a wake-up are paid per batch, not per item.
            while pending.len() < WINDOW && (pending.len() <= WINDOW / 2 || !fresh.is_empty()) {
                let Some((input, t)) = items.next() else {
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
                if fresh.len() >= BATCH * jobs {
                    // Let the workers start while the window fills.
                    shared.state.lock().unwrap().queue.extend(fresh.drain(..));
                    shared.work.notify_all();
                }
            }
            if !fresh.is_empty() {
                shared.state.lock().unwrap().queue.extend(fresh.drain(..));
                shared.work.notify_all();
            }
            let Some((kind, t)) = pending.pop_front() else {
                break;
            };
            match kind {
                None => consume(t, None),
                Some(true) => {
                    let r = me.hash_stdin();
                    consume(t, Some((Input::Stdin, r)));
                }
                Some(false) => {
                    let (p, r) = match ready.remove(&next) {
                        Some(x) => x,
                        None => {
                            let mut st = shared.state.lock().unwrap();
                            while !st.results.contains_key(&next) {
                                assert!(!st.failed, "a hashing thread failed");
                                st = shared.done.wait(st).unwrap();
                            }
                            ready.extend(st.results.drain());
                            drop(st);
                            ready.remove(&next).unwrap()
                        }
                    };
                    consume(t, Some((Input::Path(p), r)));
                }
            }
            next += 1;
        }
        shared.state.lock().unwrap().closed = true;
        shared.work.notify_all();
    });
}

fn worker(shared: &Shared, bytes: &AtomicU64, jobs: usize) {
    let _guard = PanicGuard(shared);
    let mut w = Worker::new(bytes);
    loop {
        let mut st = shared.state.lock().unwrap();
        while st.queue.is_empty() && !st.closed {
            st = shared.work.wait(st).unwrap();
        }
        if st.queue.is_empty() {
            return;
        }
        // Share the queue out: whole batches while it is long; when it is
        // short, an even share for each idle thread (counting this one),
        // rather than half of what is left each time, which would end a
        // run with claims too small to fill the lanes.
        let idle = jobs - st.busy;
        let n = st.queue.len().div_ceil(idle).clamp(1, BATCH);
        let claim: Vec<(usize, PathBuf)> = st.queue.drain(..n).collect();
        st.busy += 1;
        drop(st);
        let outcomes = w.hash_files(claim.iter().map(|(_, p)| p));
        let mut st = shared.state.lock().unwrap();
        for ((i, p), r) in claim.into_iter().zip(outcomes) {
            st.results.insert(i, (p, r));
        }
        st.busy -= 1;
        drop(st);
        shared.done.notify_one();
    }
}

fn run_sequential<T, I, F>(bytes: &AtomicU64, items: I, mut consume: F)
where
    I: Iterator<Item = (Option<Input>, T)>,
    F: FnMut(T, Option<(Input, Outcome)>),
{
    let mut w = Worker::new(bytes);
    let mut items = items.peekable();
    let mut chunk: Vec<(Option<Input>, T)> = Vec::with_capacity(BATCH);
    loop {
        // A run of consecutive files is read and hashed as one batch; stdin
        // and items without input are handled where they stand.
        chunk.clear();
        while chunk.len() < BATCH {
            match items.peek() {
                Some((Some(Input::Path(_)), _)) => chunk.push(items.next().unwrap()),
                _ => break,
            }
        }
        if chunk.is_empty() {
            let Some((input, t)) = items.next() else {
                return;
            };
            match input {
                Some(Input::Stdin) => {
                    let r = w.hash_stdin();
                    consume(t, Some((Input::Stdin, r)));
                }
                other => consume(t, other.map(|_| unreachable!())),
            }
            continue;
        }
        let paths: Vec<&PathBuf> = chunk
            .iter()
            .map(|(i, _)| match i {
                Some(Input::Path(p)) => p,
                _ => unreachable!(),
            })
            .collect();
        let outcomes = w.hash_files(paths.into_iter());
        for ((input, t), r) in chunk.drain(..).zip(outcomes) {
            consume(t, Some((input.unwrap(), r)));
        }
    }
}
