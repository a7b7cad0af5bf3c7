//! S3 multipart ETags: `md5::etag`'s forms against the single stream they
//! replace and against Python's hashlib, side by side.
//!
//! `cargo bench --bench etag` prints two tables (either alone with the
//! argument `buffer` or `file`):
//!
//! 1. **buffer**: `md5::etag::multipart` over a 1 GiB buffer in 8 MiB parts
//!    on one thread, with every multi-buffer kernel the CPU has, the
//!    streaming `EtagHasher` and a part-by-part loop of `Md5::digest`,
//!    against `Md5::digest` over the same buffer, which every ratio
//!    divides; and 960 MiB (120 parts: whole AVX2 sets of 24) beside it.
//!    The fastest of interleaved rounds, wall time on the calling thread
//!    (interference only slows a round down).
//! 2. **file**: the ETag of a 1 GiB file in 8 MiB parts, each contender a
//!    process of its own run under `/usr/bin/time` (wall time and peak
//!    resident set): `multipart_file`, its one-thread form, `EtagHasher`
//!    fed by 1 MiB reads, benches/etag_reference.py (hashlib), GNU
//!    `md5sum` (the single stream) and `cat FILE > /dev/null`, which the
//!    ratios divide. Page cache warm, then cold: as root, `sync`, `echo 3 >
//!    /proc/sys/vm/drop_caches` and 3 s of rest before every run (skipped
//!    when not root). The rest lets a VM that hands freed memory back to
//!    its host (virtio-balloon free page reporting) settle, so that every
//!    run starts from the same state: there the first touch of each page
//!    the cache refills is a fault to the host, which can cost more than
//!    the disk. The file is `target/etag-bench/1024MiB`, made on first use.
//!
//! Environment: `ETAG_BENCH_MIB` (default 1024) sizes the buffer and the
//! file, `ETAG_BENCH_ROUNDS` (default 5) the rounds, `ETAG_BENCH_FILE`
//! names another file. `cargo test --bench etag` checks that every
//! contender gives the same ETags, on small inputs, and times nothing.

use md5::etag::{self, EtagHasher};
use md5::{Digest, Md5};
use std::fs::File;
use std::hint::black_box;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use md5x_testkit::{cpu, Rng};

const MIB: usize = 1 << 20;
const PART: usize = 8 * MIB;
const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/etag_reference.py");

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// `len` seeded random bytes.
fn random_bytes(len: usize, seed: u64) -> Vec<u8> {
    let mut rng = Rng(seed);
    let mut data = vec![0u8; len];
    for chunk in data.chunks_mut(8) {
        let x = rng.next().to_le_bytes();
        chunk.copy_from_slice(&x[..chunk.len()]);
    }
    data
}

/// The ETag straightforwardly: each part with `Md5::digest`, in turn.
fn part_by_part(data: &[u8], part_size: usize) -> String {
    let mut outer = Md5::new();
    let mut n = 0;
    for part in data.chunks(part_size) {
        outer.update(Md5::digest(part));
        n += 1;
    }
    if n == 0 {
        outer.update(Md5::digest(b""));
        n = 1;
    }
    format!("{:x}-{n}", outer.finalize())
}

fn streamed(data: &[u8], part_size: usize) -> String {
    let mut hasher = EtagHasher::unlimited(part_size as u64).unwrap();
    for piece in data.chunks(MIB) {
        hasher.update(piece).unwrap();
    }
    hasher.finish().unwrap().to_string()
}

type Run = Box<dyn Fn(&[u8]) -> String>;

