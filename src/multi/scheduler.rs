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
//!   their longest piece's whole blocks in place. Lanes are tracked in bit
//!   masks, and each kernel call is followed by one pass over the busy
//!   lanes.

use super::pad::{fill_shared, padded_blocks, write_end};
use super::queue::{Entry, Queue};
use super::single::{self, to_bytes};
use super::source::{Message, Source, Start};
use super::{Kernel, Ptrs, Soa, MAX_LANES};
use crate::compress;
use core::mem::MaybeUninit;

mod sets;

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
enum Then {
    /// The message is done.
    Done,
    /// This many blocks at byte offset `at` of the lane's buffer: the
    /// message's end and its padding.
    Pad { at: usize, blocks: usize },
    /// The shared padding block.
    Shared,
    /// The whole blocks in place that follow a head copied to the buffer
    /// (`Scheduler::body`), then `Scheduler::after`.
    Body,
}

/// Where a lane's current stretch of blocks lies.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stretch {
    /// The caller's memory, at `Scheduler::ptr`.
    Message,
    /// The lane's buffer, at byte offset `Scheduler::pos`.
    Buffer,
    /// The shared padding block.
    Shared,
}

/// Hashes every message of `source` into the slot of `out` with its index.
/// `kernel` must come from [`Kernel::detect`] or [`Kernel::available`];
/// `out` has one slot per message.
pub(super) fn digest_batch<'a, S: Source<'a>>(kernel: Kernel, source: &S, out: &mut [[u8; 16]]) {
    assert_eq!(source.count(), out.len());
    let start = source.start();
    if kernel == Kernel::Portable {
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
    state: Soa,
    /// Index of each busy lane's message in the batch and `out`.
    index: [usize; MAX_LANES],
    /// Blocks left in each lane's current stretch; `usize::MAX` when idle.
    left: [usize; MAX_LANES],
    /// Where each lane's stretch lies, and what follows it.
    stretch: [Stretch; MAX_LANES],
    then: [Then; MAX_LANES],
    /// The next block of a stretch in the caller's memory...
    ptr: Ptrs,
    /// ... or its byte offset in the lane's buffer.
    pos: [usize; MAX_LANES],
    /// For `Then::Body`: where the blocks in place start, how many they
    /// are, and what follows them.
    body: Ptrs,
    body_blocks: [usize; MAX_LANES],
    after: [Then; MAX_LANES],
    /// Each lane's copy of a short message and its padding, or the head
    /// and padding of a long one; only what a lane wrote is read.
    buf: [LaneBuf; MAX_LANES],
    /// One padding block for whole-block messages of `shared_len` bytes.
    shared: [u8; 64],
    /// The same block as message words, for the kernel's `last` block.
    shared_words: [u32; 16],
    shared_len: Option<u64>,
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
            state: Soa::new(),
            index: [0; MAX_LANES],
            left: [usize::MAX; MAX_LANES],
            stretch: [Stretch::Message; MAX_LANES],
            then: [Then::Done; MAX_LANES],
            ptr: [core::ptr::null(); MAX_LANES],
            pos: [0; MAX_LANES],
            body: [core::ptr::null(); MAX_LANES],
            body_blocks: [0; MAX_LANES],
            after: [Then::Done; MAX_LANES],
            buf: [LaneBuf([MaybeUninit::uninit(); BUF]); MAX_LANES],
            shared: [0; 64],
            shared_words: [0; 16],
            shared_len: None,
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

    /// Puts message `e` into the idle `lane`. A message in pieces whose
    /// layout needs more of the lane's buffer than it has is instead
    /// hashed at once on the single-stream backend, and the lane stays
    /// idle.
    #[inline]
    fn start<M: Message<'a>>(&mut self, lane: usize, e: Entry<M>, out: &mut [[u8; 16]]) {
        debug_assert!(self.idle & (1 << lane) != 0);
        let msg = e.msg;
        let len = msg.len();
        let total = self.start.len.wrapping_add(len as u64);
        if M::PLAIN && len >= 64 && len.is_multiple_of(64) && self.share_pad(total) {
            // The blocks in place, then the shared padding block.
            self.occupy(lane, e.index);
            self.stretch[lane] = Stretch::Message;
            self.ptr[lane] = msg.plain().as_ptr();
            self.left[lane] = len / 64;
            self.then[lane] = Then::Shared;
            return;
        }
        let dst = self.buf_mut(lane);
        if e.blocks <= BUF_BLOCKS {
            let blocks = e.blocks;
            // SAFETY: the message and its padding, `e.blocks` blocks, fit
            // the lane's `BUF` bytes, which are the scheduler's own.
            unsafe { write_end(dst, &msg, 0, blocks, total) };
            self.occupy(lane, e.index);
            self.stretch[lane] = Stretch::Buffer;
            self.pos[lane] = 0;
            self.left[lane] = blocks;
            self.then[lane] = Then::Done;
            return;
        }
        // Longer than the buffer: a head of whole blocks copied to it (for
        // pieces), the run in place, and the end with its padding copied
        // after the head. A plain message has no head and an end of one or
        // two blocks, so this always fits.
        // (A run past `len` can only come from pieces whose `as_ref`
        // answered differently for the length: hashed on their own then.)
        let plan = msg.in_place().and_then(|(at, run)| {
            let end = at + run.len();
            let end_blocks = padded_blocks(len.checked_sub(end)?);
            (at / 64 + end_blocks <= BUF_BLOCKS).then_some((at, run, end, end_blocks))
        });
        let Some((at, run, end, end_blocks)) = plan else {
            out[e.index] = single::digest(&msg, self.start);
            return;
        };
        let head = at / 64;
        // SAFETY: the head (`at` bytes, `head` blocks) and then the end
        // with its padding (`end_blocks` blocks) fit the lane's `BUF`
        // bytes (checked above), which are the scheduler's own; `at <= end
        // <= len`, the run lying within the message.
        unsafe {
            msg.copy(0, at, dst);
            write_end(dst.add(at), &msg, end, end_blocks, total);
        }
        self.occupy(lane, e.index);
        let pad = Then::Pad {
            at,
            blocks: end_blocks,
        };
        if head == 0 {
            self.stretch[lane] = Stretch::Message;
            self.ptr[lane] = run.as_ptr();
            self.left[lane] = run.len() / 64;
            self.then[lane] = pad;
        } else {
            self.stretch[lane] = Stretch::Buffer;
            self.pos[lane] = 0;
            self.left[lane] = head;
            self.then[lane] = Then::Body;
            self.body[lane] = run.as_ptr();
            self.body_blocks[lane] = run.len() / 64;
            self.after[lane] = pad;
        }
    }

    /// Marks `lane` busy with message `index`, from the batch's start.
    fn occupy(&mut self, lane: usize, index: usize) {
        self.idle &= !(1 << lane);
        self.state.set(lane, self.start.state);
        self.index[lane] = index;
    }

    /// Whether the shared padding block serves a whole-block message of
    /// `total` bytes; it is built for the first such length of the batch.
    fn share_pad(&mut self, total: u64) -> bool {
        match self.shared_len {
            Some(l) => l == total,
            None => {
                fill_shared(&mut self.shared, total);
                for (w, b) in self
                    .shared_words
                    .iter_mut()
                    .zip(self.shared.chunks_exact(4))
                {
                    *w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                }
                self.shared_len = Some(total);
                true
            }
        }
    }

    /// Runs the kernel once over as many blocks as every busy lane has in
    /// its current stretch, then moves the lanes whose stretch ended on to
    /// what follows, or retires them. When every busy lane's message ends
    /// with this stretch and the shared padding block, as in a batch of
    /// equal whole-block lengths, the same call runs that block too (from
    /// its broadcast words: no loads, no transposition) and retires them
    /// all.
    #[allow(clippy::needless_range_loop)] // `lane` indexes parallel arrays
    fn step(&mut self, out: &mut [[u8; 16]]) {
        let busy_mask = !self.idle & (u64::MAX >> (64 - self.width));
        debug_assert!(busy_mask != 0);
        let used = 64 - busy_mask.leading_zeros() as usize;
        let span = used.next_multiple_of(self.kernel.group_lanes());
        let n = *self.left[..used].iter().min().unwrap_or(&0);
        debug_assert!(n >= 1 && n != usize::MAX);
        // Pointers for the call, those into this scheduler's buffers made
        // afresh from one borrow of them (stale ones are never read).
        let bufs = self.buf.as_ptr().cast::<u8>();
        let mut any = core::ptr::null();
        let mut all_end_shared = true;
        for lane in 0..span {
            if self.idle & (1 << lane) != 0 {
                continue;
            }
            match self.stretch[lane] {
                Stretch::Message => {}
                Stretch::Buffer => self.ptr[lane] = bufs.wrapping_add(lane * BUF + self.pos[lane]),
                Stretch::Shared => self.ptr[lane] = self.shared.as_ptr(),
            }
            any = self.ptr[lane];
            all_end_shared &= self.left[lane] == n && self.then[lane] == Then::Shared;
        }
        // Idle lanes the kernel reads hash a busy lane's blocks; their state
        // is discarded.
        let mut idle = self.idle & (u64::MAX >> (64 - span));
        while idle != 0 {
            self.ptr[idle.trailing_zeros() as usize] = any;
            idle &= idle - 1;
        }
        let last = all_end_shared.then_some(&self.shared_words);
        // SAFETY: `self.kernel` came from `Kernel::detect` or
        // `Kernel::available` (see `digest_batch`), and `1 <= used <=
        // self.width`. Each busy lane's pointer starts a stretch of at least
        // `n` blocks in its message (borrowed for `'a`), its buffer (written
        // by `start`; nothing writes it during the call) or the shared
        // block; each idle lane of the groups the call runs got a busy
        // lane's pointer.
        unsafe {
            self.kernel
                .compress(&mut self.state, &self.ptr, n, used, last)
        };
        if all_end_shared {
            self.retire(busy_mask, out);
            return;
        }
        let mut ended = 0u64;
        for lane in 0..used {
            self.ptr[lane] = self.ptr[lane].wrapping_add(64 * n);
            self.pos[lane] = self.pos[lane].wrapping_add(64 * n);
            self.left[lane] = self.left[lane].wrapping_sub(n);
            ended |= u64::from(self.left[lane] == 0) << lane;
        }
        ended &= busy_mask;
        let mut done = 0;
        while ended != 0 {
            let lane = ended.trailing_zeros() as usize;
            ended &= ended - 1;
            let then = self.then[lane];
            self.then[lane] = Then::Done;
            match then {
                Then::Pad { at, blocks } => {
                    self.stretch[lane] = Stretch::Buffer;
                    self.pos[lane] = at;
                    self.left[lane] = blocks;
                }
                Then::Shared => {
                    self.stretch[lane] = Stretch::Shared;
                    self.left[lane] = 1;
                }
                Then::Body => {
                    self.stretch[lane] = Stretch::Message;
                    self.ptr[lane] = self.body[lane];
                    self.left[lane] = self.body_blocks[lane];
                    self.then[lane] = self.after[lane];
                }
                Then::Done => done |= 1 << lane,
            }
        }
        self.retire(done, out);
    }

    /// Writes the digests of the lanes in `done` to `out` and makes them
    /// idle: four at a time where they make whole quads.
    fn retire(&mut self, mut done: u64, out: &mut [[u8; 16]]) {
        self.idle |= done;
        while done != 0 {
            let lane = done.trailing_zeros() as usize;
            if lane.is_multiple_of(4) && (done >> lane) & 0xf == 0xf {
                let digests = self.state.digests4(lane);
                for (l, d) in (lane..lane + 4).zip(digests) {
                    out[self.index[l]] = d;
                    self.left[l] = usize::MAX;
                }
                done &= !(0xf << lane);
            } else {
                out[self.index[lane]] = to_bytes(self.state.get(lane));
                self.left[lane] = usize::MAX;
                done &= done - 1;
            }
        }
    }

    /// Moves busy lanes down into idle ones until they fill the fewest
    /// groups.
    fn compact(&mut self) {
        let group = self.kernel.group_lanes();
        let keep = self.busy().div_ceil(group) * group;
        let mut high = !self.idle & (u64::MAX >> (64 - self.width)) & !(u64::MAX >> (64 - keep));
        while high != 0 {
            let from = high.trailing_zeros() as usize;
            high &= high - 1;
            let to = self.idle.trailing_zeros() as usize;
            debug_assert!(to < keep);
            self.idle &= !(1 << to);
            self.idle |= 1 << from;
            self.state.set(to, self.state.get(from));
            self.index[to] = self.index[from];
            self.left[to] = self.left[from];
            self.left[from] = usize::MAX;
            self.stretch[to] = self.stretch[from];
            self.then[to] = self.then[from];
            self.ptr[to] = self.ptr[from];
            self.pos[to] = self.pos[from];
            self.body[to] = self.body[from];
            self.body_blocks[to] = self.body_blocks[from];
            self.after[to] = self.after[from];
            // Moves only what `from` wrote: the buffer is copied as maybe
            // uninitialised bytes.
            self.buf[to] = self.buf[from];
        }
    }

    /// Finishes the one busy lane on the single-stream backend.
    fn finish_alone(&mut self, out: &mut [[u8; 16]]) {
        let lane = (!self.idle).trailing_zeros() as usize;
        debug_assert!(self.busy() == 1 && lane < self.width);
        let mut state = self.state.get(lane);
        let mut run = |at: *const u8, blocks: usize| {
            // SAFETY: a busy lane's stretches, in its message, its buffer
            // or the shared block, are that many whole blocks at `at` (see
            // `step`); `[u8; 64]` has alignment 1.
            let blocks = unsafe { core::slice::from_raw_parts(at.cast::<[u8; 64]>(), blocks) };
            compress::compress(&mut state, blocks);
        };
        let bufs = self.buf.as_ptr().cast::<u8>().wrapping_add(lane * BUF);
        run(
            match self.stretch[lane] {
                Stretch::Message => self.ptr[lane],
                Stretch::Buffer => bufs.wrapping_add(self.pos[lane]),
                Stretch::Shared => self.shared.as_ptr(),
            },
            self.left[lane],
        );
        let mut then = self.then[lane];
        loop {
            match then {
                Then::Done => break,
                Then::Pad { at, blocks } => run(bufs.wrapping_add(at), blocks),
                Then::Shared => run(self.shared.as_ptr(), 1),
                Then::Body => {
                    run(self.body[lane], self.body_blocks[lane]);
                    then = self.after[lane];
                    continue;
                }
            }
            then = Then::Done;
        }
        out[self.index[lane]] = to_bytes(state);
        self.idle |= 1 << lane;
    }
}
