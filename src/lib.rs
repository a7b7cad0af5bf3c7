//! An implementation of the [MD5][1] hash function: a faster drop-in
//! replacement for RustCrypto's `md-5` 0.10.
//!
//! MD5 is broken for security: collisions take seconds on a laptop. Use it
//! only where a protocol or format asks for it (checksums, ETags, HTTP digest
//! authentication, legacy database handshakes), never to resist an attacker.
//!
//! This package is the [`md5x`] crate under the name `[patch.crates-io]`
//! needs: `md-5`, its library named `md5`. It has md-5 0.10.6's API and
//! features, and md5x's additions: [`multi`], [`etag`], `files` and
//! [`const_digest`]. Code that is not replacing md-5 depends on md5x.
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
#![forbid(unsafe_code)]

pub use md5x::{backend, compress, const_digest, digest, etag, multi, Digest, Md5, Md5Core};

#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub use md5x::files;

/// Runs the README's Rust examples as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
