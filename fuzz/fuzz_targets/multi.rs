//! `md5::multi::digest_many_into` over batches of 0 to 200 messages of 0 to
//! 20,000 bytes, short ones and lengths near the padding edges favoured,
//! with the kernel the build selects and with one other kernel the CPU has
//! (each input picks one, so that the inputs of a run meet them all),
//! against `Md5` one message at a time. On an AVX-512 CPU the AVX-512
//! kernel runs at each of its widths, 16 to 64 lanes, chosen by the
//! input's length.
#![no_main]

use libfuzzer_sys::fuzz_target;
use md5::multi::{__bench, digest_many_into};
use md5::{Digest, Md5};
use md5_fuzz::{fill, one_kernel, vary_avx512_width, Cursor};

/// A message length from a selector byte and a value: a long one (up to
/// 20,000 bytes) one time in eight, so that a batch of 200 costs tens of
/// KiB of hashing, not megabytes.
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
    vary_avx512_width(data);
    let mut c = Cursor::new(data);
    let count = c.u8() as usize % 201;
    let lens: Vec<usize> = (0..count).map(|_| length(c.u8(), c.u16())).collect();
    // As much as the messages reach, not more: filling costs per byte.
    let reach = lens
        .iter()
        .enumerate()
        .map(|(i, &n)| i * 4_099 % 20_000 + n);
    let buf = fill(c.rest(), reach.max().unwrap_or(0));
    let msgs: Vec<&[u8]> = lens
        .iter()
        .enumerate()
        .map(|(i, &n)| {
            let at = i * 4_099 % 20_000;
            &buf[at..at + n]
        })
        .collect();
    let want: Vec<[u8; 16]> = msgs.iter().map(|m| Md5::digest(m).into()).collect();

    let mut out = vec![[0u8; 16]; count];
    digest_many_into(&msgs, &mut out);
    assert_eq!(out, want, "lengths {lens:?}");
    let kernel = one_kernel(data);
    out.fill([0; 16]);
    __bench::digest_many_into(kernel, &msgs, &mut out);
    assert_eq!(out, want, "kernel {kernel}, lengths {lens:?}");
});
