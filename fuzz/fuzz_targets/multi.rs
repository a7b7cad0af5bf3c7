//! `md5::multi::digest_many_into` over batches of 0 to 200 messages of 0 to
//! 20,000 bytes, lengths near the padding edges favoured, with the kernel
//! the build selects and with every kernel the CPU has, against `Md5` one
//! message at a time. On an AVX-512 CPU the AVX-512 kernel runs at each of
//! its widths, 16 to 64 lanes, chosen by the input's length.
#![no_main]

use libfuzzer_sys::fuzz_target;
use md5::multi::{__bench, digest_many_into};
use md5::{Digest, Md5};
use md5_fuzz::{fill, Cursor};

/// A message length from a selector byte and a value.
fn length(sel: u8, v: u16) -> usize {
    let v = v as usize;
    match sel % 4 {
        // Up to four blocks.
        0 => v % 256,
        // Where the padding needs one more block (55 and 56 bytes into a
        // block), and block boundaries.
        1 => {
            const EDGES: [usize; 8] = [0, 1, 55, 56, 57, 63, 64, 65];
            (64 * ((v >> 3) % 312) + EDGES[v & 7]).min(20_000)
        }
        2 => v % 20_001,
        _ => v % 2_048,
    }
}

fuzz_target!(|data: &[u8]| {
    let mut c = Cursor::new(data);
    let count = c.u8() as usize % 201;
    let lens: Vec<usize> = (0..count).map(|_| length(c.u8(), c.u16())).collect();
    let buf = fill(c.rest(), 40_000);
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
    for kernel in md5_fuzz::kernels(data) {
        out.fill([0; 16]);
        __bench::digest_many_into(kernel, &msgs, &mut out);
        assert_eq!(out, want, "kernel {kernel}, lengths {lens:?}");
    }
});
