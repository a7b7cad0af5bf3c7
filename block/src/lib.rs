//! The MD5 compression function ([RFC 1321]) and what every MD5 API wraps
//! around it: the constants, the padding, and a streaming [`State`].
//!
//! The function runs the fastest backend this build has: inline asm on
//! x86_64, little-endian AArch64 and LoongArch64, portable Rust elsewhere
//! and under Miri. The portable backend is [`soft`], always built: the
//! oracle of the others, and a `const fn` ([`soft::digest`]).
//!
//! This crate is the core of [md5x](https://crates.io/crates/md5x) and of
//! its drop-ins for the `md-5` and `md5` crates; it depends on no `digest`
//! crate, so a drop-in brings none but its own. Most users want md5x.
//!
//! MD5 is broken for security: use it only where a protocol or format asks
//! for it, never to resist an attacker.
//!
//! ```
//! let mut state = md5x_block::State::new();
//! state.update(b"message ");
//! state.update(b"digest");
//! assert_eq!(state.finalize(), md5x_block::soft::digest(b"message digest"));
//! ```
//!
//! [RFC 1321]: https://www.rfc-editor.org/rfc/rfc1321

#![no_std]
#![warn(missing_docs, rust_2018_idioms, unreachable_pub)]
#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks)]

pub mod consts;
pub mod pad;
pub mod soft; // always built: the fallback, the test oracle, const digests
mod state;

pub use state::{Backend, Fastest, Soft, State};

cfg_if::cfg_if! {
    // Miri cannot run inline asm.
    if #[cfg(any(md5_backend = "soft", feature = "force-soft", miri))] {
        use soft::compress as compress_inner;
        const BACKEND: &str = "soft";
    } else if #[cfg(target_arch = "x86_64")] {
        mod x86_64_asm;
        use x86_64_asm::compress as compress_inner;
        const BACKEND: &str = "x86_64-asm";
    } else if #[cfg(all(target_arch = "aarch64", target_endian = "little"))] {
        mod aarch64_asm;
        use aarch64_asm::compress as compress_inner;
        const BACKEND: &str = "aarch64-asm";
    } else if #[cfg(target_arch = "loongarch64")] {
        mod loongarch64_asm;
        use loongarch64_asm::compress as compress_inner;
        const BACKEND: &str = "loongarch64-asm";
    } else {
        use soft::compress as compress_inner;
        const BACKEND: &str = "soft";
    }
}

/// Compresses each 64-byte block of `blocks` into the chaining value
/// `state`, with the backend chosen for this build. This is the raw block
/// function, without padding or length.
///
/// ```
/// // One block holding the padded empty message.
/// let mut block = [0u8; 64];
/// block[0] = 0x80;
/// let mut state = md5x_block::consts::STATE_INIT;
/// md5x_block::compress(&mut state, &[block]);
/// assert_eq!(state[0].to_le_bytes(), [0xd4, 0x1d, 0x8c, 0xd9]);
/// ```
#[inline]
pub fn compress(state: &mut [u32; 4], blocks: &[[u8; 64]]) {
    compress_inner(state, blocks);
}

/// Names the backend [`compress`] runs: `"soft"` (portable Rust),
/// `"x86_64-asm"`, `"aarch64-asm"` or `"loongarch64-asm"`. Equal digests
/// cannot show which code ran; this can.
pub const fn backend() -> &'static str {
    BACKEND
}

/// Checks a backend's `compress` against [`soft::compress`] on seeded random
/// input: no blocks, one block, many blocks, and a run of single blocks
/// threaded through the same state. Each backend's own test calls this.
#[cfg(test)]
fn check_against_soft(backend: fn(&mut [u32; 4], &[[u8; 64]])) {
    let mut rng = md5x_testkit::Rng(0x0123_4567_89ab_cdef);
    let mut blocks = [[0u8; 64]; 37];
    for block in blocks.iter_mut() {
        for byte in block.iter_mut() {
            *byte = rng.next() as u8;
        }
    }
    // Edge patterns: all zero and all ones.
    blocks[1] = [0; 64];
    blocks[2] = [0xff; 64];
    for n in 0..=blocks.len() {
        let init = [0; 4].map(|_: u32| rng.next() as u32);
        let (mut want, mut got) = (init, init);
        soft::compress(&mut want, &blocks[..n]);
        backend(&mut got, &blocks[..n]);
        assert_eq!(got, want, "{n} blocks");
    }
    let (mut want, mut got) = (consts::STATE_INIT, consts::STATE_INIT);
    for block in &blocks {
        soft::compress(&mut want, core::slice::from_ref(block));
        backend(&mut got, core::slice::from_ref(block));
        assert_eq!(got, want);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn selected_backend_matches_soft() {
        super::check_against_soft(super::compress);
    }

    #[test]
    fn backend_is_the_one_this_target_must_run() {
        assert_eq!(
            super::backend(),
            md5x_testkit::backend::expected(cfg!(feature = "force-soft"))
        );
    }
}
