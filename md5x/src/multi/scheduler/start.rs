//! Starting a message in an idle lane: copied to the lane's buffer with
//! its padding when it fits, else run from the caller's memory, with its
//! end and padding, or the shared padding block, to follow.

use super::in_flight::{NextStretch, Scheduler, StretchIn, BUF_BLOCKS};
use super::pad::{block_words, padded_blocks, whole_block_pad, write_end};
use super::queue::Entry;
use super::single;
use super::source::Message;

impl<'a> Scheduler<'a> {
    /// Puts message `e` into the idle `lane`. A message in pieces whose
    /// layout needs more of the lane's buffer than it has is instead
    /// hashed at once on the single-stream backend, and the lane stays
    /// idle.
    #[inline]
    pub(super) fn start<M: Message<'a>>(&mut self, lane: usize, e: Entry<M>, out: &mut [[u8; 16]]) {
        debug_assert!(self.idle & (1 << lane) != 0);
        let msg = e.msg;
        let len = msg.len();
        let total = self.start.len.wrapping_add(len as u64);
        if M::PLAIN && len >= 64 && len.is_multiple_of(64) && self.share_pad(total) {
            // The blocks in place, then the shared padding block.
            self.occupy(lane, e.index);
            self.stretch_in[lane] = StretchIn::Message;
            self.ptr[lane] = msg.plain().as_ptr();
            self.left[lane] = len / 64;
            self.next[lane] = NextStretch::SharedPadding;
            return;
        }
        let dst = self.buf_mut(lane);
        if e.blocks <= BUF_BLOCKS {
            let blocks = e.blocks;
            // SAFETY: the message and its padding, `e.blocks` blocks, fit
            // the lane's `BUF` bytes, which are the scheduler's own.
            unsafe { write_end(dst, &msg, 0, blocks, total) };
            self.occupy(lane, e.index);
            self.stretch_in[lane] = StretchIn::Buffer;
            self.pos[lane] = 0;
            self.left[lane] = blocks;
            self.next[lane] = NextStretch::Done;
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
        let pad = NextStretch::Padding {
            at,
            blocks: end_blocks,
        };
        if head == 0 {
            self.stretch_in[lane] = StretchIn::Message;
            self.ptr[lane] = run.as_ptr();
            self.left[lane] = run.len() / 64;
            self.next[lane] = pad;
        } else {
            self.stretch_in[lane] = StretchIn::Buffer;
            self.pos[lane] = 0;
            self.left[lane] = head;
            self.next[lane] = NextStretch::InPlace;
            self.in_place[lane] = run.as_ptr();
            self.in_place_blocks[lane] = run.len() / 64;
            self.after_in_place[lane] = pad;
        }
    }

    /// Marks `lane` busy with message `index`, from the batch's start.
    pub(super) fn occupy(&mut self, lane: usize, index: usize) {
        self.idle &= !(1 << lane);
        self.state.set(lane, self.start.state);
        self.index[lane] = index;
    }

    /// Whether the shared padding block serves a whole-block message of
    /// `total` bytes; it is built for the first such length of the batch.
    pub(super) fn share_pad(&mut self, total: u64) -> bool {
        match self.shared_pad_len {
            Some(l) => l == total,
            None => {
                self.shared_pad = whole_block_pad(total);
                self.shared_pad_words = block_words(&self.shared_pad);
                self.shared_pad_len = Some(total);
                true
            }
        }
    }
}
