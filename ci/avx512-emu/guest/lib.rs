//! The guest side of `ci/avx512-emu`: C-ABI entry points over the public
//! `md5::multi` API, linked into a flat blob (`build.sh`) that `run.py`
//! executes in the Bochs CPU emulator, whose CPU model has AVX-512. The
//! whole path runs in the guest: kernel choice (CPUID and XCR0 through
//! `cpufeatures`), the scheduler, padding, `Lanes` and the AVX-512 kernel.
//!
//! The blob has no loader: a panic executes `int3`, which `run.py` reports.
#![no_std]

use core::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use md5::multi::{
    self,
    kernel_choice::{Choice, Tuning},
};

/// The AVX-512 groups and the stagger spread `run.py` asked for (0: the
/// tuning row's); the guest's own settings, passed with every call.
static GROUPS: AtomicUsize = AtomicUsize::new(0);
static SPREAD: AtomicUsize = AtomicUsize::new(0);
/// Whether `run.py` asked for blocks inside a line read as whole lines
/// (1), whatever the row says (0).
static WHOLE_LINES: AtomicUsize = AtomicUsize::new(0);

/// The kernel `multi::backend()` names, with the groups and spread asked
/// for.
fn choice() -> Choice {
    let mut choice = Choice::new(multi::backend());
    if let g @ 1.. = GROUPS.load(Relaxed) {
        choice = choice.groups(g);
    }
    if let s @ 1.. = SPREAD.load(Relaxed) {
        choice = choice.stagger(s);
    }
    if WHOLE_LINES.load(Relaxed) == 1 {
        choice = choice.tuned(Tuning {
            avx512_whole_lines: true,
            ..choice.tuning()
        });
    }
    choice
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // SAFETY: `int3` traps to the emulator's interrupt hook, which stops
    // the guest; nothing runs after it.
    unsafe { core::arch::asm!("int3", options(noreturn, nostack)) }
}

/// A message in guest memory, as `run.py` lays it out.
#[repr(C)]
pub struct Msg {
    ptr: *const u8,
    len: usize,
}

impl AsRef<[u8]> for Msg {
    fn as_ref(&self) -> &[u8] {
        // SAFETY: `run.py` writes `len` bytes at the non-null `ptr` of every
        // message and keeps them until the call returns.
        unsafe { core::slice::from_raw_parts(self.ptr, self.len) }
    }
}

/// Writes `md5::multi::backend()` (at most 16 bytes) to `name` and returns
/// its lanes with the groups asked for (`md5::multi::lanes()` unless
/// [`guest_set_avx512_groups`] set them).
///
/// # Safety
///
/// `name` is valid for writes of 16 bytes.
#[no_mangle]
pub unsafe extern "C" fn guest_backend(name: *mut u8) -> usize {
    let b = multi::backend().as_bytes();
    let n = b.len().min(16);
    // SAFETY: `n <= 16` bytes, which the caller lets us write.
    unsafe { core::ptr::copy_nonoverlapping(b.as_ptr(), name, n) };
    choice().lanes()
}

/// Makes the AVX-512 kernel of the calls that follow run `groups`
/// interleaved groups at full width, whatever the emulated CPU would get
/// (two: its CPUID says Intel); 0, the tuning row's again.
#[no_mangle]
pub extern "C" fn guest_set_avx512_groups(groups: usize) {
    GROUPS.store(groups, Relaxed);
}

/// Makes equal whole-block messages sharing their address bits below 4 KiB
/// start up to `spread - 1` blocks apart, however short (0: the kernel's
/// rule); returns the setting it replaces.
#[no_mangle]
pub extern "C" fn guest_set_stagger_spread(spread: usize) -> usize {
    SPREAD.swap(spread, Relaxed)
}

/// Makes the AVX-512 kernel read blocks that start inside a cache line as
/// whole lines where they crowd one L1 set (1), or as the tuning row says
/// (0: the emulated CPU is an Intel, whose row does not).
#[no_mangle]
pub extern "C" fn guest_set_whole_lines(on: usize) {
    WHOLE_LINES.store(on, Relaxed);
}

/// `md5::multi::digest_many_into` over `n` messages.
///
/// # Safety
///
/// `msgs` points at `n` valid [`Msg`]s, `out` at room for `n` digests.
#[no_mangle]
pub unsafe extern "C" fn guest_digest_many(msgs: *const Msg, n: usize, out: *mut [u8; 16]) {
    // SAFETY: the caller's contract.
    let (msgs, out) = unsafe {
        (
            core::slice::from_raw_parts(msgs, n),
            core::slice::from_raw_parts_mut(out, n),
        )
    };
    multi::kernel_choice::digest_many_into(choice(), msgs, out);
}

