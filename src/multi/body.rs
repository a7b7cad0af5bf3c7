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

/// An ISA's two `#[target_feature(enable = $feature)]` entry points,
/// `compress` and `transpose_only`, which instantiate [`compress`] and
/// [`transpose_only`] for its lane vector `$v`. Everything they run is
/// `#[inline(always)]`, so all of it is compiled with the feature.
macro_rules! entry_points {
    ($v:ty, $feature:literal) => {
        /// [`body::compress`](super::body::compress) on `G` groups of this
        /// ISA's vectors.
        ///
        /// # Safety
        ///
        /// The CPU has the target feature; `ptrs[i]` is valid for reads of
        /// `blocks * 64` bytes for each `i < LANES * G`.
        #[target_feature(enable = $feature)]
        #[inline(never)]
        pub(super) unsafe fn compress<const G: usize>(
            state: &mut super::Soa,
            ptrs: &super::Ptrs,
            blocks: usize,
            last: Option<&[u32; 16]>,
        ) {
            // SAFETY: the caller's contract is the body's, for this ISA.
            unsafe { super::body::compress::<$v, G>(state, ptrs, blocks, last) }
        }

        /// [`body::transpose_only`](super::body::transpose_only) on `G`
        /// groups of this ISA's vectors.
        ///
        /// # Safety
        ///
        /// As for [`compress`].
        #[target_feature(enable = $feature)]
        #[inline(never)]
        pub(super) unsafe fn transpose_only<const G: usize>(
            ptrs: &super::Ptrs,
            blocks: usize,
        ) -> u32 {
            // SAFETY: as in `compress`.
            unsafe { super::body::transpose_only::<$v, G>(ptrs, blocks) }
        }
    };
}

/// Reads the `G` groups' block at byte offset `off` into `m`, word-major per
/// group, and returns it.
///
/// The buffer is the caller's, kept across blocks: read in place by the
/// steps, where an array returned by value is copied to other stack slots
/// first (48 loads and stores a block with AVX2's three groups).
///
/// # Safety
///
/// The CPU has `V`'s ISA; `ptrs[i]` is valid for reads of `off + 64` bytes
/// for each `i < V::LANES * G`.
#[inline(always)]
unsafe fn load_blocks<'m, V: LaneVector, const G: usize>(
    m: &'m mut core::mem::MaybeUninit<[[V; 16]; G]>,
    ptrs: &Ptrs,
    off: usize,
) -> &'m [[V; 16]; G] {
    // A loop, not `array::from_fn`: a closure is not inlined for sure, and
    // out of line it would run without the ISA's target feature. Not
    // zero-filled first: with AVX-512's three or four groups (768 bytes and
    // more) LLVM fills it with a call to `memset` in the block loop.
    let rows = m.as_mut_ptr().cast::<[V; 16]>();
    for g in 0..G {
        // SAFETY: the caller's contract: group `g` reads lanes `V::LANES *
        // g ..` of `ptrs`, which has `MAX_LANES >= V::LANES * G` entries
        // (checked in `compress`). Row `g < G` of `m` is in bounds.
        unsafe { rows.add(g).write(V::load_block(&ptrs[V::LANES * g..], off)) };
    }
    // SAFETY: the loop wrote each of the `G` rows.
    unsafe { m.assume_init_ref() }
}

/// `RC` with 1 taken off the constants of round 4, for lane vectors that
/// compute `t + I` as a subtraction (see [`LaneVector::I_BY_SUB`]).
const RC_I: [u32; 64] = {
    let mut t = RC;
    let mut k = 48;
    while k < 64 {
        t[k] = t[k].wrapping_sub(1);
        k += 1;
    }
    t
};

/// The round constants `V` adds.
#[inline(always)]
fn rc_table<V: LaneVector>() -> &'static [u32; 64] {
    if V::I_BY_SUB {
        &RC_I
    } else {
        &RC
    }
}

/// `x`, through an empty `asm!` block that LLVM must run where it stands
/// (it is not `pure`) and cannot see through.
#[inline(always)]
fn hide(x: usize) -> usize {
    #[cfg(not(miri))]
    let x = {
        let mut x = x;
        // SAFETY: the template is a comment; the block only names `x`'s
        // register and changes no memory, flags or stack.
        unsafe {
            core::arch::asm!("/* {0} */", inout(reg) x, options(nomem, nostack, preserves_flags))
        };
        x
    };
    x
}

