//! [`hash_in_order`]: jobs taken from the caller's iterator into a
//! bounded window, their paths queued for the worker threads in claims,
//! and each result handed to the caller in input order as soon as it and
//! every one before it are in.

use super::claim::{Res, TurnMemory, Worker};
use super::policy::ReadPolicy;
use super::turn::{lock, Ticket, Turnstile};
use super::{Control, FileError};
use core::fmt;
use std::collections::{HashMap, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex};
use std::time::Duration;
use std::vec::Vec;

/// Most paths one thread claims at once (and so hashes in one batch): two
/// sets of AVX2's 24 lanes.
const CLAIM: usize = 48;
/// Most jobs between the oldest not yet handed back and the newest taken.
const WINDOW: usize = 4096;
/// Stack size of a worker thread: its buffers are on the heap, and a small
/// stack keeps hundreds of threads within a tight address-space limit.
/// Optimised, a worker runs in under 96 KiB; unoptimised, the multi-buffer
/// kernels keep every intermediate vector in its own stack slot and need
/// over 320 KiB.
const WORKER_STACK: usize = if cfg!(debug_assertions) { 1024 } else { 256 } * 1024;

/// One job of [`hash_in_order`], with the caller's tag for it.
#[derive(Debug)]
pub enum Job<T> {
    /// A file to hash.
    File(PathBuf, T),
    /// No file: handed back in its place in the order ([`Event::Pass`]),
    /// for a message to write in sequence, say.
    Pass(T),
    /// No file, and no job after it is taken from the iterator until it is
    /// handed back ([`Event::Pass`]): for jobs that come from an input the
    /// caller reads when this job's turn comes (a list of files on
    /// standard input, where one of them is standard input itself).
    Barrier(T),
}

/// What [`hash_in_order`] hands its consumer.
#[derive(Debug)]
pub enum Event<T> {
    /// The next [`Job::File`] in input order: its digest, or its error.
    File(T, Result<[u8; 16], FileError>),
    /// The next [`Job::Pass`] or [`Job::Barrier`] in input order.
    Pass(T),
    /// The run is about to wait (for a result, to take more jobs, or to
    /// read an input alone): a time to write out what is known.
    Idle,
}

/// A panic while hashing (in the policy, or in a reader) ended a run of
/// [`hash_in_order`]: the results before the file it panicked on were
/// handed back, and none from it on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Panicked;

impl fmt::Display for Panicked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("hashing a file panicked; the results before it were handed back")
    }
}

impl std::error::Error for Panicked {}

