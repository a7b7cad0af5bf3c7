//! LoongArch64 inline-asm backend: the whole block loop in one `asm!`, the
//! 16 message words of a block in registers.
//!
//! - LoongArch has 12-bit signed load offsets, so the 256-byte constant
//!   table is reached from one base register and each round constant costs
//!   one `ld.w`, against `lu12i.w` + `ori` (two ALU instructions) to build it.
//! - `add.w` and `rotri.w` work on the low 32 bits and sign-extend; `and`,
//!   `andn`, `orn`, `xor` keep a sign-extended value sign-extended, so every
//!   register always holds a valid 32-bit word.
//! - Each step loads the next step's constant and, once it has read its own
//!   `d`, adds the next message word and constant into `d`, the next step's
//!   `a`. What waits for the previous step's `b` is the boolean function,
//!   one add, the rotate and the add of `b`: 5 dependent instructions for F
//!   and I (`orn` gives `b | !d` in one), 4 for G (added instead of ORed)
//!   and H (the previous step's `b ^ c ^ d ^ d` is this step's `c ^ d`).
//! - The asm asks for 25 registers: 16 message words, `a b c d`, two
//!   temporaries and three pointers (block, constant table, and a small
//!   [`Ctx`] on the caller's stack that holds the input chaining value and
//!   the end pointer). Of LoongArch's 32 registers, `$r0`, `$tp`, `$sp` and
//!   `$r21` are never allocatable, `$fp` (`$r22`) is not in a function that
//!   keeps a frame pointer (`-Cforce-frame-pointers=yes`, or a caller with
//!   over-aligned locals), and `$r31` is not where LLVM needs a base
//!   pointer: 26 remain in the worst case. Keeping the chaining value and
//!   the end in memory costs 5 loads and 4 stores a block, off the
//!   dependency chain: 575 instructions a block against 570 with everything
//!   in 28 registers (`ci/mca.sh loongarch64`).
#![allow(clippy::many_single_char_names)]

use core::arch::asm;

/// The round constants, 256 bytes on aligned cache lines.
#[repr(C, align(64))]
struct Table([u32; 64]);
static RC: Table = Table(crate::consts::RC);

/// What the block loop reads and writes in memory besides the blocks and
/// `RC`: the chaining value that each block's result is added to, and the
/// end of the blocks (offsets 0 and 16).
#[repr(C)]
#[allow(dead_code)] // Only the asm reads the fields.
struct Ctx {
    state: [u32; 4],
    end: *const [u8; 64],
}

/// Loads the next step's constant, first thing in a step.
#[rustfmt::skip]
macro_rules! load_next {
    ($m:ident, $k:literal) => { concat!("ld.w {k}, {rc}, ", stringify!($k), "\n") };
    () => { "" };
}

/// Adds the next step's message word (`m`) or constant (`k`) into `$d`,
/// which the next step reads as its `a`; nothing after the last step.
#[rustfmt::skip]
macro_rules! next {
    (m $d:ident; $m:ident, $k:literal) => {
        concat!("add.w {", stringify!($d), "}, {", stringify!($d), "}, {", stringify!($m), "}\n")
    };
    (k $d:ident; $m:ident, $k:literal) => {
        concat!("add.w {", stringify!($d), "}, {", stringify!($d), "}, {k}\n")
    };
    ($x:ident $d:ident;) => { "" };
}

