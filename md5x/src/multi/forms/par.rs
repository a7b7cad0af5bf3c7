//! The batch functions on rayon's thread pool (the `rayon` feature).
//!
//! A batch is cut into runs of consecutive messages, each a multiple of the
//! kernel's width long, so that every thread still hashes full sets of
//! lanes, and each run is hashed by the serial scheduler on some thread of
//! the pool (`rayon::join`, whose work stealing evens out runs of unequal
//! cost). Runs hold about [`RUN_BYTES`] of work; a batch of less than two
//! runs' work, or of fewer than two sets of messages, stays on the calling
//! thread. Results are the serial functions', slot for slot.

use super::check_out;
use super::offsets::{Offset, Offsets};
use super::pieces::{PieceLists, Prefixed, Suffixed};
use crate::multi::kernel::Kernel;
use crate::multi::scheduler::digest_batch;
use crate::multi::scheduler::source::Slices;
use crate::multi::tuning::PAR_RUN_BYTES;
use core::marker::PhantomData;

/// The work a run of messages holds ([`PAR_RUN_BYTES`]).
const RUN_BYTES: u64 = PAR_RUN_BYTES;

/// Batches of at least this many messages are split without their bytes
/// being counted first: they are worth splitting whatever their lengths.
const COUNTED: usize = 1 << 14;

/// How many messages a run of `n` takes, or `None` for running them all on
/// this thread; `bytes` counts their bytes (called for small batches only).
fn run_len(n: usize, bytes: impl FnOnce() -> u64) -> Option<usize> {
    let lanes = Kernel::detect().lanes();
    if rayon::current_num_threads() < 2 || n < 2 * lanes {
        return None;
    }
    let per_run = if n >= COUNTED {
        n / (8 * rayon::current_num_threads())
    } else {
        let work = bytes().saturating_add(64 * n as u64);
        if work < 2 * RUN_BYTES {
            return None;
        }
        (RUN_BYTES.saturating_mul(n as u64) / work) as usize
    };
    // At least two runs, each whole sets of lanes.
    Some(per_run.min(n / 2).max(1).next_multiple_of(lanes))
}

/// Hashes `out.len()` messages, the first being message `start` of the
/// batch, with `hash(start, out)` on runs of about `run` messages, in
/// parallel.
fn split<F>(start: usize, out: &mut [[u8; 16]], run: usize, hash: &F)
where
    F: Fn(usize, &mut [[u8; 16]]) + Sync,
{
    if out.len() < 2 * run {
        return hash(start, out);
    }
    let mid = out.len() / run / 2 * run;
    let (low, high) = out.split_at_mut(mid);
    rayon::join(
        || split(start, low, run, hash),
        || split(start + mid, high, run, hash),
    );
}

/// Hashes a batch of `out.len()` messages: in parallel if `run_len` says
/// so, else on this thread.
fn run<F>(out: &mut [[u8; 16]], bytes: impl FnOnce() -> u64, hash: F)
where
    F: Fn(usize, &mut [[u8; 16]]) + Sync,
{
    match run_len(out.len(), bytes) {
        Some(run) => split(0, out, run, &hash),
        None => hash(0, out),
    }
}

/// The bytes of `inputs`.
fn bytes_of<T: AsRef<[u8]>>(inputs: &[T]) -> u64 {
    inputs.iter().map(|m| m.as_ref().len() as u64).sum()
}

/// [`digest_many_into`](crate::multi::digest_many_into) on rayon's thread pool:
/// the same digests, hashed by several threads where the batch is large
/// enough to pay (more than a few hundred kilobytes, or many thousands of
/// messages), each thread hashing full sets of lanes.
///
/// Unlike the serial form, this may ask an input for its bytes (`as_ref`)
/// twice, once to weigh the batch; it should answer the same both times.
///
/// # Panics
///
/// If `inputs` and `out` have different lengths.
///
/// ```
/// let rows: Vec<Vec<u8>> = (0..100_000u32).map(|i| i.to_le_bytes().repeat(8)).collect();
/// let mut out = vec![[0u8; 16]; rows.len()];
/// md5x::multi::par_digest_many_into(&rows, &mut out);
/// assert_eq!(out[7], md5x::const_digest(&7u32.to_le_bytes().repeat(8)));
/// ```
#[cfg_attr(docsrs, doc(cfg(feature = "rayon")))]
pub fn par_digest_many_into<T: AsRef<[u8]> + Sync>(inputs: &[T], out: &mut [[u8; 16]]) {
    check_out("par_digest_many_into", inputs.len(), out.len());
    run(
        out,
        || bytes_of(inputs),
        |at, out| digest_batch(Kernel::detect(), &Slices(&inputs[at..at + out.len()]), out),
    );
}

