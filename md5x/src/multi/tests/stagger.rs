//! Staggered lanes (`scheduler/stagger.rs`): equal whole-block messages a
//! multiple of 4 KiB apart, hashed with their lanes started up to a spread
//! less one block apart, against `Md5::digest`: messages shorter than the
//! stagger (some lanes end before others start), as long as it, and
//! longer, on every kernel, in sets that fill the lanes and that do not.

use super::*;

/// `kernel` with every crowded set staggered by `spread` delays.
fn forced(kernel: Kernel, spread: u16) -> Kernel {
    kernel.tuned(kernel.tuning.with_stagger(Stagger::forced(spread)))
}

/// `count` messages of `blocks` blocks, each `apart` bytes after the one
/// before from a page-aligned start, through `digest_batch(kernel)`.
fn check_apart(kernel: Kernel, data: &[u8], count: usize, blocks: usize, apart: usize) {
    check_apart_at(kernel, data, 0, count, blocks, apart)
}

/// [`check_apart`] from `shift` bytes past a page (16: a large `Vec`'s
/// start).
fn check_apart_at(
    kernel: Kernel,
    data: &[u8],
    shift: usize,
    count: usize,
    blocks: usize,
    apart: usize,
) {
    let base = data.as_ptr().align_offset(4096) + shift;
    let msgs: Vec<&[u8]> = (0..count)
        .map(|i| &data[base + i * apart..][..64 * blocks])
        .collect();
    let mut out = vec![[0u8; 16]; count];
    digest_batch(kernel, &Slices(&msgs), &mut out);
    for (i, (m, got)) in msgs.iter().zip(&out).enumerate() {
        assert_eq!(
            got[..],
            Md5::digest(m)[..],
            "kernel {}: message {i} of {count}, {blocks} blocks, {apart} bytes apart",
            kernel.name()
        );
    }
}

/// Every forced spread against message lengths below, at and above it, in
/// sets of every few lane counts.
#[test]
fn staggered_lanes_every_kernel() {
    let mut rng = Rng(0x7374_6167_6701);
    let (spreads, lens): (&[u16], &[usize]) = if cfg!(miri) {
        (&[3], &[1, 4])
    } else {
        (&[2, 8, 32, 64], &[1, 2, 7, 8, 9, 31, 33, 70])
    };
    let most = widest();
    let apart = 8192;
    let data = rng.bytes(apart * (most + 1) + 4096);
    for &spread in spreads {
        for_each_kernel(|k| {
            let k = forced(k, spread);
            for count in [2, k.group_lanes() + 1, k.lanes(), k.lanes() + 3] {
                for &blocks in lens {
                    check_apart(k, &data, count.min(most), blocks, apart);
                }
            }
        });
    }
}

/// Every tuning row's own rule, on messages long enough for it (AVX-512
/// staggers these; the others run them in lockstep), back to back from a
/// page and from 16 bytes past one (a `Vec`'s start).
#[test]
fn staggered_lanes_by_every_row() {
    if cfg!(miri) {
        return;
    }
    let mut rng = Rng(0x7374_6167_6702);
    let data = rng.bytes(64 * 128 * 32 * 36 + 4096);
    for row in ROWS {
        for_each_kernel(|k| {
            let k = k.tuned(row);
            for blocks in [64, 1024, 128 * 32] {
                for count in [k.lanes(), k.lanes() - 1] {
                    for shift in [0, 16] {
                        if 64 * blocks * count <= data.len() - 4096 - shift {
                            check_apart_at(k, &data, shift, count, blocks, 64 * blocks);
                        }
                    }
                }
            }
        });
    }
}

