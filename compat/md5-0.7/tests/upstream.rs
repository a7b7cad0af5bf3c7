//! The md5 crate's own tests, rewritten, and differential tests against
//! md5 0.7.0 (`upstream`), written once for the md5 0.7 and 0.8 drop-ins:
//! see `md5x_testkit::md5_crate_tests`.

md5x_testkit::md5_crate_tests!(
    finish: compute,
    context_traits: ["Clone", "Write", "Send", "Sync"],
);
