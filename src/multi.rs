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
//! * [`Lanes`] advances up to [`Lanes::MAX`] long streams together, one chunk
//!   per stream and call, for example several large files read piece by piece
//!   on one core, and finishes each stream on its own.
//! * [`backend`] and [`lanes`] name the kernel in use and its width.
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
//! The kernel is chosen at run time: on `x86_64`, AVX-512 (64 lanes, up to
//! four interleaved groups of 16) when the CPU has AVX-512F and VL, else AVX2
//! (16 lanes, two interleaved groups of 8) when it has that, else SSE2 (8
//! lanes, two groups of 4); NEON (8 lanes, two groups of 4) on little-endian
//! `aarch64`; and elsewhere a portable fallback that runs the single-stream
//! backend once per message. Several groups hide the latency of MD5's step
//! chain; when fewer lanes have work, the kernel runs fewer groups. The
//! `force-soft` feature and `--cfg md5_backend="soft"` select
//! the portable fallback here too, so that such a build runs no SIMD code.
//! The SSE2 and NEON kernels are built only where the target enables those
//! features, so targets without SIMD registers (`x86_64-unknown-none`,
//! `aarch64-unknown-none-softfloat`) get the portable fallback.

use crate::{compress, consts::STATE_INIT};

/// The 64 steps of MD5 (RFC 1321, section 3.4), as calls of the kernel's own
/// `$step!(op, a, b, c, d, message word, step, rotation)` macro; the caller
/// names its four state variables. Each kernel writes `$step` for its vector
/// type; this list is shared so the constants are written once.
#[allow(unused_macros)] // targets without a SIMD kernel never expand it
macro_rules! md5_steps {
    ($step:ident, $a:ident, $b:ident, $c:ident, $d:ident) => {
        md5_steps!(@quad $step, f, $a, $b, $c, $d, 0, [0, 1, 2, 3], [7, 12, 17, 22]);
        md5_steps!(@quad $step, f, $a, $b, $c, $d, 4, [4, 5, 6, 7], [7, 12, 17, 22]);
        md5_steps!(@quad $step, f, $a, $b, $c, $d, 8, [8, 9, 10, 11], [7, 12, 17, 22]);
        md5_steps!(@quad $step, f, $a, $b, $c, $d, 12, [12, 13, 14, 15], [7, 12, 17, 22]);
        md5_steps!(@quad $step, g, $a, $b, $c, $d, 16, [1, 6, 11, 0], [5, 9, 14, 20]);
        md5_steps!(@quad $step, g, $a, $b, $c, $d, 20, [5, 10, 15, 4], [5, 9, 14, 20]);
        md5_steps!(@quad $step, g, $a, $b, $c, $d, 24, [9, 14, 3, 8], [5, 9, 14, 20]);
        md5_steps!(@quad $step, g, $a, $b, $c, $d, 28, [13, 2, 7, 12], [5, 9, 14, 20]);
        md5_steps!(@quad $step, h, $a, $b, $c, $d, 32, [5, 8, 11, 14], [4, 11, 16, 23]);
        md5_steps!(@quad $step, h, $a, $b, $c, $d, 36, [1, 4, 7, 10], [4, 11, 16, 23]);
        md5_steps!(@quad $step, h, $a, $b, $c, $d, 40, [13, 0, 3, 6], [4, 11, 16, 23]);
        md5_steps!(@quad $step, h, $a, $b, $c, $d, 44, [9, 12, 15, 2], [4, 11, 16, 23]);
        md5_steps!(@quad $step, i, $a, $b, $c, $d, 48, [0, 7, 14, 5], [6, 10, 15, 21]);
        md5_steps!(@quad $step, i, $a, $b, $c, $d, 52, [12, 3, 10, 1], [6, 10, 15, 21]);
        md5_steps!(@quad $step, i, $a, $b, $c, $d, 56, [8, 15, 6, 13], [6, 10, 15, 21]);
        md5_steps!(@quad $step, i, $a, $b, $c, $d, 60, [4, 11, 2, 9], [6, 10, 15, 21]);
    };
    // Four steps of one round, rotating the roles of a, b, c, d.
    (@quad $step:ident, $op:ident, $a:ident, $b:ident, $c:ident, $d:ident, $k:expr,
        [$m0:expr, $m1:expr, $m2:expr, $m3:expr], [$s0:expr, $s1:expr, $s2:expr, $s3:expr]) => {
        $step!($op, $a, $b, $c, $d, $m0, $k, $s0);
        $step!($op, $d, $a, $b, $c, $m1, $k + 1, $s1);
        $step!($op, $c, $d, $a, $b, $m2, $k + 2, $s2);
        $step!($op, $b, $c, $d, $a, $m3, $k + 3, $s3);
    };
}