/// Which sets the rule staggers: crowded and long, not spread out or short.
#[test]
fn stagger_delays() {
    use crate::multi::scheduler::stagger_delays as delays;
    let page = vec![0u8; 64 * 4096 + 4096];
    let base = page.as_ptr().wrapping_add(page.as_ptr().align_offset(4096));
    let ptrs: Vec<*const u8> = (0..32).map(|i| base.wrapping_add(i * 8192)).collect();
    // Only `delays` runs: no kernel is called, so any row and ISA will do.
    #[cfg(md5_sse2)]
    let kernel = |isa, tuning| Kernel {
        isa,
        tuning,
        avx512bw: false,
    };
    // Crowded and at least `blocks` long: `lanes` distinct delays; a block
    // shorter, none.
    #[cfg(md5_sse2)]
    let staggers = |kernel: Kernel, lanes: usize, blocks: usize| {
        let d = delays(kernel, &ptrs, blocks).expect("crowded and long");
        let mut seen: Vec<usize> = d[..lanes].to_vec();
        seen.sort_unstable();
        assert_eq!(seen, (0..lanes).collect::<Vec<_>>());
        assert!(delays(kernel, &ptrs, blocks - 1).is_none(), "too short");
    };
    // AVX-512: 32 delays, none for sets of more than 32 lanes; AVX2: 24
    // where the row staggers it, lockstep elsewhere.
    #[cfg(md5_sse2)]
    for row in ROWS {
        staggers(kernel(Isa::Avx512, row), 32, 128 * 31);
        let wide: Vec<*const u8> = (0..64).map(|i| base.wrapping_add(i * 4096)).collect();
        assert!(
            delays(kernel(Isa::Avx512, row), &wide, 1 << 20).is_none(),
            "wide sets run in lockstep"
        );
        if row.avx2_stagger.spread > 1 {
            staggers(kernel(Isa::Avx2, row), 24, 16 * 23);
        } else {
            assert!(
                delays(kernel(Isa::Avx2, row), &ptrs, 1 << 20).is_none(),
                "AVX2 runs in lockstep"
            );
        }
    }
    // Starts 16 bytes into a line (a `Vec`'s): a row with a split stagger
    // staggers them from that many blocks a delay, the spread shrinking
    // with the length; no row has one now (the AVX-512 kernel reads them
    // as whole lines where its row says), so every row leaves them as
    // starts on a line.
    #[cfg(md5_sse2)]
    {
        let split: Vec<*const u8> = ptrs.iter().map(|p| p.wrapping_add(16)).collect();
        let row = Tuning {
            avx512_stagger: Stagger {
                split_blocks_per_delay: 16,
                ..Tuning::ZEN4.avx512_stagger
            },
            ..Tuning::ZEN4
        };
        let d = delays(kernel(Isa::Avx512, row), &split, 64).expect("split starts, 64 blocks");
        assert_eq!(d[..32].iter().max(), Some(&4));
        assert!(
            delays(kernel(Isa::Avx512, row), &split, 15).is_none(),
            "too short"
        );
        for row in ROWS {
            assert!(delays(kernel(Isa::Avx512, row), &split, 64).is_none());
        }
    }
    // Spread out (320 bytes apart): never, even when forced.
    let apart: Vec<*const u8> = (0..32).map(|i| base.wrapping_add(i * 320)).collect();
    let portable = forced(
        Kernel {
            isa: Isa::Portable,
            tuning: Tuning::DEFAULT,
            avx512bw: false,
        },
        8,
    );
    assert!(delays(portable, &apart, 4).is_none());
    // Forced, short: delays below the spread, each used 4 times.
    let d = delays(portable, &ptrs, 1).expect("forced");
    assert!(d[..32].iter().all(|&d| d < 8));
    assert!((0..8).all(|x| d[..32].iter().filter(|&&d| d == x).count() == 4));
}

/// `Lanes` staggers crowded equal chunks by the same rule, forced here:
/// three rounds of chunks a multiple of 4 KiB apart (from fresh lanes,
/// then from running ones), one round with a lane's chunk shorter (in
/// lockstep), then each lane's tail, against `Md5::digest` of each stream.
#[test]
fn lanes_staggered_every_kernel() {
    let mut rng = Rng(0x7374_6167_6703);
    let (spreads, lens): (&[u16], &[usize]) = if cfg!(miri) {
        (&[3], &[2])
    } else {
        (&[2, 8, 32], &[1, 7, 9, 33])
    };
    let apart = 8192;
    let most = Lanes::MAX;
    let data = rng.bytes(apart * (most + 4) + 4096);
    let base = data.as_ptr().align_offset(4096);
    for &spread in spreads {
        for_each_kernel(|k| {
            let k = forced(k, spread);
            for count in [2, k.group_lanes() + 1, k.lanes().min(most)] {
                for &blocks in lens {
                    let chunk = |lane: usize, round: usize, len: usize| {
                        &data[base + lane * apart + round * 64 * blocks..][..len]
                    };
                    let mut lanes = Lanes::with_kernel(k, count);
                    let mut streams = vec![Vec::new(); count];
                    for round in 0..4 {
                        let chunks: Vec<&[u8]> = (0..count)
                            .map(|l| {
                                let short = round == 3 && l == count / 2;
                                chunk(l, round, 64 * (blocks - usize::from(short)))
                            })
                            .collect();
                        for (s, c) in streams.iter_mut().zip(&chunks) {
                            s.extend_from_slice(c);
                        }
                        lanes.update(&chunks);
                    }
                    for (l, s) in streams.iter_mut().enumerate() {
                        let tail = &data[l * 7..l * 7 + 10];
                        s.extend_from_slice(tail);
                        assert_eq!(
                            lanes.finalize_lane(l, tail)[..],
                            Md5::digest(&s)[..],
                            "kernel {}: lane {l} of {count}, {blocks} blocks, spread {spread}",
                            k.name()
                        );
                    }
                }
            }
        });
    }
}
