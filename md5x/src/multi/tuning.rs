//! Every number a speed rule of `md5x::multi` uses, as one value per CPU
//! family ([`Tuning`]), and the pure rule that turns a set's shape and a
//! row into how it runs ([`Tuning::plan`]).
//!
//! Each field says what it decides, and each row's values say why they
//! are what they are; the measurements behind them are not repeated
//! here. `cargo bench --bench multi -- tune` measures every field its
//! kernels allow on the CPU at hand and prints the row it proposes (a
//! change only where it wins beyond the run's spread) as Rust to paste
//! here.

/// Lanes starting in one L1 set above which they crowd it: staggered
/// (`scheduler/stagger.rs`), or read as whole lines (`kernel/lines.rs`).
pub(crate) const CROWD: usize = 4;

/// Rows left in a batch below which its mixed sets run as they come
/// (`Scheduler::run_mixed`), not sorted into buckets: too few to fill them.
pub(crate) const BUCKET_MIN_ROWS: usize = 256;

/// Bytes of long messages (each over a lane's buffer) past which a batch
/// streams from memory rather than the caches, and the widest AVX-512
/// groups lose to narrower ones ([`Tuning::memory_groups`]). Rows keep the
/// full width: a batch of them is read as one stream.
pub(crate) const STREAM_FROM_MEMORY_BYTES: usize = 6 << 20;

/// Messages the scheduler's queue holds at a time (`scheduler/queue.rs`):
/// a multiple of every kernel's width (4 to 64 lanes in groups of 4, 8 or
/// 16), so that whole sets fill windows. The wider the window, the closer
/// its order to the whole batch's, longest first, up to where a wider one
/// stopped gaining.
pub(crate) const QUEUE_WINDOW: usize = 768;

/// The work a run of messages holds in the `par_` forms, in bytes: a
/// message counts as its length plus 64 (its padding and its share of the
/// per-message work). Large enough that a run's hashing dwarfs handing it
/// to another thread, small enough that a batch of a few megabytes is
/// split many ways.
#[cfg(feature = "rayon")]
pub(crate) const PAR_RUN_BYTES: u64 = 256 << 10;

/// Outputs of at least this many bytes a call are written past the caches
/// (`past_cache.rs`): smaller ones a plain store leaves in L2, where the next
/// reader finds them.
pub(crate) const PAST_CACHE_BYTES: usize = 4 << 20;

/// How far past each short row built in registers its set asks for the
/// cache line, in bytes, where the batch lies back to back (a column,
/// slices of one buffer): the kernel's masked loads do not draw the
/// hardware prefetchers along.
pub(crate) const ROW_PREFETCH_AHEAD: usize = 1024;

/// When equal whole-block messages whose starts crowd one L1 set (a
/// multiple of 4 KiB apart) start a block apart, lane by lane, instead of
/// in lockstep (`scheduler/stagger.rs`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Stagger {
    /// Distinct delays, in blocks (1: lockstep).
    pub spread: u16,
    /// Sets of more lanes than this run in lockstep.
    pub most_lanes: u16,
    /// Starts on a cache line: messages shorter than this many blocks per
    /// delay (`spread - 1` of them) run in lockstep.
    pub blocks_per_delay: u16,
    /// Starts inside a cache line, each block across two lines: the spread
    /// shrinks to `blocks / split_blocks_per_delay + 1` delays instead; 0:
    /// as starts on a line.
    pub split_blocks_per_delay: u16,
}

impl Stagger {
    /// Lockstep always.
    pub const OFF: Stagger = Stagger {
        spread: 1,
        most_lanes: 0,
        blocks_per_delay: 0,
        split_blocks_per_delay: 0,
    };

    /// `spread` delays on every crowded set, however short or wide: for
    /// measuring and tests.
    pub const fn forced(spread: u16) -> Stagger {
        Stagger {
            spread,
            most_lanes: u16::MAX,
            blocks_per_delay: 0,
            split_blocks_per_delay: 0,
        }
    }

    /// How many distinct delays a crowded set of `lanes` equal messages of
    /// `blocks` blocks takes (1: none); `split` when their starts are
    /// inside a cache line.
    pub(crate) fn spread(self, lanes: usize, blocks: usize, split: bool) -> usize {
        let spread = usize::from(self.spread);
        if spread < 2 || lanes > usize::from(self.most_lanes) {
            return 1;
        }
        match (split, usize::from(self.split_blocks_per_delay)) {
            (true, per) if per > 0 => spread.min(blocks / per + 1),
            _ if blocks >= usize::from(self.blocks_per_delay) * (spread - 1) => spread,
            _ => 1,
        }
    }
}

