//! Short rows of mixed block counts hashed straight from the batch
//! (`Scheduler::run_mixed`): sets whose rows straddle one padding edge (55
//! or 119 bytes) run at once, sorted within the set; sets of wider mixes,
//! or with a long row, go through the queue. Batches of several sets and
//! a partial one, on every kernel, against `Md5::digest`; and wider
//! mixes, or longer batches, in buckets by block count
//! (`Scheduler::run_buckets`).

use super::*;

/// A batch of `count` rows, lengths drawn from `lens`, with a long row at
/// each index in `long`.
fn rows(rng: &mut Rng, count: usize, lens: &[usize], long: &[usize]) -> Vec<Vec<u8>> {
    (0..count)
        .map(|i| {
            let n = if long.contains(&i) {
                300 + rng.below(200)
            } else {
                *rng.pick(lens)
            };
            rng.bytes(n)
        })
        .collect()
}

#[test]
fn mixed_short_rows_across_sets() {
    let mut rng = Rng(0x6d69_7865_6401);
    // Two adjacent counts (one or two blocks, two or three), three, and
    // one count alone, each with a length at every padding edge.
    let mixes: &[&[usize]] = &[
        &[0, 8, 54, 55, 56, 57, 63, 64],
        &[56, 64, 100, 119, 120, 127, 128],
        &[55, 56],
        &[0, 55, 56, 119, 120, 183, 184, 200],
        &[56, 60, 119],
    ];
    for_each_kernel(|k| {
        let w = k.lanes();
        let sets = if cfg!(miri) { 2 } else { 5 };
        for lens in mixes {
            for count in [w, sets * w, sets * w + w / 2 + 1] {
                check(k, &rows(&mut rng, count, lens, &[]));
                // A long row in the second set, and one at the end.
                check(k, &rows(&mut rng, count, lens, &[w + 3, count - 1]));
            }
        }
    });
}

/// [`check`], and the same rows as a column in Arrow's layout (offsets
/// from 5, `i64`), whose buckets take sixteen rows a step on AVX-512
/// (`Scheduler::run_column_buckets`).
fn check_both(kernel: Kernel, rows: &[Vec<u8>]) {
    use crate::multi::forms::offsets::Offsets;
    check(kernel, rows);
    let mut values = vec![0xa5; 5];
    let mut offsets = vec![5i64];
    for r in rows {
        values.extend_from_slice(r);
        offsets.push(values.len() as i64);
    }
    let mut out = vec![[0u8; 16]; rows.len()];
    digest_batch(
        kernel,
        &Offsets::new("test", &values, &offsets, out.len()),
        &mut out,
    );
    assert_digests(kernel, "column row", rows, &out);
}

/// Short rows of wider mixes in buckets (`Scheduler::run_buckets`), from
/// slices and from a column: batches of `BUCKET_MIN_ROWS` rows and more
/// (none a multiple of 16), every block count 1 to 4 with the padding
/// edges and the first length past a lane's buffer (248), with long rows
/// among them (queued as met), and so many that a run of buckets ends at
/// its `BUCKET_LONGS`-th and a new one starts, on every kernel, against
/// `Md5::digest`.
#[test]
fn mixed_short_rows_in_buckets() {
    use crate::multi::scheduler::BUCKET_LONGS;
    use crate::multi::tuning::BUCKET_MIN_ROWS;
    let mut rng = Rng(0x6d69_7865_6402);
    let mixes: &[&[usize]] = &[
        &[0, 1, 55, 56, 63, 64, 119, 120, 183, 184, 200, 247, 248],
        &[8, 30, 55, 56, 64],
    ];
    let counts: &[usize] = if cfg!(miri) {
        &[BUCKET_MIN_ROWS + 4]
    } else {
        &[BUCKET_MIN_ROWS + 1, 1537, 2 * 1536 + 300]
    };
    for_each_kernel(|k| {
        for lens in mixes {
            for &count in counts {
                check_both(k, &rows(&mut rng, count, lens, &[]));
                check_both(k, &rows(&mut rng, count, lens, &[3, 200, count - 2]));
            }
            // Every third row long: runs of buckets end at their
            // `BUCKET_LONGS`-th long row, the last with fewer.
            let count = if cfg!(miri) {
                3 * BUCKET_LONGS / 2
            } else {
                3 * (2 * BUCKET_LONGS + 5)
            };
            let long: Vec<usize> = (0..count).step_by(3).collect();
            check_both(k, &rows(&mut rng, count, lens, &long));
        }
    });
}
