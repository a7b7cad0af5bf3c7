//! The ETag of a file: its parts read side by side with positional reads,
//! each part one lane of [`Lanes`], in a buffer of a few MiB.
//!
//! The parts are taken in sets of up to one per kernel lane (24 with AVX2).
//! Each round reads the next chunk of every part of the set into its slot
//! of one buffer and hashes them all in one `Lanes::update`; a part's last
//! piece goes to `Lanes` but for its last bytes under a block, which
//! `finalize_lane` takes. Parts of one set all have the part size but
//! perhaps the file's last, so every round but the last of a set is equal
//! chunks, the kernel's fastest shape; a last set of fewer parts runs on
//! fewer lane groups. On large files a second thread reads the next round
//! while this one hashes (see [`Shape::overlaps`]).

use super::{checked_parts, Composer, Etag, MAX_PARTS};
use crate::multi::{self, Lanes};
use std::{fs::File, io, sync::mpsc, vec, vec::Vec};

/// The bytes one round reads, shared by the parts of a set: with two
/// buffers in turn (reading one, hashing the other) the memory stays under
/// 4 MiB whatever the file and the kernel's width. Why this size: the
/// README's "S3 multipart ETags" section.
const ROUND_BYTES: usize = 3 << 19;

/// The smallest chunk a part gets in a round: one page.
const MIN_CHUNK: usize = 4096;

/// The S3 multipart ETag of `file` uploaded in parts of `part_size` bytes
/// (the last part may be shorter; an empty file is one empty part).
///
/// The parts are read with positional reads (`read_at` on Unix,
/// `seek_read` on Windows, which moves the file's cursor; elsewhere a seek
/// and a read), up to one part per lane of the [`md5::multi`](crate::multi)
/// kernel side by side, and hashed in those lanes, in a buffer of a few
/// MiB whatever the file's size. On files of more than a few MiB, a second
/// thread (scoped to the call) reads ahead while the calling thread hashes;
/// where threads cannot start, the calling thread does both.
///
/// The file's length is taken from its metadata when the call starts.
///
/// # Errors
///
/// * [`io::ErrorKind::InvalidInput`] with the [`PartsError`](super::PartsError) inside if
///   `part_size` is 0 or the file makes more than [`MAX_PARTS`] parts (see
///   [`multipart_file_unlimited`]);
/// * [`io::ErrorKind::InvalidInput`] if `file` is not a regular file (its
///   ETag needs its length up front: hash a pipe or device with
///   [`EtagHasher`](super::EtagHasher));
/// * [`io::ErrorKind::UnexpectedEof`] if the file ends before that length,
///   and [`io::ErrorKind::InvalidData`] if it goes on past it: it changed
///   size while being read, or its metadata does not give its length (as
///   for files under Linux's `/proc`);
/// * any error of the reads, as they return it.
///
/// ```
/// # fn main() -> std::io::Result<()> {
/// use std::io::Write;
///
/// let path = std::env::temp_dir().join(format!("etag-doc-{}", std::process::id()));
/// std::fs::File::create(&path)?.write_all(b"The quick brown fox jumps over the lazy dog")?;
/// let file = std::fs::File::open(&path)?;
/// let etag = md5::etag::multipart_file(&file, 16)?;
/// assert_eq!(etag.to_string(), "07f49c9b2ef71fdd9908e9322307edc2-3");
/// # std::fs::remove_file(&path)?;
/// # Ok(())
/// # }
/// ```
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub fn multipart_file(file: &File, part_size: u64) -> io::Result<Etag> {
    hash_file(file, part_size, MAX_PARTS, Shape::detect())
}

/// [`multipart_file`] without S3's limit on the part count, for stores
/// that allow more than [`MAX_PARTS`] parts.
///
/// # Errors
///
/// As [`multipart_file`], but for the part limit.
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub fn multipart_file_unlimited(file: &File, part_size: u64) -> io::Result<Etag> {
    hash_file(file, part_size, u64::MAX, Shape::detect())
}

/// How [`hash_file`] reads: parts per set, bytes per part and round, and
/// whether a second thread reads ahead.
#[derive(Clone, Copy, Debug)]
pub(super) struct Shape {
    pub(super) lanes: usize,
    pub(super) chunk: usize,
    pub(super) overlap: bool,
}

impl Shape {
    /// One part per lane of this process's kernel, [`ROUND_BYTES`] a round.
    fn detect() -> Self {
        let lanes = multi::lanes().clamp(1, Lanes::MAX);
        let chunk = (ROUND_BYTES / lanes / MIN_CHUNK).max(1) * MIN_CHUNK;
        Self {
            lanes,
            chunk,
            overlap: true,
        }
    }

