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
- Polars: `pl.Series(md5x.hash_array(series))` (on every CPU, and with
  `jobs=1`), and the README's `map_batches` in a lazy query, against
  polars-hash's `pl.col("s").nchash.md5()`.
- DataFusion: `SELECT md5(s) FROM t` with the README's md5x UDF registered
  as `md5`, against the built-in `md5()`, both collected to pyarrow.
- DuckDB: the native extension's `md5x(s)`, `md5x.hash_array` over the
  relation `SELECT s FROM t`, and an Arrow UDF `md5_fast(s)` (which the
  README no longer offers), against DuckDB's `md5(s)`, all fetched as
  Arrow.

The load average is printed before and after: on a shared machine, run it
when the load is lowest.
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
    print("load average at the start: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))

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
        print(f"polars {pl.__version__}, polars-hash {polars_hash.__version__}")
        series = pl.Series("s", strings)
        df = pl.DataFrame({"s": series})
        lazy = df.lazy()
        by_md5x = pl.col("s").map_batches(lambda s: pl.Series(md5x.hash_array(s)), return_dtype=pl.String)
        want = df.select(pl.col("s").nchash.md5())["s"].to_list()
        assert lazy.select(by_md5x).collect()["s"].to_list() == want
        assert pl.Series(md5x.hash_array(series)).to_list() == want
        series_case = "md5x: pl.Series(md5x.hash_array(series))"
        lazy_case = "md5x: lazy.select(pl.col('s').map_batches(...md5x...)).collect()"
        one_case = "md5x: pl.Series(md5x.hash_array(series, jobs=1))"
        peer = "polars-hash: df.select(pl.col('s').nchash.md5())"
        best = best_of(
            {
                series_case: lambda: pl.Series(md5x.hash_array(series)),
                lazy_case: lambda: lazy.select(by_md5x).collect(),
                one_case: lambda: pl.Series(md5x.hash_array(series, jobs=1)),
                peer: lambda: df.select(pl.col("s").nchash.md5()),
            },
            rounds,
        )
        results["Polars Series vs polars-hash"] = report("Polars Series -> hex", best, series_case, peer, n)
        for name, case in (("lazy map_batches", lazy_case), ("jobs=1", one_case)):
            results[f"Polars {name} vs polars-hash"] = best[peer] / best[case]
            print(f"  md5x, {name}: {best[peer] / best[case]:.1f}x as fast")

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
        import md5x.duckdb as md5x_duckdb

        con = duckdb.connect(config={"allow_unsigned_extensions": "true"})
        md5x_duckdb.load(con)
        con.register("src", pa.table({"s": arr}))
        con.execute("CREATE TABLE t AS SELECT * FROM src")
        con.create_function(
            "md5_fast", lambda s: pa.chunked_array(md5x.hash_array(s)), [VARCHAR], VARCHAR, type="arrow"
        )
        builtin = "SELECT md5(s) AS h FROM t"
        want = con.sql(builtin).to_arrow_table()["h"]
        cases = {
            "extension: SELECT md5x(s) FROM t": "SELECT md5x(s) AS h FROM t",
            "Arrow UDF: SELECT md5_fast(s) FROM t": "SELECT md5_fast(s) AS h FROM t",
        }
        for query in cases.values():
            assert con.sql(query).to_arrow_table()["h"] == want
        relation = "md5x: hash_array(con.sql('SELECT s FROM t'))"
        assert pa.chunked_array(md5x.hash_array(con.sql("SELECT s FROM t"))) == want
        timed = {name: (lambda q: lambda: con.sql(q).to_arrow_table())(q) for name, q in cases.items()}
        timed[relation] = lambda: pa.chunked_array(md5x.hash_array(con.sql("SELECT s FROM t")))
        timed["DuckDB: SELECT md5(s) FROM t"] = lambda: con.sql(builtin).to_arrow_table()
        best = best_of(timed, rounds)
        print(f"duckdb {duckdb.__version__}")
        labels = ["extension md5x()", "Arrow UDF", "hash_array(relation)"]
        for label, name in zip(labels, [*cases, relation]):
            results[f"DuckDB {label} vs md5"] = report(
                f"DuckDB, {name}", {k: best[k] for k in (name, "DuckDB: SELECT md5(s) FROM t")},
                name, "DuckDB: SELECT md5(s) FROM t", n,
            )

    print("\nload average at the end: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    print("\nsummary")
    for name, ratio in results.items():
        print(f"  {name:<45} {ratio:6.1f}x")


if __name__ == "__main__":
    main()
