//! One thread's hashing of a claim (a run of consecutive paths): files
//! that turn out small are read whole and hashed together by
//! `md5::multi::digest_many_into`, long ones side by side in lanes
//! ([`hash_long`]), and anything that is not a regular file read in order
//! ([`hash_stream`]).

use super::fds::{self, Held};
use super::open::open_stream;
use super::{fill, fill_until, hash_long, hash_stream, Control, LongInput, SMALL_MAX};
use crate::multi;
use crate::Md5;
use std::fs::File;
use std::io;
use std::path::Path;
use std::vec::Vec;

/// The most bytes a first read takes: a file that ends within them is read
/// whole (one of exactly [`SMALL_MAX`] bytes too, which a read of only
/// [`SMALL_MAX`] could not tell from a longer one); a longer one keeps them
/// as its head, a whole number of blocks, for [`hash_long`]'s lanes.
const HEAD: usize = SMALL_MAX + 64;

/// A file's outcome: its digest, or the error that ended it.
pub(super) type Outcome = io::Result<[u8; 16]>;

/// One thread's buffers, reused from claim to claim: a slot per small file
/// of a claim (at most [`SMALL_MAX`] bytes each), and the read buffer of
/// [`hash_stream`].
pub(super) struct Worker<'c> {
    control: Control<'c>,
    slots: Vec<Vec<u8>>,
    spare: Vec<u8>,
}

/// What a claim has found so far, by position in the claim.
struct Found {
    out: Vec<Option<Outcome>>,
    /// (position, slot, length) of the files read whole.
    small: Vec<(usize, usize, usize)>,
    /// The long files, open, their heads read.
    long: Vec<LongInput<Held>>,
}

impl<'c> Worker<'c> {
    pub(super) fn new(control: Control<'c>) -> Self {
        Self {
            control,
            slots: Vec::new(),
            spare: Vec::new(),
        }
    }

    /// The outcome of each of `paths`, in order.
    pub(super) fn hash_claim<P: AsRef<Path>>(&mut self, paths: &[P]) -> Vec<Outcome> {
        let mut f = Found {
            out: paths.iter().map(|_| None).collect(),
            small: Vec::new(),
            long: Vec::new(),
        };
        let control = self.control;
        for (pos, path) in paths.iter().enumerate() {
            let path = path.as_ref();
            if let Err(e) = control.check() {
                f.out[pos] = Some(Err(e));
                continue;
            }
            let meta = match std::fs::metadata(path) {
                Ok(m) => m,
                Err(e) => {
                    f.out[pos] = Some(Err(e));
                    continue;
                }
            };
            // Where no descriptor is left, the long files held so far are
            // hashed first, to close them.
            if !meta.is_file() {
                let r = open_stream(path, &meta, control, || self.finish_long(&mut f))
                    .and_then(|s| hash_stream(Md5::default(), s, &control, &mut self.spare));
                f.out[pos] = Some(r);
                continue;
            }
            let file = match fds::open(|| File::open(path), || self.finish_long(&mut f), &control) {
                Ok(file) => file,
                Err(e) => {
                    f.out[pos] = Some(Err(e));
                    continue;
                }
            };
            let slot = f.small.len();
            match self.read_first(file, meta.len(), slot) {
                Ok(First::Whole(n)) => f.small.push((pos, slot, n)),
                Ok(First::Long(head, file)) => f.long.push(LongInput {
                    id: pos,
                    head,
                    reader: file,
                }),
                Err(e) => f.out[pos] = Some(Err(e)),
            }
        }
        if !f.small.is_empty() {
            let msgs: Vec<&[u8]> = f
                .small
                .iter()
                .map(|&(_, slot, n)| &self.slots[slot][..n])
                .collect();
            let mut digests = std::vec![[0u8; 16]; msgs.len()];
            multi::digest_many_into(&msgs, &mut digests);
            for (&(pos, _, _), d) in f.small.iter().zip(digests) {
                f.out[pos] = Some(Ok(d));
            }
        }
        self.finish_long(&mut f);
        f.out
            .into_iter()
            .map(|r| r.expect("every file of a claim has an outcome"))
            .collect()
    }

    /// Hashes the long files found so far, closing them; whether there
    /// were any.
    fn finish_long(&mut self, f: &mut Found) -> bool {
        let long = std::mem::take(&mut f.long);
        if long.is_empty() {
            return false;
        }
        for (pos, r) in hash_long(long, &self.control, &mut self.spare) {
            f.out[pos] = Some(r);
        }
        true
    }

    /// Reads the first bytes of `file`, a regular file said to be `len`
    /// bytes long, into slot `slot`: the whole file, if it ends within
    /// [`HEAD`] bytes (so every file of up to [`SMALL_MAX`] bytes), else
    /// its first [`HEAD`] bytes, which come back with the open file. `len`
    /// sizes the first read, so that small files take little memory, and
    /// ends it: reading exactly that much means the file was read whole
    /// (one that grew since fills more of the buffer), which saves the
    /// read that returns 0.
    fn read_first(&mut self, mut file: Held, len: u64, slot: usize) -> io::Result<First> {
        while self.slots.len() <= slot {
            self.slots.push(Vec::new());
        }
        let buf = &mut self.slots[slot];
        let first = usize::try_from(len).map_or(HEAD, |l| (l + 1).min(HEAD));
        buf.resize(first, 0);
        let known = usize::try_from(len).ok().filter(|&l| l > 0 && l < first);
        let mut n = fill_until(&mut file, buf, 0, known, &self.control)?;
        if n == first && first < HEAD {
            buf.resize(HEAD, 0);
            n = first + fill(&mut file, &mut buf[first..], &self.control)?;
        }
        if n < HEAD {
            return Ok(First::Whole(n));
        }
        // The head goes with the file; the slot gets a new buffer.
        Ok(First::Long(std::mem::take(buf), file))
    }
}

/// What a first read found.
enum First {
    /// The file, read whole into its slot: this many bytes.
    Whole(usize),
    /// A long file: its first [`HEAD`] bytes, and the file.
    Long(Vec<u8>, Held),
}
