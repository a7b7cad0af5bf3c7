//! This crate against its soft backend, md-5 0.10.6 and OpenSSL's
//! libcrypto, interleaved in one process: `cargo bench --bench compare`.
//!
//! Each round measures every case once for every contender, rotating their
//! order, and times a chain of dependent 64-bit `add`s (one a cycle) before
//! each sample. The machines this runs on are shared, and interference only
//! ever slows a sample down, so each contender's figure is its fastest
//! sample, and cycles/byte use the fastest clock sample of the case.
//! Ratios compare the fastest samples of two contenders taken side by side.
//!
//! Links `libcrypto` (Debian: `libssl-dev`). x86_64 only for now.

#[cfg(target_arch = "x86_64")]
mod x86_64 {
    use core::ffi::{c_int, c_void};
    use md5::Digest;
    use md5x_testkit::cpu::cpu_name;
    use std::hint::black_box;
    use std::time::Instant;

    /// `MD5_CTX` of `openssl/md5.h`: A..D, Nl, Nh, data[16], num.
    #[repr(C)]
    struct Md5Ctx([u32; 23]);

    #[link(name = "crypto")]
    extern "C" {
        fn MD5_Init(c: *mut Md5Ctx) -> c_int;
        fn MD5_Update(c: *mut Md5Ctx, data: *const c_void, len: usize) -> c_int;
        fn MD5_Final(md: *mut u8, c: *mut Md5Ctx) -> c_int;
        fn MD5(d: *const u8, n: usize, md: *mut u8) -> *mut u8;
    }

    /// md5x-block's streaming `State` over its portable backend: the
    /// soft contender.
    type SoftMd5 = md5x_block::State<md5x_block::Soft>;

    /// A hasher under test.
    trait Hasher {
        fn new() -> Self;
        fn update(&mut self, data: &[u8]);
        fn finish(self) -> [u8; 16];
        fn oneshot(data: &[u8]) -> [u8; 16];
    }

    struct Rust<D>(D);

    impl<D: Digest> Hasher for Rust<D> {
        fn new() -> Self {
            Self(D::new())
        }
        fn update(&mut self, data: &[u8]) {
            self.0.update(data);
        }
        fn finish(self) -> [u8; 16] {
            self.0.finalize()[..].try_into().unwrap()
        }
        fn oneshot(data: &[u8]) -> [u8; 16] {
            D::digest(data)[..].try_into().unwrap()
        }
    }

    impl Hasher for SoftMd5 {
        fn new() -> Self {
            Self::default()
        }
        fn update(&mut self, data: &[u8]) {
            SoftMd5::update(self, data);
        }
        fn finish(self) -> [u8; 16] {
            self.finalize()
        }
        fn oneshot(data: &[u8]) -> [u8; 16] {
            let mut state = Self::default();
            state.update(data);
            state.finalize()
        }
    }

    struct OpenSsl(Md5Ctx);

    impl Hasher for OpenSsl {
        fn new() -> Self {
            let mut ctx = Md5Ctx([0; 23]);
            // SAFETY: `ctx` is a writable `MD5_CTX`.
            assert_eq!(unsafe { MD5_Init(&mut ctx) }, 1);
            Self(ctx)
        }
        fn update(&mut self, data: &[u8]) {
            // SAFETY: `data` is readable for `data.len()` bytes; the context
            // was initialised by `MD5_Init`.
            unsafe { MD5_Update(&mut self.0, data.as_ptr().cast(), data.len()) };
        }
        fn finish(mut self) -> [u8; 16] {
            let mut out = [0; 16];
            // SAFETY: `out` has room for the 16-byte digest.
            unsafe { MD5_Final(out.as_mut_ptr(), &mut self.0) };
            out
        }
        fn oneshot(data: &[u8]) -> [u8; 16] {
            let mut out = [0; 16];
            // SAFETY: `data` is readable for `data.len()` bytes and `out`
            // has room for the 16-byte digest.
            unsafe { MD5(data.as_ptr(), data.len(), out.as_mut_ptr()) };
            out
        }
    }

    #[derive(Clone, Copy)]
    enum Case {
        /// `update` calls of this many bytes into one hasher (md5_N).
        Update(usize),
        /// One-shot digests of this many bytes.
        OneShot(usize),
    }

    impl Case {
        fn name(self) -> String {
            fn size(n: usize) -> String {
                match n {
                    n if n >= 1 << 20 => format!("{} MiB", n >> 20),
                    n if n >= 1 << 10 => format!("{} KiB", n >> 10),
                    n => format!("{n} B"),
                }
            }
            match self {
                Case::Update(n) => format!("md5_{n}"),
                Case::OneShot(n) => format!("one-shot {}", size(n)),
            }
        }
    }

