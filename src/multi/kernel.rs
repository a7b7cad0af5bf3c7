//! Which multi-buffer kernel runs: the kernels this target builds, what the
//! CPU supports, and how many interleaved groups each runs.

use super::{portable, Ptrs, Soa};
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
use core::sync::atomic::{AtomicUsize, Ordering::Relaxed};

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
use super::{avx2, avx512, sse2};

#[cfg(all(
    target_arch = "aarch64",
    target_endian = "little",
    target_feature = "neon"
))]
use super::neon;

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
cpufeatures::new!(avx2_cpuid, "avx2");
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
cpufeatures::new!(avx512_cpuid, "avx512f", "avx512vl");

/// A multi-buffer kernel. A value of this type other than `Portable` is only
/// made by [`Kernel::detect`] or [`Kernel::available`], after checking that
/// the CPU has what the kernel needs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Kernel {
    Portable,
    /// Tests only: a kernel of that many groups of 16 lanes (AVX-512's
    /// widths, 16 to 64) that computes each lane with the portable `soft`
    /// backend, so that the scheduler and `Lanes` are tested at every
    /// AVX-512 width on every x86_64 host. Not in [`Kernel::ALL`].
    #[cfg(test)]
    SoftWide(usize),
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    Sse2,
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    Avx2,
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    Avx512,
    #[cfg(all(
        target_arch = "aarch64",
        target_endian = "little",
        target_feature = "neon"
    ))]
    Neon,
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
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        Kernel::Sse2,
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        Kernel::Avx2,
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        Kernel::Avx512,
        #[cfg(all(
            target_arch = "aarch64",
            target_endian = "little",
            target_feature = "neon"
        ))]
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

    /// `Some(self)` if the CPU can run this kernel.
    pub(crate) fn available(self) -> Option<Kernel> {
        self.is_supported().then_some(self)
    }

    fn is_supported(self) -> bool {
        match self {
            Kernel::Portable => true,
            // Built only where the target enables SSE2 (every x86_64 target
            // with an FPU; not x86_64-unknown-none), so every CPU of the
            // target has it.
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            Kernel::Sse2 => true,
            // Miri cannot execute CPUID; there the build's target features
            // (`-C target-feature=+avx2`) decide.
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            Kernel::Avx2 => {
                if cfg!(miri) {
                    cfg!(target_feature = "avx2")
                } else {
                    avx2_cpuid::get()
                }
            }
            // `cpufeatures` also checks that the OS saves the opmask and
            // `zmm` registers (XCR0).
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            Kernel::Avx512 => {
                if cfg!(miri) {
                    cfg!(all(target_feature = "avx512f", target_feature = "avx512vl"))
                } else {
                    avx512_cpuid::get()
                }
            }
            #[cfg(test)]
            Kernel::SoftWide(groups) => (1..=4).contains(&groups),
            // Built only where the target enables NEON (not on
            // aarch64-unknown-none-softfloat).
            #[cfg(all(
                target_arch = "aarch64",
                target_endian = "little",
                target_feature = "neon"
            ))]
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
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            Kernel::Sse2 => "sse2",
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            Kernel::Avx2 => "avx2",
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            Kernel::Avx512 => "avx512",
            #[cfg(test)]
            Kernel::SoftWide(_) => "soft-wide (tests)",
            #[cfg(all(
                target_arch = "aarch64",
                target_endian = "little",
                target_feature = "neon"
            ))]
            Kernel::Neon => "neon",
        }
    }

    /// Lanes of one group (the vector width in 32-bit lanes) and the most
    /// interleaved groups built, from `benches/multi.rs` on AMD Zen 3
    /// (1-cycle vector latency, four vector ALUs, 16 registers):
    ///
    /// * AVX2, three: raw ns per lane-block 14.9, 8.9, 8.4 and 12.4 for
    ///   one to four groups. Three groups spill some state to the stack
    ///   but keep the four ALUs busier than two, whose step chains leave
    ///   them idle; four spill too much. A 2-cycle-latency core (Zen 5)
    ///   gains more from the third. On an Intel Xeon (family 6 model 207,
    ///   three vector ALUs) three win too: 16.2, 10.5 and 9.9.
    /// * SSE2, three (the same twelve state registers as AVX2's three): on
    ///   the Intel Xeon, 32.4, 21.4 and 19.5 ns per lane-block for one to
    ///   three groups, and 4-10% more throughput than two on every batch
    ///   of 12 or more messages; on Zen 3, within that shared machine's
    ///   noise of two (19.1-28.8 against 20.5-23.6 in one busy hour).
    /// * NEON, two; with 32 registers it may take more, but it has had no
    ///   hardware to measure on.
    /// * AVX-512, four, of which a CPU runs two or four at full width (see
    ///   [`avx512_groups`]).
    ///
    /// Fewer busy lanes run fewer groups (see [`Kernel::compress`]).
    const fn shape(self) -> (usize, usize) {
        match self {
            Kernel::Portable => (1, 1),
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            Kernel::Sse2 => (4, 3),
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            Kernel::Avx2 => (8, 3),
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            Kernel::Avx512 => (16, 4),
            #[cfg(test)]
            Kernel::SoftWide(groups) => (16, groups),
            #[cfg(all(
                target_arch = "aarch64",
                target_endian = "little",
                target_feature = "neon"
            ))]
            Kernel::Neon => (4, 2),
        }
    }

    /// Lanes of one group.
    pub(crate) const fn group_lanes(self) -> usize {
        self.shape().0
    }

    /// Interleaved groups at full width on this CPU.
    pub(crate) fn groups(self) -> usize {
        match self {
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            Kernel::Avx512 => avx512_groups(),
            _ => self.max_groups(),
        }
    }

    /// The most interleaved groups the kernel is built for.
    pub(crate) const fn max_groups(self) -> usize {
        self.shape().1
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
        state: &mut Soa,
        ptrs: &Ptrs,
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
                Kernel::SoftWide(_) => soft_wide(state, ptrs, blocks, used, last),
                #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
                Kernel::Sse2 => {
                    with_groups!(sse2::compress, groups, [1, 2; 3], (state, ptrs, blocks, last))
                }
                #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
                Kernel::Avx2 => {
                    with_groups!(avx2::compress, groups, [1, 2; 3], (state, ptrs, blocks, last))
                }
                #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
                Kernel::Avx512 => with_groups!(
                    avx512::compress,
                    groups,
                    [1, 2, 3; 4],
                    (state, ptrs, blocks, last)
                ),
                #[cfg(all(
                    target_arch = "aarch64",
                    target_endian = "little",
                    target_feature = "neon"
                ))]
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
    pub(crate) unsafe fn transpose_only(self, ptrs: &Ptrs, blocks: usize) -> Option<u32> {
        let groups = self.max_groups();
        match self {
            Kernel::Portable => {
                // The only arm on targets without a SIMD kernel.
                let _ = (groups, ptrs, blocks);
                None
            }
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            Kernel::Sse2 => {
                // SAFETY: as in `Kernel::compress`.
                let x = unsafe {
                    with_groups!(sse2::transpose_only, groups, [1, 2; 3], (ptrs, blocks))
                };
                Some(x)
            }
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            Kernel::Avx2 => {
                // SAFETY: as in `Kernel::compress`.
                let x = unsafe {
                    with_groups!(avx2::transpose_only, groups, [1, 2; 3], (ptrs, blocks))
                };
                Some(x)
            }
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            Kernel::Avx512 => {
                // SAFETY: as in `Kernel::compress`.
                let x = unsafe {
                    with_groups!(avx512::transpose_only, groups, [1, 2, 3; 4], (ptrs, blocks))
                };
                Some(x)
            }
            #[cfg(test)]
            Kernel::SoftWide(_) => None,
            #[cfg(all(
                target_arch = "aarch64",
                target_endian = "little",
                target_feature = "neon"
            ))]
            Kernel::Neon => {
                // SAFETY: as in `Kernel::compress`.
                let x =
                    unsafe { with_groups!(neon::transpose_only, groups, [1; 2], (ptrs, blocks)) };
                Some(x)
            }
        }
    }
}

