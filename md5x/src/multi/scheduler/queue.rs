//! The order in which the scheduler starts a batch's messages: the most
//! blocks (padding included) first, within windows of up to [`WINDOW`]
//! messages.
//!
//! Lanes then end close together and the batch ends on its shortest
//! messages, so the kernel runs long calls with few idle lanes (in input
//! order, a long message near the end keeps one lane busy alone, and short
//! ones end every few blocks, each a kernel call). Sorted by padded blocks,
//! not bytes, rows of one block (0 to 55 bytes, mixed) count as equal and
//! are not reordered at all, and mixed short rows fall into runs of one
//! block count, each of which the scheduler hashes a full set at a time.

use super::pad::padded_blocks;
use super::source::{Message, Source};
use crate::multi::tuning::QUEUE_WINDOW;
use core::mem::MaybeUninit;

/// Messages queued at a time ([`QUEUE_WINDOW`]). The window takes about
/// 24 KB of stack (32-byte entries); `sort` works in it.
pub(crate) const WINDOW: usize = QUEUE_WINDOW;
const _: () = assert!(WINDOW <= u16::MAX as usize, "sort's places are u16");

/// Windows whose block counts are all at most this are sorted by counting
/// (short messages); others by comparison.
const COUNTED: usize = 16;

/// A queued message: its index in the batch, its blocks with padding, and
/// the message.
#[derive(Clone, Copy)]
pub(super) struct Entry<M> {
    pub(super) index: usize,
    pub(super) blocks: usize,
    pub(super) msg: M,
}

/// The messages of a batch in the order they start in the lanes. Each
/// message is read from the source once.
pub(super) struct Queue<'s, 'a, S: Source<'a>> {
    source: &'s S,
    /// Messages moved into the window so far.
    taken: usize,
    width: usize,
    /// The queued messages, `head..end` still to start; `..end` written.
    window: [MaybeUninit<Entry<S::Message>>; WINDOW],
    head: usize,
    end: usize,
}

