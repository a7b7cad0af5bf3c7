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
//!   `u32`, `u64` or `usize`), reading the rows straight from the buffer;
//!   [`digest_views_into`] a column in Arrow's view layout (`Utf8View`,
//!   `BinaryView`), reading each row where its view says, and checking
//!   the view as it reads it ([`ViewError`]).
//! * [`digest_many_suffixed_into`], [`digest_many_prefixed_into`] and
//!   [`digest_pieces_into`] hash messages given as pieces (a shared suffix
//!   or prefix, or a list per message) as their concatenation, without
//!   copying them together.
//! * [`hex_into`] and [`base64_into`] write digests as lowercase hex or as
//!   base64 (HTTP's `Content-MD5`), straight into a column's buffer;
//!   [`hex_offsets_into`] and [`base64_offsets_into`] (and
//!   [`hex_views_into`], [`base64_views_into`]) take a column's rows
//!   straight to hex or base64, encoding each chunk of digests while it is
//!   in cache.
//! * With the `rayon` feature, `par_digest_many_into` and the other `par_`
//!   forms split a large batch over rayon's thread pool.
//! * [`Lanes`] advances up to [`Lanes::MAX`] long streams together, one chunk
//!   per stream and call, for example several large files read piece by piece
//!   on one core, and finishes each stream on its own.
//! * [`backend`] and [`lanes`](fn@lanes) name the kernel in use and its width.
//!
//! ```
//! # #[cfg(feature = "std")] {
//! use md5x::{Digest, Md5};
//!
//! let messages = ["", "a", "abc", "message digest"];
//! let digests = md5x::multi::digest_many(&messages);
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
//! md5x::multi::digest_offsets_into(values, offsets, &mut digests);
//! let mut hex = vec![[0u8; 32]; rows];
//! md5x::multi::hex_into(&digests, &mut hex);
//!
//! // The hex column: its values, and offsets 0, 32, 64, ...
//! let hex_values: Vec<u8> = hex.concat();
//! let hex_offsets: Vec<i32> = (0..=rows as i32).map(|i| 32 * i).collect();
//! assert_eq!(&hex_values[32..64], b"d41d8cd98f00b204e9800998ecf8427e"); // ""
//! assert_eq!(hex_offsets, [0, 32, 64, 96]);
//!
//! // The same in one call, without the column of digests in between.
//! let mut fused = vec![[0u8; 32]; rows];
//! md5x::multi::hex_offsets_into(values, offsets, &mut fused);
//! assert_eq!(fused, hex);
//! # }
//! ```
//!
//! The kernel is chosen at run time: on `x86_64`, AVX-512 when the CPU has
//! AVX-512F and VL (32 lanes, two interleaved groups of 16; 64 lanes, four
//! groups, on CPUs whose longer vector latency needs more in flight), else
//! AVX2 (24 lanes, three groups of 8) when it has that, else SSE2 (12
//! lanes, three groups of 4); NEON (8 lanes, two groups of 4) on
//! little-endian `aarch64`; and elsewhere a portable fallback that runs the
//! single-stream backend once per message. Interleaved groups hide the
//! latency of MD5's step chain; when fewer lanes have work, the kernel runs
//! fewer groups, and each CPU family's tuning row sets the rest: where a
//! 512-bit operation runs as two 256-bit halves, up to 24 busy lanes run
//! in groups of 8 on 256-bit registers; sets of short messages may take a
//! group more than the full width; and batches of long messages past 6 MiB
//! run in fewer groups where memory feeds fewer lanes better.
//! With AVX-512BW, sets of rows of up to 247 bytes are read straight from
//! the caller's memory by masked loads, which read nothing past a row,
//! with no copy. The `force-soft` feature and `--cfg md5_backend="soft"`
//! select the portable fallback here too, so that such a build runs no SIMD
//! code. The SSE2 and NEON kernels are built only where the target enables
//! those features, so targets without SIMD registers (`x86_64-unknown-none`,
//! `aarch64-unknown-none-softfloat`) get the portable fallback.
//!
//! Outside the `par_` forms (rayon's pool), nothing here allocates but
//! [`digest_many`]'s result and, with `std`, the buffer of a chunk's
//! digests in [`hex_offsets_into`] and [`base64_offsets_into`]. A batch call
//! takes about 60 KiB of stack in a release build (the scheduler, its
//! lanes' buffers and its window of queued messages), 80 KiB for the forms
//! with pieces, whose queued messages are larger; `tests/stack.rs` holds
//! them to 80 and 96 KiB. That leaves room on a thread of musl's default
//! 128 KiB. Debug builds take several times as much.
//!
//! # Layout
//!
//! One room a role; each room imports only from the rooms below it, in
//! this order, and nothing imports this file (`tests/multi.rs`,
//! `multi_imports_go_one_way`, checks the order):
//!
//! * `mod.rs` (this file): the public API and its docs;
//! * `forms/`: the forms a batch comes in and goes out as: `offsets.rs`
//!   (a column's buffer and offsets), `pieces.rs` (messages in pieces),
//!   `par.rs` (the `rayon` forms), `hex.rs` and `base64.rs` (the
//!   encoders), `encoded.rs` (a column hashed to hex or base64 a chunk at
//!   a time); and `lanes.rs`: [`Lanes`], long streams advanced together;
//! * `scheduler/`: the lanes kept busy over a batch: `source.rs` (the
//!   batches it reads, and their messages), `queue.rs` (the order messages
//!   start in), `mod.rs` (the batch loop and lane state), `start.rs` (a
//!   message started in a lane), `step.rs` (the kernel calls over the busy
//!   lanes), `sets.rs` (which sets are hashed at once) and `runs.rs` (how
//!   a set runs), `buckets.rs` and `column_buckets.rs` (short rows of
//!   mixed block counts in buckets by count), `stagger.rs` (equal
//!   messages' lanes started apart), `pad.rs` and `copy.rs` (a message's
//!   end and padding written into a lane; the padding itself is
//!   md5x-block's `pad`, shared with `const_digest`), `single.rs` (one
//!   message on the single-stream backend);
//! * `kernel/`: the lane vectors: `mod.rs` (the kernels of this target as
//!   values, an ISA and a tuning row; `build.rs` names the targets that
//!   build them, `md5_sse2` and `md5_neon`), `calls.rs` (a kernel call
//!   dispatched to its ISA and group count), `digests.rs` (digests out of
//!   the lanes), `body.rs` (a call's blocks, loaded a round ahead),
//!   `lines.rs` (blocks that start inside a cache line, read as whole
//!   lines, each loaded once) and `steps.rs` (MD5's 64 steps written once, generic over the lane
//!   vector of `lane_vector.rs` and the number of groups), `sse2.rs`,
//!   `avx2.rs`, `avx512.rs`, `avx512_ymm.rs` and `neon.rs` (one lane
//!   vector per ISA, with its own tricks and its `#[target_feature]` entry
//!   points), `avx2_equal.rs` and `avx512_rows.rs` (sets built or finished
//!   in registers), `portable.rs` (the fallback) and `soft_wide.rs` (the
//!   tests' kernel of AVX-512's widths);
//! * `platform.rs`: the CPU as one value, read once (every `cpufeatures`
//!   check is there); `tuning.rs`: every number a speed rule uses, a row
//!   per CPU family, and the rule that turns a set's shape into how it
//!   runs; `lane_state.rs`: the lanes' chaining values and block pointers,
//!   where a batch starts from, and a set's first block loaded ahead,
//!   which every room shares; `past_cache.rs`:
//!   outputs too large for the caches written past them, and lines asked
//!   for ahead;
//! * `kernel_choice.rs`: hidden hooks for `benches/multi/main.rs`, the tests, the fuzz
//!   targets and `ci/avx512-emu`, which pick a kernel and tuning row by
//!   value (`Choice`); `tests/`: the unit tests.

