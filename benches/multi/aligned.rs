//! Equal messages whose starts are a multiple of 4 KiB apart, as S3 parts,
//! fixed-size file chunks and page-aligned buffers are, beside the same
//! messages each 320 bytes further along: lanes that read in lockstep from
//! addresses 4 KiB apart share L1 sets (and, 128 KiB apart, L2 sets).
//!
//! Each layout pair prints every contender's throughput on both layouts,
//! its ratio to the single stream over the same layout, and the aligned
//! layout's speed over the offset one (the need: ≥ 0.9). Shapes: 64 × 4,
//! 16 and 64 KiB (`aligned 4K`, `aligned 16K`, `aligned 64K`) and 128 × 7
//! MiB (`aligned 7M`, 896 MiB, run only when a filter names it), each in
//! two layouts: from a page (`page`), and from 16 bytes past one (`vec`),
//! where glibc puts a large `Vec<u8>`'s bytes, so that each block spans
//! two cache lines. Beside the batch contenders, `Lanes` fed each message
//! as one stream. `cargo test --bench multi` checks every contender's
//! digests on small layouts of the same kinds.

use super::{measure, Contender};
use md5::multi::{kernel_choice, Lanes};
use md5::{Digest, Md5};
use std::hint::black_box;

/// `count` messages of `len` bytes in one buffer, the first `shift` bytes
/// past a page, each `gap` bytes after the previous one's start.
struct Layout {
    data: Vec<u8>,
    /// Where the first page starts in `data`.
    base: usize,
    count: usize,
    len: usize,
    gap: usize,
}

impl Layout {
    fn new(count: usize, len: usize, gap: usize, shift: usize) -> Self {
        assert!(gap >= len && shift < 4096);
        let total = gap * count + 4096;
        // Cheap, distinct bytes: a counter mixed per 8 bytes.
        let data: Vec<u8> = (0..total / 8)
            .flat_map(|i: usize| (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15).to_le_bytes())
            .collect();
        let base = data.as_ptr().align_offset(4096) + shift;
        Self {
            data,
            base,
            count,
            len,
            gap,
        }
    }

    fn messages(&self) -> Vec<&[u8]> {
        (0..self.count)
            .map(|i| {
                let at = self.base + i * self.gap;
                &self.data[at..at + self.len]
            })
            .collect()
    }
}

/// One pair of layouts: the messages a multiple of 4 KiB apart, and each
/// 320 bytes further along than the one before.
struct Pair {
    name: String,
    aligned: Layout,
    offset: Layout,
}

/// The pair `count` × `len` from a page (`vec`: from 16 bytes past one).
fn pair(name: &str, count: usize, len: usize, vec: bool) -> Pair {
    let apart = len.next_multiple_of(4096);
    let (shift, layout) = if vec { (16, "vec") } else { (0, "page") };
    Pair {
        name: format!("{name} {layout}"),
        aligned: Layout::new(count, len, apart, shift),
        offset: Layout::new(count, len, apart + 320, shift),
    }
}

