//! MD5's 64 steps (RFC 1321, section 3.4) over `G` interleaved groups of
//! lane vectors `V`, once per block: where each step's message word and
//! round constant come from ([`Words`]), what runs beside each round
//! ([`AtRound`]), and one block's steps and feed-forward ([`block`]). The
//! body (`body.rs`) runs them over a call's blocks.
#![allow(clippy::many_single_char_names)]

use super::lane_vector::{self, LaneVector};
use md5x_block::consts::RC;

/// MD5's 64 steps as calls `$x.step::<OP, L, R>(k, m)` of [`Step::step`]:
/// step `k` adds message word `m` and rotates by `L` (`R = 32 - L`); each
/// round of sixteen opens with `$x.round(r)` ([`Step::round`]). Round `r`'s
/// step `k` adds word `(c + s * k) % 16`, `(c, s)` the round's.
///
/// `md5_steps!(x)` writes all 64 in line; `md5_steps!(x, looped)` each
/// round as a loop over its four quads of steps, a quarter of the code.
macro_rules! md5_steps {
    ($x:ident) => {
        md5_steps!($x, inline)
    };
    ($x:ident, $how:ident) => {
        md5_steps!(@round $how, $x, F, 0, (0, 1), [7, 12, 17, 22]);
        md5_steps!(@round $how, $x, G, 1, (1, 5), [5, 9, 14, 20]);
        md5_steps!(@round $how, $x, H, 2, (5, 3), [4, 11, 16, 23]);
        md5_steps!(@round $how, $x, I, 3, (0, 7), [6, 10, 15, 21]);
    };
    (@round inline, $x:ident, $op:ident, $r:literal, $cs:tt, $ls:tt) => {
        $x.round($r);
        md5_steps!(@quad $x, $op, $r, 0, $cs, $ls);
        md5_steps!(@quad $x, $op, $r, 1, $cs, $ls);
        md5_steps!(@quad $x, $op, $r, 2, $cs, $ls);
        md5_steps!(@quad $x, $op, $r, 3, $cs, $ls);
    };
    (@round looped, $x:ident, $op:ident, $r:literal, $cs:tt, $ls:tt) => {
        $x.round($r);
        // Hidden, or LLVM unrolls the loop.
        let quads = super::steps::opaque(4);
        let mut q = 0;
        while q < quads {
            md5_steps!(@quad $x, $op, $r, q, $cs, $ls);
            q += 1;
        }
    };
    // Quad `q` (0 to 3) of round `r`: steps `k` to `k + 3`, `k` a multiple
    // of 4 below 64 that the compiler sees as one.
    (@quad $x:ident, $op:ident, $r:literal, $q:expr, ($c:literal, $s:literal),
        [$l0:literal, $l1:literal, $l2:literal, $l3:literal]) => {
        let k = (16 * $r + 4 * $q) & 60;
        let w = |k: usize| ($c + $s * k) % 16;
        $x.step::<{ super::lane_vector::$op }, $l0, { 32 - $l0 }>(k, w(k));
        $x.step::<{ super::lane_vector::$op }, $l1, { 32 - $l1 }>(k | 1, w(k | 1));
        $x.step::<{ super::lane_vector::$op }, $l2, { 32 - $l2 }>(k | 2, w(k | 2));
        $x.step::<{ super::lane_vector::$op }, $l3, { 32 - $l3 }>(k | 3, w(k | 3));
    };
}

/// `RC` with 1 taken off the constants of round 4, for lane vectors that
/// compute `t + I` as a subtraction (see [`LaneVector::I_BY_SUB`]).
pub(super) const RC_I: [u32; 64] = {
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
pub(super) fn rc_table<V: LaneVector>() -> &'static [u32; 64] {
    if V::I_BY_SUB {
        &RC_I
    } else {
        &RC
    }
}

/// `x`, through an empty `asm!` block that LLVM must run where it stands
/// (it is not `pure`) and cannot see through: the scalar form of
/// [`LaneVector::opaque`].
#[inline(always)]
pub(super) fn opaque(x: usize) -> usize {
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

/// What [`md5_steps!`] calls, once per step.
pub(super) trait Step {
    /// Step `k` (0 to 63): round function `OP` (one of [`lane_vector::F`]
    /// to [`lane_vector::I`]), message word `m`, rotation `L`, `R = 32 - L`.
    fn step<const OP: i32, const L: i32, const R: i32>(&mut self, k: usize, m: usize);

    /// The start of round `round` (0 to 3). Called from four places, not
    /// from each step: a debug build keeps a stack slot for every inlined
    /// call's locals, and 64 copies of the next block's loads took
    /// md5sum's 1 MiB debug worker stack past its end.
    #[inline(always)]
    fn round(&mut self, round: usize) {
        let _ = round;
    }
}

/// Where a step's message word and round constant come from: `add_word(a,
/// g, m, k)` is `a` plus word `m` of group `g`'s block plus step `k`'s
/// constant.
pub(super) trait Words<V> {
    fn add_word(&self, a: V, g: usize, m: usize, k: usize) -> V;
}

/// Words loaded and transposed from each lane's own block.
///
/// The fields are set only in [`compress`], which makes `rc` point at a
/// table of 64 words.
pub(super) struct Loaded<'m, V, const G: usize> {
    pub(super) m: &'m [[V; 16]; G],
    /// The 64 round constants; a pointer LLVM cannot see through (see
    /// `compress`).
    pub(super) rc: *const u32,
}

