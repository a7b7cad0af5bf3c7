//! The lane scheduler: keeps every lane of the kernel busy with a batch of
//! messages of any lengths, and pads each message in its lane.
//!
//! Messages start in the order of the [`Queue`]: most blocks first, within
//! windows of the batch. Per-message work is kept small, since it is most
//! of the cost for short messages:
//!
//! * With every lane idle, a full set of messages that each fit a lane's
//!   buffer (up to [`BUF_BLOCKS`](in_flight::BUF_BLOCKS) blocks with padding) is copied with its
//!   padding straight into the lanes' blocks and hashed by one kernel call
//!   per block count in the set (one call when the counts are equal, as
//!   the queue's order makes most sets), its digests leaving the state four
//!   lanes at a time: no per-lane bookkeeping at all. A set of one
//!   whole-block length runs in place instead, its shared padding block
//!   from broadcast words. (`sets.rs`; sets of one short whole-block
//!   length, one after another: `equal_sets.rs`) Short rows of wider mixes, with
//!   enough of the batch left, go into buckets by block count, each hashed
//!   the same way when full (`buckets.rs`); a column's, on AVX-512,
//!   sixteen rows a step (`column_buckets.rs`).
//! * Otherwise messages start lane by lane: short ones copied into the
//!   lane's buffer, longer ones run from the caller's memory, then from
//!   their padding, which for whole-block messages of the batch's first
//!   such length is one block built once and shared. Messages in pieces
//!   copy the blocks that straddle pieces to the lane's buffer, and run
//!   their longest piece's whole blocks in place. (`start.rs`)
//!   Lanes are tracked in bit masks, and each kernel call is followed by
//!   one pass over the busy lanes. (`step.rs`)

use crate::multi::kernel::Kernel;
use crate::multi::past_cache;
use crate::multi::tuning::STREAM_FROM_MEMORY_BYTES;
use in_flight::Scheduler;
use queue::Queue;
use source::Source;

/// Long messages a run of short-row buckets queues before it ends, and
/// the rows left below which buckets do not run, for the tests.
#[cfg(test)]
pub(super) use buckets::LONGS as BUCKET_LONGS;
#[cfg(test)]
pub(super) use stagger::delays as stagger_delays;
#[cfg(test)]
pub(super) use streams_from_memory as from_memory;

mod buckets;
#[cfg(md5_sse2)]
mod column_buckets;
pub(super) mod copy;
mod equal_sets;
mod in_flight;
pub(super) mod pad;
pub(super) mod queue;
mod runs;
mod sets;
pub(super) mod single;
pub(super) mod source;
pub(super) mod stagger;
mod start;
mod step;

/// Hashes every message of `source` into the slot of `out` with its index.
/// `kernel` must come from [`Kernel::detect`] or [`Kernel::available`];
/// `out` has one slot per message.
///
/// Never inlined: its frame (the scheduler and the queue's window, about
/// 48 KiB) would then be part of its caller's, on every path through it.
#[inline(never)]
pub(super) fn digest_batch<'a, S: Source<'a>>(kernel: Kernel, source: &S, out: &mut [[u8; 16]]) {
    assert_eq!(source.count(), out.len());
    let start = source.start();
    if !kernel.is_simd() {
        for (i, slot) in out.iter_mut().enumerate() {
            *slot = single::digest(&source.get(i), start);
        }
        return;
    }
    let mut sched = Scheduler::new(kernel, start);
    sched.past_cache = past_cache::past_cache(size_of_val(out));
    let mut queue = Queue::new(source, sched.width);
    loop {
        // With every lane idle: the next set (a full one, or the last
        // messages), hashed at once or started in the lanes.
        if sched.busy() == 0 {
            if sched.run_direct(source, &mut queue, out) {
                continue;
            }
            if !sched.sized {
                // The first set from the queue: its window tells.
                let mean = queue.mean_len();
                sched.size_for(&mut queue, mean, source.count());
            }
            let set = queue.take_set();
            match set.len() {
                0 => break,
                // A lone last message runs faster through the single-stream
                // backend than through a mostly idle vector.
                1 => out[set[0].index] = single::digest(&set[0].msg, start),
                _ => sched.run_set(set, out),
            }
            continue;
        }
        // Refill idle lanes with the next messages, lowest lanes first.
        while sched.idle != 0 {
            let Some(e) = queue.next() else {
                break;
            };
            sched.start(sched.idle.trailing_zeros() as usize, e, out);
        }
        if queue.is_empty() {
            match sched.busy() {
                0 => break,
                1 => {
                    sched.finish_alone(out);
                    break;
                }
                // Few messages left: gather them in the low lanes, where the
                // kernel runs fewer groups.
                _ => sched.compact(),
            }
        } else if sched.busy() == 0 {
            // Every message started was hashed at once (see `start`).
            continue;
        }
        sched.step(out);
    }
    if sched.past_cache {
        past_cache::fence();
    }
}

/// Whether `count` messages of `mean` bytes on average, long ones (over
/// a lane's buffer), add up to more than the caches keep for them
/// ([`STREAM_FROM_MEMORY_BYTES`]).
pub(super) fn streams_from_memory(mean: usize, count: usize) -> bool {
    mean > in_flight::BUF && mean.saturating_mul(count) > STREAM_FROM_MEMORY_BYTES
}