/// The numbers the speed rules use, a row per CPU family (`Family::tuning`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Tuning {
    /// AVX-512 groups of 16 lanes interleaved at full width.
    pub groups: u16,
    /// AVX-512 groups for a set of short messages (four blocks or fewer
    /// with padding) copied into the lanes, or equal 64-byte ones.
    pub short_groups: u16,
    /// AVX-512 groups at full width for a batch of long messages past the
    /// caches (`scheduler::streams_from_memory`).
    pub memory_groups: u16,
    /// AVX-512 calls of at most this many busy lanes run on `ymm`
    /// registers, up to three groups of 8 (`kernel/avx512_ymm.rs`); 0:
    /// never.
    pub ymm_lanes: u16,
    /// How far ahead of each lane's block the AVX-512 body asks for the
    /// line on calls of 2,048 blocks or more, in bytes (0: it does not).
    pub avx512_prefetch: u16,
    /// The same for the AVX2 body.
    pub avx2_prefetch: u16,
    /// Whether the AVX-512 kernel reads lanes whose blocks all start at
    /// one word inside a cache line as whole aligned lines, each loaded
    /// once (`kernel/lines.rs`), not block by block.
    pub avx512_whole_lines: bool,
    /// Whether sets of equal 128- and 192-byte messages are built in the
    /// AVX-512 kernel's registers as rows, each block loaded and
    /// transposed (`Kernel::rows`), rather than read in place with their
    /// shared padding block (`Kernel::equal_blocks`), where the kernel
    /// builds rows. 64- and 256-byte ones are read in place on every row.
    pub avx512_whole_block_rows: bool,
    /// The AVX-512 kernel's stagger.
    pub avx512_stagger: Stagger,
    /// The AVX2 kernel's stagger.
    pub avx2_stagger: Stagger,
    /// The other kernels' (SSE2, NEON, portable, the tests' soft-wide).
    pub other_stagger: Stagger,
}

/// AVX-512's stagger where no row says otherwise: 32 delays for sets of
/// up to 32 lanes from 128 blocks a delay, wider sets in lockstep. It pays
/// only on long messages, whose idle blocks are few beside their length,
/// and not on sets wider than 32 lanes.
const AVX512_STAGGER: Stagger = Stagger {
    spread: 32,
    most_lanes: 32,
    blocks_per_delay: 128,
    split_blocks_per_delay: 0,
};

/// AVX2's stagger on AMD: a delay for each of its 24 lanes, from 16 blocks
/// a delay; shorter messages lose more to the idle blocks than the stagger
/// saves.
const AVX2_STAGGER_AMD: Stagger = Stagger {
    spread: 24,
    most_lanes: u16::MAX,
    blocks_per_delay: 16,
    split_blocks_per_delay: 0,
};

impl Tuning {
    /// Intel with AVX-512 (`Family::IntelAvx512`), and the default for
    /// CPUs no row names.
    pub const INTEL: Tuning = Tuning {
        // 1-cycle latency: two groups fill two pipes.
        groups: 2,
        // A third group pays only on sets of short messages, sharing their
        // copies and calls.
        short_groups: 3,
        // More groups than two lose past the caches.
        memory_groups: 2,
        // One `ymm` group beats a 512-bit one on few lanes; three lose to
        // two 512-bit ones on 24 (16 not yet measured).
        ymm_lanes: 8,
        // Asking for the lines ahead costs time past the caches here.
        avx512_prefetch: 0,
        // AVX2's lanes from memory outrun the hardware prefetchers; the
        // same on every row.
        avx2_prefetch: 512,
        // Starts inside a line (a `Vec`'s) read faster as whole lines.
        avx512_whole_lines: true,
        // In place, the next set's first block loaded during the padding
        // block, ran ahead of rows at 128 and 192 bytes.
        avx512_whole_block_rows: false,
        // Lockstep ran ahead up to 64 KiB, where this stagger runs in
        // lockstep too (it staggers from 3,968 blocks, 31 delays of 128);
        // on longer messages its 32 delays pay.
        avx512_stagger: AVX512_STAGGER,
        // AVX2 loses more to a stagger's idle blocks than it saves here.
        avx2_stagger: Stagger::OFF,
        other_stagger: Stagger::OFF,
    };

