"""md5x.hash_array against what a user runs today, on 1M rows of 8 to 55 bytes.

    python python/benches/bench_arrow.py [--rows N] [--rounds R]

Each case is timed side by side with its peer in one process, in
interleaved rounds; the best round of each counts. The rows are ASCII, of
seeded random lengths 8 to 55 bytes (one MD5 block each), and every timed
call returns the digests as a column the caller can use:

- pyarrow: `pa.array(md5x.hash_array(arr))` against the hashlib loop a user
  writes over the same rows as a Python list of str,
  `[hashlib.md5(s.encode()).hexdigest() for s in strings]` (the list made
  before timing, which favours hashlib: from the pyarrow array,
  `to_pylist()` adds its own time).
- Polars: `pl.Series(md5x.hash_array(series))`, and the same through
  `map_batches` in an expression, against polars-hash's
  `pl.col("s").nchash.md5()`.
- DataFusion: `SELECT md5(s) FROM t` with the README's md5x UDF registered
  as `md5`, against the built-in `md5()`, both collected to pyarrow.
- DuckDB: the README's `md5_fast(s)` Arrow UDF against DuckDB's `md5(s)`,
  both fetched as Arrow.
"""

import argparse
import gc
import hashlib
import os
import platform
import random
import time

import pyarrow as pa

import md5x


def cpu_name():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def make_rows(n, seed=2026):
    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    pool = "".join(rng.choice(letters) for _ in range(1 << 16))
    rows = []
    for _ in range(n):
        length = rng.randint(8, 55)
        start = rng.randrange(len(pool) - length)
        rows.append(pool[start : start + length])
    return rows


def best_of(cases, rounds):
    """The best time of each case, the cases run in turn each round."""
    best = {name: float("inf") for name in cases}
    for _ in range(rounds):
        for name, fn in cases.items():
            gc.collect()
            start = time.perf_counter()
            fn()
            best[name] = min(best[name], time.perf_counter() - start)
    return best