/// Every layout pair `only` selects (the 7 MiB one only when named), full
/// size when `timing`, else small ones of the same kinds for checking.
pub(super) fn run_all(timing: bool, only: &[String], contenders: &[Contender]) {
    let named = |n: &str| only.iter().any(|o| n.contains(o.as_str()));
    let mut pairs = Vec::new();
    let shapes = [
        ("aligned 4K: 64 x 4 KiB", 64, 4 << 10, 4 << 10, false),
        ("aligned 16K: 64 x 16 KiB", 64, 16 << 10, 8 << 10, false),
        ("aligned 64K: 64 x 64 KiB", 64, 64 << 10, 8 << 10, false),
        ("aligned 7M: 128 x 7 MiB", 128, 7 << 20, 64 << 10, true),
    ];
    for (name, count, len, small, only_named) in shapes {
        let selected = named(name) || only.is_empty() && !only_named;
        for vec in [false, true] {
            if selected || named(&format!("{name} {}", ["page", "vec"][usize::from(vec)])) {
                pairs.push(pair(name, count, if timing { len } else { small }, vec));
            }
        }
    }
    // The kernels again with their lanes in lockstep, to show what
    // staggering does; `MD5_BENCH_STAGGER=1,8,32` runs them at those
    // spreads instead (1: lockstep).
    let spreads: Vec<usize> = std::env::var("MD5_BENCH_STAGGER")
        .map(|v| v.split(',').filter_map(|s| s.parse().ok()).collect())
        .unwrap_or_else(|_| vec![1]);
    let mut all: Vec<Contender> = vec![Contender {
        name: "Lanes".into(),
        run: Box::new(lanes),
    }];
    for kernel in kernel_choice::kernels().filter(|&k| k == "avx2" || k == "avx512") {
        for &spread in &spreads {
            let choice = kernel_choice::Choice::new(kernel).stagger(spread);
            all.push(Contender {
                name: match spread {
                    1 => format!("{kernel}, lockstep"),
                    _ => format!("{kernel}, stagger {spread}"),
                },
                run: Box::new(move |msgs, out| kernel_choice::digest_many_into(choice, msgs, out)),
            });
        }
    }
    // The AVX-512 kernel reading each block on its own, where its row reads
    // blocks that start inside a line as whole lines (the `vec` layout).
    let avx512 = kernel_choice::kernels().find(|&k| k == "avx512");
    if let Some(choice) = avx512.map(kernel_choice::Choice::new) {
        if choice.tuning().avx512_whole_lines {
            let choice = choice.tuned(kernel_choice::Tuning {
                avx512_whole_lines: false,
                ..choice.tuning()
            });
            all.push(Contender {
                name: "avx512, block by block".into(),
                run: Box::new(move |msgs, out| kernel_choice::digest_many_into(choice, msgs, out)),
            });
        }
    }
    let contenders: Vec<&Contender> = contenders.iter().chain(&all).collect();
    for p in &pairs {
        let msgs = [p.aligned.messages(), p.offset.messages()];
        for m in &msgs {
            let want: Vec<[u8; 16]> = m.iter().map(|m| Md5::digest(m).into()).collect();
            for c in &contenders {
                let mut out = vec![[0u8; 16]; m.len()];
                (c.run)(m, &mut out);
                assert!(out == want, "{} on {}: wrong digests", c.name, p.name);
            }
        }
        if !timing {
            println!(
                "benches/multi: every contender agrees with Md5::digest on {}",
                p.name
            );
            continue;
        }
        let mut outs = vec![vec![[0u8; 16]; p.aligned.count]; 2 * contenders.len()];
        let mut fs: Vec<Box<dyn FnMut() + '_>> = Vec::new();
        for (k, out) in outs.iter_mut().enumerate() {
            let (c, m) = (&contenders[k / 2], &msgs[k % 2]);
            fs.push(Box::new(move || {
                (c.run)(black_box(m), out);
                black_box(&out);
            }));
        }
        let ns = measure(&mut fs);
        let bytes = (p.aligned.count * p.aligned.len) as f64;
        println!(
            "\n{} ({} B apart vs {} B apart; MB/s, x single, aligned / offset)",
            p.name, p.aligned.gap, p.offset.gap
        );
        for (k, c) in contenders.iter().enumerate() {
            let (a, o) = (ns[2 * k], ns[2 * k + 1]);
            println!(
                "  {:<22} aligned {:>6.0} MB/s {:>6.2}x   offset {:>6.0} MB/s {:>6.2}x   aligned/offset {:.2}",
                c.name,
                bytes / a * 1e3,
                ns[0] / a,
                bytes / o * 1e3,
                ns[1] / o,
                o / a
            );
        }
    }
}

/// `msgs` (whole blocks each) as streams of [`Lanes`], [`Lanes::MAX`] at a
/// time: each message one chunk, then an empty tail.
fn lanes(msgs: &[&[u8]], out: &mut [[u8; 16]]) {
    for (msgs, out) in msgs.chunks(Lanes::MAX).zip(out.chunks_mut(Lanes::MAX)) {
        let mut lanes = Lanes::new(msgs.len());
        lanes.update(msgs);
        for (lane, o) in out.iter_mut().enumerate() {
            *o = lanes.finalize_lane(lane, &[]);
        }
    }
}
