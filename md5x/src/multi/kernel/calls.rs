//! The kernel calls: a [`Kernel`] value dispatched to its ISA's entry
//! point and group count.

use super::*;
use crate::multi::lane_state::{BlockPtrs, LaneStates, SetAhead, Start};

impl Kernel {
    /// Compresses `blocks` consecutive 64-byte blocks starting at `ptrs[i]`
    /// into lane `i` of `state`, for every `i < used`, then, if `last` is
    /// given, the block of those message words in every lane. It runs the
    /// fewest groups that cover lanes `0..used`; the other lanes of those
    /// groups are computed too, and their state is then garbage.
    ///
    /// # Safety
    ///
    /// `self` came from [`Kernel::detect`] or [`Kernel::available`] (so the
    /// CPU has the features the kernel needs), `1 <= used <=
    /// self.max_lanes()`, and for each `i <
    /// used.next_multiple_of(self.group_lanes())`, `ptrs[i]` is valid for
    /// reads of `blocks * 64` bytes.
    #[inline]
    pub(crate) unsafe fn compress(
        self,
        state: &mut LaneStates,
        ptrs: &BlockPtrs,
        blocks: usize,
        used: usize,
        last: Option<&[u32; 16]>,
    ) {
        debug_assert!(1 <= used && used <= self.max_lanes());
        let groups = used.div_ceil(self.group_lanes());
        // SAFETY: in every arm, the caller vouches for the CPU (`self` was
        // detected, and SSE2 and NEON are baseline where built) and for the
        // pointers of the `groups * group_lanes` lanes the call reads.
        unsafe {
            match self.isa {
                Isa::Portable => {
                    // The only arm on targets without a SIMD kernel.
                    let _ = groups;
                    portable::compress(state, ptrs, blocks, last)
                }
                #[cfg(test)]
                Isa::SoftWide(_) => soft_wide::compress(state, ptrs, blocks, used, last),
                #[cfg(md5_sse2)]
                Isa::Sse2 => with_groups!(
                    sse2::compress,
                    groups,
                    [1, 2; 3],
                    (state, ptrs, blocks, last, 0, 0)
                ),
                #[cfg(md5_sse2)]
                Isa::Avx2 => with_groups!(
                    avx2::compress,
                    groups,
                    [1, 2; 3],
                    (state, ptrs, blocks, last, self.prefetch(), 0)
                ),
                #[cfg(md5_sse2)]
                Isa::Avx512 if used <= avx512_ymm::MOST_LANES && self.tuning.runs_ymm(used) => {
                    avx512_ymm::compress_lanes(state, ptrs, blocks, used, last)
                }
                #[cfg(md5_sse2)]
                Isa::Avx512 => with_groups!(
                    avx512::compress,
                    groups,
                    [1, 2, 3; 4],
                    (
                        state,
                        ptrs,
                        blocks,
                        last,
                        self.prefetch(),
                        self.split_word(ptrs, 16 * groups)
                    )
                ),
                #[cfg(md5_neon)]
                Isa::Neon => {
                    with_groups!(
                        neon::compress,
                        groups,
                        [1; 2],
                        (state, ptrs, blocks, last, 0, 0)
                    )
                }
            }
        }
    }

    /// Runs only the message loads and the transposition of `blocks` blocks
    /// in every lane, for measuring their share of the cost; `None` for the
    /// portable kernel, which transposes nothing.
    ///
    /// # Safety
    ///
    /// As for [`Kernel::compress`] with `used = self.max_lanes()`.
    pub(crate) unsafe fn transpose_only(self, ptrs: &BlockPtrs, blocks: usize) -> Option<u32> {
        let groups = self.max_groups();
        match self.isa {
            Isa::Portable => {
                // The only arm on targets without a SIMD kernel.
                let _ = (groups, ptrs, blocks);
                None
            }
            #[cfg(test)]
            Isa::SoftWide(_) => None,
            #[cfg(md5_sse2)]
            Isa::Sse2 => {
                // SAFETY: as in `Kernel::compress`.
                Some(unsafe {
                    with_groups!(sse2::transpose_only, groups, [1, 2; 3], (ptrs, blocks))
                })
            }
            #[cfg(md5_sse2)]
            Isa::Avx2 => {
                // SAFETY: as in `Kernel::compress`.
                Some(unsafe {
                    with_groups!(avx2::transpose_only, groups, [1, 2; 3], (ptrs, blocks))
                })
            }
            #[cfg(md5_sse2)]
            Isa::Avx512 => {
                // SAFETY: as in `Kernel::compress`.
                Some(unsafe {
                    with_groups!(avx512::transpose_only, groups, [1, 2, 3; 4], (ptrs, blocks))
                })
            }
            #[cfg(md5_neon)]
            Isa::Neon => {
                // SAFETY: as in `Kernel::compress`.
                Some(unsafe { with_groups!(neon::transpose_only, groups, [1; 2], (ptrs, blocks)) })
            }
        }
    }
}