/// AVX-512's interleaved groups at full width on this CPU: two, or four on
/// AMD Zen 5 and later.
///
/// Where vector integer ops take one cycle (Intel, AMD Zen 4), a step's
/// chain (logic, add, rotate, add) is about 4 cycles, and two groups fill
/// the two 512-bit pipes; more only spill. Measured on an Intel Xeon
/// (family 6 model 207) with `benches/multi.rs`: raw ns per lane-block 6.95,
/// 5.51, 5.81 and 6.03 for one to four groups, and two groups 11-13% ahead
/// of four on 64 x 64 KiB and the mixed batches. Zen 5 (family 0x1A) takes
/// two cycles an op and has four pipes, so it needs about twice the steps in
/// flight: four groups, by that reasoning, not yet measured.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
fn avx512_groups() -> usize {
    match AVX512_GROUPS.load(Relaxed) {
        0 => {
            let groups = if zen5_or_later() { 4 } else { 2 };
            AVX512_GROUPS.store(groups, Relaxed);
            groups
        }
        groups => groups,
    }
}

/// [`avx512_groups`]'s answer; 0 until the first call reads CPUID.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
static AVX512_GROUPS: AtomicUsize = AtomicUsize::new(0);

/// Makes [`avx512_groups`] answer `groups` (1 to 4) from now on, whatever
/// the CPU: so that one machine can run the scheduler at every AVX-512
/// width (see `__bench::set_avx512_groups`).
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
pub(crate) fn set_avx512_groups(groups: usize) {
    assert!(
        (1..=Kernel::Avx512.max_groups()).contains(&groups),
        "md5::multi: {groups} AVX-512 groups; the kernel is built for 1 to {}",
        Kernel::Avx512.max_groups()
    );
    AVX512_GROUPS.store(groups, Relaxed);
}

