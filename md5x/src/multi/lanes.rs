//! [`Lanes`]: several long streams advanced together, one chunk per stream
//! and call.

use crate::multi::kernel::Kernel;
use crate::multi::lane_state::{BlockPtrs, LaneStates, MAX_LANES};
use crate::multi::scheduler::single::finish_single;
use crate::multi::scheduler::stagger;
use md5x_block::consts::STATE_INIT;

/// The most streams one [`Lanes`] holds: the widest kernel's lanes
/// (AVX-512), so that a full `Lanes` keeps every lane of any kernel busy.
const MAX_STREAMS: usize = MAX_LANES;

/// Up to [`Lanes::MAX`] MD5 streams advanced together, for example several
/// large files read chunk by chunk on one core.
///
/// Each call of [`update`](Lanes::update) takes one chunk per stream (lane)
/// and hashes them side by side with the multi-buffer kernel; each stream is
/// then finished on its own by [`finalize_lane`](Lanes::finalize_lane),
/// which also takes the stream's last, partial piece and leaves the lane
/// fresh for a new stream.
///
/// Constraints on [`update`](Lanes::update):
///
/// * it takes exactly [`count`](Lanes::count) chunks, one per lane, in lane
///   order;
/// * every chunk's length is a multiple of 64 bytes (the MD5 block size), so
///   no lane buffers bytes; the remainder of a stream goes to
///   [`finalize_lane`](Lanes::finalize_lane), which accepts any length;
/// * chunks may differ in length, and an empty chunk leaves its lane
///   untouched, so streams that ended (or have not started) simply pass `&[]`.
///
/// Lanes of equal chunk lengths run fastest; give it at least
/// [`lanes()`](fn@super::lanes) streams to fill the kernel. Chunks are
/// hashed where they lie: read into slots of one buffer, put each slot a
/// cache line (64 bytes) past a multiple of 4 KiB from the last, not
/// exactly 4 KiB apart, where every lane's block falls in one L1 cache set
/// and the lanes evict each other's lines. Equal chunks laid so are
/// staggered where the kernel needs it, as
/// [`digest_many_into`](super::digest_many_into) staggers such messages.
///
/// ```
/// use md5x::{Digest, Md5};
/// use md5x::multi::Lanes;
///
/// // Three "files", read 4 KiB at a time.
/// let files = [vec![1u8; 10_000], vec![2u8; 4096], vec![3u8; 100]];
/// let mut lanes = Lanes::new(files.len());
/// let mut pos = [0usize; 3];
/// let mut digests = [None; 3];
/// const CHUNK: usize = 4096; // a multiple of 64
/// while digests.iter().any(Option::is_none) {
///     let mut chunks: [&[u8]; 3] = [&[]; 3];
///     for (i, file) in files.iter().enumerate() {
///         if digests[i].is_some() {
///             continue; // finished: its lane idles
///         }
///         let rest = &file[pos[i]..];
///         if rest.len() > CHUNK {
///             chunks[i] = &rest[..CHUNK];
///             pos[i] += CHUNK;
///         } else {
///             // Last piece, any length: this lane is done.
///             digests[i] = Some(lanes.finalize_lane(i, rest));
///         }
///     }
///     lanes.update(&chunks);
/// }
/// for (file, digest) in files.iter().zip(digests) {
///     assert_eq!(digest.unwrap()[..], Md5::digest(file)[..]);
/// }
/// ```
#[derive(Clone)]
pub struct Lanes {
    kernel: Kernel,
    count: usize,
    state: LaneStates,
    /// Bytes hashed so far in each lane.
    len: [u64; MAX_STREAMS],
}

impl Lanes {
    /// The most streams one `Lanes` holds.
    pub const MAX: usize = MAX_STREAMS;

    /// `count` fresh streams, hashed with the kernel of [`backend`](super::backend).
    ///
    /// # Panics
    ///
    /// If `count` is 0 or more than [`Lanes::MAX`].
    pub fn new(count: usize) -> Self {
        Self::with_kernel(Kernel::detect(), count)
    }

    /// [`Lanes::new`] with the given kernel, which must come from
    /// [`Kernel::detect`] or [`Kernel::available`].
    pub(crate) fn with_kernel(kernel: Kernel, count: usize) -> Self {
        assert!(
            (1..=MAX_STREAMS).contains(&count),
            "md5x::multi::Lanes: {count} streams; it holds 1 to {MAX_STREAMS}"
        );
        let mut state = LaneStates::new();
        for lane in 0..count {
            state.set(lane, STATE_INIT);
        }
        Self {
            kernel,
            count,
            state,
            len: [0; MAX_STREAMS],
        }
    }

    /// The number of streams.
    pub fn count(&self) -> usize {
        self.count
    }

