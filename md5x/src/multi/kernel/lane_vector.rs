//! The lane vector: what the generic kernel body ([`super::body`]) needs
//! from a SIMD register of 32-bit lanes, one message per lane. Each ISA
//! implements it once, written out by hand (`sse2.rs`, `avx2.rs`,
//! `avx512.rs`, `neon.rs`); an ISA's own tricks are its overrides of the
//! provided methods. SSE2 and AVX2, which lack a rotate instruction, share
//! the rotations and block loads of [`X86`].
//!
//! A value of an implementing type exists only where the CPU has the ISA:
//! the constructors ([`splat`](LaneVector::splat), the loads) are `unsafe`
//! and their callers vouch for it. The operations on values are safe, since
//! a value proves the ISA is there.

/// Immediates of [`LaneVector::logic`], in the encoding of AVX-512's
/// `vpternlogd`: bit `4a + 2b + c` of the immediate is the result for input
/// bits `a`, `b`, `c`. MD5's four round functions of `(b, c, d)`:
/// `F = (b & c) | (!b & d)`.
pub(super) const F: i32 = 0xca;
/// `G = (b & d) | (c & !d)`.
pub(super) const G: i32 = 0xe4;
/// `H = b ^ c ^ d`.
pub(super) const H: i32 = 0x96;
/// `I = c ^ (b | !d)`.
pub(super) const I: i32 = 0x39;

/// The `opaque(x)` function of an ISA's module, behind its
/// [`LaneVector::opaque`]: `x` through an empty `asm!` block naming its
/// register (class `$class`, operand template `$template`). A function of
/// its own, with the target feature `$feature`, because the register class
/// needs the feature, which a trait method cannot enable.
macro_rules! opaque_fn {
    ($ty:ty, $class:ident, $feature:literal, $template:literal) => {
        /// `x`, hidden from the optimiser: see [`LaneVector::opaque`].
        #[cfg(not(miri))]
        #[target_feature(enable = $feature)]
        #[inline]
        fn opaque(mut x: $ty) -> $ty {
            // SAFETY: the template is a comment; the block only names `x`'s
            // register and changes no memory, flags or stack.
            unsafe {
                core::arch::asm!(
                    $template,
                    inout($class) x,
                    options(pure, nomem, nostack, preserves_flags)
                )
            };
            x
        }
    };
}

/// A SIMD register of [`LANES`](LaneVector::LANES) 32-bit lanes.
///
/// Every method is `#[inline(always)]` in every impl: the body is inlined
/// into the ISA's `#[target_feature]` entry point, and the methods must be
/// too, or they would run without the feature, as calls.
pub(super) trait LaneVector: Copy {
    /// 32-bit lanes in one vector: messages per group.
    const LANES: usize;

    /// Whether the body computes `t + I(b, c, d)` as `t - (c ^ (!b & d))`
    /// with 1 taken off round 4's constants: `!x = -x - 1` turns `I`'s
    /// `not`, `or`, `xor` and `add` into `andnot`, `xor` and `sub`, one
    /// operation fewer and no all-ones register. For ISAs without an
    /// or-not or a ternary-logic instruction, whose `I` takes three.
    const I_BY_SUB: bool = false;

    /// Whether the body loads the next block's words while it steps the
    /// current one (`body.rs`, `NextBlock`), rather than at the block's
    /// start. For ISAs with the registers to spare, where it was measured
    /// to pay (not SSE2's sixteen, which lost to it; NEON was not
    /// measured).
    const LOADS_AHEAD: bool = false;

    /// Every lane `x`.
    ///
    /// # Safety
    ///
    /// The CPU has the ISA of `Self`.
    unsafe fn splat(x: u32) -> Self;

    /// `LANES` words from `src`, lane `j` from `src[j]`.
    ///
    /// # Safety
    ///
    /// The CPU has the ISA of `Self`, and `src` is valid for reads of
    /// `LANES` words (any alignment).
    unsafe fn load(src: *const u32) -> Self;

    /// Writes lane `j` to `dst[j]`, for `j < LANES`.
    ///
    /// # Panics
    ///
    /// If `dst` is shorter than `LANES` words.
    fn store(self, dst: &mut [u32]);

