//! The lane scheduler of [`super::digest_many_into`]: keeps every lane of
//! the kernel busy with a batch of messages of any lengths, and pads each
//! message in its lane.
//!
//! Messages start longest first within windows of the batch (see
//! [`Queue`]), so that lanes end close together, the kernel runs long calls
//! and the batch ends on short messages rather than one long one.
//!
//! Per-message work is kept small, since it is most of the cost for short
//! messages: a message of up to [`BUF_BLOCKS`] blocks with its padding is
//! copied into its lane's buffer and runs as one stretch of blocks, so a
//! 64-byte message costs one kernel call shared by all lanes, not two;
//! longer messages run from the caller's memory, then from their padding,
//! which for whole-block messages of the batch's first such length is one
//! block built once and shared. Lanes are tracked in bit masks, and each
//! kernel call is followed by one pass over the busy lanes.

use super::{portable, Kernel, Ptrs, Soa, MAX_LANES};
use crate::{compress, consts::STATE_INIT};
use core::mem::MaybeUninit;

/// Blocks in a lane's buffer: a message whose blocks and padding fit is
/// copied there whole.
const BUF_BLOCKS: usize = 4;
const BUF: usize = 64 * BUF_BLOCKS;

/// What a lane runs after its current stretch of blocks.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Then {
    /// The message is done.
    Done,
    /// This many blocks of padding at the start of the lane's buffer.
    Pad(usize),
    /// The shared padding block.
    Shared,
}

/// Where a lane's current stretch of blocks lies.
#[derive(Clone, Copy, PartialEq, Eq)]
enum From {
    /// The caller's message, at `Scheduler::ptr`.
    Message,
    /// The lane's buffer, at byte offset `Scheduler::pos`.
    Buffer,
    /// The shared padding block.
    Shared,
}

/// [`digest_many_into`](super::digest_many_into) with the given kernel.
/// `kernel` must come from [`Kernel::detect`] or [`Kernel::available`];
/// `inputs` and `out` have equal lengths.
pub(super) fn digest_many_with<T: AsRef<[u8]>>(kernel: Kernel, inputs: &[T], out: &mut [[u8; 16]]) {
    debug_assert_eq!(inputs.len(), out.len());
    if kernel == Kernel::Portable {
        portable::digest_many_into(inputs, out);
        return;
    }
    let mut sched = Scheduler::new(kernel);
    let width = sched.width;
    let mut queue = Queue::new(inputs, width);
    loop {
        // With every lane idle and a full set of messages to come: if they
        // all have one whole-block length, they run as one kernel call
        // with no bookkeeping; else they start in the lanes as below.
        if sched.busy() == 0 {
            if let Some(msgs) = queue.take_set() {
                // Longest first: the first and last lengths are equal only
                // if all are.
                let len = msgs[0].1.len();
                if len >= 64 && len.is_multiple_of(64) && msgs[msgs.len() - 1].1.len() == len {
                    sched.run_equal(msgs, out);
                } else {
                    for (lane, &(index, m)) in msgs.iter().enumerate() {
                        sched.start(lane, index, m);
                    }
                }
                continue;
            }
        }
        // Refill idle lanes with the next messages, lowest lanes first.
        while sched.idle != 0 {
            let Some((index, m)) = queue.next() else {
                break;
            };
            sched.start(sched.idle.trailing_zeros() as usize, index, m);
        }
        if queue.is_empty() {
            match sched.busy() {
                0 => break,
                // A lone last message runs faster through the single-stream
                // backend than through a mostly idle vector.
                1 => {
                    sched.finish_alone(out);
                    break;
                }
                // Few messages left: gather them in the low lanes, where the
                // kernel runs fewer groups.
                _ => sched.compact(),
            }
        }
        sched.step(out);
    }
}

/// Messages queued at a time: at least the widest kernel's width.
pub(super) const WINDOW: usize = 192;