mod portable;

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod avx2;
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod avx512;
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod sse2;

#[cfg(all(
    target_arch = "aarch64",
    target_endian = "little",
    target_feature = "neon"
))]
mod neon;

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
cpufeatures::new!(avx2_cpuid, "avx2");
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
cpufeatures::new!(avx512_cpuid, "avx512f", "avx512vl");

/// The most lanes any kernel has, and the most streams a [`Lanes`] holds.
const MAX_LANES: usize = 64;

/// Chaining values of up to [`MAX_LANES`] messages, word-major: `s[0]` holds
/// the `a` word of every lane, so a kernel loads a whole row with one vector
/// load and no transposition.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
pub(crate) struct Soa {
    pub(crate) s: [[u32; MAX_LANES]; 4],
}

impl Soa {
    const fn new() -> Self {
        Self {
            s: [[0; MAX_LANES]; 4],
        }
    }

    fn get(&self, lane: usize) -> [u32; 4] {
        [
            self.s[0][lane],
            self.s[1][lane],
            self.s[2][lane],
            self.s[3][lane],
        ]
    }

    fn set(&mut self, lane: usize, v: [u32; 4]) {
        for (row, x) in self.s.iter_mut().zip(v) {
            row[lane] = x;
        }
    }
}

/// One pointer per lane to the next 64-byte block of that lane's message.
pub(crate) type Ptrs = [*const u8; MAX_LANES];

/// A multi-buffer kernel. A value of this type other than `Portable` is only
/// made by [`Kernel::detect`] or [`Kernel::available`], after checking that
/// the CPU has what the kernel needs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Kernel {
    Portable,
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    Sse2,
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    Avx2,
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    Avx512,
    #[cfg(all(
        target_arch = "aarch64",
        target_endian = "little",
        target_feature = "neon"
    ))]
    Neon,
}

