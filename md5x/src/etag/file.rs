//! The ETag of a file: its parts read side by side with positional reads,
//! each part one lane of [`Lanes`].
//!
//! The parts are taken in sets of up to one per kernel lane (24 with AVX2).
//! A set is hashed in rounds: each round reads the next page of every part
//! of the set into its slot of a small buffer and hashes them all in one
//! `Lanes::update`; a part's last bytes under a block go to
//! `finalize_lane`. Parts of one set all have the part size but perhaps the
//! file's last, so every round but the last is equal chunks, the kernel's
//! fastest shape, and a last set of fewer parts runs on fewer lane groups.
//!
//! Why pages and a buffer that fits the core's L2 cache: most of the cost
//! of a read from the page cache is the kernel's copy, which slows down
//! sharply once its destination leaves L2. For the same reason the sets
//! are shared out between threads, each reading and hashing its own in its
//! own L2, rather than one thread reading for another.

use super::file_reads::{check_end, for_each_read, read_exact_at, Positional, WrongLength};
use super::{checked_parts, Composer, Etag, EtagHasher, UploadRule, MAX_PARTS};
use crate::control::Control;
use crate::multi::{self, Lanes};
use std::io::{self, Seek};
use std::{fs::File, sync::mpsc, vec, vec::Vec};

/// Bytes a part reads a round: one page, so that a set's buffer (97 KiB for
/// AVX2's 24 lanes, 260 KiB for AVX-512's widest 64) stays in L2.
const CHUNK: usize = 4096;

/// Bytes between one part's slot of the round buffer and the next beyond
/// its page: a cache line, so that the lanes' blocks do not all fall in one
/// L1 set (`multi/scheduler/stagger.rs`), where the lanes evict each
/// other's lines: that costs a wide set of lanes much, even with each
/// block loaded a round ahead, and a narrower one less or nothing.
const SLOT_SKEW: usize = 64;

/// How far ahead of each part's reads the OS is asked to read it, where it
/// takes such a hint: with a cold page cache, the kernel's own readahead
/// falls behind on this many interleaved streams, most of all on one
/// thread. 256 KiB did best of 0 to 4 MiB.
const AHEAD: u64 = 256 << 10;

/// The S3 multipart ETag of `file` uploaded in parts of `part_size` bytes
/// (the last part may be shorter; an empty file is one empty part).
///
/// The parts are read with positional reads (`read_at` on Unix,
/// `seek_read` on Windows, which moves the file's cursor; elsewhere a seek
/// and a read), one part per lane of the [`md5x::multi`](crate::multi)
/// kernel side by side, and hashed in those lanes. When the file has more
/// parts than one set of lanes, the sets are shared out between up to
/// [`std::thread::available_parallelism`] threads scoped to the call (the
/// calling thread does it all where threads cannot start). Each thread
/// holds a buffer of one page per lane (97 KiB with AVX2), whatever the
/// file's size.
///
/// The file's length is taken from its metadata when the call starts. A
/// file whose metadata gives a length of 0 (an empty file, or one whose
/// size the kernel does not know, as under Linux's `/proc`) is read in
/// order to its end through an [`EtagHasher`]. So is, from its start
/// again, a file that turns out not to end at the length its metadata
/// gave: one the kernel sizes wrongly (Linux's `/sys` gives 4096 for files
/// of a few bytes), or one that changed size while being read; its ETag
/// is then that of what the read in order found.
///
/// # Errors
///
/// * [`io::ErrorKind::InvalidInput`] with the
///   [`PartsError`](super::PartsError) inside if `part_size` is 0 or the
///   file makes more than [`MAX_PARTS`] parts (see
///   [`multipart_file_unlimited`]);
/// * [`io::ErrorKind::InvalidInput`] if `file` is not a regular file (its
///   ETag needs its length up front: hash a pipe or device with
///   [`EtagHasher`](super::EtagHasher));
/// * any error of the reads, as they return it.
///
/// ```
/// # fn main() -> std::io::Result<()> {
/// use std::io::Write;
///
/// let path = std::env::temp_dir().join(format!("etag-doc-{}", std::process::id()));
/// std::fs::File::create(&path)?.write_all(b"The quick brown fox jumps over the lazy dog")?;
/// let file = std::fs::File::open(&path)?;
/// let etag = md5x::etag::multipart_file(&file, 16)?;
/// assert_eq!(etag.to_string(), "07f49c9b2ef71fdd9908e9322307edc2-3");
/// # std::fs::remove_file(&path)?;
/// # Ok(())
/// # }
/// ```
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub fn multipart_file(file: &File, part_size: u64) -> io::Result<Etag> {
    hash_file(
        file,
        part_size,
        MAX_PARTS,
        Shape::detect(),
        &Control::new(),
        Rule::Multipart,
    )
}

