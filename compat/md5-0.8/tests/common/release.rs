//! What the tests and benches of the md5 0.7 and 0.8 packages (one set,
//! in `compat/md5-0.8`; `compat/md5-0.7` links to it) need from this
//! release's API, spelt as md5 0.8 spells it.
#![allow(dead_code)] // each includer uses its own subset

/// `finish!(context)` finishes a context, this package's or upstream's:
/// md5 0.8 calls it `finalize`.
macro_rules! finish {
    ($context:expr) => {
        $context.finalize()
    };
}
pub(crate) use finish;

/// The paths rustc gives the method that finishes a context, this
/// package's and upstream's: md5 0.8 calls it `finalize`.
pub(crate) fn finish_paths() -> [&'static str; 2] {
    [
        std::any::type_name_of_val(&md5::Context::finalize),
        std::any::type_name_of_val(&upstream::Context::finalize),
    ]
}

/// The release this package replaces, as the benches name it.
pub(crate) const UPSTREAM: &str = "upstream-0.8.1";

/// The traits md5 0.8.1's `Context` implements, of those
/// `tests/upstream.rs` probes.
pub(crate) const CONTEXT_TRAITS: &[&str] = &["Clone", "Default", "Write", "Send", "Sync"];
