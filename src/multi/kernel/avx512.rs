//! x86_64 AVX-512 lane vector: sixteen 32-bit lanes of an `__m512i`, the
//! kernel's `#[target_feature(enable = "avx512f,avx512vl")]` entry points,
//! and the rule for how many groups a CPU runs. Chosen at run time, ahead
//! of AVX2, when the CPU has AVX-512F and VL.
//!
//! Its own tricks: each step's `F`, `G`, `H` or `I` is one `vpternlogd`
//! (`G` included, added at once) and each rotation one `vprold`, so a step
//! is four dependent operations (logic, add, rotate, add) and about six
//! vector instructions per group. Messages are read with one plain 64-byte
//! load per lane and block and transposed with `vpunpck*` and `vshufi32x4`
//! (64 shuffles for 16 lanes); no gathers.
//!
//! It is built for up to four groups (64 lanes) and runs two or four at
//! full width, by CPU ([`groups`]). The 32 `zmm` registers hold four
//! groups' state and temporaries, the message words being read from the
//! stack as memory operands.

use super::lane_vector::{self, LaneVector};
use core::arch::x86_64::*;
use core::sync::atomic::{AtomicUsize, Ordering::Relaxed};

cpufeatures::new!(avx512_cpuid, "avx512f", "avx512vl");

/// Whether the CPU has AVX-512F and VL; `cpufeatures` also checks that the
/// OS saves the opmask and `zmm` registers (XCR0). Miri cannot execute
/// CPUID; there the build's target features decide.
pub(super) fn detected() -> bool {
    if cfg!(miri) {
        cfg!(all(target_feature = "avx512f", target_feature = "avx512vl"))
    } else {
        avx512_cpuid::get()
    }
}

/// Interleaved groups at full width on this CPU: two, or four on AMD Zen 5
/// and later.
///
/// Where vector integer ops take one cycle (Intel), a step's chain (logic,
/// add, rotate, add) is about 4 cycles, and two groups fill the two
/// 512-bit pipes; more only spill. Zen 5 (family 0x1A) takes two cycles an
/// op and has four pipes, so it needs about twice the steps in flight:
/// four groups, as measured there.
///
/// Measured (benches/RESULTS.md, "Interleaved groups"; `cargo bench
/// --bench multi -- groups raw` prints both tables for the CPU at hand):
///
/// * Intel Xeon, family 6 model 207 (Sapphire Rapids class): the raw
///   kernel 7.40 / 5.66 / 5.78 / 6.11 ns a lane-block at 1 / 2 / 3 / 4
///   groups; through the scheduler, 3 and 4 groups at 0.87–0.96 of two on
///   64 × 64 KiB, 64 × 1 KiB and mixed batches, 1.03–1.05 on 1000 × 64 B
///   (within the noise of a shared VM). Two.
/// * Intel Xeon, family 6 model 167 (another host of that class): the
///   raw kernel 5.79 / 4.69 / 4.81 / 5.01 ns; through the scheduler, 3
///   and 4 groups at 0.89 / 0.74 of two on 64 × 64 KiB, 0.90 / 0.96 on 64
///   × 1 KiB, 0.91–0.95 on the mixed batches, 1.06 / 1.05 on 1000 × 64 B
///   (which [`short_groups`] takes). Two.
/// * AMD Zen 4, family 0x19 model 0x11 (the only family 0x19 with
///   AVX-512): the raw kernel 7.33 / 5.63 / 5.73 / 5.82 ns; through the
///   scheduler, 3 and 4 groups at 0.85 / 0.92 of two on 64 × 64 KiB and
///   0.92–0.99 on the mixed batches, but 1.14–1.16 on 1000 × 64 B. Two,
///   and three for sets of short messages ([`short_groups`]).
/// * AMD Zen 5, family 0x1A model 2: the raw kernel 8.54 / 4.44 / 3.73 /
///   3.35 ns; through the scheduler, 2 and 3 groups at 0.87 / 0.80 of four
///   on 64 × 64 KiB, 0.71 / 0.64 on 64 × 1 KiB, 0.72 / 0.96 on 1000 × 64 B,
///   0.92–1.03 on the mixed batches. With each block loaded a round ahead
///   (`body.rs`, `NextBlock`), 8.54 / 4.37 / 3.15 / 2.69 ns, and 0.81 /
///   0.76, 0.66 / 0.63, 0.64 / 0.85 and 0.86–1.02. Four, for batches that
///   stay in the caches; those that stream from memory take
///   [`memory_groups`].
///
/// The override: `md5::multi::__bench::set_avx512_groups(n)` (1 to 4) makes
/// every scheduler and `Lanes` made after it run `n` groups in this
/// process, in short sets too, for measuring (0 restores the rule); a
/// hidden hook, not an API.
pub(crate) fn groups() -> usize {
    read(&GROUPS)
}

