//! An implementation of the [MD5][1] hash function: a faster drop-in
//! replacement for RustCrypto's `md-5` 0.11 (`digest` 0.11 traits).
//!
//! It has the API of `md-5` 0.11.0 over the compression backends of
//! [`md5x_block`], which the `md-5` 0.10 drop-in of the same repository runs
//! too, so both major versions of the crate in one dependency tree get the
//! same speed. md5x-block depends on no `digest`: a tree that holds only
//! this version gains that one package.
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
//! assert_eq!(result, hex!("5eb63bbbe01eeed093cb22bb8f5acdc3"));
//! ```
//!
//! The hasher state can be saved and restored mid-stream, in the byte layout
//! of `md-5` 0.11.0:
//!
//! ```rust
//! use md5::{Digest, Md5};
//! use md5::digest::common::hazmat::SerializableState;
//!
//! let mut hasher = Md5::new();
//! hasher.update(b"hello ");
//! let saved = hasher.serialize();
//!
//! let mut resumed = Md5::deserialize(&saved).unwrap();
//! resumed.update(b"world");
//! assert_eq!(resumed.finalize(), Md5::digest(b"hello world"));
//! ```
//!
//! # Backends
//!
//! The compression function is md5x-block's, picked as in the `md-5` 0.10
//! package of this repository (see [`backend`]). Build with
//! `RUSTFLAGS='--cfg md5_backend="soft"'` to use the portable Rust code
//! everywhere, as with `md-5` 0.11.0.
//!
//! [1]: https://en.wikipedia.org/wiki/MD5

#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs, rust_2018_idioms, unreachable_pub)]
#![forbid(unsafe_code)]

pub use digest::{self, Digest};

pub mod block_api;

digest::buffer_fixed!(
    /// MD5 hasher state.
    pub struct Md5(block_api::Md5Core);
    oid: "1.2.840.113549.2.5";
    impl: FixedHashTraits;
);

/// Names the compression backend this build runs: `"soft"` (portable Rust)
/// or the name of an architecture-specific backend.
///
/// It is md5x-block's choice, the same as in the `md-5` 0.10 package of
/// this repository. Equal digests cannot show which code ran; this
/// can.
pub const fn backend() -> &'static str {
    md5x_block::backend()
}

/// Computes the MD5 digest of `data` in a `const` context.
///
/// It runs the portable backend, so at run time prefer [`Digest::digest`];
/// in a `const` item the hash costs nothing at run time:
///
/// ```
/// const EMPTY: [u8; 16] = md5::const_digest(b"");
/// assert_eq!(EMPTY, hex_literal::hex!("d41d8cd98f00b204e9800998ecf8427e"));
/// ```
pub const fn const_digest(data: &[u8]) -> [u8; 16] {
    md5x_block::soft::digest(data)
}

/// Runs the README's Rust examples as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