    /// Bytes hashed per sample (at least one message): under a millisecond
    /// but for the 1 MiB one-shot, so that many samples run unpreempted.
    const SAMPLE_BYTES: usize = 1 << 18;

    /// Runs one sample of `case` with `H`; returns a byte of the result so
    /// the work cannot be dropped.
    fn run<H: Hasher>(case: Case, data: &[u8]) -> u8 {
        match case {
            Case::Update(n) => {
                let mut h = H::new();
                for _ in 0..SAMPLE_BYTES / n {
                    h.update(black_box(&data[..n]));
                }
                h.finish()[0]
            }
            Case::OneShot(n) => {
                let mut x = 0;
                for _ in 0..SAMPLE_BYTES.div_ceil(n) {
                    x ^= H::oneshot(black_box(&data[..n]))[0];
                }
                x
            }
        }
    }

    fn bytes_per_sample(case: Case) -> usize {
        match case {
            Case::Update(n) => SAMPLE_BYTES / n * n,
            Case::OneShot(n) => SAMPLE_BYTES.div_ceil(n) * n,
        }
    }

    /// `blocks` through a bare compress function, for the compress table.
    fn run_compress(f: fn(&mut [u32; 4], &[[u8; 64]]), blocks: &[[u8; 64]]) -> u8 {
        let mut state = [1, 2, 3, 4];
        for _ in 0..SAMPLE_BYTES / (64 * blocks.len()) {
            f(&mut state, black_box(blocks));
        }
        state[0] as u8
    }

    /// Dependent adds per clock sample; one add retires per cycle.
    const CLOCK_ADDS: u64 = 1_000_000;

    /// The core clock in GHz, from a chain of `CLOCK_ADDS` dependent adds.
    fn clock_ghz() -> f64 {
        let start = Instant::now();
        // SAFETY: only the two named registers and the flags are touched.
        unsafe {
            core::arch::asm!(
                "2:",
                ".rept 1000",
                "add {x}, 1",
                ".endr",
                "dec {n}",
                "jnz 2b",
                x = inout(reg) 0u64 => _,
                n = inout(reg) CLOCK_ADDS / 1000 => _,
                options(nomem, nostack),
            );
        }
        CLOCK_ADDS as f64 / start.elapsed().as_nanos() as f64
    }

    /// One sample: (seconds, GHz measured just before).
    fn sample(f: impl FnOnce() -> u8) -> (f64, f64) {
        let ghz = clock_ghz();
        let start = Instant::now();
        black_box(f());
        (start.elapsed().as_secs_f64(), ghz)
    }

    /// Times `contenders` on a case for `rounds` rounds, rotating the order,
    /// and returns per contender the samples (seconds, GHz).
    fn measure(rounds: usize, contenders: &[&dyn Fn() -> u8]) -> Vec<Vec<(f64, f64)>> {
        let mut samples = vec![Vec::with_capacity(rounds); contenders.len()];
        for _ in 0..2 {
            // Warm up: caches, branch predictors, page faults.
            contenders.iter().for_each(|f| {
                black_box(f());
            });
        }
        for r in 0..rounds {
            for k in 0..contenders.len() {
                let i = (k + r) % contenders.len();
                samples[i].push(sample(contenders[i]));
            }
        }
        samples
    }

    /// Prints one markdown row: the first contender against each other one.
    ///
    /// The machine is shared, so a sample is only ever made slower (by
    /// preemption, or another core's work): each contender's time is its
    /// fastest sample. A clock sample can only read low too (a chain cannot
    /// run faster than one add a cycle), so the clock is the fastest one of
    /// the case; cycles/byte are then an upper bound.
    ///
    /// Also appends one JSON line per contender to `json`, for
    /// `benches/plot.py`.
    fn row(
        label: &str,
        bytes: usize,
        names: &[&str],
        samples: &[Vec<(f64, f64)>],
        json: &mut Vec<String>,
    ) {
        let best = |s: &[(f64, f64)]| s.iter().map(|x| x.0).fold(f64::INFINITY, f64::min);
        let ghz = samples.iter().flatten().map(|x| x.1).fold(0.0, f64::max);
        for (name, s) in names.iter().zip(samples) {
            json.push(format!(
                r#"{{"case":"{label}","contender":"{name}","mb_per_s":{:.1},"cycles_per_byte":{:.3}}}"#,
                bytes as f64 / best(s) / 1e6,
                best(s) * ghz * 1e9 / bytes as f64
            ));
        }
        let mut line = format!(
            "| {label} | {:.0} |",
            bytes as f64 / best(&samples[0]) / 1e6
        );
        for s in samples {
            line += &format!(" {:.2} |", best(s) * ghz * 1e9 / bytes as f64);
        }
        for s in &samples[1..] {
            line += &format!(" {:.2} |", best(s) / best(&samples[0]));
        }
        println!("{line}");
    }