    /// AMD before Zen 4 (family 0x19 without AVX-512, and 0x17).
    pub const ZEN3: Tuning = Tuning {
        // AVX2's 24 lanes from memory outrun the hardware prefetchers.
        avx2_prefetch: 512,
        avx512_prefetch: 512,
        avx2_stagger: AVX2_STAGGER_AMD,
        // No AVX-512 kernel runs here: the AVX-512 fields as they were
        // before Intel's changed.
        ymm_lanes: 0,
        avx512_whole_lines: false,
        ..Tuning::INTEL
    };

    /// AMD Zen 4 (family 0x19 with AVX-512).
    pub const ZEN4: Tuning = Tuning {
        // More groups ran slower on long messages and on mixed batches.
        groups: 2,
        // A third group pays on sets of short messages, as on Intel.
        short_groups: 3,
        // More groups lose past the caches.
        memory_groups: 2,
        // 512-bit ops run as two halves, so three `ymm` groups beat two
        // `zmm` ones up to 24 lanes.
        ymm_lanes: 24,
        // The lanes from memory outrun the hardware prefetchers.
        avx512_prefetch: 512,
        avx2_prefetch: 512,
        // Starts inside a line (a `Vec`'s) run far below starts on a line
        // when read block by block, and near them as whole lines in
        // lockstep.
        avx512_whole_lines: true,
        // Rows ran ahead of the in-place path at 128 and 192 bytes (before
        // that path loaded each set's first block ahead).
        avx512_whole_block_rows: true,
        // Whole lines in lockstep ahead of a stagger up to 64 KiB, where
        // this stagger runs in lockstep too.
        avx512_stagger: AVX512_STAGGER,
        avx2_stagger: AVX2_STAGGER_AMD,
        other_stagger: Stagger::OFF,
    };

    /// AMD Zen 5 (family 0x1A).
    pub const ZEN5: Tuning = Tuning {
        // 2-cycle latency and four pipes need four groups in flight.
        groups: 4,
        // The same for sets of short messages.
        short_groups: 4,
        // Past the caches memory feeds 32 lanes better than 64.
        memory_groups: 2,
        // Not measured with the `ymm` body: vector ops take two cycles at
        // every width.
        ymm_lanes: 0,
        // The lanes from memory outrun the hardware prefetchers.
        avx512_prefetch: 512,
        avx2_prefetch: 512,
        // Not measured on this family.
        avx512_whole_lines: false,
        // Not measured on this family: as Zen 4.
        avx512_whole_block_rows: true,
        // Sets over 32 lanes in lockstep: `AVX512_STAGGER`.
        avx512_stagger: AVX512_STAGGER,
        avx2_stagger: AVX2_STAGGER_AMD,
        other_stagger: Stagger::OFF,
    };

    /// The row for CPUs of no measured family: Intel's.
    pub const DEFAULT: Tuning = Tuning::INTEL;

    /// This row with every AVX-512 group count `groups` (full width, short
    /// sets, past the caches), as a CPU of that width would run.
    pub const fn with_groups(self, groups: u16) -> Tuning {
        Tuning {
            groups,
            short_groups: groups,
            memory_groups: groups,
            ..self
        }
    }

    /// This row with every kernel's stagger `stagger`.
    pub const fn with_stagger(self, stagger: Stagger) -> Tuning {
        Tuning {
            avx512_stagger: stagger,
            avx2_stagger: stagger,
            other_stagger: stagger,
            ..self
        }
    }

    /// Whether an AVX-512 call of `used` busy lanes runs on `ymm`
    /// registers.
    pub(crate) fn runs_ymm(self, used: usize) -> bool {
        used <= usize::from(self.ymm_lanes)
    }

    /// How one set of equal messages runs: see [`Plan`].
    pub(crate) fn plan(self, stagger: Stagger, set: SetShape) -> Plan {
        let spread = match set.crowded {
            true => stagger.spread(set.lanes, set.blocks, set.split),
            false => 1,
        };
        Plan {
            spread,
            groups: set.lanes.div_ceil(set.group_lanes),
            ymm: set.avx512 && self.runs_ymm(set.lanes),
        }
    }
}

