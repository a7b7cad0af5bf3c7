//! The block-level MD5 core and compression function, as in `md-5` 0.11.0.

// `Md5Core` over md5x-block's compression function, with what digest 0.11
// has beyond 0.10: `Drop` and zeroizing, serialization, and the public
// `compress`.
use core::{fmt, slice::from_ref};
use digest::{
    array::Array,
    block_api::{
        AlgorithmName, Block, BlockSizeUser, Buffer, BufferKindUser, Eager, FixedOutputCore,
        OutputSizeUser, Reset, UpdateCore,
    },
    common::hazmat::{DeserializeStateError, SerializableState, SerializedState},
    typenum::{Unsigned, U16, U24, U64},
    HashMarker, Output,
};

/// Core MD5 hasher state: the chaining value and the count of blocks
/// compressed so far. Most users want [`Md5`](crate::Md5), which adds the
/// buffer.
#[derive(Clone)]
pub struct Md5Core {
    pub(crate) block_len: u64,
    pub(crate) state: [u32; 4],
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
        md5x_block::compress(&mut self.state, as_blocks(blocks));
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
            md5x_block::compress(&mut s, as_blocks(from_ref(b)));
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
            state: md5x_block::consts::STATE_INIT,
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
    md5x_block::compress(state, blocks);
}
