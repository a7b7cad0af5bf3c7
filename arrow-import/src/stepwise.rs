//! A batch of rows hashed in steps of bounded work, with a look at a
//! [`Stop`] before each: what keeps the Python package's `digest_many` and
//! `hash_array` interruptible within a few milliseconds whatever their
//! rows' lengths.
//!
//! Rows of up to [`LONG`] bytes go through `md5x::multi::digest_many_into`
//! in runs of at most [`STEP_BYTES`] (each run still many times the
//! kernel's lanes: the same calls as one batch would make, cut in longer
//! pieces than a chunk of short rows ever is). Longer rows are streams of
//! `md5x::multi::Lanes`, `ROUND` bytes of each a round, so that even one
//! row of gigabytes gives way between rounds.

use crate::stop::{Stop, Stopped};
use md5x::multi::{self, Lanes};

/// Work (bytes, with a block per row for its padding) of one
/// `digest_many_into` call between two looks at the [`Stop`]: a few
/// milliseconds on one core.
pub const STEP_BYTES: usize = 64 << 20;

/// Rows longer than this are hashed in rounds of `ROUND`: a step of
/// shorter rows holds at least 64 of them, every lane of the widest
/// kernel.
pub const LONG: usize = STEP_BYTES / 64;

/// Bytes of each long row a round (a multiple of 64).
const ROUND: usize = 256 << 10;

/// The work a batch of rows of `bytes` bytes in all makes.
pub fn work(rows: usize, bytes: usize) -> usize {
    bytes.saturating_add(rows.saturating_mul(64))
}

/// Hashes `rows` into `out` (of the same length) in steps, giving up with
/// `Stopped` at the first step after `stop` is set.
pub fn digest_rows(rows: &[&[u8]], out: &mut [[u8; 16]], stop: &Stop) -> Result<(), Stopped> {
    // The long rows go together, wherever they are, to fill the lanes.
    let mut long = Vec::new();
    let mut start = 0;
    while start < rows.len() {
        stop.check()?;
        if rows[start].len() > LONG {
            long.push(start);
            start += 1;
            continue;
        }
        let mut end = start;
        let mut total = 0usize;
        while end < rows.len() && rows[end].len() <= LONG {
            total = total.saturating_add(work(1, rows[end].len()));
            if total > STEP_BYTES && end > start {
                break;
            }
            end += 1;
        }
        multi::digest_many_into(&rows[start..end], &mut out[start..end]);
        start = end;
    }
    if !long.is_empty() {
        digest_long(rows, &long, out, stop)?;
    }
    Ok(())
}

/// Hashes rows `which` of `rows` into the same places of `out`, as streams
/// of `Lanes`, a lane each, [`ROUND`] bytes of each a round; a lane whose
/// row ends takes the next.
fn digest_long(
    rows: &[&[u8]],
    which: &[usize],
    out: &mut [[u8; 16]],
    stop: &Stop,
) -> Result<(), Stopped> {
    let width = multi::lanes().clamp(1, Lanes::MAX).min(which.len());
    let mut lanes = Lanes::new(width);
    // Each lane's row and the bytes of it left.
    let mut streams: Vec<Option<(usize, &[u8])>> = vec![None; width];
    let mut chunks: Vec<&[u8]> = vec![&[]; width];
    let mut next = which.iter();
    loop {
        stop.check()?;
        let mut busy = false;
        for (lane, (stream, chunk)) in streams.iter_mut().zip(&mut chunks).enumerate() {
            *chunk = &[];
            loop {
                if stream.is_none() {
                    *stream = next.next().map(|&i| (i, rows[i]));
                }
                let Some((row, rest)) = *stream else { break };
                if rest.len() >= 64 {
                    let (now, later) = rest.split_at((rest.len() / 64 * 64).min(ROUND));
                    *chunk = now;
                    *stream = Some((row, later));
                    busy = true;
                    break;
                }
                // Its last bytes, under a block: the lane is free.
                out[row] = lanes.finalize_lane(lane, rest);
                *stream = None;
            }
        }
        if !busy {
            return Ok(());
        }
        lanes.update(&chunks);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use md5x::{Digest, Md5};

    #[test]
    fn rows_of_every_kind_against_md5() {
        let long = |n: usize, seed: u8| (0..n).map(|i| (i as u8).wrapping_mul(seed)).collect();
        let owned: Vec<Vec<u8>> = vec![
            vec![],
            b"abc".to_vec(),
            long(LONG + 1, 3),
            long(LONG + 63, 5),
            long(3 * ROUND + 7, 7),
            vec![9; 1000],
            long(LONG, 11),
            long(LONG + 64, 13),
        ];
        let rows: Vec<&[u8]> = owned.iter().map(Vec::as_slice).collect();
        let mut out = vec![[0u8; 16]; rows.len()];
        digest_rows(&rows, &mut out, &Stop::default()).unwrap();
        for (row, digest) in rows.iter().zip(&out) {
            assert_eq!(digest[..], Md5::digest(row)[..]);
        }
    }
}
