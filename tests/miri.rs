//! Every path through `unsafe` code that Miri can run, on inputs small enough
//! for it (`.ci/run` runs this file under `cargo miri test`, with and without
//! AVX2): the single-stream backend (`soft` under Miri, whatever the build
//! selects otherwise) over every padding case, `digest_many_into` with each
//! multi-buffer kernel over batches that make the scheduler refill lanes
//! or run its sets past the queue (mixed short rows in buckets, sets of one
//! length with an end, runs of sets of one whole-block length),
//! `digest_offsets_into` (rows read straight from a column's buffer) and the
//! pieces forms the same way, the hex and base64 encoders, and `Lanes` with
//! unequal, empty and idle chunks in one and in several lane groups. The
//! oracle is md-5 0.10.6. In a normal test run it takes milliseconds.

use md5::multi::{self, Lanes};
use md5::{Digest, Md5};

use md5x_testkit::Rng;

fn upstream(data: &[u8]) -> [u8; 16] {
    upstream::Md5::digest(data).into()
}

/// Lengths around every padding edge of the first three blocks.
const EDGES: &[usize] = &[
    0, 1, 2, 55, 56, 57, 63, 64, 65, 119, 120, 121, 127, 128, 129, 183, 184, 192,
];

#[test]
fn single_stream_padding_and_pieces() {
    let mut rng = Rng(0x6d69_7269_0001);
    let data = rng.bytes(200);
    for &n in EDGES {
        let msg = &data[..n];
        assert_eq!(Md5::digest(msg)[..], upstream(msg), "{n} bytes");
        // The same bytes in two pieces, through a clone.
        let cut = rng.below(n + 1);
        let mut h = Md5::new();
        h.update(&msg[..cut]);
        let mut h = h.clone();
        h.update(&msg[cut..]);
        assert_eq!(h.finalize()[..], upstream(msg), "{n} bytes cut at {cut}");
    }
    // Several blocks in one call of the block function.
    let mut state = [1, 2, 3, 4];
    let mut soft = state;
    let blocks: Vec<[u8; 64]> = data
        .chunks_exact(64)
        .map(|c| c.try_into().unwrap())
        .collect();
    md5::compress(&mut state, &blocks);
    md5x_block::soft::compress(&mut soft, &blocks);
    assert_eq!(state, soft);
}

#[test]
fn digest_many_every_kernel() {
    let mut rng = Rng(0x6d69_7269_0002);
    // More messages than the widest kernel has lanes, lengths mixed so that
    // lanes end at different blocks and get refilled. Message `i` starts at
    // byte `i` of `data`, which is long enough for the last and longest.
    let widest = multi::kernel_choice::kernels()
        .map(multi::kernel_choice::lanes)
        .max()
        .unwrap();
    let count = 2 * widest + 3;
    let lens: Vec<usize> = (0..count)
        .map(|i| EDGES[(i * 7) % EDGES.len()] + 64 * (i % 3))
        .collect();
    let data = rng.bytes(count + EDGES[EDGES.len() - 1] + 128);
    let msgs: Vec<&[u8]> = lens
        .iter()
        .enumerate()
        .map(|(i, &n)| &data[i..i + n])
        .collect();
    let want: Vec<[u8; 16]> = msgs.iter().map(|m| upstream(m)).collect();
    let mut out = vec![[0; 16]; msgs.len()];
    multi::digest_many_into(&msgs, &mut out);
    assert_eq!(out, want, "selected kernel {}", multi::backend());
    let mut ran = Vec::new();
    for kernel in multi::kernel_choice::kernels() {
        for count in [0, 1, 5, msgs.len()] {
            let mut out = vec![[0; 16]; count];
            multi::kernel_choice::digest_many_into(kernel, &msgs[..count], &mut out);
            assert_eq!(out, want[..count], "kernel {kernel}, {count} messages");
        }
        ran.push(kernel);
    }
    println!("multi kernels run: {ran:?}");
    assert!(ran.contains(&"portable") && ran.contains(&multi::backend()));
}

