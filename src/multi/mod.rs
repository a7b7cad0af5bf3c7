//! Multi-buffer MD5: many independent messages hashed at once, one per lane
//! of a SIMD register.
//!
//! One MD5 stream is strictly sequential: every step waits on the one before,
//! so a single stream cannot go faster than the latency of its dependency
//! chain. Independent messages have no such chain between them, and a SIMD
//! kernel runs 4, 8 or 16 of them side by side for about the cost of one.
//!
//! * [`digest_many`] and [`digest_many_into`] hash a batch of messages of
//!   any lengths. A scheduler keeps every lane busy: as soon as one message
//!   ends, its lane takes the next one. Results come back in input order and
//!   equal [`Md5::digest`](crate::Md5) of each input.
//! * [`digest_offsets_into`] hashes each row of a column in Arrow's layout
//!   (one buffer of bytes, and offsets of type [`Offset`]: `i32`, `i64`,
//!   `u32`, `u64` or `usize`), reading the rows straight from the buffer.
//! * [`digest_many_suffixed_into`], [`digest_many_prefixed_into`] and
//!   [`digest_pieces_into`] hash messages given as pieces (a shared suffix
//!   or prefix, or a list per message) as their concatenation, without
//!   copying them together.
//! * [`hex_into`] and [`base64_into`] write digests as lowercase hex or as
//!   base64 (HTTP's `Content-MD5`), straight into a column's buffer.
//! * With the `rayon` feature, `par_digest_many_into` and the other `par_`
//!   forms split a large batch over rayon's thread pool.
//! * [`Lanes`] advances up to [`Lanes::MAX`] long streams together, one chunk
//!   per stream and call, for example several large files read piece by piece
//!   on one core, and finishes each stream on its own.
//! * [`backend`] and [`lanes`](fn@lanes) name the kernel in use and its width.
//!
//! ```
//! # #[cfg(feature = "std")] {
//! use md5::{Digest, Md5};
//!
//! let messages = ["", "a", "abc", "message digest"];
//! let digests = md5::multi::digest_many(&messages);
//! for (m, d) in messages.iter().zip(&digests) {
//!     assert_eq!(d[..], Md5::digest(m)[..]);
//! }
//! # }
//! ```
//!
//! A column in, a column out: the `md5(name)` of a query engine, from a
//! string column's buffers (as an Arrow `StringArray` holds them: its
//! `values()` and `value_offsets()`) to the buffers of a `Utf8` column of
//! hex digests.
//!
//! ```
//! # #[cfg(feature = "std")] {
//! // The column ["alice", "", "bob"]: its bytes and its 4 offsets.
//! let values = b"alicebob";
//! let offsets: &[i32] = &[0, 5, 5, 8];
//! let rows = offsets.len() - 1;
//!
//! let mut digests = vec![[0u8; 16]; rows];
//! md5::multi::digest_offsets_into(values, offsets, &mut digests);
//! let mut hex = vec![[0u8; 32]; rows];
//! md5::multi::hex_into(&digests, &mut hex);
//!
//! // The hex column: its values, and offsets 0, 32, 64, ...
//! let hex_values: Vec<u8> = hex.concat();
//! let hex_offsets: Vec<i32> = (0..=rows as i32).map(|i| 32 * i).collect();
//! assert_eq!(&hex_values[32..64], b"d41d8cd98f00b204e9800998ecf8427e"); // ""
//! assert_eq!(hex_offsets, [0, 32, 64, 96]);
//! # }
//! ```
//!
//! The kernel is chosen at run time: on `x86_64`, AVX-512 when the CPU has
//! AVX-512F and VL (32 lanes, two interleaved groups of 16; 64 lanes, four
//! groups, on AMD Zen 5, whose longer vector latency needs more in flight),
//! else AVX2 (24 lanes, three groups of 8) when it has that, else SSE2 (12
//! lanes, three groups of 4); NEON (8 lanes, two groups of 4) on
//! little-endian `aarch64`; and elsewhere a portable fallback that runs the
//! single-stream backend once per message. Interleaved groups hide the
//! latency of MD5's step chain; when fewer lanes have work, the kernel runs
//! fewer groups. The `force-soft` feature and `--cfg md5_backend="soft"`
//! select the portable fallback here too, so that such a build runs no SIMD
//! code. The SSE2 and NEON kernels are built only where the target enables
//! those features, so targets without SIMD registers (`x86_64-unknown-none`,
//! `aarch64-unknown-none-softfloat`) get the portable fallback.
//!
//! # Layout
//!
//! * `mod.rs` (this file): the public functions and the lane arrays;
//! * `source.rs`: the batches the scheduler reads, and their messages;
//!   `offsets.rs` and `pieces.rs`: the column and pieces forms;
//!   `queue.rs`: the order the scheduler starts messages in;
//!   `scheduler.rs`: the lane scheduler's batch loop and lane state,
//!   `scheduler/start.rs` a message started in a lane, `scheduler/step.rs`
//!   the kernel calls over the busy lanes, `scheduler/sets.rs` sets hashed
//!   at once; `pad.rs`: a message's end and padding written into a lane
//!   (the padding itself is `compress/soft/pad.rs`, shared with
//!   `const_digest`), `copy.rs` the fixed-size copies it uses;
//!   `single.rs`: one message on the single-stream backend; `par.rs`: the
//!   `rayon` forms;
//! * `hex.rs`, `base64.rs`: the encoders;
//! * `lanes.rs`: [`Lanes`];
//! * `kernel.rs`: the kernels of this target, their run-time choice and
//!   group counts (`build.rs` names the targets that build them:
//!   `md5_sse2`, `md5_neon`);
//! * `body.rs`: the kernel body, MD5's 64 steps written once, generic over
//!   the lane vector of `lane_vector.rs` and the number of groups;
//! * `sse2.rs`, `avx2.rs`, `avx512.rs`, `neon.rs`: one lane vector per
//!   ISA, with its own tricks, its run-time check and its
//!   `#[target_feature]` entry points (`avx512.rs` also the CPU rule for
//!   its group count); `portable.rs`: the fallback;
//! * `__bench.rs`: hidden hooks for `benches/multi.rs`, the tests, the fuzz
//!   targets and `ci/avx512-emu`; `tests/` (with `soft_wide.rs`, the
//!   test-only kernel of AVX-512's widths).

