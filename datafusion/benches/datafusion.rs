//! DataFusion's md5 against md5x in the same queries, one process, the two
//! interleaved round by round; each one's best round is compared.
//!
//! `cargo bench --bench datafusion` (in datafusion/). `MD5X_BENCH_ROUNDS`
//! sets the rounds (default 7). The peak-memory comparison runs this
//! binary again, once per function, as `rss md5|md5x ROWS`, since a
//! process's peak cannot go down between two measurements.

use datafusion::arrow::array::{ArrayRef, BinaryArray, RecordBatch, StringArray, StringViewArray};
use datafusion::arrow::datatypes::{Field, Schema};
use datafusion::datasource::MemTable;
use datafusion::prelude::{SessionConfig, SessionContext};
use md5x_testkit::Rng;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// `n` strings of 8 to 55 ASCII letters.
fn short_strings(n: usize) -> impl Iterator<Item = String> {
    let mut rng = Rng(1);
    (0..n).map(move |_| {
        let len = 8 + (rng.next() % 48) as usize;
        (0..len)
            .map(|_| (b'a' + (rng.next() % 26) as u8) as char)
            .collect()
    })
}

/// `n` blobs of 1 KiB.
fn blobs(n: usize) -> Vec<Vec<u8>> {
    let mut rng = Rng(2);
    (0..n)
        .map(|_| (0..1024).map(|_| rng.next() as u8).collect())
        .collect()
}

/// A context with md5x registered, `partitions` target partitions, and a
/// table `t` of `column` in batches of 8,192 rows spread over as many
/// partitions.
fn context(column: ArrayRef, partitions: usize) -> SessionContext {
    let schema = Arc::new(Schema::new(vec![Field::new(
        "s",
        column.data_type().clone(),
        false,
    )]));
    let mut parts = vec![Vec::new(); partitions];
    for (k, at) in (0..column.len()).step_by(8192).enumerate() {
        let len = 8192.min(column.len() - at);
        let batch = RecordBatch::try_new(Arc::clone(&schema), vec![column.slice(at, len)]).unwrap();
        parts[k % partitions].push(batch);
    }
    let table = MemTable::try_new(schema, parts).unwrap();
    let config = SessionConfig::new().with_target_partitions(partitions);
    let ctx = SessionContext::new_with_config(config);
    ctx.register_table("t", Arc::new(table)).unwrap();
    md5x_datafusion::register(&ctx);
    ctx
}

async fn run(ctx: &SessionContext, sql: &str) -> Duration {
    let start = Instant::now();
    let batches = ctx.sql(sql).await.unwrap().collect().await.unwrap();
    let elapsed = start.elapsed();
    assert_eq!(batches.iter().map(RecordBatch::num_rows).sum::<usize>(), 1);
    elapsed
}

/// Each query's best time over `rounds` rounds, the queries interleaved.
async fn best(rounds: usize, runs: &[(&SessionContext, String)]) -> Vec<Duration> {
    let mut best = vec![Duration::MAX; runs.len()];
    for _ in 0..rounds {
        for (k, (ctx, sql)) in runs.iter().enumerate() {
            best[k] = best[k].min(run(ctx, sql).await);
        }
    }
    best
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn cpu() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |name: &str| {
        info.lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split(':').nth(1))
            .map(|v| v.trim().to_string())
            .unwrap_or_default()
    };
    format!(
        "{} (family {}, model {}), {} threads",
        field("model name"),
        field("cpu family"),
        field("model\t"),
        std::thread::available_parallelism().map_or(1, |n| n.get())
    )
}

/// md5 against md5x on `ctx`'s table: both times and the ratio.
async fn compare(what: &str, rounds: usize, ctx: &SessionContext) -> (Duration, Duration) {
    let runs = [
        (ctx, "SELECT max(md5(s)) FROM t".to_string()),
        (ctx, "SELECT max(md5x(s)) FROM t".to_string()),
    ];
    let best = best(rounds, &runs).await;
    println!(
        "{what:<44} md5 {:>8.1} ms   md5x {:>7.1} ms   {:>5.2}x",
        ms(best[0]),
        ms(best[1]),
        best[0].as_secs_f64() / best[1].as_secs_f64()
    );
    (best[0], best[1])
}

/// A field of this process's /proc status in MiB: `VmRSS:` (resident
/// now) or `VmHWM:` (the peak).
fn status_mib(field: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib: f64 = status
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0);
    kib / 1024.0
}

