//! The kernels lane by lane against single-stream hashing, and the
//! scheduler and [`Lanes`] on every kernel the CPU has; the other batch
//! forms and the encoders in `forms.rs`.

extern crate std;

use super::kernel::{Isa, Kernel};
use super::lane_state::{BlockPtrs, LaneStates, MAX_LANES};
use super::platform::Platform;
use super::scheduler::digest_batch;
use super::scheduler::source::Slices;
use super::tuning::{Stagger, Tuning};
use super::*;
use crate::{Digest, Md5};
use md5x_testkit::Rng;
use std::{println, vec, vec::Vec};

mod forms;
mod lanes;
mod memory;
mod mixed;
#[cfg(md5_sse2)]
mod rows;
mod stagger;

/// Divides the long messages and runs of the tests below, so that Miri,
/// which interprets every vector instruction, finishes in minutes. The
/// lengths keep their remainders mod 64, so padding cases stay the same.
const SHRINK: usize = if cfg!(miri) { 32 } else { 1 };

/// The most lanes of any kernel built for this target: batch sizes up to
/// a few times this reach every lane occupancy.
fn widest() -> usize {
    Isa::ALL
        .iter()
        .map(|&isa| {
            Kernel {
                isa,
                tuning: Tuning::DEFAULT,
                avx512bw: false,
            }
            .max_lanes()
        })
        .max()
        .unwrap_or(1)
}

/// Runs `f` on every kernel of this target that the CPU has, and says
/// which ones it skips; on x86_64, then on the test-only `SoftWide` kernels
/// of 16, 32, 48 and 64 lanes, so that the scheduler and `Lanes` meet
/// AVX-512's widths and group counts on every x86_64 host, AVX-512 or not.
/// (Only there: the scheduler is the same code everywhere, and under qemu
/// these tests would take minutes more.)
fn for_each_kernel(mut f: impl FnMut(Kernel)) {
    let tuning = Platform::detect().tuning();
    for &isa in Isa::ALL {
        match Kernel::available(isa, tuning) {
            Some(k) => f(k),
            None => println!("skipping multi kernel {}: this CPU lacks it", isa.name()),
        }
    }
    if cfg!(target_arch = "x86_64") {
        for groups in 1..=4 {
            f(Kernel {
                isa: Isa::SoftWide(groups),
                tuning,
                avx512bw: false,
            });
        }
    }
}

/// Every CPU family's tuning row (`Family::tuning`), so that each runs on
/// every host that has the ISA.
const ROWS: [Tuning; 4] = [Tuning::INTEL, Tuning::ZEN3, Tuning::ZEN4, Tuning::ZEN5];

/// `digest_batch(kernel)` of `inputs` against `Md5::digest`, message by
/// message.
fn check(kernel: Kernel, inputs: &[Vec<u8>]) {
    let mut out = vec![[0u8; 16]; inputs.len()];
    digest_batch(kernel, &Slices(inputs), &mut out);
    assert_digests(kernel, "message", inputs, &out);
}

/// `out`, what `kernel` made of `inputs` (each a `what`), against
/// `Md5::digest`, message by message.
fn assert_digests(kernel: Kernel, what: &str, inputs: &[Vec<u8>], out: &[[u8; 16]]) {
    assert_eq!(out.len(), inputs.len());
    for (i, (input, got)) in inputs.iter().zip(out).enumerate() {
        assert_eq!(
            got[..],
            Md5::digest(input)[..],
            "kernel {}: {what} {i} of {} ({} bytes)",
            kernel.name(),
            inputs.len(),
            input.len()
        );
    }
}

/// The raw kernel, lane by lane, against the single-stream backend: a
/// different random state and message in every lane, for every count of
/// busy lanes up to the most the kernel is built for (so every group count
/// runs, AVX-512's four on CPUs that schedule two), with and without a
/// shared last block.
#[test]
fn kernel_compress_every_lane() {
    for_each_kernel(|k| {
        let (group, most) = (k.group_lanes(), k.max_lanes());
        check_compress(k.name(), group, most, |st, ptrs, blocks, w, last| {
            // SAFETY: the kernel is available (`for_each_kernel`), `1 <= w
            // <= most`, and every lane of its groups points at `64 *
            // blocks` bytes (`check_compress`).
            unsafe { k.compress(st, ptrs, blocks, w, last) }
        });
    });
}

/// The AVX-512 kernel's `ymm` body (`kernel/avx512_ymm.rs`) called
/// directly, at each of its group counts, as `kernel_compress_every_lane`
/// does: `Kernel::compress` runs it only on the CPUs its rule names.
#[cfg(md5_sse2)]
#[test]
fn avx512_ymm_every_lane() {
    use crate::multi::kernel::avx512_ymm;
    let Some(_) = Kernel::available(Isa::Avx512, Tuning::DEFAULT) else {
        return println!("skipping the AVX-512 ymm body: this CPU lacks AVX-512");
    };
    let most = avx512_ymm::MOST_LANES;
    check_compress("avx512 ymm", 8, most, |st, ptrs, blocks, w, last| {
        // SAFETY: the CPU has AVX-512F and VL (checked above); the checks
        // give each lane of the groups `64 * blocks` readable bytes.
        unsafe { avx512_ymm::compress_lanes(st, ptrs, blocks, w, last) }
    });
}

