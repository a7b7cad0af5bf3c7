//! The batch forms other than slices (Arrow offsets and views, a shared suffix or
//! prefix, lists of pieces) on every kernel against `Md5` fed the same
//! bytes, and the hex and base64 encoders against plain oracles.

extern crate std;

use super::{for_each_kernel, widest, Rng, SHRINK};
use crate::multi::forms::offsets::{Offset, Offsets};
use crate::multi::forms::pieces::{PieceLists, Prefixed, Suffixed};
use crate::multi::forms::views::{ViewError, Views};
use crate::multi::forms::{base64, hex};
use crate::multi::kernel::Kernel;
use crate::multi::scheduler::digest_batch;
use crate::{Digest, Md5};
use core::cell::Cell;
use core::marker::PhantomData;
use std::{format, string::String, vec, vec::Vec};

/// `Md5` of the concatenation of `pieces`, fed piece by piece.
fn md5_of(pieces: &[&[u8]]) -> [u8; 16] {
    let mut h = Md5::new();
    for p in pieces {
        h.update(p);
    }
    h.finalize().into()
}

/// Row lengths as columns have them: mostly 0 to 200 bytes (so every
/// padding edge of the first blocks occurs), some at the edges exactly, a
/// few long.
fn row_len(rng: &mut Rng) -> usize {
    const EDGES: [usize; 12] = [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 183, 184];
    match rng.below(20) {
        0 => EDGES[rng.below(EDGES.len())],
        1 => 1000 / SHRINK + rng.below(5000 / SHRINK),
        _ => rng.below(201),
    }
}

/// `digest_batch` of `source` with `kernel`, against `want`.
fn check<'a, S: crate::multi::scheduler::source::Source<'a>>(
    kernel: Kernel,
    source: &S,
    want: &[[u8; 16]],
) {
    let mut out = vec![[0u8; 16]; want.len()];
    digest_batch(kernel, source, &mut out);
    for (i, (got, expected)) in out.iter().zip(want).enumerate() {
        assert_eq!(
            got,
            expected,
            "kernel {}: message {i} of {}",
            kernel.name(),
            want.len()
        );
    }
}

/// A column of `rows` random rows whose offsets, of type `O`, start at
/// `base` (as a slice of an Arrow array does), in a values buffer with
/// bytes after its last row; on every kernel.
fn check_column<O: Offset + TryFrom<usize>>(rng: &mut Rng, rows: usize, base: usize) {
    let lens: Vec<usize> = (0..rows).map(|_| row_len(rng)).collect();
    let total: usize = lens.iter().sum();
    let values = rng.bytes(base + total + 10);
    let mut offsets = vec![base];
    for n in &lens {
        offsets.push(offsets[offsets.len() - 1] + n);
    }
    let want: Vec<[u8; 16]> = offsets
        .windows(2)
        .map(|w| md5_of(&[&values[w[0]..w[1]]]))
        .collect();
    let offsets: Vec<O> = offsets
        .iter()
        .map(|&o| O::try_from(o).ok().unwrap())
        .collect();
    for_each_kernel(|k| check(k, &Offsets::new("test", &values, &offsets, rows), &want));
}

#[test]
fn offsets_every_kernel_and_type() {
    let mut rng = Rng(0x6f66_6673_0001);
    let w = widest();
    for rows in [0, 1, 2, 3, w - 1, w, w + 1, 2 * w + 5, 450 / SHRINK] {
        for base in [0, 17] {
            check_column::<i32>(&mut rng, rows, base);
            check_column::<i64>(&mut rng, rows, base);
            check_column::<u32>(&mut rng, rows, base);
            check_column::<u64>(&mut rng, rows, base);
            check_column::<usize>(&mut rng, rows, base);
        }
    }
    // An empty column with no offsets at all, or one.
    for_each_kernel(|k| {
        check(k, &Offsets::<i32>::new("test", b"", &[], 0), &[]);
        check(k, &Offsets::new("test", b"abc", &[2i64], 0), &[]);
    });
}