/// The scheduler's set paths past the queue, on every kernel: full sets of
/// rows straddling 55 bytes (one and two blocks mixed, sorted within the
/// set), and equal whole-block messages 4 KiB apart with their lanes
/// staggered (forced: at their length the rule would not), shorter than
/// the stagger and longer.
#[test]
fn mixed_sets_and_staggered_lanes_every_kernel() {
    let mut rng = Rng(0x6d69_7269_0005);
    let widest = multi::kernel_choice::kernels()
        .map(multi::kernel_choice::lanes)
        .max()
        .unwrap();
    let rows: Vec<Vec<u8>> = (0..widest + 5)
        .map(|_| {
            let n = 8 + rng.below(57);
            rng.bytes(n)
        })
        .collect();
    let data = rng.bytes(4096 * (widest + 1));
    let base = data.as_ptr().align_offset(4096);
    for name in multi::kernel_choice::kernels() {
        let kernel = multi::kernel_choice::Choice::new(name).stagger(6);
        let want: Vec<[u8; 16]> = rows.iter().map(|m| upstream(m)).collect();
        let mut out = vec![[0; 16]; rows.len()];
        multi::kernel_choice::digest_many_into(kernel, &rows, &mut out);
        assert_eq!(out, want, "kernel {kernel}, rows of 8..=64 bytes");
        for blocks in [2, 9] {
            let msgs: Vec<&[u8]> = (0..multi::kernel_choice::lanes(kernel))
                .map(|i| &data[base + 4096 * i..][..64 * blocks])
                .collect();
            let want: Vec<[u8; 16]> = msgs.iter().map(|m| upstream(m)).collect();
            let mut out = vec![[0; 16]; msgs.len()];
            multi::kernel_choice::digest_many_into(kernel, &msgs, &mut out);
            assert_eq!(out, want, "kernel {kernel}, {blocks} blocks, staggered");
        }
    }
}

/// The scheduler's other paths past the queue, on every kernel: short
/// rows of mixed block counts in buckets (enough rows left for them), with
/// two longer messages queued among them, and a full set of one length
/// with an end (whole blocks in place, then the ends copied).
#[test]
fn buckets_and_tailed_sets_every_kernel() {
    let mut rng = Rng(0x6d69_7269_0008);
    let mut rows: Vec<Vec<u8>> = (0..260)
        .map(|_| {
            let n = rng.below(121);
            rng.bytes(n)
        })
        .collect();
    rows[7] = rng.bytes(300);
    rows[200] = rng.bytes(301);
    let want: Vec<[u8; 16]> = rows.iter().map(|m| upstream(m)).collect();
    for kernel in multi::kernel_choice::kernels() {
        let mut out = vec![[0; 16]; rows.len()];
        multi::kernel_choice::digest_many_into(kernel, &rows, &mut out);
        assert_eq!(out, want, "kernel {kernel}, rows of 0..=120 bytes");
        let tailed: Vec<Vec<u8>> = (0..multi::kernel_choice::lanes(kernel))
            .map(|_| rng.bytes(311))
            .collect();
        let want: Vec<[u8; 16]> = tailed.iter().map(|m| upstream(m)).collect();
        let mut out = vec![[0; 16]; tailed.len()];
        multi::kernel_choice::digest_many_into(kernel, &tailed, &mut out);
        assert_eq!(out, want, "kernel {kernel}, equal messages of 311 bytes");
    }
}

/// Runs of full sets of equal 64-byte messages read straight from the
/// batch (`scheduler/equal_sets.rs`), each set's first block loaded while
/// the set before it ends, on every kernel: three sets, then a message of
/// another length in a fourth.
#[test]
fn runs_of_equal_sets_every_kernel() {
    let mut rng = Rng(0x6d69_7269_0009);
    for name in multi::kernel_choice::kernels() {
        let kernel = multi::kernel_choice::Choice::new(name);
        let w = kernel.short_lanes();
        let mut msgs: Vec<Vec<u8>> = (0..3 * w + 2).map(|_| rng.bytes(64)).collect();
        msgs[3 * w + 1] = rng.bytes(65);
        let want: Vec<[u8; 16]> = msgs.iter().map(|m| upstream(m)).collect();
        let mut out = vec![[0; 16]; msgs.len()];
        multi::kernel_choice::digest_many_into(kernel, &msgs, &mut out);
        assert_eq!(out, want, "kernel {kernel}, runs of 64-byte messages");
    }
}

