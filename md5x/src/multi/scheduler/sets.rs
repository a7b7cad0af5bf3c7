//! The scheduler's sets: with every lane idle, a set of messages hashed at
//! once, straight from the batch ([`Scheduler::run_direct`]) or from the
//! queue ([`Scheduler::run_set`]): short ones copied with their padding
//! into the lanes' blocks, whole-block ones of one length in place (and
//! longer ones of one length with an end, their ends copied), and their
//! digests out four lanes at a time.

use super::copy;
use super::in_flight::{Scheduler, BUF_BLOCKS};
use super::pad::{padded_blocks, write_end};
use super::queue::{Entry, Queue};
use super::source::{Message, Source};
use crate::multi::kernel::{digests4, each_digest, Row};
use crate::multi::lane_state::{LaneStates, MAX_LANES};
use crate::multi::past_cache;
use crate::multi::tuning::{BUCKET_MIN_ROWS, ROW_PREFETCH_AHEAD};
use core::mem::MaybeUninit;

/// The most blocks (with padding) of the messages [`Scheduler::run_tailed`]
/// hashes. A full set of one length runs faster through it than through
/// the queue's lanes (each started, stepped and retired on its own) while
/// its messages are a few KiB or less; the gain shrinks with length and
/// turns to a loss by 64 KiB, though the kernel's calls are the same.
const TAILED_MAX_BLOCKS: usize = 64;

