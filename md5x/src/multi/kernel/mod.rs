//! Which multi-buffer kernel runs: the kernels this target builds, what the
//! CPU supports, and how many interleaved groups each runs.
//!
//! Kernels take the CPU as values: a [`Kernel`] is an [`Isa`] the
//! [`Platform`] can run and the [`Tuning`] row it runs with, passed by
//! value to every call (`calls.rs`).

// The lane-vector trait and the body over it, then one lane vector per
// ISA, each built where the target enables its baseline ISA (`md5_sse2`,
// `md5_neon`: see `build.rs`).
#[cfg(any(md5_sse2, md5_neon))]
#[macro_use]
mod lane_vector;
#[cfg(any(md5_sse2, md5_neon))]
#[macro_use]
mod steps;
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
mod digests;
#[cfg(any(md5_sse2, md5_neon))]
mod lines;
#[cfg(md5_neon)]
mod neon;
mod portable;
#[cfg(test)]
mod soft_wide;
#[cfg(md5_sse2)]
pub(super) mod sse2;

pub(crate) use digests::{digests4, each_digest};

use crate::multi::platform::Platform;
use crate::multi::tuning::{Stagger, Tuning};

/// A short row for [`Kernel::rows`]: where its bytes start, and how many.
pub(crate) type Row = (*const u8, usize);

/// A multi-buffer kernel's instruction set.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Isa {
    Portable,
    /// Tests only: a kernel of that many groups of 16 lanes at full width
    /// (AVX-512's widths, 16 to 64; built, like it, for four) and a group
    /// more for sets of short messages, that computes each lane with the
    /// portable `soft` backend (`soft_wide.rs`), so that the scheduler and
    /// `Lanes` are tested at every AVX-512 width on every x86_64 host. Not
    /// in [`Isa::ALL`].
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

/// A multi-buffer kernel as it runs: its ISA, and the tuning row it runs
/// with. A value whose ISA is not `Portable` is only made by
/// [`Kernel::detect`] or [`Kernel::available`], after checking that the
/// CPU has what the ISA needs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Kernel {
    pub(crate) isa: Isa,
    pub(crate) tuning: Tuning,
    /// Whether the CPU has AVX-512BW too ([`Kernel::builds_rows`]).
    pub(crate) avx512bw: bool,
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

// After the macro, which it expands.
mod calls;

impl Isa {
    /// Every kernel built for this target, fastest last.
    pub(crate) const ALL: &'static [Isa] = &[
        Isa::Portable,
        #[cfg(md5_sse2)]
        Isa::Sse2,
        #[cfg(md5_sse2)]
        Isa::Avx2,
        #[cfg(md5_sse2)]
        Isa::Avx512,
        #[cfg(md5_neon)]
        Isa::Neon,
    ];

    /// Whether `cpu` can run this kernel.
    fn runs_on(self, cpu: Platform) -> bool {
        let _ = cpu;
        match self {
            Isa::Portable => true,
            // SSE2 and NEON are built only where the target enables them
            // (`build.rs`), so every CPU of the target has them.
            #[cfg(md5_sse2)]
            Isa::Sse2 => true,
            #[cfg(md5_sse2)]
            Isa::Avx2 => cpu.avx2,
            #[cfg(md5_sse2)]
            Isa::Avx512 => cpu.avx512,
            #[cfg(test)]
            Isa::SoftWide(groups) => (1..=4).contains(&groups),
            #[cfg(md5_neon)]
            Isa::Neon => true,
        }
    }

    pub(crate) const fn name(self) -> &'static str {
        match self {
            Isa::Portable => "portable",
            #[cfg(md5_sse2)]
            Isa::Sse2 => "sse2",
            #[cfg(md5_sse2)]
            Isa::Avx2 => "avx2",
            #[cfg(md5_sse2)]
            Isa::Avx512 => "avx512",
            #[cfg(test)]
            Isa::SoftWide(_) => "soft-wide (tests)",
            #[cfg(md5_neon)]
            Isa::Neon => "neon",
        }
    }

    /// The kernel's shape. One group is bound by the latency of MD5's step
    /// chain; more groups fill the vector ALUs while it waits, until their
    /// state no longer fits the registers and spills cost more than the
    /// gaps they fill. The counts below are the fastest per lane-block in
    /// `benches/multi/main.rs`:
    ///
    /// * AVX2, three: the third group spills some state to the stack but
    ///   keeps four ALUs busier than two, whose step chains leave them idle;
    ///   a fourth spills too much.
    /// * SSE2, three: the same twelve state registers as AVX2's three.
    /// * NEON, two; with 32 registers it may take more, not yet measured.
    /// * AVX-512, four built, of which a CPU runs as many as its tuning
    ///   row's [`Tuning::groups`].
    ///
    /// Fewer busy lanes run fewer groups (see [`Kernel::compress`]).
    const fn shape(self) -> Shape {
        let (lanes, groups) = match self {
            Isa::Portable => (1, 1),
            #[cfg(md5_sse2)]
            Isa::Sse2 => (4, 3),
            #[cfg(md5_sse2)]
            Isa::Avx2 => (8, 3),
            #[cfg(md5_sse2)]
            Isa::Avx512 => (16, 4),
            #[cfg(test)]
            Isa::SoftWide(_) => (16, 4),
            #[cfg(md5_neon)]
            Isa::Neon => (4, 2),
        };
        Shape { lanes, groups }
    }
}

