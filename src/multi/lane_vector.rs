//! The lane vector: what the generic kernel body ([`super::body`]) needs
//! from a SIMD register of 32-bit lanes, one message per lane. Each ISA
//! implements it once (`sse2.rs`, `avx2.rs`, `neon.rs`); an ISA's own tricks
//! are its overrides of the provided methods.
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

/// The two-input methods of a [`LaneVector`] impl for a newtype over one
/// register, one intrinsic each, called through the ISA's `$isa!` macro
/// (which carries the safety argument): `add => _mm_add_epi32, ...`.
macro_rules! binary_ops {
    ($isa:ident; $($name:ident => $intrinsic:path),* $(,)?) => {
        $(
            #[inline(always)]
            fn $name(self, other: Self) -> Self {
                Self($isa!($intrinsic(self.0, other.0)))
            }
        )*
    };
}

/// An ISA's `opaque(x)`, for its [`LaneVector::opaque`]: `x` through an
/// empty `asm!` block naming its register (class `$class`, operand template
/// `$template`). A function of its own, with the target feature, because
/// the register class needs the feature, which trait methods cannot enable.
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

/// Runs intrinsics of an ISA that the target enables (SSE2 in `sse2.rs`,
/// NEON in `neon.rs`), in a method of that ISA's lane vector.
macro_rules! baseline {
    ($e:expr) => {
        // SAFETY: the calling module is built only where the target enables
        // its ISA (see `kernel.rs`), so every CPU running it has the ISA.
        unsafe { $e }
    };
}

/// The x86 lane vector's constructors, store and lane 0, for a newtype over
/// `__m128i` or `__m256i` of `$lanes` lanes: the intrinsics differ only in
/// name between SSE2 and AVX2.
#[cfg(target_arch = "x86_64")]
macro_rules! x86_moves {
    ($isa:ident, $lanes:literal; $set1:ident, $loadu:ident, $storeu:ident, $cvt:ident) => {
        #[inline(always)]
        unsafe fn splat(x: u32) -> Self {
            Self($isa!($set1(x as i32)))
        }

        #[inline(always)]
        unsafe fn load(src: *const u32) -> Self {
            // The caller vouches for `4 * $lanes` readable bytes; `loadu`
            // needs no alignment.
            Self($isa!($loadu(src.cast())))
        }

        #[inline(always)]
        fn store(self, dst: &mut [u32]) {
            let dst = &mut dst[..$lanes];
            // `4 * $lanes` bytes fit in `dst`; `storeu` needs no alignment.
            $isa!($storeu(dst.as_mut_ptr().cast(), self.0))
        }

        #[inline(always)]
        fn first(self) -> u32 {
            $isa!($cvt(self.0)) as u32
        }
    };
}