impl<'a> Scheduler<'a> {
    /// Copies `msg` and its padding, `blocks <= BUF_BLOCKS` blocks, into
    /// lane `lane`'s buffer.
    #[inline(always)]
    pub(super) fn fill<M: Message<'a>>(&mut self, lane: usize, msg: &M, blocks: usize) {
        debug_assert!(blocks <= BUF_BLOCKS && lane < MAX_LANES);
        let total = self.start.len.wrapping_add(msg.len() as u64);
        let dst = self.buf_mut(lane);
        // SAFETY: the message's `blocks <= BUF_BLOCKS` blocks with padding
        // fit the lane's `BUF` bytes, the scheduler's own.
        unsafe { write_end(dst, msg, 0, blocks, total) };
    }

    /// With every lane idle and the queue's window empty: hashes the next
    /// `width` messages straight from the source, if they make a set that
    /// runs at once (all of one whole-block length, or all short of one
    /// block count), their digests going to consecutive slots. Each is read
    /// once: those read when the set turns out mixed are queued.
    pub(super) fn run_direct<'s, S: Source<'a>>(
        &mut self,
        source: &S,
        queue: &mut Queue<'s, 'a, S>,
        out: &mut [[u8; 16]],
    ) -> bool {
        // `source` is the queue's, passed apart so that the compiler knows
        // it unchanged through the loops below.
        let Some(base) = queue.direct() else {
            return false;
        };
        // Each message as read, for queueing if the set turns out mixed
        // (but for those read sixteen at once: `bulk`).
        let mut read = [const { MaybeUninit::<S::Message>::uninit() }; MAX_LANES];
        let first = *read[0].write(source.get(base));
        let len = first.len();
        let blocks = padded_blocks(len);
        // A batch whose first set starts with a long message is judged by
        // it (as if all were as long) before the set's width is taken.
        if !self.sized && blocks > BUF_BLOCKS {
            self.size_for(queue, len, source.count());
        }
        let equal = S::Message::PLAIN && len >= 64 && len.is_multiple_of(64);
        // Longer messages of one length with an end, up to 4 KiB: their
        // whole blocks in place, then their ends copied (`run_tailed`).
        let tailed = S::Message::PLAIN
            && (BUF_BLOCKS + 1..=TAILED_MAX_BLOCKS).contains(&blocks)
            && !len.is_multiple_of(64);
        // Short rows built in the kernel's registers from where they lie
        // (`Kernel::rows`), if it can.
        let in_registers = S::Message::PLAIN && self.rows_in_registers;
        // Whole-block rows of 128 and 192 bytes built in registers too,
        // where the tuning row says so.
        let equal = equal
            && !(in_registers
                && self.kernel.tuning.avx512_whole_block_rows
                && (128..=192).contains(&len));
        // Other sets of short messages may take more lanes than the kernel
        // runs at full width (`Kernel::short_lanes`), if the batch has them:
        // they share the cost of the set's copies and calls. Rows built in
        // registers have none, and run fastest at full width.
        let wide = blocks <= BUF_BLOCKS && (equal || !in_registers);
        let width = self.direct_width(source.count() - base, wide);
        // Each row as read, for `Kernel::rows` (not zeroed: 1 KiB a set on
        // every path).
        let mut rows = [MaybeUninit::<Row>::uninit(); MAX_LANES];
        let mut lane = 1;
        // Whether the last message read ended the set's run of its kind.
        let mut odd = false;
        // The first `bulk` rows, read sixteen at once where the source can
        // (`Source::sixteen_rows`), and not into `read`.
        let mut bulk = 0;
        if equal || tailed {
            self.ptr[0] = first.plain().as_ptr();
            while lane < width {
                let m = *read[lane].write(source.get(base + lane));
                lane += 1;
                if m.len() != len {
                    odd = true;
                    break;
                }
                self.ptr[lane - 1] = m.plain().as_ptr();
            }
        } else if blocks <= BUF_BLOCKS && in_registers {
            let ahead = |p: *const u8| copy::prefetch(p.wrapping_add(ROW_PREFETCH_AHEAD));
            ahead(first.plain().as_ptr());
            rows[0].write((first.plain().as_ptr(), len));
            // SAFETY: the kernel builds rows (`in_registers`); the set's
            // `width` messages from `base` are the source's (`direct_width`).
            bulk = unsafe { sixteens(source, base, width, blocks, &mut rows, ahead) };
            lane = lane.max(bulk);
            // The one-block test, the usual one, kept apart: cheaper.
            let other = |n: usize| match blocks {
                1 => n >= 56,
                _ => padded_blocks(n) != blocks,
            };
            while lane < width {
                let m = *read[lane].write(source.get(base + lane));
                lane += 1;
                if other(m.len()) {
                    odd = true;
                    break;
                }
                ahead(m.plain().as_ptr());
                rows[lane - 1].write((m.plain().as_ptr(), m.len()));
            }
        } else if blocks == 1 {
            // Rows under 56 bytes, the usual short ones: the padding's
            // place is fixed, and so are its stores.
            self.fill(0, &first, 1);
            while lane < width {
                let m = *read[lane].write(source.get(base + lane));
                lane += 1;
                if m.len() >= 56 {
                    odd = true;
                    break;
                }
                self.fill(lane - 1, &m, 1);
            }
        } else if blocks <= BUF_BLOCKS {
            self.fill(0, &first, blocks);
            while lane < width {
                let m = *read[lane].write(source.get(base + lane));
                lane += 1;
                if padded_blocks(m.len()) != blocks {
                    odd = true;
                    break;
                }
                self.fill(lane - 1, &m, blocks);
            }
        }
        let all = lane == width && !odd;
        if !all {
            // The rows read sixteen at once, read again one by one.
            for (j, m) in read[..bulk].iter_mut().enumerate().skip(1) {
                m.write(source.get(base + j));
            }
            // Short rows of mixed block counts, with enough of the batch
            // left: in buckets, one per count (`buckets.rs`). With fewer,
            // rows of two adjacent counts (a column whose lengths straddle
            // 55 or 119 bytes): the rest read, and if they keep to those
            // counts, hashed at once, sorted within the set. (Wider mixes
            // run better from the queue's sorted windows: a set of them
            // leaves lanes idle in most of its calls.)
            let (mut lo, mut hi) = (blocks, blocks);
            if !equal && blocks <= BUF_BLOCKS && lane > 1 {
                // SAFETY: entry `lane - 1`, the one that ended the run of
                // `blocks`, was written above.
                let odd = padded_blocks(unsafe { read[lane - 1].assume_init_ref() }.len());
                if odd <= BUF_BLOCKS && source.count() - base >= BUCKET_MIN_ROWS {
                    // SAFETY: the first `lane` entries were written above;
                    // `MaybeUninit<M>` has the layout of `M`.
                    let read = unsafe { core::slice::from_raw_parts(read.as_ptr().cast(), lane) };
                    self.run_buckets(source, queue, base, read, out);
                    return true;
                }
            }
            if !equal && blocks <= BUF_BLOCKS && lane > 1 {
                // SAFETY: entry `lane - 1`, the one that ended the run of
                // `blocks`, was written above.
                let odd = padded_blocks(unsafe { read[lane - 1].assume_init_ref() }.len());
                (lo, hi) = (lo.min(odd), hi.max(odd));
                while hi - lo <= 1 && hi <= BUF_BLOCKS && lane < width {
                    let m = *read[lane].write(source.get(base + lane));
                    lane += 1;
                    let b = padded_blocks(m.len());
                    (lo, hi) = (lo.min(b), hi.max(b));
                }
            }
            // SAFETY: the first `lane` entries were written above;
            // `MaybeUninit<M>` has the layout of `M`.
            let read = unsafe { core::slice::from_raw_parts(read.as_ptr().cast(), lane) };
            if lane == width && !equal && hi - lo <= 1 && hi <= BUF_BLOCKS {
                queue.skip(width);
                self.run_mixed(read, &mut out[base..base + width]);
                return true;
            }
            queue.stash(read);
            return false;
        }
        if equal && self.kernel.hashes_equal_blocks() && len <= 64 * BUF_BLOCKS {
            // Short whole-block messages (with rows built in registers, 128
            // and 192 bytes only where the tuning row reads them in place):
            // from a start in registers, digests straight out, and the sets
            // after them of the same length too (`equal_sets.rs`).
            self.run_equal_sets(source, queue, (base, width, len), &mut read, out);
            return true;
        }
        queue.skip(width);
        // The set's digests, or with the batch's past the caches, a buffer
        // for them (`multi/past_cache.rs`).
        let mut staged = None;
        let run: &mut [[u8; 16]] = match self.past_cache {
            true => &mut staged.insert([[0u8; 16]; MAX_LANES])[..width],
            false => &mut out[base..base + width],
        };
        // Every kernel's width is a multiple of 4, and the lanes of a set
        // all end together.
        let done = |state: &LaneStates, lanes: core::ops::Range<usize>| {
            debug_assert!(lanes.start.is_multiple_of(4) && lanes.len().is_multiple_of(4));
            for (k, quad) in run[lanes.clone()].chunks_exact_mut(4).enumerate() {
                quad.copy_from_slice(&digests4(state, lanes.start + 4 * k));
            }
        };
        if equal {
            self.run_equal(len, width, done);
        } else if tailed {
            // SAFETY: the first `width` entries were written above (the set
            // is whole); `MaybeUninit<M>` has the layout of `M`.
            let set = unsafe { core::slice::from_raw_parts(read.as_ptr().cast(), width) };
            self.run_tailed::<S::Message>(set, len, done);
        } else if in_registers {
            // SAFETY: the first `width` rows were written above (the set is
            // whole); `MaybeUninit<Row>` has the layout of `Row`.
            let rows = unsafe { core::slice::from_raw_parts(rows.as_ptr().cast::<Row>(), width) };
            // SAFETY: the kernel builds rows (`rows_in_registers`); each of
            // the `width` rows (16 to 64 of them) is a message's bytes, of
            // `blocks` blocks with padding.
            unsafe { self.kernel.rows(rows, blocks, self.start, run) };
        } else {
            self.run_short(width, |_| blocks, done);
        }
        if let Some(staged) = &staged {
            let out = out[base..base + width].as_flattened_mut();
            past_cache::copy_past_cache(staged[..width].as_flattened(), out);
        }
        true
    }

    /// The lanes of a set read straight from the batch with `left`
    /// messages left, `wide` where the set may take more lanes than the
    /// kernel runs at full width (`Kernel::short_lanes`).
    #[inline(always)]
    pub(super) fn direct_width(&self, left: usize, wide: bool) -> usize {
        // Not where that would leave less than a group for last: a lone
        // group leaves the vector units idle while its step chain waits,
        // so 64 messages run faster as 32 and 32 than as 48 and 16.
        let rest = left.wrapping_sub(self.short_width);
        let tail_ok = rest == 0 || rest > self.short_width - self.width;
        match wide && left >= self.short_width && tail_ok {
            true => self.short_width,
            false => self.width,
        }
        .min(MAX_LANES)
    }

    /// Hashes a set of 2 to `width` messages from the queue, most blocks
    /// first, with every lane idle: at once where they are short or of one
    /// whole-block length, else by starting them in the lanes.
    pub(super) fn run_set<M: Message<'a>>(&mut self, set: &[Entry<M>], out: &mut [[u8; 16]]) {
        debug_assert!(self.busy() == 0 && (2..=self.width).contains(&set.len()));
        let len = set[0].msg.len();
        let done = |state: &LaneStates, lanes: core::ops::Range<usize>| {
            emit(state, lanes.clone(), &set[lanes], out)
        };
        if M::PLAIN && len >= 64 && len.is_multiple_of(64) && set.iter().all(|e| e.msg.len() == len)
        {
            for (p, e) in self.ptr.iter_mut().zip(set) {
                *p = e.msg.plain().as_ptr();
            }
            self.run_equal(len, set.len(), done);
        } else if set[0].blocks <= BUF_BLOCKS {
            for (lane, e) in set.iter().enumerate() {
                self.fill(lane, &e.msg, e.blocks);
            }
            self.run_short(set.len(), |lane| set[lane].blocks, done);
        } else {
            for (lane, &e) in set.iter().enumerate() {
                self.start(lane, e, out);
            }
        }
    }

    /// Hashes `set`, a full set of short messages (each at most
    /// `BUF_BLOCKS` blocks with padding) of mixed block counts, into the
    /// slots of `run` with their indices: copied into the lanes most blocks
    /// first (a counting sort of the set), then as `run_short`.
    #[inline(always)]
    fn run_mixed<M: Message<'a>>(&mut self, set: &[M], run: &mut [[u8; 16]]) {
        let used = set.len();
        debug_assert!(used.is_multiple_of(4) && used <= self.kernel.max_lanes());
        // `at[b]`: the next lane for a message of `BUF_BLOCKS - b` blocks.
        let mut at = [0usize; BUF_BLOCKS + 1];
        for m in set {
            at[BUF_BLOCKS - padded_blocks(m.len()) + 1] += 1;
        }
        for b in 1..at.len() {
            at[b] += at[b - 1];
        }
        // Each lane's message (its index in `set`) and blocks.
        let mut index = [0u8; MAX_LANES];
        let mut lane_blocks = [0u8; MAX_LANES];
        for (j, m) in set.iter().enumerate() {
            let blocks = padded_blocks(m.len());
            let lane = &mut at[BUF_BLOCKS - blocks];
            index[*lane] = j as u8;
            lane_blocks[*lane] = blocks as u8;
            self.fill(*lane, m, blocks);
            *lane += 1;
        }
        let done = |state: &LaneStates, lanes: core::ops::Range<usize>| {
            each_digest(state, lanes, |l, d| run[usize::from(index[l])] = d);
        };
        self.run_short(used, |lane| usize::from(lane_blocks[lane]), done);
    }
}

