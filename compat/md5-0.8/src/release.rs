// What md5 0.8 spells its own way: a context finishes with `finalize`,
// `compute` stays as a deprecated name for it, and `Context` has `Default`.
// Included into the crate root (see `lib.rs`), so that the deprecation
// names `md5::Context::compute`, as md5 0.8.1's does.

impl Context {
    /// Finalize and return the digest.
    #[inline]
    pub fn finalize(self) -> Digest {
        self.0.finalize()
    }

    /// Finalize and return the digest.
    #[deprecated(since = "0.8.0", note = "Use `finalize`.")]
    #[inline]
    pub fn compute(self) -> Digest {
        self.finalize()
    }
}

impl Default for Context {
    #[inline]
    fn default() -> Self {
        Self::new()
    }
}
