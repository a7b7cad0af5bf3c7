//! Portable multi-buffer fallback: one message at a time on the single-stream
//! backend of this build (`crate::compress`).

use super::{Ptrs, Soa};
use crate::{Digest, Md5};

/// Hashes each input on its own.
pub(super) fn digest_many_into<T: AsRef<[u8]>>(inputs: &[T], out: &mut [[u8; 16]]) {
    for (input, slot) in inputs.iter().zip(out) {
        *slot = Md5::digest(input.as_ref()).into();
    }
}

/// Compresses `blocks` blocks from `ptrs[0]` into lane 0 of `state`.
///
/// # Safety
///
/// `ptrs[0]` is valid for reads of `blocks * 64` bytes.
pub(super) unsafe fn compress(state: &mut Soa, ptrs: &Ptrs, blocks: usize) {
    // SAFETY: the caller guarantees `blocks * 64` readable bytes at
    // `ptrs[0]`, and `[u8; 64]` has alignment 1.
    let blocks = unsafe { core::slice::from_raw_parts(ptrs[0].cast::<[u8; 64]>(), blocks) };
    let mut s = state.get(0);
    crate::compress::compress(&mut s, blocks);
    state.set(0, s);
}
