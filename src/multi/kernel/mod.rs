//! Which multi-buffer kernel runs: the kernels this target builds, what the
//! CPU supports, and how many interleaved groups each runs.

// The lane-vector trait and the body over it, then one lane vector per
// ISA, each built where the target enables its baseline ISA (`md5_sse2`,
// `md5_neon`: see `build.rs`).
#[cfg(any(md5_sse2, md5_neon))]
#[macro_use]
mod lane_vector;
#[cfg(any(md5_sse2, md5_neon))]
#[macro_use]
mod body;
#[cfg(md5_sse2)]
pub(super) mod avx2;
#[cfg(md5_sse2)]
mod avx2_equal;
#[cfg(md5_sse2)]
pub(super) mod avx512;
#[cfg(md5_sse2)]
mod avx512_rows;
#[cfg(md5_sse2)]
pub(crate) mod avx512_ymm;
#[cfg(md5_neon)]
mod neon;
mod portable;
#[cfg(test)]
mod soft_wide;
#[cfg(md5_sse2)]
pub(super) mod sse2;

use crate::compress::soft::pad::to_bytes;
use crate::multi::scheduler::source::Start;
use crate::multi::state::{BlockPtrs, LaneStates};

/// A short row for [`Kernel::rows`]: where its bytes start, and how many.
pub(crate) type Row = (*const u8, usize);

/// A multi-buffer kernel. A value of this type other than `Portable` is only
/// made by [`Kernel::detect`] or [`Kernel::available`], after checking that
/// the CPU has what the kernel needs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Kernel {
    Portable,
    /// Tests only: a kernel of that many groups of 16 lanes at full width
    /// (AVX-512's widths, 16 to 64; built, like it, for four) and a group
    /// more for sets of short messages, that computes each lane with the
    /// portable `soft` backend (`soft_wide.rs`), so that the scheduler and
    /// `Lanes` are tested at every AVX-512 width on every x86_64 host. Not
    /// in [`Kernel::ALL`].
    #[cfg(test)]
    SoftWide(usize),
    #[cfg(md5_sse2)]
    Sse2,
    #[cfg(md5_sse2)]
    Avx2,
    #[cfg(md5_sse2)]
    Avx512,
    #[cfg(md5_neon)]
    Neon,
}

/// How a kernel is built: the lanes of one group (its vector width in
/// 32-bit lanes) and the most groups it interleaves.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Shape {
    pub(crate) lanes: usize,
    pub(crate) groups: usize,
}

/// Runs `$isa::$f::<G>$args` with `G` the group count `$g`, one of the
/// listed ones (the last for anything above).
#[allow(unused_macros)] // targets without a SIMD kernel never expand it
macro_rules! with_groups {
    ($isa:ident::$f:ident, $g:expr, [$($n:literal),*; $last:literal], $args:tt) => {
        match $g {
            $($n => $isa::$f::<$n> $args,)*
            _ => $isa::$f::<$last> $args,
        }
    };
}