/// Each padding edge alone in every lane, as one column (rows of one
/// length run as whole sets), and every length 0..=200 in one column in
/// both orders.
#[test]
fn offsets_padding_edges() {
    let data = Rng(0x6f66_6673_0002).bytes(200 * 201);
    for n in [
        0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 183, 184, 200,
    ] {
        let rows = 2 * widest() + 1;
        let offsets: Vec<usize> = (0..=rows).map(|i| n * i).collect();
        let want = vec![md5_of(&[&data[..n]]); rows];
        let values: Vec<u8> = data[..n].repeat(rows);
        for_each_kernel(|k| check(k, &Offsets::new("test", &values, &offsets, rows), &want));
    }
    for reverse in [false, true] {
        let mut lens: Vec<usize> = (0..=200).collect();
        if reverse {
            lens.reverse();
        }
        let mut offsets = vec![0u32];
        for &n in &lens {
            offsets.push(offsets[offsets.len() - 1] + n as u32);
        }
        let want: Vec<[u8; 16]> = offsets
            .windows(2)
            .map(|w| md5_of(&[&data[w[0] as usize..w[1] as usize]]))
            .collect();
        for_each_kernel(|k| check(k, &Offsets::new("test", &data, &offsets, 201), &want));
    }
}

/// Affix lengths at every padding edge, and longer than a lane's buffer
/// (so that some messages have no plan that fits it).
const AFFIXES: [usize; 12] = [0, 1, 4, 55, 56, 63, 64, 65, 127, 128, 200, 300];

#[test]
fn suffixed_and_prefixed_every_kernel() {
    let mut rng = Rng(0x6f66_6673_0003);
    for &affix in &AFFIXES {
        let affix = rng.bytes(affix);
        let count = widest() + 3 + rng.below(40);
        let inputs: Vec<Vec<u8>> = (0..count)
            .map(|_| {
                let n = row_len(&mut rng);
                rng.bytes(n)
            })
            .collect();
        let after: Vec<[u8; 16]> = inputs.iter().map(|m| md5_of(&[m, &affix])).collect();
        let before: Vec<[u8; 16]> = inputs.iter().map(|m| md5_of(&[&affix, m])).collect();
        for_each_kernel(|k| {
            check(
                k,
                &Suffixed {
                    inputs: &inputs,
                    suffix: &affix,
                },
                &after,
            );
            check(k, &Prefixed::new(&affix, &inputs), &before);
        });
    }
    // rsync's shape: blocks of one whole-block length and a 4-byte seed,
    // a full set and more.
    let blocks: Vec<Vec<u8>> = (0..2 * widest() + 3)
        .map(|_| rng.bytes(4096 / SHRINK.min(16)))
        .collect();
    let seed = [1, 2, 3, 4];
    let want: Vec<[u8; 16]> = blocks.iter().map(|b| md5_of(&[b, &seed])).collect();
    for_each_kernel(|k| {
        check(
            k,
            &Suffixed {
                inputs: &blocks,
                suffix: &seed,
            },
            &want,
        )
    });
}

#[test]
fn pieces_every_kernel() {
    let mut rng = Rng(0x6f66_6673_0004);
    for round in 0..12 {
        let count = rng.below(3 * widest());
        let lists: Vec<Vec<Vec<u8>>> = (0..count)
            .map(|_| {
                (0..rng.below(5))
                    .map(|_| {
                        // Round 0: every piece short. Otherwise some long
                        // pieces, so that a list may have two (no plan
                        // fits, and it is hashed on its own).
                        let n = match (round, rng.below(6)) {
                            (0, _) | (_, 0..=3) => rng.below(70),
                            (_, 4) => AFFIXES[rng.below(AFFIXES.len())],
                            _ => 500 + rng.below(3000 / SHRINK),
                        };
                        rng.bytes(n)
                    })
                    .collect()
            })
            .collect();
        let want: Vec<[u8; 16]> = lists
            .iter()
            .map(|l| md5_of(&l.iter().map(Vec::as_slice).collect::<Vec<_>>()))
            .collect();
        for_each_kernel(|k| check(k, &PieceLists(&lists, PhantomData), &want));
    }
    // Arrays of slices, as the API's example has them.
    let pairs = [
        [&b"secret"[..], b"alice"],
        [b"", b""],
        [&[9; 100], &[7; 300]],
    ];
    let want: Vec<[u8; 16]> = pairs.iter().map(|p| md5_of(p)).collect();
    for_each_kernel(|k| check(k, &PieceLists(&pairs, PhantomData), &want));
}

/// Digests in which every byte value occurs at every position, and random
/// ones, in counts that leave an odd last digest for the pairwise forms.
fn encoder_inputs() -> Vec<[u8; 16]> {
    let mut rng = Rng(0x6f66_6673_0005);
    let mut all: Vec<[u8; 16]> = (0..=255u8)
        .map(|b| core::array::from_fn(|i| b.wrapping_add(i as u8 * 17)))
        .collect();
    all.extend((0..101).map(|_| core::array::from_fn(|_| rng.next() as u8)));
    all
}

