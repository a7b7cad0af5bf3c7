//! Multi-buffer throughput side by side in one process: every `md5::multi`
//! kernel this CPU has, the multi-buffer peers `md5-many` (its best level,
//! and held to AVX2) and `md5-simd`, and this crate's single-stream
//! `Md5::digest` looped over the same batch, which every ratio divides.
//!
//! `cargo bench --bench multi` prints one table: for each batch, the
//! single-stream throughput and each contender's ratio to it (batch
//! throughput ÷ single-stream throughput), then how this crate's kernels
//! compare with md5-many at the same ISA, then the raw kernel per group
//! count. Batches: 8 × 64 KiB, 64 × 64 KiB, 64 × 1 KiB, 1000 × 64 B, and 600
//! messages of seeded log-uniform lengths 0–16 KiB, in input order and
//! sorted by length (md5-many groups equal lengths, so the caller's sort
//! helps it). Then the column shapes (`benches/multi/columns.rs`), and
//! equal messages a multiple of 4 KiB apart against the same messages 320
//! bytes further along (`benches/multi/aligned.rs`: 64 × 64 KiB always,
//! 128 × 7 MiB when the argument `aligned 7M` names it), and the AVX-512
//! kernel at each group count on the batches above (`benches/multi/groups.rs`,
//! alone with the argument `groups`). With the argument `tune`, only the
//! measurement of every field of the tuning row this CPU's kernels allow
//! (`benches/multi/tune.rs`, its stagger table in
//! `benches/multi/stagger_table.rs`), and the row it proposes, as Rust.
//!
//! Timing: the calling thread's CPU time (Linux; wall time elsewhere or with
//! `MD5_BENCH_WALL_TIME=1`), so time spent descheduled on a busy machine
//! does not count. Contenders run in interleaved rounds, each round every
//! contender once in a rotating order, each sample a calibrated number of
//! batches; the table gives the median sample. `MD5_BENCH_ROUNDS` (default
//! 15) and `MD5_BENCH_SAMPLE_MS` (default 20) trade time for precision; a
//! plain argument keeps only the batches whose names contain it (and the
//! raw kernel table only if one is `raw`), and
//! `MD5_BENCH_ONLY=avx2,md5-many` only the contenders whose names start so,
//! and `MD5_BENCH_AVX512_GROUPS=n` runs the AVX-512 kernel at `n` groups.
//!
//! `cargo test --bench multi` checks every contender's digests on every
//! batch against `Md5::digest` and times nothing.

use md5::{multi::kernel_choice, Digest, Md5};
use std::hint::black_box;

mod aligned;
mod columns;
mod groups;
mod stagger_table;
mod tune;

use md5x_testkit::cpu::cpu_name;
use md5x_testkit::Rng;

/// Messages of the given lengths cut from one buffer at random offsets, so
/// their alignment varies as it does in real buffers.
struct Batch {
    name: &'static str,
    data: Vec<u8>,
    spans: Vec<(usize, usize)>,
}

impl Batch {
    fn new(name: &'static str, lens: &[usize], rng: &mut Rng) -> Self {
        let total: usize = lens.iter().map(|n| n + 64).sum();
        let data: Vec<u8> = (0..total).map(|_| rng.next() as u8).collect();
        let mut spans = Vec::new();
        let mut at = 0;
        for &n in lens {
            let start = at + rng.below(64);
            spans.push((start, start + n));
            at += n + 64;
        }
        Self { name, data, spans }
    }

    /// The same messages, shortest first.
    fn sorted(&self, name: &'static str) -> Self {
        let mut spans = self.spans.clone();
        spans.sort_by_key(|&(s, e)| e - s);
        Self {
            name,
            data: self.data.clone(),
            spans,
        }
    }

    fn messages(&self) -> Vec<&[u8]> {
        self.spans.iter().map(|&(s, e)| &self.data[s..e]).collect()
    }

    fn bytes(&self) -> usize {
        self.spans.iter().map(|&(s, e)| e - s).sum()
    }
}