/// Compresses `blocks` consecutive blocks from each of `ptrs[..V::LANES *
/// G]` into lanes `0..V::LANES * G` of `state`, as `G` interleaved groups,
/// then, if `last` is given, the block of those message words in every
/// lane: the padding block that equal-length messages share, without loads
/// or transposition.
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
    last: Option<&[u32; 16]>,
) {
    const { assert!(G >= 1) };
    let w = V::LANES;
    assert!(w * G <= ptrs.len());
    // SAFETY: the caller vouches for the ISA.
    let zero = unsafe { V::splat(0) };
    let mut abcd = [[zero; G]; 4];
    for (v, row) in abcd.iter_mut().zip(&state.s) {
        for (g, x) in v.iter_mut().enumerate() {
            // SAFETY: the caller vouches for the ISA; rows of `state` have
            // `MAX_LANES >= w * G` words (asserted above, as `ptrs` has as
            // many entries), so each group's `w` words are in bounds.
            *x = unsafe { V::load(row[w * g..].as_ptr()) };
        }
    }
    let [mut a, mut b, mut c, mut d] = abcd;

    // One step of every group: a = b + rotl(a + x + OP(b, c, d), s), where
    // `x` is the message word plus the round constant, summed by `$input`.
    // What does not depend on `b` is summed first and hidden from the
    // optimiser, which would otherwise move an add onto the chain.
    macro_rules! step {
        ($input:ident; $op:ident, $a:ident, $b:ident, $c:ident, $d:ident, $m:expr, $k:expr, $s:expr) => {
            for g in 0..G {
                let t = $input!($a[g], g, $m, $k);
                let t = step!(@$op, t, $b[g], $c[g], $d[g]);
                $a[g] = V::add_rotl::<{ $s }, { 32 - $s }>(t, $b[g]);
            }
        };
        (@I, $t:expr, $b:expr, $c:expr, $d:expr) => {
            if V::I_BY_SUB {
                // t + !(c ^ (!b & d)) = t - (c ^ (!b & d)) - 1, the 1
                // taken off the round constant (`RC_I`).
                $t.opaque().sub($c.xor($b.andnot($d)))
            } else {
                $t.opaque().add(V::logic::<I>($b, $c, $d))
            }
        };
        (@G, $t:expr, $b:expr, $c:expr, $d:expr) => {
            V::add_g($t, $b, $c, $d)
        };
        (@$op:ident, $t:expr, $b:expr, $c:expr, $d:expr) => {
            $t.opaque().add(V::logic::<$op>($b, $c, $d))
        };
    }
    // The 64 steps over one block, then the feed-forward.
    macro_rules! block {
        ($input:ident) => {{
            macro_rules! input_step {
                ($op:ident, $a:ident, $b:ident, $c:ident, $d:ident, $m:expr, $k:expr, $s:expr) => {
                    step!($input; $op, $a, $b, $c, $d, $m, $k, $s)
                };
            }
            let (aa, bb, cc, dd) = (a, b, c, d);
            md5_steps!(input_step, a, b, c, d);
            for g in 0..G {
                a[g] = a[g].add(aa[g]);
                b[g] = b[g].add(bb[g]);
                c[g] = c[g].add(cc[g]);
                d[g] = d[g].add(dd[g]);
            }
        }};
    }

    let mut words = core::mem::MaybeUninit::uninit();
    for blk in 0..blocks {
        // SAFETY: `(blk + 1) * 64 <= blocks * 64` bytes are readable at
        // each of the `w * G` pointers (caller).
        let m: &[[V; 16]; G] = unsafe { load_blocks(&mut words, ptrs, blk * 64) };
        // The round constants, read through a pointer LLVM cannot see
        // through, anew in each block: left visible, all 64 are broadcast
        // and spilled to the stack before the loop, work wasted on every
        // call of one or two blocks (short messages).
        // SAFETY: `hide(0)` is 0, so `rc` points at the 64 words of `RC`
        // or `RC_I`.
        let rc = unsafe { rc_table::<V>().as_ptr().add(hide(0)) };
        macro_rules! loaded {
            ($a:expr, $g:expr, $m:expr, $k:expr) => {
                // SAFETY: the caller vouches for the ISA; `rc` points at
                // the 64 words of the table.
                $a.add(m[$g][$m]).add(unsafe { V::splat(*rc.add($k)) })
            };
        }
        block!(loaded);
    }

    if let Some(words) = last {
        // The same block in every lane: each step's word and constant are
        // summed once, in scalar code, and broadcast from memory (free on
        // x86: the load unit broadcasts), an add per step fewer.
        let rc = rc_table::<V>();
        let mut mk = [0u32; 64];
        // The word order from the same list of steps the vectors run.
        macro_rules! sum {
            ($op:ident, $a:ident, $b:ident, $c:ident, $d:ident, $m:expr, $k:expr, $s:expr) => {
                mk[$k] = words[$m].wrapping_add(rc[$k])
            };
        }
        md5_steps!(sum, a, b, c, d);
        // SAFETY: `hide(0)` is 0: the pointer is `mk`'s, hidden so that
        // LLVM broadcasts each sum where it is used, from memory.
        let mk = unsafe { mk.as_ptr().add(hide(0)) };
        macro_rules! shared {
            ($a:expr, $g:expr, $m:expr, $k:expr) => {
                // SAFETY: the caller vouches for the ISA; `mk` points at
                // 64 words.
                $a.add(unsafe { V::splat(*mk.add($k)) })
            };
        }
        block!(shared);
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
    let mut words = core::mem::MaybeUninit::uninit();
    for blk in 0..blocks {
        // SAFETY: as in `compress`.
        let m: &[[V; 16]; G] = unsafe { load_blocks(&mut words, ptrs, blk * 64) };
        for m in m {
            for (x, &w) in acc.iter_mut().zip(m) {
                *x = x.xor(w);
            }
        }
    }
    acc[1..].iter().fold(acc[0], |s, &x| s.add(x)).first()
}