#[test]
fn hex_matches_format() {
    let digests = encoder_inputs();
    for count in [0, 1, 2, 3, digests.len()] {
        let mut out = vec![[0u8; 32]; count];
        crate::multi::hex_into(&digests[..count], &mut out);
        for (d, o) in digests.iter().zip(&out) {
            let want: String = d.iter().map(|b| format!("{b:02x}")).collect();
            assert_eq!(o, want.as_bytes());
            assert_eq!(hex::portable(d), *o);
        }
    }
}

/// RFC 4648 base64, bit by bit: the oracle for the table and SIMD forms.
fn base64_bits(d: &[u8; 16]) -> Vec<u8> {
    let alphabet: Vec<u8> = (b'A'..=b'Z')
        .chain(b'a'..=b'z')
        .chain(b'0'..=b'9')
        .chain([b'+', b'/'])
        .collect();
    let bits: Vec<u8> = d
        .iter()
        .flat_map(|b| (0..8).rev().map(move |i| (b >> i) & 1))
        .collect();
    let mut out: Vec<u8> = bits
        .chunks(6)
        .map(|c| {
            let v = (0..6).fold(0, |v, i| v << 1 | c.get(i).copied().unwrap_or(0));
            alphabet[usize::from(v)]
        })
        .collect();
    out.extend_from_slice(b"==");
    out
}

#[test]
fn base64_matches_bitwise_oracle() {
    let digests = encoder_inputs();
    for count in [0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, digests.len()] {
        let mut out = vec![[0u8; 24]; count];
        crate::multi::base64_into(&digests[..count], &mut out);
        for (d, o) in digests.iter().zip(&out) {
            assert_eq!(o[..], base64_bits(d)[..], "{d:02x?}");
            assert_eq!(base64::portable(d), *o);
        }
    }
}

/// Outputs large enough to be written past the caches (`multi/past_cache.rs`),
/// at every alignment of the output's start: the same characters as the
/// per-digest encoders, and nothing written outside the output. Only where
/// outputs go past the caches (x86_64, not under Miri).
#[test]
#[cfg_attr(
    any(miri, not(md5_sse2)),
    ignore = "no output goes past the caches here"
)]
fn large_outputs_written_past_the_caches() {
    let mut rng = Rng(0x6f66_6673_0006);
    // 4 MiB and a little more of base64 (and so of hex).
    let n = (4 << 20) / 24 + 37;
    let digests: Vec<[u8; 16]> = (0..n)
        .map(|_| core::array::from_fn(|_| rng.next() as u8))
        .collect();
    for at in [0, 1, 8, 13] {
        encoded_at(&digests, at, crate::multi::hex_into, hex::portable, "hex");
        encoded_at(
            &digests,
            at,
            crate::multi::base64_into,
            base64::portable,
            "base64",
        );
    }
}

/// `encode_into(digests)` into slots starting `at` bytes into a buffer:
/// `portable`'s characters for each digest, and the buffer's other bytes
/// untouched.
fn encoded_at<const N: usize>(
    digests: &[[u8; 16]],
    at: usize,
    encode_into: fn(&[[u8; 16]], &mut [[u8; N]]),
    portable: fn(&[u8; 16]) -> [u8; N],
    what: &str,
) {
    let n = digests.len();
    let mut buf = vec![0x55u8; N * n + 32];
    let (out, _) = buf[at..at + N * n].as_chunks_mut::<N>();
    encode_into(digests, out);
    for (d, o) in digests.iter().zip(out.iter()) {
        assert_eq!(portable(d), *o, "{what} at {at}");
    }
    assert!(buf[..at]
        .iter()
        .chain(&buf[at + N * n..])
        .all(|&b| b == 0x55));
}

