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
//! Measured on an Intel Xeon (Sapphire Rapids class, its sibling thread
//! busy), 128 messages of 7 MiB, 7 MiB apart: the AVX-512 kernel in
//! lockstep ran at 0.77–0.90 of the same messages 320 bytes further along,
//! staggered a block a lane at 0.87–1.04; the AVX2 kernel lost nothing in
//! lockstep (0.92–1.03) and lost to staggering (0.79–0.80), and 64 KiB
//! messages lost to the idle blocks what they gained. On AMD Zen 3 the
//! AVX2 kernel lost in lockstep (0.68-0.71) and ran at 1.08 staggered.
//! On AMD Zen 5, whose AVX-512 kernel runs 64 lanes, lockstep lost
//! nothing once the kernel loaded each block a round ahead
//! (`kernel/body.rs`, `NextBlock`): 64 equal messages as many bytes apart,
//! 4 KiB to 256 KiB, ran at 0.89-1.02 of the same 320 bytes further along,
//! while staggering cost up to 0.40 at 4 KiB and, by the rule that staggered
//! sets of more than 32 lanes before, 0.89-0.94 at 32 and 64 KiB. Hence the
//! rule in [`spread`]; the figures: benches/RESULTS.md, "Equal messages 4
//! KiB apart".

use super::state::Scheduler;
use crate::multi::kernel::Kernel;
use crate::multi::state::{BlockPtrs, LaneStates, MAX_LANES};
use core::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// Lanes in one L1 set per block above which lanes are staggered.
const CROWD: usize = 4;

/// Messages shorter than this many times the largest delay run in
/// lockstep on AVX-512, unless a spread is forced.
#[cfg(md5_sse2)]
const AVX512_MIN_BLOCKS_PER_DELAY: usize = 128;

/// The same for AVX2 where it staggers: on Zen 3, equal messages as many
/// bytes apart ran staggered at 0.70x lockstep's speed at 4 KiB, 0.85x at
/// 8 KiB, 1.05x at 16 KiB, 1.15x at 32 KiB, 1.21x at 64 KiB and 1.35x at
/// 256 KiB (64 of them), so from 368 blocks (23 KiB) on.
#[cfg(md5_sse2)]
const AVX2_MIN_BLOCKS_PER_DELAY: usize = 16;

/// A forced spread (`set_spread`); 0 for the rule.
static FORCED: AtomicUsize = AtomicUsize::new(0);

/// Forces lanes to take delays below `spread` (1 turns staggering off) on
/// every crowded set of equal messages, however short; 0 restores the
/// rule. For measuring and tests; returns the setting it replaces.
pub(crate) fn set_spread(spread: usize) -> usize {
    FORCED.swap(spread, Relaxed)
}

/// How many distinct delays a set of `lanes` lanes of `kernel` takes for
/// messages of `blocks` blocks (1: none), and the blocks a message needs
/// per delay (0 when forced). By measurement (see the module's notes): 32
/// delays for AVX-512's lanes in sets of up to 32 (measured on Intel and
/// Zen 4 before the kernel loaded a block ahead), none for wider sets (Zen
/// 5's four groups), one for each of AVX2's on AMD (`avx2::staggers`);
/// none elsewhere.
#[inline(always)]
fn spread(kernel: Kernel, lanes: usize, blocks: usize) -> (usize, usize) {
    let _ = (lanes, blocks);
    match FORCED.load(Relaxed) {
        0 => match kernel {
            #[cfg(md5_sse2)]
            Kernel::Avx512 if lanes > 32 => (1, 0),
            #[cfg(md5_sse2)]
            Kernel::Avx512 => (32, AVX512_MIN_BLOCKS_PER_DELAY),
            #[cfg(md5_sse2)]
            Kernel::Avx2 if crate::multi::kernel::avx2::staggers() => {
                (24, AVX2_MIN_BLOCKS_PER_DELAY)
            }
            _ => (1, 0),
        },
        forced => (forced, 0),
    }
}

/// Each lane's delay in blocks for the messages of `blocks` blocks at
/// `ptrs`, one a lane, on `kernel`; `None` where they run best in lockstep:
/// when no L1 set (address bits 6..12) starts more than [`CROWD`] of them,
/// or the messages are too short for the delays to pay.
#[inline(always)]
pub(crate) fn delays(
    kernel: Kernel,
    ptrs: &[*const u8],
    blocks: usize,
) -> Option<[usize; MAX_LANES]> {
    let (spread, per_delay) = spread(kernel, ptrs.len(), blocks);
    let spread = spread.min(MAX_LANES);
    if spread < 2 || blocks < per_delay * (spread - 1) {
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
