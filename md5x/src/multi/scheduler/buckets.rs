//! Short rows of mixed block counts (a column of 0 to 200 bytes, or of 8
//! to 64 straddling 55), hashed straight from the batch in buckets, one
//! per block count: each row read once, its bytes prefetched and the row
//! put in its count's bucket, and a bucket hashed as a full set of one
//! count as soon as it fills, while its rows are still in cache; longer
//! messages met on the way go to the queue.
//!
//! These replaced windows of 1536 rows counting-sorted by blocks, which
//! read every row, then hashed the window in sorted order from L2, with a
//! set straddling two counts at each edge. The buckets ran faster on
//! every shape measured: columns of short rows through
//! `digest_offsets_into` with the AVX-512, AVX2 and SSE2 kernels, and most
//! of all mixed batches of messages up to 256 bytes, some longer than a
//! lane's buffer.
//!
//! A column's rows, where the kernel builds rows in registers (AVX-512),
//! take the same buckets sixteen at a time (`column_buckets.rs`).

use super::in_flight::{Scheduler, BUF_BLOCKS};
use super::pad::padded_blocks;
use super::queue::{Entry, Queue};
use super::single;
use super::source::{Message, Source};
use crate::multi::kernel::{each_digest, Row};
use crate::multi::lane_state::MAX_LANES;
use core::mem::MaybeUninit;

/// Long messages a run of buckets queues before it ends: the queue's
/// window holds them, and a few hundred rows' buckets fill in between.
pub(crate) const LONGS: usize = 128;

/// The rows of one block count waiting for a set: the messages and their
/// indices from the run's first row.
struct Bucket<M> {
    msgs: [MaybeUninit<M>; MAX_LANES],
    slots: [usize; MAX_LANES],
    len: usize,
}

impl<'a> Scheduler<'a> {
    /// With every lane idle and the queue's window empty: hashes the
    /// messages from `base` on, `read` (the first of them, already read,
    /// each at most `BUF_BLOCKS` blocks with padding) and those after, to
    /// the end of the batch, into their slots of `out`; longer messages
    /// are queued as they come, and when [`LONGS`] of them are, the run
    /// ends there.
    // Not inlined: its frame (the buckets and the long messages, about 10
    // KB) is taken only when buckets run, not on every set `run_direct`
    // hashes.
    #[inline(never)]
    pub(super) fn run_buckets<'s, S: Source<'a>>(
        &mut self,
        source: &S,
        queue: &mut Queue<'s, 'a, S>,
        base: usize,
        read: &[S::Message],
        out: &mut [[u8; 16]],
    ) {
        debug_assert!(self.busy() == 0);
        // Where the kernel builds rows in registers, the CPU has AVX-512F,
        // VL and BW.
        #[cfg(md5_sse2)]
        if S::Message::PLAIN && self.rows_in_registers {
            // SAFETY: AVX-512F, VL and BW, as above.
            if unsafe { source.sixteen(base) }.is_some() {
                // SAFETY: AVX-512F, VL and BW, as above.
                unsafe { self.run_column_buckets(source, queue, base, read, out) };
                return;
            }
        }
        // Sets built in registers run best at the kernel's full width (as
        // in `run_direct`), those copied at the short-set width.
        let width = match S::Message::PLAIN && self.rows_in_registers {
            true => self.width,
            false => self.short_width,
        };
        let mut buckets = [const {
            Bucket {
                msgs: [const { MaybeUninit::uninit() }; MAX_LANES],
                slots: [0; MAX_LANES],
                len: 0,
            }
        }; BUF_BLOCKS];
        let mut longs = [const { MaybeUninit::<Entry<S::Message>>::uninit() }; LONGS];
        let mut long = 0;
        let count = source.count() - base;
        let mut n = 0;
        while n < count && long < LONGS {
            let m = match read.get(n) {
                Some(&m) => m,
                None => source.get(base + n),
            };
            let blocks = padded_blocks(m.len());
            n += 1;
            if blocks > BUF_BLOCKS {
                let index = base + n - 1;
                longs[long].write(Entry {
                    index,
                    blocks,
                    msg: m,
                });
                long += 1;
                continue;
            }
            // Fetched now, hashed when its bucket fills.
            m.prefetch();
            let bucket = &mut buckets[blocks - 1];
            bucket.msgs[bucket.len].write(m);
            bucket.slots[bucket.len] = base + n - 1;
            bucket.len += 1;
            if bucket.len == width {
                self.run_bucket(bucket, blocks, out);
            }
        }
        for (b, bucket) in buckets.iter_mut().enumerate() {
            if bucket.len > 0 {
                self.run_bucket(bucket, b + 1, out);
            }
        }
        // SAFETY: the first `long` entries were written above;
        // `MaybeUninit<Entry<M>>` has the layout of `Entry<M>`.
        let longs = unsafe { core::slice::from_raw_parts(longs.as_ptr().cast(), long) };
        queue.skip_queueing(n, longs);
    }

