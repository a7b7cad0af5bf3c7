//! `md5x.hash_files`: many files hashed on several threads, each thread
//! filling SIMD lanes, in bounded memory.
//!
//! Each thread takes the next file of the list (an atomic counter) and
//! opens it. A file of up to [`SMALL`] bytes is read whole into the
//! thread's batch buffer, and a full batch is hashed by
//! `md5::multi::digest_many_into`, many files side by side. A larger file
//! becomes one stream of the thread's `md5::multi::Lanes`: each round reads
//! the next [`CHUNK`] of every stream and hashes them all in one call, and
//! a stream that ends frees its lane for the next large file.

use crate::interrupt;
use crate::paths::{os_error, path_of};
use crate::reading::{self, read_full};
use crate::stop::Stop;
use md5x::multi::{self, Lanes};
use md5x::{Digest, Md5};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};
use std::fs::File;
use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Files up to this size are read whole and hashed in batches.
const SMALL: usize = 64 << 10;

/// The most bytes, and files, a thread's batch of small files holds.
const BATCH_BYTES: usize = 2 << 20;
const BATCH_FILES: usize = 256;

/// Bytes a large file's stream reads a round: a multiple of 64, and small
/// enough that a round over 32 lanes (1 MiB) stays in a core's L2.
const CHUNK: usize = 32 << 10;

/// The most large files open at once, over all threads: far below the
/// usual limit of 1,024 descriptors.
const OPEN_FILES: usize = 256;

/// The 16-byte MD5 digest of each file of ``paths`` (``str``, ``bytes`` or
/// ``os.PathLike``), in order: the same as
/// ``[hashlib.file_digest(open(p, "rb"), "md5").digest() for p in paths]``,
/// several times faster.
///
/// The files are hashed on ``jobs`` threads (default: the CPUs this
/// process may use), each hashing many files side by side in SIMD lanes:
/// files of up to 64 KiB read whole and hashed in batches, larger ones read
/// 32 KiB at a time, up to one per lane. Memory stays bounded whatever the
/// files' sizes: at most 4 MiB per thread (a 2 MiB batch, and 32 KiB for
/// each of up to 64 lanes; 3 MiB with AVX-512's usual 32). The GIL is
/// released throughout.
///
/// Ctrl-C stops the call within about a second (a FIFO no one writes to,
/// an endless device, large files) with ``KeyboardInterrupt``.
///
/// A file that cannot be read raises the ``OSError`` that ``open`` or
/// ``read`` would (``FileNotFoundError``, ``PermissionError``,
/// ``IsADirectoryError``, ...) with ``filename`` set; if several cannot,
/// the first in ``paths``. ``jobs`` below 1 raises ``ValueError``.
#[pyfunction]
#[pyo3(signature = (paths, /, *, jobs = None))]
fn hash_files<'py>(
    py: Python<'py>,
    paths: &Bound<'py, PyAny>,
    jobs: Option<i64>,
) -> PyResult<Bound<'py, PyList>> {
    let jobs = match jobs {
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
        Some(j) if j >= 1 => usize::try_from(j).unwrap_or(usize::MAX),
        Some(j) => {
            return Err(PyValueError::new_err(format!(
                "jobs must be at least 1, not {j}"
            )))
        }
    };
    let mut objects = Vec::new();
    let mut files = Vec::new();
    for (i, obj) in paths.try_iter()?.enumerate() {
        let obj = obj?;
        let path = path_of(&obj).map_err(|e| {
            let msg = format!("path {i}: {}", e.value(py));
            if e.is_instance_of::<PyTypeError>(py) {
                PyTypeError::new_err(msg)
            } else {
                PyValueError::new_err(msg)
            }
        })?;
        files.push(path);
        objects.push(obj);
    }
    let digests = interrupt::run(py, |stop| hash_all(&files, jobs, stop))?;
    match digests {
        Ok(digests) => PyList::new(py, digests.iter().map(|d| PyBytes::new(py, d))),
        Err((i, e)) => Err(os_error(py, e, &objects[i])),
    }
}