/// Runs `compress(state, ptrs, blocks, w, last)`, a kernel of `group` lanes
/// a group and at most `most`, on `w` busy lanes for every `w <= most` (the
/// edges only under Miri) and 0 to 5 blocks, with and without a last block,
/// and checks every busy lane against the single-stream backend. Lanes
/// past `w` read lane 0's message.
fn check_compress(
    name: &str,
    group: usize,
    most: usize,
    compress: impl Fn(&mut LaneStates, &BlockPtrs, usize, usize, Option<&[u32; 16]>),
) {
    let mut rng = Rng(0x6d75_6c74_6901);
    let widths: Vec<usize> = if cfg!(miri) {
        vec![1, (group + 1).min(most), most]
    } else {
        (1..=most).collect()
    };
    for w in widths {
        for blocks in 0..=5 / SHRINK.min(2) {
            for with_last in [false, true] {
                let msgs: Vec<Vec<u8>> = (0..w).map(|_| rng.bytes(64 * blocks)).collect();
                let last_block = rng.bytes(64);
                let mut last = [0u32; 16];
                for (x, b) in last.iter_mut().zip(last_block.chunks_exact(4)) {
                    *x = u32::from_le_bytes(b.try_into().unwrap());
                }
                let mut st = LaneStates::new();
                let mut want = Vec::new();
                for (lane, msg) in msgs.iter().enumerate() {
                    let init = [0; 4].map(|_: u32| rng.next() as u32);
                    st.set(lane, init);
                    let mut s = init;
                    md5x_block::compress(&mut s, msg.as_chunks::<64>().0);
                    if with_last {
                        md5x_block::compress(&mut s, last_block.as_chunks::<64>().0);
                    }
                    want.push(s);
                }
                let mut ptrs: BlockPtrs = [core::ptr::null(); MAX_LANES];
                for (p, msg) in ptrs.iter_mut().zip(&msgs) {
                    *p = msg.as_ptr();
                }
                for p in ptrs.iter_mut().skip(w) {
                    *p = msgs[0].as_ptr();
                }
                compress(&mut st, &ptrs, blocks, w, with_last.then_some(&last));
                for (lane, want) in want.iter().enumerate() {
                    assert_eq!(
                        st.get(lane),
                        *want,
                        "{name} lane {lane} of {w}, {blocks} blocks, last block: {with_last}"
                    );
                }
            }
        }
    }
}

/// Batches of equal lengths, whole blocks or not, where every lane ends
/// its message in the same kernel call (the shared padding block), and the
/// same with a message of another whole-block length among them.
#[test]
fn kernels_equal_lengths() {
    let mut rng = Rng(0x6d75_6c74_6906);
    // Under Miri, fewer: it interprets every vector instruction.
    let (lens, counts): (&[usize], &[usize]) = if cfg!(miri) {
        (&[64, 100, 128], &[1, 16, 33])
    } else {
        (
            // Past the lanes' buffers, messages with an end run their
            // whole blocks in place (`run_tailed`, 248 to 4,087 bytes):
            // its edges, ends of one and two blocks, and the first length
            // past it.
            &[
                64, 128, 192, 256, 320, 1024, 100, 1000, 247, 248, 311, 312, 4033, 4087, 4088,
            ],
            &[1, 2, 7, 8, 16, 17, 33, 64, 100],
        )
    };
    for &len in lens {
        for &count in counts {
            let mut inputs: Vec<Vec<u8>> = (0..count).map(|_| rng.bytes(len)).collect();
            for_each_kernel(|k| check(k, &inputs));
            if count > 2 {
                inputs[count / 2] = rng.bytes(len + 64);
                inputs[1] = rng.bytes(64);
                for_each_kernel(|k| check(k, &inputs));
            }
        }
    }
}

