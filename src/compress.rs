//! The single-stream compression function. This module is the one place that
//! chooses its backend; everything else calls [`compress`].

#[cfg_attr(not(test), allow(dead_code))]
pub(crate) mod soft; // always built: the fallback and the test oracle

cfg_if::cfg_if! {
    if #[cfg(any(md5_backend = "soft", feature = "force-soft"))] {
        use soft::compress as compress_inner;
        const BACKEND: &str = "soft";
    } else {
        use soft::compress as compress_inner;
        const BACKEND: &str = "soft";
    }
}

/// Compresses `blocks` into `state` with the backend chosen for this build.
#[inline]
pub(crate) fn compress(state: &mut [u32; 4], blocks: &[[u8; 64]]) {
    compress_inner(state, blocks);
}

/// The name of the backend [`compress`] runs.
pub(crate) const fn backend() -> &'static str {
    BACKEND
}
