//! x86_64 backend: one inline `asm!` block runs the whole block loop, with
//! the state in registers across blocks and the round constants as
//! immediates. Baseline x86_64 only, so it needs no runtime detection.
//! Written for this crate; MIT OR Apache-2.0.
//!
//! MD5 is one dependency chain: each step waits for the previous step's
//! result, the new `b`. Every step computes before that `b` arrives all it
//! can without it: `a + M[i] + RC[i]` (`a` is four steps old) and the part
//! of the boolean function that reads only `c` and `d`. What is left on the
//! chain, in 1-cycle ALU operations:
//!
//! | round | on the chain after `b`            | cycles |
//! |-------|-----------------------------------|--------|
//! | F     | `and`, `xor`, `add`, `rol`, `add` | 5      |
//! | G     | `and`, `add`, `rol`, `add`        | 4      |
//! | H     | `xor`, `add`, `rol`, `add`        | 4      |
//! | I     | `or`, `xor`, `add`, `rol`, `add`  | 5      |
//!
//! 16 × (5 + 4 + 4 + 5) = 288 cycles a block, 4.5 cycles a byte, is the
//! floor with two-input operations (the add of the block's input state is
//! kept off the chain too), and `benches/compare.rs` measures this code
//! at that floor. No three-operand `lea` (2 cycles on many cores) is used.
//!
//! BMI1's `andn` would save the `mov`/`not` pairs of G and I, but those are
//! off the chain: a variant with it measured no faster than this one, so it
//! is not kept.
//!
//! Registers: `a b c d` in `r8d r9d r10d r11d`, the block's input state in
//! `r12d..r15d` for the final add, `eax` the scratch of the boolean function,
//! `rsi` the block pointer and `rdi` the end of the input. Message words are
//! read straight from the input, as memory operands of the `add`s.
#![allow(clippy::many_single_char_names)]

/// `a += M[m] + k`: reads only the state four steps old and the input, so it
/// runs well ahead of the chain.
#[rustfmt::skip]
macro_rules! pre {
    ($a:ident, $m:literal, $k:literal) => { concat!(
        "add ", stringify!($a), ", dword ptr [rsi + 4*", stringify!($m), "]\n",
        "add ", stringify!($a), ", ", stringify!($k), "\n",
    ) };
}

/// `a = b + rotl(a, s)`, the common tail of every step.
#[rustfmt::skip]
macro_rules! post {
    ($a:ident, $b:ident, $s:literal) => { concat!(
        "rol ", stringify!($a), ", ", stringify!($s), "\n",
        "add ", stringify!($a), ", ", stringify!($b), "\n",
    ) };
}

/// F = d ^ (b & (c ^ d)): `c ^ d` is ready before `b`.
#[rustfmt::skip]
macro_rules! op_f {
    ($a:ident, $b:ident, $c:ident, $d:ident, $m:literal, $k:literal, $s:literal) => { concat!(
        pre!($a, $m, $k),
        "mov eax, ", stringify!($c), "\n",
        "xor eax, ", stringify!($d), "\n",
        "and eax, ", stringify!($b), "\n",
        "xor eax, ", stringify!($d), "\n",
        "add ", stringify!($a), ", eax\n",
        post!($a, $b, $s),
    ) };
}

/// G = (b & d) | (c & !d). The two halves share no set bit, so `|` is `+`
/// and `c & !d` joins `a` before `b` is ready: one `and` and one `add` wait
/// on `b`.
#[rustfmt::skip]
macro_rules! op_g {
    ($a:ident, $b:ident, $c:ident, $d:ident, $m:literal, $k:literal, $s:literal) => { concat!(
        pre!($a, $m, $k),
        "mov eax, ", stringify!($d), "\n",
        "not eax\n",
        "and eax, ", stringify!($c), "\n",
        "add ", stringify!($a), ", eax\n",
        "mov eax, ", stringify!($d), "\n",
        "and eax, ", stringify!($b), "\n",
        "add ", stringify!($a), ", eax\n",
        post!($a, $b, $s),
    ) };
}

/// H = b ^ c ^ d, with `eax = c ^ d` on entry. On exit `eax` is `b ^ c`,
/// the next H step's `c ^ d`: one `xor` off the chain instead of a fresh
/// `mov` and `xor`.
#[rustfmt::skip]
macro_rules! op_h {
    ($a:ident, $b:ident, $c:ident, $d:ident, $m:literal, $k:literal, $s:literal) => { concat!(
        pre!($a, $m, $k),
        "xor eax, ", stringify!($b), "\n",
        "add ", stringify!($a), ", eax\n",
        "xor eax, ", stringify!($d), "\n",
        post!($a, $b, $s),
    ) };
}

/// I = c ^ (b | !d): `!d` is ready before `b`. The last step of a block
/// passes `b` plus the input state of `b` as `$p`, so that add too is made
/// off the chain.
#[rustfmt::skip]
macro_rules! op_i {
    ($a:ident, $b:ident, $c:ident, $d:ident, $m:literal, $k:literal, $s:literal) => {
        op_i!($a, $b, $c, $d, $m, $k, $s, $b)
    };
    ($a:ident, $b:ident, $c:ident, $d:ident, $m:literal, $k:literal, $s:literal, $p:ident) => { concat!(
        pre!($a, $m, $k),
        "mov eax, ", stringify!($d), "\n",
        "not eax\n",
        "or eax, ", stringify!($b), "\n",
        "xor eax, ", stringify!($c), "\n",
        "add ", stringify!($a), ", eax\n",
        post!($a, $p, $s),
    ) };
}

