//! The multi-buffer kernel body, written once: MD5's 64 steps (RFC 1321,
//! section 3.4) over `G` interleaved groups of lane vectors `V`. Each ISA
//! file instantiates it from its one `#[target_feature]` entry point.
//!
//! One group alone is bound by the latency of MD5's dependency chain (each
//! step waits on the previous `b`); independent groups, stepped in turn,
//! fill the gaps. How many pay depends on the core's vector latency and
//! register count, so `G` is a parameter, chosen per ISA in `kernel.rs`.
#![allow(clippy::many_single_char_names)]

use super::lane_vector::{LaneVector, F, H, I};
use super::{Ptrs, Soa};
use crate::consts::RC;

/// The 64 steps as calls of `$step!(op, a, b, c, d, message word, step,
/// rotation)`, rotating the roles of the caller's four state variables.
macro_rules! md5_steps {
    ($step:ident, $a:ident, $b:ident, $c:ident, $d:ident) => {
        md5_steps!(@quad $step, F, $a, $b, $c, $d, 0, [0, 1, 2, 3], [7, 12, 17, 22]);
        md5_steps!(@quad $step, F, $a, $b, $c, $d, 4, [4, 5, 6, 7], [7, 12, 17, 22]);
        md5_steps!(@quad $step, F, $a, $b, $c, $d, 8, [8, 9, 10, 11], [7, 12, 17, 22]);
        md5_steps!(@quad $step, F, $a, $b, $c, $d, 12, [12, 13, 14, 15], [7, 12, 17, 22]);
        md5_steps!(@quad $step, G, $a, $b, $c, $d, 16, [1, 6, 11, 0], [5, 9, 14, 20]);
        md5_steps!(@quad $step, G, $a, $b, $c, $d, 20, [5, 10, 15, 4], [5, 9, 14, 20]);
        md5_steps!(@quad $step, G, $a, $b, $c, $d, 24, [9, 14, 3, 8], [5, 9, 14, 20]);
        md5_steps!(@quad $step, G, $a, $b, $c, $d, 28, [13, 2, 7, 12], [5, 9, 14, 20]);
        md5_steps!(@quad $step, H, $a, $b, $c, $d, 32, [5, 8, 11, 14], [4, 11, 16, 23]);
        md5_steps!(@quad $step, H, $a, $b, $c, $d, 36, [1, 4, 7, 10], [4, 11, 16, 23]);
        md5_steps!(@quad $step, H, $a, $b, $c, $d, 40, [13, 0, 3, 6], [4, 11, 16, 23]);
        md5_steps!(@quad $step, H, $a, $b, $c, $d, 44, [9, 12, 15, 2], [4, 11, 16, 23]);
        md5_steps!(@quad $step, I, $a, $b, $c, $d, 48, [0, 7, 14, 5], [6, 10, 15, 21]);
        md5_steps!(@quad $step, I, $a, $b, $c, $d, 52, [12, 3, 10, 1], [6, 10, 15, 21]);
        md5_steps!(@quad $step, I, $a, $b, $c, $d, 56, [8, 15, 6, 13], [6, 10, 15, 21]);
        md5_steps!(@quad $step, I, $a, $b, $c, $d, 60, [4, 11, 2, 9], [6, 10, 15, 21]);
    };
    (@quad $step:ident, $op:ident, $a:ident, $b:ident, $c:ident, $d:ident, $k:expr,
        [$m0:expr, $m1:expr, $m2:expr, $m3:expr], [$s0:expr, $s1:expr, $s2:expr, $s3:expr]) => {
        $step!($op, $a, $b, $c, $d, $m0, $k, $s0);
        $step!($op, $d, $a, $b, $c, $m1, $k + 1, $s1);
        $step!($op, $c, $d, $a, $b, $m2, $k + 2, $s2);
        $step!($op, $b, $c, $d, $a, $m3, $k + 3, $s3);
    };
}

/// The `G` groups' block at byte offset `off`, word-major per group.
///
/// # Safety
///
/// The CPU has `V`'s ISA; `ptrs[i]` is valid for reads of `off + 64` bytes
/// for each `i < V::LANES * G`.
#[inline(always)]
unsafe fn load_blocks<V: LaneVector, const G: usize>(ptrs: &Ptrs, off: usize) -> [[V; 16]; G] {
    // SAFETY: the caller's contract, group by group: group `g` reads lanes
    // `V::LANES * g ..` of `ptrs`, which has `MAX_LANES >= V::LANES * G`
    // entries (checked in `compress`).
    core::array::from_fn(|g| unsafe { V::load_block(&ptrs[V::LANES * g..], off) })
}

