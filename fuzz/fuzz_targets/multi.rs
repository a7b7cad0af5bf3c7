//! `md5::multi::digest_many_into` over batches of 0 to 200 messages of 0 to
//! 20,000 bytes (24 KiB in all), short ones and lengths near the padding
//! edges favoured, 4 KiB apart or at every alignment,
//! with the kernel the build selects and with one other kernel the CPU has
//! (each input picks one, so that the inputs of a run meet them all),
//! against `Md5` one message at a time. On an AVX-512 CPU the AVX-512
//! kernel runs at each of its widths, 16 to 64 lanes, chosen by the
//! input's length.
#![no_main]

use libfuzzer_sys::fuzz_target;
use md5::multi::{digest_many_into, kernel_choice};
use md5::{Digest, Md5};
use md5_fuzz::{fill, one_kernel, Cursor};

/// The message bytes of one input, all told: a batch costs tens of KiB of
/// hashing, three times over, so that a run reaches 10^7 inputs in under
/// an hour on two cores (benches/RESULTS.md, "Fuzzing").
const BUDGET: usize = 24 << 10;

/// A message length from a selector byte and a value: a long one (up to
/// 20,000 bytes) one time in eight, within the input's [`BUDGET`].
fn length(sel: u8, v: u16) -> usize {
    let v = v as usize;
    const EDGES: [usize; 8] = [0, 1, 55, 56, 57, 63, 64, 65];
    match sel % 16 {
        // Up to four blocks.
        0..=7 => v % 256,
        // Where the padding needs one more block (55 and 56 bytes into a
        // block), and block boundaries, up to 66 blocks.
        8..=10 => 64 * ((v >> 3) % 66) + EDGES[v & 7],
        11..=13 => v % 2_048,
        14 => (64 * ((v >> 3) % 312) + EDGES[v & 7]).min(20_000),
        _ => v % 20_001,
    }
}

fuzz_target!(|data: &[u8]| {
    let mut c = Cursor::new(data);
    let count = c.u8() as usize % 201;
    // Messages 4 KiB apart one input in four (their starts share an L1
    // set, and a word of a line: the AVX-512 kernel reads them as whole
    // lines on Zen 4), else 4,099 bytes apart (every alignment).
    let (gap, span) = match c.u8() % 4 {
        0 => (4_096, 16_384),
        _ => (4_099, 16_000),
    };
    // Lengths past what is left of `BUDGET` fall to under 256 bytes.
    let mut left = BUDGET;
    let lens: Vec<usize> = (0..count)
        .map(|_| {
            let n = length(c.u8(), c.u16());
            let n = if n <= left { n } else { n % 256 };
            left = left.saturating_sub(n);
            n
        })
        .collect();
    // As much as the messages reach, not more: filling costs per byte.
    let at = |i: usize| i * gap % span;
    let reach = lens.iter().enumerate().map(|(i, &n)| at(i) + n);
    let buf = fill(c.rest(), reach.max().unwrap_or(0));
    let msgs: Vec<&[u8]> = lens
        .iter()
        .enumerate()
        .map(|(i, &n)| &buf[at(i)..at(i) + n])
        .collect();
    let want: Vec<[u8; 16]> = msgs.iter().map(|m| Md5::digest(m).into()).collect();

    let mut out = vec![[0u8; 16]; count];
    digest_many_into(&msgs, &mut out);
    assert_eq!(out, want, "lengths {lens:?}");
    let kernel = one_kernel(data);
    out.fill([0; 16]);
    kernel_choice::digest_many_into(kernel, &msgs, &mut out);
    assert_eq!(out, want, "kernel {kernel}, lengths {lens:?}");
});