/// [`multipart_file`] without S3's limit on the part count, for stores
/// that allow more than [`MAX_PARTS`] parts.
///
/// # Errors
///
/// As [`multipart_file`], but for the part limit.
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub fn multipart_file_unlimited(file: &File, part_size: u64) -> io::Result<Etag> {
    hash_file(
        file,
        part_size,
        u64::MAX,
        Shape::detect(),
        &Control::new(),
        Rule::Multipart,
    )
}

/// The ETag of a file read in order, whose length was not known up front
/// (its metadata gave 0, or a length it does not have).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Rule {
    /// The multipart ETag, whatever the length ([`multipart_file`]).
    Multipart,
    /// The AWS CLI's upload rule: the plain MD5 below its threshold, a
    /// stream's parts never doubled ([`UploadHasher`](super::UploadHasher)).
    Upload(UploadRule),
}

/// [`multipart_file`] on at most `threads` threads (0 counts as 1) rather
/// than one per core, with at most `max_parts` parts ([`MAX_PARTS`] for
/// S3's limit, `u64::MAX` for none, as [`multipart_file_unlimited`]).
///
/// # Errors
///
/// As [`multipart_file`], with `max_parts` for the part limit.
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub fn multipart_file_on(
    file: &File,
    part_size: u64,
    max_parts: u64,
    threads: usize,
) -> io::Result<Etag> {
    let mut shape = Shape::detect();
    shape.threads = threads.max(1);
    hash_file(
        file,
        part_size,
        max_parts,
        shape,
        &Control::new(),
        Rule::Multipart,
    )
}

/// How [`hash_file`] reads: parts per set, bytes per part and round, the
/// most threads, and how far ahead of each part's reads to ask the OS to
/// read (0: not at all).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shape {
    pub(super) lanes: usize,
    pub(super) chunk: usize,
    pub(crate) threads: usize,
    pub(super) ahead: u64,
}

impl Shape {
    /// One part per lane of this process's kernel, a page a round, a thread
    /// per core.
    pub(crate) fn detect() -> Self {
        Self {
            lanes: multi::lanes().clamp(1, Lanes::MAX),
            chunk: CHUNK,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            ahead: AHEAD,
        }
    }

    /// The bytes of a thread's round buffer: a slot per lane, each a chunk
    /// and [`SLOT_SKEW`].
    fn buffer_len(&self) -> usize {
        self.lanes * (self.chunk + SLOT_SKEW)
    }
}

/// [`multipart_file`] with at most `max_parts` parts, read as `shape`
/// says, each round of reads counted in `control` and made only if its
/// flag is not set; a file read in order gets the ETag `rule` says.
pub(crate) fn hash_file(
    file: &File,
    part_size: u64,
    max_parts: u64,
    shape: Shape,
    control: &Control<'_>,
    rule: Rule,
) -> io::Result<Etag> {
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file: a multipart ETag needs the length up front \
             (md5x::etag::EtagHasher hashes a stream)",
        ));
    }
    let len = meta.len();
    if len > 0 {
        match hash_sized(file, len, part_size, max_parts, shape, control) {
            Err(e) if WrongLength::is(&e) => {}
            r => return r,
        }
        // Its metadata did not give its length: read it again, in order.
        let mut start = file;
        start.seek(io::SeekFrom::Start(0))?;
    }
    hash_in_order(file, part_size, max_parts, rule, control)
}