// The SIMD kernels, built where the target enables their baseline ISA
// (`md5_sse2`, `md5_neon`: see `build.rs`): the lane-vector trait and the
// body over it, then one lane vector per ISA.
#[cfg(any(md5_sse2, md5_neon))]
#[macro_use]
mod lane_vector;
#[cfg(any(md5_sse2, md5_neon))]
#[macro_use]
mod body;
#[cfg(md5_sse2)]
mod avx2;
#[cfg(md5_sse2)]
mod avx512;
#[cfg(md5_neon)]
mod neon;
#[cfg(md5_sse2)]
mod sse2;

mod base64;
mod copy;
mod hex;
mod kernel;
mod lanes;
mod offsets;
mod pad;
#[cfg(feature = "rayon")]
mod par;
mod pieces;
mod portable;
mod queue;
mod scheduler;
mod single;
mod source;

#[doc(hidden)]
pub mod __bench;

#[cfg(test)]
mod tests;

pub use base64::base64_into;
pub use hex::hex_into;
use kernel::Kernel;
pub use lanes::Lanes;
pub use offsets::{digest_offsets_into, Offset};
#[cfg(feature = "rayon")]
pub use par::{
    par_digest_many_into, par_digest_many_prefixed_into, par_digest_many_suffixed_into,
    par_digest_offsets_into, par_digest_pieces_into,
};
pub use pieces::{digest_many_prefixed_into, digest_many_suffixed_into, digest_pieces_into};
use scheduler::digest_batch;
use source::Slices;

/// The most lanes a kernel may have: room for four groups of 16 (AVX-512).
const MAX_LANES: usize = 64;

/// Chaining values of up to [`MAX_LANES`] messages, word-major: `rows[0]`
/// holds the `a` word of every lane, so a kernel loads a whole row with one vector
/// load and no transposition.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
pub(crate) struct LaneStates {
    pub(crate) rows: [[u32; MAX_LANES]; 4],
}

impl LaneStates {
    const fn new() -> Self {
        Self {
            rows: [[0; MAX_LANES]; 4],
        }
    }

    fn get(&self, lane: usize) -> [u32; 4] {
        [
            self.rows[0][lane],
            self.rows[1][lane],
            self.rows[2][lane],
            self.rows[3][lane],
        ]
    }

