//! `cargo bench --bench multi -- tune`: every choice of the AVX-512 tuning
//! row (`src/multi/tuning.rs`) measured on the CPU at hand, through the
//! scheduler, each choice against the others in interleaved rounds, and
//! the row it would choose printed beside the row in force, for a new CPU
//! family's row to be committed from one command's output.
//!
//! Choices: groups at full width (64 × 64 KiB, 64 × 1 KiB), in short sets
//! (1000 × 64 B) and past the caches (128 × 1 MiB); `ymm` for few lanes (8
//! and 24 × 64 KiB); the prefetch distance (64 × 2 MiB); whether blocks
//! that start inside a line are read as whole lines (64 × 4 and 16 KiB, 16
//! bytes past a page, 4 KiB apart, in lockstep); and the stagger of equal
//! messages 4 KiB apart, in lockstep or 4 to 32 delays, from a page and
//! from 16 bytes past one (64 × 4, 16 and 64 KiB, each against the same
//! messages 320 bytes further apart). Whether the body loads a block
//! ahead is compiled per ISA (`LaneVector::LOADS_AHEAD`), not measured
//! here.

use super::measure;
use md5::multi::__bench::{self, Choice, Stagger, Tuning};
use std::hint::black_box;

/// `count` messages of `len` bytes, `gap` bytes apart from `shift` bytes
/// past a page, and the buffer they lie in.
struct Equal {
    data: Vec<u8>,
    at: Vec<usize>,
    len: usize,
}

impl Equal {
    fn new(count: usize, len: usize, gap: usize, shift: usize) -> Equal {
        let data: Vec<u8> = (0..gap * count + 8192)
            .map(|i| ((i * 131) >> 3) as u8)
            .collect();
        let base = data.as_ptr().align_offset(4096) + shift;
        let at = (0..count).map(|i| base + i * gap).collect();
        Equal { data, at, len }
    }

    fn messages(&self) -> Vec<&[u8]> {
        self.at
            .iter()
            .map(|&a| &self.data[a..a + self.len])
            .collect()
    }
}

/// Nanoseconds a batch of `msgs` takes under each tuning of `rows`.
fn time(base: Choice, rows: &[Tuning], msgs: &[&[u8]]) -> Vec<f64> {
    let mut outs = vec![vec![[0u8; 16]; msgs.len()]; rows.len()];
    let mut fs: Vec<Box<dyn FnMut() + '_>> = outs
        .iter_mut()
        .zip(rows)
        .map(|(out, &row)| {
            let kernel = base.tuned(row);
            Box::new(move || {
                __bench::digest_many_into(kernel, black_box(msgs), out);
                black_box(&out);
            }) as Box<dyn FnMut() + '_>
        })
        .collect();
    measure(&mut fs)
}

/// The index of the least of `ns`.
fn fastest(ns: &[f64]) -> usize {
    (0..ns.len()).fold(0, |best, i| if ns[i] < ns[best] { i } else { best })
}

/// Prints each choice's speed relative to the first, and returns the
/// fastest's index.
fn report(what: &str, names: &[String], ns: &[f64]) -> usize {
    let mut line = format!("  {what:<28}");
    for (n, t) in names.iter().zip(ns) {
        line += &format!("  {n}: {:.2}x", ns[0] / t);
    }
    println!("{line}");
    fastest(ns)
}

/// Groups 1 to 4 on each batch of `batches`; the count fastest over all
/// of them (the least product of times).
fn groups(base: Choice, what: &str, batches: &[&Equal]) -> u16 {
    let rows: Vec<Tuning> = (1..=4).map(|g| base.tuning().with_groups(g)).collect();
    let names: Vec<String> = (1..=4).map(|g| format!("{g}g")).collect();
    let mut product = [1.0; 4];
    for b in batches {
        let ns = time(base, &rows, &b.messages());
        let shape = format!("{what}, {} x {} B", b.at.len(), b.len);
        report(&shape, &names, &ns);
        for (p, t) in product.iter_mut().zip(&ns) {
            *p *= t / ns[0];
        }
    }
    1 + fastest(&product) as u16
}

/// Equal messages `count` × `len`, 4 KiB apart and 320 bytes further
/// apart, from `shift` bytes past a page, at each stagger of `staggers`:
/// each one's aligned speed over the offset layout's in the row in force.
fn stagger_ratios(
    base: Choice,
    count: usize,
    len: usize,
    shift: usize,
    staggers: &[Stagger],
) -> Vec<f64> {
    let apart = len.next_multiple_of(4096);
    let aligned = Equal::new(count, len, apart, shift);
    let offset = Equal::new(count, len, apart + 320, shift);
    let mut rows: Vec<Tuning> = staggers
        .iter()
        .map(|&s| base.tuning().with_stagger(s))
        .collect();
    rows.push(base.tuning());
    let a = time(base, &rows[..staggers.len()], &aligned.messages());
    let o = time(base, &rows[staggers.len()..], &offset.messages())[0];
    a.iter().map(|t| o / t).collect()
}