/// The digests of `paths`, on up to `jobs` threads, or the first file in
/// `paths` that failed and its error.
fn hash_all(
    paths: &[PathBuf],
    jobs: usize,
    stop: &Stop,
) -> Result<Vec<[u8; 16]>, (usize, io::Error)> {
    // Each thread holds at least one large file and one small one open:
    // capped so that all of them stay under the usual 1,024 descriptors.
    let threads = jobs.min(paths.len()).clamp(1, OPEN_FILES);
    let width = multi::lanes().clamp(1, Lanes::MAX);
    let streams = (OPEN_FILES / threads).clamp(1, width);
    let work = Work {
        paths,
        next: AtomicUsize::new(0),
        failed: AtomicBool::new(false),
        stop,
    };
    let outcomes: Vec<Outcome> = std::thread::scope(|s| {
        let mut handles = Vec::new();
        for _ in 1..threads {
            // Where a thread cannot start, the others do its share.
            match std::thread::Builder::new().spawn_scoped(s, || Worker::new(&work, streams).run())
            {
                Ok(h) => handles.push(h),
                Err(_) => break,
            }
        }
        let mut outcomes = vec![Worker::new(&work, streams).run()];
        for h in handles {
            outcomes.push(h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
        }
        outcomes
    });
    let mut out = vec![[0u8; 16]; paths.len()];
    let mut first_error: Option<(usize, io::Error)> = None;
    for outcome in outcomes {
        for (i, d) in outcome.digests {
            out[i] = d;
        }
        if let Some((i, e)) = outcome.error {
            if first_error.as_ref().is_none_or(|(j, _)| i < *j) {
                first_error = Some((i, e));
            }
        }
    }
    match first_error {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

/// The files, shared out between the threads in list order.
struct Work<'a> {
    paths: &'a [PathBuf],
    next: AtomicUsize,
    /// Set at the first error: no thread takes another file, but each
    /// finishes those it took. Files are taken in order, so every file
    /// before a failed one is then hashed, and the first error in the list
    /// is among those found.
    failed: AtomicBool,
    /// Set when the call is interrupted: every thread stops at its next
    /// read.
    stop: &'a Stop,
}

impl Work<'_> {
    /// The index of the next file to hash, if any.
    fn take(&self) -> Option<usize> {
        if self.failed.load(Ordering::Relaxed) || self.stop.is_set() {
            return None;
        }
        let i = self.next.fetch_add(1, Ordering::Relaxed);
        (i < self.paths.len()).then_some(i)
    }
}

/// What a thread found: digests by index, and its first error.
struct Outcome {
    digests: Vec<(usize, [u8; 16])>,
    error: Option<(usize, io::Error)>,
}

/// One thread's share: its batch of small files and its streams of large
/// ones.
struct Worker<'w, 'a> {
    work: &'w Work<'a>,
    batch: Batch,
    streams: Streams,
    out: Outcome,
}

impl<'w, 'a> Worker<'w, 'a> {
    fn new(work: &'w Work<'a>, streams: usize) -> Self {
        Self {
            work,
            batch: Batch::default(),
            streams: Streams::new(streams),
            out: Outcome {
                digests: Vec::new(),
                error: None,
            },
        }
    }

    fn run(mut self) -> Outcome {
        let mut exhausted = false;
        loop {
            while !exhausted && self.streams.has_room() {
                match self.work.take() {
                    Some(i) => self.start(i),
                    None => exhausted = true,
                }
            }
            if exhausted && self.streams.is_empty() {
                break;
            }
            self.streams.round(&mut self.out, self.work.stop);
            self.note_error();
        }
        self.batch.hash(&mut self.out.digests);
        self.out
    }

    /// Opens file `i` and reads it into the batch, or starts a stream.
    fn start(&mut self, i: usize) {
        let stop = self.work.stop;
        let result = reading::open(&self.work.paths[i], stop).and_then(|file| {
            let len = file.metadata()?.len();
            if len <= SMALL as u64 {
                self.batch.add(i, file, &mut self.out.digests, stop)
            } else {
                self.streams.add(i, file);
                Ok(())
            }
        });
        if let Err(e) = result {
            self.fail(i, e);
        }
    }

    fn fail(&mut self, i: usize, e: io::Error) {
        if self.out.error.as_ref().is_none_or(|(j, _)| i < *j) {
            self.out.error = Some((i, e));
        }
        self.work.failed.store(true, Ordering::Relaxed);
    }

    fn note_error(&mut self) {
        if let Some((i, e)) = self.streams.error.take() {
            self.fail(i, e);
        }
    }
}

/// Small files read whole, hashed together when the batch is full.
#[derive(Default)]
struct Batch {
    /// Zeroed once, to its full size; `end` bytes of it in use.
    buf: Vec<u8>,
    end: usize,
    /// Each file's index and its bytes' range in `buf`.
    files: Vec<(usize, std::ops::Range<usize>)>,
}

impl Batch {
    /// Reads `file` (file `index`, said to be at most `SMALL` bytes) into
    /// the batch, hashing the batch first if it is full. A file that turns
    /// out larger is hashed on its own.
    fn add(
        &mut self,
        index: usize,
        mut file: File,
        out: &mut Vec<(usize, [u8; 16])>,
        stop: &Stop,
    ) -> io::Result<()> {
        if self.end + SMALL > BATCH_BYTES || self.files.len() == BATCH_FILES {
            self.hash(out);
        }
        // Up to one byte more than a small file holds.
        self.buf.resize(BATCH_BYTES + 1, 0);
        let start = self.end;
        let n = read_full(&mut file, &mut self.buf[start..start + SMALL + 1], stop)?;
        if n > SMALL {
            // It grew since its metadata was read, or its metadata does
            // not give its length (as under /proc, or a pipe).
            let mut md5 = Md5::new();
            md5.update(&self.buf[start..start + n]);
            let mut chunk = vec![0u8; CHUNK];
            loop {
                match read_full(&mut file, &mut chunk, stop)? {
                    0 => break,
                    n => md5.update(&chunk[..n]),
                }
            }
            out.push((index, md5.finalize().into()));
            return Ok(());
        }
        self.end = start + n;
        self.files.push((index, start..self.end));
        Ok(())
    }

    /// Hashes the files of the batch side by side and empties it.
    fn hash(&mut self, out: &mut Vec<(usize, [u8; 16])>) {
        if self.files.is_empty() {
            return;
        }
        let slices: Vec<&[u8]> = self
            .files
            .iter()
            .map(|(_, r)| &self.buf[r.clone()])
            .collect();
        let mut digests = vec![[0u8; 16]; slices.len()];
        multi::digest_many_into(&slices, &mut digests);
        out.extend(self.files.iter().map(|(i, _)| *i).zip(digests));
        self.files.clear();
        self.end = 0;
    }
}

/// Large files, one per lane, read a chunk per round.
struct Streams {
    lanes: Lanes,
    /// Each lane's file and its index, or `None` where the lane is free.
    files: Vec<Option<(usize, File)>>,
    /// One chunk per lane.
    buf: Vec<u8>,
    /// The error of a stream in the last round.
    error: Option<(usize, io::Error)>,
}

impl Streams {
    fn new(count: usize) -> Self {
        Self {
            lanes: Lanes::new(count),
            files: (0..count).map(|_| None).collect(),
            buf: vec![0u8; count * CHUNK],
            error: None,
        }
    }

    fn has_room(&self) -> bool {
        self.files.iter().any(Option::is_none)
    }

    fn is_empty(&self) -> bool {
        self.files.iter().all(Option::is_none)
    }

    fn add(&mut self, index: usize, file: File) {
        if let Some(slot) = self.files.iter_mut().find(|f| f.is_none()) {
            *slot = Some((index, file));
        }
    }

    /// Reads the next chunk of every stream and hashes them in one call;
    /// finishes the streams that ended.
    fn round(&mut self, out: &mut Outcome, stop: &Stop) {
        let count = self.files.len();
        let mut read = [0usize; Lanes::MAX];
        for (lane, (slot, chunk)) in self
            .files
            .iter_mut()
            .zip(self.buf.chunks_exact_mut(CHUNK))
            .enumerate()
        {
            let Some((index, file)) = slot else { continue };
            match read_full(file, chunk, stop) {
                Ok(n) => read[lane] = n,
                Err(e) => {
                    if self.error.as_ref().is_none_or(|(j, _)| *index < *j) {
                        self.error = Some((*index, e));
                    }
                    *slot = None;
                    self.lanes.reset_lane(lane);
                }
            }
        }
        let mut chunks: [&[u8]; Lanes::MAX] = [&[]; Lanes::MAX];
        for (lane, chunk) in self.buf.chunks_exact(CHUNK).enumerate() {
            if self.files[lane].is_some() {
                // Whole blocks only; a stream's last bytes go to
                // `finalize_lane`.
                chunks[lane] = &chunk[..read[lane] / 64 * 64];
            }
        }
        self.lanes.update(&chunks[..count]);
        for (lane, chunk) in self.buf.chunks_exact(CHUNK).enumerate() {
            let n = read[lane];
            if n == CHUNK {
                continue;
            }
            if let Some((index, _)) = self.files[lane].take() {
                let digest = self.lanes.finalize_lane(lane, &chunk[n / 64 * 64..n]);
                out.digests.push((index, digest));
            }
        }
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(hash_files, m)?)
}
