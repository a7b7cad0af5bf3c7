//! `cargo bench --bench multi -- tune`: every field of the tuning row
//! (`md5x/src/multi/tuning.rs`) that this CPU's kernels can be measured on, each
//! choice against the others through the scheduler in interleaved rounds,
//! and the row it proposes, printed as Rust to paste into `tuning.rs`: a
//! new CPU family's row is committed from one command's output.
//!
//! A field changes only where the gain holds beyond the run's own spread.
//! Each choice is timed in every round (`MD5_BENCH_ROUNDS`, default 15),
//! and another choice replaces the one in force only where its slowest
//! round ran faster than the in-force choice's fastest, on every batch
//! that decides the field; of several such, the one of least product of
//! medians. Each line prints every choice's speed relative to the first
//! (their medians) and ± half its rounds' range over its median.
//!
//! AVX-512, where the CPU has it: groups at full width (64 × 64 KiB and 64
//! × 1 KiB), in short sets (1000 × 64 B) and past the caches (128 × 1
//! MiB); `ymm` at 8, 16 and 24 busy lanes (× 64 KiB), proposing the most
//! lanes up to which `ymm` is chosen at every count measured; the prefetch
//! distance (64 × 2 MiB); whole lines (64 × 4 and 16 KiB, 16 bytes past a
//! page, 4 KiB apart, in lockstep); sets of 128- and 192-byte messages in
//! place or as rows (1000 of each, back to back); the stagger table, with whole lines as proposed. AVX2, where the CPU has it: the prefetch distance (48 × 2
//! MiB) and the stagger table. All but the whole lines and the stagger
//! table lay the messages 320 bytes further apart than a multiple of 4
//! KiB, so that no stagger runs, and all run at the row in force's groups.
//!
//! The stagger table: 64 equal messages of 4, 16, 64 and 256 KiB, as many
//! bytes apart as they are long, from a page (`page`) and 16 bytes past
//! one (`vec`, where glibc puts a large `Vec<u8>`'s bytes), in lockstep
//! (`s1`) or forced to `s` delays, each against the same messages 320
//! bytes further apart under the row in force. In each cell the spread
//! that the row in force gives (marked `*`) stays unless another beats it
//! beyond the spread (marked `<-`). Two rules are then judged: lockstep
//! (`Stagger::OFF`), and one fitted to the cells' choices, one spread (the
//! page layout's choice at 256 KiB) from the first length at which both
//! layouts stagger at every length on (`blocks_per_delay` to match,
//! `split_blocks_per_delay` 0, `most_lanes` at least the set's lanes:
//! wider sets are not measured). A rule is proposed only if in no cell
//! the row in force beats it beyond the spread, and in some cell it beats
//! the row in force.
//!
//! Not measured: whether the body loads a block ahead (compiled per ISA,
//! `LaneVector::LOADS_AHEAD`), `other_stagger` (SSE2, NEON), sets wider
//! than the kernel's lanes. How long a run takes, and what each CPU's
//! run printed: benches/RESULTS.md, "Tuning rows" (with AVX-512 it runs
//! the AVX2 fields too, and takes longer).

use super::stagger_table::stagger;
use super::{measure_spread, Spread};
use md5::multi::kernel_choice::{self, Choice, Stagger, Tuning};
use std::hint::black_box;

/// `count` messages of `len` bytes, `gap` bytes apart from `shift` bytes
/// past a page, and the buffer they lie in.
pub(super) struct Equal {
    data: Vec<u8>,
    at: Vec<usize>,
    len: usize,
}

impl Equal {
    pub(super) fn new(count: usize, len: usize, gap: usize, shift: usize) -> Equal {
        let data: Vec<u8> = (0..gap * count + 8192)
            .map(|i| ((i * 131) >> 3) as u8)
            .collect();
        let base = data.as_ptr().align_offset(4096) + shift;
        let at = (0..count).map(|i| base + i * gap).collect();
        Equal { data, at, len }
    }

    /// `count` × `len` bytes, 320 bytes further apart than a multiple of
    /// 4 KiB: no two starts share an L1 set, and nothing staggers.
    fn offset(count: usize, len: usize) -> Equal {
        Equal::new(count, len, len.next_multiple_of(4096) + 320, 0)
    }

    pub(super) fn messages(&self) -> Vec<&[u8]> {
        self.at
            .iter()
            .map(|&a| &self.data[a..a + self.len])
            .collect()
    }
}

