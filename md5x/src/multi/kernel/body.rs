//! The multi-buffer kernel body, written once: a call's blocks, each
//! loaded and transposed (a round ahead where `V` says so) and run through
//! MD5's 64 steps (`steps.rs`) over `G` interleaved groups of lane vectors
//! `V`. Each ISA file instantiates it from its one `#[target_feature]`
//! entry point.
//!
//! One group alone is bound by the latency of MD5's dependency chain (each
//! step waits on the previous `b`); independent groups, stepped in turn,
//! fill the gaps. How many pay depends on the core's vector latency and
//! register count, so `G` is a parameter, chosen per ISA in `kernel/mod.rs`.

use super::lane_vector::LaneVector;
use super::steps::{
    block, load_round, opaque, rc_table, AtRound, Loaded, Shared, SharedSums, Step,
};
#[cfg(md5_sse2)]
use crate::multi::lane_state::SetAhead;
use crate::multi::lane_state::{BlockPtrs, LaneStates};
use crate::multi::past_cache::prefetch;

/// An ISA's two `#[target_feature(enable = $feature)]` entry points,
/// `compress` and `transpose_only` (or, `compress only`, the first),
/// which instantiate [`compress`] and [`transpose_only`] for its lane
/// vector `$v`. Everything they run is
/// `#[inline(always)]`, so all of it is compiled with the feature.
macro_rules! entry_points {
    ($v:ty, $feature:literal) => {
        entry_points!(@compress $v, $feature);
        entry_points!(@transpose $v, $feature);
    };
    // For a lane vector whose loads another's `transpose_only` measures.
    ($v:ty, $feature:literal, compress only) => {
        entry_points!(@compress $v, $feature);
    };
    (@compress $v:ty, $feature:literal) => {
        /// [`body::compress`](super::body::compress) on `G` groups of this
        /// ISA's vectors.
        ///
        /// # Safety
        ///
        /// The CPU has the target feature; `ptrs[i]` is valid for reads of
        /// `blocks * 64` bytes for each `i < LANES * G`.
        #[target_feature(enable = $feature)]
        #[inline(never)]
        pub(super) unsafe fn compress<const G: usize>(
            state: &mut crate::multi::lane_state::LaneStates,
            ptrs: &crate::multi::lane_state::BlockPtrs,
            blocks: usize,
            last: Option<&[u32; 16]>,
            prefetch: usize,
            split: usize,
        ) {
            // SAFETY: the caller's contract, for this ISA.
            unsafe {
                if <$v as super::lane_vector::LaneVector>::LOADS_LINES && split > 0 {
                    compress_read::<G, true>(state, ptrs, blocks, last, prefetch, split)
                } else {
                    compress_read::<G, false>(state, ptrs, blocks, last, prefetch, 0)
                }
            }
        }

        /// [`compress`] reading whole lines or block by block, each way a
        /// frame of its own: the ring of words of whole lines (`lines.rs`)
        /// takes stack only where it is used, and unoptimised builds do
        /// not stack one body's frame on the other's.
        ///
        /// # Safety
        ///
        /// As for [`compress`], and as for the body's with `LINES`.
        #[target_feature(enable = $feature)]
        #[inline(never)]
        unsafe fn compress_read<const G: usize, const LINES: bool>(
            state: &mut crate::multi::lane_state::LaneStates,
            ptrs: &crate::multi::lane_state::BlockPtrs,
            blocks: usize,
            last: Option<&[u32; 16]>,
            prefetch: usize,
            split: usize,
        ) {
            // SAFETY: the caller's contract is the body's, for this ISA.
            unsafe { super::body::compress::<$v, G, LINES>(state, ptrs, blocks, last, prefetch, split) }
        }
    };
    (@transpose $v:ty, $feature:literal) => {
        /// [`body::transpose_only`](super::body::transpose_only) on `G`
        /// groups of this ISA's vectors.
        ///
        /// # Safety
        ///
        /// As for [`compress`].
        #[target_feature(enable = $feature)]
        #[inline(never)]
        pub(super) unsafe fn transpose_only<const G: usize>(
            ptrs: &crate::multi::lane_state::BlockPtrs,
            blocks: usize,
        ) -> u32 {
            // SAFETY: as in `compress`.
            unsafe { super::body::transpose_only::<$v, G>(ptrs, blocks) }
        }
    };
}

