//! Digests out of the lanes' state, four lanes at a time.

use crate::multi::lane_state::LaneStates;
use md5x_block::pad::to_bytes;

/// The digests of lanes `lane..lane + 4` of `state`: a 4 × 4
/// transposition, with SSE2 where it is baseline.
#[inline]
pub(crate) fn digests4(state: &LaneStates, lane: usize) -> [[u8; 16]; 4] {
    let rows = [0, 1, 2, 3].map(|r| &state.rows[r][lane..lane + 4]);
    #[cfg(md5_sse2)]
    let rows = {
        use super::lane_vector::{LaneVector, X86};
        use super::sse2;
        // SAFETY: SSE2 is enabled (cfg); each row has the 4 words
        // `load` reads (sliced above).
        let v = rows.map(|r| unsafe { sse2::V4::load(r.as_ptr()) });
        sse2::V4::transpose4(v).map(|v| {
            let mut w = [0; 4];
            v.store(&mut w);
            w
        })
    };
    #[cfg(not(md5_sse2))]
    let rows = [0, 1, 2, 3].map(|i| rows.map(|r| r[i]));
    rows.map(to_bytes)
}

/// Hands `put` each lane of `lanes` with its digest: four lanes at a time,
/// through [`digests4`], where they make an aligned quad.
#[inline(always)]
pub(crate) fn each_digest(
    state: &LaneStates,
    lanes: core::ops::Range<usize>,
    mut put: impl FnMut(usize, [u8; 16]),
) {
    let mut lane = lanes.start;
    while lane < lanes.end {
        if lane.is_multiple_of(4) && lane + 4 <= lanes.end {
            for (l, d) in (lane..lane + 4).zip(digests4(state, lane)) {
                put(l, d);
            }
            lane += 4;
        } else {
            put(lane, to_bytes(state.get(lane)));
            lane += 1;
        }
    }
}
