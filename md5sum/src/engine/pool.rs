//! The in-order window and the thread pool: items are taken from the
//! caller's list into a bounded window, their paths queued for the
//! workers in claims, and outcomes handed back to the caller in input
//! order as they come in.

use super::claim::Worker;
use super::io_policy::{Ticket, Turnstile};
use super::shared::{lock, Config, Failed, Input, Res, Step};
use std::collections::{HashMap, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::{Condvar, Mutex};
use std::time::Duration;

/// Most inputs one worker claims at once (and so hashes in one batch): two
/// batches' worth of the AVX2 multi-buffer kernel (24 lanes).
const BATCH: usize = 48;
/// Most inputs between the oldest unreported one and the newest claimed.
const WINDOW: usize = 4096;
/// Stack size of a worker thread: its buffers are on the heap, and a small
/// stack keeps `-j 256` within a tight address-space limit. Optimised, a
/// worker runs in under 96 KiB; unoptimised, the multi-buffer kernels keep
/// every intermediate vector in its own stack slot and need over 320 KiB.
const WORKER_STACK: usize = if cfg!(debug_assertions) { 1024 } else { 256 } * 1024;

/// What a pending item waits for.
enum Kind {
    /// Nothing: a message to pass on in order.
    Message,
    /// Standard input, read on the calling thread.
    Stdin,
    /// A worker's outcome for its path.
    Path,
}

/// Work shared between the calling thread and the workers.
struct Shared {
    state: Mutex<State>,
    /// Signalled when work is queued or the queue is closed.
    work: Condvar,
    /// Signalled when results arrive or a worker ends.
    done: Condvar,
    /// The spinning disks' order, by claim.
    turnstile: Turnstile,
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
    /// Claims taken so far, which numbers their tickets.
    claims: u64,
}

impl State {
    fn fail(&mut self, idx: usize) {
        self.failed_at = Some(self.failed_at.map_or(idx, |f| f.min(idx)));
    }

    /// Takes the next `n` queued paths as a claim, with its ticket.
    fn claim<'t>(
        &mut self,
        n: usize,
        turnstile: &'t Turnstile,
    ) -> (Vec<(usize, PathBuf)>, Ticket<'t>) {
        let claim = self.queue.drain(..n).collect();
        self.claims += 1;
        (claim, turnstile.ticket(self.claims - 1))
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
        turnstile: Turnstile::new(),
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
        // Items not yet consumed, oldest first.
        let mut pending: VecDeque<(Kind, T)> = VecDeque::new();
        let mut next = 0usize; // index of pending.front()
        let mut ready: HashMap<usize, Res> = HashMap::new();
        let mut items = items.fuse();
        let mut fresh: Vec<(usize, PathBuf)> = Vec::new();
        let batch = BATCH * cfg.jobs.max(1);
        let mut exhausted = false;
        // A pending item reads standard input: take no more items until it
        // has, as they may come from standard input too (a checksum list
        // read through `/dev/stdin` from a pipe, whose `-` entry hashes the
        // rest of the pipe, as with GNU md5sum).
        let mut stdin_pending = false;
        let result = loop {
            // Refill once half the window is consumed, queueing in batches,
            // so that a lock and a wake-up are paid per batch, not per item.
            // Taking items can block (a checksum list on a pipe): write out
            // what is known first.
            if !exhausted && !stdin_pending && pending.len() <= WINDOW / 2 {
                consume(Step::Idle);
            }
            while !exhausted
                && !stdin_pending
                && pending.len() < WINDOW
                && (pending.len() <= WINDOW / 2 || !fresh.is_empty())
            {
                let Some((input, t)) = items.next() else {
                    exhausted = true;
                    break;
                };
                let kind = match input {
                    None => Kind::Message,
                    Some(Input::Stdin) => {
                        stdin_pending = true;
                        Kind::Stdin
                    }
                    Some(Input::Path(p)) => {
                        fresh.push((next + pending.len(), p));
                        Kind::Path
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
                Kind::Message => consume(Step::Item(t, None)),
                Kind::Stdin => {
                    consume(Step::Idle);
                    let r = me.hash_stdin();
                    stdin_pending = false;
                    consume(Step::Item(t, Some(r)));
                }
                Kind::Path => {
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
                            let (claim, ticket) = st.claim(n, &shared.turnstile);
                            drop(st);
                            if claim.is_empty() {
                                break None; // cannot happen: `next` is queued
                            }
                            if !idle_sent {
                                consume(Step::Idle);
                                idle_sent = true;
                            }
                            ready.extend(me.hash_files(&claim, ticket));
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
        let (claim, ticket) = st.claim(n, &shared.turnstile);
        st.busy += 1;
        drop(st);
        guard.claim_start = Some(claim[0].0);
        let mut failed = None;
        let results = match catch_unwind(AssertUnwindSafe(|| w.hash_files(&claim, ticket))) {
            Ok(r) => r,
            Err(_) => {
                // Redo the claim one input at a time with fresh buffers, to
                // keep the outcomes before the input that panics.
                w = Worker::new(cfg);
                let mut r = Vec::new();
                for item in &claim {
                    let one = std::slice::from_ref(item);
                    let redo = || Worker::new(cfg).hash_files(one, Ticket::unordered());
                    match catch_unwind(AssertUnwindSafe(redo)) {
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