pub(super) fn run() {
    if !__bench::kernels().any(|k| k == "avx512") {
        println!("tune: no AVX-512 kernel on this CPU; its row is the only one measured here");
        return;
    }
    let cpu = __bench::Platform::detect();
    let base = Choice::new("avx512");
    let now = base.tuning();
    println!(
        "\ntune: AVX-512 on {:?} (family {:#x} model {:#x}); speed relative to the first choice",
        cpu.family(),
        cpu.family,
        cpu.model
    );
    let mut row = now;

    let offset = |count, len| Equal::new(count, len, len.next_multiple_of(4096) + 320, 0);
    let (in_cache, small) = (offset(64, 64 << 10), offset(64, 1 << 10));
    row.groups = groups(base, "groups", &[&in_cache, &small]);
    let short = offset(1000, 64);
    row.short_groups = groups(base, "short groups", &[&short]);
    let memory = offset(128, 1 << 20);
    row.memory_groups = groups(base, "memory groups", &[&memory]);

    let names = ["off", "24"].map(String::from);
    let ymm = [
        Tuning {
            ymm_lanes: 0,
            ..now
        },
        Tuning {
            ymm_lanes: 24,
            ..now
        },
    ];
    let mut votes = 0;
    for count in [8, 24] {
        let few = offset(count, 64 << 10);
        let ns = time(base, &ymm, &few.messages());
        votes += report(&format!("ymm, {count} x 64 KiB"), &names, &ns);
    }
    row.ymm_lanes = if votes == 2 { 24 } else { 0 };

    let names = ["0", "512"].map(String::from);
    let prefetch = [0, 512].map(|d| Tuning {
        avx512_prefetch: d,
        ..now
    });
    let far = offset(64, 2 << 20);
    row.avx512_prefetch = [0, 512][report(
        "prefetch, 64 x 2 MiB",
        &names,
        &time(base, &prefetch, &far.messages()),
    )];

    let names = ["blocks", "lines"].map(String::from);
    let lines = [false, true].map(|on| Tuning {
        avx512_whole_lines: on,
        ..now.with_stagger(Stagger::OFF)
    });
    let mut votes = 0;
    for len in [4 << 10, 16 << 10] {
        let crowded = Equal::new(64, len, len, 16);
        let ns = time(base, &lines, &crowded.messages());
        let what = format!("whole lines, 64 x {} KiB vec", len >> 10);
        // Only a win by more than the noise.
        report(&what, &names, &ns);
        votes += usize::from(ns[1] * 1.05 < ns[0]);
    }
    row.avx512_whole_lines = votes == 2;
    // The stagger, measured with the lines as chosen.
    let base = base.tuned(Tuning {
        avx512_whole_lines: row.avx512_whole_lines,
        ..now
    });

    let spreads: [u16; 5] = [1, 4, 8, 16, 32];
    let staggers: Vec<Stagger> = spreads.iter().map(|&s| Stagger::forced(s)).collect();
    let names: Vec<String> = spreads.iter().map(|s| format!("s{s}")).collect();
    println!("  stagger: aligned / offset speed, lockstep (s1) or s delays");
    // Per layout, the least blocks a delay at which each length's best
    // spread keeps its idle blocks: what `blocks_per_delay` would be.
    let mut per_delay = [u16::MAX; 2];
    for (layout, shift) in [("page", 0), ("vec", 16)] {
        for len in [4 << 10, 16 << 10, 64 << 10] {
            let r = stagger_ratios(base, 64, len, shift, &staggers);
            let mut line = format!("    64 x {:>2} KiB {layout:<4}", len >> 10);
            for (n, x) in names.iter().zip(&r) {
                line += &format!("  {n}: {x:.2}");
            }
            println!("{line}");
            let best = (0..r.len()).fold(0, |b, i| if r[i] > r[b] { i } else { b });
            // A stagger must beat lockstep by more than the noise.
            if best > 0 && r[best] > r[0] * 1.05 {
                let blocks = (len / 64) as u16;
                let at = usize::from(shift > 0);
                per_delay[at] = per_delay[at].min(blocks / (spreads[best] - 1).max(1));
            }
        }
    }
    let stagger = &mut row.avx512_stagger;
    if per_delay[0] != u16::MAX {
        stagger.blocks_per_delay = stagger.blocks_per_delay.min(per_delay[0]);
    }
    stagger.split_blocks_per_delay = match per_delay[1] {
        u16::MAX => 0,
        per => per,
    };

    println!("\n  field                       in force   measured here");
    let fields: [(&str, u16, u16); 8] = [
        ("groups", now.groups, row.groups),
        ("short_groups", now.short_groups, row.short_groups),
        ("memory_groups", now.memory_groups, row.memory_groups),
        ("ymm_lanes", now.ymm_lanes, row.ymm_lanes),
        ("avx512_prefetch", now.avx512_prefetch, row.avx512_prefetch),
        (
            "avx512_whole_lines",
            now.avx512_whole_lines.into(),
            row.avx512_whole_lines.into(),
        ),
        (
            "avx512_stagger.blocks_per_delay",
            now.avx512_stagger.blocks_per_delay,
            row.avx512_stagger.blocks_per_delay,
        ),
        (
            "avx512_stagger.split_blocks_per_delay",
            now.avx512_stagger.split_blocks_per_delay,
            row.avx512_stagger.split_blocks_per_delay,
        ),
    ];
    for (name, a, b) in fields {
        let mark = if a == b { "" } else { "  <- differs" };
        println!("  {name:<38} {a:>6}   {b:>6}{mark}");
    }
}
