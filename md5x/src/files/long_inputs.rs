//! Long inputs streamed side by side, one per lane of the multi-buffer
//! kernel when it is a SIMD one, else one at a time with their reads ahead
//! on a reader thread ([`hash_stream`]).

use super::{fill, hash_stream, Control};
use crate::multi::{self, Lanes};
use crate::{Digest, Md5};
use std::io::{self, Read};
use std::vec::Vec;

/// Bytes each lane reads a round when long inputs are streamed side by
/// side: AVX2's 24 lanes of it stay within a core's L2 cache.
const LANE_READ: usize = 16 << 10;

/// A long input for [`hash_long`]: its first bytes, read already, and the
/// reader of the rest.
#[derive(Debug)]
pub struct LongInput<R> {
    /// The caller's name for it, handed back with its digest.
    pub id: usize,
    /// The input's first bytes: a whole number of 64-byte blocks, and at
    /// least one, for it to be hashed in a lane (an input whose head is
    /// not is hashed on its own). The buffer is reused for its reads, so a
    /// head of at least 16 KiB reads the most a round.
    pub head: Vec<u8>,
    /// The rest of the input.
    pub reader: R,
}

/// Hashes each of `inputs` (their heads, then the rest of their readers)
/// and returns each digest, or the read error that ended it, with its
/// [`id`](LongInput::id), in the order they end. With a SIMD kernel
/// ([`multi::lanes`] above 1), up to one input per lane is streamed side
/// by side, [`LongInput::head`]'s buffer reading 16 KiB a round, and an
/// input that ends frees its lane for the next; otherwise each is hashed
/// with [`hash_stream`] in turn. `spare` is the calling thread's read
/// buffer, kept between calls.
///
/// Memory is the heads' buffers, which the caller sized; each input's
/// reader is dropped (a file closed) as it ends.
///
/// ```
/// use md5x::files::{hash_long, Control, LongInput};
/// use md5x::{Digest, Md5};
///
/// let data: Vec<Vec<u8>> = (0..5u8).map(|i| vec![i; 100_000 + 64 * i as usize]).collect();
/// let inputs = data
///     .iter()
///     .enumerate()
///     .map(|(id, d)| LongInput { id, head: d[..64 << 10].to_vec(), reader: &d[64 << 10..] })
///     .collect();
/// let mut digests = hash_long(inputs, &Control::new(), &mut Vec::new());
/// digests.sort_by_key(|(id, _)| *id);
/// for ((_, digest), d) in digests.into_iter().zip(&data) {
///     assert_eq!(digest?, <[u8; 16]>::from(Md5::digest(d)));
/// }
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn hash_long<R: Read + Send>(
    inputs: Vec<LongInput<R>>,
    control: &Control<'_>,
    spare: &mut Vec<u8>,
) -> Vec<(usize, io::Result<[u8; 16]>)> {
    let (in_lanes, alone): (Vec<_>, Vec<_>) = inputs
        .into_iter()
        .partition(|l| !l.head.is_empty() && l.head.len().is_multiple_of(64));
    // One lane means the portable fallback, which streams nothing side by
    // side.
    let mut done = if in_lanes.len() >= 2 && multi::lanes() > 1 {
        hash_lanes(in_lanes, control)
    } else {
        one_at_a_time(in_lanes, control, spare)
    };
    done.extend(one_at_a_time(alone, control, spare));
    done
}

fn one_at_a_time<R: Read + Send>(
    inputs: Vec<LongInput<R>>,
    control: &Control<'_>,
    spare: &mut Vec<u8>,
) -> Vec<(usize, io::Result<[u8; 16]>)> {
    inputs
        .into_iter()
        .map(|l| {
            let h = Md5::new_with_prefix(&l.head);
            (l.id, hash_stream(h, l.reader, control, spare))
        })
        .collect()
}

/// Streams several long inputs at once, one per lane of the multi-buffer
/// kernel; when one ends, the next takes its lane.
fn hash_lanes<R: Read>(
    inputs: Vec<LongInput<R>>,
    control: &Control<'_>,
) -> Vec<(usize, io::Result<[u8; 16]>)> {
    // As many inputs as the kernel has lanes: more would only hold more
    // descriptors and buffers open for no speed.
    let width = inputs.len().min(multi::lanes()).clamp(1, Lanes::MAX);
    let mut lanes = Lanes::new(width);
    let mut waiting = inputs.into_iter();
    // Each busy lane holds a full chunk (a multiple of 64 bytes) that the
    // next `update` hashes; its length is kept beside it.
    let start = |l: LongInput<R>| {
        let n = l.head.len();
        (l, n)
    };
    let mut busy: Vec<Option<(LongInput<R>, usize)>> =
        (0..width).map(|_| waiting.next().map(start)).collect();
    let mut finished = Vec::new();
    while busy.iter().any(Option::is_some) {
        let chunks: Vec<&[u8]> = busy
            .iter()
            .map(|b| b.as_ref().map_or(&[][..], |(l, n)| &l.head[..*n]))
            .collect();
        lanes.update(&chunks);
        for (lane, b) in busy.iter_mut().enumerate() {
            let Some((l, n)) = b else { continue };
            let want = LANE_READ.min(l.head.len()) / 64 * 64;
            match fill(&mut l.reader, &mut l.head[..want], control) {
                Ok(k) if k == want => {
                    *n = k;
                    continue;
                }
                Ok(k) => finished.push((l.id, Ok(lanes.finalize_lane(lane, &l.head[..k])))),
                Err(e) => {
                    lanes.reset_lane(lane);
                    finished.push((l.id, Err(e)));
                }
            }
            *b = waiting.next().map(start);
        }
    }
    finished
}