impl Kernel {
    /// The kernel this build and CPU run, with the CPU's tuning row.
    pub(crate) fn detect() -> Kernel {
        let cpu = Platform::detect();
        let mut best = Isa::Portable;
        if !cfg!(any(md5_backend = "soft", feature = "force-soft")) {
            for &isa in Isa::ALL {
                if isa.runs_on(cpu) {
                    best = isa;
                }
            }
        }
        Kernel {
            isa: best,
            tuning: cpu.tuning(),
            avx512bw: cpu.avx512bw,
        }
    }

    /// Kernel `isa` with the tuning row `tuning`, if the CPU can run it.
    pub(crate) fn available(isa: Isa, tuning: Tuning) -> Option<Kernel> {
        let cpu = Platform::detect();
        isa.runs_on(cpu).then_some(Kernel {
            isa,
            tuning,
            avx512bw: cpu.avx512bw,
        })
    }

    /// The kernel named `name` with the CPU's tuning row, if this build
    /// has it and the CPU can run it.
    pub(crate) fn by_name(name: &str) -> Option<Kernel> {
        let isa = Isa::ALL.iter().find(|k| k.name() == name)?;
        Kernel::available(*isa, Platform::detect().tuning())
    }

    /// This kernel with the tuning row `tuning`.
    pub(crate) fn tuned(self, tuning: Tuning) -> Kernel {
        Kernel { tuning, ..self }
    }

    /// Whether this kernel hashes lanes side by side (all but the portable
    /// one, which hashes one message at a time).
    pub(crate) fn is_simd(self) -> bool {
        self.isa != Isa::Portable
    }

    pub(crate) const fn name(self) -> &'static str {
        self.isa.name()
    }

    /// Lanes of one group.
    pub(crate) const fn group_lanes(self) -> usize {
        self.isa.shape().lanes
    }

    /// Interleaved groups at full width: the tuning row's for AVX-512.
    pub(crate) fn groups(self) -> usize {
        match self.isa {
            #[cfg(md5_sse2)]
            Isa::Avx512 => self.avx512_groups(self.tuning.groups),
            #[cfg(test)]
            Isa::SoftWide(groups) => groups,
            _ => self.max_groups(),
        }
    }

    /// Lanes of a set of short messages (at most four blocks each with
    /// padding) hashed at once, which may be more than [`Kernel::lanes`]
    /// ([`Tuning::short_groups`]).
    pub(crate) fn short_lanes(self) -> usize {
        match self.isa {
            #[cfg(md5_sse2)]
            Isa::Avx512 => self.group_lanes() * self.avx512_groups(self.tuning.short_groups),
            // A group more than at full width, as a tuning row whose
            // `short_groups` exceeds its `groups`, so that such sets are
            // tested on every host.
            #[cfg(test)]
            Isa::SoftWide(groups) => self.group_lanes() * (groups + 1).min(4),
            _ => self.lanes(),
        }
    }

    /// Lanes at full width for a batch of long messages too large to lie
    /// in the caches, which may be fewer than [`Kernel::lanes`]
    /// ([`Tuning::memory_groups`]).
    pub(crate) fn memory_lanes(self) -> usize {
        match self.isa {
            #[cfg(md5_sse2)]
            Isa::Avx512 => self.group_lanes() * self.avx512_groups(self.tuning.memory_groups),
            // At most two groups, as a tuning row whose `memory_groups` is
            // below its `groups`, so that such batches are tested on every
            // host.
            #[cfg(test)]
            Isa::SoftWide(groups) => self.group_lanes() * groups.min(2),
            _ => self.lanes(),
        }
    }

    /// `groups` held to what the AVX-512 kernel is built for.
    #[cfg(md5_sse2)]
    fn avx512_groups(self, groups: u16) -> usize {
        usize::from(groups).clamp(1, self.max_groups())
    }

    /// The most interleaved groups the kernel is built for.
    pub(crate) const fn max_groups(self) -> usize {
        self.isa.shape().groups
    }

    /// How many messages the scheduler hashes side by side.
    pub(crate) fn lanes(self) -> usize {
        self.group_lanes() * self.groups()
    }

    /// The most lanes one call of [`Kernel::compress`] can run: `lanes`,
    /// or more where the CPU runs fewer groups than are built.
    pub(crate) const fn max_lanes(self) -> usize {
        self.group_lanes() * self.max_groups()
    }

    /// The stagger of this kernel's tuning row.
    pub(crate) fn stagger(self) -> Stagger {
        match self.isa {
            #[cfg(md5_sse2)]
            Isa::Avx512 => self.tuning.avx512_stagger,
            #[cfg(md5_sse2)]
            Isa::Avx2 => self.tuning.avx2_stagger,
            _ => self.tuning.other_stagger,
        }
    }

    /// Bytes ahead of each lane's block the body asks for on long calls.
    #[allow(dead_code)] // targets without a SIMD kernel never read it
    fn prefetch(self) -> usize {
        match self.isa {
            #[cfg(md5_sse2)]
            Isa::Avx512 => usize::from(self.tuning.avx512_prefetch),
            #[cfg(md5_sse2)]
            Isa::Avx2 => usize::from(self.tuning.avx2_prefetch),
            _ => 0,
        }
    }
}
