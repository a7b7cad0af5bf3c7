//! AArch64 inline-asm backend (little-endian only): the whole block loop in
//! one `asm!`, every message word and round constant in registers.
//!
//! Written for this crate after the design of RustCrypto/hashes PR #749
//! (round constants packed two per 64-bit word and loaded in pairs with
//! `ldp`, G added instead of ORed, I with `orn`), which is MIT OR Apache-2.0
//! like this crate; the code here is our own.
//!
//! - The 64-byte block is loaded by four `ldp` into eight X registers, two
//!   message words each; the constants, read four at a time with `ldp`, sit
//!   two per X register too. A word in the low half is added with a 32-bit
//!   `add`; one in the high half with a 64-bit `add .., lsr #32`, whose low
//!   32 bits are the wanted sum. Only W views of `a b c d` are ever read, so
//!   the high bits such an add leaves behind are never seen.
//! - Each step adds the next step's message word and constant into the next
//!   step's `a` once it has read that register itself, between its own
//!   dependent instructions. What waits for the previous step's `b` is only
//!   the boolean function, one add, the rotate and the add of `b`: 5
//!   dependent instructions for F and I, 4 for G (added, not ORed) and H
//!   (the previous step's `b ^ c ^ d ^ d` is this step's `c ^ d`).
//! - Big-endian AArch64 would need a `rev32` per message register and
//!   swapped halves for the constants; it uses `soft` instead
//!   (`lib.rs` selects this module only for little-endian).
#![allow(clippy::many_single_char_names)]

use core::arch::asm;

/// The round constants, 256 bytes on one aligned run of four cache lines.
/// Little-endian, so one 64-bit load gives `RC[2i] | RC[2i + 1] << 32`.
#[repr(C, align(64))]
struct Table([u32; 64]);
static RC: Table = Table(crate::consts::RC);

/// `dst += w`, where `w` is the low (`lo`) or high (`hi`) 32-bit half of the
/// X register `src`.
#[rustfmt::skip]
macro_rules! add_half {
    ($dst:ident, $src:ident, lo) => {
        concat!(
            "add {", stringify!($dst), ":w}, {", stringify!($dst), ":w}, {",
            stringify!($src), ":w}\n"
        )
    };
    ($dst:ident, $src:ident, hi) => {
        concat!(
            "add {", stringify!($dst), ":x}, {", stringify!($dst), ":x}, {",
            stringify!($src), ":x}, lsr #32\n"
        )
    };
}

/// Adds the next step's message word (`m`) or constant (`k`) into `$d`,
/// which the next step reads as its `a`; nothing after the last step.
#[rustfmt::skip]
macro_rules! next {
    (m $d:ident; $m:ident $mh:ident, $k:ident $kh:ident) => { add_half!($d, $m, $mh) };
    (k $d:ident; $m:ident $mh:ident, $k:ident $kh:ident) => { add_half!($d, $k, $kh) };
    ($x:ident $d:ident;) => { "" };
}

/// Loads four round constants, `RC[off / 4..off / 4 + 4]`, into two X
/// registers.
#[rustfmt::skip]
macro_rules! ldp {
    ($k0:ident $k1:ident, $off:literal) => {
        concat!(
            "ldp {", stringify!($k0), "}, {", stringify!($k1), "}, [{rc}, #",
            stringify!($off), "]\n"
        )
    };
}