/// `md5::multi::digest_offsets_into` over the column of `values` (`len`
/// bytes) and `n + 1` `u32` offsets.
///
/// # Safety
///
/// `values` points at `len` bytes, `offsets` at `n + 1` words, `out` at
/// room for `n` digests.
#[no_mangle]
pub unsafe extern "C" fn guest_digest_offsets(
    values: *const u8,
    len: usize,
    offsets: *const u32,
    n: usize,
    out: *mut [u8; 16],
) {
    // SAFETY: the caller's contract.
    let (values, offsets, out) = unsafe {
        (
            core::slice::from_raw_parts(values, len),
            core::slice::from_raw_parts(offsets, n + 1),
            core::slice::from_raw_parts_mut(out, n),
        )
    };
    multi::kernel_choice::digest_offsets_into(choice(), values, offsets, out);
}

/// `md5::multi::digest_views_into` over `n` views and `count` data
/// buffers: 0, or 1 plus the row of the first bad view.
///
/// # Safety
///
/// `views` points at `n` views, `buffers` at `count` [`Msg`]s, `out` at
/// room for `n` digests.
#[no_mangle]
pub unsafe extern "C" fn guest_digest_views(
    views: *const u128,
    n: usize,
    buffers: *const Msg,
    count: usize,
    out: *mut [u8; 16],
) -> usize {
    // SAFETY: the caller's contract.
    let (views, buffers, out) = unsafe {
        (
            core::slice::from_raw_parts(views, n),
            core::slice::from_raw_parts(buffers, count),
            core::slice::from_raw_parts_mut(out, n),
        )
    };
    // A few buffers are enough for the tests.
    let mut data: [&[u8]; 4] = [&[]; 4];
    for (slot, buffer) in data.iter_mut().zip(buffers) {
        *slot = buffer.as_ref();
    }
    match multi::kernel_choice::digest_views_into(choice(), views, &data[..count.min(4)], out) {
        Ok(()) => 0,
        Err(e) => 1 + e.row,
    }
}

/// `md5::multi::hex_into` (if `base64` is 0, with 32 bytes a slot) or
/// `md5::multi::base64_into` (24) over `n` digests.
///
/// # Safety
///
/// `digests` points at `n` digests, `out` at room for `n` slots.
#[no_mangle]
pub unsafe extern "C" fn guest_encode(
    digests: *const [u8; 16],
    n: usize,
    base64: usize,
    out: *mut u8,
) {
    // SAFETY: the caller's contract.
    let digests = unsafe { core::slice::from_raw_parts(digests, n) };
    if base64 == 0 {
        // SAFETY: the caller's contract, 32 bytes a slot.
        let out = unsafe { core::slice::from_raw_parts_mut(out.cast::<[u8; 32]>(), n) };
        multi::hex_into(digests, out);
    } else {
        // SAFETY: the caller's contract, 24 bytes a slot.
        let out = unsafe { core::slice::from_raw_parts_mut(out.cast::<[u8; 24]>(), n) };
        multi::base64_into(digests, out);
    }
}

/// `md5::multi::digest_many_suffixed_into` (or, if `prefix` is not 0,
/// `digest_many_prefixed_into`) over `n` messages and `affix`.
///
/// # Safety
///
/// `msgs` points at `n` valid [`Msg`]s, `affix` at a valid one, `out` at
/// room for `n` digests.
#[no_mangle]
pub unsafe extern "C" fn guest_digest_affixed(
    msgs: *const Msg,
    n: usize,
    affix: *const Msg,
    prefix: usize,
    out: *mut [u8; 16],
) {
    // SAFETY: the caller's contract.
    let (msgs, affix, out) = unsafe {
        (
            core::slice::from_raw_parts(msgs, n),
            (*affix).as_ref(),
            core::slice::from_raw_parts_mut(out, n),
        )
    };
    if prefix != 0 {
        multi::kernel_choice::digest_many_prefixed_into(choice(), affix, msgs, out);
    } else {
        multi::kernel_choice::digest_many_suffixed_into(choice(), msgs, affix, out);
    }
}

