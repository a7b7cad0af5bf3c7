//! Messages given as pieces and hashed as their concatenation, without
//! copying them together first: every message followed by one shared
//! suffix, every message after one shared prefix (whose whole blocks are
//! hashed once, for all), and a list of pieces per message.
//!
//! The scheduler copies a short message's pieces, with its padding, into
//! its lane; a long one runs its longest piece's whole blocks in place and
//! copies the bytes around them (see `Scheduler::start`).

use super::check_out;
use crate::multi::kernel::Kernel;
use crate::multi::scheduler::digest_batch;
use crate::multi::scheduler::source::{Message, Source, Start};
use core::marker::PhantomData;
use md5x_block::consts::STATE_INIT;

/// Hashes each message of `inputs` followed by `suffix`, `MD5(input ‖
/// suffix)`, into the slot of `out` with the same index, without copying
/// them together: rsync's block checksums (a block and a seed), a salt
/// after each password.
///
/// # Panics
///
/// If `inputs` and `out` have different lengths.
///
/// ```
/// let blocks = [&[7u8; 4096][..], &[8u8; 4096][..]];
/// let seed = 42u32.to_le_bytes();
/// let mut out = [[0u8; 16]; 2];
/// md5x::multi::digest_many_suffixed_into(&blocks, &seed, &mut out);
/// assert_eq!(out[1], md5x::const_digest(&[&[8u8; 4096][..], &seed].concat()));
/// ```
pub fn digest_many_suffixed_into<T: AsRef<[u8]>>(
    inputs: &[T],
    suffix: &[u8],
    out: &mut [[u8; 16]],
) {
    check_out("digest_many_suffixed_into", inputs.len(), out.len());
    digest_batch(Kernel::detect(), &Suffixed { inputs, suffix }, out);
}

/// Hashes each message of `inputs` after `prefix`, `MD5(prefix ‖
/// input)`, into the slot of `out` with the same index, without copying
/// them together: the prefix's whole blocks are hashed once for all of
/// them.
///
/// # Panics
///
/// If `inputs` and `out` have different lengths.
///
/// ```
/// let key = b"a shared key of any length";
/// let messages = ["abc", "", "message digest"];
/// let mut out = [[0u8; 16]; 3];
/// md5x::multi::digest_many_prefixed_into(key, &messages, &mut out);
/// assert_eq!(out[0], md5x::const_digest(b"a shared key of any lengthabc"));
/// ```
pub fn digest_many_prefixed_into<T: AsRef<[u8]>>(
    prefix: &[u8],
    inputs: &[T],
    out: &mut [[u8; 16]],
) {
    check_out("digest_many_prefixed_into", inputs.len(), out.len());
    digest_batch(Kernel::detect(), &Prefixed::new(prefix, inputs), out);
}

/// Hashes each message of `inputs`, given as a list of pieces, as the
/// concatenation of its pieces, into the slot of `out` with the same
/// index, without copying them together.
///
/// A list may be an array (`[&[u8]; 2]`), a slice or a `Vec`, and a piece
/// anything that is bytes. Short messages are copied, piece by piece,
/// straight into their lanes; a long one runs its longest piece in place,
/// and needs the bytes before that piece's first whole block and after its
/// last to fit in a few blocks, or it is hashed on its own with the
/// single-stream backend. Each piece's `as_ref` may be called more than
/// once, and should answer the same bytes each time.
///
/// # Panics
///
/// If `inputs` and `out` have different lengths.
///
/// ```
/// // Postgres' MD5 password hash: MD5(password ‖ user name).
/// let logins = [["secret", "alice"], ["hunter2", "bob"]];
/// let mut out = [[0u8; 16]; 2];
/// md5x::multi::digest_pieces_into(&logins, &mut out);
/// assert_eq!(out[1], md5x::const_digest(b"hunter2bob"));
/// ```
pub fn digest_pieces_into<P, S>(inputs: &[P], out: &mut [[u8; 16]])
where
    P: AsRef<[S]>,
    S: AsRef<[u8]>,
{
    check_out("digest_pieces_into", inputs.len(), out.len());
    digest_batch(Kernel::detect(), &PieceLists(inputs, PhantomData), out);
}

/// Copies bytes `from..to` of the concatenation of `pieces` to `dst`.
///
/// # Safety
///
/// `from <= to <=` the pieces' total length, and `dst` is valid for writes
/// of `to - from` bytes and overlaps none of the pieces.
#[inline(always)]
unsafe fn copy_pieces<'p>(
    pieces: impl Iterator<Item = &'p [u8]>,
    from: usize,
    to: usize,
    dst: *mut u8,
) {
    let mut at = 0;
    for p in pieces {
        let (lo, hi) = (from.max(at), to.min(at + p.len()));
        if lo < hi {
            // SAFETY: bytes `lo..hi` of the concatenation are bytes `lo -
            // at..hi - at` of this piece, and go to offset `lo - from <
            // to - from` of `dst` (the caller).
            unsafe {
                crate::multi::scheduler::copy::copy_bytes(&p[lo - at..hi - at], dst.add(lo - from))
            };
        }
        at += p.len();
        if at >= to {
            break;
        }
    }
}