/// One step, `a = b + rotl(a + fn(b, c, d) + M + K, s)`, with `M + K`
/// already in `a`. The rotate is `ror` by `32 - s`. The two adds for the next
/// step come after the step's last read of `d`, between the dependent
/// instructions, which an in-order core can then pair with them.
///
/// `loongarch64_asm.rs` has a `step!` with the same arms but other code:
/// other mnemonics and operand syntax, F with `c ^ d` computed a step ahead
/// here, G in another order, constants loaded in pairs here. A template for
/// both would take each instruction as an argument and hide the asm.
#[rustfmt::skip]
macro_rules! step {
    // F = d ^ (b & (c ^ d)). `g` holds this step's `c ^ d`, computed a
    // step early; the step computes the next one's, `b ^ c`, while it waits
    // for `b & g`. `Fz` is the last F step, which has no next F step.
    (F, $a:ident $b:ident $c:ident $d:ident, $s:literal, [$($n:tt)*]) => {
        concat!(
            "and {f:w}, {g:w}, {", stringify!($b), ":w}\n",
            "eor {g:w}, {", stringify!($b), ":w}, {", stringify!($c), ":w}\n",
            "eor {f:w}, {f:w}, {", stringify!($d), ":w}\n",
            "add {", stringify!($a), ":w}, {", stringify!($a), ":w}, {f:w}\n",
            step!(tail, $a $b $d, $s, [$($n)*]),
        )
    };
    (Fz, $a:ident $b:ident $c:ident $d:ident, $s:literal, [$($n:tt)*]) => {
        concat!(
            "and {f:w}, {g:w}, {", stringify!($b), ":w}\n",
            "eor {f:w}, {f:w}, {", stringify!($d), ":w}\n",
            "add {", stringify!($a), ":w}, {", stringify!($a), ":w}, {f:w}\n",
            step!(tail, $a $b $d, $s, [$($n)*]),
        )
    };
    // G = (b & d) | (c & !d): the halves share no set bit, so `|` is `+`
    // and `c & !d` joins the sum before `b` is ready.
    (G, $a:ident $b:ident $c:ident $d:ident, $s:literal, [$($n:tt)*]) => {
        concat!(
            "bic {f:w}, {", stringify!($c), ":w}, {", stringify!($d), ":w}\n",
            "and {g:w}, {", stringify!($b), ":w}, {", stringify!($d), ":w}\n",
            "add {", stringify!($a), ":w}, {", stringify!($a), ":w}, {f:w}\n",
            "add {", stringify!($a), ":w}, {", stringify!($a), ":w}, {g:w}\n",
            step!(tail, $a $b $d, $s, [$($n)*]),
        )
    };
    // The first H step computes `c ^ d`; every H step leaves
    // `H ^ d = b ^ c` in `f`, the next step's `c ^ d`.
    (H0, $a:ident $b:ident $c:ident $d:ident, $s:literal, [$($n:tt)*]) => {
        concat!(
            "eor {f:w}, {", stringify!($c), ":w}, {", stringify!($d), ":w}\n",
            step!(H, $a $b $c $d, $s, [$($n)*]),
        )
    };
    (H, $a:ident $b:ident $c:ident $d:ident, $s:literal, [$($n:tt)*]) => {
        concat!(
            "eor {f:w}, {f:w}, {", stringify!($b), ":w}\n",
            "add {", stringify!($a), ":w}, {", stringify!($a), ":w}, {f:w}\n",
            "eor {f:w}, {f:w}, {", stringify!($d), ":w}\n",
            step!(tail, $a $b $d, $s, [$($n)*]),
        )
    };
    // I = c ^ (b | !d), with `orn`.
    (I, $a:ident $b:ident $c:ident $d:ident, $s:literal, [$($n:tt)*]) => {
        concat!(
            "orn {f:w}, {", stringify!($b), ":w}, {", stringify!($d), ":w}\n",
            "eor {f:w}, {f:w}, {", stringify!($c), ":w}\n",
            "add {", stringify!($a), ":w}, {", stringify!($a), ":w}, {f:w}\n",
            step!(tail, $a $b $d, $s, [$($n)*]),
        )
    };
    // a = b + rotl(a, s), with the next step's adds into `d` in between.
    (tail, $a:ident $b:ident $d:ident, $s:literal, [$($n:tt)*]) => {
        concat!(
            next!(m $d; $($n)*),
            "ror {", stringify!($a), ":w}, {", stringify!($a), ":w}, #32-", stringify!($s), "\n",
            next!(k $d; $($n)*),
            "add {", stringify!($a), ":w}, {", stringify!($a), ":w}, {", stringify!($b), ":w}\n",
        )
    };
}

