//! Portable multi-buffer fallback: one message at a time on the single-stream
//! backend of this build (`crate::compress`).

use crate::multi::lane_state::{BlockPtrs, LaneStates};

/// Compresses `blocks` blocks from `ptrs[0]` into lane 0 of `state`, then
/// the block of the words `last`, if given.
///
/// # Safety
///
/// `ptrs[0]` is valid for reads of `blocks * 64` bytes.
pub(super) unsafe fn compress(
    state: &mut LaneStates,
    ptrs: &BlockPtrs,
    blocks: usize,
    last: Option<&[u32; 16]>,
) {
    // SAFETY: the caller guarantees `blocks * 64` readable bytes at
    // `ptrs[0]`, and `[u8; 64]` has alignment 1.
    let blocks = unsafe { core::slice::from_raw_parts(ptrs[0].cast::<[u8; 64]>(), blocks) };
    let mut s = state.get(0);
    md5x_block::compress(&mut s, blocks);
    if let Some(words) = last {
        let mut block = [0u8; 64];
        for (b, w) in block.chunks_exact_mut(4).zip(words) {
            b.copy_from_slice(&w.to_le_bytes());
        }
        md5x_block::compress(&mut s, &[block]);
    }
    state.set(0, s);
}
