//! aarch64 NEON lane vector: four 32-bit lanes of a `uint32x4_t`, and the
//! kernel's entry points. NEON is part of every little-endian aarch64
//! target with SIMD registers.
//!
//! Its own tricks: bit select computes MD5's `F` and `G` in one
//! instruction, or-not makes `I` two, and shift plus shift-right-and-insert
//! makes a rotation in two.

use super::lane_vector::{self, LaneVector};
use core::arch::aarch64::*;

/// Four lanes. This module is built only where the target enables NEON
/// (`md5_neon`, see `build.rs`), so every CPU running it has NEON: that is
/// the whole safety argument of the register intrinsics below.
#[derive(Clone, Copy)]
pub(super) struct V4(uint32x4_t);

/// The 16 bytes at `p + at`, as four little-endian words (the target is
/// little-endian).
///
/// # Safety
///
/// Bytes `p + at ..+ 16` are readable.
#[inline(always)]
unsafe fn load16(p: *const u8, at: usize) -> uint32x4_t {
    // SAFETY: NEON is baseline here; the load reads the 16 bytes at `p +
    // at`, which the caller vouches for, and byte loads need no alignment.
    unsafe { vreinterpretq_u32_u8(vld1q_u8(p.add(at))) }
}

impl LaneVector for V4 {
    const LANES: usize = 4;

    #[inline(always)]
    unsafe fn splat(x: u32) -> Self {
        // SAFETY: NEON is baseline here.
        Self(unsafe { vdupq_n_u32(x) })
    }

    #[inline(always)]
    unsafe fn load(src: *const u32) -> Self {
        // SAFETY: NEON is baseline here; the caller vouches for the 16
        // bytes (4 words) at `src`, and `vld1q_u32` needs only the element
        // alignment, which a `*const u32` has.
        Self(unsafe { vld1q_u32(src) })
    }

    #[inline(always)]
    fn store(self, dst: &mut [u32]) {
        let dst = &mut dst[..4];
        // SAFETY: NEON is baseline here; the store writes the 16 bytes of
        // `dst`.
        unsafe { vst1q_u32(dst.as_mut_ptr(), self.0) }
    }

    #[inline(always)]
    unsafe fn load_block(ptrs: &[*const u8], off: usize) -> [Self; 16] {
        let p = &ptrs[..4];
        // SAFETY: NEON is baseline here.
        let mut m = [V4(unsafe { vdupq_n_u32(0) }); 16];
        for q in 0..4 {
            // Row `j`: words `4q..4q + 4` of lane `j`.
            let mut r = [m[0].0; 4];
            for (j, r) in r.iter_mut().enumerate() {
                // SAFETY: bytes `off + 16 * q ..+ 16` lie within the `off +
                // 64` the caller vouches for at `p[j]`.
                *r = unsafe { load16(p[j], off + 16 * q) };
            }
            // Transpose: t0 = r0w0 r1w0 r0w2 r1w2, t1 = r0w1 r1w1 r0w3 r1w3,
            // likewise t2, t3 of r2, r3; result `w` holds word `4q + w`.
            // SAFETY: NEON is baseline here; register operations only.
            unsafe {
                let t0 = vreinterpretq_u64_u32(vtrn1q_u32(r[0], r[1]));
                let t1 = vreinterpretq_u64_u32(vtrn2q_u32(r[0], r[1]));
                let t2 = vreinterpretq_u64_u32(vtrn1q_u32(r[2], r[3]));
                let t3 = vreinterpretq_u64_u32(vtrn2q_u32(r[2], r[3]));
                m[4 * q] = V4(vreinterpretq_u32_u64(vtrn1q_u64(t0, t2)));
                m[4 * q + 1] = V4(vreinterpretq_u32_u64(vtrn1q_u64(t1, t3)));
                m[4 * q + 2] = V4(vreinterpretq_u32_u64(vtrn2q_u64(t0, t2)));
                m[4 * q + 3] = V4(vreinterpretq_u32_u64(vtrn2q_u64(t1, t3)));
            }
        }
        m
    }

    #[inline(always)]
    fn first(self) -> u32 {
        // SAFETY: NEON is baseline here.
        unsafe { vgetq_lane_u32::<0>(self.0) }
    }

    #[inline(always)]
    fn add(self, other: Self) -> Self {
        // SAFETY: NEON is baseline here.
        Self(unsafe { vaddq_u32(self.0, other.0) })
    }

    #[inline(always)]
    fn sub(self, other: Self) -> Self {
        // SAFETY: NEON is baseline here.
        Self(unsafe { vsubq_u32(self.0, other.0) })
    }

    #[inline(always)]
    fn and(self, other: Self) -> Self {
        // SAFETY: NEON is baseline here.
        Self(unsafe { vandq_u32(self.0, other.0) })
    }

    #[inline(always)]
    fn andnot(self, other: Self) -> Self {
        // SAFETY: NEON is baseline here. BIC computes `other & !self`.
        Self(unsafe { vbicq_u32(other.0, self.0) })
    }

    #[inline(always)]
    fn or(self, other: Self) -> Self {
        // SAFETY: NEON is baseline here.
        Self(unsafe { vorrq_u32(self.0, other.0) })
    }

    #[inline(always)]
    fn xor(self, other: Self) -> Self {
        // SAFETY: NEON is baseline here.
        Self(unsafe { veorq_u32(self.0, other.0) })
    }

    #[inline(always)]
    fn rotl<const L: i32, const R: i32>(self) -> Self {
        // SAFETY: NEON is baseline here.
        Self(unsafe { vsriq_n_u32::<R>(vshlq_n_u32::<L>(self.0), self.0) })
    }

    #[inline(always)]
    fn logic<const IMM: i32>(a: Self, b: Self, c: Self) -> Self {
        match IMM {
            // (a & b) | (!a & c) is a bit select on a.
            // SAFETY: NEON is baseline here.
            lane_vector::F => Self(unsafe { vbslq_u32(a.0, b.0, c.0) }),
            // (a & c) | (b & !c) is a bit select on c.
            // SAFETY: NEON is baseline here.
            lane_vector::G => Self(unsafe { vbslq_u32(c.0, a.0, b.0) }),
            lane_vector::H => a.xor(b).xor(c),
            // b ^ (a | !c), with or-not.
            // SAFETY: NEON is baseline here.
            lane_vector::I => Self(unsafe { veorq_u32(b.0, vornq_u32(a.0, c.0)) }),
            _ => unreachable!("neon::V4::logic: no form for {IMM:#x}"),
        }
    }

    /// `G` is one bit select: add it at once, like the others.
    #[inline(always)]
    fn add_g(t: Self, b: Self, c: Self, d: Self) -> Self {
        t.opaque().add(Self::logic::<{ lane_vector::G }>(b, c, d))
    }

    #[cfg(not(miri))]
    #[inline(always)]
    fn opaque(self) -> Self {
        // SAFETY: NEON is baseline here.
        Self(unsafe { opaque(self.0) })
    }
}

entry_points!(V4, "neon");

opaque_fn!(uint32x4_t, vreg, "neon", "/* {0:v} */");