/// A view column of `lens` random rows: inline up to 12 bytes, else in one
/// of `count` data buffers (each but the second with bytes before and
/// after its rows), in Arrow's layout; and each row's digest. Each row
/// picks its buffer at random, or with `run` not 0, rows `run` at a time
/// take the buffers in turn (as a builder fills them).
fn view_column(
    rng: &mut Rng,
    lens: &[usize],
    count: usize,
    run: usize,
) -> (Vec<u128>, Vec<Vec<u8>>, Vec<[u8; 16]>) {
    let mut buffers: Vec<Vec<u8>> = (0..count).map(|k| rng.bytes([7, 0, 1][k % 3])).collect();
    let mut views = Vec::with_capacity(lens.len());
    let mut want = Vec::with_capacity(lens.len());
    for (i, &len) in lens.iter().enumerate() {
        let row = rng.bytes(len);
        want.push(md5_of(&[&row]));
        let mut view = [0u8; 16];
        view[..4].copy_from_slice(&(len as u32).to_le_bytes());
        if len <= 12 {
            view[4..4 + len].copy_from_slice(&row);
        } else {
            let index = match run {
                0 => rng.below(count),
                _ => i / run % count,
            };
            let buffer = &mut buffers[index];
            view[4..8].copy_from_slice(&row[..4]);
            view[8..12].copy_from_slice(&(index as u32).to_le_bytes());
            view[12..].copy_from_slice(&(buffer.len() as u32).to_le_bytes());
            buffer.extend_from_slice(&row);
            let gap = rng.below(3);
            buffer.extend_from_slice(&rng.bytes(gap));
        }
        views.push(u128::from_ne_bytes(view));
    }
    (views, buffers, want)
}

/// `views` with row `at`'s view given the length, buffer index and
/// offset `fields`.
fn broken_at(views: &[u128], at: usize, fields: [u32; 3]) -> Vec<u128> {
    let mut views = views.to_vec();
    let mut view = views[at].to_ne_bytes();
    for (field, at) in fields.iter().zip([0, 8, 12]) {
        view[at..at + 4].copy_from_slice(&field.to_le_bytes());
    }
    views[at] = u128::from_ne_bytes(view);
    views
}

/// The digests `kernel` gives a view column with a bad view, and the error
/// naming it.
fn refused(kernel: Kernel, views: &[u128], buffers: &[&[u8]]) -> (Vec<[u8; 16]>, ViewError) {
    let bad = Cell::new(usize::MAX);
    let source = Views::new(views, buffers, &bad);
    let mut out = vec![[0u8; 16]; views.len()];
    digest_batch(kernel, &source, &mut out);
    (out, source.check(0).unwrap_err())
}

#[test]
fn views_every_kernel() {
    let mut rng = Rng(0x7669_6577_0001);
    let w = widest();
    for rows in [0, 1, 15, 16, 17, w, 2 * w + 5, 450 / SHRINK] {
        // Mostly 0 to 200 bytes, and 12 and 13, the inline edge.
        let lens: Vec<usize> = (0..rows)
            .map(|i| match i % 7 {
                0 => 12,
                1 => 13,
                _ => row_len(&mut rng),
            })
            .collect();
        // Rows in one buffer, or in three: 40 rows at a time in turn (as
        // a builder fills them; most sixteens in one), or at random.
        for (count, run) in [(1, 0), (3, 40)] {
            let (views, buffers, want) = view_column(&mut rng, &lens, count, run);
            let buffers: Vec<&[u8]> = buffers.iter().map(|b| &b[..]).collect();
            for_each_kernel(|k| {
                check(
                    k,
                    &Views::new(&views, &buffers, &Cell::new(usize::MAX)),
                    &want,
                )
            });
        }
        let (views, buffers, want) = view_column(&mut rng, &lens, 3, 0);
        let buffers: Vec<&[u8]> = buffers.iter().map(|b| &b[..]).collect();
        for_each_kernel(|k| {
            let bad = Cell::new(usize::MAX);
            let source = Views::new(&views, &buffers, &bad);
            check(k, &source, &want);
            assert_eq!(source.check(0), Ok(()), "kernel {}", k.name());
        });
        let mut hex = vec![[0u8; 32]; rows];
        crate::multi::hex_views_into(&views, &buffers, &mut hex).unwrap();
        let mut want_hex = vec![[0u8; 32]; rows];
        crate::multi::hex_into(&want, &mut want_hex);
        assert!(hex == want_hex, "hex_views_into, {rows} rows");
        let mut b64 = vec![[0u8; 24]; rows];
        crate::multi::base64_views_into(&views, &buffers, &mut b64).unwrap();
        let mut want_b64 = vec![[0u8; 24]; rows];
        crate::multi::base64_into(&want, &mut want_b64);
        assert!(b64 == want_b64, "base64_views_into, {rows} rows");
    }
}

