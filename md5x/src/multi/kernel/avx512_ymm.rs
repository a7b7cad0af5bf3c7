//! x86_64 AVX-512VL on eight lanes: the AVX2 lane vector's `__m256i`,
//! loads and transposition, with AVX-512's one-instruction logic
//! (`vpternlogd`) and rotation (`vprold`) on `ymm` registers. The AVX-512
//! kernel runs it, one to three groups, for calls of at most
//! [`MOST_LANES`] busy lanes where the tuning row says (`Tuning::ymm_lanes`:
//! CPUs that run a 512-bit operation as two 256-bit halves). Few messages
//! are few dependency chains, where a step's latency decides; up to three
//! groups of eight lanes keep such a CPU's 256-bit pipes as busy as two
//! 512-bit groups, which take longer a step.

use super::avx2::V8;
use super::lane_vector::{self, LaneVector};
use core::arch::x86_64::*;

/// The most busy lanes a call runs here: three groups (four ran slower
/// than two 512-bit groups).
pub(crate) const MOST_LANES: usize = 24;

/// Eight lanes. A value exists only where the CPU has AVX-512F and VL (the
/// AVX-512 kernel's features, detected before it runs): the unsafe
/// constructors' callers vouch for it, and every method that takes a `Y8`
/// relies on it.
#[derive(Clone, Copy)]
pub(super) struct Y8(V8);

/// The lane-wise binary operations `$op`, each `V8`'s, compiled inside
/// the AVX-512VL entry point (so with all 32 vector registers at hand).
macro_rules! binary_ops_of_v8 {
    ($($op:ident),*) => {
        $(
            #[inline(always)]
            fn $op(self, other: Self) -> Self {
                Self(self.0.$op(other.0))
            }
        )*
    };
}

impl LaneVector for Y8 {
    const LANES: usize = 8;

    #[inline(always)]
    unsafe fn splat(x: u32) -> Self {
        // SAFETY: the caller vouches for AVX-512VL, which implies AVX2.
        Self(unsafe { V8::splat(x) })
    }

    #[inline(always)]
    unsafe fn load(src: *const u32) -> Self {
        // SAFETY: the caller vouches for the ISA and the 8 words at `src`.
        Self(unsafe { V8::load(src) })
    }

    #[inline(always)]
    fn store(self, dst: &mut [u32]) {
        self.0.store(dst)
    }

    #[inline(always)]
    unsafe fn load_block(ptrs: &[*const u8], off: usize) -> [Self; 16] {
        // SAFETY: the caller's contract is `V8`'s, on a CPU with more.
        let m = unsafe { V8::load_block(ptrs, off) };
        // A loop, as in `avx512::V16::load_block`.
        // SAFETY: the caller vouches for the ISA.
        let mut r = [unsafe { Self::splat(0) }; 16];
        for (r, m) in r.iter_mut().zip(m) {
            *r = Self(m);
        }
        r
    }

    #[inline(always)]
    fn first(self) -> u32 {
        self.0.first()
    }

    binary_ops_of_v8!(add, sub, and, andnot, or, xor);

    /// One `vprold`.
    #[inline(always)]
    fn rotl<const L: i32, const R: i32>(self) -> Self {
        // SAFETY: `self` proves AVX-512F and VL.
        Self(V8(unsafe { _mm256_rol_epi32::<L>(self.0 .0) }))
    }

    /// One `vpternlogd`, whose immediate is the truth table.
    #[inline(always)]
    fn logic<const IMM: i32>(a: Self, b: Self, c: Self) -> Self {
        // SAFETY: `a` proves AVX-512F and VL.
        Self(V8(unsafe {
            _mm256_ternarylogic_epi32::<IMM>(a.0 .0, b.0 .0, c.0 .0)
        }))
    }

    #[cfg(not(miri))]
    #[inline(always)]
    fn opaque(self) -> Self {
        // SAFETY: `self` proves AVX-512F and VL.
        Self(V8(unsafe { opaque(self.0 .0) }))
    }

    /// `G` is one `vpternlogd`, as in the 512-bit kernel.
    #[inline(always)]
    fn add_g(t: Self, b: Self, c: Self, d: Self) -> Self {
        t.opaque().add(Self::logic::<{ lane_vector::G }>(b, c, d))
    }
}

// Its loads and transposition are `avx2::V8`'s, measured there.
entry_points!(Y8, "avx512f,avx512vl", compress only);

opaque_fn!(__m256i, ymm_reg, "avx512f,avx512vl", "/* {0} */");

/// `compress` at the fewest groups that cover `used` lanes: what
/// `Kernel::compress` runs, and the tests call directly.
///
/// # Safety
///
/// As for `compress`, with `1 <= used <= MOST_LANES`, for the lanes of
/// those groups.
#[inline(always)]
pub(crate) unsafe fn compress_lanes(
    state: &mut crate::multi::lane_state::LaneStates,
    ptrs: &crate::multi::lane_state::BlockPtrs,
    blocks: usize,
    used: usize,
    last: Option<&[u32; 16]>,
) {
    // SAFETY: the caller's contract.
    unsafe {
        match used.div_ceil(8) {
            1 => compress::<1>(state, ptrs, blocks, last, 0, 0),
            2 => compress::<2>(state, ptrs, blocks, last, 0, 0),
            _ => compress::<3>(state, ptrs, blocks, last, 0, 0),
        }
    }
}
