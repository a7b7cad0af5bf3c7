//! Full sets of equal whole-block messages of up to a lane's buffer (64
//! to 256 bytes: records, keys) read straight from the batch, each hashed
//! by one call of
//! [`Kernel::equal_blocks`](crate::multi::kernel::Kernel::equal_blocks),
//! one set after another for as long as the batch keeps their length:
//! past the first set, each costs the scheduler only the reads of its
//! messages, their pointers and the call, not a pass through the
//! scheduler's loop and [`Scheduler::run_direct`]'s tests, a large share of
//! a 64-byte message's instructions besides the kernel's. Each set is read
//! before the one before it is hashed, so that the kernel loads its first
//! block while it runs that set's padding block
//! ([`SetAhead`](crate::multi::lane_state::SetAhead)).

use super::in_flight::Scheduler;
use super::pad::{block_words, whole_block_pad};
use super::queue::Queue;
use super::source::{Message, Source};
use crate::multi::lane_state::{BlockPtrs, SetAhead, MAX_LANES};
use crate::multi::past_cache;
use core::mem::MaybeUninit;

impl<'a> Scheduler<'a> {
    /// Hashes the `width` messages from `base`, `len` bytes each (whole
    /// blocks, at most a lane's buffer), read into `read` with their
    /// pointers in `self.ptr`, then each full set that follows them whose
    /// messages are all `len` bytes long, into their slots of `out`. The
    /// first set that has another length is queued as read.
    ///
    /// The kernel must hash equal blocks (`Kernel::hashes_equal_blocks`),
    /// every lane idle, and the queue's window empty.
    #[inline(never)]
    pub(super) fn run_equal_sets<'s, S: Source<'a>>(
        &mut self,
        source: &S,
        queue: &mut Queue<'s, 'a, S>,
        (base, width, len): (usize, usize, usize),
        read: &mut [MaybeUninit<S::Message>; MAX_LANES],
        out: &mut [[u8; 16]],
    ) {
        debug_assert!(self.kernel.hashes_equal_blocks() && len.is_multiple_of(64));
        let total = self.start.len.wrapping_add(len as u64);
        let pad = match self.share_pad(total) {
            true => self.shared_pad_words,
            false => block_words(&whole_block_pad(total)),
        };
        // Each set is read into `next` before the one before it is hashed
        // (see the top), and the two swap.
        let mut ahead = SetAhead::new();
        let (mut first, mut second) = (self.ptr, [core::ptr::null(); MAX_LANES]);
        let (mut ptrs, mut next) = (&mut first, &mut second);
        let (mut at, mut width) = (base, width);
        loop {
            queue.skip(width);
            let next_at = at + width;
            let next_width = self.direct_width(source.count() - next_at, true);
            // Not as `count - next_at < next_width`: this way the compiler
            // sees each index below the count, and checks none of them.
            let whole = next_at + next_width <= source.count();
            // The lane of the next set's first message of another length.
            let mut odd = None;
            if whole {
                for (lane, i) in (next_at..next_at + next_width).enumerate() {
                    let m = source.get(i);
                    if m.len() != len {
                        odd = Some(lane);
                        break;
                    }
                    next[lane] = m.plain().as_ptr();
                }
            }
            let more = whole && odd.is_none();
            // Loaded ahead only for a set as wide: the kernel loads its
            // own width.
            let ahead_of = (more && next_width == width).then_some(&*next);
            self.hash_equal_set(ptrs, at..at + width, len, &pad, out, ahead_of, &mut ahead);
            if !more {
                if let Some(lane) = odd {
                    // The set's messages so far, read again for the queue.
                    for (r, i) in read.iter_mut().zip(next_at..=next_at + lane) {
                        r.write(source.get(i));
                    }
                    // SAFETY: the first `lane + 1` entries were written
                    // just above; `MaybeUninit<M>` has the layout of `M`.
                    let read =
                        unsafe { core::slice::from_raw_parts(read.as_ptr().cast(), lane + 1) };
                    queue.stash(read);
                }
                return;
            }
            core::mem::swap(&mut ptrs, &mut next);
            (at, width) = (next_at, next_width);
        }
    }

    /// Hashes the messages of `set`, `len` bytes each, whose pointers are
    /// `ptrs[..set.len()]`, then their padding block of the words
    /// `pad`, into their slots of `out` (through a buffer where the
    /// batch's digests go past the caches: `multi/past_cache.rs`); `next`
    /// and `ahead` as for `Kernel::equal_blocks`.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn hash_equal_set(
        &mut self,
        ptrs: &BlockPtrs,
        set: core::ops::Range<usize>,
        len: usize,
        pad: &[u32; 16],
        out: &mut [[u8; 16]],
        next: Option<&BlockPtrs>,
        ahead: &mut SetAhead,
    ) {
        let width = set.len();
        let mut staged = None;
        let run: &mut [[u8; 16]] = match self.past_cache {
            true => &mut staged.insert([[0u8; 16]; MAX_LANES])[..width],
            false => &mut out[set.clone()],
        };
        // SAFETY: the kernel hashes equal blocks (`run_equal_sets`' caller);
        // each of the `width` pointers, whole groups, points at a message
        // of `len` bytes, `len / 64` whole blocks, read from the batch, and
        // so does each of `next`'s first `width`.
        unsafe {
            self.kernel
                .equal_blocks(ptrs, len / 64, pad, self.start, run, next, ahead)
        };
        if let Some(staged) = &staged {
            past_cache::copy_past_cache(
                staged[..width].as_flattened(),
                out[set].as_flattened_mut(),
            );
        }
    }
}
