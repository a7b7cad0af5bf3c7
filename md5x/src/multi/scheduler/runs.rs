//! How a set of messages, every lane idle before and after, runs once
//! [`sets.rs`](super::sets) has chosen it: short ones copied with their
//! padding into the lanes' buffers, one kernel call per block count;
//! whole-block ones of one length in place (staggered where their starts
//! crowd one cache set, `stagger.rs`), their shared padding block last; and
//! longer ones of one length with an end, their ends copied.

use super::in_flight::{Scheduler, BUF, BUF_BLOCKS};
use super::pad::{block_words, padded_blocks, whole_block_pad, write_end};
use super::source::Message;
use super::stagger;
use crate::multi::lane_state::{LaneStates, MAX_LANES};

impl<'a> Scheduler<'a> {
    /// Fills every lane of the state with the batch's start: whole rows,
    /// which compile to a run of vector stores, where a fill of `used`
    /// lanes would be a loop.
    #[inline(always)]
    pub(super) fn init_state(&mut self) {
        for (row, init) in self.state.rows.iter_mut().zip(self.start.state) {
            *row = [init; MAX_LANES];
        }
    }

    /// Hashes `used` messages copied with their padding into lanes
    /// `0..used` (see `fill`), lane `l` of `blocks(l)` blocks, most first:
    /// one kernel call per block count, after which the lanes with that
    /// count (the last of those still running) are done, handed to `done`,
    /// and the calls that follow run fewer groups.
    #[inline(always)]
    pub(super) fn run_short(
        &mut self,
        used: usize,
        blocks: impl Fn(usize) -> usize,
        mut done: impl FnMut(&LaneStates, core::ops::Range<usize>),
    ) {
        debug_assert!(blocks(0) <= BUF_BLOCKS);
        let span = used.next_multiple_of(self.kernel.group_lanes());
        self.init_state();
        // Lanes past the set, in the groups the kernel runs, read lane 0's
        // buffer; their state is discarded.
        let bufs = self.buf.as_ptr().cast::<u8>();
        let (ptrs, past) = self.ptr[..span].split_at_mut(used);
        for (lane, p) in ptrs.iter_mut().enumerate() {
            *p = bufs.wrapping_add(lane * BUF);
        }
        past.fill(bufs);
        let most = blocks(0);
        let mut used = used;
        let mut hashed = 0;
        loop {
            let fewest = blocks(used - 1);
            // SAFETY: `self.kernel` came from `Kernel::detect` or
            // `Kernel::available` (see `digest_batch`), and `1 <= used <=
            // self.kernel.max_lanes()`. Each of the `span` pointers is
            // `hashed` blocks into a lane's buffer, written by `fill` with
            // `blocks(lane) >= fewest` blocks, or lane 0's, with `most`;
            // nothing writes the buffers during the call.
            unsafe {
                self.kernel
                    .compress(&mut self.state, &self.ptr, fewest - hashed, used, None)
            };
            if most == fewest {
                // The usual set of one count: every lane ends now.
                done(&self.state, 0..used);
                return;
            }
            let mut end = used;
            while end > 0 && blocks(end - 1) == fewest {
                end -= 1;
            }
            done(&self.state, end..used);
            // The lanes still running move on; those just done read lane
            // 0's buffer from now on, whose blocks are written (it has the
            // most), where theirs end.
            for p in &mut self.ptr[..span] {
                *p = p.wrapping_add(64 * (fewest - hashed));
            }
            let first = self.ptr[0];
            self.ptr[end..used].fill(first);
            used = end;
            hashed = fewest;
        }
    }

    /// Hashes `used` (2 to `width`) plain messages of one whole-block
    /// length `len`, lane `l`'s at `self.ptr[l]`, then hands lanes
    /// `0..used` to `done`: one kernel call over their blocks in place,
    /// then their padding block from its broadcast words. Every lane is
    /// idle before and after.
    #[inline(always)]
    pub(super) fn run_equal(
        &mut self,
        len: usize,
        used: usize,
        mut done: impl FnMut(&LaneStates, core::ops::Range<usize>),
    ) {
        let total = self.start.len.wrapping_add(len as u64);
        // The batch's shared padding block serves every set of its length,
        // built once.
        let pad = match self.share_pad(total) {
            true => self.shared_pad_words,
            false => block_words(&whole_block_pad(total)),
        };
        self.run_in_place(len / 64, used, Some(&pad));
        done(&self.state, 0..used);
    }

    /// Hashes `set`, a full set of plain messages of one length `len`, more
    /// than `BUF_BLOCKS` blocks with padding and not whole blocks, lane
    /// `l`'s at `self.ptr[l]`, then hands lanes `0..set.len()` to `done`:
    /// one kernel call over their whole blocks in place, then one over
    /// their ends, copied with their padding into the lanes' buffers.
    /// (Through the queue each lane of such a set was started, stepped and
    /// retired on its own, and such messages cost clearly more than
    /// slightly longer whole-block ones.)
    #[inline(always)]
    pub(super) fn run_tailed<M: Message<'a>>(
        &mut self,
        set: &[M],
        len: usize,
        mut done: impl FnMut(&LaneStates, core::ops::Range<usize>),
    ) {
        let used = set.len();
        let whole = len / 64;
        let total = self.start.len.wrapping_add(len as u64);
        let end_blocks = padded_blocks(len - 64 * whole);
        for (lane, m) in set.iter().enumerate() {
            let dst = self.buf_mut(lane);
            // SAFETY: the end, under 64 bytes, and its padding, one or two
            // blocks, fit the lane's `BUF` bytes, the scheduler's own.
            unsafe { write_end(dst, m, 64 * whole, end_blocks, total) };
        }
        self.run_in_place(whole, used, None);
        let span = used.next_multiple_of(self.kernel.group_lanes());
        let bufs = self.buf.as_ptr().cast::<u8>();
        let (ptrs, past) = self.ptr[..span].split_at_mut(used);
        for (lane, p) in ptrs.iter_mut().enumerate() {
            *p = bufs.wrapping_add(lane * BUF);
        }
        past.fill(bufs);
        // SAFETY: as in `run_short`: each of the `span` pointers is a lane's
        // buffer, written above with `end_blocks` blocks, or lane 0's.
        unsafe {
            self.kernel
                .compress(&mut self.state, &self.ptr, end_blocks, used, None)
        };
        done(&self.state, 0..used);
    }

    /// Hashes the `blocks` whole blocks at `self.ptr[l]` into lane `l` of
    /// the `used` lanes (2 to `width`), from the batch's start, then, if
    /// given, every lane's padding block from the words `pad`: in one call,
    /// or staggered where the messages' addresses crowd the same cache sets
    /// (`stagger.rs`).
    #[inline(always)]
    fn run_in_place(&mut self, blocks: usize, used: usize, pad: Option<&[u32; 16]>) {
        // Lanes past the set, in the groups the kernel runs, read the first
        // message; their state is discarded.
        let span = used.next_multiple_of(self.kernel.group_lanes());
        let first = self.ptr[0];
        self.ptr[used..span].fill(first);
        self.init_state();
        if let Some(delay) = stagger::delays(self.kernel, &self.ptr[..used], blocks) {
            self.run_staggered(blocks, used, &delay, pad);
            return;
        }
        // SAFETY: `self.kernel` came from `Kernel::detect` or
        // `Kernel::available` (see `digest_batch`), and `2 <= used <=
        // self.kernel.max_lanes()`; each of the `span` pointers points at
        // a message of at least `blocks` whole blocks (the callers).
        unsafe {
            self.kernel
                .compress(&mut self.state, &self.ptr, blocks, used, pad)
        };
    }
}
