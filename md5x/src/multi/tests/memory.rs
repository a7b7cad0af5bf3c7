//! Batches past the caches: outputs written past them, and long messages
//! read from memory at the width for memory.

use super::*;

/// A batch whose digests fill 4 MiB and more, written past the caches
/// (`multi/past_cache.rs`): full sets of 32-byte rows (hashed at once), then
/// rows of random lengths. Every kernel writes its output 13 bytes into a
/// buffer (plain stores at both ends of every set, streaming ones between);
/// the kernel this CPU runs also at 0 and 8. Only where outputs go past the
/// caches (x86_64, not under Miri): elsewhere this would be one more large
/// batch, minutes under qemu.
#[test]
#[cfg_attr(
    any(miri, not(md5_sse2)),
    ignore = "no output goes past the caches here"
)]
fn kernels_batches_past_the_caches() {
    let mut rng = Rng(0x6d75_6c74_690a);
    let count = (4 << 20) / 16 + 1000;
    let inputs: Vec<Vec<u8>> = (0..count)
        .map(|i| {
            let n = if i < count / 2 { 32 } else { rng.below(200) };
            rng.bytes(n)
        })
        .collect();
    let want: Vec<[u8; 16]> = inputs.iter().map(|m| Md5::digest(m).into()).collect();
    let chosen = Kernel::detect();
    for_each_kernel(|k| {
        let ats: &[usize] = if k == chosen { &[0, 8, 13] } else { &[13] };
        for &at in ats {
            let mut buf = vec![0x55u8; 16 * count + 16];
            let (out, _) = buf[at..at + 16 * count].as_chunks_mut::<16>();
            digest_batch(k, &Slices(&inputs), out);
            assert!(out.iter().eq(&want), "kernel {}, output at {at}", k.name());
            assert!(buf[..at]
                .iter()
                .chain(&buf[at + 16 * count..])
                .all(|&b| b == 0x55));
        }
    });
}

/// Which batches run at the width for memory (`Kernel::memory_lanes`):
/// long messages of more than 6 MiB in all, not fewer bytes, not rows.
#[test]
fn batches_from_memory() {
    use crate::multi::scheduler::from_memory;
    assert!(from_memory(256 << 10, 64), "64 × 256 KiB");
    assert!(from_memory(7 << 20, 2), "2 × 7 MiB");
    assert!(from_memory(4096, 4096), "4,096 × 4 KiB");
    assert!(from_memory(64 << 10, 97), "6 MiB and a part");
    assert!(!from_memory(64 << 10, 96), "6 MiB");
    assert!(!from_memory(64 << 10, 64), "4 MiB");
    assert!(!from_memory(32, 1 << 20), "32-byte rows");
    assert!(!from_memory(0, 0), "nothing");
}

/// Batches past the caches at the width for memory, where a kernel has
/// one (AVX-512 where the tuning row says; the 48- and 64-lane test
/// kernels): 13 MiB of 52 messages of 240 to 272 KiB, whole blocks and
/// not, judged by the first (mixed, so from the queue's window); then 80
/// equal ones, judged by the first direct set.
#[test]
#[cfg_attr(miri, ignore = "batches of 13 to 20 MiB")]
fn kernels_batches_from_memory() {
    let mut kernels = Vec::new();
    for_each_kernel(|k| {
        if k.memory_lanes() < k.lanes() {
            kernels.push(k);
        }
    });
    if kernels.is_empty() {
        return; // off x86_64: every kernel keeps one width
    }
    let mut rng = Rng(0x6d75_6c74_690b);
    let mixed: Vec<Vec<u8>> = (0..52)
        .map(|i| {
            let n = (240 << 10) + rng.below(32 << 10);
            rng.bytes(if i % 3 == 0 { n & !63 } else { n })
        })
        .collect();
    let equal: Vec<Vec<u8>> = (0..80).map(|_| rng.bytes(256 << 10)).collect();
    for k in kernels {
        check(k, &mixed);
        check(k, &equal);
    }
}