    /// The 64-byte block at `ptrs[j] + off` of each lane `j < LANES`,
    /// word-major: entry `w` holds message word `w` (little-endian) of every
    /// lane. Plain loads and a transposition; no gathers.
    ///
    /// # Safety
    ///
    /// The CPU has the ISA of `Self`; `ptrs` has at least `LANES` entries,
    /// and each `ptrs[j]` is valid for reads of `off + 64` bytes.
    unsafe fn load_block(ptrs: &[*const u8], off: usize) -> [Self; 16];

    /// Whether the lane vector has [`LaneVector::load_line`], so that the
    /// body can read blocks that start inside a cache line as whole
    /// aligned lines (`lines.rs`).
    const LOADS_LINES: bool = false;

    /// The words `keep` selects (bit `w`, word `w`; the others 0) of the 64
    /// bytes `back` bytes before `ptrs[j] + at`, for each lane `j <
    /// LANES`, word-major as [`LaneVector::load_block`]. Nothing outside
    /// the selected words is read.
    ///
    /// # Safety
    ///
    /// The CPU has the ISA of `Self`, [`LaneVector::LOADS_LINES`] is true,
    /// `ptrs` has at least `LANES` entries, and the selected words are
    /// readable at each of them.
    #[inline(always)]
    unsafe fn load_line(ptrs: &[*const u8], at: usize, back: usize, keep: u16) -> [Self; 16] {
        let _ = (ptrs, at, back, keep);
        unreachable!("only lane vectors with LOADS_LINES load lines")
    }

    /// Lane 0.
    fn first(self) -> u32;

    /// Lane-wise wrapping `self + other`.
    fn add(self, other: Self) -> Self;
    /// Lane-wise wrapping `self - other`.
    fn sub(self, other: Self) -> Self;
    /// `self & other`.
    fn and(self, other: Self) -> Self;
    /// `!self & other`, x86's operand order.
    fn andnot(self, other: Self) -> Self;
    /// `self | other`.
    fn or(self, other: Self) -> Self;
    /// `self ^ other`.
    fn xor(self, other: Self) -> Self;

    /// Rotation left by `L` bits, `R = 32 - L` (a const argument cannot be
    /// computed from another one on stable Rust, so the caller passes both).
    fn rotl<const L: i32, const R: i32>(self) -> Self;

    /// The three-input bitwise function with truth table `IMM` (see [`F`]),
    /// of `(a, b, c)`. The default computes MD5's four with two-input ops;
    /// an ISA with a ternary-logic instruction overrides it with one.
    #[inline(always)]
    fn logic<const IMM: i32>(a: Self, b: Self, c: Self) -> Self {
        match IMM {
            // c ^ (a & (b ^ c)): two ops on the chain of `a` fewer than
            // (a & b) | (!a & c) needs.
            F => c.xor(a.and(b.xor(c))),
            // (a & c) | (!c & b); the halves share no set bit.
            G => c.andnot(b).or(a.and(c)),
            H => a.xor(b).xor(c),
            I => b.xor(a.or(c.not())),
            _ => unreachable!("LaneVector::logic: no default for {IMM:#x}"),
        }
    }

    /// `!self`.
    #[inline(always)]
    fn not(self) -> Self {
        // SAFETY: `self` exists, so the CPU has the ISA.
        self.xor(unsafe { Self::splat(u32::MAX) })
    }

    /// Hides the value from the optimiser, so that it cannot reassociate a
    /// sum across it: what was added before does not wait for `b`, and LLVM
    /// otherwise moves the round constant's add after `F`, onto the chain.
    /// An ISA overrides it with an empty `asm!` block; the default (and
    /// every override under Miri, which runs no inline asm) is the value
    /// itself, which only changes the schedule.
    #[inline(always)]
    fn opaque(self) -> Self {
        self
    }

    /// `t + G(b, c, d)`. The default adds G's two halves one at a time,
    /// `(t + (c & !d)) + (b & d)`, which is exact because they share no set
    /// bit: the half without `b` joins the sum before `b` is ready, leaving
    /// one `and` and one `add` on the chain. An ISA whose `G` is one
    /// instruction adds it at once.
    #[inline(always)]
    fn add_g(t: Self, b: Self, c: Self, d: Self) -> Self {
        t.add(d.andnot(c)).opaque().add(b.and(d))
    }

    /// `b + rotl(t, L)`, `R = 32 - L`.
    #[inline(always)]
    fn add_rotl<const L: i32, const R: i32>(t: Self, b: Self) -> Self {
        b.add(t.rotl::<L, R>())
    }
}

