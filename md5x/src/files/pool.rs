//! The threads of [`hash_files`](super::hash_files): each takes the next
//! claim of consecutive paths and hashes it ([`Worker`]).

use super::claim::{Outcome, Res, TurnMemory, Worker};
use super::policy::PlainReads;
use super::turn::Ticket;
use super::{fds, Control};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::vec::Vec;

/// Most paths one thread claims at once, and so hashes in one batch: two
/// sets of AVX2's 24 lanes. Fewer when the paths left are few, so that
/// every thread gets a share.
const CLAIM: usize = 48;

/// The outcome of each of `paths`, in order, on up to `threads` threads
/// (the calling thread one of them). The threads together hold at most
/// [`fds::budget`] files open (a claim's long files stay open until they
/// are hashed), which caps the threads too.
pub(super) fn run<P: AsRef<Path> + Sync>(
    paths: &[P],
    threads: usize,
    control: Control<'_>,
) -> Vec<Outcome> {
    let open_files = fds::budget();
    let threads = threads.clamp(1, paths.len().clamp(1, open_files));
    let claim = (open_files / threads).clamp(1, CLAIM);
    let next = AtomicUsize::new(0);
    let memory = TurnMemory::default();
    let work = || {
        let mut worker = Worker::new(control, &PlainReads, &memory, true);
        let mut done = Vec::new();
        while let Some(start) = take(&next, paths.len(), threads, claim) {
            let end = (start.0 + start.1).min(paths.len());
            let claim = &paths[start.0..end];
            let outcomes = worker.hash_claim(claim, Ticket::unordered());
            let outcomes: Vec<Outcome> = outcomes
                .into_iter()
                .zip(claim)
                .map(|(r, p)| match r {
                    Res::Done(r) => r,
                    // Not handed back by a worker that hashes them itself.
                    Res::Alone => worker.hash_alone(p.as_ref()),
                })
                .collect();
            done.push((start.0, outcomes));
        }
        done
    };
    let mut claims = std::thread::scope(|s| {
        // Where a thread cannot start, the others do its share.
        let handles: Vec<_> = (1..threads)
            .map_while(|_| std::thread::Builder::new().spawn_scoped(s, work).ok())
            .collect();
        let mut claims = work();
        for h in handles {
            claims.extend(h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
        }
        claims
    });
    claims.sort_unstable_by_key(|c| c.0);
    claims.into_iter().flat_map(|c| c.1).collect()
}

/// The next claim, (first index, count), if any paths are left: `most`
/// paths while many are left, else an even share for each thread.
fn take(next: &AtomicUsize, len: usize, threads: usize, most: usize) -> Option<(usize, usize)> {
    let mut claim = (0, 0);
    next.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |start| {
        let left = len.checked_sub(start).filter(|&l| l > 0)?;
        claim = (start, left.div_ceil(threads).clamp(1, most));
        Some(start + claim.1)
    })
    .ok()?;
    Some(claim)
}