    /// Whether a file of `len` bytes is read on a second thread: once it
    /// takes a few rounds, where the overlap saves more than starting a
    /// thread costs.
    fn overlaps(&self, len: u64) -> bool {
        self.overlap && len >= 4 * (self.lanes * self.chunk) as u64
    }
}

/// [`multipart_file`] with at most `max_parts` parts, read as `shape`
/// says.
pub(super) fn hash_file(
    file: &File,
    part_size: u64,
    max_parts: u64,
    shape: Shape,
) -> io::Result<Etag> {
    debug_assert!((1..=Lanes::MAX).contains(&shape.lanes) && shape.chunk.is_multiple_of(64));
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file: a multipart ETag needs the length up front \
             (md5::etag::EtagHasher hashes a stream)",
        ));
    }
    let len = meta.len();
    let parts = checked_parts(len, part_size, max_parts)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    let plan = || Plan::new(len, part_size, parts.get(), shape);
    let mut hasher = RoundHasher::new(shape.chunk);
    if shape.overlaps(len) {
        if let Some(done) = overlapped(file, plan(), &mut hasher) {
            done?;
            return Ok(hasher.finish());
        }
    }
    let mut buf = vec![0u8; shape.lanes * shape.chunk];
    for round in plan() {
        read_round(file, &round, shape.chunk, &mut buf)?;
        hasher.hash(&round, &buf);
    }
    check_end(file, len)?;
    Ok(hasher.finish())
}

/// The reads of one round: for each part of the set, in lane order.
struct Round {
    /// The set's parts, one a lane.
    count: usize,
    pieces: [Piece; Lanes::MAX],
}

/// What one lane reads in a round: `len` bytes at `offset`, a multiple of
/// 64 unless `last`, the end of its part. A lane whose part ended reads
/// nothing and is not `last`.
#[derive(Clone, Copy, Default)]
struct Piece {
    offset: u64,
    len: usize,
    last: bool,
}

/// The rounds that read every part, set after set.
struct Plan {
    len: u64,
    part_size: u64,
    parts: u64,
    shape: Shape,
    /// The first part of the current set, and how many it has (0 before
    /// the first set).
    first: u64,
    count: usize,
    /// Bytes read of each part of the set, and the parts not yet ended.
    done: [u64; Lanes::MAX],
    open: usize,
}

impl Plan {
    fn new(len: u64, part_size: u64, parts: u64, shape: Shape) -> Self {
        Self {
            len,
            part_size,
            parts,
            shape,
            first: 0,
            count: 0,
            done: [0; Lanes::MAX],
            open: 0,
        }
    }
}

impl Iterator for Plan {
    type Item = Round;

    fn next(&mut self) -> Option<Round> {
        if self.open == 0 {
            self.first += self.count as u64;
            if self.first == self.parts {
                return None;
            }
            self.count = (self.parts - self.first).min(self.shape.lanes as u64) as usize;
            self.done = [0; Lanes::MAX];
            self.open = self.count;
        }
        let mut round = Round {
            count: self.count,
            pieces: [Piece::default(); Lanes::MAX],
        };
        let set = round.pieces.iter_mut().zip(&mut self.done).take(self.count);
        for (lane, (piece, done)) in set.enumerate() {
            let start = (self.first + lane as u64) * self.part_size;
            let part_len = self.part_size.min(self.len - start);
            if *done > part_len {
                continue; // ended in an earlier round
            }
            let len = (part_len - *done).min(self.shape.chunk as u64);
            let last = *done + len == part_len;
            *piece = Piece {
                offset: start + *done,
                len: len as usize,
                last,
            };
            // An ended part is marked one past its length.
            *done += len + u64::from(last);
            self.open -= usize::from(last);
        }
        Some(round)
    }
}

/// Reads `round` into `buf`, each lane's piece at `lane * chunk`.
fn read_round(file: &File, round: &Round, chunk: usize, buf: &mut [u8]) -> io::Result<()> {
    for (slot, piece) in buf
        .chunks_exact_mut(chunk)
        .zip(&round.pieces[..round.count])
    {
        read_exact_at(file, &mut slot[..piece.len], piece.offset)?;
    }
    Ok(())
}

/// Hashes the rounds of a [`Plan`] in its lanes, and composes the ETag.
struct RoundHasher {
    chunk: usize,
    lanes: Option<Lanes>,
    /// The digests of the current set's parts, and the parts not yet ended.
    digests: [[u8; 16]; Lanes::MAX],
    open: usize,
    composer: Composer,
}

impl RoundHasher {
    fn new(chunk: usize) -> Self {
        Self {
            chunk,
            lanes: None,
            digests: [[0; 16]; Lanes::MAX],
            open: 0,
            composer: Composer::new(),
        }
    }

