//! A chunk of `digest_many`'s rows as the hashing reads them, and the
//! objects that keep the rows it reads in place alive.

use pyo3::prelude::*;

use crate::buffer::BufferView;
use md5x_arrow_import::stepwise::{self, LONG, STEP_BYTES};
use md5x_arrow_import::stop::{Stop, Stopped};

/// Rows of up to this many bytes are copied, as they are read, into one
/// buffer that the hashing reads in order; longer ones of a list or tuple
/// are read in place. A short row's copy costs less than keeping a
/// reference to it (taken and dropped a row at a time, each a cache miss
/// on a million objects).
pub(super) const COPY_MAX: usize = 64;

/// A chunk ends once it holds this many copied bytes: the rows of an
/// iterator, copied whatever their length, are hashed in chunks of about
/// this much memory.
const COPIED_MAX: usize = 16 << 20;

/// Where a row's bytes are.
enum Piece {
    /// In [`Job::copied`], from `start`, `len` bytes.
    Copied { start: usize, len: usize },
    /// In place, in an object that [`Owners`] keeps alive (`bytes`, `str`,
    /// or a buffer view): a pointer and length, as no slice may borrow a `Vec`
    /// that is still growing.
    InPlace { ptr: *const u8, len: usize },
    /// Hashed already, as it was read (a row too long to copy).
    Hashed([u8; 16]),
}

/// A chunk's rows as the hashing reads them, and their digests: what the
/// hashing thread is handed. The objects that hold the in-place rows'
/// bytes stay behind, in the [`Owners`] the chunk was read with.
pub(super) struct Job {
    pieces: Vec<Piece>,
    copied: Vec<u8>,
    /// Bytes in the chunk's rows, and the longest row's.
    total: usize,
    longest: usize,
    /// Rows that are [`Piece::Hashed`].
    hashed: usize,
    pub(super) digests: Vec<[u8; 16]>,
}

// SAFETY: a `Job` is plain data but for the pointers of its in-place
// pieces, shared borrows of bytes that nothing writes while the `Owners`
// the job was read with holds them: `for_each_chunk` keeps those owners
// alive (and on the calling thread) until the job is back or the hashing
// thread has been joined, whichever thread hashes it.
unsafe impl Send for Job {}

impl Job {
    pub(super) fn new() -> Self {
        Self {
            pieces: Vec::new(),
            copied: Vec::new(),
            total: 0,
            longest: 0,
            hashed: 0,
            digests: Vec::new(),
        }
    }

    pub(super) fn len(&self) -> usize {
        self.pieces.len()
    }

    /// Whether it holds as many copied bytes as a chunk should.
    pub(super) fn is_full(&self) -> bool {
        self.copied.len() >= COPIED_MAX
    }

    /// Copies a row.
    pub(super) fn copy(&mut self, bytes: &[u8]) {
        self.pieces.push(Piece::Copied {
            start: self.copied.len(),
            len: bytes.len(),
        });
        self.copied.extend_from_slice(bytes);
        self.count(bytes.len());
    }

    /// Records a row read in place; the caller keeps its owner.
    pub(super) fn in_place(&mut self, bytes: &[u8]) {
        self.pieces.push(Piece::InPlace {
            ptr: bytes.as_ptr(),
            len: bytes.len(),
        });
        self.count(bytes.len());
    }

    /// Records a row hashed as it was read.
    pub(super) fn hashed(&mut self, digest: [u8; 16]) {
        self.pieces.push(Piece::Hashed(digest));
        self.hashed += 1;
    }

    fn count(&mut self, len: usize) {
        self.total = self.total.saturating_add(len);
        self.longest = self.longest.max(len);
    }

    /// Each row is at least one block with its padding.
    pub(super) fn work(&self) -> usize {
        stepwise::work(self.len(), self.total)
    }

    /// Hashes the rows into `self.digests`, in steps that look at `stop`
    /// (in one call where the chunk is one step's work).
    pub(super) fn hash(&mut self, stop: &Stop) -> Result<(), Stopped> {
        let slices: Vec<&[u8]> = self
            .pieces
            .iter()
            .map(|piece| match *piece {
                Piece::Copied { start, len } => &self.copied[start..start + len],
                // SAFETY: `ptr` and `len` come from a slice of a `bytes`
                // object or a buffer view held by the `Owners` this job
                // was read with, which outlive its hashing (see `Send`):
                // `bytes` is immutable, and an exporter keeps a viewed
                // buffer as it is until the view is released.
                Piece::InPlace { ptr, len } => unsafe { std::slice::from_raw_parts(ptr, len) },
                Piece::Hashed(_) => &[],
            })
            .collect();
        self.digests.clear();
        self.digests.resize(slices.len(), [0; 16]);
        if self.work() <= STEP_BYTES && self.longest <= LONG {
            md5x::multi::digest_many_into(&slices, &mut self.digests);
        } else {
            stepwise::digest_rows(&slices, &mut self.digests, stop)?;
        }
        if self.hashed > 0 {
            for (piece, digest) in self.pieces.iter().zip(&mut self.digests) {
                if let Piece::Hashed(d) = piece {
                    *digest = *d;
                }
            }
        }
        Ok(())
    }

    pub(super) fn clear(&mut self) {
        self.pieces.clear();
        self.copied.clear();
        self.total = 0;
        self.longest = 0;
        self.hashed = 0;
    }
}

/// What keeps a chunk's in-place rows readable.
pub(super) struct Owners<'py> {
    /// The long `bytes` rows, and `str` rows read as UTF-8 (immutable, so
    /// a reference keeps their bytes as they are).
    pub(super) immutable: Vec<Bound<'py, PyAny>>,
    /// The other long rows, through a buffer view.
    pub(super) views: Vec<BufferView>,
}

impl<'py> Owners<'py> {
    pub(super) fn new() -> Self {
        Self {
            immutable: Vec::new(),
            views: Vec::new(),
        }
    }

    pub(super) fn clear(&mut self) {
        self.immutable.clear();
        self.views.clear();
    }
}
