//! Short rows of mixed block counts (a column of 0 to 200 bytes, or of 8
//! to 64 straddling 55), hashed a window of up to [`ROWS`] rows at a time
//! straight from the batch: each row read once, counting-sorted by blocks
//! (most first) as 16-bit indices, then hashed a full set at a time, so
//! that all but a few sets a window run one block count on every lane.
//! The queue's windows do the same for any batch, but move whole entries
//! and refill lane by lane; a set of one window is copied in, hashed and
//! written out at once.

use super::pad::padded_blocks;
use super::single;
use super::source::{Message, Source};
use super::state::{Scheduler, BUF_BLOCKS};
use crate::multi::kernel::{each_digest, Row};
use crate::multi::state::MAX_LANES;
use core::mem::MaybeUninit;

/// Rows a window: a multiple of every kernel's width (4, 8, 12, 16, 24,
/// 32, 48 and 64 lanes), and few enough for the window's rows (about 150
/// KB at 100 bytes a row) to stay in L2 between their reading in order and
/// their hashing in sorted order. The more rows, the fewer sets straddle
/// two block counts: with rows built in registers, on Zen 4, 0-200 B rows
/// ran 1.06x faster at 768 rows than at 384 and 1.10x at 1536, 8-64 B
/// rows 1.04x at 1536 (benches/RESULTS.md); on Zen 3's AVX2, which
/// copies rows, 1536 ran 1.01-1.03x faster than 384. The window's arrays take
/// about 30 KB of stack. (On the Intel Xeon, before rows were built in
/// registers and prefetched, 960 ran no faster than 384.)
pub(super) const ROWS: usize = 1536;

/// Rows left in the batch below which its mixed sets run as they come.
pub(super) const MIN_ROWS: usize = 256;

/// What a window hashed: its rows, and the long message that ended it
/// early, read but not hashed.
pub(super) struct Hashed<M> {
    pub(super) rows: usize,
    pub(super) long: Option<M>,
}

