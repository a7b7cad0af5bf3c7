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
//! assert_eq!(md5::Digest::from(context), digest);
//! ```
//!
//! It runs the compression backends of [`md5x_block`] (per-architecture
//! inline asm), as the `md-5` drop-ins of the same repository do, and
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
#![forbid(unsafe_code)]

#[cfg(feature = "std")]
extern crate std;

mod digest;

pub use digest::Digest;

/// A context.
#[derive(Clone)]
pub struct Context(md5x_block::State);

impl Context {
    /// Create a context for computing a digest.
    // md5 0.7 has no `Default` for `Context`, so this package has none
    // either.
    #[allow(clippy::new_without_default)]
    #[inline]
    pub fn new() -> Context {
        Context(md5x_block::State::new())
    }

    /// Consume data.
    #[inline]
    pub fn consume<T: AsRef<[u8]>>(&mut self, data: T) {
        self.0.update(data.as_ref());
    }

    /// Finalize and return the digest.
    #[inline]
    pub fn compute(self) -> Digest {
        Digest(self.0.finalize())
    }
}

impl From<Context> for Digest {
    #[inline]
    fn from(context: Context) -> Digest {
        Digest(context.0.finalize())
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
