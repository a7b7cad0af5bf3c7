//! The lane scheduler of [`super::digest_many_into`]: keeps every lane of
//! the kernel busy with a batch of messages of any lengths, and pads each
//! message in its lane.

use super::{portable, Kernel, Ptrs, Soa, MAX_LANES};
use crate::{compress, consts::STATE_INIT};

/// [`digest_many_into`] with the given kernel. `kernel` must come from
/// [`Kernel::detect`] or [`Kernel::available`]; `inputs` and `out` have equal
/// lengths.
pub(super) fn digest_many_with<T: AsRef<[u8]>>(kernel: Kernel, inputs: &[T], out: &mut [[u8; 16]]) {
    debug_assert_eq!(inputs.len(), out.len());
    if kernel == Kernel::Portable {
        portable::digest_many_into(inputs, out);
        return;
    }
    let mut sched = Scheduler::new(kernel);
    let mut next = 0;
    loop {
        // Refill idle lanes with the next messages, lowest lanes first.
        let mut lane = 0;
        while sched.active < sched.width && next < inputs.len() {
            if sched.index[lane] == IDLE {
                sched.start(lane, next, inputs[next].as_ref());
                next += 1;
            }
            lane += 1;
        }
        if next == inputs.len() {
            match sched.active {
                0 => break,
                // A lone last message runs faster through the single-stream
                // backend than through a mostly idle vector.
                1 => {
                    sched.finish_alone(out);
                    break;
                }
                // Few messages left: gather them in the lowest groups, so
                // that the kernel runs fewer.
                n if n + sched.kernel.group_lanes() <= sched.width => sched.compact(),
                _ => {}
            }
        }
        sched.step(out);
    }
}

/// Marks an idle lane in [`Scheduler::index`].
const IDLE: usize = usize::MAX;

/// The lane scheduler of [`digest_many_with`]: which message each lane
/// hashes and how far it is. Each busy lane is first in its message's whole
/// blocks (`rest`), then in its padding blocks (`pad`).
struct Scheduler<'a> {
    kernel: Kernel,
    width: usize,
    /// Busy lanes.
    active: usize,
    state: Soa,
    /// Index of each lane's message in the input and output slices, or
    /// [`IDLE`].
    index: [usize; MAX_LANES],
    /// Length of each lane's message in bytes.
    len: [u64; MAX_LANES],
    /// The whole blocks of each message not compressed yet; empty once the
    /// lane is in its padding.
    rest: [&'a [u8]; MAX_LANES],
    /// Each message's tail, 0x80 marker and bit length: one or two blocks.
    pad: [[u8; 128]; MAX_LANES],
    /// Offset of the next padding block in `pad`, and the end of the
    /// padding; `pad_end` is 0 while the lane is still in `rest`.
    pad_at: [usize; MAX_LANES],
    pad_end: [usize; MAX_LANES],
}

impl<'a> Scheduler<'a> {
    fn new(kernel: Kernel) -> Self {
        Self {
            kernel,
            width: kernel.lanes(),
            active: 0,
            state: Soa::new(),
            index: [IDLE; MAX_LANES],
            len: [0; MAX_LANES],
            rest: [&[]; MAX_LANES],
            pad: [[0; 128]; MAX_LANES],
            pad_at: [0; MAX_LANES],
            pad_end: [0; MAX_LANES],
        }
    }

    /// Puts message `index` into the idle `lane`.
    fn start(&mut self, lane: usize, index: usize, msg: &'a [u8]) {
        self.state.set(lane, STATE_INIT);
        self.index[lane] = index;
        self.len[lane] = msg.len() as u64;
        self.active += 1;
        if msg.len() < 64 {
            self.enter_pad(lane, msg);
        } else {
            self.rest[lane] = msg;
            self.pad_end[lane] = 0;
        }
    }

    /// Moves `lane` from its whole blocks to its padding, whose message
    /// bytes are `tail`.
    fn enter_pad(&mut self, lane: usize, tail: &[u8]) {
        self.pad_end[lane] = fill_pad(&mut self.pad[lane], tail, self.len[lane]);
        self.pad_at[lane] = 0;
        self.rest[lane] = &[];
    }

