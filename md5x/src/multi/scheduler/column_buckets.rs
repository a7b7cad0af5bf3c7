//! The buckets of `buckets.rs` for a column's rows (Arrow's layouts, whose
//! offsets or views give sixteen rows at once: [`Source::sixteen`]), on
//! AVX-512: sixteen rows a step, their block counts computed in one
//! vector, and each count's row indices compressed into its bucket by one
//! store; the bytes sixteen rows span, where the source knows them (a
//! column's offsets; its views where the rows lie in one buffer, in
//! order), are prefetched a line at a time.
//! Rows a step cannot take (one longer than a lane's buffer among them,
//! the last few of the batch) go one at a time.
//!
//! This runs faster than the loop of `buckets.rs`, most on 8-64 B rows
//! and their hex, least on 0-200 B rows. That loop's work besides the
//! kernel went one row at a time: each row built from its offsets,
//! prefetched five times, its bucket found and stored to. Buckets that
//! also kept their rows' starts and lengths (two more compresses a count,
//! no offsets read when a set runs) gained less.

use super::buckets::LONGS;
use super::in_flight::{Scheduler, BUF_BLOCKS};
use super::pad::padded_blocks;
use super::queue::{Entry, Queue};
use super::single;
use super::source::{Message, Source};
use crate::multi::kernel::Row;
use crate::multi::lane_state::MAX_LANES;
use crate::multi::scheduler::copy::prefetch;
use core::arch::x86_64::*;
use core::mem::MaybeUninit;

/// A bucket's row indices (from the run's first row): up to a set, and the
/// sixteen a step may add past it.
type Slots = [u32; MAX_LANES + 16];

