//! Portable Rust backend: the fallback on every target and the oracle the
//! other backends are tested against.
//!
//! It is a `const fn`, so [`digest`](fn@digest) (md5x's `const_digest`) runs the
//! very same code at compile time. Each step adds the message word and round constant to `a`
//! before the boolean function is known, so only the boolean function, one
//! add, the rotate and the final add wait on the previous step's `b`.
#![allow(clippy::many_single_char_names)]

use crate::consts::RC;
use crate::pad;

#[inline(always)]
const fn op_f(a: u32, b: u32, c: u32, d: u32, mk: u32, s: u32) -> u32 {
    // (b & c) | (!b & d), written as a select with one less operation.
    let t = a.wrapping_add(mk);
    t.wrapping_add(d ^ (b & (c ^ d)))
        .rotate_left(s)
        .wrapping_add(b)
}

#[inline(always)]
const fn op_g(a: u32, b: u32, c: u32, d: u32, mk: u32, s: u32) -> u32 {
    // (b & d) | (c & !d): the two halves never share a set bit, so `|` can be
    // `+`, and the half without `b` joins the sum before `b` is ready.
    let t = a.wrapping_add(mk).wrapping_add(c & !d);
    t.wrapping_add(b & d).rotate_left(s).wrapping_add(b)
}

#[inline(always)]
const fn op_h(a: u32, b: u32, c: u32, d: u32, mk: u32, s: u32) -> u32 {
    let t = a.wrapping_add(mk);
    t.wrapping_add(b ^ c ^ d).rotate_left(s).wrapping_add(b)
}

#[inline(always)]
const fn op_i(a: u32, b: u32, c: u32, d: u32, mk: u32, s: u32) -> u32 {
    let t = a.wrapping_add(mk);
    t.wrapping_add(c ^ (b | !d)).rotate_left(s).wrapping_add(b)
}

/// Compresses one block into `state`.
#[inline(always)]
pub const fn compress_block(state: &mut [u32; 4], block: &[u8; 64]) {
    let mut m = [0u32; 16];
    let mut i = 0;
    while i < 16 {
        m[i] = u32::from_le_bytes([
            block[4 * i],
            block[4 * i + 1],
            block[4 * i + 2],
            block[4 * i + 3],
        ]);
        i += 1;
    }
    let [mut a, mut b, mut c, mut d] = *state;

    // One step: `$a = op($a, $b, $c, $d, M[$m] + RC[$k], $s)`.
    macro_rules! step {
        ($op:ident, $a:ident, $b:ident, $c:ident, $d:ident, $m:expr, $k:expr, $s:expr) => {
            $a = $op($a, $b, $c, $d, m[$m].wrapping_add(RC[$k]), $s)
        };
    }
    // Four steps of one round, rotating the roles of a, b, c, d.
    macro_rules! quad {
        ($op:ident, $k:expr, [$m0:expr, $m1:expr, $m2:expr, $m3:expr], [$s0:expr, $s1:expr, $s2:expr, $s3:expr]) => {
            step!($op, a, b, c, d, $m0, $k, $s0);
            step!($op, d, a, b, c, $m1, $k + 1, $s1);
            step!($op, c, d, a, b, $m2, $k + 2, $s2);
            step!($op, b, c, d, a, $m3, $k + 3, $s3);
        };
    }

    quad!(op_f, 0, [0, 1, 2, 3], [7, 12, 17, 22]);
    quad!(op_f, 4, [4, 5, 6, 7], [7, 12, 17, 22]);
    quad!(op_f, 8, [8, 9, 10, 11], [7, 12, 17, 22]);
    quad!(op_f, 12, [12, 13, 14, 15], [7, 12, 17, 22]);

    quad!(op_g, 16, [1, 6, 11, 0], [5, 9, 14, 20]);
    quad!(op_g, 20, [5, 10, 15, 4], [5, 9, 14, 20]);
    quad!(op_g, 24, [9, 14, 3, 8], [5, 9, 14, 20]);
    quad!(op_g, 28, [13, 2, 7, 12], [5, 9, 14, 20]);

    quad!(op_h, 32, [5, 8, 11, 14], [4, 11, 16, 23]);
    quad!(op_h, 36, [1, 4, 7, 10], [4, 11, 16, 23]);
    quad!(op_h, 40, [13, 0, 3, 6], [4, 11, 16, 23]);
    quad!(op_h, 44, [9, 12, 15, 2], [4, 11, 16, 23]);

    quad!(op_i, 48, [0, 7, 14, 5], [6, 10, 15, 21]);
    quad!(op_i, 52, [12, 3, 10, 1], [6, 10, 15, 21]);
    quad!(op_i, 56, [8, 15, 6, 13], [6, 10, 15, 21]);
    quad!(op_i, 60, [4, 11, 2, 9], [6, 10, 15, 21]);

    state[0] = state[0].wrapping_add(a);
    state[1] = state[1].wrapping_add(b);
    state[2] = state[2].wrapping_add(c);
    state[3] = state[3].wrapping_add(d);
}

/// Compresses `blocks` into `state`, one after another.
pub fn compress(state: &mut [u32; 4], blocks: &[[u8; 64]]) {
    for block in blocks {
        compress_block(state, block);
    }
}

/// The MD5 digest of `data`, padding included, in a `const` context.
pub const fn digest(data: &[u8]) -> [u8; 16] {
    let mut state = crate::consts::STATE_INIT;
    let mut rest = data;
    while let Some((block, tail)) = rest.split_first_chunk::<64>() {
        compress_block(&mut state, block);
        rest = tail;
    }
    let mut pad = [0u8; 128];
    let blocks = pad::fill_pad(&mut pad, rest, data.len() as u64);
    let (first, second) = pad.split_at(64);
    compress_block(&mut state, first.first_chunk().unwrap());
    if blocks == 2 {
        compress_block(&mut state, second.first_chunk().unwrap());
    }
    pad::to_bytes(state)
}