/// The child of `peak_rss`: `CREATE TABLE h AS SELECT f(s) FROM t` over
/// `rows` short strings; prints the resident memory before the query and
/// the peak during it (the peak reset once the table is built, so that
/// building the input does not count).
fn rss_child(function: &str, rows: usize) {
    let column: ArrayRef = Arc::new(StringArray::from_iter_values(short_strings(rows)));
    let ctx = context(column, 1);
    // Linux: 5 resets VmHWM to the resident size now.
    std::fs::write("/proc/self/clear_refs", "5").expect("reset the peak RSS");
    let before = status_mib("VmRSS:");
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(async {
            let sql = format!("CREATE TABLE h AS SELECT {function}(s) AS d FROM t");
            ctx.sql(&sql).await.unwrap().collect().await.unwrap();
        });
    println!("{before:.1} {:.1}", status_mib("VmHWM:"));
}

/// Peak RSS of the two `CREATE TABLE ... AS SELECT`s, each in a process of
/// its own.
fn peak_rss(rows: usize) {
    let me = std::env::current_exe().unwrap();
    let mut peaks = Vec::new();
    for function in ["md5", "md5x"] {
        let out = std::process::Command::new(&me)
            .args(["rss", function, &rows.to_string()])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let nums: Vec<f64> = text
            .split_whitespace()
            .filter_map(|v| v.parse().ok())
            .collect();
        assert!(
            out.status.success() && nums.len() == 2,
            "{function}: {text}"
        );
        println!(
            "CREATE TABLE h AS SELECT {function:<4}(s), {rows} rows: peak RSS {:>7.1} MiB \
             ({:.1} MiB before the query, {:.1} MiB more)",
            nums[1],
            nums[0],
            nums[1] - nums[0]
        );
        peaks.push((nums[1], nums[1] - nums[0]));
    }
    println!(
        "peak RSS md5x / md5: {:.3} (the query's own: {:.3})",
        peaks[1].0 / peaks[0].0,
        peaks[1].1 / peaks[0].1
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() == 4 && args[1] == "rss" {
        return rss_child(&args[2], args[3].parse().unwrap());
    }
    // `cargo bench` passes --bench; a filter argument is not used.
    let rounds: usize = std::env::var("MD5X_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(7);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("CPU: {}", cpu());
    println!(
        "md5x::multi kernel: {} ({} lanes)",
        md5x::multi::backend(),
        md5x::multi::lanes()
    );
    println!("best of {rounds} rounds, md5 and md5x interleaved\n");

    let strings: Vec<String> = short_strings(1_000_000).collect();
    let utf8: ArrayRef = Arc::new(StringArray::from_iter_values(&strings));
    let view: ArrayRef = Arc::new(StringViewArray::from_iter_values(&strings));
    let blob_rows = blobs(100_000);
    let blobs: ArrayRef = Arc::new(BinaryArray::from_iter_values(&blob_rows));

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(cores)
        .build()
        .unwrap();
    runtime.block_on(async {
        let one = context(Arc::clone(&utf8), 1);
        compare("1M x 8-55 B Utf8, target_partitions=1", rounds, &one).await;
        let all = context(Arc::clone(&utf8), cores);
        compare(
            &format!("1M x 8-55 B Utf8, target_partitions={cores}"),
            rounds,
            &all,
        )
        .await;
        let blob_ctx = context(Arc::clone(&blobs), 1);
        compare(
            "100k x 1 KiB Binary, target_partitions=1",
            rounds,
            &blob_ctx,
        )
        .await;
        let view_ctx = context(Arc::clone(&view), 1);
        compare(
            "1M x 8-55 B Utf8View, target_partitions=1",
            rounds,
            &view_ctx,
        )
        .await;

        let runs = [
            (&one, "SELECT max(md5x(s)) FROM t".to_string()),
            (&view_ctx, "SELECT max(md5x(s)) FROM t".to_string()),
        ];
        let best = best(rounds, &runs).await;
        println!(
            "md5x on Utf8 {:.1} ms, on Utf8View {:.1} ms: Utf8View/Utf8 time {:.3}",
            ms(best[0]),
            ms(best[1]),
            best[1].as_secs_f64() / best[0].as_secs_f64()
        );
    });
    drop((utf8, view, blobs, blob_rows, strings));
    println!();
    let rows = std::env::var("MD5X_BENCH_RSS_ROWS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000_000);
    peak_rss(rows);
}