/// What [`Tuning::plan`] decides from.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SetShape {
    /// Busy lanes, and the lanes of one group of the kernel.
    pub(crate) lanes: usize,
    pub(crate) group_lanes: usize,
    /// Blocks of each message.
    pub(crate) blocks: usize,
    /// Whether more than a few starts share one L1 set, and whether they
    /// start inside a cache line.
    pub(crate) crowded: bool,
    pub(crate) split: bool,
    /// Whether the kernel is AVX-512's.
    pub(crate) avx512: bool,
}

/// How a set runs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Plan {
    /// Distinct start delays (1: lockstep).
    pub(crate) spread: usize,
    /// Interleaved groups.
    pub(crate) groups: usize,
    /// Whether on `ymm` registers (AVX-512 only).
    pub(crate) ymm: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(lanes: usize, blocks: usize, crowded: bool, split: bool) -> SetShape {
        SetShape {
            lanes,
            group_lanes: 16,
            blocks,
            crowded,
            split,
            avx512: true,
        }
    }

    #[test]
    fn plans() {
        let plan = |t: Tuning, s: SetShape| t.plan(t.avx512_stagger, s);
        // 32 lanes of 64 KiB on a line: lockstep everywhere (128 blocks a
        // delay need 3,968 blocks); from 7 MiB, 32 delays.
        for t in [Tuning::INTEL, Tuning::ZEN3, Tuning::ZEN4, Tuning::ZEN5] {
            assert_eq!(plan(t, set(32, 1024, true, false)).spread, 1);
            assert_eq!(plan(t, set(32, 3968, true, false)).spread, 32);
            assert_eq!(plan(t, set(32, 3967, true, false)).spread, 1);
            // Wider sets, and sets not crowded, in lockstep.
            assert_eq!(plan(t, set(64, 1 << 17, true, false)).spread, 1);
            assert_eq!(plan(t, set(32, 1 << 17, false, true)).spread, 1);
        }
        // Starts inside a line as on one, in every row (Zen 4 reads them
        // as whole lines); a row may shrink the spread with length.
        let z = Tuning::ZEN4;
        for t in [Tuning::INTEL, z, Tuning::ZEN5] {
            assert_eq!(plan(t, set(32, 1024, true, true)).spread, 1);
            assert_eq!(plan(t, set(32, 4000, true, true)).spread, 32);
        }
        let shrinking = Stagger {
            split_blocks_per_delay: 16,
            ..Tuning::INTEL.avx512_stagger
        };
        assert_eq!(shrinking.spread(32, 1024, true), 32);
        assert_eq!(shrinking.spread(32, 64, true), 5);
        assert_eq!(shrinking.spread(32, 15, true), 1);
        assert_eq!(shrinking.spread(32, 1024, false), 1);
        // Whole lines where measured to pay: Intel and Zen 4, not Zen 5
        // (not measured there).
        let (intel, zen5) = (Tuning::INTEL, Tuning::ZEN5);
        assert!(z.avx512_whole_lines && intel.avx512_whole_lines && !zen5.avx512_whole_lines);
        // Groups cover the busy lanes; `ymm` up to 24 lanes on Zen 4, up
        // to 8 on Intel, never on Zen 5.
        assert_eq!(plan(z, set(17, 8, false, false)).groups, 2);
        assert!(plan(z, set(24, 8, false, false)).ymm);
        assert!(!plan(z, set(25, 8, false, false)).ymm);
        assert!(plan(intel, set(8, 8, false, false)).ymm);
        assert!(!plan(intel, set(9, 8, false, false)).ymm);
        assert!(!plan(intel, set(24, 8, false, false)).ymm);
        assert!(!plan(zen5, set(8, 8, false, false)).ymm);
        // AVX2 staggers on AMD only.
        let avx2 = |t: Tuning| t.avx2_stagger.spread(24, 16 * 23, false);
        assert_eq!(avx2(Tuning::ZEN3), 24);
        assert_eq!(avx2(Tuning::INTEL), 1);
        // Forced: any length, any width.
        assert_eq!(Stagger::forced(8).spread(64, 1, false), 8);
        assert_eq!(Stagger::OFF.spread(32, 1 << 20, true), 1);
    }

    #[test]
    fn with_groups_sets_every_count() {
        let t = Tuning::ZEN5.with_groups(1);
        assert_eq!((t.groups, t.short_groups, t.memory_groups), (1, 1, 1));
    }
}