/// The ETag of `file`, `len` bytes long, its parts read side by side as
/// `shape` says.
///
/// # Errors
///
/// As [`multipart_file`], and an error with [`WrongLength`] inside if the
/// file does not end at `len`.
fn hash_sized(
    file: &impl Positional,
    len: u64,
    part_size: u64,
    max_parts: u64,
    shape: Shape,
    control: &Control<'_>,
) -> io::Result<Etag> {
    debug_assert!(
        (1..=Lanes::MAX).contains(&shape.lanes)
            && shape.chunk > 0
            && shape.chunk.is_multiple_of(64)
            && shape.threads > 0
    );
    let parts = checked_parts(len, part_size, max_parts)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    let sets = Sets {
        len,
        part_size,
        parts: parts.get(),
        shape,
        control: *control,
    };
    let threads = sets.count().min(shape.threads as u64) as usize;
    let composer = match (threads > 1).then(|| on_threads(file, &sets, threads)) {
        Some(Some(done)) => done?,
        // One thread, or threads could not start.
        _ => {
            let mut buf = vec![0u8; shape.buffer_len()];
            let mut composer = Composer::new();
            for set in 0..sets.count() {
                sets.hash(file, set, &mut buf)?.push_to(&mut composer);
            }
            composer
        }
    };
    check_end(file, len)?;
    Ok(composer.finish())
}

/// The ETag `rule` gives a file read in order to its end, whatever its
/// metadata says its length is.
fn hash_in_order(
    file: &File,
    part_size: u64,
    max_parts: u64,
    rule: Rule,
    control: &Control<'_>,
) -> io::Result<Etag> {
    let invalid = |e| io::Error::new(io::ErrorKind::InvalidInput, e);
    let read = |update: &mut dyn FnMut(&[u8]) -> io::Result<()>| {
        for_each_read(file, |data| {
            control.check()?;
            control.count(data.len());
            update(data)
        })
    };
    match rule {
        Rule::Multipart => {
            let mut hasher = EtagHasher::with_max_parts(part_size, max_parts).map_err(invalid)?;
            read(&mut |data| hasher.update(data).map_err(invalid))?;
            hasher.finish()
        }
        Rule::Upload(rule) => {
            let mut hasher = rule.hasher();
            read(&mut |data| hasher.update(data).map_err(invalid))?;
            hasher.finish()
        }
    }
    .map_err(invalid)
}

/// The file's parts in sets of `shape.lanes`, read as `shape` says.
struct Sets<'c> {
    len: u64,
    part_size: u64,
    parts: u64,
    shape: Shape,
    control: Control<'c>,
}

/// The digests of one set's parts, in part order.
struct SetDigests {
    count: usize,
    digests: [[u8; 16]; Lanes::MAX],
}

impl SetDigests {
    fn push_to(&self, composer: &mut Composer) {
        for d in &self.digests[..self.count] {
            composer.push(d);
        }
    }
}