/// A column in Arrow's layout, its offsets starting above 0 and its rows
/// ending at the very end of `values` (so that a read past a row would
/// leave the buffer), on every kernel; then the same messages with a
/// suffix, a prefix and as lists of pieces, and the digests encoded.
#[test]
fn offsets_pieces_and_encoders_every_kernel() {
    let mut rng = Rng(0x6d69_7269_0004);
    let widest = multi::kernel_choice::kernels()
        .map(multi::kernel_choice::lanes)
        .max()
        .unwrap();
    let rows = widest + 3;
    let lens: Vec<usize> = (0..rows).map(|i| EDGES[(i * 5) % EDGES.len()]).collect();
    let base = 7;
    let values = rng.bytes(base + lens.iter().sum::<usize>());
    let mut offsets = vec![base as u32];
    for &n in &lens {
        offsets.push(offsets[offsets.len() - 1] + n as u32);
    }
    let msgs: Vec<&[u8]> = offsets
        .windows(2)
        .map(|w| &values[w[0] as usize..w[1] as usize])
        .collect();
    let want: Vec<[u8; 16]> = msgs.iter().map(|m| upstream(m)).collect();
    let affix = &values[..70];
    let after: Vec<[u8; 16]> = msgs
        .iter()
        .map(|m| upstream(&[m, affix].concat()))
        .collect();
    let before: Vec<[u8; 16]> = msgs
        .iter()
        .map(|m| upstream(&[affix, m].concat()))
        .collect();
    let lists: Vec<[&[u8]; 2]> = msgs.iter().map(|m| [affix, *m]).collect();
    let mut out = vec![[0; 16]; rows];
    for kernel in multi::kernel_choice::kernels() {
        multi::kernel_choice::digest_offsets_into(kernel, &values, &offsets, &mut out);
        assert_eq!(out, want, "kernel {kernel}, offsets");
    }
    // The pieces forms share the scheduler: the selected kernel only.
    multi::digest_many_suffixed_into(&msgs, affix, &mut out);
    assert_eq!(out, after, "suffixed");
    multi::digest_many_prefixed_into(affix, &msgs, &mut out);
    assert_eq!(out, before, "prefixed");
    multi::digest_pieces_into(&lists, &mut out);
    assert_eq!(out, before, "pieces");
    let mut hex = vec![[0; 32]; 3];
    multi::hex_into(&want[..3], &mut hex);
    let mut b64 = vec![[0; 24]; 3];
    multi::base64_into(&want[..3], &mut b64);
    for i in 0..3 {
        let oracle: String = want[i].iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex[i][..], *oracle.as_bytes());
        assert_eq!(b64[i][22..], *b"==");
    }
    assert_eq!(&b64[1][..22], &multi_b64_of(&want[1])[..22]);
}

/// Base64 of a digest through the single-digest path (an odd count skips
/// the pairwise one), to check the pairwise result against.
fn multi_b64_of(d: &[u8; 16]) -> [u8; 24] {
    let mut one = [[0; 24]];
    multi::base64_into(&[*d], &mut one);
    one[0]
}

#[test]
fn lanes_unequal_empty_and_idle() {
    let mut rng = Rng(0x6d69_7269_0003);
    let data = rng.bytes(64 * 4 + 100);
    // One lane group, and more lanes than the kernel is wide.
    for count in [1, 3, multi::lanes() + 1] {
        let count = count.min(Lanes::MAX);
        let mut lanes = Lanes::new(count);
        let mut refs = vec![Md5::new(); count];
        for round in 0..4 {
            let chunks: Vec<&[u8]> = (0..count)
                .map(|lane| {
                    // Lane 0 stays idle in round 1; the others take 0 to 3
                    // blocks.
                    let blocks = if lane == 0 && round == 1 {
                        0
                    } else {
                        rng.below(4)
                    };
                    let at = rng.below(100);
                    &data[at..at + 64 * blocks]
                })
                .collect();
            for (r, c) in refs.iter_mut().zip(&chunks) {
                r.update(c);
            }
            lanes.update(&chunks);
            let lane = rng.below(count);
            if round == 2 {
                lanes.reset_lane(lane);
                refs[lane] = Md5::new();
            } else {
                let tail = &data[..rng.below(70)];
                refs[lane].update(tail);
                let got = lanes.finalize_lane(lane, tail);
                assert_eq!(
                    got[..],
                    refs[lane].finalize_reset()[..],
                    "{count} lanes, lane {lane}"
                );
            }
        }
        for (lane, r) in refs.into_iter().enumerate() {
            assert_eq!(
                lanes.finalize_lane(lane, &[])[..],
                r.finalize()[..],
                "lane {lane}"
            );
        }
    }
}

/// Under Miri the multi-buffer kernel follows the compile-time target
/// features: SSE2 on x86_64, AVX2 with `-Ctarget-feature=+avx2`. Pins that,
/// so that the Miri job cannot silently test only the portable kernel.
#[test]
#[cfg(all(miri, target_arch = "x86_64"))]
fn miri_runs_the_simd_kernels() {
    let want = if cfg!(target_feature = "avx2") {
        "avx2"
    } else {
        "sse2"
    };
    assert_eq!(multi::backend(), want);
    assert!(multi::kernel_choice::kernels().any(|k| k == want));
}
