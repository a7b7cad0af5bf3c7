//! `md5::multi::Lanes` driven by random operations (`update` with unequal,
//! empty and equal chunks, `finalize_lane`, `reset_lane`, `clone`) against
//! one `Md5` per lane. On an AVX-512 CPU the AVX-512 kernel runs at each of
//! its widths, 16 to 64 lanes, chosen by the input's length.
#![no_main]

use libfuzzer_sys::fuzz_target;
use md5::multi::Lanes;
use md5::{Digest, Md5};
use md5_fuzz::{fill, Cursor};

/// The bytes the updates of one input feed all lanes, all told (chunks
/// past it are empty): an input costs tens of KiB of hashing, so that a
/// run reaches 10^7 inputs in under an hour on two cores
/// (benches/RESULTS.md, "Fuzzing").
const BUDGET: usize = 32 << 10;

fuzz_target!(|data: &[u8]| {
    let mut c = Cursor::new(data);
    let count = 1 + c.u8() as usize % Lanes::MAX;
    let ops: Vec<u32> = (0..c.u8() % 32).map(|_| c.u32()).collect();
    let buf = fill(c.rest(), 64 * 48 + 256);

    // The kernel `Lanes::new` takes, at the width the input picks.
    let kernel = md5_fuzz::kernels(data)
        .last()
        .expect("the portable kernel at least");
    let mut lanes = md5::multi::kernel_choice::lanes_with(kernel, count);
    let mut refs = vec![Md5::new(); count];
    let mut left = BUDGET;
    for op in ops {
        let lane = (op >> 8) as usize % count;
        match op & 7 {
            // Unequal chunks, some of them empty (idle lanes).
            0..=2 => {
                let mut x = op;
                let chunks: Vec<&[u8]> = (0..count)
                    .map(|_| {
                        x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                        // Long chunks (40 blocks) one time in 32: a full
                        // set of them costs 160 KiB of hashing.
                        let blocks = match (x >> 16) % 32 {
                            0..=7 => 0,
                            8..=23 => 1 + (x >> 20) as usize % 3,
                            24..=30 => (x >> 20) as usize % 16,
                            _ => 40,
                        };
                        let blocks = if 64 * blocks <= left { blocks } else { 0 };
                        left -= 64 * blocks;
                        let at = (x >> 4) as usize % 256;
                        &buf[at..at + 64 * blocks]
                    })
                    .collect();
                for (r, chunk) in refs.iter_mut().zip(&chunks) {
                    r.update(chunk);
                }
                lanes.update(&chunks);
            }
            // Equal chunks in every lane.
            3 => {
                let n = 64 * ((op >> 16) as usize % 5);
                let n = if n * count <= left { n } else { 0 };
                left -= n * count;
                let chunks: Vec<&[u8]> = (0..count).map(|i| &buf[i..i + n]).collect();
                for (r, chunk) in refs.iter_mut().zip(&chunks) {
                    r.update(chunk);
                }
                lanes.update(&chunks);
            }
            4 | 5 => {
                let tail = &buf[..(op >> 16) as usize % 200];
                refs[lane].update(tail);
                let got = lanes.finalize_lane(lane, tail);
                assert_eq!(got[..], refs[lane].finalize_reset()[..], "lane {lane}");
            }
            6 => {
                lanes.reset_lane(lane);
                refs[lane] = Md5::new();
            }
            _ => lanes = lanes.clone(),
        }
    }
    for (lane, r) in refs.into_iter().enumerate() {
        assert_eq!(
            lanes.finalize_lane(lane, &[])[..],
            r.finalize()[..],
            "lane {lane}"
        );
    }
});
