// The md5 0.7 and 0.8 packages share this file (`compat/md5-0.7/src/lib.rs`
// is a link to it) and `state.rs`; `release.rs`, each package's own, holds
// what the two releases' APIs spell differently. It is included into this
// module, not a module of its own: rustc names an inherent method by its
// type's path (`md5::Context::compute`, as in the releases' own messages)
// only when the impl sits in the module that defines the type.

#![doc = concat!(
    "The [MD5] hash function, with the API of the `md5` crate ",
    env!("CARGO_PKG_VERSION_MAJOR"),
    ".",
    env!("CARGO_PKG_VERSION_MINOR"),
    ": a faster\ndrop-in replacement for it."
)]
//!
//! ## Example
//!
//! ```
//! let digest = md5::compute(b"abcdefghijklmnopqrstuvwxyz");
//! assert_eq!(format!("{:x}", digest), "c3fcd3d76192e4007dfb496cca67e13b");
//!
//! let mut context = md5::Context::new();
//! context.consume(b"abcdefghijklm");
//! context.consume(b"nopqrstuvwxyz");
//! assert_eq!(md5::Digest::from(context), digest);
//! ```
//!
//! A [`Context`] also finishes by a method, named as in the release this
//! package replaces: `compute` in md5 0.7, `finalize` in 0.8.
//!
//! It compiles the compression backends of the `md-5` package in the same
//! repository (per-architecture inline asm, from the same source files) and
//! depends on no `digest` crate.
//!
//! ## Security warning
//!
//! MD5 is broken for security: collisions take seconds on a laptop. Use it
//! only where a protocol or format asks for it (checksums, ETags, legacy
//! handshakes), never to resist an attacker.
//!
//! [MD5]: https://en.wikipedia.org/wiki/MD5

#![no_std]
#![warn(missing_docs, rust_2018_idioms, unreachable_pub)]
#![deny(
    unsafe_code,
    unsafe_op_in_unsafe_fn,
    clippy::undocumented_unsafe_blocks
)]

#[cfg(feature = "std")]
extern crate std;

// The backends, shared with the md-5 package at the repository root:
// `compress.rs`, `compress/` and `consts.rs` are symbolic links to its
// `src/`, which `cargo package` stores as plain files. The asm backends are
// the only unsafe code in this package; each block carries its SAFETY note.
// Not every item there is used by every package that compiles it.
#[allow(unsafe_code, dead_code)]
mod compress;
mod consts;
mod state;

pub use state::Digest;

/// A context.
#[derive(Clone)]
pub struct Context(state::State);

impl Context {
    /// Create a context for computing a digest.
    // md5 0.7 has no `Default` for `Context`, so that package has none
    // either; md5 0.8's is in its `release.rs`.
    #[allow(clippy::new_without_default)]
    #[inline]
    pub fn new() -> Context {
        Context(state::State::new())
    }

    /// Consume data.
    #[inline]
    pub fn consume<T: AsRef<[u8]>>(&mut self, data: T) {
        self.0.update(data.as_ref());
    }
}

impl From<Context> for Digest {
    #[inline]
    fn from(context: Context) -> Digest {
        context.0.finalize()
    }
}

#[cfg(feature = "std")]
impl std::io::Write for Context {
    #[inline]
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.consume(data);
        Ok(data.len())
    }

    #[inline]
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

include!("release.rs");

/// Compute the digest of data.
#[inline]
pub fn compute<T: AsRef<[u8]>>(data: T) -> Digest {
    let mut context = Context::new();
    context.consume(data);
    context.0.finalize()
}

/// Runs the README's Rust examples as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
