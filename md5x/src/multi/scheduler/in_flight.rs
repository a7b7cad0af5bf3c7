//! The lane scheduler's state: which message each lane hashes, how far it
//! is, and the lanes' buffers. `mod.rs` runs the batch loop over it;
//! `start.rs`, `step.rs`, `sets.rs` and `stagger.rs` are its steps.

use super::queue::Queue;
use super::source::{Source, Start};
use crate::multi::kernel::Kernel;
use crate::multi::lane_state::{BlockPtrs, LaneStates, MAX_LANES};
use core::mem::MaybeUninit;

/// Blocks in a lane's buffer: a message whose blocks and padding fit is
/// copied there whole.
pub(super) const BUF_BLOCKS: usize = 4;
pub(super) const BUF: usize = 64 * BUF_BLOCKS;

/// One lane's buffer, on a cache line of its own so that the kernel's
/// loads from it never straddle two lines.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
pub(super) struct LaneBuf(pub(super) [MaybeUninit<u8>; BUF]);

/// What a lane runs after its current stretch of blocks.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum NextStretch {
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
pub(super) enum StretchIn {
    /// The caller's memory, at `Scheduler::ptr`.
    Message,
    /// The lane's buffer, at byte offset `Scheduler::pos`.
    Buffer,
    /// The shared padding block.
    SharedPadding,
}

/// The lane scheduler of [`digest_batch`](super::digest_batch): which message each lane
/// hashes and how far it is. Pointers into the scheduler's own buffers are
/// made afresh for each kernel call, never kept.
pub(super) struct Scheduler<'a> {
    pub(super) kernel: Kernel,
    pub(super) width: usize,
    /// The width for a batch that streams from memory
    /// ([`Kernel::memory_lanes`]), and whether the batch was judged yet
    /// ([`Scheduler::size_for`]; from the start where the two widths agree).
    pub(super) memory_width: usize,
    pub(super) sized: bool,
    /// Lanes of a set of short messages hashed at once
    /// ([`Kernel::short_lanes`]): `width` or more.
    pub(super) short_width: usize,
    /// Whether a set of short rows of one block count runs as
    /// [`Kernel::rows`], its blocks built in registers.
    pub(super) rows_in_registers: bool,
    /// Whether the batch's digests are written past the caches
    /// (`multi/past_cache.rs`): those of the sets `run_direct` hashes go to a
    /// buffer first, then out by non-temporal stores (a little faster over
    /// a million short rows; the short-row windows of the time, whose
    /// digests' slots were prefetched, gained nothing).
    pub(super) past_cache: bool,
    /// What every message continues.
    pub(super) start: Start,
    /// Bit `i` set: lane `i` is idle. Only lanes below `width`.
    pub(super) idle: u64,
    pub(super) state: LaneStates,
    /// Index of each busy lane's message in the batch and `out`.
    pub(super) index: [usize; MAX_LANES],
    /// Blocks left in each lane's current stretch; `usize::MAX` when idle.
    pub(super) left: [usize; MAX_LANES],
    /// Where each lane's stretch lies, and what follows it.
    pub(super) stretch_in: [StretchIn; MAX_LANES],
    pub(super) next: [NextStretch; MAX_LANES],
    /// The next block of a stretch in the caller's memory...
    pub(super) ptr: BlockPtrs,
    /// ... or its byte offset in the lane's buffer.
    pub(super) pos: [usize; MAX_LANES],
    /// For `NextStretch::InPlace`: where the blocks in place start, how many they
    /// are, and what follows them.
    pub(super) in_place: BlockPtrs,
    pub(super) in_place_blocks: [usize; MAX_LANES],
    pub(super) after_in_place: [NextStretch; MAX_LANES],
    /// Each lane's copy of a short message and its padding, or the head
    /// and padding of a long one; only what a lane wrote is read.
    pub(super) buf: [LaneBuf; MAX_LANES],
    /// One padding block for whole-block messages of `shared_pad_len` bytes.
    pub(super) shared_pad: [u8; 64],
    /// The same block as message words, for the kernel's `last` block.
    pub(super) shared_pad_words: [u32; 16],
    pub(super) shared_pad_len: Option<u64>,
    /// The messages live as long as this.
    pub(super) _inputs: core::marker::PhantomData<&'a [u8]>,
}

impl<'a> Scheduler<'a> {
    pub(super) fn new(kernel: Kernel, start: Start) -> Self {
        let width = kernel.lanes();
        let memory_width = kernel.memory_lanes();
        let short_width = kernel.short_lanes();
        debug_assert!(width <= short_width && short_width <= MAX_LANES && MAX_LANES <= 64);
        Self {
            kernel,
            width,
            memory_width,
            sized: memory_width >= width,
            short_width,
            rows_in_registers: kernel.builds_rows(),
            past_cache: false,
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

    /// Once a batch, with every lane idle, before its first set: narrows
    /// the scheduler and `queue` to [`Kernel::memory_lanes`] if `count`
    /// messages of `mean` bytes stream from memory
    /// ([`streams_from_memory`](super::streams_from_memory)).
    pub(super) fn size_for<'s, S: Source<'a>>(
        &mut self,
        queue: &mut Queue<'s, 'a, S>,
        mean: usize,
        count: usize,
    ) {
        debug_assert!(self.busy() == 0 && !self.sized);
        self.sized = true;
        if super::streams_from_memory(mean, count) {
            self.width = self.memory_width;
            self.idle = u64::MAX >> (64 - self.width);
            queue.set_width(self.width);
        }
    }

    pub(super) fn busy(&self) -> usize {
        self.width - self.idle.count_ones() as usize
    }

    /// Where lane `lane`'s buffer starts, for writing.
    pub(super) fn buf_mut(&mut self, lane: usize) -> *mut u8 {
        self.buf[lane].0.as_mut_ptr().cast()
    }
}