/// Interleaved groups for a set of short messages hashed at once (at most
/// four blocks each with padding: `scheduler/sets.rs`, `buckets.rs`) and
/// copied into lane buffers, or equal 64-byte ones: three, or four on
/// Zen 5 (as [`groups`]). (Rows built in registers, `avx512_rows.rs`, run
/// at [`groups`]: at three they ran 6% slower on Zen 4.)
///
/// Such a set costs a fixed amount outside the kernel (its start state,
/// its lanes' pointers, its calls), which more lanes share; that outweighs
/// the third group's spills, on long messages not (their sets run lane by
/// lane, at [`groups`]). Measured through the scheduler, three groups
/// against two (benches/RESULTS.md, "Interleaved groups"):
///
/// * AMD Zen 4 (family 0x19 model 0x11): 1000 × 64 B 1.16×, 64 × 64 KiB
///   0.85×, the 600 mixed 0.94×, and 1M rows of 32 B, 8–64 B and 0–200 B
///   3–8% faster.
/// * Intel Xeon (family 6 model 167), one process switching between the
///   two: 1000 × 64 B 1.05×, 1M × 64 B 1.01×, 100 × 64 B 1.04×; copied
///   sets (rows of 8–50 B with a suffix, with a prefix) 1.01× and 1.08×.
///   (Model 207 read 1.03–1.06× on 1000 × 64 B, then put down to noise.)
///   Four groups there: 1000 × 64 B 0.99× of three.
///
/// `scheduler/sets.rs` takes a set this wide only where what is left
/// after it is none or more than a group: 64 messages at three groups
/// would be 48 and a lone group of 16, which ran 0.92× of 32 and 32.
/// [`set_groups`] sets both counts.
pub(crate) fn short_groups() -> usize {
    read(&SHORT_GROUPS)
}

/// Interleaved groups at full width for a batch of long messages too large
/// to lie in the caches (`scheduler::streams_from_memory`): two on AMD Zen
/// 5, as many as [`groups`] elsewhere.
///
/// Each lane reads its own stream, and from memory Zen 5 keeps 32 of them
/// fed, not 64. Measured there (family 0x1A model 2, 2 vCPUs, 32 MiB L3),
/// `digest_many_into` over messages 320 bytes apart, best of five rounds,
/// four groups' throughput over two's: 64 × 64 KiB 1.16, 128 × 64 KiB
/// 1.13, 64 × 128 KiB 1.07; but 64 × 256 KiB 0.73, 128 × 128 KiB 0.81,
/// 256 × 64 KiB 0.60, 16,384 × 4 KiB 0.79, 64 × 1 to 4 MiB 0.53–0.55, 128
/// × 7 MiB 0.51 (5.8 against 11.2 GB/s; md5-many's 16 lanes 10.5). With
/// each lane's line asked for 512 bytes ahead, four groups still read only
/// 0.79–0.88 of two on 64 × 1 MiB and up (benches/RESULTS.md, "Interleaved
/// groups").
pub(crate) fn memory_groups() -> usize {
    read(&MEMORY_GROUPS)
}

/// Whether a call of at most `avx512_ymm::MOST_LANES` (24) busy lanes
/// runs on `ymm` registers (`avx512_ymm.rs`): on AMD Zen 4, where 8 × 64
/// KiB ran at 6.3× the single stream through the AVX2 kernel and 5.7×
/// through one 512-bit group, and 24 × 64 KiB 23% faster as three `ymm`
/// groups than as two 512-bit ones (benches/RESULTS.md). Not on Intel,
/// where the 512-bit kernel led on 8 × 64 KiB (its `vprold` takes a
/// cycle), nor on Zen 5, whose vector ops take two cycles at every width;
/// neither measured with the `ymm` body.
pub(crate) fn narrow() -> bool {
    zen4()
}

