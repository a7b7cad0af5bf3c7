//! Staggered lanes for equal whole-block messages whose starts share their
//! address bits below 4 KiB (S3 parts in one buffer, fixed-size chunks of a
//! file, page-aligned buffers): lanes that read in lockstep from such
//! addresses load into the same L1 set every block (and, 128 KiB apart,
//! the same L2 set), evicting the lines the prefetchers bring ahead.
//!
//! [`delays`] gives such lanes different start times, a block apart, so
//! that at each moment they read different sets; [`Scheduler::run_staggered`]
//! runs them, a kernel call per stretch of time in which no lane starts or
//! ends, lanes outside their message hashing a running lane's blocks with
//! their state then discarded. It costs each lane the largest delay in
//! idle blocks, so it is used only for messages many times longer.
//!
//! When a set staggers, and by how many delays, is the kernel's tuning
//! row's [`Stagger`](crate::multi::tuning::Stagger).

use super::in_flight::Scheduler;
use crate::multi::kernel::Kernel;
use crate::multi::lane_state::{BlockPtrs, LaneStates, MAX_LANES};
use crate::multi::tuning::{SetShape, CROWD};

/// Each lane's delay in blocks for the messages of `blocks` blocks at
/// `ptrs`, one a lane, on `kernel`; `None` where they run best in lockstep:
/// when no L1 set (address bits 6..12) starts more than [`CROWD`] of them,
/// or the kernel's tuning row says so for their number, length and
/// alignment ([`Tuning::plan`](crate::multi::tuning::Tuning::plan)).
#[inline(always)]
pub(crate) fn delays(
    kernel: Kernel,
    ptrs: &[*const u8],
    blocks: usize,
) -> Option<[usize; MAX_LANES]> {
    let set = SetShape {
        lanes: ptrs.len(),
        group_lanes: kernel.group_lanes(),
        blocks,
        crowded: true,
        split: ptrs.iter().any(|&p| !(p as usize).is_multiple_of(64)),
        avx512: false,
    };
    let spread = kernel
        .tuning
        .plan(kernel.stagger(), set)
        .spread
        .min(MAX_LANES);
    if spread < 2 {
        return None;
    }
    crowded(ptrs, spread)
}

/// [`delays`] for `spread` delays, once the kernel and length allow them.
#[inline(never)]
fn crowded(ptrs: &[*const u8], spread: usize) -> Option<[usize; MAX_LANES]> {
    let set = |p: *const u8| (p as usize >> 6) & 63;
    let mut starts = [0u8; 64];
    for &p in ptrs {
        starts[set(p)] += 1;
    }
    if starts.iter().all(|&n| usize::from(n) <= CROWD) {
        return None;
    }
    // Each lane in turn takes the delay below `spread` whose set (its own
    // shifted by the delay) has the fewest lanes so far, the least delay
    // of those.
    let mut taken = [0u8; 64];
    let mut delay = [0; MAX_LANES];
    for (d, &p) in delay.iter_mut().zip(ptrs) {
        let home = set(p);
        *d = (0..spread)
            .min_by_key(|&d| taken[(home + d) & 63])
            .unwrap_or(0);
        taken[(home + *d) & 63] += 1;
    }
    Some(delay)
}

impl Scheduler<'_> {
    /// Hashes the `blocks` whole blocks at `self.ptr[l]` into lane `l` for
    /// each of the `used` lanes, lane `l` starting `delay[l]` blocks late,
    /// then, if given, every lane's padding block from the words `pad` in
    /// one call. Every lane starts from the batch's start and is idle
    /// before and after; the state holds the lanes' results.
    pub(super) fn run_staggered(
        &mut self,
        blocks: usize,
        used: usize,
        delay: &[usize; MAX_LANES],
        pad: Option<&[u32; 16]>,
    ) {
        let msg = self.ptr;
        self.init_state();
        let before = self.state;
        // SAFETY: `self.kernel` came from `Kernel::detect` or
        // `Kernel::available` (see `digest_batch`), `1 <= used <=
        // self.width`, and each of the `used` pointers points at a message
        // of `blocks` whole blocks (the caller, `run_equal`).
        unsafe {
            staggered(
                self.kernel,
                &mut self.state,
                &before,
                &msg,
                blocks,
                used,
                delay,
            )
        };
        let span = used.next_multiple_of(self.kernel.group_lanes());
        self.ptr[..span].fill(msg[0]);
        if pad.is_some() {
            // SAFETY: as above; the call reads no message block (`blocks`
            // is 0), only the padding words.
            unsafe {
                self.kernel
                    .compress(&mut self.state, &self.ptr, 0, used, pad)
            };
        }
    }
}

/// Hashes the `blocks` whole blocks at `msg[l]` into lane `l` of `state`
/// for each of the `used` lanes, lane `l` starting `delay[l]` blocks late:
/// a kernel call per stretch of time in which no lane starts or ends,
/// lanes outside their blocks hashing a running lane's and then put back
/// to their state in `before` (or, once done, to their result).
///
/// # Safety
///
/// `kernel` came from [`Kernel::detect`] or [`Kernel::available`], `1 <=
/// used <= kernel.max_lanes()`, and `msg[l]` is valid for reads of `blocks
/// * 64` bytes for each `l < used`.
pub(crate) unsafe fn staggered(
    kernel: Kernel,
    state: &mut LaneStates,
    before: &LaneStates,
    msg: &BlockPtrs,
    blocks: usize,
    used: usize,
    delay: &[usize; MAX_LANES],
) {
    let span = used.next_multiple_of(kernel.group_lanes());
    let mut ptr: BlockPtrs = *msg;
    // Each lane's state once its blocks are done.
    let mut done = LaneStates::new();
    let mut t = 0;
    while let Some(end) = next_change(t, &delay[..used], blocks) {
        // A lane in its blocks reads its block `t - delay`; the others (and
        // the lanes past `used` the kernel runs) read a running lane's
        // blocks, if any runs now.
        let running = |l: usize| (delay[l]..delay[l] + blocks).contains(&t);
        if let Some(any) = (0..used).find(|&l| running(l)) {
            let filler = msg[any].wrapping_add(64 * (t - delay[any]));
            for (l, p) in ptr[..span].iter_mut().enumerate() {
                *p = if l < used && running(l) {
                    msg[l].wrapping_add(64 * (t - delay[l]))
                } else {
                    filler
                };
            }
            // SAFETY: the caller vouches for the kernel and `used`. No lane
            // starts or ends in `t..end`, so each running lane's pointer is
            // block `t - delay` of its `blocks` blocks, with `end - t`
            // blocks after it; every other lane got one of those pointers.
            unsafe { kernel.compress(state, &ptr, end - t, used, None) };
        }
        for (l, &d) in delay[..used].iter().enumerate() {
            if end <= d {
                // Not started: the call's blocks were not its own.
                state.set(l, before.get(l));
            } else if end == d + blocks {
                done.set(l, state.get(l));
            }
        }
        t = end;
    }
    for l in 0..used {
        state.set(l, done.get(l));
    }
}

/// The first time after `t` at which a lane of `delay` starts or ends its
/// `blocks` blocks, or `None` once every lane has ended.
fn next_change(t: usize, delay: &[usize], blocks: usize) -> Option<usize> {
    delay
        .iter()
        .flat_map(|&d| [d, d + blocks])
        .filter(|&x| x > t)
        .min()
}
