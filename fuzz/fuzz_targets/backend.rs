//! The single-stream backend this build selected (`md5::compress`, and `Md5`
//! on top of it) against the portable backend: the raw block function over
//! any number of blocks from any chaining value, split into two calls at a
//! random block; then `Md5` fed in random pieces, with `clone` and
//! `finalize_reset` mid-stream, against `soft_digest`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use md5::{Digest, Md5};
use md5_fuzz::{blocks, soft_digest, Cursor};

fuzz_target!(|data: &[u8]| {
    let mut c = Cursor::new(data);
    let init = [c.u32(), c.u32(), c.u32(), c.u32()];
    let split = c.u16() as usize;
    let ops: Vec<u16> = (0..c.u8() % 24).map(|_| c.u16()).collect();
    let msg = c.rest();

    // The raw block function.
    let blocks = blocks(msg);
    let (mut want, mut got) = (init, init);
    md5x_block::soft::compress(&mut want, &blocks);
    let (head, tail) = blocks.split_at(split % (blocks.len() + 1));
    md5::compress(&mut got, head);
    md5::compress(&mut got, tail);
    assert_eq!(got, want, "{} blocks split at {}", blocks.len(), head.len());

    // Streaming. The low two bits of an op pick what it does, the rest how
    // many bytes it takes.
    let mut h = Md5::new();
    let (mut start, mut pos) = (0, 0);
    for op in ops {
        let n = (op >> 2) as usize % (msg.len() - pos + 1);
        match op & 3 {
            0 | 1 => h.update(&msg[pos..pos + n]),
            2 => {
                // A clone carries the buffered bytes and the length.
                let copy = h.clone();
                h.update(&msg[pos..pos + n]);
                assert_eq!(copy.finalize()[..], soft_digest(&msg[start..pos]));
            }
            _ => {
                let d = h.finalize_reset();
                assert_eq!(d[..], soft_digest(&msg[start..pos]), "finalize_reset");
                start = pos;
                h.update(&msg[pos..pos + n]);
            }
        }
        pos += n;
    }
    h.update(&msg[pos..]);
    assert_eq!(h.finalize()[..], soft_digest(&msg[start..]));
    assert_eq!(Md5::digest(msg)[..], soft_digest(msg));
});
