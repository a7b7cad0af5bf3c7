//! [`Lanes`] on every kernel: random chunking against `Md5::digest`, and
//! chunks refused.

use super::*;

/// The streaming form against `Md5` fed the same pieces, with random
/// chunk lengths per lane and call (idle lanes included), lanes that
/// finish early and restart, and random final tails.
#[test]
fn kernels_lanes_random_chunking() {
    let mut rng = Rng(0x6d75_6c74_6905);
    for_each_kernel(|k| {
        for count in [1, 2, 3, 4, 5, 8, 9, 15, 16, 17, 31, 33, 48, 49, 64] {
            let mut lanes = Lanes::with_kernel(k, count);
            let mut refs: Vec<Md5> = (0..count).map(|_| Md5::new()).collect();
            let rounds = 40 / SHRINK.min(8);
            for round in 0..rounds {
                let chunks: Vec<Vec<u8>> = (0..count)
                    .map(|_| {
                        let blocks = match rng.below(4) {
                            0 => 0,
                            1 => 1,
                            _ => rng.below(40 / SHRINK.min(8)),
                        };
                        rng.bytes(64 * blocks)
                    })
                    .collect();
                lanes.update(&chunks);
                for (h, c) in refs.iter_mut().zip(&chunks) {
                    h.update(c);
                }
                // Now and then, finish a lane with a random tail.
                if rng.below(3) == 0 || round == rounds - 1 {
                    let lane = rng.below(count);
                    let n = rng.below(200);
                    let tail = rng.bytes(n);
                    refs[lane].update(&tail);
                    let want = refs[lane].finalize_reset();
                    let got = lanes.finalize_lane(lane, &tail);
                    assert_eq!(got[..], want[..], "{} count {count} lane {lane}", k.name());
                }
            }
            for (lane, h) in refs.into_iter().enumerate() {
                assert_eq!(lanes.finalize_lane(lane, b"")[..], h.finalize()[..]);
            }
        }
    });
}

#[test]
#[should_panic(expected = "not a multiple of 64")]
fn lanes_reject_partial_chunks() {
    Lanes::new(2).update(&[&[0u8; 64][..], &[0u8; 65][..]]);
}