/// The messages of a batch in the order they start in the lanes: the
/// longest first, within windows of up to [`WINDOW`] messages. Lanes then
/// end close together and the batch ends on its shortest messages, so the
/// kernel runs long calls with few idle lanes (in input order, a long
/// message near the end keeps one lane busy alone, and short ones end
/// every few blocks, each a kernel call). Each input's `as_ref` is called
/// once.
struct Queue<'a, T> {
    inputs: &'a [T],
    /// Inputs moved into the window so far.
    taken: usize,
    width: usize,
    /// Each queued message with its index, `head..end` still to start.
    window: [(usize, &'a [u8]); WINDOW],
    head: usize,
    end: usize,
}

impl<'a, T: AsRef<[u8]>> Queue<'a, T> {
    fn new(inputs: &'a [T], width: usize) -> Self {
        debug_assert!(width <= WINDOW);
        let mut q = Self {
            inputs,
            taken: 0,
            width,
            window: [(0, &[]); WINDOW],
            head: 0,
            end: 0,
        };
        q.refill();
        q
    }

    /// Moves what is left to the front of the window, fills the rest from
    /// the inputs, and sorts the window longest first (unless it already
    /// is, as a batch of equal lengths).
    fn refill(&mut self) {
        self.window.copy_within(self.head..self.end, 0);
        self.end -= self.head;
        self.head = 0;
        let more = (WINDOW - self.end).min(self.inputs.len() - self.taken);
        let new = &self.inputs[self.taken..self.taken + more];
        // What is left is sorted already: only the new messages are checked.
        let mut prev = match self.end {
            0 => usize::MAX,
            end => self.window[end - 1].1.len(),
        };
        let mut sorted = true;
        for ((slot, input), index) in self.window[self.end..self.end + more]
            .iter_mut()
            .zip(new)
            .zip(self.taken..)
        {
            let m = input.as_ref();
            sorted &= m.len() <= prev;
            prev = m.len();
            *slot = (index, m);
        }
        self.taken += more;
        self.end += more;
        if !sorted {
            self.window[..self.end].sort_unstable_by_key(|&(_, m)| core::cmp::Reverse(m.len()));
        }
    }

    /// Whether every message has started: none in the window, and none
    /// left in the inputs. (A set taken to the window's end leaves it
    /// empty with inputs to come.)
    fn is_empty(&self) -> bool {
        self.head == self.end && self.taken == self.inputs.len()
    }

    fn next(&mut self) -> Option<(usize, &'a [u8])> {
        if self.head == self.end {
            if self.taken == self.inputs.len() {
                return None;
            }
            self.refill();
        }
        let item = self.window[self.head];
        self.head += 1;
        Some(item)
    }

    /// The next `width` messages, if there are that many, longest first.
    fn take_set(&mut self) -> Option<&[(usize, &'a [u8])]> {
        if self.end - self.head < self.width && self.taken < self.inputs.len() {
            self.refill();
        }
        if self.end - self.head < self.width {
            return None;
        }
        let set = &self.window[self.head..self.head + self.width];
        self.head += self.width;
        Some(set)
    }
}

/// The lane scheduler of [`digest_many_with`]: which message each lane
/// hashes and how far it is. Pointers into the scheduler's own buffers are
/// made afresh for each kernel call, never kept.
struct Scheduler<'a> {
    kernel: Kernel,
    width: usize,
    /// Bit `i` set: lane `i` is idle. Only lanes below `width`.
    idle: u64,
    state: Soa,
    /// Index of each busy lane's message in the input and output slices.
    index: [usize; MAX_LANES],
    /// Blocks left in each lane's current stretch; `usize::MAX` when idle.
    left: [usize; MAX_LANES],
    /// Where each lane's stretch lies, and what follows it.
    from: [From; MAX_LANES],
    then: [Then; MAX_LANES],
    /// The next block of a stretch in the caller's message...
    ptr: Ptrs,
    /// ... or its byte offset in the lane's buffer.
    pos: [usize; MAX_LANES],
    /// Each lane's copy of a short message and its padding, or the padding
    /// of a long one; only what a lane wrote is read.
    buf: [MaybeUninit<[u8; BUF]>; MAX_LANES],
    /// One padding block for whole-block messages of `shared_len` bytes.
    shared: [u8; 64],
    /// The same block as message words, for the kernel's `last` block.
    shared_words: [u32; 16],
    shared_len: Option<u64>,
    /// The messages live as long as this.
    _inputs: core::marker::PhantomData<&'a [u8]>,
}

impl<'a> Scheduler<'a> {
    fn new(kernel: Kernel) -> Self {
        let width = kernel.lanes();
        debug_assert!(width <= MAX_LANES && MAX_LANES <= 64);
        Self {
            kernel,
            width,
            idle: u64::MAX >> (64 - width),
            state: Soa::new(),
            index: [0; MAX_LANES],
            left: [usize::MAX; MAX_LANES],
            from: [From::Message; MAX_LANES],
            then: [Then::Done; MAX_LANES],
            ptr: [core::ptr::null(); MAX_LANES],
            pos: [0; MAX_LANES],
            buf: [const { MaybeUninit::uninit() }; MAX_LANES],
            shared: [0; 64],
            shared_words: [0; 16],
            shared_len: None,
            _inputs: core::marker::PhantomData,
        }
    }

    fn busy(&self) -> usize {
        self.width - self.idle.count_ones() as usize
    }

    /// Puts message `index` into the idle `lane`.
    #[inline]
    fn start(&mut self, lane: usize, index: usize, msg: &'a [u8]) {
        debug_assert!(self.idle & (1 << lane) != 0);
        self.idle &= !(1 << lane);
        self.state.set(lane, STATE_INIT);
        self.index[lane] = index;
        let len = msg.len();
        let whole = len / 64;
        let (body, tail) = msg.split_at(64 * whole);
        if whole >= 1 && tail.is_empty() && self.share_pad(len as u64) {
            // The blocks in place, then the shared padding block.
            self.from[lane] = From::Message;
            self.ptr[lane] = body.as_ptr();
            self.left[lane] = whole;
            self.then[lane] = Then::Shared;
            return;
        }
        let dst = self.buf[lane].as_mut_ptr().cast::<u8>();
        if whole + pad_blocks(tail.len()) <= BUF_BLOCKS {
            // SAFETY: `body` and the padding fit the lane's `BUF` bytes
            // (checked above), which do not overlap the caller's message.
            let pad = unsafe {
                core::ptr::copy_nonoverlapping(body.as_ptr(), dst, body.len());
                write_pad(dst.add(body.len()), tail, len as u64)
            };
            self.from[lane] = From::Buffer;
            self.pos[lane] = 0;
            self.left[lane] = whole + pad;
            self.then[lane] = Then::Done;
            return;
        }
        // Longer than the buffer: `whole >= BUF_BLOCKS - 1 >= 1`.
        self.from[lane] = From::Message;
        self.ptr[lane] = body.as_ptr();
        self.left[lane] = whole;
        // SAFETY: at most 128 bytes, within the lane's `BUF`.
        self.then[lane] = Then::Pad(unsafe { write_pad(dst, tail, len as u64) });
    }

    /// Hashes `msgs`, one per lane and all of one whole-block length, into
    /// `out`: one kernel call over their blocks, then their padding block
    /// from its broadcast words. Every lane is idle before and after.
    fn run_equal(&mut self, msgs: &[(usize, &[u8])], out: &mut [[u8; 16]]) {
        debug_assert!(msgs.len() == self.width && self.busy() == 0);
        let len = msgs[0].1.len();
        // The idle lanes' stale pointers are overwritten, not cleared first.
        for (p, (_, m)) in self.ptr.iter_mut().zip(msgs) {
            debug_assert_eq!(m.len(), len);
            *p = m.as_ptr();
        }
        for (row, init) in self.state.s.iter_mut().zip(STATE_INIT) {
            row[..msgs.len()].fill(init);
        }
        let bits = (len as u64).wrapping_mul(8);
        let mut pad = [0u32; 16];
        pad[0] = 0x80;
        pad[14] = bits as u32;
        pad[15] = (bits >> 32) as u32;
        // SAFETY: `self.kernel` came from `Kernel::detect` or
        // `Kernel::available` (see `digest_many_with`); all `self.width`
        // lanes are used, each pointing at a message of `len` bytes, `len /
        // 64` whole blocks.
        unsafe {
            self.kernel
                .compress(&mut self.state, &self.ptr, len / 64, msgs.len(), Some(&pad))
        };
        // Four digests at a time: every SIMD kernel's width is a multiple
        // of 4 (groups of 4, 8 or 16 lanes).
        debug_assert!(msgs.len().is_multiple_of(4));
        for (quad, msgs) in msgs.chunks_exact(4).enumerate() {
            let digests = self.state.digests4(4 * quad);
            for (&(index, _), d) in msgs.iter().zip(digests) {
                out[index] = d;
            }
        }
    }

    /// Whether the shared padding block serves a whole-block message of
    /// `len` bytes; it is built for the first such length of the batch.
    fn share_pad(&mut self, len: u64) -> bool {
        match self.shared_len {
            Some(l) => l == len,
            None => {
                fill_shared(&mut self.shared, len);
                for (w, b) in self
                    .shared_words
                    .iter_mut()
                    .zip(self.shared.chunks_exact(4))
                {
                    *w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                }
                self.shared_len = Some(len);
                true
            }
        }
    }

    /// Runs the kernel once over as many blocks as every busy lane has in
    /// its current stretch, then moves the lanes whose stretch ended on to
    /// their padding, or retires them. When every busy lane's message ends
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
            match self.from[lane] {
                From::Message => {}
                From::Buffer => self.ptr[lane] = bufs.wrapping_add(lane * BUF + self.pos[lane]),
                From::Shared => self.ptr[lane] = self.shared.as_ptr(),
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
        // `Kernel::available` (see `digest_many_with`), and `1 <= used <=
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
            let mut done = busy_mask;
            while done != 0 {
                let lane = done.trailing_zeros() as usize;
                done &= done - 1;
                out[self.index[lane]] = to_bytes(self.state.get(lane));
                self.left[lane] = usize::MAX;
            }
            self.idle |= busy_mask;
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
        while ended != 0 {
            let lane = ended.trailing_zeros() as usize;
            ended &= ended - 1;
            match self.then[lane] {
                Then::Pad(blocks) => {
                    self.from[lane] = From::Buffer;
                    self.pos[lane] = 0;
                    self.left[lane] = blocks;
                }
                Then::Shared => {
                    self.from[lane] = From::Shared;
                    self.left[lane] = 1;
                }
                Then::Done => {
                    out[self.index[lane]] = to_bytes(self.state.get(lane));
                    self.idle |= 1 << lane;
                    self.left[lane] = usize::MAX;
                }
            }
            self.then[lane] = Then::Done;
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
            self.from[to] = self.from[from];
            self.then[to] = self.then[from];
            self.ptr[to] = self.ptr[from];
            self.pos[to] = self.pos[from];
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
            // SAFETY: a busy lane's stretch, and its padding, are that many
            // whole blocks at `at` (see `step`); `[u8; 64]` has alignment 1.
            let blocks = unsafe { core::slice::from_raw_parts(at.cast::<[u8; 64]>(), blocks) };
            compress::compress(&mut state, blocks);
        };
        let bufs = self.buf.as_ptr().cast::<u8>();
        let at = match self.from[lane] {
            From::Message => self.ptr[lane],
            From::Buffer => bufs.wrapping_add(lane * BUF + self.pos[lane]),
            From::Shared => self.shared.as_ptr(),
        };
        run(at, self.left[lane]);
        match self.then[lane] {
            Then::Done => {}
            Then::Pad(blocks) => run(bufs.wrapping_add(lane * BUF), blocks),
            Then::Shared => run(self.shared.as_ptr(), 1),
        }
        out[self.index[lane]] = to_bytes(state);
        self.idle |= 1 << lane;
    }
}

/// The padding block of a whole-block message of `len` bytes.
fn fill_shared(block: &mut [u8; 64], len: u64) {
    *block = [0; 64];
    block[0] = 0x80;
    block[56..].copy_from_slice(&len.wrapping_mul(8).to_le_bytes());
}

/// Fills `pad` with the final one or two blocks of a message whose bytes
/// after the last whole block are `tail` and whose length is `total` bytes;
/// returns how many bytes of `pad` to compress (64 or 128).
fn fill_pad(pad: &mut [u8; 128], tail: &[u8], total: u64) -> usize {
    // SAFETY: `pad` is valid for writes of 128 bytes.
    64 * unsafe { write_pad(pad.as_mut_ptr(), tail, total) }
}

/// Blocks of padding after the last whole block: one, or two when the tail
/// leaves no room for the 0x80 marker and the 8-byte length.
const fn pad_blocks(tail: usize) -> usize {
    if tail < 56 {
        1
    } else {
        2
    }
}

/// Writes the final one or two blocks of a message whose bytes after the
/// last whole block are `tail` (under 64 bytes) and whose length is `total`
/// bytes to `dst`; returns how many blocks it wrote.
///
/// # Safety
///
/// `dst` is valid for writes of `64 * pad_blocks(tail.len())` bytes, and
/// does not overlap `tail`.
unsafe fn write_pad(dst: *mut u8, tail: &[u8], total: u64) -> usize {
    debug_assert!(tail.len() < 64);
    let blocks = pad_blocks(tail.len());
    let end = 64 * blocks;
    // SAFETY: every write is within the `end` bytes the caller vouches for:
    // `tail.len() + 1 <= 64 <= end`, and the length takes the last 8.
    unsafe {
        core::ptr::write_bytes(dst, 0, end);
        core::ptr::copy_nonoverlapping(tail.as_ptr(), dst, tail.len());
        dst.add(tail.len()).write(0x80);
        dst.add(end - 8)
            .cast::<[u8; 8]>()
            .write_unaligned(total.wrapping_mul(8).to_le_bytes());
    }
    blocks
}

/// Little-endian bytes of a chaining value.
pub(super) fn to_bytes(state: [u32; 4]) -> [u8; 16] {
    let mut out = [0u8; 16];
    for (chunk, v) in out.chunks_exact_mut(4).zip(state) {
        chunk.copy_from_slice(&v.to_le_bytes());
    }
    out
}

/// Finishes one message on the single-stream backend: `rest` (whole blocks
/// first, then a tail under 64 bytes) of a message `total` bytes long.
pub(super) fn finish_single(mut state: [u32; 4], rest: &[u8], total: u64) -> [u8; 16] {
    let (blocks, tail) = rest.as_chunks::<64>();
    compress::compress(&mut state, blocks);
    let mut pad = [0u8; 128];
    let end = fill_pad(&mut pad, tail, total);
    compress::compress(&mut state, pad[..end].as_chunks::<64>().0);
    to_bytes(state)
}