/// One step, `a = b + rotl(a + fn(b, c, d) + M + K, s)`, with `M + K`
/// already in `a`. The rotate is `rotri.w` by `32 - s`. The two adds for the
/// next step come after the step's last read of `d`, between the dependent
/// instructions.
///
/// `aarch64_asm.rs` has a `step!` with the same arms but other code (see
/// there); each backend spells out its own instructions.
#[rustfmt::skip]
macro_rules! step {
    // F = d ^ (b & (c ^ d)); `c ^ d` does not wait for `b`.
    (F, $a:ident $b:ident $c:ident $d:ident, $s:literal, [$($n:tt)*]) => {
        concat!(
            load_next!($($n)*),
            "xor {f}, {", stringify!($c), "}, {", stringify!($d), "}\n",
            "and {f}, {f}, {", stringify!($b), "}\n",
            "xor {f}, {f}, {", stringify!($d), "}\n",
            "add.w {", stringify!($a), "}, {", stringify!($a), "}, {f}\n",
            step!(tail, $a $b $d, $s, [$($n)*]),
        )
    };
    // G = (b & d) | (c & !d): the halves share no set bit, so `|` is `+`
    // and `c & !d` joins the sum before `b` is ready.
    (G, $a:ident $b:ident $c:ident $d:ident, $s:literal, [$($n:tt)*]) => {
        concat!(
            load_next!($($n)*),
            "andn {f}, {", stringify!($c), "}, {", stringify!($d), "}\n",
            "add.w {", stringify!($a), "}, {", stringify!($a), "}, {f}\n",
            "and {f}, {", stringify!($b), "}, {", stringify!($d), "}\n",
            "add.w {", stringify!($a), "}, {", stringify!($a), "}, {f}\n",
            step!(tail, $a $b $d, $s, [$($n)*]),
        )
    };
    // The first H step computes `c ^ d`; every H step leaves
    // `H ^ d = b ^ c` in `f`, the next step's `c ^ d`.
    (H0, $a:ident $b:ident $c:ident $d:ident, $s:literal, [$($n:tt)*]) => {
        concat!(
            "xor {f}, {", stringify!($c), "}, {", stringify!($d), "}\n",
            step!(H, $a $b $c $d, $s, [$($n)*]),
        )
    };
    (H, $a:ident $b:ident $c:ident $d:ident, $s:literal, [$($n:tt)*]) => {
        concat!(
            load_next!($($n)*),
            "xor {f}, {f}, {", stringify!($b), "}\n",
            "add.w {", stringify!($a), "}, {", stringify!($a), "}, {f}\n",
            "xor {f}, {f}, {", stringify!($d), "}\n",
            step!(tail, $a $b $d, $s, [$($n)*]),
        )
    };
    // I = c ^ (b | !d), with `orn`.
    (I, $a:ident $b:ident $c:ident $d:ident, $s:literal, [$($n:tt)*]) => {
        concat!(
            load_next!($($n)*),
            "orn {f}, {", stringify!($b), "}, {", stringify!($d), "}\n",
            "xor {f}, {f}, {", stringify!($c), "}\n",
            "add.w {", stringify!($a), "}, {", stringify!($a), "}, {f}\n",
            step!(tail, $a $b $d, $s, [$($n)*]),
        )
    };
    // a = b + rotl(a, s), with the next step's adds into `d` in between.
    (tail, $a:ident $b:ident $d:ident, $s:literal, [$($n:tt)*]) => {
        concat!(
            next!(m $d; $($n)*),
            "rotri.w {", stringify!($a), "}, {", stringify!($a), "}, 32-", stringify!($s), "\n",
            next!(k $d; $($n)*),
            "add.w {", stringify!($a), "}, {", stringify!($a), "}, {", stringify!($b), "}\n",
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
    let mut ctx = Ctx {
        state: *state,
        end: blocks.as_ptr_range().end,
    };
    // SAFETY: the asm reads `blocks.len() * 64` bytes from `blocks.as_ptr()`
    // (`ptr` advances by 64 per block up to `ctx.end`, and the loop runs at
    // least once, `blocks` being non-empty as checked above), the 256 bytes
    // of `RC`, and `ctx`, a live local that `ctx` points to exclusively
    // (`&mut`, `repr(C)`: `state` at offset 0, the 8-byte aligned `end` at
    // 16). Besides its declared register outputs it writes only
    // `ctx.state`. It pushes nothing on the stack (`nostack`: `ctx` is the
    // caller's, reached through the pointer); LoongArch has no flags
    // register (`preserves_flags`).
    unsafe {
        asm!(
            // `a b c d` hold the chaining value, and so does `ctx.state`.
            "2:",
            "ld.w {m0}, {ptr}, 0",
            "ld.w {m1}, {ptr}, 4",
            "ld.w {m2}, {ptr}, 8",
            "ld.w {m3}, {ptr}, 12",
            "ld.w {m4}, {ptr}, 16",
            "ld.w {m5}, {ptr}, 20",
            "ld.w {m6}, {ptr}, 24",
            "ld.w {m7}, {ptr}, 28",
            "ld.w {m8}, {ptr}, 32",
            "ld.w {m9}, {ptr}, 36",
            "ld.w {m10}, {ptr}, 40",
            "ld.w {m11}, {ptr}, 44",
            "ld.w {m12}, {ptr}, 48",
            "ld.w {m13}, {ptr}, 52",
            "ld.w {m14}, {ptr}, 56",
            "ld.w {m15}, {ptr}, 60",
            "addi.d {ptr}, {ptr}, 64",
            load_next!(m0, 0),
            // a = chaining value + M0 + K0
            "add.w {a}, {a}, {m0}",
            next!(k a; m0, 0),
            // Round 1.
            step!(F, a b c d, 7, [m1, 4]),
            step!(F, d a b c, 12, [m2, 8]),
            step!(F, c d a b, 17, [m3, 12]),
            step!(F, b c d a, 22, [m4, 16]),
            step!(F, a b c d, 7, [m5, 20]),
            step!(F, d a b c, 12, [m6, 24]),
            step!(F, c d a b, 17, [m7, 28]),
            step!(F, b c d a, 22, [m8, 32]),
            step!(F, a b c d, 7, [m9, 36]),
            step!(F, d a b c, 12, [m10, 40]),
            step!(F, c d a b, 17, [m11, 44]),
            step!(F, b c d a, 22, [m12, 48]),
            step!(F, a b c d, 7, [m13, 52]),
            step!(F, d a b c, 12, [m14, 56]),
            step!(F, c d a b, 17, [m15, 60]),
            step!(F, b c d a, 22, [m1, 64]),
            // Round 2.
            step!(G, a b c d, 5, [m6, 68]),
            step!(G, d a b c, 9, [m11, 72]),
            step!(G, c d a b, 14, [m0, 76]),
            step!(G, b c d a, 20, [m5, 80]),
            step!(G, a b c d, 5, [m10, 84]),
            step!(G, d a b c, 9, [m15, 88]),
            step!(G, c d a b, 14, [m4, 92]),
            step!(G, b c d a, 20, [m9, 96]),
            step!(G, a b c d, 5, [m14, 100]),
            step!(G, d a b c, 9, [m3, 104]),
            step!(G, c d a b, 14, [m8, 108]),
            step!(G, b c d a, 20, [m13, 112]),
            step!(G, a b c d, 5, [m2, 116]),
            step!(G, d a b c, 9, [m7, 120]),
            step!(G, c d a b, 14, [m12, 124]),
            step!(G, b c d a, 20, [m5, 128]),
            // Round 3.
            step!(H0, a b c d, 4, [m8, 132]),
            step!(H, d a b c, 11, [m11, 136]),
            step!(H, c d a b, 16, [m14, 140]),
            step!(H, b c d a, 23, [m1, 144]),
            step!(H, a b c d, 4, [m4, 148]),
            step!(H, d a b c, 11, [m7, 152]),
            step!(H, c d a b, 16, [m10, 156]),
            step!(H, b c d a, 23, [m13, 160]),
            step!(H, a b c d, 4, [m0, 164]),
            step!(H, d a b c, 11, [m3, 168]),
            step!(H, c d a b, 16, [m6, 172]),
            step!(H, b c d a, 23, [m9, 176]),
            step!(H, a b c d, 4, [m12, 180]),
            step!(H, d a b c, 11, [m15, 184]),
            step!(H, c d a b, 16, [m2, 188]),
            step!(H, b c d a, 23, [m0, 192]),
            // Round 4.
            step!(I, a b c d, 6, [m7, 196]),
            step!(I, d a b c, 10, [m14, 200]),
            step!(I, c d a b, 15, [m5, 204]),
            step!(I, b c d a, 21, [m12, 208]),
            step!(I, a b c d, 6, [m3, 212]),
            step!(I, d a b c, 10, [m10, 216]),
            step!(I, c d a b, 15, [m1, 220]),
            step!(I, b c d a, 21, [m8, 224]),
            step!(I, a b c d, 6, [m15, 228]),
            step!(I, d a b c, 10, [m6, 232]),
            step!(I, c d a b, 15, [m13, 236]),
            step!(I, b c d a, 21, [m4, 240]),
            step!(I, a b c d, 6, [m11, 244]),
            step!(I, d a b c, 10, [m2, 248]),
            step!(I, c d a b, 15, [m9, 252]),
            step!(I, b c d a, 21, []),
            // Add the input chaining value; the sums are the next block's,
            // in registers and in `ctx.state`.
            "ld.w {f}, {ctx}, 0",
            "ld.w {k}, {ctx}, 4",
            "add.w {a}, {a}, {f}",
            "add.w {b}, {b}, {k}",
            "ld.w {f}, {ctx}, 8",
            "ld.w {k}, {ctx}, 12",
            "add.w {c}, {c}, {f}",
            "add.w {d}, {d}, {k}",
            "st.w {a}, {ctx}, 0",
            "st.w {b}, {ctx}, 4",
            "st.w {c}, {ctx}, 8",
            "st.w {d}, {ctx}, 12",
            "ld.d {k}, {ctx}, 16",
            "bne {ptr}, {k}, 2b",
            a = inout(reg) a,
            b = inout(reg) b,
            c = inout(reg) c,
            d = inout(reg) d,
            ptr = inout(reg) blocks.as_ptr() => _,
            rc = in(reg) RC.0.as_ptr(),
            ctx = in(reg) &mut ctx as *mut Ctx,
            f = out(reg) _,
            k = out(reg) _,
            m0 = out(reg) _,
            m1 = out(reg) _,
            m2 = out(reg) _,
            m3 = out(reg) _,
            m4 = out(reg) _,
            m5 = out(reg) _,
            m6 = out(reg) _,
            m7 = out(reg) _,
            m8 = out(reg) _,
            m9 = out(reg) _,
            m10 = out(reg) _,
            m11 = out(reg) _,
            m12 = out(reg) _,
            m13 = out(reg) _,
            m14 = out(reg) _,
            m15 = out(reg) _,
            options(nostack, preserves_flags),
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