fn batches() -> Vec<Batch> {
    let mut rng = Rng(0x6265_6e63_6801);
    let mixed: Vec<usize> = (0..600)
        .map(|_| {
            // Log-uniform in [1, 16 KiB), and some empty messages.
            let bits = rng.below(15);
            let n = (1usize << bits) + rng.below(1 << bits);
            if rng.below(20) == 0 {
                0
            } else {
                n.min(16 * 1024)
            }
        })
        .collect();
    let mut rng = Rng(0x6265_6e63_6802);
    let mixed = Batch::new("600 mixed", &mixed, &mut rng);
    let sorted = mixed.sorted("600 mixed, sorted");
    vec![
        Batch::new("8 x 64 KiB", &[64 * 1024; 8], &mut rng),
        Batch::new("64 x 64 KiB", &[64 * 1024; 64], &mut rng),
        Batch::new("64 x 1 KiB", &[1024; 64], &mut rng),
        Batch::new("1000 x 64 B", &[64; 1000], &mut rng),
        mixed,
        sorted,
    ]
}

type HashMany = Box<dyn Fn(&[&[u8]], &mut [[u8; 16]])>;

/// One implementation under test: a short column name and how it hashes a
/// batch.
struct Contender {
    name: String,
    run: HashMany,
}

fn contenders() -> Vec<Contender> {
    let mut all = vec![Contender {
        name: "single".into(),
        run: Box::new(|msgs, out| {
            for (m, o) in msgs.iter().zip(out) {
                *o = Md5::digest(m).into();
            }
        }),
    }];
    // `MD5_BENCH_AVX512_GROUPS=n`: the AVX-512 kernel at n groups, whatever
    // the tuning row says, for every table but the group table's own.
    let avx512_groups: Option<usize> = std::env::var("MD5_BENCH_AVX512_GROUPS")
        .ok()
        .and_then(|v| v.parse().ok());
    for name in kernel_choice::kernels().filter(|&k| k != "portable") {
        let kernel = match (name, avx512_groups) {
            ("avx512", Some(groups)) => kernel_choice::Choice::new(name).groups(groups),
            _ => kernel_choice::Choice::new(name),
        };
        all.push(Contender {
            name: format!("{name} ({})", kernel.lanes()),
            run: Box::new(move |msgs, out| kernel_choice::digest_many_into(kernel, msgs, out)),
        });
    }
    all.extend(peers::contenders());
    // `MD5_BENCH_ONLY=avx2,md5-many`: single-stream and the named ones.
    if let Ok(only) = std::env::var("MD5_BENCH_ONLY") {
        let names: Vec<&str> = only.split(',').collect();
        all.retain(|c| c.name == "single" || names.iter().any(|n| c.name.starts_with(n)));
    }
    all
}

/// The multi-buffer peers, where they have SIMD kernels (see Cargo.toml).
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
mod peers {
    use super::Contender;
    use md5_many::Md5Many;

    pub(super) fn contenders() -> Vec<Contender> {
        // Engines built once, outside the timed closures.
        let best = Md5Many::new();
        let mut all = vec![Contender {
            name: format!("md5-many ({})", best.lanes()),
            run: Box::new(move |msgs, out| best.hash_many(msgs, out)),
        }];
        #[cfg(target_arch = "x86_64")]
        if let Some(avx2) = fearless_simd::Level::new().as_avx2() {
            let held = Md5Many::from_level(fearless_simd::Level::Avx2(avx2));
            if held.lanes() != best.lanes() {
                all.push(Contender {
                    name: format!("md5-many avx2 ({})", held.lanes()),
                    run: Box::new(move |msgs, out| held.hash_many(msgs, out)),
                });
            }
        }
        let simd = md5_simd::Md5Engine::new();
        all.push(Contender {
            name: format!("md5-simd ({})", simd.lanes()),
            run: Box::new(move |msgs, out| simd.hash_many(msgs, out)),
        });
        all
    }
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
mod peers {
    pub(super) fn contenders() -> Vec<super::Contender> {
        Vec::new()
    }
}

/// The calling thread's CPU time (or wall time), in ns.
mod clock {
    use std::sync::OnceLock;
    use std::time::Instant;

