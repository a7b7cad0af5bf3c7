//! [`Md5Core`] in `digest` 0.10: the trait names that `md5_core.rs` (shared
//! with md-5 0.11) implements, and what is 0.10's own: the cast of its
//! blocks to the backends' `[u8; 64]`, and the OID.
//!
//! `benches/compare.rs` compiles this module too, with the soft backend as
//! its `crate::compress`, so that its soft contender runs this same code.

#[cfg(feature = "oid")]
use digest::const_oid::{AssociatedOid, ObjectIdentifier};
// What `md5_core.rs` imports from here.
use digest::{
    block_buffer::Eager,
    core_api::{
        AlgorithmName, Block, BlockSizeUser, Buffer, BufferKindUser, FixedOutputCore,
        OutputSizeUser, Reset, UpdateCore,
    },
};

#[path = "md5_core.rs"]
mod md5_core;

pub use md5_core::Md5Core;

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