/// Reads the `G` groups' block at byte offset `off` into `m`, word-major per
/// group, and returns it.
///
/// The buffer is the caller's, kept across blocks: read in place by the
/// steps, where an array returned by value is copied to other stack slots
/// first (48 loads and stores a block with AVX2's three groups).
///
/// # Safety
///
/// The CPU has `V`'s ISA; `ptrs[i]` is valid for reads of `off + 64` bytes
/// for each `i < V::LANES * G`.
#[inline(always)]
unsafe fn load_blocks<'m, V: LaneVector, const G: usize>(
    m: &'m mut core::mem::MaybeUninit<[[V; 16]; G]>,
    ptrs: &BlockPtrs,
    off: usize,
) -> &'m [[V; 16]; G] {
    // A loop, not `array::from_fn`: a closure is not inlined for sure, and
    // out of line it would run without the ISA's target feature. Not
    // zero-filled first: with AVX-512's three or four groups (768 bytes and
    // more) LLVM fills it with a call to `memset` in the block loop.
    let rows = m.as_mut_ptr().cast::<[V; 16]>();
    for g in 0..G {
        // SAFETY: the caller's contract: group `g` reads lanes `V::LANES *
        // g ..` of `ptrs`, which has `MAX_LANES >= V::LANES * G` entries
        // (checked in `compress`). Row `g < G` of `m` is in bounds.
        unsafe { rows.add(g).write(V::load_block(&ptrs[V::LANES * g..], off)) };
    }
    // SAFETY: the loop wrote each of the `G` rows.
    unsafe { m.assume_init_ref() }
}

/// The next block's words, loaded and transposed a group at a time into a
/// second buffer while the current block is stepped: group `g` of `G` at
/// the start of round `4 * g / G`.
///
/// Loaded at the block's start, the lines reach the steps late whenever
/// they come from L2: lanes whose blocks share one L1 set (equal messages
/// a multiple of 4 KiB apart) evict each other's prefetched lines, and
/// four groups of steps leave the out-of-order window no room to run the
/// next block's loads early.
struct NextBlock<'p, V, const G: usize> {
    rows: *mut [V; 16],
    ptrs: &'p BlockPtrs,
    off: usize,
    /// Whether there is a next block.
    live: bool,
}

impl<V: LaneVector, const G: usize> AtRound for NextBlock<'_, V, G> {
    #[inline(always)]
    fn at_round(&mut self, round: usize) {
        for g in 0..G {
            if self.live && load_round(g, G) == round {
                // SAFETY: `live` means block `off / 64` is below `blocks`,
                // so `off + 64` bytes are readable at each of the
                // `V::LANES * G` pointers (`run_blocks`' caller); `rows`
                // points at the `G` rows of the buffer not being stepped.
                unsafe {
                    self.rows
                        .add(g)
                        .write(V::load_block(&self.ptrs[V::LANES * g..], self.off))
                };
            }
        }
    }
}

/// Compresses `blocks` consecutive blocks from each of `ptrs[..V::LANES *
/// G]` into lanes `0..V::LANES * G` of `state`, as `G` interleaved groups,
/// then, if `last` is given, the block of those message words in every
/// lane: the padding block that equal-length messages share, without loads
/// or transposition. On calls of 2,048 blocks or more, each lane's line
/// `prefetch` bytes ahead of its block is asked for (0: none), where the
/// hardware prefetchers lose track of that many streams from memory.
/// With `LINES`, every lane's blocks start at word `split` (1 to 15) of a
/// cache line and are read as whole lines (`lines.rs`); without, block by
/// block (`split` unused).
///
/// # Safety
///
/// The CPU has `V`'s ISA, and `ptrs[i]` is valid for reads of `blocks * 64`
/// bytes for each `i < V::LANES * G`; `LINES` only where `V::LOADS_LINES`
/// and each `ptrs[i]` is `4 * split` bytes past a multiple of 64, `split`
/// 1 to 15.
#[inline(always)]
pub(super) unsafe fn compress<V: LaneVector, const G: usize, const LINES: bool>(
    state: &mut LaneStates,
    ptrs: &BlockPtrs,
    blocks: usize,
    last: Option<&[u32; 16]>,
    prefetch: usize,
    split: usize,
) {
    const { assert!(G >= 1) };
    let w = V::LANES;
    assert!(w * G <= ptrs.len());
    // SAFETY: the caller vouches for the ISA.
    let zero = unsafe { V::splat(0) };
    let mut s = [[zero; G]; 4];
    for (v, row) in s.iter_mut().zip(&state.rows) {
        for (g, x) in v.iter_mut().enumerate() {
            // SAFETY: the caller vouches for the ISA; rows of `state` have
            // `MAX_LANES >= w * G` words (asserted above, as `ptrs` has as
            // many entries), so each group's `w` words are in bounds.
            *x = unsafe { V::load(row[w * g..].as_ptr()) };
        }
    }

    // SAFETY: the caller's contract.
    unsafe {
        run_blocks::<V, G, LINES, false>(&mut s, ptrs, blocks, last, prefetch, split, None, ())
    };

    for (r, v) in state.rows.iter_mut().zip(s) {
        for (g, x) in v.into_iter().enumerate() {
            x.store(&mut r[w * g..]);
        }
    }
}

