//! The block-level MD5 core and compression function, as in `md-5` 0.11.0.

// `Md5Core` and its trait impls that read the same in `digest` 0.10 are in
// `md5_core.rs`, a link to the root package's file. This module imports
// digest 0.11's traits for it (`md5_core.rs` takes their names and
// `as_blocks` from here) and adds what only 0.11 has: `Drop` and zeroizing,
// serialization, and the public `compress`.
use digest::{
    array::Array,
    block_api::{
        AlgorithmName, Block, BlockSizeUser, Buffer, BufferKindUser, Eager, FixedOutputCore,
        OutputSizeUser, Reset, UpdateCore,
    },
    common::hazmat::{DeserializeStateError, SerializableState, SerializedState},
    typenum::{U16, U24},
};

#[path = "md5_core.rs"]
mod md5_core;

pub use md5_core::Md5Core;

/// `blocks` as the `[u8; 64]` blocks the backends take, without a copy.
#[inline(always)]
fn as_blocks(blocks: &[Block<Md5Core>]) -> &[[u8; 64]] {
    Array::cast_slice_to_core(blocks)
}

// md-5 0.11.0 implements `Drop` with or without `zeroize`; so does this
// package, so that the two types allow the same code.
impl Drop for Md5Core {
    fn drop(&mut self) {
        #[cfg(feature = "zeroize")]
        {
            use digest::zeroize::Zeroize;
            self.state.zeroize();
            self.block_len.zeroize();
        }
    }
}

#[cfg(feature = "zeroize")]
impl digest::zeroize::ZeroizeOnDrop for Md5Core {}

/// The serialized core is 24 bytes, as in `md-5` 0.11.0: the four state
/// words, then the block count, all little-endian.
impl SerializableState for Md5Core {
    type SerializedStateSize = U24;

    fn serialize(&self) -> SerializedState<Self> {
        let mut out = SerializedState::<Self>::default();
        let (words, block_len) = out.split_at_mut(16);
        for (chunk, v) in words.chunks_exact_mut(4).zip(self.state.iter()) {
            chunk.copy_from_slice(&v.to_le_bytes());
        }
        block_len.copy_from_slice(&self.block_len.to_le_bytes());
        out
    }

    fn deserialize(
        serialized_state: &SerializedState<Self>,
    ) -> Result<Self, DeserializeStateError> {
        let (words, block_len) = serialized_state.split_ref::<U16>();
        let mut state = [0u32; 4];
        for (v, chunk) in state.iter_mut().zip(words.chunks_exact(4)) {
            *v = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        }
        Ok(Self {
            state,
            block_len: u64::from_le_bytes(block_len.0),
        })
    }
}

/// The MD5 compression function: compresses each 64-byte block of `blocks`
/// into the chaining value `state`, without padding or length.
///
/// It runs the fastest backend of this build (see [`backend`](crate::backend)).
///
/// ```
/// // One block holding the padded empty message.
/// let mut block = [0u8; 64];
/// block[0] = 0x80;
/// let mut state = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476];
/// md5::block_api::compress(&mut state, &[block]);
/// assert_eq!(state[0].to_le_bytes(), [0xd4, 0x1d, 0x8c, 0xd9]);
/// ```
#[inline]
pub fn compress(state: &mut [u32; 4], blocks: &[[u8; 64]]) {
    crate::compress::compress(state, blocks);
}
