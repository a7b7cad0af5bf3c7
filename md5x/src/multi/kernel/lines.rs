//! Blocks that start inside a cache line, read as whole aligned lines.
//!
//! Where every lane's blocks start at the same word `q` of a line (a
//! `Vec<u8>`'s bytes start 16 bytes past a page), each block spans two
//! lines, and read block by block the second line is read again as the
//! next block's first. Lanes a multiple of 4 KiB apart share one L1 set,
//! so by then the line has been evicted: each line comes from L2 twice.
//! Here each lane's aligned lines are loaded once, with masks that keep
//! the loads within the lane's bytes, and the words of each transposed
//! line are stored where the two blocks that share it read them: words
//! `q..16` at the head of its own block, words `0..q` at the tail of the
//! block before.

use super::lane_vector::LaneVector;
use super::steps::{block, load_round, opaque, rc_table, AtRound, Words};
use crate::multi::lane_state::BlockPtrs;
use crate::multi::past_cache::prefetch;

/// Each group's words of four blocks, block `k`'s in slot `k % 4`: while
/// block `k` is stepped, line `k + 2` is stored into the tail of slot `k +
/// 1` and the head of slot `k + 2`.
const RING: usize = 64;

/// Words from one group's ring to the next's: a word more than the ring,
/// so that the groups' words are not 4 KiB apart (64 words of 64 bytes),
/// where the stores of one group's lines would alias the loads of
/// another's words in the L1 set and in the store-forwarding check.
const STRIDE: usize = RING + 1;

/// A call's lines and where their words go.
struct Lines<'p, V, const G: usize> {
    /// A ring of `RING` words per group, `STRIDE` apart: word `i` of the
    /// lanes' blocks (counted from block 0's first) of group `g` at
    /// `STRIDE * g + i % RING`.
    ring: *mut V,
    ptrs: &'p BlockPtrs,
    blocks: usize,
    /// The word of a line where each block starts, 1 to 15.
    q: usize,
}

impl<V: LaneVector, const G: usize> Lines<'_, V, G> {
    /// Loads line `line` (0 to `blocks`) of group `g`'s lanes: the line
    /// that holds the start of block `line` and the end of block `line -
    /// 1`, and stores its words into their blocks' slots.
    ///
    /// # Safety
    ///
    /// As for [`run_blocks`].
    // Each step of a block may load a line: unoptimised, 64 copies of
    // this, each with its own line of words in the frame, would take the
    // stack past 1 MiB, hence a call of its own there.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline(never))]
    unsafe fn load(&self, line: usize, g: usize) {
        let q = self.q;
        // Line 0's words before `q` lie before the lanes' bytes, and the
        // last line's from `q` on after them.
        let keep = match line {
            0 => u16::MAX << q,
            _ if line == self.blocks => (1u16 << q) - 1,
            _ => u16::MAX,
        };
        // SAFETY: the caller vouches for the ISA and `LOADS_LINES`. Each
        // lane `p` of group `g` is valid for `64 * blocks` bytes (`g <
        // G`, and `ptrs` has `V::LANES * G` entries, the caller's), and
        // the kept words, bytes `64 * line - 4 * q ..+ 64` of it less
        // those before 0 (line 0) and from `64 * blocks` on (the last
        // line), lie within them.
        let words = unsafe { V::load_line(&self.ptrs[V::LANES * g..], 64 * line, 4 * q, keep) };
        // Word `w` of the line is word `16 * line + w - q` of the blocks:
        // at `to + w` in the ring, but for the words before `q` of every
        // fourth line, which wrap to the ring's end (those of line 0 to
        // the tail of slot 3, which line 4 writes before block 3 reads
        // it). One base per line, not an index per word: the scalar work
        // of an index per word cost more than the reads saved.
        let to = self
            .ring
            .wrapping_add(STRIDE * g + 16 * (line % 4))
            .wrapping_sub(q);
        let wraps = if line.is_multiple_of(4) { q } else { 0 };
        for (w, x) in words.into_iter().enumerate() {
            // Plain stores at fixed offsets from one base, three lines in
            // four; the fourth picks per word.
            let at = match wraps {
                0 => to.wrapping_add(w),
                _ if w < wraps => to.wrapping_add(RING + w),
                _ => to.wrapping_add(w),
            };
            // SAFETY: word `(16 * line + w - q) % 64` of group `g`'s ring
            // (`g < G`).
            unsafe { at.write(x) };
        }
    }
}