/// The buffer contenders: a name, and the result they compute (an ETag,
/// or for `Md5::digest` the digest).
fn buffer_contenders(part_size: usize) -> Vec<(String, Run)> {
    let mut all: Vec<(String, Run)> = vec![(
        "Md5::digest".into(),
        Box::new(|d: &[u8]| format!("{:x}", Md5::digest(d))),
    )];
    all.push((
        format!("multipart ({})", md5::multi::backend()),
        Box::new(move |d: &[u8]| etag::multipart(d, part_size).unwrap().to_string()),
    ));
    for kernel in md5::multi::kernel_choice::kernels() {
        let lanes = md5::multi::kernel_choice::lanes(kernel);
        all.push((
            format!("{kernel} ({lanes})"),
            Box::new(move |d: &[u8]| {
                etag::kernel_choice::multipart(kernel, d, part_size)
                    .unwrap()
                    .to_string()
            }),
        ));
    }
    all.push((
        "EtagHasher".into(),
        Box::new(move |d: &[u8]| streamed(d, part_size)),
    ));
    all.push((
        "part by part".into(),
        Box::new(move |d: &[u8]| part_by_part(d, part_size)),
    ));
    all
}

/// The fewest seconds per call of each contender over `data`, in
/// interleaved rounds with a rotating order.
fn time_buffer(contenders: &[(String, Run)], data: &[u8], rounds: usize) -> Vec<f64> {
    let mut samples = vec![Vec::new(); contenders.len()];
    for round in 0..rounds {
        for i in 0..contenders.len() {
            let i = (i + round) % contenders.len();
            let t = Instant::now();
            black_box((contenders[i].1)(black_box(data)));
            samples[i].push(t.elapsed().as_secs_f64());
        }
    }
    samples
        .into_iter()
        .map(|v| v.into_iter().fold(f64::MAX, f64::min))
        .collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn bench_buffer(mib: usize, rounds: usize) {
    let data = random_bytes(mib * MIB, 0x6574_6167_6265_6e01);
    let contenders = buffer_contenders(PART);
    println!(
        "\n## multipart over a buffer, {} parts of 8 MiB, one thread (fastest of {rounds} rounds, wall time)\n",
        data.len().div_ceil(PART)
    );
    println!("| contender | {mib} MiB: MB/s | × Md5::digest | 120 parts (960 MiB): MB/s | × Md5::digest |");
    println!("|---|--:|--:|--:|--:|");
    let whole = time_buffer(&contenders, &data, rounds);
    let sets =
        (data.len() >= 120 * PART).then(|| time_buffer(&contenders, &data[..120 * PART], rounds));
    for (i, (name, _)) in contenders.iter().enumerate() {
        let mut line = format!(
            "| {name} | {:.0} | {:.2} |",
            data.len() as f64 / whole[i] / 1e6,
            whole[0] / whole[i]
        );
        match &sets {
            Some(t) => {
                line += &format!(
                    " {:.0} | {:.2} |",
                    120.0 * PART as f64 / t[i] / 1e6,
                    t[0] / t[i]
                )
            }
            None => line += " | |",
        }
        println!("{line}");
    }
}

/// One contender of the file table: how to start it on a file.
struct FileContender {
    name: &'static str,
    command: Box<dyn Fn(&Path) -> Command>,
}

fn file_contenders() -> Vec<FileContender> {
    let me = std::env::current_exe().expect("the bench's own path");
    let child = move |form: &'static str| {
        let me = me.clone();
        Box::new(move |path: &Path| {
            let mut c = Command::new(&me);
            c.arg("--child").arg(form).arg(path);
            c
        }) as Box<dyn Fn(&Path) -> Command>
    };
    let mut all = vec![
        FileContender {
            name: "cat FILE > /dev/null",
            command: Box::new(|path| {
                let mut c = Command::new("cat");
                c.arg(path);
                c
            }),
        },
        FileContender {
            name: "multipart_file",
            command: child("multipart_file"),
        },
        FileContender {
            name: "multipart_file, one thread",
            command: child("one-thread"),
        },
        FileContender {
            name: "EtagHasher, 1 MiB reads",
            command: child("hasher"),
        },
        FileContender {
            name: "this binary, idle (baseline RSS)",
            command: child("idle"),
        },
    ];
    if Path::new(SCRIPT).exists() {
        all.push(FileContender {
            name: "etag_reference.py (hashlib)",
            command: Box::new(|path| {
                let mut c = Command::new("python3");
                c.arg(SCRIPT).arg(PART.to_string()).arg(path);
                c
            }),
        });
    }
    all.push(FileContender {
        name: "GNU md5sum (one stream)",
        command: Box::new(|path| {
            let mut c = Command::new("md5sum");
            c.arg(path);
            c
        }),
    });
    all
}