impl Sets<'_> {
    fn count(&self) -> u64 {
        self.parts.div_ceil(self.shape.lanes as u64)
    }

    /// Reads and hashes set `set`, with `buf` ([`Shape::buffer_len`]
    /// bytes) for the rounds.
    fn hash(&self, file: &impl Positional, set: u64, buf: &mut [u8]) -> io::Result<SetDigests> {
        let Shape {
            lanes: width,
            chunk,
            ahead,
            ..
        } = self.shape;
        let first = set * width as u64;
        let count = (self.parts - first).min(width as u64) as usize;
        let mut lanes = Lanes::new(count);
        let mut out = SetDigests {
            count,
            digests: [[0; 16]; Lanes::MAX],
        };
        // Each part's first byte, length, and bytes hashed so far.
        let mut start = [0u64; Lanes::MAX];
        let mut part_len = [0u64; Lanes::MAX];
        for lane in 0..count {
            start[lane] = (first + lane as u64) * self.part_size;
            part_len[lane] = self.part_size.min(self.len - start[lane]);
        }
        let mut done = [0u64; Lanes::MAX];
        // How far the OS has been asked to read each part ahead.
        let mut hinted = [0u64; Lanes::MAX];
        let mut open = count;
        while open > 0 {
            self.control.check()?;
            let mut round = 0;
            // This round's piece of every part not yet ended: its whole
            // blocks, and the bytes after them (only at the part's end).
            let mut blocks: [&[u8]; Lanes::MAX] = [&[]; Lanes::MAX];
            let mut tails: [Option<&[u8]>; Lanes::MAX] = [None; Lanes::MAX];
            let mut slots = buf.chunks_exact_mut(chunk + SLOT_SKEW);
            for lane in 0..count {
                let slot = slots.next().expect("a slot per lane");
                if done[lane] > part_len[lane] {
                    continue; // ended in an earlier round
                }
                // The OS is asked for the part's next `ahead` to `2 *
                // ahead` bytes, `ahead` at a time.
                let want = done[lane].saturating_add(2 * ahead).min(part_len[lane]);
                while ahead > 0 && hinted[lane] < want {
                    let n = ahead.min(part_len[lane] - hinted[lane]);
                    file.will_need(start[lane] + hinted[lane], n);
                    hinted[lane] += n;
                }
                let n = (part_len[lane] - done[lane]).min(chunk as u64) as usize;
                read_exact_at(file, &mut slot[..n], start[lane] + done[lane])?;
                round += n;
                let (whole, tail) = slot[..n].split_at(n / 64 * 64);
                blocks[lane] = whole;
                done[lane] += n as u64;
                if done[lane] == part_len[lane] {
                    tails[lane] = Some(tail);
                    done[lane] += 1; // marks the part ended
                    open -= 1;
                }
            }
            self.control.count(round);
            lanes.update(&blocks[..count]);
            for (lane, tail) in tails[..count].iter().enumerate() {
                if let Some(tail) = tail {
                    out.digests[lane] = lanes.finalize_lane(lane, tail);
                }
            }
        }
        Ok(out)
    }
}

