//! One long input hashed while its next bytes are read: a reader thread
//! fills a few buffers ahead of the hashing thread, so that a large file
//! takes about as long as the longer of reading and hashing it, not their
//! sum (the copy out of the page cache, and waiting for the disk, happen
//! on another core). Where no thread or buffer can be had, the hashing
//! thread reads for itself.

use super::{fill, Control};
use crate::{Digest, Md5};
use std::collections::VecDeque;
use std::io::{self, Read};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::vec::Vec;

/// Read size when the hashing thread reads for itself. Larger reads cost
/// more system time per byte, as the copy no longer stays in cache (128
/// KiB and up against 64 KiB, a file in the page cache).
const INLINE_READ: usize = 64 * 1024;
/// Buffers the reader thread fills ahead, and the size of each: on another
/// core the cost of a large copy matters less than the hand-overs saved
/// (measured: CONTRIBUTING.md's md5sum section says where to find it).
const AHEAD: usize = 4;
const CHUNK: usize = 1024 * 1024;
/// Bytes read on the hashing thread before a reader thread takes over: a
/// thread and its 4 MiB of buffers cost about a millisecond, which only a
/// long input repays.
const INLINE_FIRST: u64 = 8 << 20;
/// Stack of a reader thread: it only reads into heap buffers.
const READER_STACK: usize = 64 * 1024;

/// Hashes the rest of `src` into `h` (a fresh [`Md5`], or one that has
/// hashed the input's first bytes) and returns the digest. The first 8 MiB
/// are read on the calling thread, 64 KiB at a time (a short input never
/// costs a thread); if there is more, a reader thread takes over, filling
/// four 1 MiB buffers ahead of the hashing, so that a long input takes
/// about as long as the longer of reading and hashing it, not their sum.
/// Where no thread or buffer can be had, the calling thread reads on.
/// `spare` is the calling thread's read buffer, kept between calls.
///
/// # Errors
///
/// The first read error, or [`Stopped`](super::Stopped) once `control`'s
/// flag is set.
///
/// ```
/// use md5x::{Digest, Md5};
///
/// let data = vec![7u8; 20 << 20];
/// let digest = md5x::files::hash_stream(Md5::new(), &data[..], &md5x::files::Control::new(), &mut Vec::new())?;
/// assert_eq!(digest, <[u8; 16]>::from(Md5::digest(&data)));
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn hash_stream<R: Read + Send>(
    mut h: Md5,
    mut src: R,
    control: &Control<'_>,
    spare: &mut Vec<u8>,
) -> io::Result<[u8; 16]> {
    if spare.len() < INLINE_READ {
        spare.resize(INLINE_READ, 0);
    }
    let mut inline = 0;
    while inline < INLINE_FIRST {
        let n = fill(&mut src, &mut spare[..INLINE_READ], control)?;
        h.update(&spare[..n]);
        if n < INLINE_READ {
            return Ok(h.finalize().into());
        }
        inline += n as u64;
    }
    if let Some(ring) = Ring::new() {
        let r = std::thread::scope(|s| {
            let reader = std::thread::Builder::new()
                .stack_size(READER_STACK)
                .spawn_scoped(s, || ring.read_all(&mut src, control));
            reader.ok().map(|_| ring.hash_all(&mut h))
        });
        if let Some(r) = r {
            return r.map(|()| h.finalize().into());
        }
    }
    loop {
        let n = fill(&mut src, &mut spare[..INLINE_READ], control)?;
        h.update(&spare[..n]);
        if n < INLINE_READ {
            return Ok(h.finalize().into());
        }
    }
}

/// Locks a mutex, whether or not a thread panicked while holding it (the
/// ring's state stays consistent across every panic point).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The buffers between the reader thread and the hashing thread.
struct Ring {
    state: Mutex<RingState>,
    /// Signalled when a buffer is filled, or reading ends.
    filled: Condvar,
    /// Signalled when a buffer is free again, or hashing stops.
    freed: Condvar,
}

struct RingState {
    free: Vec<Vec<u8>>,
    /// Filled buffers in input order, with their lengths.
    full: VecDeque<(Vec<u8>, usize)>,
    /// Reading ended: at end of input, or with this error.
    end: Option<io::Result<()>>,
    /// The hashing thread left: the reader stops.
    stop: bool,
}