impl<'a> Scheduler<'a> {
    /// With every lane idle: hashes the messages from `base` on, `read`
    /// (the first of them, already read, each at most `BUF_BLOCKS` blocks
    /// with padding) and those after, up to [`ROWS`] in all or the first of
    /// more blocks, into their slots of `out`.
    // Not inlined: its frame (about 30 KB of window) is taken only when a
    // window runs, not on every set `run_direct` hashes.
    #[inline(never)]
    pub(super) fn run_window<S: Source<'a>>(
        &mut self,
        source: &S,
        base: usize,
        read: &[S::Message],
        out: &mut [[u8; 16]],
    ) -> Hashed<S::Message> {
        let avail = (source.count() - base).min(ROWS);
        debug_assert!(self.busy() == 0 && read.len() <= avail);
        let mut msgs = [const { MaybeUninit::<S::Message>::uninit() }; ROWS];
        let mut blocks = [0u8; ROWS];
        // The rows of each block count, 16 bits a count (`Counts`), in a
        // register: an array in memory makes each row wait on the store
        // of the row before, with the same count.
        let mut count = Counts(0);
        for (i, &m) in read.iter().enumerate() {
            let b = padded_blocks(m.len());
            debug_assert!(b <= BUF_BLOCKS);
            msgs[i].write(m);
            blocks[i] = b as u8;
            count.bump(b);
        }
        let mut n = read.len();
        let mut long = None;
        while n < avail {
            let m = source.get(base + n);
            let b = padded_blocks(m.len());
            if b > BUF_BLOCKS {
                long = Some(m);
                break;
            }
            // The rows are copied in sorted order, which jumps about the
            // window: fetched now, in the batch's order, they are in cache
            // by then (0-200 B rows 38 -> 30 ns a row on Zen 4, 1M rows).
            m.prefetch();
            msgs[n].write(m);
            blocks[n] = b as u8;
            count.bump(b);
            n += 1;
        }
        // SAFETY: entries `0..n` were written above; `MaybeUninit<M>` has
        // the layout of `M`.
        let msgs: &[S::Message] = unsafe { core::slice::from_raw_parts(msgs.as_ptr().cast(), n) };
        // Where the next row of each block count goes, most blocks first.
        let mut at = Counts(0);
        let mut next = 0;
        for b in (1..=BUF_BLOCKS).rev() {
            at.0 |= next << Counts::shift(b);
            next += count.get(b);
        }
        // Room for `ROWS.next_power_of_two()`, so that a mask bounds the
        // index where `% ROWS` would cost a multiplication a row.
        let mut order = [0u16; ROWS.next_power_of_two()];
        for (i, &b) in blocks[..n].iter().enumerate() {
            order[at.get(usize::from(b)) as usize & (order.len() - 1)] = i as u16;
            at.bump(usize::from(b));
        }
        let out = &mut out[base..base + n];
        // The window's digests go out in sorted order, all over its slots:
        // their lines fetched now, in order, the stores find them in cache.
        super::copy::prefetch_all(out.as_flattened());
        // Sets built in registers run best at the kernel's full width (as
        // in `run_direct`), those copied at the short-set width.
        let in_registers = S::Message::PLAIN && self.rows_in_registers;
        let set_width = if in_registers {
            self.width
        } else {
            self.short_width
        };
        // One set's rows and digests, for the sets built in registers.
        let mut rows: [Row; MAX_LANES] = [(core::ptr::null(), 0); MAX_LANES];
        let mut digests = [[0; 16]; MAX_LANES];
        for set in order[..n].chunks(set_width) {
            if let [i] = set {
                let i = usize::from(*i);
                out[i] = single::digest(&msgs[i], self.start);
                continue;
            }
            // A set of rows of one block count (most sets, sorted) built in
            // the kernel's registers, where it can, when the set is whole
            // groups.
            let most = blocks[usize::from(set[0])];
            let uniform = most == blocks[usize::from(set[set.len() - 1])];
            if uniform && in_registers && set.len() % 16 == 0 {
                for (row, &i) in rows.iter_mut().zip(set) {
                    let m = msgs[usize::from(i)];
                    *row = (m.plain().as_ptr(), m.len());
                }
                // SAFETY: the kernel builds rows (`rows_in_registers`); the
                // set's rows, 16 to 64 (`width`) whole groups, are
                // messages' bytes, each of `most` blocks with padding.
                unsafe {
                    let (rows, digests) = (&rows[..set.len()], &mut digests[..set.len()]);
                    self.kernel
                        .rows(rows, usize::from(most), self.start, digests)
                };
                for (&i, d) in set.iter().zip(&digests) {
                    out[usize::from(i)] = *d;
                }
                continue;
            }
            for (lane, &i) in set.iter().enumerate() {
                let i = usize::from(i);
                self.fill(lane, &msgs[i], usize::from(blocks[i]));
            }
            let blocks_of = |lane: usize| usize::from(blocks[usize::from(set[lane])]);
            let done = |state: &_, lanes: core::ops::Range<usize>| {
                each_digest(state, lanes, |l, d| out[usize::from(set[l])] = d);
            };
            self.run_short(set.len(), blocks_of, done);
        }
        Hashed { rows: n, long }
    }
}

/// A count of up to 65535 for each block count 1 to 4, packed 16 bits
/// each into one word.
#[derive(Clone, Copy)]
struct Counts(u64);

impl Counts {
    /// Where `blocks`' count sits.
    #[inline(always)]
    fn shift(blocks: usize) -> u32 {
        debug_assert!((1..=BUF_BLOCKS).contains(&blocks));
        16 * (blocks as u32 - 1) % 64
    }

    #[inline(always)]
    fn get(self, blocks: usize) -> u64 {
        (self.0 >> Self::shift(blocks)) & 0xffff
    }

    #[inline(always)]
    fn bump(&mut self, blocks: usize) {
        self.0 += 1 << Self::shift(blocks);
    }
}