/// Four steps of one round, rotating the roles of `a b c d`: message word
/// indices, round constants and rotations.
#[rustfmt::skip]
macro_rules! quad {
    ($op:ident, [$m0:literal, $m1:literal, $m2:literal, $m3:literal],
     [$k0:literal, $k1:literal, $k2:literal, $k3:literal],
     [$s0:literal, $s1:literal, $s2:literal, $s3:literal]) => { concat!(
        $op!(r8d, r9d, r10d, r11d, $m0, $k0, $s0),
        $op!(r11d, r8d, r9d, r10d, $m1, $k1, $s1),
        $op!(r10d, r11d, r8d, r9d, $m2, $k2, $s2),
        $op!(r9d, r10d, r11d, r8d, $m3, $k3, $s3),
    ) };
}

/// The whole loop over the blocks from `rsi` up to `rdi`. The round
/// constants are those of `crate::consts::RC`, as immediates (the tests
/// check the result against soft, which reads `RC`).
#[rustfmt::skip]
macro_rules! block_loop {
    () => { concat!(
        "2:\n",
        "mov r12d, r8d\n",
        "mov r13d, r9d\n",
        "mov r14d, r10d\n",
        "mov r15d, r11d\n",
        quad!(op_f, [0, 1, 2, 3], [0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee], [7, 12, 17, 22]),
        quad!(op_f, [4, 5, 6, 7], [0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501], [7, 12, 17, 22]),
        quad!(op_f, [8, 9, 10, 11], [0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be], [7, 12, 17, 22]),
        quad!(op_f, [12, 13, 14, 15], [0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821], [7, 12, 17, 22]),
        quad!(op_g, [1, 6, 11, 0], [0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa], [5, 9, 14, 20]),
        quad!(op_g, [5, 10, 15, 4], [0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8], [5, 9, 14, 20]),
        quad!(op_g, [9, 14, 3, 8], [0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed], [5, 9, 14, 20]),
        quad!(op_g, [13, 2, 7, 12], [0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a], [5, 9, 14, 20]),
        // The first H step needs `c ^ d`; each H step leaves the next one's.
        "mov eax, r10d\n",
        "xor eax, r11d\n",
        quad!(op_h, [5, 8, 11, 14], [0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c], [4, 11, 16, 23]),
        quad!(op_h, [1, 4, 7, 10], [0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70], [4, 11, 16, 23]),
        quad!(op_h, [13, 0, 3, 6], [0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05], [4, 11, 16, 23]),
        quad!(op_h, [9, 12, 15, 2], [0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665], [4, 11, 16, 23]),
        quad!(op_i, [0, 7, 14, 5], [0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039], [6, 10, 15, 21]),
        quad!(op_i, [12, 3, 10, 1], [0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1], [6, 10, 15, 21]),
        quad!(op_i, [8, 15, 6, 13], [0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1], [6, 10, 15, 21]),
        op_i!(r8d, r9d, r10d, r11d, 4, 0xf7537e82, 6),
        op_i!(r11d, r8d, r9d, r10d, 11, 0xbd3af235, 10),
        op_i!(r10d, r11d, r8d, r9d, 2, 0x2ad7d2bb, 15),
        // Add the block's input state. The new `b` is `c + rotl(..)` plus
        // the input `b`: adding `c` and the input `b` first keeps that add
        // off the chain, which then runs on into the next block.
        "add r13d, r10d\n",
        op_i!(r9d, r10d, r11d, r8d, 9, 0xeb86d391, 21, r13d),
        "add r8d, r12d\n",
        "add r10d, r14d\n",
        "add r11d, r15d\n",
        "add rsi, 64\n",
        "cmp rsi, rdi\n",
        "jne 2b\n",
    ) };
}

/// Compresses `blocks` into `state`.
pub(super) fn compress(state: &mut [u32; 4], blocks: &[[u8; 64]]) {
    if blocks.is_empty() {
        return;
    }
    let [mut a, mut b, mut c, mut d] = *state;
    // As `u64`: under the x32 ABI pointers are 32 bits, and the upper half
    // of a register given a 32-bit value is undefined.
    let (start, end) = (blocks.as_ptr() as u64, blocks.as_ptr_range().end as u64);
    // SAFETY: the asm reads the `blocks.len() * 64` bytes of `blocks`
    // (unaligned 4-byte loads are fine on x86_64) and no other memory. The
    // loop is do-while, and `blocks` is not empty (checked above), so `rsi`
    // reaches the end pointer exactly and stops there. It writes only the
    // registers declared as outputs and the flags. `nostack`: it pushes
    // nothing. `readonly`: it writes no memory. `pure`: the outputs depend
    // only on the inputs and the memory read.
    unsafe {
        core::arch::asm!(
            block_loop!(),
            inout("r8d") a,
            inout("r9d") b,
            inout("r10d") c,
            inout("r11d") d,
            inout("rsi") start => _,
            in("rdi") end,
            out("eax") _,
            out("r12d") _,
            out("r13d") _,
            out("r14d") _,
            out("r15d") _,
            options(pure, readonly, nostack),
        );
    }
    *state = [a, b, c, d];
}

#[cfg(test)]
mod tests {
    #[test]
    fn matches_soft() {
        crate::check_against_soft(super::compress);
    }
}
