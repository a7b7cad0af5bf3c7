//! An implementation of the [MD5][1] hash function: a faster drop-in
//! replacement for RustCrypto's `md-5` 0.10.
//!
//! MD5 is broken for security: collisions take seconds on a laptop. Use it
//! only where a protocol or format asks for it (checksums, ETags, HTTP digest
//! authentication, legacy database handshakes), never to resist an attacker.
//!
//! # Usage
//!
//! ```rust
//! use md5::{Digest, Md5};
//! use hex_literal::hex;
//!
//! let mut hasher = Md5::new();
//! hasher.update(b"hello ");
//! hasher.update(b"world");
//! let result = hasher.finalize();
//! assert_eq!(result[..], hex!("5eb63bbbe01eeed093cb22bb8f5acdc3"));
//!
//! // One-shot, and as lowercase hex:
//! assert_eq!(
//!     format!("{:x}", Md5::digest(b"hello world")),
//!     "5eb63bbbe01eeed093cb22bb8f5acdc3",
//! );
//! ```
//!
//! A digest can also be computed at compile time with [`const_digest`].
//!
//! [1]: https://en.wikipedia.org/wiki/MD5

#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs, rust_2018_idioms, unreachable_pub)]
#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks)]

#[cfg(feature = "std")]
extern crate std;

pub use digest::{self, Digest};

mod compress;
mod consts;
pub mod etag;
pub mod multi;

use core::{fmt, slice::from_ref};
#[cfg(feature = "oid")]
use digest::const_oid::{AssociatedOid, ObjectIdentifier};
use digest::{
    block_buffer::Eager,
    core_api::{
        AlgorithmName, Block, BlockSizeUser, Buffer, BufferKindUser, CoreWrapper, FixedOutputCore,
        OutputSizeUser, Reset, UpdateCore,
    },
    typenum::{Unsigned, U16, U64},
    HashMarker, Output,
};

/// Core MD5 hasher state: the chaining value and the count of blocks
/// compressed so far. Most users want [`Md5`], which adds the buffer.
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
        compress::compress(&mut self.state, convert(blocks));
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
            compress::compress(&mut s, convert(from_ref(b)));
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
            state: consts::STATE_INIT,
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

/// MD5 hasher state.
pub type Md5 = CoreWrapper<Md5Core>;

const BLOCK_SIZE: usize = <Md5Core as BlockSizeUser>::BlockSize::USIZE;

#[inline(always)]
fn convert(blocks: &[Block<Md5Core>]) -> &[[u8; BLOCK_SIZE]] {
    // What the cast below relies on, checked by the compiler.
    const _: () = {
        assert!(size_of::<Block<Md5Core>>() == BLOCK_SIZE);
        assert!(align_of::<Block<Md5Core>>() == 1);
    };
    let p = blocks.as_ptr().cast::<[u8; BLOCK_SIZE]>();
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

/// The MD5 compression function, with the fastest backend of this build:
/// compresses each 64-byte block of `blocks` into the chaining value `state`.
///
/// This is the raw block function, without padding or length; most users
/// want [`Md5`]. It is public so that other code (multi-buffer schedulers,
/// other hash APIs) can reuse the same backends.
///
/// ```
/// // One block holding the padded empty message.
/// let mut block = [0u8; 64];
/// block[0] = 0x80;
/// let mut state = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476];
/// md5::compress(&mut state, &[block]);
/// assert_eq!(state[0].to_le_bytes(), [0xd4, 0x1d, 0x8c, 0xd9]);
/// ```
#[inline]
pub fn compress(state: &mut [u32; 4], blocks: &[[u8; 64]]) {
    compress::compress(state, blocks);
}

/// Names the compression backend this build runs: `"soft"` (portable Rust),
/// `"x86_64-asm"`, `"aarch64-asm"` or `"loongarch64-asm"`.
///
/// Equal digests cannot show which code ran; this can, for tests and for
/// `md5sum --version`.
pub const fn backend() -> &'static str {
    compress::backend()
}

/// Not API: the portable backend, for this crate's benches. It may change or
/// go away in any release.
#[doc(hidden)]
pub fn __soft_compress(state: &mut [u32; 4], blocks: &[[u8; 64]]) {
    compress::soft::compress(state, blocks);
}

/// Computes the MD5 digest of `data` in a `const` context.
///
/// It runs the portable backend, so at run time prefer [`Digest::digest`] on [`Md5`]; in a
/// `const` item the hash costs nothing at run time:
///
/// ```
/// const EMPTY: [u8; 16] = md5::const_digest(b"");
/// assert_eq!(EMPTY, hex_literal::hex!("d41d8cd98f00b204e9800998ecf8427e"));
/// ```
pub const fn const_digest(data: &[u8]) -> [u8; 16] {
    compress::soft::digest(data)
}

/// Runs the README's Rust examples as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