impl Kernel {
    /// Every kernel built for this target, fastest last.
    pub(crate) const ALL: &'static [Kernel] = &[
        Kernel::Portable,
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        Kernel::Sse2,
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        Kernel::Avx2,
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        Kernel::Avx512,
        #[cfg(all(
            target_arch = "aarch64",
            target_endian = "little",
            target_feature = "neon"
        ))]
        Kernel::Neon,
    ];

    /// The kernel this build and CPU run.
    pub(crate) fn detect() -> Kernel {
        if cfg!(any(md5_backend = "soft", feature = "force-soft")) {
            return Kernel::Portable;
        }
        let mut best = Kernel::Portable;
        for &k in Kernel::ALL {
            if k.is_supported() {
                best = k;
            }
        }
        best
    }

    /// `Some(self)` if the CPU can run this kernel.
    pub(crate) fn available(self) -> Option<Kernel> {
        self.is_supported().then_some(self)
    }

    fn is_supported(self) -> bool {
        match self {
            Kernel::Portable => true,
            // Built only where the target enables SSE2 (every x86_64 target
            // with an FPU; not x86_64-unknown-none), so every CPU of the
            // target has it.
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            Kernel::Sse2 => true,
            // Miri cannot execute CPUID; there the build's target features
            // (`-C target-feature=+avx2`) decide.
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            Kernel::Avx2 => {
                if cfg!(miri) {
                    cfg!(target_feature = "avx2")
                } else {
                    avx2_cpuid::get()
                }
            }
            // `cpufeatures` also checks that the OS saves the opmask and
            // `zmm` registers (XCR0).
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            Kernel::Avx512 => {
                if cfg!(miri) {
                    cfg!(all(target_feature = "avx512f", target_feature = "avx512vl"))
                } else {
                    avx512_cpuid::get()
                }
            }
            // Built only where the target enables NEON (not on
            // aarch64-unknown-none-softfloat).
            #[cfg(all(
                target_arch = "aarch64",
                target_endian = "little",
                target_feature = "neon"
            ))]
            Kernel::Neon => true,
        }
    }

    pub(crate) const fn name(self) -> &'static str {
        match self {
            Kernel::Portable => "portable",
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            Kernel::Sse2 => "sse2",
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            Kernel::Avx2 => "avx2",
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            Kernel::Avx512 => "avx512",
            #[cfg(all(
                target_arch = "aarch64",
                target_endian = "little",
                target_feature = "neon"
            ))]
            Kernel::Neon => "neon",
        }
    }

    /// How many messages one call of [`Kernel::compress`] advances.
    pub(crate) const fn lanes(self) -> usize {
        match self {
            Kernel::Portable => 1,
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            Kernel::Sse2 => sse2::LANES,
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            Kernel::Avx2 => avx2::LANES,
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            Kernel::Avx512 => avx512::LANES,
            #[cfg(all(
                target_arch = "aarch64",
                target_endian = "little",
                target_feature = "neon"
            ))]
            Kernel::Neon => neon::LANES,
        }
    }

    /// Compresses `blocks` consecutive 64-byte blocks starting at `ptrs[i]`
    /// into lane `i` of `state`, for every `i < used`. Lanes from `used` to
    /// `self.lanes()` may be computed too, and their state is then garbage.
    ///
    /// With `used` at most half the width, the two-group kernels run one
    /// group: half the work, where the other group would only carry idle
    /// lanes.
    ///
    /// # Safety
    ///
    /// `self` came from [`Kernel::detect`] or [`Kernel::available`] (so the
    /// CPU has the features the kernel needs), `used <= self.lanes()`, and
    /// for each `i < self.lanes()`, `ptrs[i]` is valid for reads of `blocks *
    /// 64` bytes.
    // Targets without a SIMD kernel only have the portable arm.
    #[cfg_attr(
        not(any(
            all(target_arch = "x86_64", target_feature = "sse2"),
            all(
                target_arch = "aarch64",
                target_endian = "little",
                target_feature = "neon"
            )
        )),
        allow(unused_variables)
    )]
    #[inline]
    pub(crate) unsafe fn compress(self, state: &mut Soa, ptrs: &Ptrs, blocks: usize, used: usize) {
        debug_assert!(used <= self.lanes());
        let narrow = 2 * used <= self.lanes();
        match self {
            // SAFETY: the caller passes pointers valid for `blocks * 64`
            // bytes in the kernel's one lane.
            Kernel::Portable => unsafe { portable::compress(state, ptrs, blocks) },
            // SAFETY: SSE2 is baseline on x86_64; the caller vouches for the
            // pointers of all `LANES` lanes, of which `4 * G` are read.
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            Kernel::Sse2 if narrow => unsafe { sse2::compress::<1>(state, ptrs, blocks) },
            // SAFETY: as above.
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            Kernel::Sse2 => unsafe { sse2::compress::<2>(state, ptrs, blocks) },
            // SAFETY: a `Kernel::Avx2` value is only made after `avx2_cpuid`
            // detected AVX2 (see `is_supported`); the caller vouches for the
            // pointers of all `LANES` lanes, of which `8 * G` are read.
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            Kernel::Avx2 if narrow => unsafe { avx2::compress::<1>(state, ptrs, blocks) },
            // SAFETY: as above.
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            Kernel::Avx2 => unsafe { avx2::compress::<2>(state, ptrs, blocks) },
            // SAFETY: a `Kernel::Avx512` value is only made after
            // `avx512_cpuid` detected AVX-512F and VL (see `is_supported`);
            // the caller vouches for `used` and for the pointers of all
            // `LANES` lanes, of which `used` rounded up to 16 are read.
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            Kernel::Avx512 => unsafe { avx512::compress(state, ptrs, blocks, used.max(1)) },
            // SAFETY: NEON is baseline on aarch64; the caller vouches for the
            // pointers of all `LANES` lanes, of which `4 * G` are read.
            #[cfg(all(
                target_arch = "aarch64",
                target_endian = "little",
                target_feature = "neon"
            ))]
            Kernel::Neon if narrow => unsafe { neon::compress::<1>(state, ptrs, blocks) },
            // SAFETY: as above.
            #[cfg(all(
                target_arch = "aarch64",
                target_endian = "little",
                target_feature = "neon"
            ))]
            Kernel::Neon => unsafe { neon::compress::<2>(state, ptrs, blocks) },
        }
    }

    /// Runs only the message loads and the transposition of `blocks` blocks
    /// in every lane, for measuring their share of the cost; `None` for the
    /// portable kernel, which transposes nothing.
    ///
    /// # Safety
    ///
    /// As for [`Kernel::compress`].
    // Targets without a SIMD kernel only have the portable arm.
    #[cfg_attr(
        not(any(
            all(target_arch = "x86_64", target_feature = "sse2"),
            all(
                target_arch = "aarch64",
                target_endian = "little",
                target_feature = "neon"
            )
        )),
        allow(unused_variables)
    )]
    pub(crate) unsafe fn transpose_only(self, ptrs: &Ptrs, blocks: usize) -> Option<u32> {
        match self {
            Kernel::Portable => None,
            // SAFETY: as in `Kernel::compress`.
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            Kernel::Sse2 => Some(unsafe { sse2::transpose_only::<2>(ptrs, blocks) }),
            // SAFETY: as in `Kernel::compress`.
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            Kernel::Avx2 => Some(unsafe { avx2::transpose_only::<2>(ptrs, blocks) }),
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            Kernel::Avx512 => {
                // SAFETY: as in `Kernel::compress`.
                Some(unsafe { avx512::transpose_only::<{ avx512::GROUPS }>(ptrs, blocks) })
            }
            // SAFETY: as in `Kernel::compress`.
            #[cfg(all(
                target_arch = "aarch64",
                target_endian = "little",
                target_feature = "neon"
            ))]
            Kernel::Neon => Some(unsafe { neon::transpose_only::<2>(ptrs, blocks) }),
        }
    }

    /// The kernel named `name`, if this build has it and the CPU can run it.
    fn by_name(name: &str) -> Option<Kernel> {
        Kernel::ALL
            .iter()
            .find(|k| k.name() == name)
            .and_then(|k| k.available())
    }
}

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