mod forms;
mod kernel;
mod lane_state;
mod lanes;
mod past_cache;
mod platform;
mod scheduler;
mod tuning;

/// Not API: the kernel-choice hooks of this repository's tests, benches,
/// fuzz targets and AVX-512 emulator run (a kernel and tuning row picked by
/// value). It may change in any release.
#[doc(hidden)]
pub mod kernel_choice;

#[cfg(test)]
mod tests;

pub use forms::base64::base64_into;
pub use forms::encoded::{base64_offsets_into, hex_offsets_into};
pub use forms::hex::hex_into;
pub use forms::offsets::{digest_offsets_into, Offset};
#[cfg(feature = "rayon")]
pub use forms::par::{
    par_digest_many_into, par_digest_many_prefixed_into, par_digest_many_suffixed_into,
    par_digest_offsets_into, par_digest_pieces_into,
};
pub use forms::pieces::{digest_many_prefixed_into, digest_many_suffixed_into, digest_pieces_into};
pub use forms::views::{base64_views_into, digest_views_into, hex_views_into, ViewError};
pub use lanes::Lanes;

use forms::check_out;
use kernel::Kernel;
use scheduler::digest_batch;
use scheduler::source::Slices;

/// Names the multi-buffer kernel this process runs: `"avx512"`, `"avx2"`,
/// `"sse2"`, `"neon"` or `"portable"`.
///
/// `"portable"` means the fallback that hashes one message at a time with the
/// single-stream backend ([`crate::backend`]); it is also what builds with
/// the `force-soft` feature run.
pub fn backend() -> &'static str {
    Kernel::detect().name()
}

/// How many messages the kernel of [`backend`] hashes side by side: 32 for
/// AVX-512 (64 where the CPU's vector latency needs four groups in flight),
/// 24 for AVX2, 12 for SSE2, 8 for NEON, 1 for the portable fallback.
///
/// A batch for [`digest_many`], or a [`Lanes`], of at least this many
/// messages keeps every lane busy.
pub fn lanes() -> usize {
    Kernel::detect().lanes()
}

/// Hashes every message of `inputs`, returning their digests in input order.
///
/// Messages may have any lengths, mixed. Each digest equals
/// `Md5::digest(input)`.
///
/// ```
/// let files: Vec<Vec<u8>> = vec![vec![0; 100_000], b"hello world".to_vec(), vec![]];
/// let digests = md5x::multi::digest_many(&files);
/// assert_eq!(digests[1], hex_literal::hex!("5eb63bbbe01eeed093cb22bb8f5acdc3"));
/// assert_eq!(digests[2], md5x::const_digest(b""));
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
/// md5x::multi::digest_many_into(&inputs, &mut out);
/// assert_eq!(out[0], md5x::const_digest(b"abc"));
/// assert_eq!(out[1], md5x::const_digest(&[0x61; 56]));
/// ```
pub fn digest_many_into<T: AsRef<[u8]>>(inputs: &[T], out: &mut [[u8; 16]]) {
    check_out("digest_many_into", inputs.len(), out.len());
    digest_batch(Kernel::detect(), &Slices(inputs), out);
}