/// The whole blocks of the longest of `pieces` that lie on block
/// boundaries of their concatenation, with their offset in it.
#[inline(always)]
fn longest_run<'p>(pieces: impl Iterator<Item = &'p [u8]>) -> Option<(usize, &'p [u8])> {
    let mut at = 0;
    let mut best: Option<(usize, &[u8])> = None;
    for p in pieces {
        if best.is_none_or(|(_, b)| p.len() > b.len()) {
            best = Some((at, p));
        }
        at += p.len();
    }
    let (at, p) = best?;
    let skip = at.next_multiple_of(64) - at;
    let whole = p.len().checked_sub(skip)? / 64;
    (whole > 0).then(|| (at + skip, &p[skip..skip + 64 * whole]))
}

/// A message of two pieces, `first ‖ second`.
#[derive(Clone, Copy, Default)]
pub(crate) struct Joined<'a> {
    first: &'a [u8],
    second: &'a [u8],
}

impl<'a> Message<'a> for Joined<'a> {
    const PLAIN: bool = false;

    #[inline(always)]
    fn len(&self) -> usize {
        self.first.len() + self.second.len()
    }

    fn plain(&self) -> &'a [u8] {
        unreachable!("md5x::multi: a message in pieces is not plain")
    }

    #[inline(always)]
    fn in_place(&self) -> Option<(usize, &'a [u8])> {
        longest_run([self.first, self.second].into_iter())
    }

    #[inline(always)]
    unsafe fn copy(&self, from: usize, to: usize, dst: *mut u8) {
        // SAFETY: the caller's contract, for these two pieces.
        unsafe { copy_pieces([self.first, self.second].into_iter(), from, to, dst) }
    }
}

/// Every message of `inputs` followed by `suffix`.
pub(crate) struct Suffixed<'a, T> {
    pub(crate) inputs: &'a [T],
    pub(crate) suffix: &'a [u8],
}

impl<'a, T: AsRef<[u8]>> Source<'a> for Suffixed<'a, T> {
    type Message = Joined<'a>;

    fn count(&self) -> usize {
        self.inputs.len()
    }

    #[inline(always)]
    fn get(&self, i: usize) -> Joined<'a> {
        Joined {
            first: self.inputs[i].as_ref(),
            second: self.suffix,
        }
    }
}

/// Every message of `inputs` after one prefix, whose whole blocks are
/// hashed once: each message starts from their chaining value, with the
/// prefix's last partial block as its first piece.
pub(crate) struct Prefixed<'a, T> {
    inputs: &'a [T],
    tail: &'a [u8],
    start: Start,
}

impl<'a, T> Prefixed<'a, T> {
    pub(crate) fn new(prefix: &'a [u8], inputs: &'a [T]) -> Self {
        let (blocks, tail) = prefix.as_chunks::<64>();
        let mut state = STATE_INIT;
        md5x_block::compress(&mut state, blocks);
        Self {
            inputs,
            tail,
            start: Start {
                state,
                len: 64 * blocks.len() as u64,
            },
        }
    }

    /// The messages `range` of the batch, after the same prefix.
    #[cfg(feature = "rayon")]
    pub(crate) fn sub(&self, range: core::ops::Range<usize>) -> Self {
        Self {
            inputs: &self.inputs[range],
            tail: self.tail,
            start: self.start,
        }
    }
}

impl<'a, T: AsRef<[u8]>> Source<'a> for Prefixed<'a, T> {
    type Message = Joined<'a>;

    fn count(&self) -> usize {
        self.inputs.len()
    }

    #[inline(always)]
    fn get(&self, i: usize) -> Joined<'a> {
        Joined {
            first: self.tail,
            second: self.inputs[i].as_ref(),
        }
    }

    fn start(&self) -> Start {
        self.start
    }
}

/// A message given as a list of pieces.
pub(crate) struct Pieces<'a, S> {
    pieces: &'a [S],
    len: usize,
}

// By hand: derived, they would ask `S` for the same traits.
impl<S> Clone for Pieces<'_, S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S> Copy for Pieces<'_, S> {}

impl<S> Default for Pieces<'_, S> {
    fn default() -> Self {
        Self {
            pieces: &[],
            len: 0,
        }
    }
}

impl<'a, S: AsRef<[u8]>> Message<'a> for Pieces<'a, S> {
    const PLAIN: bool = false;

    #[inline(always)]
    fn len(&self) -> usize {
        self.len
    }

    fn plain(&self) -> &'a [u8] {
        unreachable!("md5x::multi: a message in pieces is not plain")
    }

    #[inline(always)]
    fn in_place(&self) -> Option<(usize, &'a [u8])> {
        longest_run(self.pieces.iter().map(AsRef::as_ref))
    }

    #[inline(always)]
    unsafe fn copy(&self, from: usize, to: usize, dst: *mut u8) {
        // SAFETY: the caller's contract, for these pieces.
        unsafe { copy_pieces(self.pieces.iter().map(AsRef::as_ref), from, to, dst) }
    }
}

/// Each message of `inputs` the concatenation of its list of pieces `S`.
pub(crate) struct PieceLists<'a, P, S>(pub(crate) &'a [P], pub(crate) PhantomData<S>);

impl<'a, P, S> Source<'a> for PieceLists<'a, P, S>
where
    P: AsRef<[S]>,
    S: AsRef<[u8]> + 'a,
{
    type Message = Pieces<'a, S>;

    fn count(&self) -> usize {
        self.0.len()
    }

    #[inline(always)]
    fn get(&self, i: usize) -> Pieces<'a, S> {
        let pieces = self.0[i].as_ref();
        let len = pieces.iter().map(|p| p.as_ref().len()).sum();
        Pieces { pieces, len }
    }
}