    fn wall() -> bool {
        static WALL: OnceLock<bool> = OnceLock::new();
        *WALL.get_or_init(|| {
            !cfg!(target_os = "linux")
                || std::env::var_os("MD5_BENCH_WALL_TIME").is_some_and(|v| v != "0")
        })
    }

    pub(super) fn name() -> &'static str {
        if wall() {
            "wall time"
        } else {
            "thread CPU time"
        }
    }

    pub(super) fn now_ns() -> u64 {
        if wall() {
            return wall_ns();
        }
        thread_cpu_ns()
    }

    /// Wall time, whatever `MD5_BENCH_WALL_TIME` says: for work on
    /// several threads.
    pub(super) fn wall_ns() -> u64 {
        static START: OnceLock<Instant> = OnceLock::new();
        START.get_or_init(Instant::now).elapsed().as_nanos() as u64
    }

    #[cfg(target_os = "linux")]
    fn thread_cpu_ns() -> u64 {
        #[repr(C)]
        struct Timespec {
            tv_sec: core::ffi::c_long,
            tv_nsec: core::ffi::c_long,
        }
        extern "C" {
            fn clock_gettime(clock: core::ffi::c_int, tp: *mut Timespec) -> core::ffi::c_int;
        }
        const CLOCK_THREAD_CPUTIME_ID: core::ffi::c_int = 3;
        let mut ts = Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `clock_gettime` from the C library writes one `timespec`
        // (two C longs on Linux) through the pointer, which points at one.
        let rc = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut ts) };
        assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
        ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
    }

    #[cfg(not(target_os = "linux"))]
    fn thread_cpu_ns() -> u64 {
        unreachable!("wall time is used off Linux")
    }
}

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Median ns per call of each of `fs`, over interleaved rounds.
fn measure(fs: &mut [Box<dyn FnMut() + '_>]) -> Vec<f64> {
    measure_by(fs, clock::now_ns)
}

/// [`measure`] by the clock `now` (ns).
fn measure_by(fs: &mut [Box<dyn FnMut() + '_>], now: fn() -> u64) -> Vec<f64> {
    samples(fs, now).into_iter().map(median).collect()
}

/// The ns per call of one contender over the interleaved rounds: its
/// fastest round, its median and its slowest.
#[derive(Clone, Copy, Debug)]
struct Spread {
    best: f64,
    median: f64,
    worst: f64,
}

impl Spread {
    /// Whether this contender ran faster than `other` beyond both one's
    /// spreads: its slowest round faster than the other's fastest.
    fn beats(self, other: Spread) -> bool {
        self.worst < other.best
    }
}

/// Each of `fs`'s [`Spread`] over interleaved rounds (thread CPU time).
fn measure_spread(fs: &mut [Box<dyn FnMut() + '_>]) -> Vec<Spread> {
    samples(fs, clock::now_ns)
        .into_iter()
        .map(|mut v| {
            v.sort_by(f64::total_cmp);
            Spread {
                best: v[0],
                median: v[v.len() / 2],
                worst: v[v.len() - 1],
            }
        })
        .collect()
}

/// Each of `fs`'s ns per call in each round, by the clock `now`.
fn samples(fs: &mut [Box<dyn FnMut() + '_>], now: fn() -> u64) -> Vec<Vec<f64>> {
    let rounds = env_or("MD5_BENCH_ROUNDS", 15).max(1) as usize;
    let sample_ns = env_or("MD5_BENCH_SAMPLE_MS", 20) * 1_000_000;
    // Calibrate: calls per sample, from a warm-up call of each.
    let iters: Vec<u64> = fs
        .iter_mut()
        .map(|f| {
            f();
            let t = now();
            f();
            let once = (now() - t).max(1);
            (sample_ns / once).max(1)
        })
        .collect();
    let mut samples = vec![Vec::with_capacity(rounds); fs.len()];
    for round in 0..rounds {
        for i in 0..fs.len() {
            let i = (i + round) % fs.len();
            let t = now();
            for _ in 0..iters[i] {
                fs[i]();
            }
            samples[i].push((now() - t) as f64 / iters[i] as f64);
        }
    }
    samples
}

/// Every contender's digests of `batch` against `Md5::digest`.
fn check(batch: &Batch, contenders: &[Contender]) {
    let msgs = batch.messages();
    let want: Vec<[u8; 16]> = msgs.iter().map(|m| Md5::digest(m).into()).collect();
    for c in contenders {
        let mut out = vec![[0u8; 16]; msgs.len()];
        (c.run)(&msgs, &mut out);
        assert!(out == want, "{} on {}: wrong digests", c.name, batch.name);
    }
}

fn main() {
    let timing = std::env::args().any(|a| a == "--bench");
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let contenders = contenders();
    let batches: Vec<Batch> = batches()
        .into_iter()
        .filter(|b| filter.is_empty() || filter.iter().any(|f| b.name.contains(f.as_str())))
        .collect();
    for b in &batches {
        check(b, &contenders);
    }
    if !timing {
        println!(
            "benches/multi: {} contenders agree with Md5::digest on {} batches",
            contenders.len(),
            batches.len()
        );
        columns::run_all(false, &filter);
        aligned::run_all(false, &filter, &contenders);
        return;
    }

    if filter.iter().any(|f| f == "tune") {
        tune::run();
        return;
    }
    println!(
        "md5::backend() = {}, md5::multi::backend() = {}; clock: {}",
        md5::backend(),
        md5::multi::backend(),
        clock::name()
    );
    println!("ratio = batch throughput / single-stream Md5::digest over the same batch (median of interleaved rounds)\n");
    let mut header = format!("| {:<18} | {:>10} |", "batch", "single MB/s");
    for c in &contenders[1..] {
        header += &format!(" {:>w$} |", c.name, w = c.name.len().max(7));
    }
    println!("{header}");
    println!(
        "|{}|",
        header[1..header.len() - 1]
            .split('|')
            .enumerate()
            .map(|(i, cell)| if i == 0 {
                "-".repeat(cell.len())
            } else {
                format!("{}:", "-".repeat(cell.len() - 1))
            })
            .collect::<Vec<_>>()
            .join("|")
    );
    let mut ratios: Vec<(&str, Vec<f64>)> = Vec::new();
    // One JSON object a line, for benches/plot.py: the CPU, then each
    // contender's throughput on each batch.
    let mut json = vec![format!(
        r#"{{"bench":"multi","cpu":"{}","backend":"{}"}}"#,
        cpu_name(),
        md5::multi::backend()
    )];
    for b in &batches {
        let msgs = b.messages();
        let mut outs = vec![vec![[0u8; 16]; msgs.len()]; contenders.len()];
        let mut runs: Vec<Box<dyn FnMut() + '_>> = contenders
            .iter()
            .zip(outs.iter_mut())
            .map(|(c, out)| {
                let msgs = &msgs;
                Box::new(move || {
                    (c.run)(black_box(msgs), out);
                    black_box(&out);
                }) as Box<dyn FnMut() + '_>
            })
            .collect();
        let ns = measure(&mut runs);
        let r: Vec<f64> = ns.iter().map(|t| ns[0] / t).collect();
        let mut line = format!(
            "| {:<18} | {:>11.0} |",
            b.name,
            b.bytes() as f64 / ns[0] * 1e3
        );
        for (c, x) in contenders[1..].iter().zip(&r[1..]) {
            line += &format!(" {:>w$} |", format!("{x:.2}x"), w = c.name.len().max(7));
        }
        println!("{line}");
        for (c, t) in contenders.iter().zip(&ns) {
            json.push(format!(
                r#"{{"batch":"{}","contender":"{}","mb_per_s":{:.1}}}"#,
                b.name,
                c.name,
                b.bytes() as f64 / t * 1e3
            ));
        }
        ratios.push((b.name, r));
    }
    if let Some(dir) = std::env::var_os("MD5_BENCH_OUT") {
        let path = std::path::Path::new(&dir).join("multi.jsonl");
        std::fs::create_dir_all(&dir).expect("MD5_BENCH_OUT: cannot create the folder");
        std::fs::write(&path, json.join("\n") + "\n").expect("MD5_BENCH_OUT: cannot write");
        println!("\nwrote {}", path.display());
    }

    compare_peers(&contenders, &ratios);
    columns::run_all(true, &filter);
    aligned::run_all(true, &filter, &contenders);
    if filter.is_empty() || filter.iter().any(|f| f == "groups") {
        groups::run(&self::batches());
    }
    if filter.is_empty() || filter.iter().any(|f| f == "raw") {
        raw_kernels();
    }
}

/// This crate's AVX2 and AVX-512 kernels against md5-many at the same ISA
/// (held to AVX2 for `avx2`; its best level for `avx512`), on each batch;
/// for the mixed batch md5-many gets its better order.
fn compare_peers(contenders: &[Contender], ratios: &[(&str, Vec<f64>)]) {
    let find = |prefix: &str| contenders.iter().position(|c| c.name.starts_with(prefix));
    let best = find("md5-many (");
    let pairs = [
        ("avx2", find("avx2 ("), find("md5-many avx2 (").or(best)),
        ("avx512", find("avx512 ("), best),
    ];
    let sorted = ratios.iter().find(|(n, _)| n.ends_with("sorted"));
    for (kernel, ours, peer) in pairs {
        let (Some(ours), Some(peer)) = (ours, peer) else {
            continue;
        };
        println!(
            "\n{kernel} kernel / {} (mixed: md5-many's better order)",
            contenders[peer].name
        );
        for (name, r) in ratios {
            if name.ends_with("sorted") {
                continue;
            }
            let mut theirs = r[peer];
            if name.contains("mixed") {
                if let Some((_, s)) = sorted {
                    theirs = theirs.max(s[peer]);
                }
            }
            println!("  {name:<18} {:.2}x", r[ours] / theirs);
        }
    }
}

/// One raw kernel call over 16 blocks per lane (`MD5_BENCH_RAW_BLOCKS`), per
/// group count: ns per 64-byte block of one lane, and the loads and
/// transposition alone.
fn raw_kernels() {
    let blocks = env_or("MD5_BENCH_RAW_BLOCKS", 16).max(1) as usize;
    let mut rng = Rng(0x6265_6e63_6803);
    let most = kernel_choice::kernels()
        .map(kernel_choice::max_lanes)
        .max()
        .unwrap_or(1);
    let data: Vec<u8> = (0..most * blocks * 64).map(|_| rng.next() as u8).collect();
    println!("\nraw kernel, {blocks} blocks per lane: ns per lane-block (lower is better)");
    for kernel in kernel_choice::kernels().filter(|&k| k != "portable") {
        let width = kernel_choice::group_lanes(kernel);
        let groups = kernel_choice::max_lanes(kernel) / width;
        let mut fs: Vec<Box<dyn FnMut() + '_>> = (1..=groups)
            .map(|g| {
                let data = &data;
                Box::new(move || {
                    black_box(kernel_choice::compress_lanes(
                        kernel,
                        black_box(data),
                        blocks,
                        g * width,
                    ));
                }) as Box<dyn FnMut() + '_>
            })
            .collect();
        fs.push(Box::new(|| {
            black_box(kernel_choice::transpose(kernel, black_box(&data), blocks));
        }));
        let ns = measure(&mut fs);
        let mut line = format!("  {kernel:<6}");
        for g in 1..=groups {
            line += &format!(
                "  {g} group(s): {:.2}",
                ns[g - 1] / (g * width * blocks) as f64
            );
        }
        line += &format!(
            "  loads+transpose ({groups} groups): {:.2}",
            ns[groups] / (groups * width * blocks) as f64
        );
        println!("{line}");
    }
}