/// How many messages the kernel of [`backend`] hashes side by side: 64 for
/// AVX-512, 16 for AVX2, 8 for SSE2 and NEON, 1 for the portable fallback.
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
    assert_eq!(
        inputs.len(),
        out.len(),
        "md5::multi::digest_many_into: {} inputs but {} output slots",
        inputs.len(),
        out.len()
    );
    digest_many_with(kernel(), inputs, out);
}

/// [`digest_many_into`] with the given kernel. `kernel` must come from
/// [`Kernel::detect`] or [`Kernel::available`]; `inputs` and `out` have equal
/// lengths.
pub(crate) fn digest_many_with<T: AsRef<[u8]>>(kernel: Kernel, inputs: &[T], out: &mut [[u8; 16]]) {
    debug_assert_eq!(inputs.len(), out.len());
    if kernel == Kernel::Portable {
        portable::digest_many_into(inputs, out);
        return;
    }
    let mut sched = Scheduler::new(kernel);
    let mut next = 0;
    loop {
        // Refill idle lanes with the next messages, lowest lanes first.
        let mut lane = 0;
        while sched.active < sched.width && next < inputs.len() {
            if sched.index[lane] == IDLE {
                sched.start(lane, next, inputs[next].as_ref());
                next += 1;
            }
            lane += 1;
        }
        if next == inputs.len() {
            match sched.active {
                0 => break,
                // A lone last message runs faster through the single-stream
                // backend than through a mostly idle vector.
                1 => {
                    sched.finish_alone(out);
                    break;
                }
                // Few messages left: gather them in the low lanes, where the
                // kernel can run a narrower, cheaper form.
                n if 2 * n <= sched.width => sched.compact(),
                _ => {}
            }
        }
        sched.step(out);
    }
}

/// Marks an idle lane in [`Scheduler::index`].
const IDLE: usize = usize::MAX;

/// The lane scheduler of [`digest_many_with`]: which message each lane
/// hashes and how far it is. Each busy lane is first in its message's whole
/// blocks (`rest`), then in its padding blocks (`pad`).
struct Scheduler<'a> {
    kernel: Kernel,
    width: usize,
    /// Busy lanes.
    active: usize,
    state: Soa,
    /// Index of each lane's message in the input and output slices, or
    /// [`IDLE`].
    index: [usize; MAX_LANES],
    /// Length of each lane's message in bytes.
    len: [u64; MAX_LANES],
    /// The whole blocks of each message not compressed yet; empty once the
    /// lane is in its padding.
    rest: [&'a [u8]; MAX_LANES],
    /// Each message's tail, 0x80 marker and bit length: one or two blocks.
    pad: [[u8; 128]; MAX_LANES],
    /// Offset of the next padding block in `pad`, and the end of the
    /// padding; `pad_end` is 0 while the lane is still in `rest`.
    pad_at: [usize; MAX_LANES],
    pad_end: [usize; MAX_LANES],
}

impl<'a> Scheduler<'a> {
    fn new(kernel: Kernel) -> Self {
        Self {
            kernel,
            width: kernel.lanes(),
            active: 0,
            state: Soa::new(),
            index: [IDLE; MAX_LANES],
            len: [0; MAX_LANES],
            rest: [&[]; MAX_LANES],
            pad: [[0; 128]; MAX_LANES],
            pad_at: [0; MAX_LANES],
            pad_end: [0; MAX_LANES],
        }
    }

    /// Puts message `index` into the idle `lane`.
    fn start(&mut self, lane: usize, index: usize, msg: &'a [u8]) {
        self.state.set(lane, STATE_INIT);
        self.index[lane] = index;
        self.len[lane] = msg.len() as u64;
        self.active += 1;
        if msg.len() < 64 {
            self.enter_pad(lane, msg);
        } else {
            self.rest[lane] = msg;
            self.pad_end[lane] = 0;
        }
    }

    /// Moves `lane` from its whole blocks to its padding, whose message
    /// bytes are `tail`.
    fn enter_pad(&mut self, lane: usize, tail: &[u8]) {
        self.pad_end[lane] = fill_pad(&mut self.pad[lane], tail, self.len[lane]);
        self.pad_at[lane] = 0;
        self.rest[lane] = &[];
    }