impl<'s, 'a, S: Source<'a>> Queue<'s, 'a, S> {
    /// An empty window: the first messages are read when asked for, so
    /// that sets of one kind can be taken straight from the source.
    pub(super) fn new(source: &'s S, width: usize) -> Self {
        debug_assert!(width <= WINDOW && WINDOW.is_multiple_of(width));
        Self {
            source,
            taken: 0,
            width,
            // Unwritten: zeroing 24 KiB would cost a small batch more
            // than hashing it.
            window: [const { MaybeUninit::uninit() }; WINDOW],
            head: 0,
            end: 0,
        }
    }

    /// Moves what is left to the front of the window, fills the rest from
    /// the source, and sorts the window by blocks, most first (unless it
    /// already is, as a batch of one block count is).
    fn refill(&mut self) {
        self.window.copy_within(self.head..self.end, 0);
        self.end -= self.head;
        self.head = 0;
        let more = (WINDOW - self.end).min(self.source.count() - self.taken);
        // What is left is sorted already: only the new messages are checked.
        let mut prev = match self.end {
            0 => usize::MAX,
            end => self.written(end - 1..end)[0].blocks,
        };
        let mut sorted = true;
        for (slot, index) in self.window[self.end..self.end + more]
            .iter_mut()
            .zip(self.taken..)
        {
            let msg = self.source.get(index);
            let blocks = padded_blocks(msg.len());
            sorted &= blocks <= prev;
            prev = blocks;
            slot.write(Entry { index, blocks, msg });
        }
        self.taken += more;
        self.end += more;
        if !sorted {
            sort(self.written(0..self.end));
        }
    }

    /// Whether every message has started: none in the window, and none
    /// left in the source. (A set taken to the window's end leaves it
    /// empty with messages to come.)
    pub(super) fn is_empty(&self) -> bool {
        self.head == self.end && self.taken == self.source.count()
    }

    pub(super) fn next(&mut self) -> Option<Entry<S::Message>> {
        if self.head == self.end {
            if self.taken == self.source.count() {
                return None;
            }
            self.refill();
        }
        let e = self.written(self.head..self.head + 1)[0];
        self.head += 1;
        Some(e)
    }

    /// For reading the next messages from the source past the queue:
    /// where the window is empty (so they are next in order) and at least
    /// `width` are left, the index of the first of them.
    pub(super) fn direct(&self) -> Option<usize> {
        (self.head == self.end && self.source.count() - self.taken >= self.width)
            .then_some(self.taken)
    }

    /// After `direct`: the next `n` messages were hashed past the queue.
    pub(super) fn skip(&mut self, n: usize) {
        debug_assert!(self.head == self.end && self.taken + n <= self.source.count());
        self.taken += n;
    }

    /// After `direct`: `msgs`, the next messages, were read but not hashed;
    /// they are queued as read (a message is read once).
    pub(super) fn stash(&mut self, msgs: &[S::Message]) {
        debug_assert!(self.head == self.end && msgs.len() <= WINDOW);
        for ((slot, &msg), index) in self.window.iter_mut().zip(msgs).zip(self.taken..) {
            let blocks = padded_blocks(msg.len());
            slot.write(Entry { index, blocks, msg });
        }
        (self.head, self.end) = (0, msgs.len());
        self.taken += msgs.len();
        sort(self.written(0..self.end));
    }

    /// After `direct`: the next `n` messages were read, and all but
    /// `unhashed`, some of them, hashed past the queue; those are queued.
    pub(super) fn skip_queueing(&mut self, n: usize, unhashed: &[Entry<S::Message>]) {
        debug_assert!(self.head == self.end && self.taken + n <= self.source.count());
        debug_assert!(unhashed.len() <= n && unhashed.len() <= WINDOW);
        for (slot, &e) in self.window.iter_mut().zip(unhashed) {
            slot.write(e);
        }
        (self.head, self.end) = (0, unhashed.len());
        self.taken += n;
        sort(self.written(0..self.end));
    }

    /// Takes sets of `width` messages from now on (fewer than before).
    pub(super) fn set_width(&mut self, width: usize) {
        debug_assert!(width <= self.width && WINDOW.is_multiple_of(width));
        self.width = width;
    }

    /// The mean padded length in bytes of the messages in the window,
    /// refilled first if empty (0 for none).
    pub(super) fn mean_len(&mut self) -> usize {
        if self.head == self.end && self.taken < self.source.count() {
            self.refill();
        }
        let window = self.written(self.head..self.end);
        let blocks: usize = window.iter().map(|e| e.blocks).sum();
        64 * blocks / window.len().max(1)
    }

    /// The next `width` messages, most blocks first; fewer (perhaps none)
    /// only when they are the last.
    pub(super) fn take_set(&mut self) -> &[Entry<S::Message>] {
        if self.end - self.head < self.width && self.taken < self.source.count() {
            self.refill();
        }
        let n = self.width.min(self.end - self.head);
        self.head += n;
        self.written(self.head - n..self.head)
    }

    /// Entries `range` of the window, within `..end`.
    fn written(&mut self, range: core::ops::Range<usize>) -> &mut [Entry<S::Message>] {
        assert!(range.end <= self.end);
        let slots = &mut self.window[range];
        // SAFETY: every entry before `end` was written (by `refill` or
        // `stash`, and moved only within `..end` by `copy_within`);
        // `MaybeUninit<Entry<M>>` has the layout of `Entry<M>`.
        unsafe {
            &mut *(slots as *mut [MaybeUninit<Entry<S::Message>>] as *mut [Entry<S::Message>])
        }
    }
}

/// Sorts `window` by blocks, most first: by counting where every count is
/// small (stable), else by comparison. Both in place: a scratch window
/// would double the queue's stack (see [`WINDOW`]).
fn sort<M: Copy>(window: &mut [Entry<M>]) {
    debug_assert!(window.len() <= WINDOW);
    let most = window.iter().map(|e| e.blocks).max().unwrap_or(0);
    if most > COUNTED {
        window.sort_unstable_by_key(|e| core::cmp::Reverse(e.blocks));
        return;
    }
    // `at[b]`: where the next entry of `COUNTED - b` blocks goes.
    let mut at = [0u16; COUNTED + 1];
    for e in window.iter() {
        at[COUNTED - e.blocks + 1] += 1;
    }
    for b in 1..at.len() {
        at[b] += at[b - 1];
    }
    // Each entry's place, in input order within its count (1.5 KB).
    let mut place = [0u16; WINDOW];
    for (p, e) in place.iter_mut().zip(window.iter()) {
        let slot = &mut at[COUNTED - e.blocks];
        *p = *slot;
        *slot += 1;
    }
    // The entries moved along the cycles of that permutation, each once; a
    // place set to its own index marks its entry as moved.
    for first in 0..window.len() {
        let mut to = usize::from(place[first]);
        if to == first {
            continue;
        }
        let mut carried = window[first];
        while to != first {
            carried = core::mem::replace(&mut window[to], carried);
            let next = usize::from(place[to]);
            place[to] = to as u16;
            to = next;
        }
        window[first] = carried;
    }
}
