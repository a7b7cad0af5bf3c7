//! Hooks for `benches/multi/main.rs`, which compares every kernel the CPU has in
//! one run, and for the tests and fuzz targets that run every batch form on
//! every kernel. Not part of the API.

use super::forms::check_out;
use super::forms::offsets::{Offset, Offsets};
use super::forms::pieces::{PieceLists, Prefixed, Suffixed};
use super::forms::views::{ViewError, Views};
use super::kernel::{Isa, Kernel};
use super::lane_state::{BlockPtrs, LaneStates, MAX_LANES};
use super::lanes::Lanes;
use super::scheduler::digest_batch;
use super::scheduler::source::Slices;
use core::marker::PhantomData;

pub use super::platform::{Family, Platform};
pub use super::tuning::{Stagger, Tuning};

/// A kernel and the tuning row it runs with: a kernel's name (`"avx512"`)
/// gives the CPU's own row; [`Choice::tuned`], [`Choice::groups`] and
/// [`Choice::stagger`] another.
#[derive(Clone, Copy, Debug)]
pub struct Choice(Kernel);

impl Choice {
    /// Kernel `name` with the CPU's tuning row.
    ///
    /// # Panics
    ///
    /// If this build has no such kernel or the CPU cannot run it.
    pub fn new(name: &str) -> Choice {
        Choice(kernel(name))
    }

    /// This kernel with the tuning row `tuning`.
    pub fn tuned(self, tuning: Tuning) -> Choice {
        Choice(self.0.tuned(tuning))
    }

    /// The tuning row in force.
    pub fn tuning(self) -> Tuning {
        self.0.tuning
    }

    /// This kernel with `groups` AVX-512 groups (1 to 4) at full width, in
    /// short sets and past the caches: so that one machine runs the
    /// scheduler at every AVX-512 width.
    ///
    /// # Panics
    ///
    /// If `groups` is not 1 to 4.
    pub fn groups(self, groups: usize) -> Choice {
        assert!(
            (1..=4).contains(&groups),
            "md5x::multi: {groups} AVX-512 groups; the kernel is built for 1 to 4"
        );
        self.tuned(self.0.tuning.with_groups(groups as u16))
    }

    /// This kernel with equal whole-block messages that share their address
    /// bits below 4 KiB started up to `spread - 1` blocks apart (1: all in
    /// lockstep), however short they are.
    pub fn stagger(self, spread: usize) -> Choice {
        let spread = u16::try_from(spread).unwrap_or(u16::MAX);
        self.tuned(self.0.tuning.with_stagger(Stagger::forced(spread)))
    }

    /// The lanes of one interleaved group.
    pub fn group_lanes(self) -> usize {
        self.0.group_lanes()
    }

    /// How many messages the scheduler hashes side by side.
    pub fn lanes(self) -> usize {
        self.0.lanes()
    }

    /// The most lanes the kernel is built for: [`Choice::lanes`], or more
    /// where the tuning runs fewer groups.
    pub fn max_lanes(self) -> usize {
        self.0.max_lanes()
    }

    /// Lanes of a set of short messages hashed at once.
    pub fn short_lanes(self) -> usize {
        self.0.short_lanes()
    }
}

/// The kernel's name, and its AVX-512 groups where that kernel runs.
impl core::fmt::Display for Choice {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.0.name() {
            "avx512" => write!(f, "avx512 ({} groups)", self.0.groups()),
            name => f.write_str(name),
        }
    }
}

impl From<&str> for Choice {
    fn from(name: &str) -> Choice {
        Choice::new(name)
    }
}

/// How many distinct delays `stagger` gives a crowded set of `lanes` equal
/// messages of `blocks` blocks (1: lockstep); `split` where they start
/// inside a cache line.
pub fn stagger_spread(stagger: Stagger, lanes: usize, blocks: usize, split: bool) -> usize {
    stagger.spread(lanes, blocks, split)
}

/// The kernels this build has that the CPU can run.
pub fn kernels() -> impl Iterator<Item = &'static str> {
    let cpu = Platform::detect().tuning();
    Isa::ALL
        .iter()
        .filter_map(move |&isa| Kernel::available(isa, cpu))
        .map(Kernel::name)
}

/// The lane count of kernel `name` on this CPU, as the scheduler runs it.
pub fn lanes(kernel: impl Into<Choice>) -> usize {
    kernel.into().lanes()
}

/// The most lanes kernel `name` is built for: [`lanes`], or more where the
/// CPU's tuning row runs fewer groups than the kernel has (AVX-512 below
/// four). [`compress_lanes`] runs them all.
pub fn max_lanes(kernel: impl Into<Choice>) -> usize {
    kernel.into().max_lanes()
}