/// Full sets of one whole-block length read straight from the batch, one
/// after another (`scheduler/equal_sets.rs`), each set's first block
/// loaded while the one before it ends: their run broken by a message of
/// another length at each lane of a later set (which is then queued as
/// read), or ending in a narrower set, at every such length, with either
/// value of the row's `avx512_whole_block_rows` (128 and 192 bytes built
/// as rows or read in place).
#[test]
fn kernels_runs_of_equal_sets() {
    let mut rng = Rng(0x6d75_6c74_690c);
    for_each_kernel(|k| {
        let flipped = Tuning {
            avx512_whole_block_rows: !k.tuning.avx512_whole_block_rows,
            ..k.tuning
        };
        let w = k.short_lanes();
        // Under Miri, a few lanes: it interprets every vector instruction.
        let step = if cfg!(miri) { w.div_ceil(3) } else { 1 };
        for len in [64, 128, 192, 256] {
            for k in [
                k,
                Kernel {
                    tuning: flipped,
                    ..k
                },
            ] {
                for at in (0..w).step_by(step) {
                    let mut inputs: Vec<Vec<u8>> = (0..3 * w + 5).map(|_| rng.bytes(len)).collect();
                    inputs[2 * w + at] = rng.bytes(len + 1);
                    check(k, &inputs);
                }
                // A full-width set after a wider one, and a run that ends
                // in one.
                for count in [w + k.lanes(), 4 * w + w / 2 + 3] {
                    let inputs: Vec<Vec<u8>> = (0..count).map(|_| rng.bytes(len)).collect();
                    check(k, &inputs);
                }
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
        let same = vec![data[..n].to_vec(); 2 * widest() + 1];
        for_each_kernel(|k| check(k, &same));
    }
}

/// Input counts that are not multiples of the lane width, including 0
/// and 1, with random lengths.
#[test]
fn kernels_input_counts() {
    let mut rng = Rng(0x6d75_6c74_6903);
    for count in 0..=3 * widest() + 1 {
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

/// Batches of several scheduler windows: mixed lengths that the queue
/// sorts window by window (long ones late in a window, short ones left over
/// into the next), and equal whole-block lengths whose full sets straddle
/// window boundaries.
#[test]
fn kernels_batches_of_several_windows() {
    let mut rng = Rng(0x6d75_6c74_6907);
    let mixed: Vec<Vec<u8>> = (0..2 * super::scheduler::queue::WINDOW + 77)
        .map(|i| {
            let n = if i % 50 == 49 {
                5000 / SHRINK + rng.below(3000 / SHRINK)
            } else {
                rng.below(400)
            };
            rng.bytes(n)
        })
        .collect();
    for_each_kernel(|k| check(k, &mixed));
    let equal: Vec<Vec<u8>> = (0..3 * super::scheduler::queue::WINDOW / 2 + 5)
        .map(|_| rng.bytes(64))
        .collect();
    for_each_kernel(|k| check(k, &equal));
}

/// A window whose last messages are taken as one full set of mixed
/// lengths, with more messages still to come: the set starts in the lanes,
/// and the messages after the window must still be hashed. (Found by the
/// `multi` fuzz target at 32 lanes: the queue counted itself empty once its
/// window was, and the batch's last messages were left unwritten.)
#[test]
fn kernels_continue_past_a_window_ended_by_a_set() {
    let mut rng = Rng(0x6d75_6c74_6908);
    let window = super::scheduler::queue::WINDOW;
    for_each_kernel(|k| {
        let w = k.lanes();
        if w == 1 || !window.is_multiple_of(w) {
            return;
        }
        // Full sets of one length that is not whole blocks (so they start
        // lane by lane, and end together), up to the window's last set;
        // that set one longer message among empty ones, so that it ends
        // alone; then a few more.
        let lens = (0..window - w)
            .map(|_| 2047 / SHRINK)
            .chain((0..w).map(|i| if i == 0 { 1000 / SHRINK } else { 0 }))
            .chain(0..6);
        let inputs: Vec<Vec<u8>> = lens.map(|n| rng.bytes(n)).collect();
        check(k, &inputs);
    });
}

/// Random batches of up to three windows: runs of one length (which start
/// as whole sets, and end together), each followed by a few messages of
/// other lengths; at every width, so that sets, refills and stragglers
/// meet the window's edges in many ways.
#[test]
fn kernels_random_batches_across_windows() {
    let mut rng = Rng(0x6d75_6c74_6909);
    let window = super::scheduler::queue::WINDOW;
    let rounds = if cfg!(miri) { 2 } else { 40 };
    let lens = [0, 64, 100, 1000, 2047].map(|n| n / SHRINK.min(8));
    for _ in 0..rounds {
        let count = 1 + rng.below(3 * window);
        let mut inputs = Vec::new();
        while inputs.len() < count {
            let run = lens[rng.below(lens.len())];
            for _ in 0..rng.below(window) {
                inputs.push(rng.bytes(run));
            }
            for _ in 0..rng.below(8) {
                let n = lens[rng.below(lens.len())];
                inputs.push(rng.bytes(n));
            }
        }
        inputs.truncate(count);
        for_each_kernel(|k| check(k, &inputs));
    }
}

#[test]
#[should_panic(expected = "3 inputs but 2 output slots")]
fn digest_many_into_checks_lengths() {
    digest_many_into(&["a", "b", "c"], &mut [[0; 16]; 2]);
}