impl<'a> Scheduler<'a> {
    /// [`Scheduler::run_buckets`] for a source that gives sixteen rows at
    /// once ([`Source::sixteen`]), of plain messages, where the kernel
    /// builds rows in registers.
    ///
    /// # Safety
    ///
    /// The CPU has AVX-512F, VL and BW (`rows_in_registers`).
    #[target_feature(enable = "avx512f,avx512vl,avx512bw")]
    #[inline(never)]
    pub(super) unsafe fn run_column_buckets<'s, S: Source<'a>>(
        &mut self,
        source: &S,
        queue: &mut Queue<'s, 'a, S>,
        base: usize,
        read: &[S::Message],
        out: &mut [[u8; 16]],
    ) {
        debug_assert!(self.busy() == 0 && self.rows_in_registers && S::Message::PLAIN);
        let width = self.width;
        let mut slots: [Slots; BUF_BLOCKS] = [[0; MAX_LANES + 16]; BUF_BLOCKS];
        let mut lens = [0usize; BUF_BLOCKS];
        let mut longs = [const { MaybeUninit::<Entry<S::Message>>::uninit() }; LONGS];
        let mut long = 0;
        // Row indices are 32-bit: a longer batch takes more runs.
        let count = (source.count() - base).min(i32::MAX as usize);
        let mut n = 0;

        // Row `n`, `m`, into its bucket or the long messages; the bucket
        // hashed if that fills it.
        macro_rules! one {
            ($m:expr) => {{
                let m: S::Message = $m;
                let blocks = padded_blocks(m.len());
                if blocks > BUF_BLOCKS {
                    longs[long].write(Entry {
                        index: base + n,
                        blocks,
                        msg: m,
                    });
                    long += 1;
                } else {
                    m.prefetch();
                    let b = blocks - 1;
                    slots[b][lens[b]] = n as u32;
                    lens[b] += 1;
                    if lens[b] == width {
                        self.run_column_bucket(source, base, &slots[b][..width], blocks, out);
                        lens[b] = 0;
                    }
                }
                n += 1;
            }};
        }

        for &m in read {
            one!(m);
        }
        let iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        while n < count && long < LONGS {
            // SAFETY: AVX-512F, VL and BW (the caller).
            let six = unsafe { source.sixteen(base + n) };
            let Some(six) = six.filter(|_| n + 16 <= count) else {
                one!(source.get(base + n));
                continue;
            };
            // SAFETY: AVX-512F (the caller); the load reads the 64 bytes
            // of `six.lens`, and `loadu` needs no alignment.
            let lens16 = unsafe { _mm512_loadu_si512(six.lens.as_ptr().cast()) };
            // Block count less one, `(len + 8) / 64`, below `BUF_BLOCKS`,
            // or `BUF_BLOCKS` for a row longer than a lane's buffer (248
            // bytes or more, `longest`).
            let longest = (64 * BUF_BLOCKS - 8) as i32;
            let k = _mm512_srli_epi32::<6>(_mm512_add_epi32(
                _mm512_min_epu32(lens16, _mm512_set1_epi32(longest)),
                _mm512_set1_epi32(8),
            ));
            if _mm512_cmpeq_epi32_mask(k, _mm512_set1_epi32(BUF_BLOCKS as i32)) != 0 {
                let end = n + 16;
                while n < end && long < LONGS {
                    one!(source.get(base + n));
                }
                continue;
            }
            // The sixteen rows' bytes, under 4 KiB, a line at a time.
            let bytes = six.bytes;
            for at in (0..bytes.len()).step_by(64) {
                prefetch(bytes[at..].as_ptr());
            }
            if let Some(last) = bytes.last() {
                prefetch(last);
            }
            let index = _mm512_add_epi32(_mm512_set1_epi32(n as i32), iota);
            for (b, (slots, len)) in slots.iter_mut().zip(&mut lens).enumerate() {
                let mask = _mm512_cmpeq_epi32_mask(k, _mm512_set1_epi32(b as i32));
                if mask == 0 {
                    continue;
                }
                // SAFETY: AVX-512F; `*len < width <= MAX_LANES`, so the
                // store's 64 bytes lie within `slots` (`MAX_LANES + 16`
                // entries); `storeu` needs no alignment.
                unsafe {
                    _mm512_storeu_si512(
                        slots[*len..].as_mut_ptr().cast(),
                        _mm512_maskz_compress_epi32(mask, index),
                    )
                };
                *len += mask.count_ones() as usize;
                if *len >= width {
                    self.run_column_bucket(source, base, &slots[..width], b + 1, out);
                    slots.copy_within(width..*len, 0);
                    *len -= width;
                }
            }
            n += 16;
        }
        for (b, (slots, &len)) in slots.iter().zip(&lens).enumerate() {
            if len > 0 {
                self.run_column_bucket(source, base, &slots[..len], b + 1, out);
            }
        }
        // SAFETY: the first `long` entries were written above;
        // `MaybeUninit<Entry<M>>` has the layout of `Entry<M>`.
        let longs = unsafe { core::slice::from_raw_parts(longs.as_ptr().cast(), long) };
        queue.skip_queueing(n, longs);
    }

    /// Hashes the rows `base + slots[i]` of `source`, each of `blocks`
    /// blocks with padding, into their slots of `out`.
    #[inline(always)]
    fn run_column_bucket<S: Source<'a>>(
        &mut self,
        source: &S,
        base: usize,
        slots: &[u32],
        blocks: usize,
        out: &mut [[u8; 16]],
    ) {
        let at = |slot: u32| base + slot as usize;
        if let [slot] = *slots {
            out[at(slot)] = single::digest(&source.get(at(slot)), self.start);
            return;
        }
        let mut rows: [Row; MAX_LANES] = [(core::ptr::null(), 0); MAX_LANES];
        for (row, &slot) in rows.iter_mut().zip(slots) {
            let m = source.get(at(slot)).plain();
            *row = (m.as_ptr(), m.len());
        }
        // SAFETY: each row is a message of the bucket, of `blocks` blocks
        // with padding.
        let digests = unsafe { self.hash_rows(&mut rows, slots.len(), blocks) };
        for (&slot, d) in slots.iter().zip(&digests) {
            out[at(slot)] = *d;
        }
    }
}