/// Hashes the files of `jobs` on up to `threads` threads, read as `policy`
/// says, and hands each result to `consume` in input order as soon as it
/// and every one before it are in, so that a caller can print results as
/// they come without holding them all; at most 4,096 jobs are taken ahead
/// of the oldest not yet handed back.
///
/// The threads take the queued paths in claims of up to 48 consecutive
/// ones, read as [`hash_files`](super::hash_files) reads them, with the
/// policy's choices ([`ReadPolicy`]): inputs routed
/// [`Route::Alone`](super::Route::Alone) are read on the calling thread
/// when their turn in the order comes; files routed
/// [`Route::InTurn`](super::Route::InTurn) that are not in the page cache
/// are read by one claim at a time, in claim order. With `threads` of 0 or
/// 1 the calling thread hashes everything; else up to `threads` threads
/// start, one per path queued so far, and where none can start, the
/// calling thread hashes. Opens wait for a descriptor where none is left
/// ([`open_waiting`](super::open_waiting)), down to one open file at a
/// time. Every byte read is counted in `control`; once its flag is set,
/// each file not yet hashed fails with [`Stopped`](super::Stopped).
///
/// `consume` gets [`Event::Idle`] before the run waits.
///
/// # Errors
///
/// [`Panicked`] where hashing a file panicked on a worker thread: the
/// results before that file were handed to `consume`. A panic on the
/// calling thread (in `consume`, or hashing there) unwinds out of the run,
/// after the workers have stopped.
///
/// ```
/// use md5x::files::{hash_in_order, Control, Event, Job, PlainReads};
/// use md5x::{Digest, Md5};
/// # fn main() -> std::io::Result<()> {
/// let dir = std::env::temp_dir().join(format!("in-order-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let lens = [0, 5, 100_000, 3 << 20];
/// let mut jobs = Vec::new();
/// for (i, len) in lens.into_iter().enumerate() {
///     let path = dir.join(format!("f{i}"));
///     std::fs::write(&path, vec![i as u8; len])?;
///     jobs.push(Job::File(path, i));
///     jobs.push(Job::Pass(100 + i));
/// }
/// jobs.push(Job::File(dir.join("missing"), 4));
/// let mut lines = Vec::new();
/// hash_in_order(jobs, 2, Control::new(), &PlainReads, |event| match event {
///     Event::File(i, Ok(digest)) => lines.push(format!("{i} {digest:02x?}")),
///     Event::File(i, Err(e)) => lines.push(format!("{i} {}", e.at_open())),
///     Event::Pass(n) => lines.push(n.to_string()),
///     Event::Idle => {}
/// })
/// .unwrap();
/// let mut want = Vec::new();
/// for (i, len) in lens.into_iter().enumerate() {
///     want.push(format!("{i} {:02x?}", <[u8; 16]>::from(Md5::digest(vec![i as u8; len]))));
///     want.push((100 + i).to_string());
/// }
/// want.push("4 true".to_string());
/// assert_eq!(lines, want);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok(())
/// # }
/// ```
pub fn hash_in_order<T, I, P, F>(
    jobs: I,
    threads: usize,
    control: Control<'_>,
    policy: &P,
    mut consume: F,
) -> Result<(), Panicked>
where
    I: IntoIterator<Item = Job<T>>,
    P: ReadPolicy + ?Sized,
    F: FnMut(Event<T>),
{
    let memory = TurnMemory::default();
    let shared = Shared {
        state: Mutex::new(State::default()),
        work: Condvar::new(),
        done: Condvar::new(),
        turnstile: Turnstile::new(),
    };
    let run = Run {
        shared: &shared,
        control,
        policy,
        memory: &memory,
    };
    let max_workers = if threads <= 1 { 0 } else { threads };
    std::thread::scope(|s| {
        let _close = CloseOnDrop(&shared);
        let handles = core::cell::RefCell::new(Vec::new());
        let mut can_spawn = max_workers > 0;
        let mut queued = 0usize;
        // Queues paths, and starts workers up to one per path queued so far
        // (so that two files get two threads, and a few files never cost
        // hundreds of threads).
        let mut queue = |fresh: &mut Vec<Claimed>| {
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
                let run = &run;
                let started = std::thread::Builder::new()
                    .stack_size(WORKER_STACK)
                    .spawn_scoped(s, move || worker(guard, run));
                match started {
                    Ok(h) => handles.borrow_mut().push(h),
                    Err(_) => can_spawn = false,
                }
            }
            shared.work.notify_all();
        };
        let mut me = Worker::new(control, policy, &memory, false);
        // Jobs not yet handed back, oldest first.
        let mut pending: VecDeque<(Kind, T)> = VecDeque::new();
        let mut next = 0usize; // index of pending.front()
        let mut ready: HashMap<usize, Got> = HashMap::new();
        let mut jobs = jobs.into_iter().fuse();
        let mut fresh: Vec<Claimed> = Vec::new();
        let batch = CLAIM.saturating_mul(threads.max(1));
        let mut exhausted = false;
        // A pending barrier: take no more jobs until it is handed back.
        let mut barrier = false;
        let result = loop {
            // Refill once half the window is handed back, queueing in
            // batches, so that a lock and a wake-up are paid per batch, not
            // per job. Taking jobs can block (a list on a pipe): let the
            // consumer write out what is known first.
            if !exhausted && !barrier && pending.len() <= WINDOW / 2 {
                consume(Event::Idle);
            }
            while !exhausted
                && !barrier
                && pending.len() < WINDOW
                && (pending.len() <= WINDOW / 2 || !fresh.is_empty())
            {
                let Some(job) = jobs.next() else {
                    exhausted = true;
                    break;
                };
                let (kind, t) = match job {
                    Job::Pass(t) => (Kind::Pass, t),
                    Job::Barrier(t) => {
                        barrier = true;
                        (Kind::Pass, t)
                    }
                    Job::File(p, t) => {
                        fresh.push(Claimed(next + pending.len(), p));
                        (Kind::File, t)
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
                Kind::Pass => {
                    // A barrier is the newest job taken: once it is handed
                    // back, nothing is pending.
                    barrier &= !pending.is_empty();
                    consume(Event::Pass(t));
                }
                Kind::File => {
                    let Some(got) =
                        wait_for(next, &run, &mut me, &mut ready, &handles, &mut consume)
                    else {
                        break Err(Panicked);
                    };
                    let r = match got {
                        Got::Done(r) => r,
                        Got::Alone(path) => {
                            consume(Event::Idle);
                            me.hash_alone(&path)
                                .map_err(|e| FileError::from_failure(&path, e))
                        }
                    };
                    consume(Event::File(t, r));
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

/// Waits for the result of the job at `next`, hashing claims on the
/// calling thread where no worker is alive; `None` where a panic lost it.
fn wait_for<T, P: ReadPolicy + ?Sized>(
    next: usize,
    run: &Run<'_, P>,
    me: &mut Worker<'_, P>,
    ready: &mut HashMap<usize, Got>,
    handles: &core::cell::RefCell<Vec<std::thread::ScopedJoinHandle<'_, ()>>>,
    consume: &mut impl FnMut(Event<T>),
) -> Option<Got> {
    let shared = run.shared;
    let mut idle_sent = false;
    loop {
        if let Some(r) = ready.remove(&next) {
            return Some(r);
        }
        let mut st = lock(&shared.state);
        ready.extend(st.results.drain());
        if ready.contains_key(&next) {
            continue;
        }
        if st.failed_at.is_some_and(|f| f <= next) {
            return None;
        }
        // A thread that died as it started (out of memory) may not have
        // counted itself out.
        let live = handles.borrow().iter().filter(|h| !h.is_finished()).count();
        if st.alive == 0 || live == 0 {
            // No worker (none could start, or one thread): hash the next
            // claim here.
            let n = st.queue.len().min(CLAIM);
            let (claim, ticket) = st.claim(n, &shared.turnstile);
            drop(st);
            if claim.is_empty() {
                return None; // cannot happen: `next` is queued
            }
            if !idle_sent {
                consume(Event::Idle);
                idle_sent = true;
            }
            ready.extend(hash_claim(me, &claim, ticket));
            continue;
        }
        if !idle_sent {
            drop(st);
            consume(Event::Idle);
            idle_sent = true;
            continue;
        }
        let tick = Duration::from_millis(20);
        let waited = shared.done.wait_timeout(st, tick);
        drop(waited.unwrap_or_else(|e| e.into_inner()));
    }
}

/// A queued path, with its job's index.
struct Claimed(usize, PathBuf);

impl AsRef<Path> for Claimed {
    fn as_ref(&self) -> &Path {
        &self.1
    }
}

/// What the calling thread gets of a worker for one path.
enum Got {
    Done(Result<[u8; 16], FileError>),
    /// Routed [`Route::Alone`](super::Route::Alone): the calling thread
    /// reads it, in order.
    Alone(PathBuf),
}

/// Hashes a claim, each result by its job's index.
fn hash_claim<P: ReadPolicy + ?Sized>(
    w: &mut Worker<'_, P>,
    claim: &[Claimed],
    ticket: Ticket<'_>,
) -> Vec<(usize, Got)> {
    let results = w.hash_claim(claim, ticket);
    claim
        .iter()
        .zip(results)
        .map(|(c, r)| {
            let got = match r {
                Res::Done(Ok(d)) => Got::Done(Ok(d)),
                Res::Done(Err(e)) => Got::Done(Err(FileError::from_failure(&c.1, e))),
                Res::Alone => Got::Alone(c.1.clone()),
            };
            (c.0, got)
        })
        .collect()
}

/// What a pending job waits for.
enum Kind {
    /// Nothing: handed back in order.
    Pass,
    /// A worker's result for its path.
    File,
}

/// What the calling thread and the workers share.
struct Shared {
    state: Mutex<State>,
    /// Signalled when work is queued or the queue is closed.
    work: Condvar,
    /// Signalled when results arrive or a worker ends.
    done: Condvar,
    /// The order of turns, by claim.
    turnstile: Turnstile,
}

/// A run's shared parts, as each thread sees them.
struct Run<'r, P: ?Sized> {
    shared: &'r Shared,
    control: Control<'r>,
    policy: &'r P,
    memory: &'r TurnMemory,
}

#[derive(Default)]
struct State {
    queue: VecDeque<Claimed>,
    results: HashMap<usize, Got>,
    closed: bool,
    /// Workers started and not ended.
    alive: usize,
    /// Workers hashing a claim.
    busy: usize,
    /// The first job whose hashing panicked: its result never comes.
    failed_at: Option<usize>,
    /// Claims taken so far, which numbers their tickets.
    claims: u64,
}

impl State {
    fn fail(&mut self, idx: usize) {
        self.failed_at = Some(self.failed_at.map_or(idx, |f| f.min(idx)));
    }

    /// Takes the next `n` queued paths as a claim, with its ticket.
    fn claim<'t>(&mut self, n: usize, turnstile: &'t Turnstile) -> (Vec<Claimed>, Ticket<'t>) {
        let claim = self.queue.drain(..n.min(self.queue.len())).collect();
        let ticket = turnstile.ticket(self.claims);
        self.claims += 1;
        (claim, ticket)
    }
}

/// Closes the queue when the calling thread leaves [`hash_in_order`], also
/// when it unwinds, so that no worker waits for work forever.
struct CloseOnDrop<'a>(&'a Shared);

impl Drop for CloseOnDrop<'_> {
    fn drop(&mut self) {
        lock(&self.0.state).closed = true;
        self.0.work.notify_all();
    }
}

/// Counts a worker out when it ends, also when its thread fails to start
/// (the guard is moved into the thread), and if it unwinds while hashing,
/// marks its claim failed, so that the calling thread does not wait for
/// it.
struct WorkerGuard<'a> {
    shared: &'a Shared,
    claim_start: Option<usize>,
}

impl Drop for WorkerGuard<'_> {
    fn drop(&mut self) {
        let mut st = lock(&self.shared.state);
        st.alive = st.alive.saturating_sub(1);
        if let Some(i) = self.claim_start.filter(|_| std::thread::panicking()) {
            st.fail(i);
        }
        drop(st);
        self.shared.done.notify_all();
    }
}

fn worker<P: ReadPolicy + ?Sized>(mut guard: WorkerGuard<'_>, run: &Run<'_, P>) {
    let shared = guard.shared;
    let fresh = || Worker::new(run.control, run.policy, run.memory, false);
    let mut w = fresh();
    loop {
        let mut st = lock(&shared.state);
        while st.queue.is_empty() && !st.closed {
            st = shared.work.wait(st).unwrap_or_else(|e| e.into_inner());
        }
        let Some(first) = st.queue.front().map(|c| c.0) else {
            return;
        };
        // Share the queue out: whole claims while it is long; when it is
        // short, an even share for each idle thread (counting this one),
        // rather than half of what is left each time, which would end a
        // run with claims too small to fill the lanes.
        let idle = st.alive.saturating_sub(st.busy).max(1);
        let n = st.queue.len().div_ceil(idle).clamp(1, CLAIM);
        let (claim, ticket) = st.claim(n, &shared.turnstile);
        st.busy += 1;
        drop(st);
        guard.claim_start = Some(first);
        let mut failed = None;
        let results = match catch_unwind(AssertUnwindSafe(|| hash_claim(&mut w, &claim, ticket))) {
            Ok(r) => r,
            Err(_) => {
                // Redo the claim one path at a time with fresh buffers, to
                // keep the results before the path that panics.
                w = fresh();
                let mut r = Vec::new();
                for one in claim.chunks(1) {
                    let redo = || hash_claim(&mut fresh(), one, Ticket::unordered());
                    match catch_unwind(AssertUnwindSafe(redo)) {
                        Ok(x) => r.extend(x),
                        Err(_) => {
                            failed = Some(one[0].0);
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
