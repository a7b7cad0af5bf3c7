//! Hooks for `benches/multi.rs`, which compares every kernel the CPU has in
//! one run, and for the tests and fuzz targets that run every batch form on
//! every kernel. Not part of the API.

use super::forms::check_out;
use super::forms::offsets::{Offset, Offsets};
use super::forms::pieces::{PieceLists, Prefixed, Suffixed};
use super::kernel::Kernel;
use super::scheduler::digest_batch;
use super::scheduler::source::Slices;
use super::state::{BlockPtrs, LaneStates, MAX_LANES};
use core::marker::PhantomData;

/// The kernels this build has that the CPU can run.
pub fn kernels() -> impl Iterator<Item = &'static str> {
    Kernel::ALL
        .iter()
        .filter_map(|k| k.available())
        .map(Kernel::name)
}

/// The lane count of kernel `name` on this CPU, as the scheduler runs it.
pub fn lanes(name: &str) -> usize {
    kernel(name).lanes()
}

/// The most lanes kernel `name` is built for: [`lanes`], or more where the
/// CPU runs fewer groups (AVX-512 off Zen 5). [`compress_lanes`] runs them
/// all.
pub fn max_lanes(name: &str) -> usize {
    kernel(name).max_lanes()
}

fn kernel(name: &str) -> Kernel {
    Kernel::by_name(name).unwrap_or_else(|| panic!("no multi kernel {name:?} on this CPU"))
}

/// Makes the AVX-512 kernel run `groups` (1 to 4) interleaved groups at
/// full width, and in sets of short messages, in this process, whatever
/// the CPU would get: for checking every width on one machine
/// (`ci/avx512-emu`); 0 restores the rule for this CPU. A scheduler
/// already running keeps its width.
///
/// # Panics
///
/// If `groups` is not 0 to 4, or the build has no AVX-512 kernel (a
/// target other than x86_64, or the portable backend forced).
pub fn set_avx512_groups(groups: usize) {
    #[cfg(md5_sse2)]
    {
        let max = Kernel::Avx512.max_groups();
        assert!(
            (0..=max).contains(&groups),
            "md5::multi: {groups} AVX-512 groups; the kernel is built for 1 to {max}"
        );
        super::kernel::avx512::set_groups(groups);
    }
    #[cfg(not(md5_sse2))]
    panic!("md5::multi: {groups} AVX-512 groups; this build has no AVX-512 kernel");
}

/// The AVX-512 kernel's interleaved groups at full width in this process:
/// the rule's choice for this CPU, or what [`set_avx512_groups`] set; 0
/// where the build has no AVX-512 kernel.
pub fn avx512_groups() -> usize {
    #[cfg(md5_sse2)]
    return super::kernel::avx512::groups();
    #[cfg(not(md5_sse2))]
    0
}

/// The AVX-512 kernel's interleaved groups in sets of short messages
/// (copied into the lanes, or equal 64-byte ones), as [`avx512_groups`].
pub fn avx512_short_groups() -> usize {
    #[cfg(md5_sse2)]
    return super::kernel::avx512::short_groups();
    #[cfg(not(md5_sse2))]
    0
}

/// Makes equal whole-block messages that share their address bits below
/// 4 KiB start up to `spread - 1` blocks apart (1: all in lockstep) in this
/// process, however short they are; 0 restores the kernel's rule. For
/// measuring and for tests; returns the setting it replaces.
pub fn set_stagger_spread(spread: usize) -> usize {
    super::scheduler::set_spread(spread)
}

/// [`super::digest_many_into`] with kernel `name`.
pub fn digest_many_into<T: AsRef<[u8]>>(name: &str, inputs: &[T], out: &mut [[u8; 16]]) {
    check_out("__bench::digest_many_into", inputs.len(), out.len());
    digest_batch(kernel(name), &Slices(inputs), out);
}

/// [`super::digest_offsets_into`] with kernel `name`.
pub fn digest_offsets_into<O: Offset>(
    name: &str,
    values: &[u8],
    offsets: &[O],
    out: &mut [[u8; 16]],
) {
    let rows = Offsets::new("__bench::digest_offsets_into", values, offsets, out.len());
    digest_batch(kernel(name), &rows, out);
}