/// Runs a script of `md5::multi::Lanes` calls over `count` streams and
/// writes each finished digest to `out`; returns how many it wrote.
///
/// `streams[i]` holds all of stream `i`'s bytes, consumed front to back.
/// Round `r` passes stream `i` a chunk of `plan[r * count + i]` blocks, then,
/// if `fin[2 * r]` is a lane number, finishes that lane with a tail of
/// `fin[2 * r + 1]` bytes. After the last round every lane is finished with
/// an empty tail.
///
/// # Safety
///
/// `streams` points at `count` valid [`Msg`]s, long enough for the script;
/// `plan` at `rounds * count` words, `fin` at `2 * rounds`, `out` at room
/// for every digest the script makes.
#[no_mangle]
pub unsafe extern "C" fn guest_lanes(
    streams: *const Msg,
    count: usize,
    plan: *const u32,
    fin: *const u32,
    rounds: usize,
    out: *mut [u8; 16],
) -> usize {
    // SAFETY: the caller's contract.
    let (streams, plan, fin) = unsafe {
        (
            core::slice::from_raw_parts(streams, count),
            core::slice::from_raw_parts(plan, rounds * count),
            core::slice::from_raw_parts(fin, 2 * rounds),
        )
    };
    let mut lanes = multi::kernel_choice::lanes_with(choice(), count);
    let mut at = [0usize; multi::Lanes::MAX];
    let mut chunks: [&[u8]; multi::Lanes::MAX] = [&[]; multi::Lanes::MAX];
    let mut written = 0;
    let mut emit = |d: [u8; 16]| {
        // SAFETY: the caller made room for every digest of the script.
        unsafe { out.add(written).write(d) };
        written += 1;
    };
    for r in 0..rounds {
        for (i, s) in streams.iter().enumerate() {
            let n = 64 * plan[r * count + i] as usize;
            chunks[i] = &s.as_ref()[at[i]..at[i] + n];
            at[i] += n;
        }
        lanes.update(&chunks[..count]);
        let lane = fin[2 * r] as usize;
        if lane < count {
            let n = fin[2 * r + 1] as usize;
            let tail = &streams[lane].as_ref()[at[lane]..at[lane] + n];
            at[lane] += n;
            emit(lanes.finalize_lane(lane, tail));
        }
    }
    for lane in 0..count {
        emit(lanes.finalize_lane(lane, &[]));
    }
    written
}

// The blob links no C library: the memory routines the compiler calls, as
// string instructions.

/// # Safety
///
/// As C's `memcpy`: `n` bytes readable at `src`, writable at `dst`, the two
/// ranges disjoint.
#[no_mangle]
pub unsafe extern "C" fn memcpy(dst: *mut u8, src: *const u8, n: usize) -> *mut u8 {
    // SAFETY: `rep movsb` copies `rcx` bytes from `rsi` to `rdi`, forwards
    // (the ABI keeps the direction flag clear), within the ranges the caller
    // vouches for.
    unsafe {
        core::arch::asm!(
            "rep movsb",
            inout("rcx") n => _,
            inout("rdi") dst => _,
            inout("rsi") src => _,
            options(nostack, preserves_flags)
        )
    };
    dst
}

/// # Safety
///
/// As C's `memset`: `n` bytes writable at `dst`.
#[no_mangle]
pub unsafe extern "C" fn memset(dst: *mut u8, c: i32, n: usize) -> *mut u8 {
    // SAFETY: `rep stosb` stores `al` to `rcx` bytes from `rdi` on, within
    // the range the caller vouches for.
    unsafe {
        core::arch::asm!(
            "rep stosb",
            inout("rcx") n => _,
            inout("rdi") dst => _,
            in("al") c as u8,
            options(nostack, preserves_flags)
        )
    };
    dst
}

/// # Safety
///
/// As C's `memmove`: `n` bytes readable at `src`, writable at `dst`; the
/// ranges may overlap.
#[no_mangle]
pub unsafe extern "C" fn memmove(dst: *mut u8, src: *const u8, n: usize) -> *mut u8 {
    if (dst as usize).wrapping_sub(src as usize) >= n {
        // `dst` is below `src` or past its end: a forward copy reads each
        // byte before it is overwritten.
        // SAFETY: as in `memcpy`, whose forward order this case allows.
        return unsafe { memcpy(dst, src, n) };
    }
    // SAFETY: `dst` lies inside `src .. src + n`: `rep movsb` with the
    // direction flag set copies from the last byte down, so each byte is
    // read before it is overwritten; `cld` restores the flag the ABI wants
    // clear. Only the ranges the caller vouches for are touched.
    unsafe {
        core::arch::asm!(
            "std",
            "rep movsb",
            "cld",
            inout("rcx") n => _,
            inout("rdi") dst.wrapping_add(n).wrapping_sub(1) => _,
            inout("rsi") src.wrapping_add(n).wrapping_sub(1) => _,
            options(nostack)
        )
    };
    dst
}