    /// Hashes the rows of `bucket`, each of `blocks` blocks with padding,
    /// into their slots of `out`, and empties it.
    #[inline(always)]
    fn run_bucket<M: Message<'a>>(
        &mut self,
        bucket: &mut Bucket<M>,
        blocks: usize,
        out: &mut [[u8; 16]],
    ) {
        let used = core::mem::take(&mut bucket.len);
        // SAFETY: the bucket's first `used` messages were written (in
        // `run_buckets`); `MaybeUninit<M>` has the layout of `M`.
        let msgs: &[M] = unsafe { core::slice::from_raw_parts(bucket.msgs.as_ptr().cast(), used) };
        let slots = &bucket.slots[..used];
        if used == 1 {
            out[slots[0]] = single::digest(&msgs[0], self.start);
            return;
        }
        if M::PLAIN && self.rows_in_registers {
            let mut rows = [(msgs[0].plain().as_ptr(), 0); MAX_LANES];
            for (row, m) in rows.iter_mut().zip(msgs) {
                *row = (m.plain().as_ptr(), m.len());
            }
            // SAFETY: the rows are the bucket's messages, each of `blocks`
            // blocks with padding (its count's bucket).
            let digests = unsafe { self.hash_rows(&mut rows, used, blocks) };
            for (&slot, d) in slots.iter().zip(&digests) {
                out[slot] = *d;
            }
            return;
        }
        for (lane, m) in msgs.iter().enumerate() {
            self.fill(lane, m, blocks);
        }
        let done = |state: &_, lanes: core::ops::Range<usize>| {
            each_digest(state, lanes, |l, d| out[slots[l]] = d);
        };
        self.run_short(used, |_| blocks, done);
    }

    /// Hashes the first `used` rows of `rows` (2 to `width`), each of
    /// `blocks` blocks with padding, built in the kernel's registers
    /// (`rows_in_registers`), and returns their digests, row `i`'s at `i`.
    /// The lanes past them, to a whole group, hash row 0 again (those
    /// entries of `rows` are overwritten with it), their digests dropped.
    ///
    /// # Safety
    ///
    /// Each of the first `used` rows is a message's bytes (`len` bytes
    /// readable at its pointer) of `blocks` blocks with padding.
    #[inline(always)]
    pub(super) unsafe fn hash_rows(
        &self,
        rows: &mut [Row; MAX_LANES],
        used: usize,
        blocks: usize,
    ) -> [[u8; 16]; MAX_LANES] {
        debug_assert!(self.rows_in_registers && (2..=self.width).contains(&used));
        let span = used.next_multiple_of(16);
        let first = rows[0];
        rows[used..span].fill(first);
        let mut digests = [[0; 16]; MAX_LANES];
        // SAFETY: the kernel builds rows (`rows_in_registers`); the `span`
        // rows, 16 to 64 whole groups (`used <= width`), are messages'
        // bytes, each of `blocks` blocks with padding (the caller's
        // contract; row 0's again past `used`).
        unsafe {
            self.kernel
                .rows(&rows[..span], blocks, self.start, &mut digests[..span])
        };
        digests
    }
}
