//! `Md5Core` and the trait impls that read the same in `digest` 0.10 and
//! 0.11, written once: `src/block_api.rs` (md-5 0.10) and
//! `compat/md-5-0.11/src/block_api.rs` (md-5 0.11, through a link to this
//! file) each declare this module. The two `digest` versions give these
//! traits the same names and methods but live in other crates, so the
//! declaring module imports them from its own `digest`, and defines
//! `as_blocks`, the cast of its block type to the `[u8; 64]` blocks the
//! backends take; what only one version has (0.10's OID, 0.11's
//! serialization and zeroizing) stays there. `benches/compare.rs` compiles
//! this module once more, over the soft backend.

use super::{
    as_blocks, AlgorithmName, Block, BlockSizeUser, Buffer, BufferKindUser, Eager, FixedOutputCore,
    OutputSizeUser, Reset, UpdateCore,
};
use core::{fmt, slice::from_ref};
use digest::{
    typenum::{Unsigned, U16, U64},
    HashMarker, Output,
};

/// Core MD5 hasher state: the chaining value and the count of blocks
/// compressed so far. Most users want [`Md5`](crate::Md5), which adds the
/// buffer.
#[derive(Clone)]
pub struct Md5Core {
    pub(super) block_len: u64,
    pub(super) state: [u32; 4],
}

impl HashMarker for Md5Core {}

impl BlockSizeUser for Md5Core {
    type BlockSize = U64;
}

impl BufferKindUser for Md5Core {
    type BufferKind = Eager;
}

impl OutputSizeUser for Md5Core {
    type OutputSize = U16;
}

impl UpdateCore for Md5Core {
    #[inline]
    fn update_blocks(&mut self, blocks: &[Block<Self>]) {
        self.block_len = self.block_len.wrapping_add(blocks.len() as u64);
        crate::compress::compress(&mut self.state, as_blocks(blocks));
    }
}

impl FixedOutputCore for Md5Core {
    #[inline]
    fn finalize_fixed_core(&mut self, buffer: &mut Buffer<Self>, out: &mut Output<Self>) {
        let bit_len = self
            .block_len
            .wrapping_mul(Self::BlockSize::U64)
            .wrapping_add(buffer.get_pos() as u64)
            .wrapping_mul(8);
        let mut s = self.state;
        buffer.len64_padding_le(bit_len, |b| {
            crate::compress::compress(&mut s, as_blocks(from_ref(b)));
        });
        for (chunk, v) in out.chunks_exact_mut(4).zip(s.iter()) {
            chunk.copy_from_slice(&v.to_le_bytes());
        }
    }
}

impl Default for Md5Core {
    #[inline]
    fn default() -> Self {
        Self {
            block_len: 0,
            state: crate::consts::STATE_INIT,
        }
    }
}

impl Reset for Md5Core {
    #[inline]
    fn reset(&mut self) {
        *self = Default::default();
    }
}

impl AlgorithmName for Md5Core {
    fn write_alg_name(f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Md5")
    }
}

impl fmt::Debug for Md5Core {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Md5Core { ... }")
    }
}