/// Columns whose rows are all of one block count with their padding (1
/// to 4: short keys, as a `Utf8View` holds them), which `run_direct`
/// reads sixteen views at a time on AVX-512 (`forms/views/avx512.rs`) where
/// they lie in one data buffer: one buffer, three taken in turn 40 rows
/// at a time (some sixteens across two), three at random. Then one view
/// broken in turn, at rows within and across those sixteens, whose length
/// keeps the rows' block count: the row is named, and the rows before its
/// sixteen are right.
#[test]
fn views_of_one_block_count() {
    let mut rng = Rng(0x7669_6577_0003);
    let rows = (2 * widest() + 21).min(600 / SHRINK);
    for blocks in 1..=4 {
        let (least, most) = ((64 * blocks).max(72) - 72, 64 * blocks - 9);
        for (count, run) in [(1, 0), (3, 40), (3, 0)] {
            let lens: Vec<usize> = (0..rows)
                .map(|i| match i % 9 {
                    0 => least,
                    1 => most,
                    2 if blocks == 1 => 12,
                    3 if blocks == 1 => 13,
                    _ => least + rng.below(most - least + 1),
                })
                .collect();
            // And with one row of another block count, in the second
            // sixteen: the set turns out mixed there.
            let mut other = lens.clone();
            other[20] = if blocks < 4 { most + 1 } else { least - 1 };
            let (views, data, want) = view_column(&mut rng, &other, count, run);
            let data: Vec<&[u8]> = data.iter().map(|b| &b[..]).collect();
            for_each_kernel(|k| {
                check(k, &Views::new(&views, &data, &Cell::new(usize::MAX)), &want)
            });
            let (good, data, want) = view_column(&mut rng, &lens, count, run);
            let data: Vec<&[u8]> = data.iter().map(|b| &b[..]).collect();
            for_each_kernel(|k| {
                let bad = Cell::new(usize::MAX);
                let source = Views::new(&good, &data, &bad);
                check(k, &source, &want);
                assert_eq!(source.check(0), Ok(()), "kernel {}", k.name());
            });
            // Longer than 12 bytes, of `blocks` blocks.
            let len = least.max(13) as u32;
            let size0 = data[0].len() as u32;
            // Indices past the buffers: the first, and one that is a
            // buffer's modulo 8.
            let broken: [[u32; 3]; 6] = [
                [len, count as u32, 0],
                [len, count as u32 + 2, 0],
                [len, u32::MAX, 0],
                [len, 0, size0 + 1 - len],
                [len, 0, u32::MAX],
                [u32::MAX, 0, 0],
            ];
            for fields in broken {
                for at in [0, 5, 20, rows - 1] {
                    let views = broken_at(&good, at, fields);
                    for_each_kernel(|k| {
                        let (out, err) = refused(k, &views, &data);
                        assert_eq!((err.row, err.view), (at, fields), "kernel {}", k.name());
                        let before = at / 16 * 16;
                        assert!(out[..before] == want[..before], "kernel {}", k.name());
                    });
                }
            }
        }
    }
}

/// Each rule of a view broken at one row, early or in a later chunk of the
/// encoded forms: that row is named, whatever the kernel, and no panic.
#[test]
fn views_that_break_the_rules() {
    let mut rng = Rng(0x7669_6577_0002);
    let rows = 5000 / SHRINK;
    let lens: Vec<usize> = (0..rows).map(|_| 13 + rng.below(60)).collect();
    let (good, buffers, _) = view_column(&mut rng, &lens, 3, 0);
    let buffers: Vec<&[u8]> = buffers.iter().map(|b| &b[..]).collect();
    let size0 = buffers[0].len() as u32;
    // Length, buffer index, offset.
    let bad: [[u32; 3]; 5] = [
        [u32::MAX, 0, 0],
        [20, 3, 0],
        [20, u32::MAX, 0],
        [20, 0, size0 - 19],
        [20, 0, u32::MAX],
    ];
    for fields in bad {
        for at in [0, 17, rows - 1] {
            let views = broken_at(&good, at, fields);
            for_each_kernel(|k| {
                let (_, err) = refused(k, &views, &buffers);
                assert_eq!((err.row, err.view), (at, fields));
            });
            let mut hex = vec![[0u8; 32]; rows];
            let err = crate::multi::hex_views_into(&views, &buffers, &mut hex).unwrap_err();
            assert_eq!(err.row, at, "{err}");
            let message = format!("{err}");
            assert!(
                message.starts_with(&format!("row {at}'s view")),
                "{message}"
            );
            let mut out = vec![[0u8; 16]; rows];
            let err = crate::multi::digest_views_into(&views, &buffers, &mut out).unwrap_err();
            assert_eq!(err.row, at);
        }
    }
}