/// Whether the CPU is an AMD of family 0x1A (Zen 5) or later. Miri, which
/// cannot execute CPUID, gets the widest kernel.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
fn zen5_or_later() -> bool {
    if cfg!(miri) {
        return true;
    }
    use core::arch::x86_64::__cpuid;
    // SAFETY: every x86_64 CPU has CPUID and its leaves 0 and 1. (Safe to
    // call on newer compilers, `unsafe` on the MSRV.)
    #[allow(unused_unsafe)]
    let (vendor, eax) = unsafe { (__cpuid(0), __cpuid(1).eax) };
    let amd = [vendor.ebx, vendor.edx, vendor.ecx]
        == [*b"Auth", *b"enti", *b"cAMD"].map(u32::from_le_bytes);
    // The family as CPUID leaf 1 spells it: base, plus extended past 0xF.
    let base = (eax >> 8) & 0xf;
    let family = if base == 0xf {
        base + ((eax >> 20) & 0xff)
    } else {
        base
    };
    amd && family >= 0x1a
}

/// [`Kernel::SoftWide`]'s compression: each lane of the groups of 16 that
/// cover `used`, one at a time with the `soft` backend, then the block of
/// the words `last`, if given. Lanes from `used` on get a scrambled state:
/// the contract says they hold garbage, and a caller that relied on them
/// must fail.
///
/// # Safety
///
/// For each `i < used.next_multiple_of(16)`, `ptrs[i]` is valid for reads
/// of `blocks * 64` bytes.
#[cfg(test)]
unsafe fn soft_wide(
    state: &mut Soa,
    ptrs: &Ptrs,
    blocks: usize,
    used: usize,
    last: Option<&[u32; 16]>,
) {
    let mut tail = [0u8; 64];
    for (b, w) in tail.chunks_exact_mut(4).zip(last.into_iter().flatten()) {
        b.copy_from_slice(&w.to_le_bytes());
    }
    for (lane, p) in ptrs.iter().enumerate().take(used.next_multiple_of(16)) {
        // SAFETY: the caller vouches for `blocks * 64` readable bytes at
        // this lane's pointer; `[u8; 64]` has alignment 1.
        let data = unsafe { core::slice::from_raw_parts(p.cast::<[u8; 64]>(), blocks) };
        let mut s = state.get(lane);
        crate::compress::soft::compress(&mut s, data);
        if last.is_some() {
            crate::compress::soft::compress(&mut s, &[tail]);
        }
        if lane >= used {
            s = s.map(|x| !x ^ 0x5a5a_5a5a);
        }
        state.set(lane, s);
    }
}
