//! Names the two target conditions `md5::multi` builds its SIMD kernels
//! under, so that the source says `cfg(md5_sse2)` rather than spelling the
//! condition out on every item:
//!
//! * `md5_sse2`: x86_64 with SSE2 enabled (every x86_64 target with SIMD
//!   registers; not `x86_64-unknown-none`). The SSE2 kernel is baseline
//!   there, and AVX2 and AVX-512 are detected at run time.
//! * `md5_neon`: little-endian aarch64 with NEON enabled (not
//!   `aarch64-unknown-none-softfloat`).

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rustc-check-cfg=cfg(md5_sse2)");
    println!("cargo::rustc-check-cfg=cfg(md5_neon)");

    let var = |name| std::env::var(name).unwrap_or_default();
    let arch = var("CARGO_CFG_TARGET_ARCH");
    let features = var("CARGO_CFG_TARGET_FEATURE");
    let has = |f| features.split(',').any(|x| x == f);
    if arch == "x86_64" && has("sse2") {
        println!("cargo::rustc-cfg=md5_sse2");
    }
    if arch == "aarch64" && var("CARGO_CFG_TARGET_ENDIAN") == "little" && has("neon") {
        println!("cargo::rustc-cfg=md5_neon");
    }
}