/// Whether the CPU is an AMD of family 0x19 with AVX-512: Zen 4.
fn zen4() -> bool {
    read(&ZEN4) == 2
}

/// `cell`'s answer, CPUID read first if it has none yet (0).
#[inline]
fn read(cell: &AtomicUsize) -> usize {
    match cell.load(Relaxed) {
        0 => {
            read_cpu();
            cell.load(Relaxed)
        }
        answer => answer,
    }
}

/// [`groups`]', [`short_groups`]' and [`memory_groups`]' answers, 0 until
/// CPUID is read or [`set_groups`] sets them; the rule's three, `groups |
/// short << 8 | memory << 16`, for
/// [`set_groups`] to restore; [`zen4`]'s and [`amd`]'s, 0 until CPUID is
/// read, then 1 (no) or 2 (yes).
static GROUPS: AtomicUsize = AtomicUsize::new(0);
static SHORT_GROUPS: AtomicUsize = AtomicUsize::new(0);
static MEMORY_GROUPS: AtomicUsize = AtomicUsize::new(0);
static RULE: AtomicUsize = AtomicUsize::new(0);
static ZEN4: AtomicUsize = AtomicUsize::new(0);
static AMD: AtomicUsize = AtomicUsize::new(0);

/// The rule for this CPU, into the counts [`set_groups`] has not set.
fn read_cpu() {
    let family = amd_family();
    let (groups, short, memory, zen4) = match family {
        Some(family) if family >= 0x1a => (4, 4, 2, false),
        Some(0x19) => (2, 3, 2, true),
        _ => (2, 3, 2, false),
    };
    RULE.store(groups | short << 8 | memory << 16, Relaxed);
    let _ = GROUPS.compare_exchange(0, groups, Relaxed, Relaxed);
    let _ = SHORT_GROUPS.compare_exchange(0, short, Relaxed, Relaxed);
    let _ = MEMORY_GROUPS.compare_exchange(0, memory, Relaxed, Relaxed);
    ZEN4.store(1 + usize::from(zen4), Relaxed);
    AMD.store(1 + usize::from(family.is_some()), Relaxed);
}

/// Whether the CPU is an AMD (any family), from the same cached CPUID read
/// as the group rule: for the AVX2 kernel's stagger rule
/// (`avx2::staggers`) and the AVX-512 body's prefetches.
pub(super) fn amd() -> bool {
    read(&AMD) == 2
}

/// Makes [`groups`], [`short_groups`] and [`memory_groups`] answer
/// `groups` from now on, whatever the CPU: so that one machine can run the
/// scheduler at every AVX-512 width; 0, the rule's answers again. The caller,
/// `__bench::set_avx512_groups`, checks that the kernel is built for it.
pub(crate) fn set_groups(groups: usize) {
    let (groups, short, memory) = match groups {
        0 => {
            let rule = read(&RULE);
            (rule & 0xff, rule >> 8 & 0xff, rule >> 16)
        }
        _ => (groups, groups, groups),
    };
    SHORT_GROUPS.store(short, Relaxed);
    MEMORY_GROUPS.store(memory, Relaxed);
    GROUPS.store(groups, Relaxed);
}

/// The CPU's family if it is an AMD, as CPUID leaf 1 spells it (base, plus
/// extended past 0xF): 0x19 for Zen 3 and Zen 4, 0x1A for Zen 5. Miri,
/// which cannot execute CPUID, gets Zen 5's, the widest kernel.
fn amd_family() -> Option<u32> {
    if cfg!(miri) {
        return Some(0x1a);
    }
    // SAFETY: every x86_64 CPU has CPUID and its leaves 0 and 1. (Safe to
    // call on newer compilers, `unsafe` on the MSRV.)
    #[allow(unused_unsafe)]
    let (vendor, eax) = unsafe { (__cpuid(0), __cpuid(1).eax) };
    let amd = [vendor.ebx, vendor.edx, vendor.ecx]
        == [*b"Auth", *b"enti", *b"cAMD"].map(u32::from_le_bytes);
    let base = (eax >> 8) & 0xf;
    let family = if base == 0xf {
        base + ((eax >> 20) & 0xff)
    } else {
        base
    };
    amd.then_some(family)
}