/// Each of the batches `runs` (a tuning row and the messages it hashes)
/// through kernel `base`, timed in interleaved rounds.
pub(super) fn time_runs(base: Choice, runs: &[(Tuning, &[&[u8]])]) -> Vec<Spread> {
    let mut outs: Vec<Vec<[u8; 16]>> = runs.iter().map(|r| vec![[0u8; 16]; r.1.len()]).collect();
    let mut fs: Vec<Box<dyn FnMut() + '_>> = outs
        .iter_mut()
        .zip(runs)
        .map(|(out, &(row, msgs))| {
            let kernel = base.tuned(row);
            Box::new(move || {
                kernel_choice::digest_many_into(kernel, black_box(msgs), out);
                black_box(&out);
            }) as Box<dyn FnMut() + '_>
        })
        .collect();
    measure_spread(&mut fs)
}

/// The batch `msgs` under each tuning of `rows`.
fn time(base: Choice, rows: &[Tuning], msgs: &[&[u8]]) -> Vec<Spread> {
    let runs: Vec<(Tuning, &[&[u8]])> = rows.iter().map(|&r| (r, msgs)).collect();
    time_runs(base, &runs)
}

/// `x`'s speed relative to `first` (their medians), ± half the range of
/// `x`'s rounds over its median: `1.10x±2%`.
fn relative(first: Spread, x: Spread) -> String {
    let half = (x.worst - x.best) / 2.0 / x.median * 100.0;
    format!("{:.2}x±{half:.0}%", first.median / x.median)
}

/// `*` after choice `i` where it is the one in force, `<-` where another
/// is and it is the one proposed.
pub(super) fn mark(i: usize, current: usize, chosen: usize) -> &'static str {
    match (i == current, i == chosen) {
        (true, _) => "*",
        (false, true) => "<-",
        (false, false) => "",
    }
}

/// Prints each choice's speed relative to the first, marked as [`mark`]
/// says.
fn report(what: &str, names: &[String], ts: &[Spread], current: usize, chosen: usize) {
    let mut line = format!("  {what:<30}");
    for (i, (n, &t)) in names.iter().zip(ts).enumerate() {
        line += &format!("  {n}: {}{}", relative(ts[0], t), mark(i, current, chosen));
    }
    println!("{line}");
}

/// Of the choices timed on each batch (`times[batch][choice]`), the one to
/// propose in place of `current`: of those whose slowest round beat
/// `current`'s fastest on every batch, the least product of medians;
/// `current` if none did.
pub(super) fn pick(times: &[Vec<Spread>], current: usize) -> usize {
    let product = |c: usize| -> f64 {
        times
            .iter()
            .map(|t| t[c].median / t[current].median)
            .product()
    };
    (0..times[0].len())
        .filter(|&c| c != current && times.iter().all(|t| t[c].beats(t[current])))
        .min_by(|&a, &b| product(a).total_cmp(&product(b)))
        .unwrap_or(current)
}

/// Groups 1 to 4 on each batch of `batches`; the count to propose in
/// place of `current`.
fn groups(base: Choice, what: &str, batches: &[&Equal], current: u16) -> u16 {
    let rows: Vec<Tuning> = (1..=4).map(|g| base.tuning().with_groups(g)).collect();
    let names: Vec<String> = (1..=4).map(|g| format!("{g}g")).collect();
    let current = usize::from(current.clamp(1, 4) - 1);
    let times: Vec<Vec<Spread>> = batches
        .iter()
        .map(|b| time(base, &rows, &b.messages()))
        .collect();
    let chosen = pick(&times, current);
    for (b, ts) in batches.iter().zip(&times) {
        let shape = format!("{what}, {} x {} B", b.at.len(), b.len);
        report(&shape, &names, ts, current, chosen);
    }
    1 + chosen as u16
}

/// The prefetch distance of kernel `base` (`set` writes it into a row;
/// `now` the row in force's) over `msgs`: 0, 512 or `now`.
fn prefetch(
    base: Choice,
    what: &str,
    msgs: &[&[u8]],
    now: u16,
    set: fn(Tuning, u16) -> Tuning,
) -> u16 {
    let mut ds = vec![0, 512];
    if !ds.contains(&now) {
        ds.push(now);
    }
    let rows: Vec<Tuning> = ds.iter().map(|&d| set(base.tuning(), d)).collect();
    let names: Vec<String> = ds.iter().map(u16::to_string).collect();
    let ts = time(base, &rows, msgs);
    let current = ds.iter().position(|&d| d == now).unwrap_or(0);
    let chosen = pick(std::slice::from_ref(&ts), current);
    report(what, &names, &ts, current, chosen);
    ds[chosen]
}