    /// Hashes `round`, read into `buf` by [`read_round`].
    fn hash(&mut self, round: &Round, buf: &[u8]) {
        let count = round.count;
        if self.open == 0 {
            self.open = count;
            match &mut self.lanes {
                Some(lanes) if lanes.count() == count => {} // every lane was finalized: fresh
                lanes => *lanes = Some(Lanes::new(count)),
            }
        }
        let lanes = self.lanes.as_mut().expect("a set's lanes exist");
        // Each lane's whole blocks, and the bytes after them (only a part's
        // last piece has any).
        let mut blocks: [&[u8]; Lanes::MAX] = [&[]; Lanes::MAX];
        let mut tails: [&[u8]; Lanes::MAX] = [&[]; Lanes::MAX];
        for (lane, piece) in round.pieces[..count].iter().enumerate() {
            let data = &buf[lane * self.chunk..][..piece.len];
            (blocks[lane], tails[lane]) = data.split_at(data.len() / 64 * 64);
        }
        lanes.update(&blocks[..count]);
        for (lane, piece) in round.pieces[..count].iter().enumerate() {
            if piece.last {
                self.digests[lane] = lanes.finalize_lane(lane, tails[lane]);
                self.open -= 1;
            }
        }
        if self.open == 0 {
            for d in &self.digests[..count] {
                self.composer.push(d);
            }
        }
    }

    fn finish(self) -> Etag {
        self.composer.finish()
    }
}

/// What the reading thread sends: a round read into a buffer, the end of
/// the file (checked), or the error that stopped it.
type Filled = io::Result<Option<(Round, Vec<u8>)>>;

/// Reads `plan` on a second thread while this one hashes, two buffers in
/// turn; `None` if the thread cannot start.
fn overlapped(file: &File, plan: Plan, hasher: &mut RoundHasher) -> Option<io::Result<()>> {
    let size = plan.shape.lanes * plan.shape.chunk;
    let chunk = plan.shape.chunk;
    let len = plan.len;
    let (full_tx, full_rx) = mpsc::sync_channel::<Filled>(1);
    let (empty_tx, empty_rx) = mpsc::sync_channel::<Vec<u8>>(2);
    std::thread::scope(|s| {
        let reader = move || {
            for round in plan {
                // The hasher stopped: nothing more to read.
                let Ok(mut buf) = empty_rx.recv() else { return };
                let read = read_round(file, &round, chunk, &mut buf).map(|()| Some((round, buf)));
                let failed = read.is_err();
                if full_tx.send(read).is_err() || failed {
                    return;
                }
            }
            let _ = full_tx.send(check_end(file, len).map(|()| None));
        };
        std::thread::Builder::new()
            .name("md5-etag-read".into())
            .spawn_scoped(s, reader)
            .ok()?;
        for _ in 0..2 {
            empty_tx.send(vec![0u8; size]).ok()?;
        }
        Some(loop {
            match full_rx.recv() {
                Ok(Ok(Some((round, buf)))) => {
                    hasher.hash(&round, &buf);
                    // The reader may have ended, with no use for it.
                    let _ = empty_tx.send(buf);
                }
                Ok(Ok(None)) => break Ok(()),
                Ok(Err(e)) => break Err(e),
                // The reader panicked; the scope re-raises its panic.
                Err(mpsc::RecvError) => break Err(io::Error::other("the reading thread failed")),
            }
        })
    })
}

/// Fills `buf` from `offset`, or fails with `UnexpectedEof` where the file
/// ends first.
fn read_exact_at(file: &File, mut buf: &mut [u8], mut offset: u64) -> io::Result<()> {
    while !buf.is_empty() {
        match read_at(file, buf, offset) {
            Ok(0) => {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    std::format!(
                        "the file ended at byte {offset}, before the length its metadata \
                         gave: it shrank while being read"
                    ),
                ))
            }
            Ok(n) => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Fails if the file goes on past `len`, the length it was hashed to.
fn check_end(file: &File, len: u64) -> io::Result<()> {
    let mut byte = [0u8];
    loop {
        match read_at(file, &mut byte, len) {
            Ok(0) => return Ok(()),
            Ok(_) => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    std::format!(
                        "the file goes on past the {len} bytes its metadata gave: it grew \
                         while being read, or its metadata does not give its length"
                    ),
                ))
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, offset)
}

#[cfg(windows)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(file, buf, offset)
}

/// Elsewhere (WASI, whose positional reads are unstable in std): a seek and
/// a read, which move the file's cursor. Only one thread reads.
#[cfg(not(any(unix, windows)))]
fn read_at(mut file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    use std::io::{Read, Seek};
    file.seek(io::SeekFrom::Start(offset))?;
    file.read(buf)
}