/// [`super::digest_many_suffixed_into`] with kernel `name`.
pub fn digest_many_suffixed_into<T: AsRef<[u8]>>(
    name: &str,
    inputs: &[T],
    suffix: &[u8],
    out: &mut [[u8; 16]],
) {
    check_out(
        "__bench::digest_many_suffixed_into",
        inputs.len(),
        out.len(),
    );
    digest_batch(kernel(name), &Suffixed { inputs, suffix }, out);
}

/// [`super::digest_many_prefixed_into`] with kernel `name`.
pub fn digest_many_prefixed_into<T: AsRef<[u8]>>(
    name: &str,
    prefix: &[u8],
    inputs: &[T],
    out: &mut [[u8; 16]],
) {
    check_out(
        "__bench::digest_many_prefixed_into",
        inputs.len(),
        out.len(),
    );
    digest_batch(kernel(name), &Prefixed::new(prefix, inputs), out);
}

/// [`super::digest_pieces_into`] with kernel `name`.
pub fn digest_pieces_into<P, S>(name: &str, inputs: &[P], out: &mut [[u8; 16]])
where
    P: AsRef<[S]>,
    S: AsRef<[u8]>,
{
    check_out("__bench::digest_pieces_into", inputs.len(), out.len());
    digest_batch(kernel(name), &PieceLists(inputs, PhantomData), out);
}

/// The pointers of `lanes` equal slices of `data`, each `blocks` blocks.
///
/// # Panics
///
/// If `data` is shorter than `lanes * blocks * 64` bytes (a product too
/// large for `usize` counts as longer than any slice).
fn lane_ptrs(data: &[u8], lanes: usize, blocks: usize) -> BlockPtrs {
    let need = lanes.checked_mul(blocks).and_then(|n| n.checked_mul(64));
    assert!(
        lanes <= MAX_LANES && need.is_some_and(|n| data.len() >= n),
        "md5::multi::__bench: {} bytes are fewer than {lanes} lanes of {blocks} blocks",
        data.len()
    );
    let mut ptrs: BlockPtrs = [data.as_ptr(); MAX_LANES];
    for (i, p) in ptrs.iter_mut().take(lanes).enumerate() {
        *p = data[i * blocks * 64..].as_ptr();
    }
    ptrs
}

/// The lanes of one interleaved group of kernel `name`; [`lanes`] and
/// [`max_lanes`] are multiples of this.
pub fn group_lanes(name: &str) -> usize {
    kernel(name).group_lanes()
}

/// One raw kernel call over `blocks` blocks in each of the [`max_lanes`]
/// lanes, lane `i` reading `data[i * blocks * 64..]`; returns a word of the
/// state.
pub fn compress(name: &str, data: &[u8], blocks: usize) -> u32 {
    compress_lanes(name, data, blocks, max_lanes(name))
}

/// [`compress`] with only lanes `0..used` busy, so the kernel runs the
/// fewest groups that cover them.
///
/// # Panics
///
/// If `used` is 0 or above [`max_lanes`], or as [`compress`].
pub fn compress_lanes(name: &str, data: &[u8], blocks: usize, used: usize) -> u32 {
    let k = kernel(name);
    assert!(
        (1..=k.max_lanes()).contains(&used),
        "md5::multi::__bench: {used} busy lanes of {}",
        k.max_lanes()
    );
    let ptrs = lane_ptrs(data, k.max_lanes(), blocks);
    let mut st = LaneStates::new();
    // SAFETY: `k` is available and `1 <= used <= k.max_lanes()`; `lane_ptrs`
    // checked that each of the kernel's lanes has `blocks * 64` bytes.
    unsafe { k.compress(&mut st, &ptrs, blocks, used, None) };
    st.rows[0][0]
}

/// Only the loads and transposition of [`compress`]; `None` for the
/// portable kernel.
pub fn transpose(name: &str, data: &[u8], blocks: usize) -> Option<u32> {
    let k = kernel(name);
    let ptrs = lane_ptrs(data, k.max_lanes(), blocks);
    // SAFETY: as in `compress`.
    unsafe { k.transpose_only(&ptrs, blocks) }
}