/// The child processes of the file table: one ETag of `path`, printed.
fn child(form: &str, path: &Path) {
    let file = File::open(path).expect("open the bench file");
    let etag = match form {
        "multipart_file" => etag::multipart_file(&file, PART as u64)
            .unwrap()
            .to_string(),
        "one-thread" => {
            let lanes = md5::multi::lanes().clamp(1, md5::multi::Lanes::MAX);
            etag::kernel_choice::multipart_file(&file, PART as u64, lanes, 4096, 1, 256 << 10)
                .unwrap()
                .to_string()
        }
        // `ETAG_BENCH_SHAPE=LANES,CHUNK,THREADS,AHEAD` (`24,4096,2,1048576`), for
        // trying read shapes by hand: `etag --child shape FILE`.
        "shape" => {
            let shape = std::env::var("ETAG_BENCH_SHAPE").expect("ETAG_BENCH_SHAPE");
            let v: Vec<usize> = shape.split(',').map(|x| x.parse().unwrap()).collect();
            etag::kernel_choice::multipart_file(&file, PART as u64, v[0], v[1], v[2], v[3] as u64)
                .unwrap()
                .to_string()
        }
        "hasher" => {
            let mut hasher = EtagHasher::new(PART as u64).unwrap();
            let mut buf = vec![0u8; MIB];
            let mut f = &file;
            loop {
                let n = f.read(&mut buf).unwrap();
                if n == 0 {
                    break;
                }
                hasher.update(&buf[..n]).unwrap();
            }
            hasher.finish().unwrap().to_string()
        }
        "idle" => String::new(),
        _ => panic!("unknown child form {form:?}"),
    };
    println!("{etag}");
}

/// Seconds and peak resident KiB of one run, from `/usr/bin/time`, its
/// standard output checked against `want` if given.
fn run_timed(c: &FileContender, path: &Path, want: Option<&str>) -> (f64, u64) {
    let inner = (c.command)(path);
    let mut cmd = Command::new("/usr/bin/time");
    cmd.arg("-f")
        .arg("%e %M")
        .arg(inner.get_program())
        .args(inner.get_args());
    if want.is_none() {
        // `cat FILE > /dev/null`; nothing to check for the others either.
        cmd.stdout(std::process::Stdio::null());
    }
    let out = cmd.output().expect("run /usr/bin/time");
    assert!(
        out.status.success(),
        "{}: {}",
        c.name,
        String::from_utf8_lossy(&out.stderr)
    );
    if let Some(want) = want {
        let got = String::from_utf8_lossy(&out.stdout);
        let got = got.split_whitespace().next().unwrap_or("");
        assert_eq!(got, want, "{} gave another ETag", c.name);
    }
    let err = String::from_utf8_lossy(&out.stderr);
    let last = err.lines().last().unwrap_or("");
    let mut f = last.split_whitespace();
    let secs: f64 = f.next().and_then(|s| s.parse().ok()).expect("time's %e");
    let kib: u64 = f.next().and_then(|s| s.parse().ok()).expect("time's %M");
    (secs, kib)
}

fn drop_caches() -> bool {
    let _ = Command::new("sync").status();
    std::fs::write("/proc/sys/vm/drop_caches", "3").is_ok()
}