/// Sixteen lanes. A value exists only where the CPU has AVX-512F and VL:
/// the unsafe constructors' callers vouch for it, and every method that
/// takes a `V16` relies on it.
#[derive(Clone, Copy)]
pub(super) struct V16(pub(super) __m512i);

/// The 64 bytes at `p + at`.
///
/// # Safety
///
/// The CPU has AVX-512F, and bytes `p + at ..+ 64` are readable.
#[inline(always)]
unsafe fn load64(p: *const u8, at: usize) -> __m512i {
    // SAFETY: the caller vouches for AVX-512F and for the 64 bytes at `p +
    // at`; `loadu` needs no alignment.
    unsafe { _mm512_loadu_si512(p.add(at).cast()) }
}

/// Transposes a 16 × 16 matrix of 32-bit words: `r[j]` holds words `0..16`
/// of lane `j`; the result's entry `w` holds word `w` of lanes `0..16`.
#[inline(always)]
pub(super) fn transpose16(r: [V16; 16]) -> [V16; 16] {
    // SAFETY: `r` proves AVX-512F; register operations only.
    unsafe {
        // Within each 128-bit chunk `c`, a 4 × 4 transpose of each four
        // lanes: `u[4 * l + i]` chunk `c` = word `4 * c + i` of lanes
        // `4 * l .. 4 * l + 4`.
        let mut u = [_mm512_setzero_si512(); 16];
        for l in 0..4 {
            let (r0, r1, r2, r3) = (r[4 * l].0, r[4 * l + 1].0, r[4 * l + 2].0, r[4 * l + 3].0);
            let t0 = _mm512_unpacklo_epi32(r0, r1);
            let t1 = _mm512_unpackhi_epi32(r0, r1);
            let t2 = _mm512_unpacklo_epi32(r2, r3);
            let t3 = _mm512_unpackhi_epi32(r2, r3);
            u[4 * l] = _mm512_unpacklo_epi64(t0, t2);
            u[4 * l + 1] = _mm512_unpackhi_epi64(t0, t2);
            u[4 * l + 2] = _mm512_unpacklo_epi64(t1, t3);
            u[4 * l + 3] = _mm512_unpackhi_epi64(t1, t3);
        }
        // Then a 4 × 4 transpose of 128-bit chunks: chunk `l` of word
        // `4 * c + i` is chunk `c` of `u[4 * l + i]`.
        let mut m = [V16(_mm512_setzero_si512()); 16];
        for i in 0..4 {
            let x0 = _mm512_shuffle_i32x4::<0x44>(u[i], u[4 + i]);
            let x1 = _mm512_shuffle_i32x4::<0xEE>(u[i], u[4 + i]);
            let x2 = _mm512_shuffle_i32x4::<0x44>(u[8 + i], u[12 + i]);
            let x3 = _mm512_shuffle_i32x4::<0xEE>(u[8 + i], u[12 + i]);
            m[i] = V16(_mm512_shuffle_i32x4::<0x88>(x0, x2));
            m[4 + i] = V16(_mm512_shuffle_i32x4::<0xDD>(x0, x2));
            m[8 + i] = V16(_mm512_shuffle_i32x4::<0x88>(x1, x3));
            m[12 + i] = V16(_mm512_shuffle_i32x4::<0xDD>(x1, x3));
        }
        m
    }
}

impl LaneVector for V16 {
    const LANES: usize = 16;

    /// Measured on Zen 5 (see `body.rs`, `NextBlock`).
    const LOADS_AHEAD: bool = true;

    /// 512 bytes on AMD, as AVX2's: on Zen 5 (family 0x1A model 2), 128
    /// messages of 8 MiB back to back (an ETag's parts) ran at 11.3-12.9
    /// GB/s with it, 7.1-8.9 without (two builds alternating, three runs
    /// each, `md5::etag::multipart` and `digest_many_into`). Not on
    /// Intel, where it was not measured.
    #[inline(always)]
    fn prefetch_ahead() -> usize {
        if amd() {
            512
        } else {
            0
        }
    }

