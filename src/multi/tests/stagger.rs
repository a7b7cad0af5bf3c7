//! Staggered lanes (`scheduler/stagger.rs`): equal whole-block messages a
//! multiple of 4 KiB apart, hashed with their lanes started up to a spread
//! less one block apart, against `Md5::digest`: messages shorter than the
//! stagger (some lanes end before others start), as long as it, and
//! longer, on every kernel, in sets that fill the lanes and that do not.

use super::*;
use crate::multi::scheduler::set_spread;

/// `count` messages of `blocks` blocks, each `apart` bytes after the one
/// before from a page-aligned start, through `digest_batch(kernel)`.
fn check_apart(kernel: Kernel, data: &[u8], count: usize, blocks: usize, apart: usize) {
    let base = data.as_ptr().align_offset(4096);
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
/// sets of every few lane counts. The spread is global: tests running
/// meanwhile still get right digests, only a different schedule.
#[test]
fn staggered_lanes_every_kernel() {
    let mut rng = Rng(0x7374_6167_6701);
    let (spreads, lens): (&[usize], &[usize]) = if cfg!(miri) {
        (&[3], &[1, 4])
    } else {
        (&[2, 8, 32, 64], &[1, 2, 7, 8, 9, 31, 33, 70])
    };
    let most = widest();
    let apart = 8192;
    let data = rng.bytes(apart * (most + 1) + 4096);
    let before = set_spread(0);
    for &spread in spreads {
        set_spread(spread);
        for_each_kernel(|k| {
            for count in [2, k.group_lanes() + 1, k.lanes(), k.lanes() + 3] {
                for &blocks in lens {
                    check_apart(k, &data, count.min(most), blocks, apart);
                }
            }
        });
    }
    set_spread(before);
}

/// The kernels' own rule, on messages long enough for it (AVX-512
/// staggers these; the others run them in lockstep), 4 KiB apart and
/// back to back.
#[test]
fn staggered_lanes_by_the_rule() {
    if cfg!(miri) {
        return;
    }
    let mut rng = Rng(0x7374_6167_6702);
    let blocks = 128 * 32;
    let data = rng.bytes(64 * blocks * 36 + 4096);
    for_each_kernel(|k| {
        for count in [k.lanes(), k.lanes() - 1] {
            if 64 * blocks * count <= data.len() - 4096 {
                check_apart(k, &data, count, blocks, 64 * blocks);
            }
        }
    });
}

/// Which sets the rule staggers: crowded and long, not spread out or short.
#[test]
fn stagger_delays() {
    use crate::multi::scheduler::stagger_delays as delays;
    let page = vec![0u8; 64 * 4096 + 4096];
    let base = page.as_ptr().wrapping_add(page.as_ptr().align_offset(4096));
    let ptrs: Vec<*const u8> = (0..32).map(|i| base.wrapping_add(i * 8192)).collect();
    let before = set_spread(0);
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
    // AVX-512: 32 delays, none for sets of more than 32 lanes; AVX2: 24 on
    // AMD, lockstep on Intel.
    #[cfg(md5_sse2)]
    {
        staggers(Kernel::Avx512, 32, 128 * 31);
        let wide: Vec<*const u8> = (0..64).map(|i| base.wrapping_add(i * 4096)).collect();
        assert!(
            delays(Kernel::Avx512, &wide, 1 << 20).is_none(),
            "wide sets run in lockstep"
        );
        if crate::multi::kernel::avx2::staggers() {
            staggers(Kernel::Avx2, 24, 16 * 23);
        } else {
            assert!(
                delays(Kernel::Avx2, &ptrs, 1 << 20).is_none(),
                "AVX2 runs in lockstep"
            );
        }
    }
    // Spread out (320 bytes apart): never, even when forced.
    let apart: Vec<*const u8> = (0..32).map(|i| base.wrapping_add(i * 320)).collect();
    set_spread(8);
    assert!(delays(Kernel::Portable, &apart, 4).is_none());
    // Forced, short: delays below the spread, each used 4 times.
    let d = delays(Kernel::Portable, &ptrs, 1).expect("forced");
    assert!(d[..32].iter().all(|&d| d < 8));
    assert!((0..8).all(|x| d[..32].iter().filter(|&&d| d == x).count() == 4));
    set_spread(before);
}

/// `Lanes` staggers crowded equal chunks by the same rule, forced here:
/// three rounds of chunks a multiple of 4 KiB apart (from fresh lanes,
/// then from running ones), one round with a lane's chunk shorter (in
/// lockstep), then each lane's tail, against `Md5::digest` of each stream.
#[test]
fn lanes_staggered_every_kernel() {
    let mut rng = Rng(0x7374_6167_6703);
    let (spreads, lens): (&[usize], &[usize]) = if cfg!(miri) {
        (&[3], &[2])
    } else {
        (&[2, 8, 32], &[1, 7, 9, 33])
    };
    let apart = 8192;
    let most = Lanes::MAX;
    let data = rng.bytes(apart * (most + 4) + 4096);
    let base = data.as_ptr().align_offset(4096);
    let before = set_spread(0);
    for &spread in spreads {
        set_spread(spread);
        for_each_kernel(|k| {
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
    set_spread(before);
}