/// [`digest_offsets_into`](crate::multi::digest_offsets_into) on rayon's thread
/// pool, as [`par_digest_many_into`] splits a batch. The offsets are checked
/// once, on the calling thread, before any hashing.
///
/// # Panics
///
/// As [`digest_offsets_into`](crate::multi::digest_offsets_into).
#[cfg_attr(docsrs, doc(cfg(feature = "rayon")))]
pub fn par_digest_offsets_into<O: Offset + Sync>(
    values: &[u8],
    offsets: &[O],
    out: &mut [[u8; 16]],
) {
    let rows = Offsets::new("par_digest_offsets_into", values, offsets, out.len());
    run(
        out,
        || rows.bytes(),
        |at, out| digest_batch(Kernel::detect(), &rows.sub(at..at + out.len()), out),
    );
}

/// [`digest_many_suffixed_into`](crate::multi::digest_many_suffixed_into) on
/// rayon's thread pool, as [`par_digest_many_into`] splits a batch.
///
/// # Panics
///
/// If `inputs` and `out` have different lengths.
#[cfg_attr(docsrs, doc(cfg(feature = "rayon")))]
pub fn par_digest_many_suffixed_into<T: AsRef<[u8]> + Sync>(
    inputs: &[T],
    suffix: &[u8],
    out: &mut [[u8; 16]],
) {
    check_out("par_digest_many_suffixed_into", inputs.len(), out.len());
    run(
        out,
        || bytes_of(inputs) + (suffix.len() * inputs.len()) as u64,
        |at, out| {
            let inputs = &inputs[at..at + out.len()];
            digest_batch(Kernel::detect(), &Suffixed { inputs, suffix }, out)
        },
    );
}

/// [`digest_many_prefixed_into`](crate::multi::digest_many_prefixed_into) on
/// rayon's thread pool, as [`par_digest_many_into`] splits a batch. The
/// prefix's whole blocks are hashed once, on the calling thread.
///
/// # Panics
///
/// If `inputs` and `out` have different lengths.
#[cfg_attr(docsrs, doc(cfg(feature = "rayon")))]
pub fn par_digest_many_prefixed_into<T: AsRef<[u8]> + Sync>(
    prefix: &[u8],
    inputs: &[T],
    out: &mut [[u8; 16]],
) {
    check_out("par_digest_many_prefixed_into", inputs.len(), out.len());
    let batch = Prefixed::new(prefix, inputs);
    run(
        out,
        || bytes_of(inputs) + (prefix.len() % 64 * inputs.len()) as u64,
        |at, out| digest_batch(Kernel::detect(), &batch.sub(at..at + out.len()), out),
    );
}

/// [`digest_pieces_into`](crate::multi::digest_pieces_into) on rayon's thread
/// pool, as [`par_digest_many_into`] splits a batch.
///
/// # Panics
///
/// If `inputs` and `out` have different lengths.
#[cfg_attr(docsrs, doc(cfg(feature = "rayon")))]
pub fn par_digest_pieces_into<P, S>(inputs: &[P], out: &mut [[u8; 16]])
where
    P: AsRef<[S]> + Sync,
    S: AsRef<[u8]>,
{
    check_out("par_digest_pieces_into", inputs.len(), out.len());
    run(
        out,
        || inputs.iter().map(|p| bytes_of(p.as_ref())).sum(),
        |at, out| {
            let inputs = &inputs[at..at + out.len()];
            digest_batch(Kernel::detect(), &PieceLists(inputs, PhantomData), out)
        },
    );
}