    /// Runs the kernel once over as many blocks as every busy lane has in a
    /// row, then retires the lanes whose messages are done.
    #[allow(clippy::needless_range_loop)] // `lane` indexes six parallel arrays
    fn step(&mut self, out: &mut [[u8; 16]]) {
        let mut ptrs: Ptrs = [core::ptr::null(); MAX_LANES];
        let mut n = usize::MAX;
        let mut any = core::ptr::null();
        let mut used = 0;
        for lane in 0..self.width {
            if self.index[lane] == IDLE {
                continue;
            }
            let (p, blocks) = if self.pad_end[lane] == 0 {
                (self.rest[lane].as_ptr(), self.rest[lane].len() / 64)
            } else {
                let pad = &self.pad[lane][self.pad_at[lane]..self.pad_end[lane]];
                (pad.as_ptr(), pad.len() / 64)
            };
            ptrs[lane] = p;
            any = p;
            n = n.min(blocks);
            used = lane + 1;
        }
        debug_assert!(n >= 1 && n != usize::MAX);
        // Idle lanes hash a busy lane's blocks; their state is discarded.
        for (p, &index) in ptrs.iter_mut().zip(&self.index).take(self.width) {
            if index == IDLE {
                *p = any;
            }
        }
        // SAFETY: `self.kernel` came from `Kernel::detect` or
        // `Kernel::available` (see `digest_many_with`), and `used <=
        // self.width`. Each busy lane's pointer starts a run of at least `n`
        // whole blocks inside its message or its `pad` (which is not moved
        // or written until the call returns); each idle lane got a busy
        // lane's pointer.
        unsafe { self.kernel.compress(&mut self.state, &ptrs, n, used) };
        for lane in 0..used {
            if self.index[lane] == IDLE {
                continue;
            }
            if self.pad_end[lane] == 0 {
                let rest = &self.rest[lane][n * 64..];
                self.rest[lane] = rest;
                if rest.len() < 64 {
                    self.enter_pad(lane, rest);
                }
            } else {
                self.pad_at[lane] += n * 64;
                if self.pad_at[lane] == self.pad_end[lane] {
                    out[self.index[lane]] = to_bytes(self.state.get(lane));
                    self.index[lane] = IDLE;
                    self.active -= 1;
                }
            }
        }
    }

    /// Moves the busy lanes into the fewest groups that hold them: those
    /// above into idle lanes below. (With two groups, the upper half into the
    /// lower half.)
    fn compact(&mut self) {
        let keep = self.active.next_multiple_of(self.kernel.group_lanes());
        let mut to = 0;
        for from in keep..self.width {
            if self.index[from] == IDLE {
                continue;
            }
            while self.index[to] != IDLE {
                to += 1;
            }
            debug_assert!(to < keep);
            self.index[to] = self.index[from];
            self.len[to] = self.len[from];
            self.rest[to] = self.rest[from];
            self.pad[to] = self.pad[from];
            self.pad_at[to] = self.pad_at[from];
            self.pad_end[to] = self.pad_end[from];
            self.state.set(to, self.state.get(from));
            self.index[from] = IDLE;
        }
    }

    /// Finishes the one busy lane on the single-stream backend.
    fn finish_alone(&mut self, out: &mut [[u8; 16]]) {
        for lane in 0..self.width {
            if self.index[lane] == IDLE {
                continue;
            }
            let mut state = self.state.get(lane);
            out[self.index[lane]] = if self.pad_end[lane] == 0 {
                finish_single(state, self.rest[lane], self.len[lane])
            } else {
                let pad = &self.pad[lane][self.pad_at[lane]..self.pad_end[lane]];
                compress::compress(&mut state, pad.as_chunks::<64>().0);
                to_bytes(state)
            };
            self.index[lane] = IDLE;
            self.active -= 1;
        }
    }
}

/// Fills `pad` with the final one or two blocks of a message whose bytes
/// after the last whole block are `tail` and whose length is `total` bytes;
/// returns how many bytes of `pad` to compress (64 or 128).
pub(super) fn fill_pad(pad: &mut [u8; 128], tail: &[u8], total: u64) -> usize {
    debug_assert!(tail.len() < 64);
    *pad = [0; 128];
    pad[..tail.len()].copy_from_slice(tail);
    pad[tail.len()] = 0x80;
    let end = if tail.len() < 56 { 64 } else { 128 };
    pad[end - 8..end].copy_from_slice(&total.wrapping_mul(8).to_le_bytes());
    end
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