impl Kernel {
    /// Every kernel built for this target, fastest last.
    pub(crate) const ALL: &'static [Kernel] = &[
        Kernel::Portable,
        #[cfg(md5_sse2)]
        Kernel::Sse2,
        #[cfg(md5_sse2)]
        Kernel::Avx2,
        #[cfg(md5_sse2)]
        Kernel::Avx512,
        #[cfg(md5_neon)]
        Kernel::Neon,
    ];

    /// The kernel this build and CPU run.
    pub(crate) fn detect() -> Kernel {
        if cfg!(any(md5_backend = "soft", feature = "force-soft")) {
            return Kernel::Portable;
        }
        let mut best = Kernel::Portable;
        for &k in Kernel::ALL {
            if k.is_supported() {
                best = k;
            }
        }
        best
    }

    /// Whether this kernel hashes lanes side by side (all but the portable
    /// one, which hashes one message at a time).
    pub(crate) fn is_simd(self) -> bool {
        self != Kernel::Portable
    }

    /// `Some(self)` if the CPU can run this kernel.
    pub(crate) fn available(self) -> Option<Kernel> {
        self.is_supported().then_some(self)
    }

    fn is_supported(self) -> bool {
        match self {
            Kernel::Portable => true,
            // SSE2 and NEON are built only where the target enables them
            // (`build.rs`), so every CPU of the target has them.
            #[cfg(md5_sse2)]
            Kernel::Sse2 => true,
            #[cfg(md5_sse2)]
            Kernel::Avx2 => avx2::detected(),
            #[cfg(md5_sse2)]
            Kernel::Avx512 => avx512::detected(),
            #[cfg(test)]
            Kernel::SoftWide(groups) => (1..=4).contains(&groups),
            #[cfg(md5_neon)]
            Kernel::Neon => true,
        }
    }

    /// The kernel named `name`, if this build has it and the CPU can run it.
    pub(crate) fn by_name(name: &str) -> Option<Kernel> {
        Kernel::ALL
            .iter()
            .find(|k| k.name() == name)
            .and_then(|k| k.available())
    }

    pub(crate) const fn name(self) -> &'static str {
        match self {
            Kernel::Portable => "portable",
            #[cfg(md5_sse2)]
            Kernel::Sse2 => "sse2",
            #[cfg(md5_sse2)]
            Kernel::Avx2 => "avx2",
            #[cfg(md5_sse2)]
            Kernel::Avx512 => "avx512",
            #[cfg(test)]
            Kernel::SoftWide(_) => "soft-wide (tests)",
            #[cfg(md5_neon)]
            Kernel::Neon => "neon",
        }
    }

    /// The kernel's shape. One group is bound by the latency of MD5's step
    /// chain; more groups fill the vector ALUs while it waits, until their
    /// state no longer fits the registers and spills cost more than the
    /// gaps they fill. The counts below are the fastest per lane-block in
    /// `benches/multi.rs` (see benches/RESULTS.md, "Interleaved groups"):
    ///
    /// * AVX2, three: the third group spills some state to the stack but
    ///   keeps four ALUs busier than two, whose step chains leave them idle;
    ///   a fourth spills too much.
    /// * SSE2, three: the same twelve state registers as AVX2's three.
    /// * NEON, two; with 32 registers it may take more, not yet measured.
    /// * AVX-512, four built, of which a CPU runs two or four at full width
    ///   (see [`avx512::groups`]).
    ///
    /// Fewer busy lanes run fewer groups (see [`Kernel::compress`]).
    const fn shape(self) -> Shape {
        let (lanes, groups) = match self {
            Kernel::Portable => (1, 1),
            #[cfg(md5_sse2)]
            Kernel::Sse2 => (4, 3),
            #[cfg(md5_sse2)]
            Kernel::Avx2 => (8, 3),
            #[cfg(md5_sse2)]
            Kernel::Avx512 => (16, 4),
            #[cfg(test)]
            Kernel::SoftWide(_) => (16, 4),
            #[cfg(md5_neon)]
            Kernel::Neon => (4, 2),
        };
        Shape { lanes, groups }
    }

    /// Lanes of one group.
    pub(crate) const fn group_lanes(self) -> usize {
        self.shape().lanes
    }

    /// Interleaved groups at full width on this CPU.
    pub(crate) fn groups(self) -> usize {
        match self {
            #[cfg(md5_sse2)]
            Kernel::Avx512 => avx512::groups(),
            #[cfg(test)]
            Kernel::SoftWide(groups) => groups,
            _ => self.max_groups(),
        }
    }

    /// Lanes of a set of short messages (at most four blocks each with
    /// padding) hashed at once, which may be more than [`Kernel::lanes`]:
    /// see [`avx512::short_groups`].
    pub(crate) fn short_lanes(self) -> usize {
        match self {
            #[cfg(md5_sse2)]
            Kernel::Avx512 => self.group_lanes() * avx512::short_groups(),
            // A group more than at full width, as Zen 4's AVX-512, so that
            // such sets are tested on every host.
            #[cfg(test)]
            Kernel::SoftWide(groups) => self.group_lanes() * (groups + 1).min(4),
            _ => self.lanes(),
        }
    }

    /// Lanes at full width for a batch of long messages too large to lie
    /// in the caches, which may be fewer than [`Kernel::lanes`]: see
    /// [`avx512::memory_groups`].
    pub(crate) fn memory_lanes(self) -> usize {
        match self {
            #[cfg(md5_sse2)]
            Kernel::Avx512 => self.group_lanes() * avx512::memory_groups(),
            // At most two groups, as Zen 5's AVX-512, so that such batches
            // are tested on every host.
            #[cfg(test)]
            Kernel::SoftWide(groups) => self.group_lanes() * groups.min(2),
            _ => self.lanes(),
        }
    }

    /// The most interleaved groups the kernel is built for.
    pub(crate) const fn max_groups(self) -> usize {
        self.shape().groups
    }

    /// How many messages the scheduler hashes side by side on this CPU.
    pub(crate) fn lanes(self) -> usize {
        self.group_lanes() * self.groups()
    }

    /// The most lanes one call of [`Kernel::compress`] can run: `lanes`,
    /// or more where the CPU runs fewer groups than are built.
    pub(crate) const fn max_lanes(self) -> usize {
        self.group_lanes() * self.max_groups()
    }

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
            match self {
                Kernel::Portable => {
                    // The only arm on targets without a SIMD kernel.
                    let _ = groups;
                    portable::compress(state, ptrs, blocks, last)
                }
                #[cfg(test)]
                Kernel::SoftWide(_) => soft_wide::compress(state, ptrs, blocks, used, last),
                #[cfg(md5_sse2)]
                Kernel::Sse2 => {
                    with_groups!(sse2::compress, groups, [1, 2; 3], (state, ptrs, blocks, last))
                }
                #[cfg(md5_sse2)]
                Kernel::Avx2 => {
                    with_groups!(avx2::compress, groups, [1, 2; 3], (state, ptrs, blocks, last))
                }
                #[cfg(md5_sse2)]
                Kernel::Avx512 if used <= avx512_ymm::MOST_LANES && avx512::narrow() => {
                    avx512_ymm::compress_lanes(state, ptrs, blocks, used, last)
                }
                #[cfg(md5_sse2)]
                Kernel::Avx512 => with_groups!(
                    avx512::compress,
                    groups,
                    [1, 2, 3; 4],
                    (state, ptrs, blocks, last)
                ),
                #[cfg(md5_neon)]
                Kernel::Neon => {
                    with_groups!(neon::compress, groups, [1; 2], (state, ptrs, blocks, last))
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
        match self {
            Kernel::Portable => {
                // The only arm on targets without a SIMD kernel.
                let _ = (groups, ptrs, blocks);
                None
            }
            #[cfg(test)]
            Kernel::SoftWide(_) => None,
            #[cfg(md5_sse2)]
            Kernel::Sse2 => {
                // SAFETY: as in `Kernel::compress`.
                Some(unsafe {
                    with_groups!(sse2::transpose_only, groups, [1, 2; 3], (ptrs, blocks))
                })
            }
            #[cfg(md5_sse2)]
            Kernel::Avx2 => {
                // SAFETY: as in `Kernel::compress`.
                Some(unsafe {
                    with_groups!(avx2::transpose_only, groups, [1, 2; 3], (ptrs, blocks))
                })
            }
            #[cfg(md5_sse2)]
            Kernel::Avx512 => {
                // SAFETY: as in `Kernel::compress`.
                Some(unsafe {
                    with_groups!(avx512::transpose_only, groups, [1, 2, 3; 4], (ptrs, blocks))
                })
            }
            #[cfg(md5_neon)]
            Kernel::Neon => {
                // SAFETY: as in `Kernel::compress`.
                Some(unsafe { with_groups!(neon::transpose_only, groups, [1; 2], (ptrs, blocks)) })
            }
        }
    }
}