    /// Hashes `chunks[i]` into stream `i`, for every stream.
    ///
    /// # Panics
    ///
    /// If `chunks.len()` is not [`count`](Lanes::count), or a chunk's length
    /// is not a multiple of 64 (see the type's documentation). The streams
    /// are then left as they were.
    pub fn update<T: AsRef<[u8]>>(&mut self, chunks: &[T]) {
        assert_eq!(
            chunks.len(),
            self.count,
            "md5x::multi::Lanes::update: {} chunks for {} streams",
            chunks.len(),
            self.count
        );
        // Each chunk is asked for its bytes once: a second `as_ref` could
        // answer differently from the slice that was checked. And every
        // chunk is checked before any lane changes, so a panic here leaves
        // the streams as they were.
        let mut slices: [&[u8]; MAX_STREAMS] = [&[]; MAX_STREAMS];
        for (lane, (slot, chunk)) in slices.iter_mut().zip(chunks).enumerate() {
            let chunk = chunk.as_ref();
            assert!(
                chunk.len() % 64 == 0,
                "md5x::multi::Lanes::update: the chunk of lane {lane} has {} bytes, \
                 not a multiple of 64; pass a stream's last piece to finalize_lane",
                chunk.len()
            );
            *slot = chunk;
        }
        for (len, chunk) in self.len.iter_mut().zip(&slices[..self.count]) {
            *len = len.wrapping_add(chunk.len() as u64);
        }
        let width = self.kernel.lanes();
        for lo in (0..self.count).step_by(width) {
            let group = lo..self.count.min(lo + width);
            let mut rest: [&[u8]; MAX_STREAMS] = [&[]; MAX_STREAMS];
            let mut st = LaneStates::new();
            for (j, lane) in group.clone().enumerate() {
                rest[j] = slices[lane];
                st.set(j, self.state.get(lane));
            }
            let group = group.len();
            loop {
                let mut n = usize::MAX;
                let mut any = core::ptr::null();
                for r in &rest[..group] {
                    if !r.is_empty() {
                        n = n.min(r.len() / 64);
                        any = r.as_ptr();
                    }
                }
                if any.is_null() {
                    break;
                }
                let saved = st;
                let mut ptrs: BlockPtrs = [any; MAX_LANES];
                for (p, r) in ptrs.iter_mut().zip(&rest) {
                    if !r.is_empty() {
                        *p = r.as_ptr();
                    }
                }
                // Equal chunks whose starts crowd one L1 set run staggered,
                // by the scheduler's rule (`scheduler/stagger.rs`).
                let equal = rest[..group].iter().all(|r| r.len() == 64 * n);
                let delay = match equal {
                    true => stagger::delays(self.kernel, &ptrs[..group], n),
                    false => None,
                };
                match delay {
                    // SAFETY: `self.kernel` came from `Kernel::detect` or
                    // `Kernel::available`, the group has at most its width
                    // of lanes, and each points at its chunk of `n` blocks.
                    Some(delay) => unsafe {
                        stagger::staggered(self.kernel, &mut st, &saved, &ptrs, n, group, &delay)
                    },
                    // SAFETY: `self.kernel` came from `Kernel::detect` or
                    // `Kernel::available`, and the group has at most its
                    // width of lanes. Each lane with data points at `n * 64`
                    // or more bytes of its chunk; every other lane got the
                    // pointer `any` of such a lane.
                    None => unsafe { self.kernel.compress(&mut st, &ptrs, n, group, None) },
                }
                for (j, r) in rest[..group].iter_mut().enumerate() {
                    if r.is_empty() {
                        // The kernel ran this idle lane over another lane's
                        // data: restore it.
                        st.set(j, saved.get(j));
                    } else {
                        *r = &r[n * 64..];
                    }
                }
            }
            for j in 0..group {
                self.state.set(lo + j, st.get(j));
            }
        }
    }

    /// Finishes stream `lane` with its last piece `tail` (any length, may be
    /// empty) and returns its digest. The lane starts a new, empty stream.
    ///
    /// # Panics
    ///
    /// If `lane` is not below [`count`](Lanes::count).
    pub fn finalize_lane(&mut self, lane: usize, tail: &[u8]) -> [u8; 16] {
        assert!(
            lane < self.count,
            "md5x::multi::Lanes::finalize_lane: lane {lane} of {}",
            self.count
        );
        let total = self.len[lane].wrapping_add(tail.len() as u64);
        let digest = finish_single(self.state.get(lane), tail, total);
        self.reset_lane(lane);
        digest
    }

    /// Drops what stream `lane` has hashed and starts it afresh.
    ///
    /// # Panics
    ///
    /// If `lane` is not below [`count`](Lanes::count).
    pub fn reset_lane(&mut self, lane: usize) {
        assert!(
            lane < self.count,
            "md5x::multi::Lanes::reset_lane: lane {lane} of {}",
            self.count
        );
        self.state.set(lane, STATE_INIT);
        self.len[lane] = 0;
    }
}

impl core::fmt::Debug for Lanes {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Lanes")
            .field("count", &self.count)
            .field("backend", &self.kernel.name())
            .finish_non_exhaustive()
    }
}
