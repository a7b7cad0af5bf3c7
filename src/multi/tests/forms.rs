//! The batch forms other than slices (Arrow offsets) on every kernel
//! against `Md5` fed the same bytes.

use super::{for_each_kernel, widest, Rng, SHRINK};
use crate::multi::kernel::Kernel;
use crate::multi::offsets::{Offset, Offsets};
use crate::multi::scheduler::digest_batch;
use crate::{Digest, Md5};
use std::{vec, vec::Vec};

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
fn check<'a, S: crate::multi::source::Source<'a>>(kernel: Kernel, source: &S, want: &[[u8; 16]]) {
    let mut out = vec![[0u8; 16]; want.len()];
    digest_batch(kernel, source, &mut out);
    for (i, (got, want)) in out.iter().zip(want).enumerate() {
        assert_eq!(
            got,
            want,
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
