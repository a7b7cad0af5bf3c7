//! The compression backend each target and configuration must run.

/// What `backend()` of md-5 0.10, md-5 0.11 or md5x must say here, given
/// whether the package's own `force-soft` feature is on (the packages
/// without one pass `false`): equal digests cannot show which code ran, so
/// a silent fallback to `soft` fails against this.
#[allow(clippy::if_same_then_else)] // one arm per target; several name the same backend
pub fn expected(force_soft: bool) -> &'static str {
    if force_soft || cfg!(any(md5_backend = "soft", miri)) {
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