/// Compresses `blocks` consecutive blocks from each of `ptrs[..V::LANES *
/// G]` into lanes `0..V::LANES * G` of `state`, as `G` interleaved groups.
///
/// # Safety
///
/// The CPU has `V`'s ISA, and `ptrs[i]` is valid for reads of `blocks * 64`
/// bytes for each `i < V::LANES * G`.
#[inline(always)]
pub(super) unsafe fn compress<V: LaneVector, const G: usize>(
    state: &mut Soa,
    ptrs: &Ptrs,
    blocks: usize,
) {
    const { assert!(G >= 1) };
    let w = V::LANES;
    assert!(w * G <= ptrs.len());
    let row = |r: usize| -> [V; G] {
        core::array::from_fn(|g| {
            // SAFETY: the caller vouches for the ISA; rows of `state` have
            // `MAX_LANES >= w * G` words (asserted above, as `ptrs` has as
            // many entries), so each group's `w` words are in bounds.
            unsafe { V::load(state.s[r][w * g..].as_ptr()) }
        })
    };
    let (mut a, mut b, mut c, mut d) = (row(0), row(1), row(2), row(3));
    // SAFETY: the caller vouches for the ISA.
    let rc = |k: usize| unsafe { V::splat(RC[k]) };

    for blk in 0..blocks {
        // SAFETY: `(blk + 1) * 64 <= blocks * 64` bytes are readable at
        // each of the `w * G` pointers (caller).
        let m: [[V; 16]; G] = unsafe { load_blocks(ptrs, blk * 64) };
        // One step of every group: a = b + rotl(a + m + K + OP(b, c, d), s).
        // What does not depend on `b` is summed first and hidden from the
        // optimiser, which would otherwise move `K`'s add onto the chain.
        macro_rules! step {
            ($op:ident, $a:ident, $b:ident, $c:ident, $d:ident, $m:expr, $k:expr, $s:expr) => {
                for g in 0..G {
                    let t = $a[g].add(m[g][$m]).add(rc($k));
                    let t = step!(@$op, t, $b[g], $c[g], $d[g]);
                    $a[g] = V::add_rotl::<{ $s }, { 32 - $s }>(t, $b[g]);
                }
            };
            (@G, $t:expr, $b:expr, $c:expr, $d:expr) => {
                V::add_g($t, $b, $c, $d)
            };
            (@$op:ident, $t:expr, $b:expr, $c:expr, $d:expr) => {
                $t.opaque().add(V::logic::<$op>($b, $c, $d))
            };
        }
        let (aa, bb, cc, dd) = (a, b, c, d);
        md5_steps!(step, a, b, c, d);
        for g in 0..G {
            a[g] = a[g].add(aa[g]);
            b[g] = b[g].add(bb[g]);
            c[g] = c[g].add(cc[g]);
            d[g] = d[g].add(dd[g]);
        }
    }

    for (r, v) in state.s.iter_mut().zip([a, b, c, d]) {
        for (g, x) in v.into_iter().enumerate() {
            x.store(&mut r[w * g..]);
        }
    }
}

/// Only the loads and the transposition of [`compress`], folded into a
/// checksum so that they cannot be optimised away: measures their cost.
///
/// # Safety
///
/// As for [`compress`].
#[inline(always)]
pub(super) unsafe fn transpose_only<V: LaneVector, const G: usize>(
    ptrs: &Ptrs,
    blocks: usize,
) -> u32 {
    assert!(V::LANES * G <= ptrs.len());
    // SAFETY: the caller vouches for the ISA.
    let mut acc = [unsafe { V::splat(0) }; 16];
    for blk in 0..blocks {
        // SAFETY: as in `compress`.
        let m: [[V; 16]; G] = unsafe { load_blocks(ptrs, blk * 64) };
        for m in m {
            for (x, w) in acc.iter_mut().zip(m) {
                *x = x.xor(w);
            }
        }
    }
    acc[1..].iter().fold(acc[0], |s, &x| s.add(x)).first()
}
