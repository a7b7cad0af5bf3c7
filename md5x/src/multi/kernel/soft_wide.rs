//! Tests only: [`Kernel::SoftWide`](super::Kernel::SoftWide)'s compression: AVX-512's
//! widths (groups of 16 lanes) computed lane by lane with the `soft`
//! backend, so that the scheduler and `Lanes` meet every AVX-512 width and
//! group count on every x86_64 host.

use crate::multi::lane_state::{BlockPtrs, LaneStates};

/// Each lane of the groups of 16 that cover `used`, one at a time with the
/// `soft` backend, then the block of the words `last`, if given. Lanes from
/// `used` on get a scrambled state: the contract says they hold garbage,
/// and a caller that relied on them must fail.
///
/// # Safety
///
/// For each `i < used.next_multiple_of(16)`, `ptrs[i]` is valid for reads
/// of `blocks * 64` bytes.
pub(crate) unsafe fn compress(
    state: &mut LaneStates,
    ptrs: &BlockPtrs,
    blocks: usize,
    used: usize,
    last: Option<&[u32; 16]>,
) {
    let mut tail = [0u8; 64];
    for (b, w) in tail.chunks_exact_mut(4).zip(last.into_iter().flatten()) {
        b.copy_from_slice(&w.to_le_bytes());
    }
    for (lane, p) in ptrs.iter().enumerate().take(used.next_multiple_of(16)) {
        // SAFETY: the caller vouches for `blocks * 64` readable bytes at
        // this lane's pointer; `[u8; 64]` has alignment 1.
        let data = unsafe { core::slice::from_raw_parts(p.cast::<[u8; 64]>(), blocks) };
        let mut s = state.get(lane);
        md5x_block::soft::compress(&mut s, data);
        if last.is_some() {
            md5x_block::soft::compress(&mut s, &[tail]);
        }
        if lane >= used {
            s = s.map(|x| !x ^ 0x5a5a_5a5a);
        }
        state.set(lane, s);
    }
}