    pub(crate) fn main() {
        let rounds = std::env::var("COMPARE_ROUNDS")
            .ok()
            .and_then(|r| r.parse().ok())
            .unwrap_or(201);
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let data: Vec<u8> = (0..1 << 20)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed as u8
            })
            .collect();

        let cases = [
            Case::Update(10),
            Case::Update(100),
            Case::Update(1000),
            Case::Update(10000),
            Case::OneShot(16),
            Case::OneShot(64),
            Case::OneShot(256),
            Case::OneShot(1 << 10),
            Case::OneShot(4 << 10),
            Case::OneShot(16 << 10),
            Case::OneShot(64 << 10),
            Case::OneShot(1 << 20),
        ];
        // The contenders must agree before their speed means anything.
        for n in [0, 1, 55, 56, 63, 64, 65, 1000, data.len()] {
            let want = OpenSsl::oneshot(&data[..n]);
            assert_eq!(Rust::<md5::Md5>::oneshot(&data[..n]), want);
            assert_eq!(SoftMd5::oneshot(&data[..n]), want);
            assert_eq!(Rust::<upstream::Md5>::oneshot(&data[..n]), want);
            let mut h = SoftMd5::new();
            data[..n].chunks(7).for_each(|c| h.update(c));
            assert_eq!(h.finish(), want);
        }
        if !std::env::args().any(|a| a == "--bench") {
            // `cargo test --benches` runs this without `--bench`: the check
            // above is the test; timing is for `cargo bench`.
            println!("compare: all contenders agree; `cargo bench --bench compare` times them");
            return;
        }

        let ghz = (0..101).map(|_| clock_ghz()).fold(0.0, f64::max);
        println!(
            "md5::backend() = {}; {rounds} rounds; clock {ghz:.2} GHz (fastest of 101 chains of dependent adds)",
            md5::backend(),
        );
        let mut json = vec![format!(
            r#"{{"bench":"compare","cpu":"{}","backend":"{}","ghz":{ghz:.2},"rounds":{rounds}}}"#,
            cpu_name(),
            md5::backend()
        )];
        let names = ["this crate", "soft", "md-5 0.10.6", "OpenSSL"];
        println!();
        println!("Fastest sample of each; cycles/byte (c/B) at the fastest clock sample; ×X = X's time / this crate's time.");
        println!();
        println!("| case | this crate MB/s | this crate c/B | soft c/B | md-5 0.10.6 c/B | OpenSSL c/B | ×soft | ×md-5 0.10.6 | ×OpenSSL |");
        println!("|---|--:|--:|--:|--:|--:|--:|--:|--:|");
        for case in cases {
            let data = &data[..];
            let samples = measure(
                rounds,
                &[
                    &|| run::<Rust<md5::Md5>>(case, data),
                    &|| run::<SoftMd5>(case, data),
                    &|| run::<Rust<upstream::Md5>>(case, data),
                    &|| run::<OpenSsl>(case, data),
                ],
            );
            row(
                &case.name(),
                bytes_per_sample(case),
                &names,
                &samples,
                &mut json,
            );
        }

        // The bare block functions, on 16 KiB that stay in L1.
        let blocks: Vec<[u8; 64]> = data[..16 << 10]
            .chunks_exact(64)
            .map(|b| b.try_into().unwrap())
            .collect();
        let blocks = &blocks[..];
        println!();
        println!(
            "| md5::compress | {0} MB/s | {0} c/B | soft c/B | ×soft |",
            md5::backend()
        );
        println!("|---|--:|--:|--:|--:|");
        let bytes = SAMPLE_BYTES / blocks.len() / 64 * blocks.len() * 64;
        let samples = measure(
            rounds,
            &[&|| run_compress(md5::compress, blocks), &|| {
                run_compress(md5x_block::soft::compress, blocks)
            }],
        );
        let names = [md5::backend(), "soft"].map(|b| format!("md5::compress {b}"));
        let names = names.each_ref().map(String::as_str);
        row("16 KiB a call", bytes, &names, &samples, &mut json);
        if let Some(dir) = std::env::var_os("MD5_BENCH_OUT") {
            let path = std::path::Path::new(&dir).join("compare.jsonl");
            std::fs::create_dir_all(&dir).expect("MD5_BENCH_OUT: cannot create the folder");
            std::fs::write(&path, json.join("\n") + "\n").expect("MD5_BENCH_OUT: cannot write");
            println!("\nwrote {}", path.display());
        }
    }
}

fn main() {
    #[cfg(target_arch = "x86_64")]
    x86_64::main();
    #[cfg(not(target_arch = "x86_64"))]
    println!("compare: x86_64 only for now");
}
