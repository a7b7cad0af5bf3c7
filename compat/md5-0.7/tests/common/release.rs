//! What the tests and benches of the md5 0.7 and 0.8 packages (one set,
//! in `compat/md5-0.8`; `compat/md5-0.7` links to it) need from this
//! release's API, spelt as md5 0.7 spells it.
#![allow(dead_code)] // each includer uses its own subset

/// `finish!(context)` finishes a context, this package's or upstream's:
/// md5 0.7 calls it `compute`.
macro_rules! finish {
    ($context:expr) => {
        $context.compute()
    };
}
pub(crate) use finish;

/// `finish_fn!(krate)` names the method that finishes a context, in the
/// crate `krate` (`md5` or `upstream`).
macro_rules! finish_fn {
    ($krate:ident) => {
        $krate::Context::compute
    };
}
pub(crate) use finish_fn;

/// The release this package replaces, as the benches name it.
pub(crate) const UPSTREAM: &str = "upstream-0.7.0";

/// The traits md5 0.7.0's `Context` implements, of those
/// `tests/upstream.rs` probes.
pub(crate) const CONTEXT_TRAITS: &[&str] = &["Clone", "Write", "Send", "Sync"];