impl Kernel {
    /// Whether [`Kernel::rows`] runs on this kernel and CPU: the AVX-512
    /// kernel where the CPU has AVX-512BW too.
    pub(crate) fn builds_rows(self) -> bool {
        match self {
            #[cfg(md5_sse2)]
            Kernel::Avx512 => avx512_rows::detected(),
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
        match self {
            #[cfg(md5_sse2)]
            Kernel::Avx2 => true,
            _ => self.builds_rows(),
        }
    }

    /// Hashes equal messages, 1 to `max_groups` whole groups of them, of
    /// `blocks` whole blocks at `ptrs`, continuing `start`, then their
    /// padding block of the words `pad`, into the slots of `out` with
    /// their indices: the kernel from a start in registers, its digests
    /// going straight out (`avx2_equal.rs`, `avx512_rows.rs`).
    ///
    /// # Safety
    ///
    /// `self.hashes_equal_blocks()`; `ptrs[i]` is valid for reads of
    /// `blocks * 64` bytes for each `i < out.len()`.
    #[inline]
    pub(crate) unsafe fn equal_blocks(
        self,
        ptrs: &BlockPtrs,
        blocks: usize,
        pad: &[u32; 16],
        start: Start,
        out: &mut [[u8; 16]],
    ) {
        debug_assert!(self.hashes_equal_blocks());
        // SAFETY: the caller vouches for the CPU and the pointers; the
        // group count matches `out` (asserted in `equal_blocks`).
        #[cfg(md5_sse2)]
        unsafe {
            match self {
                Kernel::Avx2 => with_groups!(
                    avx2_equal::equal_blocks,
                    out.len() / 8,
                    [1, 2; 3],
                    (ptrs, blocks, pad, start.state, out)
                ),
                _ => with_groups!(
                    avx512_rows::equal_blocks,
                    out.len() / 16,
                    [1, 2, 3; 4],
                    (ptrs, blocks, pad, start.state, out)
                ),
            }
        }
        #[cfg(not(md5_sse2))]
        let _ = (ptrs, blocks, pad, start, out);
    }
}

/// The digests of lanes `lane..lane + 4` of `state`: a 4 × 4
/// transposition, with SSE2 where it is baseline.
#[inline]
pub(crate) fn digests4(state: &LaneStates, lane: usize) -> [[u8; 16]; 4] {
    let rows = [0, 1, 2, 3].map(|r| &state.rows[r][lane..lane + 4]);
    #[cfg(md5_sse2)]
    let rows = {
        use lane_vector::{LaneVector, X86};
        // SAFETY: SSE2 is enabled (cfg); each row has the 4 words
        // `load` reads (sliced above).
        let v = rows.map(|r| unsafe { sse2::V4::load(r.as_ptr()) });
        sse2::V4::transpose4(v).map(|v| {
            let mut w = [0; 4];
            v.store(&mut w);
            w
        })
    };
    #[cfg(not(md5_sse2))]
    let rows = [0, 1, 2, 3].map(|i| rows.map(|r| r[i]));
    rows.map(to_bytes)
}

/// Hands `put` each lane of `lanes` with its digest: four lanes at a time,
/// through [`digests4`], where they make an aligned quad.
#[inline(always)]
pub(crate) fn each_digest(
    state: &LaneStates,
    lanes: core::ops::Range<usize>,
    mut put: impl FnMut(usize, [u8; 16]),
) {
    let mut lane = lanes.start;
    while lane < lanes.end {
        if lane.is_multiple_of(4) && lane + 4 <= lanes.end {
            for (l, d) in (lane..lane + 4).zip(digests4(state, lane)) {
                put(l, d);
            }
            lane += 4;
        } else {
            put(lane, to_bytes(state.get(lane)));
            lane += 1;
        }
    }
}
