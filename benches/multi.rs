//! Multi-buffer throughput: every kernel this CPU has, next to the
//! single-stream `Md5::digest` of each message, in one run.
//!
//! `cargo bench --bench multi` prints criterion's figures and then a table of
//! aggregate throughput and the ratio of each kernel to single-stream. Groups:
//!
//! * `multi/8x64KiB`, `multi/64x1KiB`, `multi/1000x64B`, `multi/mixed` (600
//!   messages of seeded random lengths from 0 to 16 KiB, log-uniform): whole
//!   batches through `digest_many_into`;
//! * `multi_raw/compress` and `multi_raw/transpose`: one raw kernel call over
//!   16 blocks per lane, and the loads and transposition alone, which shows
//!   the share of the transposition.
//!
//! On Linux the clock is the thread's CPU time rather than wall time, so time
//! the thread spends descheduled on a busy machine does not count; set
//! `MD5_BENCH_WALL_TIME=1` for wall time.

use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use criterion::{black_box, BenchmarkId, Criterion, Throughput};
use md5::{multi::__bench, Digest, Md5};
use std::time::Duration;

#[path = "../tests/common/rng.rs"]
mod rng;
use rng::Rng;

/// Messages of the given lengths cut from one buffer at random offsets, so
/// their alignment varies as it does in real buffers.
struct Batch {
    data: Vec<u8>,
    spans: Vec<(usize, usize)>,
}

impl Batch {
    fn new(lens: &[usize], rng: &mut Rng) -> Self {
        let total: usize = lens.iter().map(|n| n + 64).sum();
        let data: Vec<u8> = (0..total).map(|_| rng.next() as u8).collect();
        let mut spans = Vec::new();
        let mut at = 0;
        for &n in lens {
            let start = at + rng.below(64);
            spans.push((start, start + n));
            at += n + 64;
        }
        Self { data, spans }
    }

    fn messages(&self) -> Vec<&[u8]> {
        self.spans.iter().map(|&(s, e)| &self.data[s..e]).collect()
    }
}

fn workloads() -> Vec<(&'static str, Vec<usize>)> {
    let mut rng = Rng(0x6265_6e63_6801);
    let mixed = (0..600)
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
    vec![
        ("8x64KiB", vec![64 * 1024; 8]),
        ("64x1KiB", vec![1024; 64]),
        ("1000x64B", vec![64; 1000]),
        ("mixed", mixed),
    ]
}

fn bench_batches<M: Measurement>(c: &mut Criterion<M>) {
    let mut rng = Rng(0x6265_6e63_6802);
    for (name, lens) in workloads() {
        let batch = Batch::new(&lens, &mut rng);
        let msgs = batch.messages();
        let bytes: usize = lens.iter().sum();
        let mut out = vec![[0u8; 16]; msgs.len()];
        let mut g = c.benchmark_group(format!("multi/{name}"));
        g.throughput(Throughput::Bytes(bytes as u64));
        g.bench_function("single", |b| {
            b.iter(|| {
                for (m, o) in msgs.iter().zip(out.iter_mut()) {
                    *o = Md5::digest(black_box(m)).into();
                }
                black_box(&out);
            })
        });
        for kernel in __bench::kernels() {
            g.bench_function(BenchmarkId::new("multi", kernel), |b| {
                b.iter(|| {
                    __bench::digest_many_into(kernel, black_box(&msgs), &mut out);
                    black_box(&out);
                })
            });
        }
        g.finish();
        // Every kernel agrees with single-stream on this batch.
        for kernel in __bench::kernels() {
            __bench::digest_many_into(kernel, &msgs, &mut out);
            for (m, o) in msgs.iter().zip(&out) {
                assert_eq!(o[..], Md5::digest(m)[..], "{kernel} on {name}");
            }
        }
    }
}

fn bench_raw<M: Measurement>(c: &mut Criterion<M>) {
    const BLOCKS: usize = 16;
    let mut rng = Rng(0x6265_6e63_6803);
    let data: Vec<u8> = (0..16 * BLOCKS * 64).map(|_| rng.next() as u8).collect();
    let mut g = c.benchmark_group("multi_raw");
    for kernel in __bench::kernels() {
        let bytes = (__bench::lanes(kernel) * BLOCKS * 64) as u64;
        g.throughput(Throughput::Bytes(bytes));
        g.bench_function(BenchmarkId::new("compress", kernel), |b| {
            b.iter(|| __bench::compress(kernel, black_box(&data), BLOCKS))
        });
        if __bench::transpose(kernel, &data, BLOCKS).is_some() {
            g.bench_function(BenchmarkId::new("transpose", kernel), |b| {
                b.iter(|| __bench::transpose(kernel, black_box(&data), BLOCKS))
            });
        }
    }
    g.finish();
}

fn run<M: Measurement>(c: Criterion<M>) {
    let mut c = c
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args();
    bench_batches(&mut c);
    bench_raw(&mut c);
    c.final_summary();
}

fn main() {
    let wall = std::env::var_os("MD5_BENCH_WALL_TIME").is_some_and(|v| v != "0");
    if wall || !cpu_time::AVAILABLE {
        println!("clock: wall time");
        run(Criterion::default().with_measurement(WallTime));
    } else {
        println!("clock: thread CPU time");
        run(Criterion::default().with_measurement(cpu_time::CpuTime));
    }
    // `cargo bench` passes `--bench`; `cargo test --bench multi` only checks
    // that each benchmark runs, and has no fresh estimates to summarise.
    if std::env::args().any(|a| a == "--bench") {
        summary();
    }
}