    /// The digests of lanes `lane..lane + 4`: a 4 × 4 transposition, with
    /// SSE2 where it is baseline.
    #[inline]
    fn digests4(&self, lane: usize) -> [[u8; 16]; 4] {
        let rows = [0, 1, 2, 3].map(|r| &self.rows[r][lane..lane + 4]);
        #[cfg(md5_sse2)]
        let rows = {
            use lane_vector::{LaneVector, X86};
            // SAFETY: SSE2 is enabled (cfg); each row has the 4 words
            // `load` reads (sliced above).
            let v = rows.map(|r| unsafe { sse2::V4::load(r.as_ptr()) });
            sse2::V4::transpose4(v).map(|v| {
                let mut w = [0; 4];
                v.store(&mut w);
                w
            })
        };
        #[cfg(not(md5_sse2))]
        let rows = [0, 1, 2, 3].map(|i| rows.map(|r| r[i]));
        rows.map(single::to_bytes)
    }

    fn set(&mut self, lane: usize, v: [u32; 4]) {
        for (row, x) in self.rows.iter_mut().zip(v) {
            row[lane] = x;
        }
    }
}

/// One pointer per lane to the next 64-byte block of that lane's message.
pub(crate) type BlockPtrs = [*const u8; MAX_LANES];

/// The kernel of this process, detected on first use (`cpufeatures` caches
/// the CPUID result, so this is a load and a compare after the first call).
fn kernel() -> Kernel {
    Kernel::detect()
}

/// Names the multi-buffer kernel this process runs: `"avx512"`, `"avx2"`,
/// `"sse2"`, `"neon"` or `"portable"`.
///
/// `"portable"` means the fallback that hashes one message at a time with the
/// single-stream backend ([`crate::backend`]); it is also what builds with
/// the `force-soft` feature run.
pub fn backend() -> &'static str {
    kernel().name()
}

/// How many messages the kernel of [`backend`] hashes side by side: 32 for
/// AVX-512 (64 on AMD Zen 5), 24 for AVX2, 12 for SSE2, 8 for NEON, 1 for the
/// portable fallback.
///
/// A batch for [`digest_many`], or a [`Lanes`], of at least this many
/// messages keeps every lane busy.
pub fn lanes() -> usize {
    kernel().lanes()
}

/// Hashes every message of `inputs`, returning their digests in input order.
///
/// Messages may have any lengths, mixed. Each digest equals
/// `Md5::digest(input)`.
///
/// ```
/// let files: Vec<Vec<u8>> = vec![vec![0; 100_000], b"hello world".to_vec(), vec![]];
/// let digests = md5::multi::digest_many(&files);
/// assert_eq!(digests[1], hex_literal::hex!("5eb63bbbe01eeed093cb22bb8f5acdc3"));
/// assert_eq!(digests[2], md5::const_digest(b""));
/// ```
#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub fn digest_many<T: AsRef<[u8]>>(inputs: &[T]) -> std::vec::Vec<[u8; 16]> {
    let mut out = std::vec![[0u8; 16]; inputs.len()];
    digest_many_into(inputs, &mut out);
    out
}

/// Hashes every message of `inputs` into the slot of `out` with the same
/// index, without allocating.
///
/// # Panics
///
/// If `inputs` and `out` have different lengths.
///
/// ```
/// let inputs = [&b"abc"[..], &[0x61; 56][..]];
/// let mut out = [[0u8; 16]; 2];
/// md5::multi::digest_many_into(&inputs, &mut out);
/// assert_eq!(out[0], md5::const_digest(b"abc"));
/// assert_eq!(out[1], md5::const_digest(&[0x61; 56]));
/// ```
pub fn digest_many_into<T: AsRef<[u8]>>(inputs: &[T], out: &mut [[u8; 16]]) {
    check_out("digest_many_into", inputs.len(), out.len());
    digest_batch(kernel(), &Slices(inputs), out);
}

/// Panics unless a batch of `inputs` messages has as many output slots.
#[track_caller]
fn check_out(what: &str, inputs: usize, out: usize) {
    assert!(
        inputs == out,
        "md5::multi::{what}: {inputs} inputs but {out} output slots"
    );
}
