//! The backend each target and configuration must run, for the tests of
//! md-5 0.10 (`tests/md5.rs`) and 0.11 (`compat/md-5-0.11/tests/common/`
//! links to this file), which compile the same `src/compress.rs`.

/// What `md5::backend()` must say here: equal digests cannot show which code
/// ran, so a silent fallback to `soft` fails against this. The packages
/// under compat/ have no `force-soft` feature, so there it is never on.
#[allow(clippy::if_same_then_else)] // one arm per target; several name the same backend
pub(crate) fn expected() -> &'static str {
    if cfg!(any(md5_backend = "soft", feature = "force-soft", miri)) {
        "soft"
    } else if cfg!(target_arch = "x86_64") {
        "x86_64-asm"
    } else if cfg!(all(target_arch = "aarch64", target_endian = "little")) {
        "aarch64-asm"
    } else if cfg!(target_arch = "loongarch64") {
        "loongarch64-asm"
    } else {
        "soft"
    }
}