/// The most busy lanes (8, 16 or 24) up to which `ymm` is chosen at each
/// count measured (0: none), or `now` where every count kept the choice
/// in force.
fn ymm(base: Choice, now: u16) -> u16 {
    let rows = [0, 24].map(|ymm_lanes| Tuning {
        ymm_lanes,
        ..base.tuning()
    });
    let names = ["off", "ymm"].map(String::from);
    let (mut cut, mut open, mut changed) = (0, true, false);
    for count in [8u16, 16, 24] {
        let few = Equal::offset(usize::from(count), 64 << 10);
        let ts = time(base, &rows, &few.messages());
        let current = usize::from(count <= now);
        let chosen = pick(std::slice::from_ref(&ts), current);
        report(
            &format!("ymm, {count} x 64 KiB"),
            &names,
            &ts,
            current,
            chosen,
        );
        changed |= chosen != current;
        open &= chosen == 1;
        if open {
            cut = count;
        }
    }
    if changed {
        cut
    } else {
        now
    }
}

/// A field off or on (the rows `[off, on]`, named `names`), timed on each
/// of `batches`, each reported as `what` names it; whether to propose it
/// on, `now` the row in force's.
fn off_or_on(
    base: Choice,
    rows: [Tuning; 2],
    names: [&str; 2],
    batches: &[Equal],
    what: impl Fn(&Equal) -> String,
    now: bool,
) -> bool {
    let names = names.map(String::from);
    let times: Vec<Vec<Spread>> = batches
        .iter()
        .map(|b| time(base, &rows, &b.messages()))
        .collect();
    let current = usize::from(now);
    let chosen = pick(&times, current);
    for (b, ts) in batches.iter().zip(&times) {
        report(&what(b), &names, ts, current, chosen);
    }
    chosen == 1
}

/// Whole lines or block by block, on 64 messages of 4 and 16 KiB 4 KiB
/// apart from 16 bytes past a page, in lockstep; `now` the row in force's.
fn whole_lines(base: Choice, now: bool) -> bool {
    let rows = [false, true].map(|avx512_whole_lines| Tuning {
        avx512_whole_lines,
        ..base.tuning().with_stagger(Stagger::OFF)
    });
    let batches = [4 << 10, 16 << 10].map(|len| Equal::new(64, len, len, 16));
    let what = |b: &Equal| format!("whole lines, 64 x {} KiB vec", b.len >> 10);
    off_or_on(base, rows, ["blocks", "lines"], &batches, what, now)
}

/// Sets of equal 128- and 192-byte messages, 1,000 back to back from a
/// page, read in place or built in registers as rows; `now` the row in
/// force's.
fn whole_block_rows(base: Choice, now: bool) -> bool {
    let rows = [false, true].map(|avx512_whole_block_rows| Tuning {
        avx512_whole_block_rows,
        ..base.tuning()
    });
    let batches = [128, 192].map(|len| Equal::new(1000, len, len, 0));
    let what = |b: &Equal| format!("whole-block rows, 1000 x {} B", b.len);
    off_or_on(base, rows, ["in place", "rows"], &batches, what, now)
}

/// The summary's lines: each field, its value in force and the one
/// proposed, or that it was not measured here.
struct Summary(Vec<(String, String, String, bool)>);

impl Summary {
    fn field(&mut self, name: &str, now: impl ToString, proposed: impl ToString, measured: bool) {
        self.0
            .push((name.into(), now.to_string(), proposed.to_string(), measured));
    }

    fn stagger(&mut self, name: &str, now: Stagger, proposed: Stagger, measured: bool) {
        type Get = fn(Stagger) -> u16;
        let fields: [(&str, Get); 4] = [
            ("spread", |s| s.spread),
            ("most_lanes", |s| s.most_lanes),
            ("blocks_per_delay", |s| s.blocks_per_delay),
            ("split_blocks_per_delay", |s| s.split_blocks_per_delay),
        ];
        for (field, get) in fields {
            self.field(
                &format!("{name}.{field}"),
                get(now),
                get(proposed),
                measured,
            );
        }
    }

    fn print(&self) {
        println!("\n  {:<38} in force   proposed", "field");
        for (name, now, proposed, measured) in &self.0 {
            let mark = match (measured, now == proposed) {
                (false, _) => "  (not measured here)",
                (true, true) => "",
                (true, false) => "  <- changed",
            };
            println!("  {name:<38} {now:>8}   {proposed:>8}{mark}");
        }
    }
}

