//! Running the busy lanes: one kernel call over the blocks every busy lane
//! has in its stretch, then each lane moved on to what follows or retired;
//! with few messages left, lanes gathered into the fewest groups, and the
//! last one finished on the single-stream backend.

use super::in_flight::{NextStretch, Scheduler, StretchIn, BUF};
use crate::multi::kernel::digests4;
use md5x_block::pad::to_bytes;

impl<'a> Scheduler<'a> {
    /// Runs the kernel once over as many blocks as every busy lane has in
    /// its current stretch, then moves the lanes whose stretch ended on to
    /// what follows, or retires them. When every busy lane's message ends
    /// with this stretch and the shared padding block, as in a batch of
    /// equal whole-block lengths, the same call runs that block too (from
    /// its broadcast words: no loads, no transposition) and retires them
    /// all.
    #[allow(clippy::needless_range_loop)] // `lane` indexes parallel arrays
    pub(super) fn step(&mut self, out: &mut [[u8; 16]]) {
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
            match self.stretch_in[lane] {
                StretchIn::Message => {}
                StretchIn::Buffer => {
                    self.ptr[lane] = bufs.wrapping_add(lane * BUF + self.pos[lane])
                }
                StretchIn::SharedPadding => self.ptr[lane] = self.shared_pad.as_ptr(),
            }
            any = self.ptr[lane];
            all_end_shared &= self.left[lane] == n && self.next[lane] == NextStretch::SharedPadding;
        }
        // Idle lanes the kernel reads hash a busy lane's blocks; their state
        // is discarded.
        let mut idle = self.idle & (u64::MAX >> (64 - span));
        while idle != 0 {
            self.ptr[idle.trailing_zeros() as usize] = any;
            idle &= idle - 1;
        }
        let last = all_end_shared.then_some(&self.shared_pad_words);
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
            let next = self.next[lane];
            self.next[lane] = NextStretch::Done;
            match next {
                NextStretch::Padding { at, blocks } => {
                    self.stretch_in[lane] = StretchIn::Buffer;
                    self.pos[lane] = at;
                    self.left[lane] = blocks;
                }
                NextStretch::SharedPadding => {
                    self.stretch_in[lane] = StretchIn::SharedPadding;
                    self.left[lane] = 1;
                }
                NextStretch::InPlace => {
                    self.stretch_in[lane] = StretchIn::Message;
                    self.ptr[lane] = self.in_place[lane];
                    self.left[lane] = self.in_place_blocks[lane];
                    self.next[lane] = self.after_in_place[lane];
                }
                NextStretch::Done => done |= 1 << lane,
            }
        }
        self.retire(done, out);
    }

    /// Writes the digests of the lanes in `done` to `out` and makes them
    /// idle: four at a time where they make whole quads.
    pub(super) fn retire(&mut self, mut done: u64, out: &mut [[u8; 16]]) {
        self.idle |= done;
        while done != 0 {
            let lane = done.trailing_zeros() as usize;
            if lane.is_multiple_of(4) && (done >> lane) & 0xf == 0xf {
                let digests = digests4(&self.state, lane);
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
    pub(super) fn compact(&mut self) {
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
            self.stretch_in[to] = self.stretch_in[from];
            self.next[to] = self.next[from];
            self.ptr[to] = self.ptr[from];
            self.pos[to] = self.pos[from];
            self.in_place[to] = self.in_place[from];
            self.in_place_blocks[to] = self.in_place_blocks[from];
            self.after_in_place[to] = self.after_in_place[from];
            // Moves only what `from` wrote: the buffer is copied as maybe
            // uninitialised bytes.
            self.buf[to] = self.buf[from];
        }
    }

    /// Finishes the one busy lane on the single-stream backend.
    pub(super) fn finish_alone(&mut self, out: &mut [[u8; 16]]) {
        let lane = (!self.idle).trailing_zeros() as usize;
        debug_assert!(self.busy() == 1 && lane < self.width);
        let mut state = self.state.get(lane);
        let mut run = |at: *const u8, blocks: usize| {
            // SAFETY: a busy lane's stretches, in its message, its buffer
            // or the shared block, are that many whole blocks at `at` (see
            // `step`); `[u8; 64]` has alignment 1.
            let blocks = unsafe { core::slice::from_raw_parts(at.cast::<[u8; 64]>(), blocks) };
            md5x_block::compress(&mut state, blocks);
        };
        let bufs = self.buf.as_ptr().cast::<u8>().wrapping_add(lane * BUF);
        run(
            match self.stretch_in[lane] {
                StretchIn::Message => self.ptr[lane],
                StretchIn::Buffer => bufs.wrapping_add(self.pos[lane]),
                StretchIn::SharedPadding => self.shared_pad.as_ptr(),
            },
            self.left[lane],
        );
        let mut next = self.next[lane];
        loop {
            match next {
                NextStretch::Done => break,
                NextStretch::Padding { at, blocks } => run(bufs.wrapping_add(at), blocks),
                NextStretch::SharedPadding => run(self.shared_pad.as_ptr(), 1),
                NextStretch::InPlace => {
                    run(self.in_place[lane], self.in_place_blocks[lane]);
                    next = self.after_in_place[lane];
                    continue;
                }
            }
            next = NextStretch::Done;
        }
        out[self.index[lane]] = to_bytes(state);
        self.idle |= 1 << lane;
    }
}