/// Writes the digests of `lanes`, which hash the messages of `set`, to their
/// slots of `out`: four at a time, one 4 × 4 transposition each, where the
/// lanes make whole quads.
#[inline(always)]
fn emit<M>(
    state: &LaneStates,
    lanes: core::ops::Range<usize>,
    set: &[Entry<M>],
    out: &mut [[u8; 16]],
) {
    let first = lanes.start;
    each_digest(state, lanes, |l, d| out[set[l - first].index] = d);
}

/// Reads rows `base..base + width` sixteen at a time into `rows` while
/// the source decodes them at once (`Source::sixteen_rows`) and they are
/// `blocks` blocks long with padding, asking for each row's line ahead;
/// returns how many it read, a multiple of 16.
///
/// # Safety
///
/// The kernel builds rows in registers (the CPU has AVX-512F, BW and VL),
/// and `base + width <= source.count()`.
#[cfg(md5_sse2)]
#[inline(always)]
unsafe fn sixteens<'a, S: Source<'a>>(
    source: &S,
    base: usize,
    width: usize,
    blocks: usize,
    rows: &mut [MaybeUninit<Row>; MAX_LANES],
    ahead: impl Fn(*const u8),
) -> usize {
    let mut bulk = 0;
    while bulk + 16 <= width.min(MAX_LANES) {
        let Ok(next) = <&mut [MaybeUninit<Row>; 16]>::try_from(&mut rows[bulk..bulk + 16]) else {
            break;
        };
        // SAFETY: the caller vouches for the CPU; `base + bulk + 16 <= base
        // + width`, within the source.
        if !unsafe { source.sixteen_rows(base + bulk, blocks, next) } {
            break;
        }
        for row in next.iter() {
            // SAFETY: `sixteen_rows` wrote each of the sixteen.
            ahead(unsafe { row.assume_init() }.0);
        }
        bulk += 16;
    }
    bulk
}

/// No source decodes sixteen rows at once here.
///
/// # Safety
///
/// None needed; as the x86_64 one's, for the same call.
#[cfg(not(md5_sse2))]
#[inline(always)]
unsafe fn sixteens<'a, S: Source<'a>>(
    _: &S,
    _: usize,
    _: usize,
    _: usize,
    _: &mut [MaybeUninit<Row>; MAX_LANES],
    _: impl Fn(*const u8),
) -> usize {
    0
}