/// What the x86 lane vectors without a rotate instruction (SSE2, AVX2)
/// build their rotations and message loads from: shifts, the unpacks of
/// 32- and 64-bit elements within each 128-bit half, and a row of four
/// words per 128-bit half.
#[cfg(md5_sse2)]
pub(super) trait X86: LaneVector {
    /// Lane-wise `self << S`.
    fn shl<const S: i32>(self) -> Self;
    /// Lane-wise `self >> S` (logical).
    fn shr<const S: i32>(self) -> Self;
    /// Per 128-bit half, the low elements of `self` and `other`
    /// interleaved: `vpunpckldq`.
    fn unpacklo32(self, other: Self) -> Self;
    /// The high ones: `vpunpckhdq`.
    fn unpackhi32(self, other: Self) -> Self;
    /// `vpunpcklqdq`.
    fn unpacklo64(self, other: Self) -> Self;
    /// `vpunpckhqdq`.
    fn unpackhi64(self, other: Self) -> Self;

    /// Row `j` of quarter `q` of a block: 128-bit half `h` holds words
    /// `4q..4q + 4` of lane `j + 4h`, read at `ptrs[j + 4h] + at`.
    ///
    /// # Safety
    ///
    /// The CPU has the ISA; each of those pointers is valid for reads of
    /// `at + 16` bytes.
    unsafe fn row(ptrs: &[*const u8], j: usize, at: usize) -> Self;

    /// [`LaneVector::load_block`]: per quarter of the block, one 16-byte
    /// load per lane (no gathers) and a 4 × 4 transpose within each
    /// 128-bit half.
    ///
    /// # Safety
    ///
    /// As for [`LaneVector::load_block`].
    #[inline(always)]
    unsafe fn load_block_by_rows(ptrs: &[*const u8], off: usize) -> [Self; 16] {
        // SAFETY: the caller vouches for the ISA.
        let mut m = [unsafe { Self::splat(0) }; 16];
        for q in 0..4 {
            // A loop, not `array::from_fn`, whose closure might not be
            // inlined and run without the ISA's target feature.
            let mut r = [m[0]; 4];
            for (j, r) in r.iter_mut().enumerate() {
                // SAFETY: bytes `off + 16 * q ..+ 16` lie within the `off +
                // 64` the caller vouches for, at each of the `LANES`
                // pointers.
                *r = unsafe { Self::row(ptrs, j, off + 16 * q) };
            }
            m[4 * q..4 * q + 4].copy_from_slice(&Self::transpose4(r));
        }
        m
    }

    /// Within each 128-bit half, the 4 × 4 transpose of the words of `r`:
    /// word `i` of result `j` is word `j` of `r[i]`.
    #[inline(always)]
    fn transpose4(r: [Self; 4]) -> [Self; 4] {
        let (t0, t1) = (r[0].unpacklo32(r[1]), r[0].unpackhi32(r[1]));
        let (t2, t3) = (r[2].unpacklo32(r[3]), r[2].unpackhi32(r[3]));
        [
            t0.unpacklo64(t2),
            t0.unpackhi64(t2),
            t1.unpacklo64(t3),
            t1.unpackhi64(t3),
        ]
    }

    /// [`LaneVector::rotl`] as two shifts and an `|`.
    #[inline(always)]
    fn rotl_by_shifts<const L: i32, const R: i32>(self) -> Self {
        self.shl::<L>().or(self.shr::<R>())
    }

    /// [`LaneVector::add_rotl`] as two shifts: the shifted halves share no
    /// set bit, so the rotation's `|` is a `+`, and `b` joins the first
    /// half while the second shift is still waiting (the two often issue a
    /// cycle apart, and an `|` of both would wait for the later one). The
    /// barrier stops LLVM from folding the halves back into a rotation.
    #[inline(always)]
    fn add_rotl_by_shifts<const L: i32, const R: i32>(t: Self, b: Self) -> Self {
        b.add(t.shl::<L>()).opaque().add(t.shr::<R>())
    }

    /// `b + rotl(t, 16)`; by shifts unless the ISA has better.
    #[inline(always)]
    fn add_rotl16(t: Self, b: Self) -> Self {
        Self::add_rotl_by_shifts::<16, 16>(t, b)
    }
}