impl Ring {
    /// The buffers, or `None` when memory for them cannot be had.
    fn new() -> Option<Ring> {
        let mut free = Vec::with_capacity(AHEAD);
        for _ in 0..AHEAD {
            let mut b = Vec::new();
            b.try_reserve_exact(CHUNK).ok()?;
            b.resize(CHUNK, 0);
            free.push(b);
        }
        Some(Ring {
            state: Mutex::new(RingState {
                free,
                full: VecDeque::new(),
                end: None,
                stop: false,
            }),
            filled: Condvar::new(),
            freed: Condvar::new(),
        })
    }

    /// The reader thread: fills free buffers in order until end of input,
    /// an error, or the hashing thread stops.
    fn read_all(&self, src: &mut impl Read, control: &Control<'_>) {
        loop {
            let mut buf = {
                let mut st = lock(&self.state);
                loop {
                    if st.stop {
                        return;
                    }
                    if let Some(b) = st.free.pop() {
                        break b;
                    }
                    st = self.freed.wait(st).unwrap_or_else(|e| e.into_inner());
                }
            };
            let r = fill(src, &mut buf, control);
            let mut st = lock(&self.state);
            match r {
                Ok(n) => {
                    let last = n < buf.len();
                    st.full.push_back((buf, n));
                    if last {
                        st.end = Some(Ok(()));
                    }
                }
                Err(e) => st.end = Some(Err(e)),
            }
            let ended = st.end.is_some();
            drop(st);
            self.filled.notify_one();
            if ended {
                return;
            }
        }
    }

    /// The hashing thread: hashes filled buffers in order until reading
    /// ends; returns how it ended.
    fn hash_all(&self, h: &mut Md5) -> io::Result<()> {
        // Stops the reader however this ends, so that the scope joining it
        // never waits forever.
        struct Stop<'r>(&'r Ring);
        impl Drop for Stop<'_> {
            fn drop(&mut self) {
                lock(&self.0.state).stop = true;
                self.0.freed.notify_all();
            }
        }
        let _stop = Stop(self);
        loop {
            let (buf, n) = {
                let mut st = lock(&self.state);
                loop {
                    if let Some(x) = st.full.pop_front() {
                        break x;
                    }
                    if let Some(end) = st.end.take() {
                        return end;
                    }
                    st = self.filled.wait(st).unwrap_or_else(|e| e.into_inner());
                }
            };
            h.update(&buf[..n]);
            lock(&self.state).free.push(buf);
            self.freed.notify_one();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::string::ToString;
    use std::sync::atomic::{AtomicU64, Ordering};

    /// Yields `data` in reads of odd sizes, then fails if `fail` is set.
    struct Source {
        data: Vec<u8>,
        at: usize,
        fail: bool,
    }

    impl Read for Source {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.at == self.data.len() && self.fail {
                return Err(io::Error::other("the disk failed"));
            }
            let n = buf.len().min(self.data.len() - self.at).min(100_003);
            buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }

    /// Digests equal one-shot ones on both sides of the hand-over to the
    /// reader thread and of its buffers; a read error comes back as such;
    /// every byte is counted.
    #[test]
    fn streams_like_one_shot() {
        let data: Vec<u8> = (0..INLINE_FIRST as usize + 3 * CHUNK + 77)
            .map(|i| (i as u32).wrapping_mul(2_654_435_761) as u8)
            .collect();
        let mut spare = Vec::new();
        for len in [
            0,
            1,
            INLINE_READ,
            INLINE_FIRST as usize,
            INLINE_FIRST as usize + 1,
            data.len(),
        ] {
            let bytes = AtomicU64::new(0);
            let control = Control::new().count_into(&bytes);
            let src = Source {
                data: data[..len].to_vec(),
                at: 0,
                fail: false,
            };
            let got = hash_stream(Md5::new_with_prefix(b"x"), src, &control, &mut spare).unwrap();
            let mut want = Md5::new_with_prefix(b"x");
            want.update(&data[..len]);
            assert_eq!(got, <[u8; 16]>::from(want.finalize()), "{len}");
            assert_eq!(bytes.load(Ordering::Relaxed), len as u64);
            let src = Source {
                data: data[..len].to_vec(),
                at: 0,
                fail: true,
            };
            let err = hash_stream(Md5::new(), src, &control, &mut spare).unwrap_err();
            assert_eq!(err.to_string(), "the disk failed");
        }
    }
}
