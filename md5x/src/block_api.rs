//! [`Md5Core`]: the `digest` 0.10 block core around
//! [`md5x_block::compress`], and the cast of `digest`'s blocks to the
//! `[u8; 64]` blocks the backends take.

use core::{fmt, slice::from_ref};
#[cfg(feature = "oid")]
use digest::const_oid::{AssociatedOid, ObjectIdentifier};
use digest::{
    block_buffer::Eager,
    core_api::{
        AlgorithmName, Block, BlockSizeUser, Buffer, BufferKindUser, FixedOutputCore,
        OutputSizeUser, Reset, UpdateCore,
    },
    typenum::{Unsigned, U16, U64},
    HashMarker, Output,
};

/// Core MD5 hasher state: the chaining value and the count of blocks
/// compressed so far. Most users want [`Md5`](crate::Md5), which adds the
/// buffer.
#[derive(Clone)]
pub struct Md5Core {
    block_len: u64,
    state: [u32; 4],
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

#[cfg(feature = "oid")]
#[cfg_attr(docsrs, doc(cfg(feature = "oid")))]
impl AssociatedOid for Md5Core {
    const OID: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.2.5");
}

/// `blocks` as the `[u8; 64]` blocks the backends take, without a copy.
#[inline(always)]
fn as_blocks(blocks: &[Block<Md5Core>]) -> &[[u8; 64]] {
    // What the cast below relies on, checked by the compiler.
    const _: () = {
        assert!(size_of::<Block<Md5Core>>() == 64);
        assert!(align_of::<Block<Md5Core>>() == 1);
    };
    let p = blocks.as_ptr().cast::<[u8; 64]>();
    // SAFETY: `GenericArray<u8, U64>` is `repr(transparent)` over a tree of
    // `repr(C)` structs (`GenericArrayImplEven`, two equal halves each)
    // whose leaves are 64 `u8` fields: `repr(C)` lays fields out in order,
    // and fields of alignment 1 leave no padding, so the bytes are those of
    // a `[u8; 64]` (generic-array's own `Deref` to `[T]` rests on the same
    // layout; size and alignment are asserted above). A slice of `n` such
    // arrays is therefore `n * 64` initialised bytes, readable as `n`
    // `[u8; 64]` for the lifetime of `blocks`.
    unsafe { core::slice::from_raw_parts(p, blocks.len()) }
}