/// Compresses `blocks` into `state`.
pub(super) fn compress(state: &mut [u32; 4], blocks: &[[u8; 64]]) {
    // The loop below runs at least once.
    if blocks.is_empty() {
        return;
    }
    let [mut a, mut b, mut c, mut d] = *state;
    // SAFETY: the asm reads `blocks.len() * 64` bytes from `blocks.as_ptr()`
    // (`ptr` advances by 64 per block and the loop runs `n = blocks.len()`
    // times, `n >= 1` as checked above, counting down to 0) and the 256 bytes
    // of `RC`; it writes nothing but its declared register outputs, so
    // `readonly` holds. It uses no stack (`nostack`), and sets no flags: the
    // loop counts with `sub` and `cbnz` (`preserves_flags`).
    unsafe {
        asm!(
            // Keep the input chaining value, packed two words per register:
            // sab = a | b << 32, scd = c | d << 32.
            "mov {sab:w}, {a:w}",
            "bfi {sab}, {b:x}, #32, #32",
            "mov {scd:w}, {c:w}",
            "bfi {scd}, {d:x}, #32, #32",
            ldp!(k0 k1, 0),
            "2:",
            "ldp {m0}, {m1}, [{ptr}]",
            "ldp {m2}, {m3}, [{ptr}, #16]",
            "ldp {m4}, {m5}, [{ptr}, #32]",
            "ldp {m6}, {m7}, [{ptr}, #48]",
            "add {ptr}, {ptr}, #64",
            next!(m a; m0 lo, k0 lo),
            next!(k a; m0 lo, k0 lo),
            "eor {g:w}, {c:w}, {d:w}", // `c ^ d` for step 0
            // Round 1.
            ldp!(k2 k3, 16), // RC[4..8]
            step!(F, a b c d, 7, [m0 hi, k0 hi]),
            step!(F, d a b c, 12, [m1 lo, k1 lo]),
            step!(F, c d a b, 17, [m1 hi, k1 hi]),
            step!(F, b c d a, 22, [m2 lo, k2 lo]),
            ldp!(k0 k1, 32), // RC[8..12]
            step!(F, a b c d, 7, [m2 hi, k2 hi]),
            step!(F, d a b c, 12, [m3 lo, k3 lo]),
            step!(F, c d a b, 17, [m3 hi, k3 hi]),
            step!(F, b c d a, 22, [m4 lo, k0 lo]),
            ldp!(k2 k3, 48), // RC[12..16]
            step!(F, a b c d, 7, [m4 hi, k0 hi]),
            step!(F, d a b c, 12, [m5 lo, k1 lo]),
            step!(F, c d a b, 17, [m5 hi, k1 hi]),
            step!(F, b c d a, 22, [m6 lo, k2 lo]),
            ldp!(k0 k1, 64), // RC[16..20]
            step!(F, a b c d, 7, [m6 hi, k2 hi]),
            step!(F, d a b c, 12, [m7 lo, k3 lo]),
            step!(F, c d a b, 17, [m7 hi, k3 hi]),
            step!(Fz, b c d a, 22, [m0 hi, k0 lo]),
            // Round 2.
            ldp!(k2 k3, 80), // RC[20..24]
            step!(G, a b c d, 5, [m3 lo, k0 hi]),
            step!(G, d a b c, 9, [m5 hi, k1 lo]),
            step!(G, c d a b, 14, [m0 lo, k1 hi]),
            step!(G, b c d a, 20, [m2 hi, k2 lo]),
            ldp!(k0 k1, 96), // RC[24..28]
            step!(G, a b c d, 5, [m5 lo, k2 hi]),
            step!(G, d a b c, 9, [m7 hi, k3 lo]),
            step!(G, c d a b, 14, [m2 lo, k3 hi]),
            step!(G, b c d a, 20, [m4 hi, k0 lo]),
            ldp!(k2 k3, 112), // RC[28..32]
            step!(G, a b c d, 5, [m7 lo, k0 hi]),
            step!(G, d a b c, 9, [m1 hi, k1 lo]),
            step!(G, c d a b, 14, [m4 lo, k1 hi]),
            step!(G, b c d a, 20, [m6 hi, k2 lo]),
            ldp!(k0 k1, 128), // RC[32..36]
            step!(G, a b c d, 5, [m1 lo, k2 hi]),
            step!(G, d a b c, 9, [m3 hi, k3 lo]),
            step!(G, c d a b, 14, [m6 lo, k3 hi]),
            step!(G, b c d a, 20, [m2 hi, k0 lo]),
            // Round 3.
            ldp!(k2 k3, 144), // RC[36..40]
            step!(H0, a b c d, 4, [m4 lo, k0 hi]),
            step!(H, d a b c, 11, [m5 hi, k1 lo]),
            step!(H, c d a b, 16, [m7 lo, k1 hi]),
            step!(H, b c d a, 23, [m0 hi, k2 lo]),
            ldp!(k0 k1, 160), // RC[40..44]
            step!(H, a b c d, 4, [m2 lo, k2 hi]),
            step!(H, d a b c, 11, [m3 hi, k3 lo]),
            step!(H, c d a b, 16, [m5 lo, k3 hi]),
            step!(H, b c d a, 23, [m6 hi, k0 lo]),
            ldp!(k2 k3, 176), // RC[44..48]
            step!(H, a b c d, 4, [m0 lo, k0 hi]),
            step!(H, d a b c, 11, [m1 hi, k1 lo]),
            step!(H, c d a b, 16, [m3 lo, k1 hi]),
            step!(H, b c d a, 23, [m4 hi, k2 lo]),
            ldp!(k0 k1, 192), // RC[48..52]
            step!(H, a b c d, 4, [m6 lo, k2 hi]),
            step!(H, d a b c, 11, [m7 hi, k3 lo]),
            step!(H, c d a b, 16, [m1 lo, k3 hi]),
            step!(H, b c d a, 23, [m0 lo, k0 lo]),
            // Round 4.
            ldp!(k2 k3, 208), // RC[52..56]
            step!(I, a b c d, 6, [m3 hi, k0 hi]),
            step!(I, d a b c, 10, [m7 lo, k1 lo]),
            step!(I, c d a b, 15, [m2 hi, k1 hi]),
            step!(I, b c d a, 21, [m6 lo, k2 lo]),
            ldp!(k0 k1, 224), // RC[56..60]
            step!(I, a b c d, 6, [m1 hi, k2 hi]),
            step!(I, d a b c, 10, [m5 lo, k3 lo]),
            step!(I, c d a b, 15, [m0 hi, k3 hi]),
            step!(I, b c d a, 21, [m4 lo, k0 lo]),
            ldp!(k2 k3, 240), // RC[60..64]
            step!(I, a b c d, 6, [m7 hi, k0 hi]),
            step!(I, d a b c, 10, [m3 lo, k1 lo]),
            step!(I, c d a b, 15, [m6 hi, k1 hi]),
            step!(I, b c d a, 21, [m2 lo, k2 lo]),
            ldp!(k0 k1, 0), // RC[0..4], next block
            step!(I, a b c d, 6, [m5 hi, k2 hi]),
            step!(I, d a b c, 10, [m1 lo, k3 lo]),
            step!(I, c d a b, 15, [m4 hi, k3 hi]),
            step!(I, b c d a, 21, []),
            // Add the input chaining value; `a` and `c` come out of 32-bit
            // adds with their high halves clear, so a shifted `orr` repacks.
            "add {a:w}, {a:w}, {sab:w}",
            "add {b:x}, {b:x}, {sab:x}, lsr #32",
            "add {c:w}, {c:w}, {scd:w}",
            "add {d:x}, {d:x}, {scd:x}, lsr #32",
            "orr {sab}, {a:x}, {b:x}, lsl #32",
            "orr {scd}, {c:x}, {d:x}, lsl #32",
            "sub {n}, {n}, #1",
            "cbnz {n}, 2b",
            a = inout(reg) a,
            b = inout(reg) b,
            c = inout(reg) c,
            d = inout(reg) d,
            ptr = inout(reg) blocks.as_ptr() => _,
            n = inout(reg) blocks.len() => _,
            rc = in(reg) RC.0.as_ptr(),
            f = out(reg) _,
            g = out(reg) _,
            sab = out(reg) _,
            scd = out(reg) _,
            m0 = out(reg) _,
            m1 = out(reg) _,
            m2 = out(reg) _,
            m3 = out(reg) _,
            m4 = out(reg) _,
            m5 = out(reg) _,
            m6 = out(reg) _,
            m7 = out(reg) _,
            k0 = out(reg) _,
            k1 = out(reg) _,
            k2 = out(reg) _,
            k3 = out(reg) _,
            options(readonly, nostack, preserves_flags),
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