impl Kernel {
    /// The word of a cache line (1 to 15) at which each of the blocks at
    /// `ptrs[..lanes]` starts, where the AVX-512 kernel's row reads such
    /// blocks as whole lines (`lines.rs`, [`Tuning::avx512_whole_lines`])
    /// and they crowd the L1 set of the first (more than `CROWD` start in
    /// it, the second among them); 0 for blocks read one by one.
    #[allow(dead_code)] // targets without AVX-512 never call it
    fn split_word(self, ptrs: &BlockPtrs, lanes: usize) -> usize {
        #[cfg(md5_sse2)]
        if self.isa == Isa::Avx512 && self.tuning.avx512_whole_lines && lanes >= 2 {
            let first = ptrs[0] as usize;
            // The second lane first: one test turns away most calls.
            let word = first % 64 / 4;
            if (ptrs[1] as usize ^ first) & 0xfff != 0 || word == 0 || !first.is_multiple_of(4) {
                return 0;
            }
            let mut crowd = 0;
            for &p in &ptrs[..lanes] {
                let apart = p as usize ^ first;
                if !apart.is_multiple_of(64) {
                    return 0;
                }
                crowd += usize::from(apart & 0xfc0 == 0);
            }
            return if crowd > crate::multi::tuning::CROWD {
                word
            } else {
                0
            };
        }
        let _ = (ptrs, lanes);
        0
    }

    /// Whether [`Kernel::rows`] runs on this kernel and CPU: the AVX-512
    /// kernel where the CPU has AVX-512BW too.
    pub(crate) fn builds_rows(self) -> bool {
        match self.isa {
            #[cfg(md5_sse2)]
            Isa::Avx512 => self.avx512bw,
            _ => false,
        }
    }

    /// Hashes `rows`, 16, 32, 48 or 64 of them, each of `blocks` blocks
    /// with its padding (1 to 4) continuing `start`, into the slots of
    /// `out` with their indices: each lane's blocks built in registers
    /// (`avx512_rows.rs`).
    ///
    /// # Safety
    ///
    /// `self.builds_rows()`; each row's bytes are readable, and
    /// `padded_blocks(len) == blocks` for each (`start.len` is whole
    /// blocks).
    #[inline]
    pub(crate) unsafe fn rows(
        self,
        rows: &[Row],
        blocks: usize,
        start: Start,
        out: &mut [[u8; 16]],
    ) {
        debug_assert!(self.builds_rows() && (1..=4).contains(&blocks));
        let (state, prefix) = (start.state, start.len);
        // SAFETY: the caller vouches for the CPU and the rows; the group
        // count matches the rows (asserted in `rows`).
        #[cfg(md5_sse2)]
        unsafe {
            with_groups!(
                avx512_rows::rows,
                rows.len() / 16,
                [1, 2, 3; 4],
                (rows, blocks, state, prefix, out)
            )
        }
        #[cfg(not(md5_sse2))]
        let _ = (rows, blocks, state, prefix, out);
    }

    /// Whether [`Kernel::equal_blocks`] runs on this kernel and CPU: the
    /// AVX2 kernel, and the AVX-512 kernel where it builds rows.
    pub(crate) fn hashes_equal_blocks(self) -> bool {
        match self.isa {
            #[cfg(md5_sse2)]
            Isa::Avx2 => true,
            _ => self.builds_rows(),
        }
    }

    /// Hashes equal messages, 1 to `max_groups` whole groups of them, of
    /// `blocks` whole blocks at `ptrs`, continuing `start`, then their
    /// padding block of the words `pad`, into the slots of `out` with
    /// their indices: the kernel from a start in registers, its digests
    /// going straight out (`avx2_equal.rs`, `avx512_rows.rs`). The first
    /// block's words come from `ahead` where the last call loaded them for
    /// these pointers; with `next`, the first block at its pointers goes
    /// into `ahead` for the next call.
    ///
    /// # Safety
    ///
    /// `self.hashes_equal_blocks()`; `ptrs[i]` is valid for reads of
    /// `blocks * 64` bytes for each `i < out.len()`, and with `next`,
    /// `next[i]` for reads of 64 bytes.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn equal_blocks(
        self,
        ptrs: &BlockPtrs,
        blocks: usize,
        pad: &[u32; 16],
        start: Start,
        out: &mut [[u8; 16]],
        next: Option<&BlockPtrs>,
        ahead: &mut SetAhead,
    ) {
        debug_assert!(self.hashes_equal_blocks());
        // SAFETY: the caller vouches for the CPU and the pointers; the
        // group count matches `out` (asserted in `equal_blocks`).
        #[cfg(md5_sse2)]
        unsafe {
            match self.isa {
                Isa::Avx2 => with_groups!(
                    avx2_equal::equal_blocks,
                    out.len() / 8,
                    [1, 2; 3],
                    (ptrs, blocks, pad, start.state, out, next, ahead)
                ),
                _ => with_groups!(
                    avx512_rows::equal_blocks,
                    out.len() / 16,
                    [1, 2, 3; 4],
                    (
                        ptrs,
                        blocks,
                        pad,
                        start.state,
                        out,
                        self.split_word(ptrs, out.len()),
                        next,
                        ahead
                    )
                ),
            }
        }
        #[cfg(not(md5_sse2))]
        let _ = (ptrs, blocks, pad, start, out, next, ahead);
    }
}