/// A criterion clock that counts the CPU time of the calling thread, in ns.
mod cpu_time {
    use super::{Measurement, Throughput, ValueFormatter};

    pub const AVAILABLE: bool = cfg!(target_os = "linux");

    pub struct CpuTime;

    #[cfg(target_os = "linux")]
    fn now_ns() -> u64 {
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
    fn now_ns() -> u64 {
        unreachable!("CpuTime is only used on Linux")
    }

    impl Measurement for CpuTime {
        type Intermediate = u64;
        type Value = u64;

        fn start(&self) -> u64 {
            now_ns()
        }
        fn end(&self, start: u64) -> u64 {
            now_ns() - start
        }
        fn add(&self, a: &u64, b: &u64) -> u64 {
            a + b
        }
        fn zero(&self) -> u64 {
            0
        }
        fn to_f64(&self, v: &u64) -> f64 {
            *v as f64
        }
        fn formatter(&self) -> &dyn ValueFormatter {
            &NsFormatter
        }
    }

    struct NsFormatter;

    impl ValueFormatter for NsFormatter {
        fn scale_values(&self, ns: f64, values: &mut [f64]) -> &'static str {
            let (factor, unit) = if ns < 1e3 {
                (1.0, "ns")
            } else if ns < 1e6 {
                (1e-3, "us")
            } else {
                (1e-6, "ms")
            };
            values.iter_mut().for_each(|v| *v *= factor);
            unit
        }

        fn scale_throughputs(&self, _: f64, t: &Throughput, values: &mut [f64]) -> &'static str {
            let (n, unit) = match *t {
                Throughput::Bytes(n) | Throughput::BytesDecimal(n) => (n as f64 / 1e6, "MB/s"),
                Throughput::Elements(n) => (n as f64, "elem/s"),
            };
            values.iter_mut().for_each(|v| *v = n / (*v * 1e-9));
            unit
        }

        fn scale_for_machines(&self, _: &mut [f64]) -> &'static str {
            "ns"
        }
    }
}

/// Criterion's output folder: `$CRITERION_HOME`, or `criterion` beside the
/// `release` folder that holds this bench binary.
fn criterion_dir() -> Option<std::path::PathBuf> {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return Some(home.into());
    }
    let exe = std::env::current_exe().ok()?;
    Some(exe.parent()?.parent()?.parent()?.join("criterion"))
}

/// The mean time per iteration in ns that criterion stored for a benchmark.
fn mean_ns(group: &str, id: &str) -> Option<f64> {
    let path = criterion_dir()?
        .join(group.replace('/', "_"))
        .join(id)
        .join("new/estimates.json");
    let text = std::fs::read_to_string(path).ok()?;
    // {"mean":{"confidence_interval":{...},"point_estimate":123.4,...},...}
    let mean = &text[text.find("\"mean\"")?..];
    let at = mean.find("\"point_estimate\":")? + "\"point_estimate\":".len();
    let end = mean[at..].find([',', '}'])?;
    mean[at..at + end].trim().parse().ok()
}

/// Prints throughput and the ratio to single-stream for every kernel and
/// batch, from the estimates criterion just wrote (a filtered run prints
/// what it measured).
fn summary() {
    println!("\nmulti-buffer summary (mean times; ratio = single-stream time / kernel time)");
    println!(
        "single-stream backend: md5::backend() = {}; md5::multi::backend() = {}",
        md5::backend(),
        md5::multi::backend()
    );
    println!(
        "{:<10} {:<10} {:>6} {:>12} {:>10} {:>8}",
        "batch", "impl", "lanes", "time", "MB/s", "ratio"
    );
    for (name, lens) in workloads() {
        let group = format!("multi/{name}");
        let bytes: usize = lens.iter().sum();
        let Some(single) = mean_ns(&group, "single") else {
            continue;
        };
        let row = |imp: &str, lanes: String, ns: f64| {
            println!(
                "{name:<10} {imp:<10} {lanes:>6} {:>10.1}us {:>10.0} {:>7.2}x",
                ns / 1e3,
                bytes as f64 / ns * 1e3,
                single / ns
            );
        };
        row("single", "1".into(), single);
        for kernel in __bench::kernels() {
            if let Some(ns) = mean_ns(&group, &format!("multi/{kernel}")) {
                row(kernel, __bench::lanes(kernel).to_string(), ns);
            }
        }
    }
    println!("\nraw kernel call, 16 blocks per lane: transposition share");
    for kernel in __bench::kernels() {
        let (Some(all), Some(tr)) = (
            mean_ns("multi_raw", &format!("compress/{kernel}")),
            mean_ns("multi_raw", &format!("transpose/{kernel}")),
        ) else {
            continue;
        };
        let blocks = (__bench::lanes(kernel) * 16) as f64;
        println!(
            "{kernel:<10} compress {:>7.1} ns/block, loads+transpose {:>6.1} ns/block ({:.1}%)",
            all / blocks,
            tr / blocks,
            100.0 * tr / all
        );
    }
}