def report(title, best, ours, peer, rows):
    ratio = best[peer] / best[ours]
    print(f"\n{title}")
    for name, t in best.items():
        print(f"  {name:<58} {t * 1e3:9.1f} ms  {t / rows * 1e9:7.1f} ns/row")
    print(f"  md5x {ratio:.1f}x as fast")
    return ratio


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    n, rounds = args.rows, args.rounds

    print(f"CPU: {cpu_name()} ({os.cpu_count()} logical CPUs)")
    print(f"kernel: {platform.system()} {platform.release()}")
    print(f"python {platform.python_version()}, pyarrow {pa.__version__}, md5x {md5x.__version__}")
    print(f"{n} rows of 8-55 ASCII bytes, best of {rounds} interleaved rounds")

    strings = make_rows(n)
    arr = pa.array(strings, type=pa.string())
    want = [hashlib.md5(s.encode()).hexdigest() for s in strings[:1000]]
    assert pa.array(md5x.hash_array(arr)).to_pylist()[:1000] == want
    results = {}

    # pyarrow
    best = best_of(
        {
            "md5x: pa.array(md5x.hash_array(arr))": lambda: pa.array(md5x.hash_array(arr)),
            "hashlib: [md5(s.encode()).hexdigest() for s in strings]": lambda: [
                hashlib.md5(s.encode()).hexdigest() for s in strings
            ],
        },
        rounds,
    )
    results["pyarrow string -> hex vs hashlib loop"] = report(
        "pyarrow string array -> hex",
        best,
        "md5x: pa.array(md5x.hash_array(arr))",
        "hashlib: [md5(s.encode()).hexdigest() for s in strings]",
        n,
    )

    # Polars
    try:
        import polars as pl
        import polars_hash  # noqa: F401  (registers the nchash namespace)
    except ImportError as e:
        print(f"\nPolars: skipped ({e})")
    else:
        series = pl.Series("s", strings)
        df = pl.DataFrame({"s": series})
        by_md5x = pl.col("s").map_batches(lambda s: pl.Series(md5x.hash_array(s)), return_dtype=pl.String)
        assert df.select(by_md5x)["s"].to_list() == df.select(pl.col("s").nchash.md5())["s"].to_list()
        best = best_of(
            {
                "md5x: pl.Series(md5x.hash_array(series))": lambda: pl.Series(md5x.hash_array(series)),
                "md5x: df.select(pl.col('s').map_batches(...md5x...))": lambda: df.select(by_md5x),
                "polars-hash: df.select(pl.col('s').nchash.md5())": lambda: df.select(
                    pl.col("s").nchash.md5()
                ),
            },
            rounds,
        )
        peer = "polars-hash: df.select(pl.col('s').nchash.md5())"
        results["Polars Series vs polars-hash"] = report(
            "Polars Series -> hex", best, "md5x: pl.Series(md5x.hash_array(series))", peer, n
        )
        results["Polars map_batches vs polars-hash"] = best[peer] / best[
            "md5x: df.select(pl.col('s').map_batches(...md5x...))"
        ]
        ratio = results["Polars map_batches vs polars-hash"]
        print(f"  md5x through map_batches {ratio:.1f}x as fast")

    # DataFusion
    try:
        from datafusion import SessionContext, udf
    except ImportError as e:
        print(f"\nDataFusion: skipped ({e})")
    else:
        table = pa.table({"s": arr})
        builtin_ctx = SessionContext()
        builtin_ctx.register_record_batches("t", [table.to_batches(max_chunksize=8192)])
        md5x_ctx = SessionContext()
        md5x_ctx.register_record_batches("t", [table.to_batches(max_chunksize=8192)])
        md5x_ctx.register_udf(
            udf(lambda s: pa.array(md5x.hash_array(s)), [pa.string()], pa.string(), "immutable", name="md5")
        )
        query = "SELECT md5(s) AS h FROM t"
        a = pa.Table.from_batches(builtin_ctx.sql(query).collect())["h"].to_pylist()
        b = pa.Table.from_batches(md5x_ctx.sql(query).collect())["h"].to_pylist()
        assert sorted(a) == sorted(b)
        best = best_of(
            {
                "md5x UDF as md5: SELECT md5(s) FROM t": lambda: md5x_ctx.sql(query).collect(),
                "built-in: SELECT md5(s) FROM t": lambda: builtin_ctx.sql(query).collect(),
            },
            rounds,
        )
        results["DataFusion md5x UDF vs built-in md5"] = report(
            "DataFusion",
            best,
            "md5x UDF as md5: SELECT md5(s) FROM t",
            "built-in: SELECT md5(s) FROM t",
            n,
        )

    # DuckDB
    try:
        import duckdb
        from duckdb.sqltypes import VARCHAR
    except ImportError as e:
        print(f"\nDuckDB: skipped ({e})")
    else:
        con = duckdb.connect()
        con.register("src", pa.table({"s": arr}))
        con.execute("CREATE TABLE t AS SELECT * FROM src")
        con.create_function(
            "md5_fast", lambda s: pa.chunked_array(md5x.hash_array(s)), [VARCHAR], VARCHAR, type="arrow"
        )
        fast, slow = "SELECT md5_fast(s) AS h FROM t", "SELECT md5(s) AS h FROM t"
        assert con.sql(fast).to_arrow_table() == con.sql(slow).to_arrow_table()
        best = best_of(
            {
                "md5x: SELECT md5_fast(s) FROM t": lambda: con.sql(fast).to_arrow_table(),
                "DuckDB: SELECT md5(s) FROM t": lambda: con.sql(slow).to_arrow_table(),
            },
            rounds,
        )
        results["DuckDB md5_fast vs md5"] = report(
            "DuckDB", best, "md5x: SELECT md5_fast(s) FROM t", "DuckDB: SELECT md5(s) FROM t", n
        )

    print("\nsummary")
    for name, ratio in results.items():
        print(f"  {name:<45} {ratio:6.1f}x")


if __name__ == "__main__":
    main()