/// [`compress`] from the chaining value `start` in every lane, its state
/// left in registers for the caller (`avx512_rows.rs`, which writes the
/// digests out). The first block's words come from `ahead` where it holds
/// them for these pointers, and with `next`, the first block of those
/// messages goes into `ahead` while the padding block `last` runs.
///
/// # Safety
///
/// As for [`compress`]; with `next`, each of its first `V::LANES * G`
/// pointers is valid for reads of 64 bytes.
#[cfg(md5_sse2)]
#[inline(always)]
pub(super) unsafe fn compress_from<V: LaneVector, const G: usize, const LINES: bool>(
    start: [u32; 4],
    ptrs: &BlockPtrs,
    blocks: usize,
    last: &[u32; 16],
    split: usize,
    next: Option<&BlockPtrs>,
    ahead: &mut SetAhead,
) -> [[V; G]; 4] {
    let lanes = V::LANES * G;
    assert!(lanes <= ptrs.len());
    const { assert!(core::mem::size_of::<[[V; 16]; G]>() <= core::mem::size_of::<SetAhead>()) };
    // SAFETY: the caller vouches for the ISA.
    let mut s = start.map(|x| [unsafe { V::splat(x) }; G]);
    let words = ahead.words.as_mut_ptr().cast::<[V; 16]>();
    // Whole lines are read through their own ring: those calls take no
    // words ahead, nor load any.
    let held = !LINES && blocks > 0 && ahead.lanes == lanes && ahead.first == ptrs[0];
    // `held`: the last call wrote `lanes` lanes' words of the first block
    // at these pointers, `G` rows of `[V; 16]`, which fit in `words`
    // (asserted above); nothing writes them before the padding block.
    let first = held.then_some(words.cast::<[[V; 16]; G]>().cast_const());
    ahead.lanes = 0;
    // Short messages: nothing to prefetch.
    match next {
        Some(next) if !LINES => {
            ahead.lanes = lanes;
            ahead.first = next[0];
            let fill = NextBlock::<V, G> {
                rows: words,
                ptrs: next,
                off: 0,
                live: true,
            };
            // SAFETY: the caller's contract; `fill` loads 64 bytes at each
            // of `next`'s pointers (the caller's) into `words`, `G` rows
            // (above).
            unsafe {
                run_blocks::<V, G, LINES, true>(
                    &mut s,
                    ptrs,
                    blocks,
                    Some(last),
                    0,
                    split,
                    first,
                    fill,
                )
            }
        }
        // SAFETY: the caller's contract.
        _ => unsafe {
            run_blocks::<V, G, LINES, true>(&mut s, ptrs, blocks, Some(last), 0, split, first, ())
        },
    }
    s
}

/// [`compress`]'s blocks on the state `s`: the first block's words from
/// `first` where given, and `at_last` beside the padding block `last`,
/// whose steps run as loops where `LAST_LOOPED`. Sets of short messages
/// (`compress_from`) run each call's code once, the padding block's too:
/// there the loops ran faster than the steps in line (benches/RESULTS.md),
/// and long messages, which loop over their blocks, slower.
///
/// # Safety
///
/// As for [`compress`]; `first` points at the first block's words, `G`
/// rows written whole, that nothing writes while the blocks run.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn run_blocks<V: LaneVector, const G: usize, const LINES: bool, const LAST_LOOPED: bool>(
    s: &mut [[V; G]; 4],
    ptrs: &BlockPtrs,
    blocks: usize,
    last: Option<&[u32; 16]>,
    distance: usize,
    split: usize,
    first: Option<*const [[V; 16]; G]>,
    at_last: impl AtRound,
) {
    // A constant, so that an instance reads one way only, and the ring of
    // words of the other is not in its frame (debug builds included).
    if LINES {
        // SAFETY: the caller's contract, `split` included.
        unsafe { super::lines::run_blocks(s, ptrs, blocks, distance, split) };
    } else if let (Some(m), 1) = (first, blocks) {
        // One block, its words at hand: no buffers, nothing to load.
        // SAFETY: as in `run_block_by_block`.
        let rc = unsafe { rc_table::<V>().as_ptr().add(opaque(0)) };
        // SAFETY: the caller's contract for `first`.
        let m = unsafe { &*m };
        block::<V, G, false>(s, &Loaded { m, rc }, ());
    } else {
        // SAFETY: the caller's contract.
        unsafe { run_block_by_block(s, ptrs, blocks, distance, first) };
    }
    if let Some(words) = last {
        let mut sums = SharedSums {
            words,
            rc: rc_table::<V>(),
            mk: [0; 64],
        };
        md5_steps!(sums);
        // SAFETY: `opaque(0)` is 0: the pointer is `mk`'s 64 words.
        let mk = unsafe { sums.mk.as_ptr().add(opaque(0)) };
        block::<V, G, LAST_LOOPED>(s, &Shared { mk }, at_last);
    }
}

