//! Files too long to read whole ([`SMALL_MAX`]): streamed side by side,
//! one per lane of the multi-buffer kernel, when it is a SIMD one, else one
//! at a time with their reads on a reader thread ([`stream`]).

use super::claim::SMALL_MAX;
use super::fds::Opened;
use super::read::fill;
use super::stream;
use md5::multi::{self, Lanes};
use md5::{Digest, Md5};
use std::io;
use std::sync::atomic::AtomicU64;

/// Read size per lane when large files are streamed side by side; AVX2's
/// 24 lanes of it stay within a core's L2 cache.
const LANE_READ: usize = 16 * 1024;

/// An open file longer than [`SMALL_MAX`], with its first bytes in `buf`.
pub struct Large {
    pub pos: usize,
    pub file: Opened,
    pub buf: Vec<u8>,
}

/// Hashes `large`, each with its position; `bytes` counts what is read,
/// `spare` is the calling thread's read buffer.
pub fn hash_all(
    large: Vec<Large>,
    bytes: &AtomicU64,
    spare: &mut Vec<u8>,
) -> Vec<(usize, io::Result<[u8; 16]>)> {
    // One lane means the portable fallback, which streams nothing side by
    // side.
    if large.len() >= 2 && multi::lanes() > 1 {
        return hash_lanes(large, bytes);
    }
    large
        .into_iter()
        .map(|l| {
            let mut h = Md5::new();
            h.update(&l.buf);
            (l.pos, stream::hash_rest(h, l.file, bytes, spare))
        })
        .collect()
}

/// Streams several large files at once, one per lane of the
/// multi-buffer kernel; when a file ends, the next one takes its lane.
fn hash_lanes(large: Vec<Large>, bytes: &AtomicU64) -> Vec<(usize, io::Result<[u8; 16]>)> {
    // As many files as the kernel has lanes: more would only hold more
    // descriptors and buffers open for no speed.
    let width = large.len().min(multi::lanes()).max(1);
    let mut lanes = Lanes::new(width);
    let mut waiting = large.into_iter();
    // Each busy lane holds a full chunk (a multiple of 64 bytes) that
    // the next `update` hashes; its length is kept beside it.
    let mut busy: Vec<Option<(Large, usize)>> = (0..width)
        .map(|_| waiting.next().map(|l| (l, SMALL_MAX)))
        .collect();
    let mut finished = Vec::new();
    while busy.iter().any(Option::is_some) {
        let chunks: Vec<&[u8]> = busy
            .iter()
            .map(|b| b.as_ref().map_or(&[][..], |(l, n)| &l.buf[..*n]))
            .collect();
        lanes.update(&chunks);
        for (lane, b) in busy.iter_mut().enumerate() {
            let Some((l, n)) = b else { continue };
            let want = LANE_READ.min(l.buf.len());
            match fill(&mut l.file, &mut l.buf[..want], bytes) {
                Ok(k) if k == want => {
                    *n = k;
                    continue;
                }
                Ok(k) => finished.push((l.pos, Ok(lanes.finalize_lane(lane, &l.buf[..k])))),
                Err(e) => {
                    lanes.reset_lane(lane);
                    finished.push((l.pos, Err(e)));
                }
            }
            *b = waiting.next().map(|l| (l, SMALL_MAX));
        }
    }
    finished
}
