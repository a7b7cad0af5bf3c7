//! Fast [MD5][1]: the `digest` 0.10 hasher [`Md5`], many messages at once
//! in SIMD lanes ([`multi`]), S3 multipart ETags ([`etag`]), files read and
//! hashed in parallel (`files`, with `std`) and digests at compile time
//! ([`const_digest`]). The `md-5` 0.10.7 package of the same repository is
//! all of this under the name `md5`: a drop-in for RustCrypto's `md-5` 0.10.
//!
//! MD5 is broken for security: collisions take seconds on a laptop. Use it
//! only where a protocol or format asks for it (checksums, ETags, HTTP digest
//! authentication, legacy database handshakes), never to resist an attacker.
//!
//! # Usage
//!
//! ```rust
//! use md5x::{Digest, Md5};
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

mod block_api;
#[cfg(feature = "std")]
mod cache_hints;
#[cfg(feature = "std")]
mod control;
pub mod etag;
#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub mod files;
pub mod multi;

use digest::core_api::CoreWrapper;

pub use block_api::Md5Core;

/// MD5 hasher state.
pub type Md5 = CoreWrapper<Md5Core>;

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
/// md5x::compress(&mut state, &[block]);
/// assert_eq!(state[0].to_le_bytes(), [0xd4, 0x1d, 0x8c, 0xd9]);
/// ```
#[inline]
pub fn compress(state: &mut [u32; 4], blocks: &[[u8; 64]]) {
    md5x_block::compress(state, blocks);
}

/// Names the compression backend this build runs: `"soft"` (portable Rust),
/// `"x86_64-asm"`, `"aarch64-asm"` or `"loongarch64-asm"`.
///
/// Equal digests cannot show which code ran; this can, for tests and for
/// `md5sum --version`.
pub const fn backend() -> &'static str {
    md5x_block::backend()
}

/// Computes the MD5 digest of `data` in a `const` context.
///
/// It runs the portable backend, so at run time prefer [`Digest::digest`] on [`Md5`]; in a
/// `const` item the hash costs nothing at run time:
///
/// ```
/// const EMPTY: [u8; 16] = md5x::const_digest(b"");
/// assert_eq!(EMPTY, hex_literal::hex!("d41d8cd98f00b204e9800998ecf8427e"));
/// ```
pub const fn const_digest(data: &[u8]) -> [u8; 16] {
    md5x_block::soft::digest(data)
}

/// Runs the README's Rust examples as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