/// [`run_blocks`]' blocks, each loaded on its own.
///
/// # Safety
///
/// As for [`compress`].
#[inline(always)]
unsafe fn run_block_by_block<V: LaneVector, const G: usize>(
    s: &mut [[V; G]; 4],
    ptrs: &BlockPtrs,
    blocks: usize,
    distance: usize,
    first: Option<*const [[V; 16]; G]>,
) {
    // Two buffers of words where `V` loads ahead: block `blk`'s in `blk %
    // 2`, the next one's loaded into the other as `blk` is stepped.
    let mut words = [const { core::mem::MaybeUninit::<[[V; 16]; G]>::uninit() }; 2];
    let buf = words.as_mut_ptr();
    // Long calls only (128 KiB a lane or more): shorter messages tend to
    // lie in cache, where the prefetches cost time.
    let ahead = distance > 0 && blocks >= 2048;
    for blk in 0..blocks {
        if ahead {
            for &p in &ptrs[..V::LANES * G] {
                prefetch(p.wrapping_add(64 * blk + distance));
            }
        }
        let cur = if V::LOADS_AHEAD { blk % 2 } else { 0 };
        let m: &[[V; 16]; G] = match first {
            // SAFETY: the caller's contract for `first`.
            Some(m) if blk == 0 => unsafe { &*m },
            _ => {
                if blk == 0 || !V::LOADS_AHEAD {
                    // SAFETY: `cur < 2`, a buffer of `words`; `(blk + 1) *
                    // 64 <= blocks * 64` bytes are readable at each of the
                    // `V::LANES * G` pointers (the caller).
                    unsafe { load_blocks(&mut *buf.add(cur), ptrs, blk * 64) };
                }
                // SAFETY: buffer `cur` was written whole for this block,
                // just above or by the previous block's `NextBlock`.
                unsafe { (*buf.add(cur)).assume_init_ref() }
            }
        };
        // The round constants, read through a pointer LLVM cannot see
        // through, anew in each block: left visible, all 64 are broadcast
        // and spilled to the stack before the loop, work wasted on every
        // call of one or two blocks (short messages).
        // SAFETY: `opaque(0)` is 0, so `rc` points at the 64 words of `RC`
        // or `RC_I`.
        let rc = unsafe { rc_table::<V>().as_ptr().add(opaque(0)) };
        let next = NextBlock::<V, G> {
            // SAFETY: `(blk + 1) % 2 < 2`: the buffer of `words` that `m`
            // does not borrow.
            rows: unsafe { buf.add((blk + 1) % 2) }.cast(),
            ptrs,
            off: (blk + 1) * 64,
            live: V::LOADS_AHEAD && blk + 1 < blocks,
        };
        block::<V, G, false>(s, &Loaded { m, rc }, next);
    }
}

/// Only the loads and the transposition of [`compress`], folded into a
/// checksum so that they cannot be optimised away: measures their cost.
///
/// # Safety
///
/// As for [`compress`].
#[inline(always)]
pub(super) unsafe fn transpose_only<V: LaneVector, const G: usize>(
    ptrs: &BlockPtrs,
    blocks: usize,
) -> u32 {
    assert!(V::LANES * G <= ptrs.len());
    // SAFETY: the caller vouches for the ISA.
    let mut acc = [unsafe { V::splat(0) }; 16];
    let mut words = core::mem::MaybeUninit::uninit();
    for blk in 0..blocks {
        // SAFETY: as in `compress`.
        let m: &[[V; 16]; G] = unsafe { load_blocks(&mut words, ptrs, blk * 64) };
        for m in m {
            for (x, &w) in acc.iter_mut().zip(m) {
                *x = x.xor(w);
            }
        }
    }
    acc[1..].iter().fold(acc[0], |s, &x| s.add(x)).first()
}