/// The bench file: `ETAG_BENCH_FILE`, or `target/etag-bench/<mib>MiB`,
/// made on first use.
fn bench_file(mib: usize) -> PathBuf {
    if let Some(p) = std::env::var_os("ETAG_BENCH_FILE") {
        return p.into();
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/etag-bench");
    let path = dir.join(format!("{mib}MiB"));
    if std::fs::metadata(&path).is_ok_and(|m| m.len() == (mib * MIB) as u64) {
        return path;
    }
    std::fs::create_dir_all(&dir).unwrap();
    let mut f = File::create(&path).unwrap();
    for i in 0..mib {
        f.write_all(&random_bytes(MIB, 0x6669_6c65_0000 + i as u64))
            .unwrap();
    }
    f.sync_all().unwrap();
    path
}

fn bench_file_forms(mib: usize, rounds: usize) {
    let path = bench_file(mib);
    let len = std::fs::metadata(&path).unwrap().len();
    let want = etag::multipart_file(&File::open(&path).unwrap(), PART as u64)
        .unwrap()
        .to_string();
    let contenders = file_contenders();
    let expect = |c: &FileContender| match c.name {
        n if n.starts_with("cat") || n.contains("idle") || n.contains("md5sum") => None,
        _ => Some(want.as_str()),
    };
    let root = drop_caches();
    for cold in [false, true] {
        if cold && !root {
            println!("\n(cold page cache skipped: /proc/sys/vm/drop_caches needs root)");
            break;
        }
        let mut secs = vec![Vec::new(); contenders.len()];
        let mut kib = vec![0u64; contenders.len()];
        if !cold {
            for c in &contenders {
                run_timed(c, &path, expect(c)); // warms the page cache too
            }
        }
        for round in 0..rounds {
            for i in 0..contenders.len() {
                let i = (i + round) % contenders.len();
                if cold {
                    drop_caches();
                    std::thread::sleep(std::time::Duration::from_secs(3));
                }
                let (s, k) = run_timed(&contenders[i], &path, expect(&contenders[i]));
                secs[i].push(s);
                kib[i] = kib[i].max(k);
            }
        }
        let secs: Vec<f64> = secs.into_iter().map(median).collect();
        println!(
            "\n## the ETag of a {} MiB file in 8 MiB parts, page cache {} (median of {rounds} runs, wall time)\n",
            len >> 20,
            if cold { "cold" } else { "warm" }
        );
        println!("| contender | s | MB/s | time ÷ cat's | peak RSS MiB |");
        println!("|---|--:|--:|--:|--:|");
        for (i, c) in contenders.iter().enumerate() {
            println!(
                "| {} | {:.3} | {:.0} | {:.2} | {:.1} |",
                c.name,
                secs[i],
                len as f64 / secs[i] / 1e6,
                secs[i] / secs[0],
                kib[i] as f64 / 1024.0
            );
        }
    }
}

/// `cargo test --bench etag`: every contender agrees, on small inputs.
fn check() {
    let data = random_bytes(3 * 1000 * 1000 + 17, 7);
    for part_size in [1000 * 1000, 65536, 100_003] {
        let contenders = buffer_contenders(part_size);
        let want = part_by_part(&data, part_size);
        for (name, run) in &contenders[1..] {
            assert_eq!(run(&data), want, "{name}, parts of {part_size}");
        }
    }
    let dir = std::env::temp_dir().join(format!("etag-bench-check-{}", std::process::id()));
    std::fs::write(&dir, &data).unwrap();
    let file = File::open(&dir).unwrap();
    let want = part_by_part(&data, PART);
    assert_eq!(
        etag::multipart_file(&file, PART as u64)
            .unwrap()
            .to_string(),
        want
    );
    std::fs::remove_file(&dir).unwrap();
    println!("benches/etag: every buffer contender and multipart_file agree");
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--child") {
        child(&args[1], Path::new(&args[2]));
        return;
    }
    if !args.iter().any(|a| a == "--bench") {
        check();
        return;
    }
    let filter: Vec<&str> = args
        .iter()
        .filter(|a| !a.starts_with("--"))
        .map(String::as_str)
        .collect();
    let wants = |name: &str| filter.is_empty() || filter.contains(&name);
    let mib = env_or("ETAG_BENCH_MIB", 1024);
    let rounds = env_or("ETAG_BENCH_ROUNDS", 5).max(1);
    println!(
        "CPU: {}; md5::backend() = {}, md5::multi::backend() = {} ({} lanes)",
        cpu::cpu_name(),
        md5::backend(),
        md5::multi::backend(),
        md5::multi::lanes()
    );
    if wants("buffer") {
        bench_buffer(mib, rounds);
    }
    if wants("file") {
        bench_file_forms(mib, rounds);
    }
}