    #[inline(always)]
    unsafe fn splat(x: u32) -> Self {
        // SAFETY: the caller vouches for AVX-512F.
        Self(unsafe { _mm512_set1_epi32(x as i32) })
    }

    #[inline(always)]
    unsafe fn load(src: *const u32) -> Self {
        // SAFETY: the caller vouches for AVX-512F and for the 64 bytes (16
        // words) at `src`.
        Self(unsafe { load64(src.cast(), 0) })
    }

    #[inline(always)]
    fn store(self, dst: &mut [u32]) {
        let dst = &mut dst[..16];
        // SAFETY: `self` proves AVX-512F; the store writes the 64 bytes of
        // `dst`, and `storeu` needs no alignment.
        unsafe { _mm512_storeu_si512(dst.as_mut_ptr().cast(), self.0) }
    }

    #[inline(always)]
    unsafe fn load_block(ptrs: &[*const u8], off: usize) -> [Self; 16] {
        // SAFETY: the caller vouches for AVX-512F.
        let mut r = [unsafe { Self::splat(0) }; 16];
        // A loop, not `array::from_fn`: a closure does not inherit the
        // entry point's target features, so the intrinsic would stay a call.
        for (r, &p) in r.iter_mut().zip(&ptrs[..16]) {
            // SAFETY: the caller vouches for AVX-512F and for `off + 64`
            // readable bytes at each of the 16 pointers: one plain load of
            // bytes `off ..+ 64` per lane.
            *r = Self(unsafe { load64(p, off) });
        }
        transpose16(r)
    }

    #[inline(always)]
    fn first(self) -> u32 {
        // SAFETY: `self` proves AVX-512F.
        unsafe { _mm_cvtsi128_si32(_mm512_castsi512_si128(self.0)) as u32 }
    }

    #[inline(always)]
    fn add(self, other: Self) -> Self {
        // SAFETY: `self` proves AVX-512F.
        Self(unsafe { _mm512_add_epi32(self.0, other.0) })
    }

    #[inline(always)]
    fn sub(self, other: Self) -> Self {
        // SAFETY: `self` proves AVX-512F.
        Self(unsafe { _mm512_sub_epi32(self.0, other.0) })
    }

    #[inline(always)]
    fn and(self, other: Self) -> Self {
        // SAFETY: `self` proves AVX-512F.
        Self(unsafe { _mm512_and_si512(self.0, other.0) })
    }

    #[inline(always)]
    fn andnot(self, other: Self) -> Self {
        // SAFETY: `self` proves AVX-512F.
        Self(unsafe { _mm512_andnot_si512(self.0, other.0) })
    }

    #[inline(always)]
    fn or(self, other: Self) -> Self {
        // SAFETY: `self` proves AVX-512F.
        Self(unsafe { _mm512_or_si512(self.0, other.0) })
    }

    #[inline(always)]
    fn xor(self, other: Self) -> Self {
        // SAFETY: `self` proves AVX-512F.
        Self(unsafe { _mm512_xor_si512(self.0, other.0) })
    }

    /// One `vprold`.
    #[inline(always)]
    fn rotl<const L: i32, const R: i32>(self) -> Self {
        // SAFETY: `self` proves AVX-512F.
        Self(unsafe { _mm512_rol_epi32::<L>(self.0) })
    }

    /// One `vpternlogd`, whose immediate is the truth table.
    #[inline(always)]
    fn logic<const IMM: i32>(a: Self, b: Self, c: Self) -> Self {
        // SAFETY: `a` proves AVX-512F.
        Self(unsafe { _mm512_ternarylogic_epi32::<IMM>(a.0, b.0, c.0) })
    }

    #[cfg(not(miri))]
    #[inline(always)]
    fn opaque(self) -> Self {
        // SAFETY: `self` proves AVX-512F.
        Self(unsafe { opaque(self.0) })
    }

    /// `G` is one `vpternlogd` like the others: nothing gains from adding
    /// its halves one at a time.
    #[inline(always)]
    fn add_g(t: Self, b: Self, c: Self, d: Self) -> Self {
        t.opaque().add(Self::logic::<{ lane_vector::G }>(b, c, d))
    }
}

entry_points!(V16, "avx512f,avx512vl");

opaque_fn!(__m512i, zmm_reg, "avx512f", "/* {0} */");