fn kernel(name: &str) -> Kernel {
    Kernel::by_name(name).unwrap_or_else(|| panic!("no multi kernel {name:?} on this CPU"))
}

/// [`Lanes::new`] with the given kernel and tuning.
///
/// # Panics
///
/// As [`Lanes::new`].
pub fn lanes_with(kernel: impl Into<Choice>, count: usize) -> Lanes {
    Lanes::with_kernel(kernel.into().0, count)
}

/// [`super::digest_many_into`] with kernel `kernel`.
pub fn digest_many_into<T: AsRef<[u8]>>(
    kernel: impl Into<Choice>,
    inputs: &[T],
    out: &mut [[u8; 16]],
) {
    check_out("kernel_choice::digest_many_into", inputs.len(), out.len());
    digest_batch(kernel.into().0, &Slices(inputs), out);
}

/// [`super::digest_offsets_into`] with kernel `kernel`.
pub fn digest_offsets_into<O: Offset>(
    kernel: impl Into<Choice>,
    values: &[u8],
    offsets: &[O],
    out: &mut [[u8; 16]],
) {
    let rows = Offsets::new(
        "kernel_choice::digest_offsets_into",
        values,
        offsets,
        out.len(),
    );
    digest_batch(kernel.into().0, &rows, out);
}

/// [`super::digest_views_into`] with kernel `kernel`.
pub fn digest_views_into(
    kernel: impl Into<Choice>,
    views: &[u128],
    buffers: &[&[u8]],
    out: &mut [[u8; 16]],
) -> Result<(), ViewError> {
    check_out("kernel_choice::digest_views_into", views.len(), out.len());
    let bad = core::cell::Cell::new(usize::MAX);
    let rows = Views::new(views, buffers, &bad);
    digest_batch(kernel.into().0, &rows, out);
    rows.check(0)
}

/// [`super::digest_many_suffixed_into`] with kernel `kernel`.
pub fn digest_many_suffixed_into<T: AsRef<[u8]>>(
    kernel: impl Into<Choice>,
    inputs: &[T],
    suffix: &[u8],
    out: &mut [[u8; 16]],
) {
    check_out(
        "kernel_choice::digest_many_suffixed_into",
        inputs.len(),
        out.len(),
    );
    digest_batch(kernel.into().0, &Suffixed { inputs, suffix }, out);
}

/// [`super::digest_many_prefixed_into`] with kernel `kernel`.
pub fn digest_many_prefixed_into<T: AsRef<[u8]>>(
    kernel: impl Into<Choice>,
    prefix: &[u8],
    inputs: &[T],
    out: &mut [[u8; 16]],
) {
    check_out(
        "kernel_choice::digest_many_prefixed_into",
        inputs.len(),
        out.len(),
    );
    digest_batch(kernel.into().0, &Prefixed::new(prefix, inputs), out);
}

/// [`super::digest_pieces_into`] with kernel `kernel`.
pub fn digest_pieces_into<P, S>(kernel: impl Into<Choice>, inputs: &[P], out: &mut [[u8; 16]])
where
    P: AsRef<[S]>,
    S: AsRef<[u8]>,
{
    check_out("kernel_choice::digest_pieces_into", inputs.len(), out.len());
    digest_batch(kernel.into().0, &PieceLists(inputs, PhantomData), out);
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
        "md5x::multi::kernel_choice: {} bytes are fewer than {lanes} lanes of {blocks} blocks",
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
pub fn group_lanes(kernel: impl Into<Choice>) -> usize {
    kernel.into().group_lanes()
}

/// One raw kernel call over `blocks` blocks in each of the [`max_lanes`]
/// lanes, lane `i` reading `data[i * blocks * 64..]`; returns a word of the
/// state.
pub fn compress(kernel: impl Into<Choice>, data: &[u8], blocks: usize) -> u32 {
    let kernel = kernel.into();
    compress_lanes(kernel, data, blocks, kernel.max_lanes())
}

/// [`compress`] with only lanes `0..used` busy, so the kernel runs the
/// fewest groups that cover them.
///
/// # Panics
///
/// If `used` is 0 or above [`max_lanes`], or as [`compress`].
pub fn compress_lanes(kernel: impl Into<Choice>, data: &[u8], blocks: usize, used: usize) -> u32 {
    let k = kernel.into().0;
    assert!(
        (1..=k.max_lanes()).contains(&used),
        "md5x::multi::kernel_choice: {used} busy lanes of {}",
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
pub fn transpose(kernel: impl Into<Choice>, data: &[u8], blocks: usize) -> Option<u32> {
    let k = kernel.into().0;
    let ptrs = lane_ptrs(data, k.max_lanes(), blocks);
    // SAFETY: as in `compress`.
    unsafe { k.transpose_only(&ptrs, blocks) }
}