    /// Runs the kernel once over as many blocks as every busy lane has in a
    /// row, then retires the lanes whose messages are done.
    #[allow(clippy::needless_range_loop)] // `lane` indexes six parallel arrays
    fn step(&mut self, out: &mut [[u8; 16]]) {
        let mut ptrs: Ptrs = [core::ptr::null(); MAX_LANES];
        let mut n = usize::MAX;
        let mut any = core::ptr::null();
        let mut used = 0;
        for lane in 0..self.width {
            if self.index[lane] == IDLE {
                continue;
            }
            let (p, blocks) = if self.pad_end[lane] == 0 {
                (self.rest[lane].as_ptr(), self.rest[lane].len() / 64)
            } else {
                let pad = &self.pad[lane][self.pad_at[lane]..self.pad_end[lane]];
                (pad.as_ptr(), pad.len() / 64)
            };
            ptrs[lane] = p;
            any = p;
            n = n.min(blocks);
            used = lane + 1;
        }
        debug_assert!(n >= 1 && n != usize::MAX);
        // Idle lanes hash a busy lane's blocks; their state is discarded.
        for (p, &index) in ptrs.iter_mut().zip(&self.index).take(self.width) {
            if index == IDLE {
                *p = any;
            }
        }
        // SAFETY: `self.kernel` came from `Kernel::detect` or
        // `Kernel::available` (see `digest_many_with`), and `used <=
        // self.width`. Each busy lane's pointer starts a run of at least `n`
        // whole blocks inside its message or its `pad` (which is not moved
        // or written until the call returns); each idle lane got a busy
        // lane's pointer.
        unsafe { self.kernel.compress(&mut self.state, &ptrs, n, used) };
        for lane in 0..used {
            if self.index[lane] == IDLE {
                continue;
            }
            if self.pad_end[lane] == 0 {
                let rest = &self.rest[lane][n * 64..];
                self.rest[lane] = rest;
                if rest.len() < 64 {
                    self.enter_pad(lane, rest);
                }
            } else {
                self.pad_at[lane] += n * 64;
                if self.pad_at[lane] == self.pad_end[lane] {
                    out[self.index[lane]] = to_bytes(self.state.get(lane));
                    self.index[lane] = IDLE;
                    self.active -= 1;
                }
            }
        }
    }

    /// Moves busy lanes of the upper half into idle lanes of the lower half.
    fn compact(&mut self) {
        let half = self.width / 2;
        let mut to = 0;
        for from in half..self.width {
            if self.index[from] == IDLE {
                continue;
            }
            while self.index[to] != IDLE {
                to += 1;
            }
            debug_assert!(to < half);
            self.index[to] = self.index[from];
            self.len[to] = self.len[from];
            self.rest[to] = self.rest[from];
            self.pad[to] = self.pad[from];
            self.pad_at[to] = self.pad_at[from];
            self.pad_end[to] = self.pad_end[from];
            self.state.set(to, self.state.get(from));
            self.index[from] = IDLE;
        }
    }

    /// Finishes the one busy lane on the single-stream backend.
    fn finish_alone(&mut self, out: &mut [[u8; 16]]) {
        for lane in 0..self.width {
            if self.index[lane] == IDLE {
                continue;
            }
            let mut state = self.state.get(lane);
            out[self.index[lane]] = if self.pad_end[lane] == 0 {
                finish_single(state, self.rest[lane], self.len[lane])
            } else {
                let pad = &self.pad[lane][self.pad_at[lane]..self.pad_end[lane]];
                compress::compress(&mut state, pad.as_chunks::<64>().0);
                to_bytes(state)
            };
            self.index[lane] = IDLE;
            self.active -= 1;
        }
    }
}

/// Fills `pad` with the final one or two blocks of a message whose bytes
/// after the last whole block are `tail` and whose length is `total` bytes;
/// returns how many bytes of `pad` to compress (64 or 128).
fn fill_pad(pad: &mut [u8; 128], tail: &[u8], total: u64) -> usize {
    debug_assert!(tail.len() < 64);
    *pad = [0; 128];
    pad[..tail.len()].copy_from_slice(tail);
    pad[tail.len()] = 0x80;
    let end = if tail.len() < 56 { 64 } else { 128 };
    pad[end - 8..end].copy_from_slice(&total.wrapping_mul(8).to_le_bytes());
    end
}

/// Little-endian bytes of a chaining value.
fn to_bytes(state: [u32; 4]) -> [u8; 16] {
    let mut out = [0u8; 16];
    for (chunk, v) in out.chunks_exact_mut(4).zip(state) {
        chunk.copy_from_slice(&v.to_le_bytes());
    }
    out
}