impl<V: LaneVector, const G: usize> Words<V> for Loaded<'_, V, G> {
    #[inline(always)]
    fn add_word(&self, a: V, g: usize, m: usize, k: usize) -> V {
        // SAFETY: `a` proves the ISA; `rc` points at the 64 words of the
        // table (`compress`), and `k < 64`.
        a.add(self.m[g][m])
            .add(unsafe { V::splat(*self.rc.add(k)) })
    }
}

/// The same block in every lane: each step's word and constant summed
/// once, in scalar code ([`SharedSums`]), and broadcast from memory (free
/// on x86: the load unit broadcasts), an add per step fewer.
///
/// The field is set only in [`compress`], which makes `mk` point at 64
/// words.
pub(super) struct Shared {
    /// 64 sums, by step; a pointer LLVM cannot see through, so that it
    /// broadcasts each sum where it is used, from memory.
    pub(super) mk: *const u32,
}

impl<V: LaneVector> Words<V> for Shared {
    #[inline(always)]
    fn add_word(&self, a: V, _: usize, _: usize, k: usize) -> V {
        // SAFETY: `a` proves the ISA; `mk` points at 64 words (`compress`),
        // and `k < 64`.
        a.add(unsafe { V::splat(*self.mk.add(k)) })
    }
}

/// Each step's message word plus its round constant, in the word order of
/// the same list of steps the vectors run.
pub(super) struct SharedSums<'a> {
    pub(super) words: &'a [u32; 16],
    pub(super) rc: &'static [u32; 64],
    pub(super) mk: [u32; 64],
}

impl Step for SharedSums<'_> {
    #[inline(always)]
    fn step<const OP: i32, const L: i32, const R: i32>(&mut self, k: usize, m: usize) {
        self.mk[k] = self.words[m].wrapping_add(self.rc[k]);
    }
}

/// What runs at the start of each of a block's four rounds, beside its
/// steps: nothing, or the loads of the next block ([`NextBlock`]).
pub(super) trait AtRound {
    fn at_round(&mut self, round: usize);
}

impl AtRound for () {
    #[inline(always)]
    fn at_round(&mut self, _: usize) {}
}

/// The state of `G` groups, rows `a`, `b`, `c`, `d`, stepped with the words
/// of `X`, running `A` at each round's start.
struct Steps<'x, V, const G: usize, X, A> {
    s: [[V; G]; 4],
    words: &'x X,
    at_round: A,
}

impl<V: LaneVector, const G: usize, X: Words<V>, A: AtRound> Step for Steps<'_, V, G, X, A> {
    #[inline(always)]
    fn round(&mut self, round: usize) {
        self.at_round.at_round(round);
    }

    /// One step of every group: `a = b + rotl(a + x + OP(b, c, d), L)`,
    /// where `x` is the message word plus the round constant, and the roles
    /// of the four rows rotate by one each step. What does not depend on
    /// `b` is summed first and hidden from the optimiser, which would
    /// otherwise move an add onto the chain.
    #[inline(always)]
    fn step<const OP: i32, const L: i32, const R: i32>(&mut self, k: usize, m: usize) {
        let a = (4 - k % 4) % 4;
        let (b, c, d) = ((a + 1) % 4, (a + 2) % 4, (a + 3) % 4);
        for g in 0..G {
            let (sa, sb, sc, sd) = (self.s[a][g], self.s[b][g], self.s[c][g], self.s[d][g]);
            let t = self.words.add_word(sa, g, m, k);
            let t = match OP {
                lane_vector::G => V::add_g(t, sb, sc, sd),
                // t + !(c ^ (!b & d)) = t - (c ^ (!b & d)) - 1, the 1 taken
                // off the round constant (`RC_I`).
                lane_vector::I if V::I_BY_SUB => t.opaque().sub(sc.xor(sb.andnot(sd))),
                _ => t.opaque().add(V::logic::<OP>(sb, sc, sd)),
            };
            self.s[a][g] = V::add_rotl::<L, R>(t, sb);
        }
    }
}

/// The 64 steps over one block of `words`, then the feed-forward; as
/// loops where `LOOPED` ([`md5_steps!`]).
#[inline(always)]
pub(super) fn block<V: LaneVector, const G: usize, const LOOPED: bool>(
    s: &mut [[V; G]; 4],
    words: &impl Words<V>,
    at_round: impl AtRound,
) {
    let mut steps = Steps {
        s: *s,
        words,
        at_round,
    };
    if LOOPED {
        md5_steps!(steps, looped);
    } else {
        md5_steps!(steps);
    }
    for g in 0..G {
        for (row, stepped) in s.iter_mut().zip(&steps.s) {
            row[g] = stepped[g].add(row[g]);
        }
    }
}

/// The 64 steps and the feed-forward over the block of words `m` in each
/// lane of `G` groups of state `s`: for a lane vector that builds its
/// blocks itself (`avx512_rows.rs`).
#[cfg(md5_sse2)]
#[inline(always)]
pub(super) fn compress_words<V: LaneVector, const G: usize>(s: &mut [[V; G]; 4], m: &[[V; 16]; G]) {
    // SAFETY: `opaque(0)` is 0, so `rc` points at the 64 words of `RC` or
    // `RC_I` (see `compress`).
    let rc = unsafe { rc_table::<V>().as_ptr().add(opaque(0)) };
    block::<V, G, false>(s, &Loaded { m, rc }, ());
}

/// The round at whose start the next block's words of group `g` of
/// `groups` are loaded: the groups spread over the block's four rounds.
#[inline(always)]
pub(super) const fn load_round(g: usize, groups: usize) -> usize {
    4 * g / groups
}
