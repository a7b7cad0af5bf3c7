//! The [MD5] hash function, with the API of the `md5` crate 0.7: a faster
//! drop-in replacement for it.
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
//! assert_eq!(context.compute(), digest);
//! ```
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

// md5 0.7 has no `Default` for `Context`; neither does this package.
#[allow(clippy::new_without_default)]
impl Context {
    /// Create a context for computing a digest.
    #[inline]
    pub fn new() -> Context {
        Context(state::State::new())
    }

    /// Consume data.
    #[inline]
    pub fn consume<T: AsRef<[u8]>>(&mut self, data: T) {
        self.0.update(data.as_ref());
    }

    /// Finalize and return the digest.
    #[inline]
    pub fn compute(self) -> Digest {
        self.0.finalize()
    }
}

impl From<Context> for Digest {
    #[inline]
    fn from(context: Context) -> Digest {
        context.compute()
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

/// Compute the digest of data.
#[inline]
pub fn compute<T: AsRef<[u8]>>(data: T) -> Digest {
    let mut context = Context::new();
    context.consume(data);
    context.compute()
}

/// Runs the README's Rust examples as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
