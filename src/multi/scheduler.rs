//! The lane scheduler: keeps every lane of the kernel busy with a batch of
//! messages of any lengths, and pads each message in its lane.
//!
//! Messages start in the order of the [`Queue`]: most blocks first, within
//! windows of the batch. Per-message work is kept small, since it is most
//! of the cost for short messages:
//!
//! * With every lane idle, a full set of messages that each fit a lane's
//!   buffer (up to [`BUF_BLOCKS`] blocks with padding) is copied with its
//!   padding straight into the lanes' blocks and hashed by one kernel call
//!   per block count in the set (one call when the counts are equal, as
//!   the queue's order makes most sets), its digests leaving the state four
//!   lanes at a time: no per-lane bookkeeping at all. A set of one
//!   whole-block length runs in place instead, its shared padding block
//!   from broadcast words. (`scheduler/sets.rs`)
//! * Otherwise messages start lane by lane: short ones copied into the
//!   lane's buffer, longer ones run from the caller's memory, then from
//!   their padding, which for whole-block messages of the batch's first
//!   such length is one block built once and shared. Messages in pieces
//!   copy the blocks that straddle pieces to the lane's buffer, and run
//!   their longest piece's whole blocks in place. (`scheduler/start.rs`)
//!   Lanes are tracked in bit masks, and each kernel call is followed by
//!   one pass over the busy lanes. (`scheduler/step.rs`)

use super::queue::Queue;
use super::single;
use super::source::{Source, Start};
use super::{BlockPtrs, Kernel, LaneStates, MAX_LANES};
use core::mem::MaybeUninit;

#[cfg(test)]
pub(super) use stagger::delays as stagger_delays;
pub(super) use stagger::set_spread;

mod sets;
pub(super) mod stagger;
mod start;
mod step;

/// Blocks in a lane's buffer: a message whose blocks and padding fit is
/// copied there whole.
const BUF_BLOCKS: usize = 4;
const BUF: usize = 64 * BUF_BLOCKS;

/// One lane's buffer, on a cache line of its own so that the kernel's
/// loads from it never straddle two lines.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct LaneBuf([MaybeUninit<u8>; BUF]);

/// What a lane runs after its current stretch of blocks.
#[derive(Clone, Copy, PartialEq, Eq)]
enum NextStretch {
    /// The message is done.
    Done,
    /// This many blocks at byte offset `at` of the lane's buffer: the
    /// message's end and its padding.
    Padding { at: usize, blocks: usize },
    /// The shared padding block.
    SharedPadding,
    /// The whole blocks in place that follow a head copied to the buffer
    /// (`Scheduler::in_place`), then `Scheduler::after_in_place`.
    InPlace,
}

/// Where a lane's current stretch of blocks lies.
#[derive(Clone, Copy, PartialEq, Eq)]
enum StretchIn {
    /// The caller's memory, at `Scheduler::ptr`.
    Message,
    /// The lane's buffer, at byte offset `Scheduler::pos`.
    Buffer,
    /// The shared padding block.
    SharedPadding,
}

/// Hashes every message of `source` into the slot of `out` with its index.
/// `kernel` must come from [`Kernel::detect`] or [`Kernel::available`];
/// `out` has one slot per message.
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
    let mut queue = Queue::new(source, sched.width);
    loop {
        // With every lane idle: the next set (a full one, or the last
        // messages), hashed at once or started in the lanes.
        if sched.busy() == 0 {
            if sched.run_direct(source, &mut queue, out) {
                continue;
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
}

/// The lane scheduler of [`digest_batch`]: which message each lane
/// hashes and how far it is. Pointers into the scheduler's own buffers are
/// made afresh for each kernel call, never kept.
struct Scheduler<'a> {
    kernel: Kernel,
    width: usize,
    /// What every message continues.
    start: Start,
    /// Bit `i` set: lane `i` is idle. Only lanes below `width`.
    idle: u64,
    state: LaneStates,
    /// Index of each busy lane's message in the batch and `out`.
    index: [usize; MAX_LANES],
    /// Blocks left in each lane's current stretch; `usize::MAX` when idle.
    left: [usize; MAX_LANES],
    /// Where each lane's stretch lies, and what follows it.
    stretch_in: [StretchIn; MAX_LANES],
    next: [NextStretch; MAX_LANES],
    /// The next block of a stretch in the caller's memory...
    ptr: BlockPtrs,
    /// ... or its byte offset in the lane's buffer.
    pos: [usize; MAX_LANES],
    /// For `NextStretch::InPlace`: where the blocks in place start, how many they
    /// are, and what follows them.
    in_place: BlockPtrs,
    in_place_blocks: [usize; MAX_LANES],
    after_in_place: [NextStretch; MAX_LANES],
    /// Each lane's copy of a short message and its padding, or the head
    /// and padding of a long one; only what a lane wrote is read.
    buf: [LaneBuf; MAX_LANES],
    /// One padding block for whole-block messages of `shared_pad_len` bytes.
    shared_pad: [u8; 64],
    /// The same block as message words, for the kernel's `last` block.
    shared_pad_words: [u32; 16],
    shared_pad_len: Option<u64>,
    /// The messages live as long as this.
    _inputs: core::marker::PhantomData<&'a [u8]>,
}

impl<'a> Scheduler<'a> {
    fn new(kernel: Kernel, start: Start) -> Self {
        let width = kernel.lanes();
        debug_assert!(width <= MAX_LANES && MAX_LANES <= 64);
        Self {
            kernel,
            width,
            start,
            idle: u64::MAX >> (64 - width),
            state: LaneStates::new(),
            index: [0; MAX_LANES],
            left: [usize::MAX; MAX_LANES],
            stretch_in: [StretchIn::Message; MAX_LANES],
            next: [NextStretch::Done; MAX_LANES],
            ptr: [core::ptr::null(); MAX_LANES],
            pos: [0; MAX_LANES],
            in_place: [core::ptr::null(); MAX_LANES],
            in_place_blocks: [0; MAX_LANES],
            after_in_place: [NextStretch::Done; MAX_LANES],
            buf: [LaneBuf([MaybeUninit::uninit(); BUF]); MAX_LANES],
            shared_pad: [0; 64],
            shared_pad_words: [0; 16],
            shared_pad_len: None,
            _inputs: core::marker::PhantomData,
        }
    }

    fn busy(&self) -> usize {
        self.width - self.idle.count_ones() as usize
    }

    /// Where lane `lane`'s buffer starts, for writing.
    fn buf_mut(&mut self, lane: usize) -> *mut u8 {
        self.buf[lane].0.as_mut_ptr().cast()
    }
}