/// Hashes the sets on `threads` threads, set `i` on thread `i % threads`,
/// and composes their digests in order; `None` if the threads cannot all
/// start.
fn on_threads(
    file: &impl Positional,
    sets: &Sets<'_>,
    threads: usize,
) -> Option<io::Result<Composer>> {
    std::thread::scope(|s| {
        let mut results = Vec::with_capacity(threads);
        for t in 0..threads {
            // One set ahead of the composer, at most, per thread.
            let (tx, rx) = mpsc::sync_channel::<io::Result<SetDigests>>(1);
            let worker = move || {
                let mut buf = vec![0u8; sets.shape.buffer_len()];
                for set in (t as u64..sets.count()).step_by(threads) {
                    let digests = sets.hash(file, set, &mut buf);
                    let failed = digests.is_err();
                    // The composer stopped: so does this thread.
                    if tx.send(digests).is_err() || failed {
                        return;
                    }
                }
            };
            // Those started stop when `results` drops.
            std::thread::Builder::new()
                .name("md5-etag".into())
                .spawn_scoped(s, worker)
                .ok()?;
            results.push(rx);
        }
        let mut composer = Composer::new();
        for set in 0..sets.count() {
            match results[set as usize % threads].recv() {
                Ok(Ok(digests)) => digests.push_to(&mut composer),
                Ok(Err(e)) => return Some(Err(e)),
                // A thread panicked; the scope re-raises its panic.
                Err(mpsc::RecvError) => {
                    return Some(Err(io::Error::other("a hashing thread failed")))
                }
            }
        }
        Some(Ok(composer))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Digest, Md5};
    use std::string::{String, ToString};
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

    /// Bytes in memory, read at offsets; once it has given `stop_after`
    /// bytes, it sets `stop`, which the reads of the file then see.
    struct Source<'a> {
        data: Vec<u8>,
        given: AtomicU64,
        stop_after: u64,
        stop: &'a AtomicBool,
    }

    impl<'a> Source<'a> {
        fn new(len: usize, stop_after: u64, stop: &'a AtomicBool) -> Self {
            let data = (0..len as u64)
                .map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8)
                .collect();
            Self {
                data,
                given: AtomicU64::new(0),
                stop_after,
                stop,
            }
        }
    }

    impl Positional for Source<'_> {
        fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
            let at = usize::try_from(offset).unwrap().min(self.data.len());
            let n = buf.len().min(self.data.len() - at);
            buf[..n].copy_from_slice(&self.data[at..at + n]);
            let given = self.given.fetch_add(n as u64, Ordering::SeqCst) + n as u64;
            if given >= self.stop_after {
                self.stop.store(true, Ordering::SeqCst);
            }
            Ok(n)
        }

        fn will_need(&self, _offset: u64, _len: u64) {}
    }

    /// The multipart ETag as S3 defines it, from single-stream MD5s of
    /// each part.
    fn oracle(data: &[u8], part: usize) -> String {
        let mut digests = Vec::new();
        let mut parts = 0;
        for p in data.chunks(part) {
            digests.extend_from_slice(&Md5::digest(p));
            parts += 1;
        }
        if data.is_empty() {
            digests.extend_from_slice(&Md5::digest(data));
            parts = 1;
        }
        let d = Md5::digest(&digests);
        let hex: String = d.iter().map(|b| std::format!("{b:02x}")).collect();
        std::format!("{hex}-{parts}")
    }

    fn shapes() -> [Shape; 4] {
        let shape = |lanes, chunk, threads| Shape {
            lanes,
            chunk,
            threads,
            ahead: 0,
        };
        [
            shape(1, 64, 1),
            shape(2, 4096, 1),
            shape(3, 128, 2),
            shape(8, 4096, 3),
        ]
    }

    /// Parts read side by side, in every shape of sets, threads and
    /// rounds, give the ETag of the definition.
    #[test]
    fn sized_reads_give_the_definition() {
        let never = AtomicBool::new(false);
        for len in [1usize, 63, 4096, 100_000] {
            let src = Source::new(len, u64::MAX, &never);
            for part in [1usize, 64, 1000, 4096, 65_536] {
                if len.div_ceil(part) > 2000 {
                    continue;
                }
                let want = oracle(&src.data, part);
                for shape in shapes() {
                    let got = hash_sized(
                        &src,
                        len as u64,
                        part as u64,
                        MAX_PARTS,
                        shape,
                        &Control::new(),
                    );
                    assert_eq!(got.unwrap().to_string(), want, "{len} {part} {shape:?}");
                }
            }
        }
    }

    /// A file that does not end at the length its metadata gave fails
    /// with `WrongLength` inside, whether it ends before or goes on past
    /// it: the error `hash_file` reads it again in order for.
    #[test]
    fn wrong_length_is_told_apart() {
        let never = AtomicBool::new(false);
        let src = Source::new(5000, u64::MAX, &never);
        for claimed in [4096u64, 5001, 8192] {
            for shape in shapes() {
                let err =
                    hash_sized(&src, claimed, 1024, MAX_PARTS, shape, &Control::new()).unwrap_err();
                assert!(WrongLength::is(&err), "{claimed} {shape:?}: {err}");
            }
        }
    }

    /// A stop asked for mid-file (by the file's own reads, so before the
    /// file can have been read whole) ends the run with `Stopped`, in
    /// every shape, within a round of each thread's reads.
    #[test]
    fn stop_mid_file() {
        const LEN: usize = 4 << 20;
        const STOP_AFTER: u64 = 1 << 20;
        for shape in shapes() {
            let stop = AtomicBool::new(false);
            let src = Source::new(LEN, STOP_AFTER, &stop);
            let control = Control::new().stop_on(&stop);
            let err =
                hash_sized(&src, LEN as u64, 64 << 10, MAX_PARTS, shape, &control).unwrap_err();
            assert!(crate::control::Stopped::is(&err), "{shape:?}: {err}");
            let given = src.given.load(Ordering::SeqCst);
            let round = (shape.threads * shape.lanes * shape.chunk) as u64;
            assert!(given < STOP_AFTER + round, "{shape:?}: {given} bytes read");
        }
    }
}