/// The AVX-512 fields, measured into `row`.
fn avx512(now: Tuning, row: &mut Tuning) {
    let base = Choice::new("avx512");
    let (in_cache, small) = (Equal::offset(64, 64 << 10), Equal::offset(64, 1 << 10));
    row.groups = groups(base, "groups", &[&in_cache, &small], now.groups);
    let short = Equal::offset(1000, 64);
    row.short_groups = groups(base, "short groups", &[&short], now.short_groups);
    let memory = Equal::offset(128, 1 << 20);
    row.memory_groups = groups(base, "memory groups", &[&memory], now.memory_groups);
    row.ymm_lanes = ymm(base, now.ymm_lanes);
    let far = Equal::offset(64, 2 << 20);
    row.avx512_prefetch = prefetch(
        base,
        "prefetch, 64 x 2 MiB",
        &far.messages(),
        now.avx512_prefetch,
        |t, avx512_prefetch| Tuning {
            avx512_prefetch,
            ..t
        },
    );
    row.avx512_whole_lines = whole_lines(base, now.avx512_whole_lines);
    row.avx512_whole_block_rows = whole_block_rows(base, now.avx512_whole_block_rows);
    // The stagger, measured with the lines as proposed.
    let lines = base.tuned(Tuning {
        avx512_whole_lines: row.avx512_whole_lines,
        ..now
    });
    row.avx512_stagger = stagger(lines, "avx512", now.avx512_stagger);
}

/// The AVX2 fields, measured into `row`.
fn avx2(now: Tuning, row: &mut Tuning) {
    let base = Choice::new("avx2");
    let far = Equal::offset(48, 2 << 20);
    row.avx2_prefetch = prefetch(
        base,
        "avx2 prefetch, 48 x 2 MiB",
        &far.messages(),
        now.avx2_prefetch,
        |t, avx2_prefetch| Tuning { avx2_prefetch, ..t },
    );
    row.avx2_stagger = stagger(base, "avx2", now.avx2_stagger);
}

pub(super) fn run() {
    let cpu = kernel_choice::Platform::detect();
    let now = cpu.tuning();
    let kernels: Vec<&str> = kernel_choice::kernels().collect();
    let (has512, has2) = (kernels.contains(&"avx512"), kernels.contains(&"avx2"));
    println!(
        "\ntune: {:?} row (family {:#x} model {:#x}); kernels {kernels:?}",
        cpu.family(),
        cpu.family,
        cpu.model
    );
    println!(
        "  each choice's speed relative to the first (medians) ± half its rounds' range; \
         * the row in force, <- proposed: its slowest round beat the one in force's fastest"
    );
    let mut row = now;
    if has512 {
        avx512(now, &mut row);
    } else {
        println!(
            "  no AVX-512 kernel on this CPU: groups, short_groups, memory_groups, ymm_lanes, \
             avx512_prefetch, avx512_whole_lines, avx512_whole_block_rows and avx512_stagger \
             cannot be measured here"
        );
    }
    if has2 {
        avx2(now, &mut row);
    } else {
        println!(
            "  no AVX2 kernel on this CPU: avx2_prefetch and avx2_stagger cannot be measured here"
        );
    }

    let mut s = Summary(Vec::new());
    s.field("groups", now.groups, row.groups, has512);
    s.field("short_groups", now.short_groups, row.short_groups, has512);
    s.field(
        "memory_groups",
        now.memory_groups,
        row.memory_groups,
        has512,
    );
    s.field("ymm_lanes", now.ymm_lanes, row.ymm_lanes, has512);
    s.field(
        "avx512_prefetch",
        now.avx512_prefetch,
        row.avx512_prefetch,
        has512,
    );
    s.field("avx2_prefetch", now.avx2_prefetch, row.avx2_prefetch, has2);
    s.field(
        "avx512_whole_lines",
        now.avx512_whole_lines,
        row.avx512_whole_lines,
        has512,
    );
    s.field(
        "avx512_whole_block_rows",
        now.avx512_whole_block_rows,
        row.avx512_whole_block_rows,
        has512,
    );
    s.stagger(
        "avx512_stagger",
        now.avx512_stagger,
        row.avx512_stagger,
        has512,
    );
    s.stagger("avx2_stagger", now.avx2_stagger, row.avx2_stagger, has2);
    s.stagger("other_stagger", now.other_stagger, row.other_stagger, false);
    s.print();
    println!(
        "\n  the proposed row, to paste into md5x/src/multi/tuning.rs (fields not measured here as in force):\n"
    );
    println!("const MEASURED: Tuning = {row:#?};");
}