/// Finishes one message on the single-stream backend: `rest` (whole blocks
/// first, then a tail under 64 bytes) of a message `total` bytes long.
fn finish_single(mut state: [u32; 4], rest: &[u8], total: u64) -> [u8; 16] {
    let (blocks, tail) = rest.as_chunks::<64>();
    compress::compress(&mut state, blocks);
    let mut pad = [0u8; 128];
    let end = fill_pad(&mut pad, tail, total);
    compress::compress(&mut state, pad[..end].as_chunks::<64>().0);
    to_bytes(state)
}

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
/// [`lanes()`](lanes) streams to fill the kernel.
///
/// ```
/// use md5::{Digest, Md5};
/// use md5::multi::Lanes;
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
    state: Soa,
    /// Bytes hashed so far in each lane.
    len: [u64; MAX_LANES],
}

impl Lanes {
    /// The most streams one `Lanes` holds.
    pub const MAX: usize = MAX_LANES;

    /// `count` fresh streams, hashed with the kernel of [`backend`].
    ///
    /// # Panics
    ///
    /// If `count` is 0 or more than [`Lanes::MAX`].
    pub fn new(count: usize) -> Self {
        Self::with_kernel(kernel(), count)
    }

    /// [`Lanes::new`] with the given kernel, which must come from
    /// [`Kernel::detect`] or [`Kernel::available`].
    pub(crate) fn with_kernel(kernel: Kernel, count: usize) -> Self {
        assert!(
            (1..=MAX_LANES).contains(&count),
            "md5::multi::Lanes: {count} streams; it holds 1 to {MAX_LANES}"
        );
        let mut state = Soa::new();
        for lane in 0..count {
            state.set(lane, STATE_INIT);
        }
        Self {
            kernel,
            count,
            state,
            len: [0; MAX_LANES],
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
            "md5::multi::Lanes::update: {} chunks for {} streams",
            chunks.len(),
            self.count
        );
        // Each chunk is asked for its bytes once: a second `as_ref` could
        // answer differently from the slice that was checked. And every
        // chunk is checked before any lane changes, so a panic here leaves
        // the streams as they were.
        let mut slices: [&[u8]; MAX_LANES] = [&[]; MAX_LANES];
        for (lane, (slot, chunk)) in slices.iter_mut().zip(chunks).enumerate() {
            let chunk = chunk.as_ref();
            assert!(
                chunk.len() % 64 == 0,
                "md5::multi::Lanes::update: the chunk of lane {lane} has {} bytes, \
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
            let mut rest: [&[u8]; MAX_LANES] = [&[]; MAX_LANES];
            let mut st = Soa::new();
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
                let mut ptrs: Ptrs = [any; MAX_LANES];
                for (p, r) in ptrs.iter_mut().zip(&rest) {
                    if !r.is_empty() {
                        *p = r.as_ptr();
                    }
                }
                // SAFETY: `self.kernel` came from `Kernel::detect` or
                // `Kernel::available`, and the group has at most its width
                // of lanes. Each lane with data points at `n * 64`
                // or more bytes of its chunk; every other lane got the
                // pointer `any` of such a lane.
                unsafe { self.kernel.compress(&mut st, &ptrs, n, group) };
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
            "md5::multi::Lanes::finalize_lane: lane {lane} of {}",
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
            "md5::multi::Lanes::reset_lane: lane {lane} of {}",
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

/// Hooks for `benches/multi.rs`, which compares every kernel the CPU has in
/// one run. Not part of the API.
#[doc(hidden)]
pub mod __bench {
    use super::{digest_many_with, Kernel, Ptrs, MAX_LANES};

    /// The kernels this build has that the CPU can run.
    pub fn kernels() -> impl Iterator<Item = &'static str> {
        Kernel::ALL
            .iter()
            .filter_map(|k| k.available())
            .map(Kernel::name)
    }

    /// The lane count of kernel `name`.
    pub fn lanes(name: &str) -> usize {
        kernel(name).lanes()
    }

    fn kernel(name: &str) -> Kernel {
        Kernel::by_name(name).unwrap_or_else(|| panic!("no multi kernel {name:?} on this CPU"))
    }

    /// [`super::digest_many_into`] with kernel `name`.
    pub fn digest_many_into<T: AsRef<[u8]>>(name: &str, inputs: &[T], out: &mut [[u8; 16]]) {
        assert_eq!(inputs.len(), out.len());
        digest_many_with(kernel(name), inputs, out);
    }

    /// The pointers of `lanes` equal slices of `data`, each `blocks` blocks.
    ///
    /// # Panics
    ///
    /// If `data` is shorter than `lanes * blocks * 64` bytes (a product too
    /// large for `usize` counts as longer than any slice).
    fn lane_ptrs(data: &[u8], lanes: usize, blocks: usize) -> Ptrs {
        let need = lanes.checked_mul(blocks).and_then(|n| n.checked_mul(64));
        assert!(
            lanes <= MAX_LANES && need.is_some_and(|n| data.len() >= n),
            "md5::multi::__bench: {} bytes are fewer than {lanes} lanes of {blocks} blocks",
            data.len()
        );
        let mut ptrs: Ptrs = [data.as_ptr(); MAX_LANES];
        for (i, p) in ptrs.iter_mut().take(lanes).enumerate() {
            *p = data[i * blocks * 64..].as_ptr();
        }
        ptrs
    }

    /// One raw kernel call over `blocks` blocks in each lane, lane `i`
    /// reading `data[i * blocks * 64..]`; returns a word of the state.
    pub fn compress(name: &str, data: &[u8], blocks: usize) -> u32 {
        let k = kernel(name);
        let ptrs = lane_ptrs(data, k.lanes(), blocks);
        let mut st = super::Soa::new();
        // SAFETY: `k` is available; `lane_ptrs` checked that each lane has
        // `blocks * 64` bytes.
        unsafe { k.compress(&mut st, &ptrs, blocks, k.lanes()) };
        st.s[0][0]
    }

    /// Only the loads and transposition of [`compress`]; `None` for the
    /// portable kernel.
    pub fn transpose(name: &str, data: &[u8], blocks: usize) -> Option<u32> {
        let k = kernel(name);
        let ptrs = lane_ptrs(data, k.lanes(), blocks);
        // SAFETY: as in `compress`.
        unsafe { k.transpose_only(&ptrs, blocks) }
    }
}

/// The seeded generator the integration tests and benches use too.
#[cfg(test)]
#[path = "../tests/common/rng.rs"]
mod test_rng;

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use crate::{Digest, Md5};
    use std::{println, vec, vec::Vec};

    use super::test_rng::Rng;

    /// Divides the long messages and runs of the tests below, so that Miri,
    /// which interprets every vector instruction, finishes in minutes. The
    /// lengths keep their remainders mod 64, so padding cases stay the same.
    const SHRINK: usize = if cfg!(miri) { 32 } else { 1 };

    /// Runs `f` on every kernel of this target that the CPU has, and says
    /// which ones it skips.
    fn for_each_kernel(mut f: impl FnMut(Kernel)) {
        for &k in Kernel::ALL {
            match k.available() {
                Some(k) => f(k),
                None => println!("skipping multi kernel {}: this CPU lacks it", k.name()),
            }
        }
    }

    /// `digest_many_with(kernel)` against `Md5::digest`, message by message.
    fn check(kernel: Kernel, inputs: &[Vec<u8>]) {
        let mut out = vec![[0u8; 16]; inputs.len()];
        digest_many_with(kernel, inputs, &mut out);
        for (i, (input, got)) in inputs.iter().zip(&out).enumerate() {
            assert_eq!(
                got[..],
                Md5::digest(input)[..],
                "kernel {}: message {i} of {} ({} bytes)",
                kernel.name(),
                inputs.len(),
                input.len()
            );
        }
    }

    /// The raw kernel, lane by lane, against the single-stream backend: a
    /// different random state and message in every lane, in its full and
    /// its narrow (one group) form.
    #[test]
    fn kernel_compress_every_lane() {
        let mut rng = Rng(0x6d75_6c74_6901);
        for_each_kernel(|k| {
            for (w, blocks) in [k.lanes(), k.lanes().div_ceil(2)]
                .into_iter()
                .flat_map(|w| (0..=5).map(move |b| (w, b)))
            {
                let msgs: Vec<Vec<u8>> = (0..w).map(|_| rng.bytes(64 * blocks)).collect();
                let mut st = Soa::new();
                let mut want = Vec::new();
                for (lane, msg) in msgs.iter().enumerate() {
                    let init = [0; 4].map(|_: u32| rng.next() as u32);
                    st.set(lane, init);
                    let mut s = init;
                    compress::compress(&mut s, msg.as_chunks::<64>().0);
                    want.push(s);
                }
                let mut ptrs: Ptrs = [core::ptr::null(); MAX_LANES];
                for (p, msg) in ptrs.iter_mut().zip(&msgs) {
                    *p = msg.as_ptr();
                }
                // Lanes past `w` read lane 0's message.
                for p in ptrs.iter_mut().skip(w) {
                    *p = msgs[0].as_ptr();
                }
                // SAFETY: the kernel is available and `w <= k.lanes()`; each
                // lane points at a message of `64 * blocks` bytes.
                unsafe { k.compress(&mut st, &ptrs, blocks, w) };
                for (lane, want) in want.iter().enumerate() {
                    assert_eq!(
                        st.get(lane),
                        *want,
                        "{} lane {lane} of {w}, {blocks} blocks",
                        k.name()
                    );
                }
            }
        });
    }

    /// Every length 0..=200 (all padding edges: 55, 56, 63, 64, 119, 120,
    /// 128) in one batch, forwards and backwards, so each length meets
    /// others in the same kernel call.
    #[test]
    fn kernels_padding_edges() {
        let data = Rng(0x6d75_6c74_6902).bytes(200);
        let mut inputs: Vec<Vec<u8>> = (0..=200).map(|n| data[..n].to_vec()).collect();
        for_each_kernel(|k| {
            check(k, &inputs);
            inputs.reverse();
            check(k, &inputs);
            inputs.reverse();
        });
        // Each edge length alone in every lane.
        for n in [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129] {
            let same = vec![data[..n].to_vec(); 2 * MAX_LANES + 1];
            for_each_kernel(|k| check(k, &same));
        }
    }

    /// Input counts that are not multiples of the lane width, including 0
    /// and 1, with random lengths.
    #[test]
    fn kernels_input_counts() {
        let mut rng = Rng(0x6d75_6c74_6903);
        for count in 0..=3 * MAX_LANES + 1 {
            let inputs: Vec<Vec<u8>> = (0..count)
                .map(|_| {
                    let n = rng.below(300);
                    rng.bytes(n)
                })
                .collect();
            for_each_kernel(|k| check(k, &inputs));
        }
    }

    /// Very unequal lengths: long messages among short and empty ones, so
    /// lanes refill while others are still deep in a message, and one long
    /// message finishes alone.
    #[test]
    fn kernels_unequal_lengths() {
        let mut rng = Rng(0x6d75_6c74_6904);
        let mut inputs: Vec<Vec<u8>> = Vec::new();
        for i in 0..70 {
            let n = match i % 7 {
                0 => (20_000 + rng.below(5000)) / SHRINK,
                1 => 0,
                2 => 64 * rng.below(10),
                3 => 65_536 / SHRINK + 55,
                _ => rng.below(1000),
            };
            inputs.push(rng.bytes(n));
        }
        inputs.push(rng.bytes(300_001 / SHRINK));
        for_each_kernel(|k| check(k, &inputs));
        inputs.reverse();
        for_each_kernel(|k| check(k, &inputs));
        let empties = vec![Vec::new(); 37];
        for_each_kernel(|k| check(k, &empties));
    }

    /// The streaming form against `Md5` fed the same pieces, with random
    /// chunk lengths per lane and call (idle lanes included), lanes that
    /// finish early and restart, and random final tails.
    #[test]
    fn kernels_lanes_random_chunking() {
        let mut rng = Rng(0x6d75_6c74_6905);
        for_each_kernel(|k| {
            for count in [1, 2, 3, 4, 5, 8, 9, 15, 16] {
                let mut lanes = Lanes::with_kernel(k, count);
                let mut refs: Vec<Md5> = (0..count).map(|_| Md5::new()).collect();
                let rounds = 40 / SHRINK.min(8);
                for round in 0..rounds {
                    let chunks: Vec<Vec<u8>> = (0..count)
                        .map(|_| {
                            let blocks = match rng.below(4) {
                                0 => 0,
                                1 => 1,
                                _ => rng.below(40 / SHRINK.min(8)),
                            };
                            rng.bytes(64 * blocks)
                        })
                        .collect();
                    lanes.update(&chunks);
                    for (h, c) in refs.iter_mut().zip(&chunks) {
                        h.update(c);
                    }
                    // Now and then, finish a lane with a random tail.
                    if rng.below(3) == 0 || round == rounds - 1 {
                        let lane = rng.below(count);
                        let n = rng.below(200);
                        let tail = rng.bytes(n);
                        refs[lane].update(&tail);
                        let want = refs[lane].finalize_reset();
                        let got = lanes.finalize_lane(lane, &tail);
                        assert_eq!(got[..], want[..], "{} count {count} lane {lane}", k.name());
                    }
                }
                for (lane, h) in refs.into_iter().enumerate() {
                    assert_eq!(lanes.finalize_lane(lane, b"")[..], h.finalize()[..]);
                }
            }
        });
    }

    #[test]
    #[should_panic(expected = "not a multiple of 64")]
    fn lanes_reject_partial_chunks() {
        Lanes::new(2).update(&[&[0u8; 64][..], &[0u8; 65][..]]);
    }

    #[test]
    #[should_panic(expected = "3 inputs but 2 output slots")]
    fn digest_many_into_checks_lengths() {
        digest_many_into(&["a", "b", "c"], &mut [[0; 16]; 2]);
    }
}