/// Line `line`, group by group while a block is stepped, as `NextBlock`
/// loads blocks (`body.rs`).
struct NextLine<'l, 'p, V, const G: usize> {
    lines: &'l Lines<'p, V, G>,
    line: usize,
}

impl<V: LaneVector, const G: usize> AtRound for NextLine<'_, '_, V, G> {
    #[inline(always)]
    fn at_round(&mut self, round: usize) {
        for g in 0..G {
            if self.line <= self.lines.blocks && load_round(g, G) == round {
                // SAFETY: `line <= blocks`; `run_blocks`' contract.
                unsafe { self.lines.load(self.line, g) };
            }
        }
    }
}

/// A block's words from the ring: word `m` of group `g` at `m + STRIDE * g`.
struct Ringed<V> {
    m: *const V,
    /// The 64 round constants, as in `Loaded`.
    rc: *const u32,
}

impl<V: LaneVector> Words<V> for Ringed<V> {
    #[inline(always)]
    fn add_word(&self, a: V, g: usize, m: usize, k: usize) -> V {
        // SAFETY: `a` proves the ISA; `m` points at a block's slot of
        // group 0's ring (`run_blocks`), so word `m < 16` of group `g <
        // G`'s is in the ring, written; `rc` points at 64 words, `k < 64`.
        a.add(unsafe { *self.m.add(STRIDE * g + m) })
            .add(unsafe { V::splat(*self.rc.add(k)) })
    }
}

/// The body's `run_blocks` for lanes whose blocks all start at word `q`
/// (1 to 15) of a line: `blocks` blocks from each of `ptrs[..V::LANES *
/// G]` into `s`, asking for each lane's line `distance` bytes ahead on
/// calls of 2,048 blocks or more.
///
/// # Safety
///
/// The CPU has `V`'s ISA and `V::LOADS_LINES`; `ptrs[i]` is valid for
/// reads of `blocks * 64` bytes for each `i < V::LANES * G`; `1 <= q <=
/// 15`.
#[inline(always)]
pub(super) unsafe fn run_blocks<V: LaneVector, const G: usize>(
    s: &mut [[V; G]; 4],
    ptrs: &BlockPtrs,
    blocks: usize,
    distance: usize,
    q: usize,
) {
    debug_assert!(V::LOADS_LINES && (1..16).contains(&q));
    if blocks == 0 {
        return;
    }
    let mut ring = [const { core::mem::MaybeUninit::<[V; STRIDE]>::uninit() }; G];
    let lines = Lines::<V, G> {
        ring: ring.as_mut_ptr().cast(),
        ptrs,
        blocks,
        q,
    };
    for g in 0..G {
        // SAFETY: lines 0 and 1 (`blocks >= 1`); the caller's contract.
        unsafe {
            lines.load(0, g);
            lines.load(1, g);
        }
    }
    let ahead = distance > 0 && blocks >= 2048;
    for blk in 0..blocks {
        if ahead {
            for &p in &ptrs[..V::LANES * G] {
                prefetch(p.wrapping_add(64 * blk + distance));
            }
        }
        // Slot `blk % 4` of each group's ring holds block `blk`'s words
        // whole: words `0..16 - q` from line `blk` and the rest from line
        // `blk + 1`, both loaded before this block (above, or while blocks
        // `blk - 2` and `blk - 1` were stepped); no line loaded while it
        // is stepped writes to it.
        let m = lines.ring.wrapping_add(16 * (blk % 4)).cast_const();
        // SAFETY: as in the body's `run_block_by_block`.
        let rc = unsafe { rc_table::<V>().as_ptr().add(opaque(0)) };
        let next = NextLine {
            lines: &lines,
            line: blk + 2,
        };
        block::<V, G, false>(s, &Ringed { m, rc }, next);
    }
}
